import MediaCore

/// A composition resolved against its sources: every time exact, every default applied, what
/// `mediamerge --plan` prints and what the renderer consumes. Pure values: the renderer builds
/// its filter graph from these, and the self-check evaluates the same gain envelopes.
///
/// Times are `MediaTime` (`{"value", "timescale", "seconds"}`), gains `Rational`
/// (`{"num", "den", "value"}`). Encoded with `MediaToolsJSONEncoder()` (snake_case keys).
public struct CompositionPlan: Codable, Sendable, Equatable {
  /// The version of this layout (1).
  public var schemaVersion: Int
  /// The composition's length: the end of the last clip (the sum of the clips' durations minus
  /// the transitions'). Every audio track is cut here.
  public var duration: MediaTime
  /// The size, rate, fitting and background every picture is rendered to.
  public var render: CompositionRender
  /// The clips on the timeline, in order.
  public var segments: [PlannedSegment]
  /// The transitions: each the overlap of two consecutive segments.
  public var transitions: [PlannedTransition]
  /// The audio tracks under the clips, placed, trimmed, looped and cut.
  public var audio: [PlannedAudioTrack]
  /// The clips' markers on the composition's timeline, in time order.
  public var markers: [PlannedMarker]
  /// The rules the plan follows, in words (what `--plan` states).
  public var rules: [String]
  /// What the plan leaves out, in words (a marker outside its clip's range, an audio track
  /// starting after the end, a source without audio used as an audio track).
  public var warnings: [String]
  /// The looks on the whole picture (the document's `filters`), in order, every parameter set
  /// (defaults filled in); absent when there are none.
  public var looks: [Look]?
  /// The images and titles drawn over the finished picture (the document's `overlays`), in
  /// order, resolved; absent when there are none.
  public var overlays: [PlannedOverlay]? = nil

  /// The rules every plan follows.
  public static let rules = [
    "clips play one after another; a transition overlaps two clips by its duration, so the "
      + "composition lasts the sum of the clips' durations minus the transitions'",
    "over a transition the clips' audio cross-fades, linear in gain: at its middle each side "
      + "plays at half its gain (-6 dB)",
    "a clip without audio (a still, a sequence, a gap, a silent video) contributes silence",
    "sources are summed with their stated gains, without normalisation by their number",
    "an audio track is cut at the composition's end; a looped one repeats its range until then; "
      + "its fade-out ends where it ends",
    "fades and ramps are linear in gain, as AVFoundation's volume ramps",
    "a marker lands at its clip's start + (marker - from) / speed, exactly",
    "every picture is cropped (in its stored pixels), turned upright from its display matrix or "
      + "EXIF orientation, turned further by its clip's rotate and mirror, then fitted",
    "a clip with a speed plays source time speed times as fast: it lasts (to - from) / speed; "
      + "its audio keeps its pitch (atempo) unless its pitch is follow (resampled)",
    "a freeze frame shows one picture of its source for its duration, and is silent",
  ]
}

/// A span of time on a timeline: `[start, end)`.
public struct TimeRange: Codable, Sendable, Equatable {
  /// Where it starts.
  public var start: MediaTime
  /// How long it lasts.
  public var duration: MediaTime
  /// `start + duration`.
  public var end: MediaTime

  /// The range from `start` lasting `duration`.
  public init(start: MediaTime, duration: MediaTime) {
    self.start = start
    self.duration = duration
    self.end = ExactNumber(start).adding(ExactNumber(duration))?.time ?? (start + duration)
  }

  /// The range from `start` to `end`.
  public init(start: MediaTime, end: MediaTime) {
    self.start = start
    self.end = end
    self.duration = ExactNumber(end).subtracting(ExactNumber(start))?.time ?? (end - start)
  }

  /// True when `time` lies in `[start, end)`.
  public func contains(_ time: MediaTime) -> Bool { start <= time && time < end }
}

/// The size, rate, fitting and background of the render.
public struct CompositionRender: Codable, Sendable, Equatable {
  /// The output's width.
  public var width: Int
  /// The output's height.
  public var height: Int
  /// Where the size comes from, in words.
  public var sizeRule: String
  /// How each picture fills the render.
  public var fit: Fit
  /// The output frame rate.
  public var frameRate: Rational
  /// Where the rate comes from, in words.
  public var frameRateRule: String
  /// The colour behind contained pictures, gaps and fades.
  public var background: Color
}

/// What a segment shows.
public enum SegmentKind: String, Codable, Sendable {
  /// A part of a video file.
  case video
  /// One still image, held.
  case still
  /// An image sequence, one image per frame at its `fps`.
  case sequence
  /// The background colour.
  case gap
}

