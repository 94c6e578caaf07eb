import OutputKit
#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif
import Synchronization

/// A one-line progress bar on standard error (percent, ×realtime speed, ETA), drawn only when
/// standard error is a terminal, at most ten times a second. Safe to update from any thread (a
/// decoder's progress callback).
public final class ProgressBar: Sendable {
  private let label: String
  private let enabled: Bool
  private let started = MonotonicClock.seconds()
  /// When the bar was last drawn, and whether it is on screen.
  private let drawing = Mutex<(lastDraw: Double, drawn: Bool)>((0, false))

  /// A bar for `label`; silent when `quiet` or when standard error is not a terminal.
  public init(label: String, quiet: Bool) {
    self.label = label
    self.enabled = !quiet && isatty(STDERR_FILENO) == 1
  }

  /// Redraws with `done` of `total` seconds of media processed.
  public func update(done: Double, total: Double?) {
    guard enabled else { return }
    let now = MonotonicClock.seconds()
    drawing.withLock { state in
      guard now - state.lastDraw >= 0.1 else { return }
      state.lastDraw = now
      Console.errorText(line(done: done, total: total, now: now))
      state.drawn = true
    }
  }

  private func line(done: Double, total: Double?, now: Double) -> String {
    let elapsed = max(now - started, 1e-6)
    let speed = done / elapsed
    var line = "\r\(label) "
    if let total, total > 0 {
      let fraction = min(1, max(0, done / total))
      let width = 24
      let filled = Int(fraction * Double(width))
      line +=
        "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        + "] "
      line += "\(Int(fraction * 100))%"
      if speed > 0 { line += "  ETA \(clock(max(0, total - done) / speed))" }
    } else {
      line += clock(done)
    }
    return line + "  \(Int(speed.rounded()))× realtime\u{1B}[K"
  }

  /// Clears the line.
  public func finish() {
    drawing.withLock { state in
      if state.drawn { Console.errorText("\r\u{1B}[K") }
      state.drawn = false
    }
  }

  private func clock(_ seconds: Double) -> String {
    let total = Int(seconds.rounded())
    let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
    let two = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
    return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
  }
}
