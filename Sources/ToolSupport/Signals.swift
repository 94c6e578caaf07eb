import MediaProbe
import Synchronization

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// What to do when interrupted, before exiting (remove partial outputs).
private let interruptCleanup = Mutex<(@Sendable () -> Void)?>(nil)

/// Handles SIGINT and SIGTERM on a dedicated thread (the signals are blocked everywhere else):
/// it marks the `Interruption`, runs `cleanup` (for example, removing temporary files), and exits
/// with 128 + the signal number (130 for SIGINT), whatever the other threads are blocked in.
///
/// Call before any other thread starts, so every thread inherits the blocked signals.
public func installInterruptHandlers(cleanup: @escaping @Sendable () -> Void = {}) {
  interruptCleanup.withLock { $0 = cleanup }
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
      Interruption.request()
      interruptCleanup.withLock { $0?() }
      _exit(128 + received)
    }, nil)
  pthread_detach(thread)
}
