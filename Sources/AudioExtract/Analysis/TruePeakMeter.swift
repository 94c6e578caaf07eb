import AV
import OutputKit
import CEBUR128

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// libebur128's true peak (BS.1770-4 Annex 2: 4x oversampling below 96 kHz, 2x below 192 kHz),
/// computed only on the blocks where it can change the result.
///
/// libebur128's interpolator (a 49-tap windowed-sinc FIR run per sample in double precision)
/// costs about 24 ns per sample here, three times its whole loudness measurement, and more than
/// decoding AAC. Most blocks of real audio cannot raise the peak found so far, and a cheap bound
/// proves it: the same FIR in single precision with SIMD, whose rounding error is below 2e-6 of
/// the block's sample peak. A block goes through libebur128 when that estimate, plus a margin of
/// 1e-5 of the block's peak, reaches the running maximum; otherwise every oversampled value of
/// the block is provably below the maximum and cannot change it. A block fed to libebur128 is
/// preceded by the frames its filter remembers (its `delay`), so its values are exactly those of
/// one libebur128 state fed the whole stream (the values made while feeding that history are
/// dropped: `ebur128_prev_true_peak` covers one call). The result therefore equals
/// `ebur128_true_peak` of a single state; the tests check it.
final class TruePeakMeter {
  /// Oversampling factor (1: no interpolation at 192 kHz and above).
  let factor: Int
  /// Input samples libebur128's interpolator remembers.
  let delay: Int
  private let channels: Int
  private let state: EBUR128State?
  /// The interpolating phases 1..<factor (phase 0 returns the samples themselves): for each, the
  /// taps as (how many samples back, coefficient).
  private let phases: [[(back: Int, coefficient: Float)]]
  /// The largest sum of |coefficient| of a phase (bounds the estimate's rounding error).
  private let gainBound: Float
  /// The last `delay` frames, interleaved, fed before a block to rebuild libebur128's history.
  private var history: [Float]
  /// One channel's samples: `delay - 1` remembered ones, then the block.
  private var lanes: [[Float]]
  /// The highest value libebur128 returned for an evaluated block (linear).
  private(set) var peak: Double = 0
  /// Frames given to libebur128, and frames screened (for the tests and the benchmark).
  private(set) var evaluatedFrames = 0
  private(set) var screenedFrames = 0
  /// The largest block `process` takes.
  static let blockFrames = 4096

  /// A meter for `channels` at `sampleRate`; without a state (libebur128 refused the format),
  /// `peak` stays 0 and the sample peak stands for the true peak.
  init(channels: Int, sampleRate: Int) {
    self.channels = channels
    factor = sampleRate < 96000 ? 4 : sampleRate < 192_000 ? 2 : 1
    let taps = 49
    delay = (taps + factor - 1) / factor
    // libebur128's interp_create: a sinc windowed by Hann, zero coefficients left out.
    var phases = [[(back: Int, coefficient: Float)]](repeating: [], count: max(factor, 1))
    if factor > 1 {
      for j in 0..<taps {
        let m = Double(j) - Double(taps - 1) / 2
        let x: Double = m * Double.pi / Double(factor)
        var c = 1.0
        if abs(m) > 0.000001 { c = sin(x) / x }
        let window: Double = 0.5 * (1 - cos(2 * Double.pi * Double(j) / Double(taps - 1)))
        c *= window
        if abs(c) > 0.000001 { phases[j % factor].append((j / factor, Float(c))) }
      }
    }
    self.phases = Array(phases.dropFirst())
    gainBound = self.phases.map { $0.reduce(0) { $0 + abs($1.coefficient) } }.max() ?? 1
    history = [Float](repeating: 0, count: delay * channels)
    lanes = [[Float]](
      repeating: [Float](repeating: 0, count: delay - 1 + Self.blockFrames), count: channels)
    if factor > 1,
      let state = EBUR128State(
        channels: channels, sampleRate: sampleRate, mode: Int32(EBUR128_MODE_TRUE_PEAK.rawValue))
    {
      // No K-weighting: only the peaks are wanted from this state.
      state.setChannels([Int32](repeating: Int32(EBUR128_UNUSED.rawValue), count: channels))
      self.state = state
    } else {
      state = nil
    }
  }

