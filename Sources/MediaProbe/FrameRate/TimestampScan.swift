/// Accumulates one stream's presented packets during a scan, in constant memory: their count,
/// the span they cover and the deltas between consecutive presentation timestamps.
///
/// Packets arrive in decoding order; a small sorted window puts presentation timestamps back in
/// order (B-frames reorder by at most a few frames) so the deltas between consecutive frames are
/// the real frame durations.
package struct TimestampScan {
  /// How many timestamps the reorder window holds; far more than any codec's reorder depth.
  static let windowSize = 32

  /// Presented packets seen.
  package private(set) var packetCount: Int64 = 0
  /// Packets that carried no timestamp at all.
  package private(set) var untimedCount: Int64 = 0
  private var window: [Int64] = []
  private var lastPresented: Int64?
  /// The earliest presented time, in time-base ticks.
  package private(set) var start: Int64?
  /// The end of the latest presented packet, in time-base ticks.
  package private(set) var end: Int64?

  private var lastDelta: Int64?
  /// The latest presented packet's timestamp and duration.
  private var latest: (timestamp: Int64, duration: Int64)?
  /// The longest duration any packet claimed.
  private var longestPacket: Int64 = 0
  /// Skip samples moved the presentation's start here (ticks).
  private var presentFrom: Int64?
  package private(set) var minDelta: Int64?
  package private(set) var maxDelta: Int64?

  package init() {}

  /// Adds one packet that is not presented (libavformat's `AV_PKT_FLAG_DISCARD`: outside an edit
  /// list). Its skip samples (`skip`, in ticks) still move where the presentation starts: the
  /// decoder counts them from this packet on.
  package mutating func addDiscarded(timestamp: Int64?, skip: Int64) {
    if skip > 0, let timestamp {
      presentFrom = Swift.max(presentFrom ?? timestamp + skip, timestamp + skip)
    }
  }

  /// Adds one presented packet: its presentation (or else decoding) timestamp and duration, in
  /// time-base ticks, and what its side data says is not presented at its start (`skip`) and end
  /// (`discard`), also in ticks. A packet wholly before the skipped start is not counted.
  package mutating func add(timestamp: Int64?, duration: Int64, skip: Int64 = 0, discard: Int64 = 0)
  {
    guard let timestamp else {
      packetCount += 1
      untimedCount += 1
      return
    }
    addDiscarded(timestamp: timestamp, skip: skip)
    var first = timestamp
    if let presentFrom, presentFrom > timestamp {
      if duration > 0 && timestamp + duration <= presentFrom { return }
      first = presentFrom
    }
    packetCount += 1
    start = Swift.min(start ?? first, first)
    if duration > 0 {
      let packetEnd = Swift.max(first, timestamp + duration - discard)
      end = Swift.max(end ?? packetEnd, packetEnd)
    }
    if timestamp >= (latest?.timestamp ?? .min) { latest = (timestamp, duration) }
    longestPacket = Swift.max(longestPacket, duration)
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
    if let lastPresented, end == nil || end! < lastPresented {
      // No packet carried a duration: the last frame lasts like the one before it.
      end = lastPresented + (lastDelta ?? 0)
    } else if let latest, let minDelta, let lastDelta, latest.duration > 0,
      2 * longestPacket < minDelta
    {
      // Every packet's duration is implausible (a Matroska DefaultDuration of 1 ms for frames
      // 33 ms apart): the last frame lasts like the one before it.
      end = latest.timestamp + lastDelta
    }
  }

  /// Ends the span no later than `limit` (an edit list's end): what lies beyond is not presented.
  package mutating func clampEnd(to limit: Int64) {
    if let end, let start, end > limit, limit > start { self.end = limit }
  }

  /// The exact span from the first presented time to the end of the last packet, in ticks.
  package var durationTicks: Int64? {
    guard let start, let end, end > start else { return nil }
    return end - start
  }

  /// CFR when every frame lasts the same within one tick (timestamps rounded to the time base).
  package var mode: FrameRateMode? {
    guard let minDelta, let maxDelta else { return nil }
    return maxDelta - minDelta <= 1 ? .cfr : .vfr
  }
}
