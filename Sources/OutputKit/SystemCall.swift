#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// The one seam to the kernel's interrupted calls (swift-system's `valueOrErrno(retryOnInterrupt:)`
/// is the model): a system call that returns -1 with `EINTR` (a signal arrived) is made again.
package enum SystemCall {
  /// Calls `body` until it does not fail with `EINTR`; returns its result (-1 with `errno` set on
  /// another failure).
  @inline(__always)
  package static func retryingOnInterrupt<Result: BinaryInteger>(_ body: () -> Result) -> Result {
    while true {
      let result = body()
      if result == -1 && errno == EINTR { continue }
      return result
    }
  }
}

/// The one monotonic clock of the tools (deadlines, progress, timings).
package enum MonotonicClock {
  /// Seconds since an arbitrary fixed point; never goes back.
  package static func seconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}