/// One clip placed on the timeline.
public struct PlannedSegment: Codable, Sendable, Equatable {
  /// The clip's index in the document (`clips[index]`).
  public var index: Int
  /// What it shows.
  public var kind: SegmentKind
  /// The source as the document writes it; null for a gap.
  @NullEncoded public var source: String?
  /// The source's path to open (joined with the document's folder); null for a gap.
  @NullEncoded public var path: String?
  /// The part of the source it plays (a still or a gap: from 0 for its duration).
  public var sourceRange: TimeRange
  /// Where it plays on the composition (transitions included: it begins where the transition
  /// into it begins and ends where the one out of it ends).
  public var compositionRange: TimeRange
  /// The source's frame rate (a sequence's `fps`, a video's probed rate); null for a still, a
  /// gap or an unknown rate.
  @NullEncoded public var frameRate: Rational?
  /// How the picture is turned upright and placed in the render; null for a gap.
  @NullEncoded public var transform: SegmentTransform?
  /// Its audio: the clip's gain over time; null when it contributes silence (no audio stream,
  /// a still, a sequence, a gap).
  @NullEncoded public var audio: SegmentAudio?
  /// The clip's looks (its `filters`), in order, every parameter set (defaults filled in);
  /// absent when there are none.
  public var looks: [Look]?
  /// The playback rate (the clip's `speed`): source time runs `speed` times as fast as
  /// composition time; absent when 1.
  public var speed: Rational?
  /// How the clip's audio follows a speed (`keep`: tempo changed, pitch kept; `follow`:
  /// resampled); absent without a speed or without audio.
  public var pitch: Pitch?
  /// A freeze frame: the source time whose picture is held for the whole segment (its audio is
  /// silence); absent when the clip plays.
  public var freeze: MediaTime?

  /// The source time shown at composition time `time`: `source_range.start` +
  /// (`time` − `composition_range.start`) × `speed`, exactly (a freeze frame: its `freeze`).
  public func sourceTime(at time: MediaTime) -> MediaTime {
    if let freeze { return freeze }
    let elapsed = time - compositionRange.start
    guard let speed, speed.num != speed.den else { return sourceRange.start + elapsed }
    let rate = ExactNumber(speed.num, speed.den) ?? .one
    if let scaled = ExactNumber(elapsed).multiplied(by: rate),
      let exact = ExactNumber(sourceRange.start).adding(scaled)
    {
      return exact.time
    }
    let seconds = sourceRange.start.seconds + elapsed.seconds * speed.value
    return MediaTime(value: Int64((seconds * 1_000_000).rounded()), timescale: 1_000_000)
  }
}

/// How a picture is turned upright and placed in the render.
public struct SegmentTransform: Codable, Sendable, Equatable {
  /// Clockwise degrees the stored picture is turned by (0, 90, 180, 270): the display
  /// matrix's or EXIF orientation's turn upright combined with the clip's `rotate` and `mirror`.
  public var rotation: Int
  /// True when it is mirrored (flipped left to right after the rotation).
  public var mirrored: Bool
  /// The turned (and cropped) picture's width before scaling.
  public var sourceWidth: Int
  /// The turned (and cropped) picture's height before scaling.
  public var sourceHeight: Int
  /// Where the scaled picture's left edge lands in the render (negative when cropped).
  public var x: Int
  /// Where its top edge lands (negative when cropped).
  public var y: Int
  /// The scaled picture's width.
  public var width: Int
  /// The scaled picture's height.
  public var height: Int
  /// The rectangle of the stored picture kept before it is turned (the clip's `crop`); absent:
  /// the whole picture.
  public var crop: CropRect?

  /// A transform from its parts.
  public init(
    rotation: Int, mirrored: Bool, sourceWidth: Int, sourceHeight: Int, x: Int, y: Int,
    width: Int, height: Int
  ) {
    self.rotation = rotation
    self.mirrored = mirrored
    self.sourceWidth = sourceWidth
    self.sourceHeight = sourceHeight
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }
}

/// A segment's audio.
public struct SegmentAudio: Codable, Sendable, Equatable {
  /// The clip's `volume`.
  public var volume: Rational
  /// Its gain at every breakpoint of the composition's timeline (the transitions' cross-fades).
  public var gain: GainEnvelope
}

/// A transition: the overlap of two consecutive segments.
public struct PlannedTransition: Codable, Sendable, Equatable {
  /// How the picture changes.
  public var type: TransitionType
  /// The segment it leaves (its index in `segments`).
  public var from: Int
  /// The segment it enters.
  public var to: Int
  /// The overlap on the composition: the end of `from` and the start of `to`.
  public var range: TimeRange
}

