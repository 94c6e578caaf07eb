import MediaCore
import AV
import OutputKit
#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// Volume changes applied to interleaved float samples: a constant gain and linear fade-in and
/// fade-out ramps (as AVMutableAudioMix's `setVolumeRamp` from 0 to 1 and 1 to 0).
///
/// The fade-out needs to know where the audio ends, which a stream may not say, so the last
/// `fadeOut` seconds are held back and ramped when the input ends: memory is bounded by the fade's
/// length, not the input's.
struct Effects {
  let channels: Int
  let gain: Float
  let fadeInFrames: Int
  let fadeOutFrames: Int
  private var framesSeen = 0
  private var tail: [Float] = []

  /// Effects for `channels`-channel audio at `sampleRate`; nil when there is nothing to do.
  init?(channels: Int, sampleRate: Int, gainDB: Double?, fadeIn: Double?, fadeOut: Double?) {
    guard gainDB != nil || fadeIn != nil || fadeOut != nil else { return nil }
    self.channels = channels
    gain = Float(pow(10, (gainDB ?? 0) / 20))
    fadeInFrames = Int(((fadeIn ?? 0) * Double(sampleRate)).rounded())
    fadeOutFrames = Int(((fadeOut ?? 0) * Double(sampleRate)).rounded())
  }

  /// Applies gain and fade-in to `samples` and returns what can be written now (holding back the
  /// fade-out tail).
  mutating func process(_ samples: [Float]) -> [Float] {
    var samples = samples
    let frames = samples.count / channels
    for frame in 0..<frames {
      var factor = gain
      let position = framesSeen + frame
      if position < fadeInFrames { factor *= Float(position) / Float(fadeInFrames) }
      for channel in 0..<channels { samples[frame * channels + channel] *= factor }
    }
    framesSeen += frames
    guard fadeOutFrames > 0 else { return samples }
    tail += samples
    let excess = tail.count - fadeOutFrames * channels
    guard excess > 0 else { return [] }
    let ready = Array(tail.prefix(excess))
    tail.removeFirst(excess)
    return ready
  }

  /// Ramps the held-back tail down to silence and returns it.
  mutating func finish() -> [Float] {
    let frames = tail.count / channels
    for frame in 0..<frames {
      // Linear from 1 toward 0 over the fade: the last frame is 1/fadeOutFrames.
      let remaining = frames - frame
      let factor = Float(remaining) / Float(fadeOutFrames)
      for channel in 0..<channels { tail[frame * channels + channel] *= min(1, factor) }
    }
    defer { tail = [] }
    return tail
  }
}

/// The effects as a stage of an extraction: float samples in (a source's conversion), gain and
/// fades applied, converted to the output's encoding, written to a sink.
final class EffectsStage {
  private var effects: Effects
  private let scratch = ByteBuffer()
  private let converter: Resampler
  private let channels: Int

  /// - Returns: nil when there is nothing to do.
  /// - Throws: `ExtractError.conversion` when the float to output conversion cannot be built.
  init?(format: PCMFormat, gainDB: Double?, fadeIn: Double?, fadeOut: Double?)
    throws(ExtractError)
  {
    guard
      let effects = Effects(
        channels: format.channels, sampleRate: format.sampleRate, gainDB: gainDB, fadeIn: fadeIn,
        fadeOut: fadeOut)
    else { return nil }
    self.effects = effects
    channels = format.channels
    converter = try Resampler.fromFloat(to: format, after: "after the effects")
  }

  /// Runs a conversion to float, applies the effects and writes what is ready to `sink`.
  func process(_ conversion: AudioSource.Conversion, into sink: WAVSink) throws(ExtractError) {
    scratch.removeAll()
    do {
      try conversion(scratch)
    } catch {
      throw .conversion("converting the samples to float for the effects", error)
    }
    var samples = [Float](repeating: 0, count: scratch.count / MemoryLayout<Float>.size)
    samples.withUnsafeMutableBytes { $0.copyMemory(from: scratch.contents) }
    try emit(effects.process(samples), into: sink)
  }

  /// Writes the held-back fade-out tail and the converter's last samples.
  func finish(into sink: WAVSink) throws(ExtractError) {
    try emit(effects.finish(), into: sink)
    let converter = self.converter
    try sink.write { (buffer) throws(FFmpegError) in try converter.flush(into: buffer) }
  }

  private func emit(_ samples: [Float], into sink: WAVSink) throws(ExtractError) {
    guard !samples.isEmpty else { return }
    let converter = self.converter
    let count = samples.count / channels
    var failure: ExtractError?
    samples.withUnsafeBytes { raw in
      do throws(ExtractError) {
        try sink.write { (buffer) throws(FFmpegError) in
          try converter.convert(interleaved: raw.baseAddress!, count: count, into: buffer)
        }
      } catch {
        failure = error
      }
    }
    if let failure { throw failure }
  }
}
