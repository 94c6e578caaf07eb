import AV
#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// Measures interleaved PCM as it streams past, in one pass and with memory that does not grow
/// with the length: libebur128 for loudness (`LoudnessMeter`) and true peak (`TruePeakMeter`), and
/// its own sums for RMS, DC offset, clipping and silence.
///
/// libebur128 gets the samples in their own type where it has one (s16, s32, f32, f64), so its
/// values are those of the WAV's data; u8 and packed s24 go to it as float, which holds them
/// exactly. The other measurements read every sample as a 32-bit float (s32 and f64 lose their
/// bits beyond 24 there).
final class AudioAnalyzer {
  let encoding: PCMEncoding
  let channels: Int
  let sampleRate: Int
  private let options: AnalysisOptions
  private let measured: String
  /// The loudness meter this analyzer feeds itself (nil: `AnalysisThread` feeds one on another
  /// thread and hands it to `finish`).
  private let meter: LoudnessMeter?
  private let truePeak: TruePeakMeter
  /// One block as interleaved floats.
  private var floats: [Float]
  /// Per frame of a block: 1 when some channel reaches the silence threshold.
  private var loud: [UInt8]
  private let silenceLevel: Float
  /// Full scale as a float: the largest positive value of the encoding, and -1.
  private let positiveFullScale: Float

  private var frames: Int64 = 0
  private var sums: [Double]
  private var squares: [Double]
  private var peaks: [Float]
  private var clipped: [Int64]
  // Clipping runs: per channel, the open run's sign (0: none), start and length.
  private var runSign: [Int8]
  private var runStart: [Int64]
  private var runLength: [Int64]
  private var runs: Int64 = 0
  private var longestRun: Int64 = 0
  private var firstRuns: [ClippedRun] = []
  /// The latest start among `firstRuns`.
  private var latestListed: Int64 = 0
  // Silence: where the current quiet stretch began (nil while loud).
  private var quietSince: Int64? = 0
  private var spans: [SilenceSpan] = []
  private var spanCount = 0
  private var silentFrames: Int64 = 0
  private var anyLoud = false
  private let minimumSilence: Int64

  /// An analyzer for samples in `encoding` (the WAV's byte layout: u8, s16, packed s24, s32, f32,
  /// f64), `channels` interleaved at `sampleRate`, with `channelMask` giving each channel's
  /// loudness weight.
  ///
  /// - Parameter measured: `written` or `decoded`, reported as is.
  init(
    encoding: PCMEncoding, channels: Int, sampleRate: Int, channelMask: UInt64,
    options: AnalysisOptions, measured: String, feedsLoudness: Bool = true
  ) {
    self.encoding = encoding
    self.channels = channels
    self.sampleRate = sampleRate
    self.options = options
    self.measured = measured
    meter =
      feedsLoudness
      ? LoudnessMeter(channels: channels, sampleRate: sampleRate, channelMask: channelMask) : nil
    truePeak = TruePeakMeter(channels: channels, sampleRate: sampleRate)
    floats = [Float](repeating: 0, count: TruePeakMeter.blockFrames * channels)
    loud = [UInt8](repeating: 0, count: TruePeakMeter.blockFrames)
    silenceLevel = Float(pow(10, options.silenceThreshold / 20))
    positiveFullScale =
      switch encoding {
      case .u8: 127 / 128
      case .s16: 32767 / 32768
      case .s24: 8_388_607 / 8_388_608
      case .s32: Float(2_147_483_647.0 / 2_147_483_648.0)  // rounds to 1.0 in float
      case .f32, .f64: 1
      }
    minimumSilence = Int64((options.silenceMinimum * Double(sampleRate)).rounded(.up))
    sums = [Double](repeating: 0, count: channels)
    squares = sums
    peaks = [Float](repeating: 0, count: channels)
    clipped = [Int64](repeating: 0, count: channels)
    runSign = [Int8](repeating: 0, count: channels)
    runStart = clipped
    runLength = clipped
  }

  /// Measures whole frames of bytes in the encoding (a trailing partial frame is ignored).
  func process(_ bytes: UnsafeRawBufferPointer) {
    meter?.add(bytes, encoding: encoding)
    guard let base = bytes.baseAddress else { return }
    let frameBytes = encoding.bytesPerSample * channels
    let total = bytes.count / frameBytes
    var done = 0
    while done < total {
      let count = min(TruePeakMeter.blockFrames, total - done)
      block(base + done * frameBytes, frames: count)
      done += count
    }
  }

  private func block(_ raw: UnsafeRawPointer, frames count: Int) {
    let samples = count * channels
    floats.withUnsafeMutableBufferPointer { buffer in
      let out = buffer.baseAddress!
      encoding.convertToFloat(raw, samples: samples, into: out)
      measure(out, frames: count)
      truePeak.process(out, frames: count, samplePeak: peaks.max() ?? 0)
    }
    frames += Int64(count)
  }