/// An audio track placed on the composition.
public struct PlannedAudioTrack: Codable, Sendable, Equatable {
  /// Its index in the document (`audio[index]`).
  public var index: Int
  /// The source as the document writes it.
  public var source: String
  /// The path to open.
  public var path: String
  /// The part of the source it plays (`from`–`to`), once.
  public var sourceRange: TimeRange
  /// Where it plays on the composition: from `at` to its end, cut at the composition's end
  /// (to the composition's end when looped).
  public var compositionRange: TimeRange
  /// True when it repeats its source range until the composition ends.
  public var loop: Bool
  /// Each pass of the source range, in order; the last one cut at the composition's end.
  public var pieces: [AudioPiece]
  /// Its gain at every breakpoint (volume, ramps, fades), over `compositionRange`.
  public var gain: GainEnvelope
}

/// One pass of an audio track's source range.
public struct AudioPiece: Codable, Sendable, Equatable {
  /// The part of the source played.
  public var sourceRange: TimeRange
  /// Where it plays on the composition.
  public var compositionRange: TimeRange

  /// A piece from its ranges.
  public init(sourceRange: TimeRange, compositionRange: TimeRange) {
    self.sourceRange = sourceRange
    self.compositionRange = compositionRange
  }
}

/// A marker on the composition.
public struct PlannedMarker: Codable, Sendable, Equatable {
  /// Its name.
  public var name: String
  /// The clip it belongs to (`clips[clip]`).
  public var clip: Int
  /// Its time in the clip's source.
  public var sourceTime: MediaTime
  /// Its time on the composition: the clip's start + (`source_time` − `from`).
  public var time: MediaTime
}

/// A gain over time, exact and piecewise linear: between two consecutive points the gain moves
/// in a straight line (linear in amplitude); two points at one time make a step (the later one
/// holds from that time on). The source plays only from the first point's time to the last's.
/// The renderer and the self-check evaluate this same function.
public struct GainEnvelope: Codable, Sendable, Equatable {
  /// The breakpoints, in time order.
  public var points: [GainPoint]

  /// An envelope through `points` (in time order).
  public init(points: [GainPoint]) { self.points = points }

  /// The gain at `time`, exactly; nil outside the envelope's span or when it cannot be computed
  /// in 64 bits.
  public func exactGain(at time: MediaTime) -> ExactNumber? {
    guard let first = points.first, let last = points.last, first.time <= time,
      time <= last.time
    else { return nil }
    let t = ExactNumber(time)
    // The last point at or before `time` (the later of a step).
    var index = 0
    for (i, point) in points.enumerated() where point.time <= time { index = i }
    let a = points[index]
    guard index + 1 < points.count else { return ExactNumber(a.gain.num, a.gain.den) }
    let b = points[index + 1]
    let (ga, gb) = (ExactNumber(a.gain.num, a.gain.den)!, ExactNumber(b.gain.num, b.gain.den)!)
    guard b.time > a.time else { return gb }
    guard let elapsed = t.subtracting(ExactNumber(a.time)),
      let span = ExactNumber(b.time).subtracting(ExactNumber(a.time)),
      let fraction = elapsed.divided(by: span), let change = gb.subtracting(ga),
      let step = change.multiplied(by: fraction)
    else { return nil }
    return ga.adding(step)
  }

  /// The gain at `time` as a decimal; nil outside the envelope's span.
  public func gain(at time: MediaTime) -> Double? {
    if let exact = exactGain(at: time) { return exact.doubleValue }
    guard let first = points.first, let last = points.last, first.time <= time,
      time <= last.time
    else { return nil }
    var index = 0
    for (i, point) in points.enumerated() where point.time <= time { index = i }
    let a = points[index]
    guard index + 1 < points.count else { return a.gain.value }
    let b = points[index + 1]
    guard b.time > a.time else { return b.gain.value }
    let fraction = (time.seconds - a.time.seconds) / (b.time.seconds - a.time.seconds)
    return a.gain.value + (b.gain.value - a.gain.value) * fraction
  }
}

/// A breakpoint of a gain envelope.
public struct GainPoint: Codable, Sendable, Equatable {
  /// When, on the composition.
  public var time: MediaTime
  /// The gain there (linear: 1 as recorded, 0.5 is −6 dB).
  public var gain: Rational

  /// A breakpoint.
  public init(time: MediaTime, gain: Rational) {
    self.time = time
    self.gain = gain
  }
}
