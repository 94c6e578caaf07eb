import MediaCore
import OutputKit
import AV

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// What a mix did, for `--json`.
public struct MixReport: Sendable, Codable, Equatable {
  /// The output path (`-` for standard output).
  public var output: String
  /// The written PCM format.
  public var format: PCMFormat
  /// Sample frames written (per channel).
  public var samples: Int64
  /// `samples / sample_rate` seconds.
  public var duration: Double
  /// The header was upgraded to RF64.
  public var rf64: Bool
  /// Samples (one channel's each) whose sum went past full scale (|x| > 1.0) before the output
  /// conversion: they clipped, or with `limit` the limiter bent them.
  public var clippedSamples: Int64
  /// Where the first of them is, in seconds; null when none.
  @NullEncoded public var firstClipTime: Double?
  /// Each input, in order.
  public var inputs: [MixInputReport]
}

/// One input of a mix, as it was used.
public struct MixInputReport: Sendable, Codable, Equatable {
  /// The input as given.
  public var input: String
  /// The container index of the decoded stream.
  public var streamIndex: Int
  /// The decoded stream's codec.
  public var codec: String
  /// Where it starts on the output timeline, in seconds.
  public var at: Double
  /// How many times it played in the output (a looping input: the plays that reached it).
  public var plays: Int
  /// Its samples per play (per channel, at the output rate), when one play ended.
  @NullEncoded public var samplesPerPlay: Int64?
  /// Problems that did not stop it.
  public var warnings: [String]
}

/// Sums several audio sources into one WAV with AVAudioMix's semantics: each input resampled and
/// remixed to the output's rate and layout (libswresample), placed at its `at`, trimmed, looped
/// sample for sample, multiplied by its volume envelope, gain and fades, and added in input order
/// in 32-bit float — no normalisation: the sum is what the volumes say (`amix` with
/// `normalize=0`). Samples past full scale are counted; with `limit` a soft limiter bends them.
///
/// Memory stays the same whatever the lengths: each input keeps only the samples the mix has not
/// reached yet, up to the longest fade-out ahead (to know where an input or the output ends).
public struct Mixer: Sendable {
  /// The frames mixed at a time.
  static let block = 4096

  /// A mixer.
  public init() {}

  /// Mixes `description` into `destination` (written atomically, as extractions are).
  ///
  /// - Parameters:
  ///   - sync: `fsync` the output before it gets its name (`--no-sync` turns it off).
  ///   - inputFormat: read every input with this FFmpeg demuxer (`--input-format`).
  ///   - progress: called now and then with the seconds of output written.
  /// - Throws: `ExtractError` with a stable code; `.input` codes name the input in `inputIndex`
  ///   order through `MixError`.
  public func mix(
    _ description: MixDescription, to destination: OutputDestination, sync: Bool = true,
    allowReferences: Bool = false, inputFormat: String? = nil,
    rf64Limit: UInt64 = UInt64(UInt32.max),
    progress: ((ExtractionProgress) -> Void)? = nil
  ) throws(MixError) -> MixReport {
    if let problem = description.problem {
      throw MixError(input: nil, error: .invalidOption(problem))
    }
    // The first input fixes the format (its first decoded frame), unless given.
    let first = try Lane(
      description.inputs[0], number: 0,
      target: SourceTarget(
        encoding: description.format, float: true, sampleRate: description.sampleRate,
        channels: description.channels),
      allowReferences: allowReferences, inputFormat: inputFormat)
    try first.fill(through: 1)
    guard let decided = first.format else {
      throw MixError(input: 0, error: .noDecodableAudio("the first input's format is unknown"))
    }
    let format = PCMFormat(
      encoding: description.format, channels: decided.channels, sampleRate: decided.sampleRate,
      channelMask: decided.channelMask)
    first.place(rate: format.sampleRate)
    var lanes = [first]
    for (number, input) in description.inputs.enumerated().dropFirst() {
      let lane = try Lane(
        input, number: number,
        target: SourceTarget(
          encoding: format.encoding, float: true, sampleRate: format.sampleRate,
          channels: format.channels, channelMask: format.channelMask),
        allowReferences: allowReferences, inputFormat: inputFormat)
      lane.place(rate: format.sampleRate)
      lanes.append(lane)
    }
    let output: OutputFile
    do {
      output = try OutputFile(destination, sync: sync)
    } catch {
      throw MixError(input: nil, error: .output(error))
    }
    var run = MixRun(
      lanes: lanes, length: description.length, format: format, limit: description.limit)
    do {
      let written = try run.write(to: output, rf64Limit: rf64Limit, progress: progress)
      try output.commit()
      return MixReport(
        output: destination.display, format: format, samples: written.samples,
        duration: Double(written.samples) / Double(format.sampleRate), rf64: written.rf64,
        clippedSamples: run.clipped,
        firstClipTime: run.firstClip.map { Double($0) / Double(format.sampleRate) },
        inputs: lanes.map { $0.report(end: written.samples) })
    } catch let error as MixError {
      throw error
    } catch {
      throw MixError(input: nil, error: error as? ExtractError ?? .invalidOption("\(error)"))
    }
  }
}

/// A mix failure: which input (nil: the output or the description) and the error.
public struct MixError: Error, Sendable, Equatable {
  /// The input's position in the mix, from 0.
  public var input: Int?
  /// What went wrong, with its stable code.
  public var error: ExtractError
}