  /// Sums, peaks, clipping runs and the loud frames of one block, then the silence spans.
  private func measure(_ samples: UnsafePointer<Float>, frames count: Int) {
    let (level, high) = (silenceLevel, positiveFullScale)
    loud.withUnsafeMutableBufferPointer { loud in
      for frame in 0..<count { loud[frame] = 0 }
      for channel in 0..<channels {
        var sum = 0.0
        var square = 0.0
        var peak: Float = 0
        var index = channel
        for frame in 0..<count {
          let value = samples[index]
          index += channels
          sum += Double(value)
          square += Double(value) * Double(value)
          let magnitude = abs(value)
          peak = max(peak, magnitude)
          loud[frame] |= magnitude >= level ? 1 : 0
          if value >= high || value <= -1 {
            clip(channel: channel, at: frames + Int64(frame), sign: value > 0 ? 1 : -1)
          } else if runSign[channel] != 0 {
            closeRun(channel)
          }
        }
        sums[channel] += sum
        squares[channel] += square
        peaks[channel] = max(peaks[channel], peak)
      }
      for frame in 0..<count {
        let position = frames + Int64(frame)
        if loud[frame] != 0 {
          anyLoud = true
          if let start = quietSince {
            closeSilence(from: start, to: position)
            quietSince = nil
          }
        } else if quietSince == nil {
          quietSince = position
        }
      }
    }
  }

  private func clip(channel: Int, at position: Int64, sign: Int8) {
    clipped[channel] += 1
    if runSign[channel] == sign {
      runLength[channel] += 1
      return
    }
    if runSign[channel] != 0 { closeRun(channel) }
    runSign[channel] = sign
    runStart[channel] = position
    runLength[channel] = 1
  }

  private func closeRun(_ channel: Int) {
    runs += 1
    longestRun = max(longestRun, runLength[channel])
    runSign[channel] = 0
    // Runs close in the order they end, not start: keep the earliest starts.
    let run = ClippedRun(
      channel: channel, sample: runStart[channel],
      time: Double(runStart[channel]) / Double(sampleRate), length: runLength[channel])
    if firstRuns.count < options.listLimit {
      firstRuns.append(run)
      latestListed = max(latestListed, run.sample)
    } else if run.sample < latestListed,
      let latest = firstRuns.indices.max(by: { firstRuns[$0].sample < firstRuns[$1].sample })
    {
      firstRuns[latest] = run
      latestListed = firstRuns.map(\.sample).max() ?? 0
    }
  }

  private func closeSilence(from start: Int64, to end: Int64) {
    guard end - start >= minimumSilence, end > start else { return }
    spanCount += 1
    silentFrames += end - start
    if spans.count < options.listLimit {
      let rate = Double(sampleRate)
      spans.append(
        SilenceSpan(
          startSample: start, endSample: end, start: Double(start) / rate,
          end: Double(end) / rate, duration: Double(end - start) / rate))
    }
  }

  /// The measurements of everything processed.
  ///
  /// - Parameter loudness: what a meter fed with the same samples elsewhere measured (else this
  ///   analyzer's own meter; nil when libebur128 could not measure the format).
  func finish(loudness: LoudnessResult? = nil) -> AudioAnalysis {
    let meter = loudness ?? self.meter?.result
    for channel in 0..<channels where runSign[channel] != 0 { closeRun(channel) }
    if let start = quietSince { closeSilence(from: start, to: frames) }
    quietSince = nil
    firstRuns.sort { ($0.sample, $0.channel) < ($1.sample, $1.channel) }
    let count = Double(max(frames, 1))
    let samplePeaks = meter?.samplePeaks ?? peaks.map(Double.init)
    let samplePeak = samplePeaks.max() ?? 0
    let statistics = (0..<channels).map { channel in
      ChannelStatistics(
        rms: decibels(squares[channel] / count, power: true),
        samplePeak: decibels(samplePeaks[channel]),
        dcOffset: (sums[channel] / count * 1e9).rounded() / 1e9, clippedSamples: clipped[channel])
    }
    let loudness = meter?.integratedLoudness ?? -.infinity
    let threeSeconds = frames >= 3 * Int64(sampleRate)
    return AudioAnalysis(
      measured: measured, samples: frames, duration: Double(frames) / Double(sampleRate),
      sampleRate: sampleRate,
      integratedLoudness: loudness.isFinite ? rounded(loudness) : nil,
      loudnessRange: meter != nil && threeSeconds ? rounded(meter!.loudnessRange) : nil,
      truePeak: decibels(max(truePeak.peak, samplePeak)), samplePeak: decibels(samplePeak),
      channels: statistics,
      clipping: ClippingReport(
        samples: clipped.reduce(0, +), runs: runs, longestRun: longestRun, first: firstRuns),
      silence: SilenceReport(
        threshold: options.silenceThreshold, minimumDuration: options.silenceMinimum,
        count: spanCount, totalDuration: Double(silentFrames) / Double(sampleRate), spans: spans),
      allSilent: !anyLoud)
  }

  /// Frames given to libebur128's true-peak interpolator, of all frames (for the tests).
  var truePeakWork: (evaluated: Int, screened: Int) {
    (truePeak.evaluatedFrames, truePeak.screenedFrames)
  }
}

/// A linear amplitude (or a power) in dB, to 0.001 dB; nil for zero.
func decibels(_ value: Double, power: Bool = false) -> Double? {
  guard value > 0 else { return nil }
  return rounded((power ? 10 : 20) * log10(value))
}

/// To three decimals (a thousandth of a dB is far below any meter's precision).
func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
