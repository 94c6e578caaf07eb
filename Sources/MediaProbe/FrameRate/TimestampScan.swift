/// Accumulates one stream's packet timestamps during a scan, in constant memory.
///
/// Packets arrive in decoding order; a small sorted window puts presentation timestamps back in
/// order (B-frames reorder by at most a few frames) so the deltas between consecutive frames are
/// the real frame durations.
package struct TimestampScan {
  /// How many timestamps the reorder window holds; far more than any codec's reorder depth.
  static let windowSize = 32

  /// Packets seen.
  package private(set) var packetCount: Int64 = 0
  private var window: [Int64] = []
  private var lastPresented: Int64?
  private var firstTimestamp: Int64?
  private var end: Int64?
  private var lastDelta: Int64?
  package private(set) var minDelta: Int64?
  package private(set) var maxDelta: Int64?

  package init() {}

  /// Adds one packet's presentation (or else decoding) timestamp and duration, in time-base ticks.
  package mutating func add(timestamp: Int64?, duration: Int64) {
    packetCount += 1
    guard let timestamp else { return }
    firstTimestamp = Swift.min(firstTimestamp ?? timestamp, timestamp)
    if duration > 0 { end = Swift.max(end ?? timestamp + duration, timestamp + duration) }
    let position = window.firstIndex { $0 > timestamp } ?? window.count
    window.insert(timestamp, at: position)
    if window.count > TimestampScan.windowSize { present(window.removeFirst()) }
  }

  private mutating func present(_ timestamp: Int64) {
    defer { lastPresented = timestamp }
    guard let previous = lastPresented else { return }
    let delta = timestamp - previous
    guard delta > 0 else { return }  // duplicate timestamps say nothing about frame duration
    lastDelta = delta
    minDelta = Swift.min(minDelta ?? delta, delta)
    maxDelta = Swift.max(maxDelta ?? delta, delta)
  }

  /// Flushes the reorder window; call once after the last packet.
  package mutating func finish() {
    for timestamp in window { present(timestamp) }
    window.removeAll()
    if end == nil, let lastPresented {
      // No packet carried a duration: the last frame lasts like the one before it.
      end = lastPresented + (lastDelta ?? 0)
    }
  }

  /// The exact duration from the first timestamp to the end of the last packet, in ticks.
  package var durationTicks: Int64? {
    guard let firstTimestamp, let end, end > firstTimestamp else { return nil }
    return end - firstTimestamp
  }

  /// CFR when every frame lasts the same within one tick (timestamps rounded to the time base).
  package var mode: FrameRateMode? {
    guard let minDelta, let maxDelta else { return nil }
    return maxDelta - minDelta <= 1 ? .cfr : .vfr
  }
}