/// One mix in progress: the lanes, the output's end once known, clipping, the sink.
struct MixRun {
  let lanes: [Lane]
  let length: MixLength
  let format: PCMFormat
  let limit: Bool
  private(set) var clipped: Int64 = 0
  private(set) var firstClip: Int64?
  /// How far ahead of the mix the lanes are decoded: the longest fade-out, so the end of an input
  /// (or of the output) is known before its fade must start.
  private let lookahead: Int64

  init(lanes: [Lane], length: MixLength, format: PCMFormat, limit: Bool) {
    self.lanes = lanes
    self.length = length
    self.format = format
    self.limit = limit
    lookahead = lanes.map(\.fadeOutFrames).max() ?? 0
  }

  /// Where the output ends, if that is known yet.
  func end() -> Int64? {
    switch length {
    case .seconds(let seconds): return Int64((seconds * Double(format.sampleRate)).rounded())
    case .first: return lanes[0].endFrame
    case .longest, .shortest:
      let finite = lanes.filter { !$0.input.loop }
      let ends = finite.compactMap(\.endFrame)
      guard !finite.isEmpty else { return nil }
      if case .shortest = length { return ends.min() }
      return ends.count == finite.count ? ends.max() : nil
    }
  }

  mutating func write(
    to output: OutputFile, rf64Limit: UInt64, progress: ((ExtractionProgress) -> Void)?
  ) throws -> (samples: Int64, rf64: Bool) {
    let expected = Self.expectedSeconds(lanes: lanes, length: length)
    let sink = try WAVSink(
      format: format, output: output, expectedSeconds: expected, rf64Limit: rf64Limit)
    do {
      let converter = try Resampler.fromFloat(to: format, after: "for the mix")
      let channels = format.channels
      var mixed = [Float](repeating: 0, count: Mixer.block * channels)
      var position: Int64 = 0
      var blocks = 0
      while true {
        if Interruption.isRequested { throw ExtractError.interrupted }
        for lane in lanes { try lane.fill(through: position + Int64(Mixer.block) + lookahead) }
        var count = Int64(Mixer.block)
        let end = self.end()
        if let end { count = min(count, end - position) }
        if end == nil && lanes.allSatisfy({ $0.finished(at: position) }) {
          // Nothing can end the output any more (every input ended, none sets the length).
          break
        }
        guard count > 0 else { break }
        let frames = Int(count)
        for index in 0..<(frames * channels) { mixed[index] = 0 }
        for lane in lanes {
          lane.add(into: &mixed, frames: frames, from: position, outputEnd: end)
        }
        countClipping(&mixed, frames: frames, from: position)
        try mixed.withUnsafeBytes { raw in
          try sink.write { (buffer) throws(FFmpegError) in
            try converter.convert(interleaved: raw.baseAddress!, count: frames, into: buffer)
          }
        }
        position += count
        for lane in lanes { lane.discard(before: position) }
        blocks += 1
        if let progress, blocks % 32 == 0 {
          progress(
            ExtractionProgress(
              seconds: Double(position) / Double(format.sampleRate), total: expected))
        }
      }
      try sink.write { (buffer) throws(FFmpegError) in try converter.flush(into: buffer) }
      let rf64 = try sink.finish(rf64Limit: rf64Limit)
      return (sink.samplesWritten, rf64)
    } catch {
      sink.abandon()
      throw error
    }
  }

  /// Counts the samples past full scale; with `limit`, bends them (soft limiter).
  private mutating func countClipping(_ samples: inout [Float], frames: Int, from position: Int64) {
    let channels = format.channels
    for index in 0..<(frames * channels) {
      let value = samples[index]
      if MixSum.isClipped(value) {
        clipped += 1
        if firstClip == nil { firstClip = position + Int64(index / channels) }
      }
      if limit { samples[index] = SoftLimiter.apply(value) }
    }
  }

  /// The expected length in seconds, for the RF64 reservation and the progress bar.
  static func expectedSeconds(lanes: [Lane], length: MixLength) -> Double? {
    if case .seconds(let seconds) = length { return seconds }
    let ends = lanes.filter { !$0.input.loop }.compactMap { lane in
      lane.expectedSeconds.map { lane.input.at + $0 }
    }
    switch length {
    case .first: return lanes[0].expectedSeconds.map { lanes[0].input.at + $0 }
    case .shortest: return ends.min()
    default: return ends.max()
    }
  }
}

/// The mix's optional soft limiter: samples within ±`threshold` (-1 dBFS) pass unchanged; above
/// it, `threshold + (1 - threshold) · tanh((|x| - threshold) / (1 - threshold))` keeps the sign,
/// continuous with slope 1 at the threshold, approaching full scale and never passing it. An instantaneous
/// curve (no look-ahead, no release): it bends peaks instead of clipping them.
public enum SoftLimiter {
  /// -1 dBFS.
  public static let threshold: Float = 0.891_250_94

  /// The limited sample.
  public static func apply(_ value: Float) -> Float {
    let magnitude = abs(value)
    guard magnitude > threshold else { return value }
    let knee = 1 - threshold
    let bent = threshold + knee * tanh((magnitude - threshold) / knee)
    return value < 0 ? -bent : bent
  }
}
