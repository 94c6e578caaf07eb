import Synchronization

/// A process-wide request to stop (SIGINT, SIGTERM): long loops poll it, and libavformat's blocking
/// reads give up through their interrupt callback, so a tool can clean up and exit.
public enum Interruption {
  private static let requested = Atomic<Bool>(false)

  /// Asks every running operation to stop. Safe to call from a signal handler (one atomic store).
  public static func request() { requested.store(true, ordering: .relaxed) }

  /// True once `request()` was called.
  public static var isRequested: Bool { requested.load(ordering: .relaxed) }
}