  /// Measures `frames` interleaved frames (at most `blockFrames`).
  ///
  /// - Parameter samplePeak: the highest sample magnitude so far, this block's included: the
  ///   true peak is never below it.
  func process(_ samples: UnsafePointer<Float>, frames: Int, samplePeak: Float) {
    guard let state, frames > 0 else { return }
    precondition(frames <= Self.blockFrames)
    let kept = delay - 1
    var blockPeak: Float = 0
    for channel in 0..<channels {
      lanes[channel].withUnsafeMutableBufferPointer { lane in
        var index = channel
        for frame in 0..<frames {
          let value = samples[index]
          lane[kept + frame] = value
          blockPeak = max(blockPeak, abs(value))
          index += channels
        }
        for frame in 0..<kept { blockPeak = max(blockPeak, abs(lane[frame])) }
      }
    }
    screenedFrames += frames
    let estimate = self.estimate(frames: frames)
    let running = max(Float(peak), samplePeak * (1 - 1e-6))
    if estimate + 1e-5 * blockPeak * (1 + gainBound) >= running {
      evaluatedFrames += frames
      history.withUnsafeBufferPointer {
        _ = ebur128_add_frames_float(state.pointer, $0.baseAddress, delay)
      }
      _ = ebur128_add_frames_float(state.pointer, samples, frames)
      peak = max(peak, state.perChannel(ebur128_prev_true_peak).max() ?? 0)
    }
    // Remember the last frames: `delay` interleaved for libebur128, `delay - 1` per lane (in
    // place: an allocation per block makes each thread's malloc arena keep more and more).
    let width = channels
    history.withUnsafeMutableBufferPointer { history in
      let keep = max(0, delay - frames)  // old frames still among the last `delay`
      if keep > 0 {
        for index in 0..<keep * width { history[index] = history[(delay - keep) * width + index] }
      }
      let fresh = delay - keep
      for index in 0..<fresh * width {
        history[keep * width + index] = samples[(frames - fresh) * width + index]
      }
    }
    for channel in 0..<channels {
      lanes[channel].withUnsafeMutableBufferPointer { lane in
        for index in 0..<kept { lane[index] = lane[frames + index] }
      }
    }
  }

  /// The largest |oversampled value| of the block in `lanes`, in single precision.
  private func estimate(frames: Int) -> Float {
    let kept = delay - 1
    var best: Float = 0
    for channel in 0..<channels {
      lanes[channel].withUnsafeBufferPointer { lane in
        let base = lane.baseAddress!
        for taps in phases {
          var highest = SIMD8<Float>(repeating: 0)
          var lowest = SIMD8<Float>(repeating: 0)
          var position = kept
          let end = kept + frames
          while position + 8 <= end {
            var sum = SIMD8<Float>(repeating: 0)
            for tap in taps {
              let values = UnsafeRawPointer(base + position - tap.back).loadUnaligned(
                as: SIMD8<Float>.self)
              sum += values * tap.coefficient
            }
            // The comparisons and masked moves compile to vector instructions; the generic
            // pointwiseMax did not (a scalar loop, a third of the analysis's time).
            highest.replace(with: sum, where: sum .> highest)
            lowest.replace(with: sum, where: sum .< lowest)
            position += 8
          }
          var scalar = max(highest.max(), -lowest.min())
          while position < end {
            var sum: Float = 0
            for tap in taps { sum += base[position - tap.back] * tap.coefficient }
            scalar = max(scalar, abs(sum))
            position += 1
          }
          best = max(best, scalar)
        }
      }
    }
    return best
  }
}
