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
