import AV
import MediaCore
/// Accumulates one stream's presented packets during a scan, in constant memory: their count,
/// the span they cover and the deltas between consecutive presentation timestamps.
///
/// Packets arrive in decoding order; a small sorted window puts presentation timestamps back in
/// order (B-frames reorder by at most a few frames) so the deltas between consecutive frames are
/// the real frame durations.
///
/// Discontinuities: packets whose timestamps lie within `runGap` (60 s) of each other (a packet's
/// own duration counts as covered) form one run. A stream normally is one run; a mutated or
/// spliced timestamp starts another. `removeDiscontinuities(allowance:)` then joins runs closer
/// than the allowance and lays the others end to end, so the span is what the packets support,
/// not the distance to one wild timestamp.
package struct TimestampScan {
  /// How many timestamps the reorder window holds; far more than any codec's reorder depth.
  static let windowSize = 32
  /// Timestamps this far apart (seconds), beyond a packet's own duration, start a new run.
  package static let runGapSeconds: Int64 = 60
  /// Runs kept at most; beyond it the two closest are merged (memory stays constant).
  static let maxRuns = 16

  /// One run of packets whose timestamps lie within `runGap` of each other.
  struct Run {
    /// The earliest and the latest timestamp or packet end: what a packet must come near to join.
    var low: Int64
    var reach: Int64
    var count: Int64 = 0
    /// The first and last of its packets in decoding order (the stream's packet numbers).
    var first: Int64
    var last: Int64
    /// The earliest presented start and the latest presented end (packets with a duration).
    var start: Int64?
    var end: Int64?
    /// The latest presented packet's timestamp and duration.
    var latestTimestamp: Int64?
    var latestDuration: Int64 = 0

    func admits(_ timestamp: Int64, within gap: Int64) -> Bool {
      timestamp >= saturating(low, -gap) && timestamp <= saturating(reach, gap)
    }

    mutating func merge(_ other: Run) {
      low = Swift.min(low, other.low)
      reach = Swift.max(reach, other.reach)
      count += other.count
      first = Swift.min(first, other.first)
      last = Swift.max(last, other.last)
      if let start = other.start { self.start = Swift.min(self.start ?? start, start) }
      if let end = other.end { self.end = Swift.max(self.end ?? end, end) }
      if let latest = other.latestTimestamp, latest >= (latestTimestamp ?? .min) {
        latestTimestamp = latest
        latestDuration = other.latestDuration
      }
    }
  }

  /// `runGapSeconds` in ticks; nil without a usable time base (no runs are tracked).
  private let runGap: Int64?
  /// Ticks per second (0 without a time base).
  private let ticksPerSecond: Double
  private var runs: [Run] = []
  private var currentRun = 0
  /// Jumps between runs that `removeDiscontinuities` left out of the span.
  package private(set) var discontinuities = 0
  /// The frame deltas no larger than `runGap`: the stream's ordinary steps.
  private var ordinaryMinDelta: Int64?
  private var ordinaryMaxDelta: Int64?
  private var ordinaryLastDelta: Int64?

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
  /// The latest packet's timestamp and duration, of those whose samples the decoder presents.
  private var latest: (timestamp: Int64, duration: Int64)?
  /// Packets that had only a decoding timestamp.
  private var decodingTimeOnlyCount: Int64 = 0
  /// The one duration every packet had (-1 when they differ).
  private var uniformDuration: Int64?
  /// A packet ended the stream before its own start (Ogg's final granule): nothing extends it.
  private var endIsFinal = false
  /// The longest duration any packet claimed.
  private var longestPacket: Int64 = 0
  /// The timestamp of the second timed packet, where a stream whose first packet yields nothing
  /// starts (Vorbis outside Ogg).
  package private(set) var secondTimestamp: Int64?
  /// Timed packets seen, and those of them whose samples the decoder drops entirely.
  private var timedCount: Int64 = 0
  private var droppedCount: Int64 = 0
  /// Samples (in ticks) the decoder still drops from the start of the next frames: libavcodec's
  /// pending skip.
  private var pendingSkip: Int64 = 0
  /// Some packet carried skip samples: the codec's own pre-skip is already accounted for.
  package private(set) var skipsSamples = false
  package private(set) var minDelta: Int64?
  package private(set) var maxDelta: Int64?

  /// A scan of a stream whose timestamps count ticks of `timeBase` seconds; without a time base
  /// no discontinuity is looked for.
  package init(timeBase: Rational? = nil) {
    if let timeBase, timeBase.num > 0, timeBase.den > 0 {
      ticksPerSecond = Double(timeBase.den) / Double(timeBase.num)
      let (ticks, overflow) = Self.runGapSeconds.multipliedReportingOverflow(by: timeBase.den)
      runGap = overflow ? nil : Swift.max(1, ticks / timeBase.num)
    } else {
      ticksPerSecond = 0
      runGap = nil
    }
  }

  /// What the decoder presents of one frame `duration` ticks long, as libavcodec applies skip
  /// samples side data (decode.c): a packet's `skip` (nil: it has no side data) replaces the
  /// pending count rather than adding to it; the pending count drops whole frames, then trims
  /// the front of one; a `discard` is applied only when it fits in what is left of the frame,
  /// and drops the frame when it equals it. Nil when nothing of the frame is presented; else the
  /// ticks trimmed from its front and its back.
  private mutating func presented(duration: Int64, skip: Int64?, discard: Int64)
    -> (front: Int64, back: Int64)?
  {
    takeSkip(skip)
    guard duration > 0 else {
      // A frame of unknown length: the skip is taken from its start.
      defer { pendingSkip = 0 }
      return (pendingSkip, 0)
    }
    if pendingSkip >= duration {
      pendingSkip -= duration
      return nil
    }
    let front = pendingSkip
    pendingSkip = 0
    let rest = duration - front
    if discard == rest { return nil }
    return (front, discard > 0 && discard < rest ? discard : 0)
  }

  /// A packet's skip side data replaces the pending skip, whether or not the decoder makes a
  /// frame of the packet (libavcodec reads it after every decode call).
  private mutating func takeSkip(_ skip: Int64?) {
    guard let skip else { return }
    pendingSkip = Swift.max(skip, 0)
    skipsSamples = skipsSamples || skip > 0
  }

  /// Adds one packet that is not presented (libavformat's `AV_PKT_FLAG_DISCARD`: outside an edit
  /// list). The decoder still decodes it: its skip samples (`skip`, in ticks; nil without side
  /// data) and its `duration` count against the pending skip.
  package mutating func addDiscarded(duration: Int64, skip: Int64?) {
    takeSkip(skip)
    pendingSkip = Swift.max(0, pendingSkip - Swift.max(duration, 0))
  }

  /// Adds one presented packet: its presentation (or else decoding) timestamp and duration, in
  /// time-base ticks, and what its skip samples side data says is not presented at its start
  /// (`skip`, nil without side data) and end (`discard`), also in ticks. A packet whose samples
  /// the decoder drops still counts as a frame but does not extend the span.
  ///
  /// `decodingTimeOnly`: the packet has no presentation timestamp, `timestamp` is its decoding
  /// time, and the codec reorders frames (MPEG-PS B-frames): it places the frame only roughly.
  /// Without reordering, a decoding time is the presentation time: pass false.
  ///
  /// `presentsNothing`: the decoder outputs nothing from the packet: it holds no data (Ogg's
  /// end-of-stream packet at the last granule) or is not a whole frame (`PacketCheck`). It
  /// counts as a frame, as the demuxer presents it, but neither starts nor extends the span, nor
  /// stands for a last frame whose duration must be guessed.
  package mutating func add(
    timestamp: Int64?, duration: Int64, skip: Int64? = nil, discard: Int64 = 0,
    decodingTimeOnly: Bool = false, presentsNothing: Bool = false
  ) {
    packetCount += 1  // every packet the demuxer presents counts, even one wholly skipped
    if presentsNothing {
      takeSkip(skip)
      return
    }
    if decodingTimeOnly { decodingTimeOnlyCount += 1 }
    if duration != (uniformDuration ?? duration) {
      uniformDuration = -1
    } else {
      uniformDuration = duration
    }
    // A duration above 2^31 is a negative one stored unsigned (Ogg's last packet, when its
    // granule ends before the packet's nominal end).
    let duration =
      duration > Int64(Int32.max) && duration <= Int64(UInt32.max)
      ? duration - Int64(UInt32.max) - 1 : duration
    let trim = presented(duration: duration, skip: skip, discard: discard)
    guard let timestamp else {
      untimedCount += 1
      return
    }
    timedCount += 1
    if timedCount == 2 { secondTimestamp = timestamp }
    if trim == nil { droppedCount += 1 }
    if let trim {
      let first = timestamp + trim.front
      start = Swift.min(start ?? first, first)
      if duration < 0 {
        // The stream's last granule lies before this packet's start: the stream ends there.
        end = Swift.max(start ?? first, timestamp + duration)
        endIsFinal = true
      } else if duration > 0 {
        let packetEnd = timestamp + duration - trim.back
        end = Swift.max(end ?? packetEnd, packetEnd)
      }
    }
    if trim != nil, timestamp >= (latest?.timestamp ?? .min) { latest = (timestamp, duration) }
    track(timestamp: timestamp, duration: duration, trim: trim)
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
    if let runGap, delta > runGap { return }
    ordinaryLastDelta = delta
    ordinaryMinDelta = Swift.min(ordinaryMinDelta ?? delta, delta)
    ordinaryMaxDelta = Swift.max(ordinaryMaxDelta ?? delta, delta)
  }

  /// Adds a timed packet to the run its timestamp lies in (the latest one first), or starts a
  /// run; past `maxRuns` the two runs closest in time are merged.
  private mutating func track(
    timestamp: Int64, duration: Int64, trim: (front: Int64, back: Int64)?
  ) {
    guard let runGap else { return }
    var index: Int
    if runs.indices.contains(currentRun), runs[currentRun].admits(timestamp, within: runGap) {
      index = currentRun
    } else if let found = runs.firstIndex(where: { $0.admits(timestamp, within: runGap) }) {
      index = found
    } else {
      runs.append(Run(low: timestamp, reach: timestamp, first: packetCount, last: packetCount))
      index = runs.count - 1
    }
    var run = runs[index]
    run.count += 1
    run.last = packetCount
    run.low = Swift.min(run.low, timestamp)
    run.reach = Swift.max(run.reach, saturating(timestamp, Swift.max(duration, 0)))
    if let trim {
      let first = timestamp + trim.front
      run.start = Swift.min(run.start ?? first, first)
      if duration > 0 {
        let packetEnd = saturating(timestamp, duration - trim.back)
        run.end = Swift.max(run.end ?? packetEnd, packetEnd)
      }
      if timestamp >= (run.latestTimestamp ?? .min) {
        run.latestTimestamp = timestamp
        run.latestDuration = duration
      }
    }
    runs[index] = run
    if runs.count > Self.maxRuns {
      runs.sort { $0.low < $1.low }
      var closest = 0
      var smallest = Int64.max
      for at in 0..<(runs.count - 1) {
        let gap = saturating(runs[at + 1].low, -runs[at].reach)
        if gap < smallest { (closest, smallest) = (at, gap) }
      }
      runs[closest].merge(runs.remove(at: closest + 1))
      index = closest
    }
    currentRun = index
  }

  /// How long the stream's packets can last without a jump, in seconds: its presented packets
  /// times its longest ordinary step (the largest delta between consecutive presentation times,
  /// or the longest packet duration, neither counted beyond `runGapSeconds`). 0 without a time
  /// base.
  package var contentSeconds: Double {
    guard let runGap, ticksPerSecond > 0 else { return 0 }
    let step = Swift.max(ordinaryMaxDelta ?? 0, Swift.min(longestPacket, runGap))
    return Double(packetCount) * Double(step) / ticksPerSecond
  }

  /// Leaves jumps between runs out of the span (call after `finish`): runs whose gap is at most
  /// `allowance` seconds (never less than `runGapSeconds`) are joined, gap included, as before.
  /// Across a larger gap, a discontinuity, the group of runs with the most packets keeps its
  /// place on the timeline, and each other group:
  /// - whose packets lie, in decoding order, between the main group's first and last (timestamps
  ///   that jumped away and back: mutated or damaged ones) adds nothing, its frames counted but
  ///   their time already in the span, where they left a hole;
  /// - otherwise (a stream spliced from recordings made apart) is laid end to end before or
  ///   after the main group, as long as its own packets (a lone packet: its duration, else the
  ///   stream's ordinary step).
  /// The frame statistics (`minDelta`, `maxDelta`) then leave the jumps out too. Nothing changes
  /// when the stream is one group.
  package mutating func removeDiscontinuities(allowance: Double) {
    guard runs.count > 1, let runGap, ticksPerSecond > 0 else { return }
    let limit = Swift.max(
      runGap, Int64(Swift.min(allowance * ticksPerSecond, Double(Int64.max / 4))))
    var pieces: [Group] = []
    for run in runs {
      let first: Int64 = run.start ?? run.low
      var last: Int64 = Swift.max(run.end ?? first, first)
      if let latest = run.latestTimestamp, last <= latest || run.latestDuration <= 0 {
        // The latest frame carried no duration: it lasts an ordinary step.
        last = Swift.max(last, saturating(latest, ordinaryLastDelta ?? 0))
      }
      pieces.append(
        Group(start: first, end: last, count: run.count, first: run.first, last: run.last))
    }
    pieces.sort { $0.start < $1.start }
    var groups: [Group] = []
    for piece in pieces {
      if var group = groups.last, piece.start <= saturating(group.end, limit) {
        group.absorb(piece)
        groups[groups.count - 1] = group
      } else {
        groups.append(piece)
      }
    }
    guard groups.count > 1 else { return }
    var anchor = 0
    for index in groups.indices where groups[index].count > groups[anchor].count {
      anchor = index
    }
    let main = groups[anchor]
    var before: Int64 = 0
    var after: Int64 = 0
    for (index, group) in groups.enumerated() where index != anchor {
      // Packets that jumped away and back: their place inside the main group is empty already.
      let interleaved = group.first > main.first && group.last < main.last
      let length: Int64 = interleaved ? 0 : group.end - group.start
      if index < anchor {
        before = saturating(before, length)
      } else {
        after = saturating(after, length)
      }
    }
    discontinuities = groups.count - 1
    start = saturating(main.start, -before)
    end = saturating(main.end, after)
    minDelta = ordinaryMinDelta
    maxDelta = ordinaryMaxDelta
    lastDelta = ordinaryLastDelta
  }

  /// Runs joined across gaps within the allowance: their presented span, packets, and first and
  /// last packet numbers in decoding order.
  struct Group {
    var start: Int64
    var end: Int64
    var count: Int64
    var first: Int64
    var last: Int64

    mutating func absorb(_ other: Group) {
      end = Swift.max(end, other.end)
      count += other.count
      first = Swift.min(first, other.first)
      last = Swift.max(last, other.last)
    }
  }

  /// Flushes the reorder window; call once after the last packet.
  ///
  /// `headerEnd`: where the stream's own header says it ends, in ticks (its start plus
  /// `AVStream.duration`, not a bit-rate estimate). A last frame whose duration is guessed (it
  /// lasts like the one before it) ends there when that lies between its start and the guess:
  /// APE and ASF packets carry no durations, and an AVI's last frame is not followed by a gap.
  package mutating func finish(headerEnd: Int64? = nil) {
    for timestamp in window { present(timestamp) }
    window.removeAll()
    if endIsFinal { return }
    if start == nil, packetCount > 0, untimedCount == packetCount, let uniformDuration,
      uniformDuration > 0
    {
      // No packet has a timestamp (an MPEG-PS whose PES headers carry none), but every one
      // lasts the same: the frames follow each other from zero, as a decoder numbers them.
      start = 0
      end = packetCount * uniformDuration
      return
    }
    if decodingTimeOnlyCount > 0, let uniformDuration, uniformDuration > 0, let start {
      // Some frames have no presentation time (MPEG-PS B-frames): their decoding times do not
      // say where they show, but with every frame as long as the others, the span is exact.
      end = start + (packetCount - untimedCount) * uniformDuration
      return
    }
    if let latest, end == nil || end! < latest.timestamp || latest.duration == 0 {
      // The last frame carried no duration (MPEG-PS): it lasts like the one before it.
      end = Swift.max(end ?? .min, latest.timestamp + (lastDelta ?? 0))
      endAtMost(headerEnd, after: latest.timestamp)
    } else if let latest, let minDelta, let lastDelta, latest.duration > 0,
      2 * longestPacket < minDelta
    {
      // Every packet's duration is implausible (a Matroska DefaultDuration of 1 ms for frames
      // 33 ms apart): the last frame lasts like the one before it.
      end = latest.timestamp + lastDelta
      endAtMost(headerEnd, after: latest.timestamp)
    }
  }

  /// Ends a guessed last frame (starting at `lastStart`) at the header's end when that lies
  /// inside it.
  private mutating func endAtMost(_ headerEnd: Int64?, after lastStart: Int64) {
    if let headerEnd, let end, lastStart < headerEnd, headerEnd < end { self.end = headerEnd }
  }

  /// Starts the span no earlier than `limit`: the demuxer's start time (Ogg Vorbis's first
  /// packet, at -128, yields no samples), or the codec's pre-skip when no packet said so
  /// (Opus in Matroska).
  package mutating func clampStart(to limit: Int64) {
    if let start, let end, start < limit, limit < end { self.start = limit }
  }

  /// Ends the span no later than `limit` (an edit list's end): what lies beyond is not presented.
  package mutating func clampEnd(to limit: Int64) {
    if let end, let start, end > limit, limit > start { self.end = limit }
  }

  /// Sets the span to what a container's index presents (an MP3's walked frames, an MP4 edit
  /// starting inside a frame), when it is known more exactly than the packets tell.
  package mutating func setPresentation(start: Int64, end: Int64) {
    guard end > start else { return }
    self.start = start
    self.end = end
  }

  /// The frames the span covers: those with a timestamp, or every one when none had a
  /// timestamp and the span is their count times their one duration.
  package var spannedFrames: Int64 {
    untimedCount == packetCount ? packetCount : packetCount - untimedCount
  }

  /// The exact span from the first presented time to the end of the last packet, in ticks.
  /// Zero when the decoder drops every sample (an MP3 whose LAME delay and padding cover all its
  /// frames).
  package var durationTicks: Int64? {
    guard let start, let end, end > start else {
      return droppedCount > 0 && droppedCount == timedCount ? 0 : nil
    }
    return end - start
  }

  /// CFR when every frame lasts the same within one tick (timestamps rounded to the time base).
  package var mode: FrameRateMode? {
    guard let minDelta, let maxDelta else { return nil }
    return maxDelta - minDelta <= 1 ? .cfr : .vfr
  }
}

/// `a + b`, held at the ends of `Int64` instead of overflowing (mutated timestamps reach them).
private func saturating(_ a: Int64, _ b: Int64) -> Int64 {
  let (sum, overflow) = a.addingReportingOverflow(b)
  return overflow ? (b > 0 ? .max : .min) : sum
}
