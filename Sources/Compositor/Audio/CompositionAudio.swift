import AV
import Composition
import MediaCore

/// One block of a composition's mixed audio: planar Float32 at the render's sample rate,
/// `channels[c][i]` is sample `start + i` of channel `c` on the composition's timeline
/// (sample 0 is composition time 0).
package struct AudioBlock: Sendable, Equatable {
  /// The index of the block's first sample on the composition's timeline.
  package var start: Int64
  /// One array per channel, all the same length.
  package var channels: [[Float]]

  /// A block of the given samples.
  package init(start: Int64, channels: [[Float]]) {
    self.start = start
    self.channels = channels
  }
}

/// The composition's audio, rendered from its plan: every segment's clip audio and every audio
/// track with its gain envelope (volume, crossfades, fades, ramps, loops), summed without
/// normalisation and cut at the composition's end. The video renderer pulls blocks from it and
/// encodes them.
///
/// PLACEHOLDER: until the mixer lands (branch `mixer`), this yields silence of the plan's exact
/// length, so the video side can be built and tested against the interface.
package final class CompositionAudio {
  /// The output's sample rate.
  package let sampleRate: Int
  /// The output's channel count (1 or 2).
  package let channelCount: Int
  /// The total number of samples per channel: the plan's duration at `sampleRate`, rounded.
  package let totalSamples: Int64
  /// Samples that left [-1, 1] after summing (counted, never hidden).
  package private(set) var clippedSamples: Int64 = 0
  private var position: Int64 = 0

  /// A renderer of `plan`'s audio at `sampleRate` with `channelCount` channels. Sources open
  /// lazily, when their range is reached, and close after it.
  package init(plan: CompositionPlan, sampleRate: Int, channelCount: Int) throws(CompositorError) {
    self.sampleRate = sampleRate
    self.channelCount = channelCount
    self.totalSamples = plan.duration.units(atRate: Rational(Int64(sampleRate), 1)!)
  }

  /// The next block of at most `maxSamples` samples per channel, or nil once `totalSamples`
  /// samples have been returned.
  package func next(maxSamples: Int) throws(CompositorError) -> AudioBlock? {
    guard position < totalSamples else { return nil }
    let count = Int(min(Int64(maxSamples), totalSamples - position))
    let block = AudioBlock(
      start: position,
      channels: Array(repeating: Array(repeating: 0, count: count), count: channelCount))
    position += Int64(count)
    return block
  }
}
