/// The one mixer model's gain rules, shared by media2wav's `mix` and the composition's audio
/// (AVAudioMix semantics): a gain over a timeline of sample frames, made of ramps that each
/// hold their end value until the next one starts.
///
/// - Before the first ramp the gain is `base` (AVAudioMix: 1.0 before the first setting).
/// - A ramp starting at frame `start` and lasting `length` frames goes from `from` to `to`,
///   linear in gain (amplitude), as `setVolumeRamp(fromStartVolume:toEndVolume:timeRange:)`:
///   at frame `start + i` (`i < length`) the gain is `from + (to - from) · i / length`; from
///   `start + length` on it is `to` ("last value after").
/// - A ramp of length 0 is a step (`setVolume(_:at:)`): `to` from `start` on.
/// - The ramp in force at a frame is the last one (in order) starting at or before it, so of two
///   starting on the same frame the later wins.
///
/// Evaluation is in `Double`; the mixers multiply each sample by `Float(gain)`. Times become
/// frames before they get here, by the caller's stated rounding.
public struct GainSchedule: Sendable, Equatable {
  /// One ramp (or, with `length` 0, a step).
  public struct Ramp: Sendable, Equatable {
    /// The frame it starts at.
    public var start: Int64
    /// Its length in frames (0: a step).
    public var length: Int64
    /// The gain at `start`.
    public var from: Double
    /// The gain at `start + length` and after.
    public var to: Double

    /// A ramp from its parts.
    public init(start: Int64, length: Int64, from: Double, to: Double) {
      self.start = start
      self.length = length
      self.from = from
      self.to = to
    }
  }

  /// The gain before the first ramp.
  public let base: Double
  /// The ramps, in the order they were set (their starts never decrease).
  public let ramps: [Ramp]
  private var cursor = 0

  /// A schedule of `ramps` (in order of their starts) after `base`.
  public init(base: Double, ramps: [Ramp]) {
    self.base = base
    self.ramps = ramps
  }

  /// The gain at `frame`. Fastest when frames only increase between calls (a cursor is kept);
  /// any order is correct.
  public mutating func value(at frame: Int64) -> Double {
    if cursor > 0 && ramps[cursor - 1].start > frame { cursor = 0 }
    while cursor < ramps.count && ramps[cursor].start <= frame { cursor += 1 }
    guard cursor > 0 else { return base }
    let ramp = ramps[cursor - 1]
    let into = frame - ramp.start
    return into >= ramp.length
      ? ramp.to : ramp.from + (ramp.to - ramp.from) * Double(into) / Double(ramp.length)
  }

  /// Equal when the base and the ramps are (the evaluation cursor is not compared).
  public static func == (a: GainSchedule, b: GainSchedule) -> Bool {
    a.base == b.base && a.ramps == b.ramps
  }
}

/// The one mixer model's summing rule: inputs are added with their gains, in 32-bit float,
/// without normalisation by their number (`amix` with `normalize=0`); a sum past full scale is
/// counted, one per sample of one channel.
public enum MixSum {
  /// The channel rule of every mix (a composition's audio, media2wav's `mix`): the channels a
  /// source of `source` channels is decoded to for an output of `output` channels. A mono source
  /// stays mono and is added to every output channel at its own level (as AVFoundation plays a
  /// mono track on both sides; not libswresample's −3 dB upmix); any other source is converted
  /// to the output's layout (libswresample's default matrix: stereo to mono is (L + R) / 2).
  public static func decodedChannels(source: Int, output: Int) -> Int {
    source == 1 ? 1 : output
  }

  /// True when `sample` lies outside [-1, 1]: it would clip when written as integers.
  @inline(__always)
  public static func isClipped(_ sample: Float) -> Bool { abs(sample) > 1 }

  /// How many of `samples` lie outside [-1, 1], and the index of the first.
  public static func countClipped(_ samples: UnsafeBufferPointer<Float>) -> (
    count: Int64, first: Int?
  ) {
    var count: Int64 = 0
    var first: Int?
    for index in samples.indices where isClipped(samples[index]) {
      count += 1
      if first == nil { first = index }
    }
    return (count, first)
  }
}
