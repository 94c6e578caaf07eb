import MediaCore
import OutputKit
import AV
import MediaProbe
import Synchronization

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// What to do when interrupted, before exiting (remove partial outputs).
private let interruptCleanup = Mutex<(@Sendable () -> Void)?>(nil)

/// The signal that interrupted the process (0: none yet).
private let receivedSignal = Atomic<Int32>(0)

/// Handles SIGINT and SIGTERM on a dedicated thread (the signals are blocked everywhere else):
/// it records the signal, marks the `Interruption`, runs `cleanup` (for example, removing
/// temporary files), and exits with 128 + the signal number (130 for SIGINT, 143 for SIGTERM),
/// whatever the other threads are blocked in.
///
/// The other threads see the `Interruption` and stop, and may reach `exit()` first (with 1, as
/// for a failed input) while the signal thread is still cleaning up: an `atexit` handler turns
/// every exit after a signal into the same 128 + signal, after the same cleanup, so the status
/// does not depend on which thread wins.
///
/// Call before any other thread starts, so every thread inherits the blocked signals.
public func installInterruptHandlers(cleanup: @escaping @Sendable () -> Void = {}) {
  interruptCleanup.withLock { $0 = cleanup }
  atexit { exitIfInterrupted() }
  var signals = sigset_t()
  sigemptyset(&signals)
  sigaddset(&signals, SIGINT)
  sigaddset(&signals, SIGTERM)
  pthread_sigmask(SIG_BLOCK, &signals, nil)
  var thread = pthread_t()
  pthread_create(
    &thread, nil,
    { _ in
      var signals = sigset_t()
      sigemptyset(&signals)
      sigaddset(&signals, SIGINT)
      sigaddset(&signals, SIGTERM)
      var received: Int32 = 0
      while sigwait(&signals, &received) != 0 {}
      // The signal first, then the request: whoever sees the request finds the signal.
      receivedSignal.store(received, ordering: .sequentiallyConsistent)
      Interruption.request()
      exitIfInterrupted()
      return nil
    }, nil)
  pthread_detach(thread)
}

/// After SIGINT or SIGTERM: removes partial outputs and ends the process with 128 + the signal
/// number; otherwise returns. Called by the signal thread and, through `atexit`, by any thread
/// that exits the process.
private func exitIfInterrupted() {
  var signal = receivedSignal.load(ordering: .sequentiallyConsistent)
  // An interruption requested by the signal thread whose store of the signal number is not
  // visible yet (the request is a relaxed store): wait for it a little. One requested otherwise
  // (no signal) is left to the caller.
  var waits = 0
  while signal == 0 && Interruption.isRequested && waits < 1000 {
    usleep(100)
    waits += 1
    signal = receivedSignal.load(ordering: .sequentiallyConsistent)
  }
  guard signal != 0 else { return }
  // Cleaning up twice (the signal thread and an exiting thread) is harmless: the lock makes the
  // second wait for the first, and removing nothing is fine.
  interruptCleanup.withLock { $0?() }
  _exit(128 + signal)
}
