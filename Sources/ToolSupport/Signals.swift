import MediaProbe
import Synchronization

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// The signal that interrupted the process (0 when none).
private let receivedSignal = Atomic<Int32>(0)

/// Turns the first SIGINT or SIGTERM into an `Interruption` request, so the running work stops,
/// removes its partial output and the tool exits with `interruptedExitCode`. A second signal
/// ends the process at once (default action).
public func installInterruptHandlers() {
  for signalNumber in [SIGINT, SIGTERM] {
    signal(signalNumber) { number in
      receivedSignal.store(number, ordering: .relaxed)
      Interruption.request()
      signal(number, SIG_DFL)
    }
  }
}

/// 128 + the signal number (130 for SIGINT), as shells report a process killed by a signal.
public var interruptedExitCode: Int32 {
  let number = receivedSignal.load(ordering: .relaxed)
  return 128 + (number == 0 ? SIGINT : number)
}
