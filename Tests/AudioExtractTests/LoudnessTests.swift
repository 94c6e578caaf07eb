import AV
import OutputKit
import CEBUR128
import Foundation
import Testing

@testable import AudioExtract

/// The EBU Tech 3341 (loudness, true peak) and Tech 3342 (loudness range) test signals,
/// synthesized as the documents describe them (1 kHz sines at a given peak level in dBFS, 48 kHz,
/// 32-bit float), measured by the analyzer and held to the published values and tolerances:
/// I +-0.1 LU, LRA +-1 LU, true peak +0.2/-0.4 dB. Each case is also measured by a plain
/// libebur128 state in its default (block list) mode, to bound what HISTOGRAM mode costs.
@Suite struct LoudnessTests {
  static let rate = 48000

  /// `seconds` of a sine at `frequency` (a divisor of the rate) starting at `phase` degrees,
  /// interleaved, each channel at its own peak level in dBFS (nil: silent).
  static func tone(
    _ levels: [Double?], seconds: Double, frequency: Int = 1000, phase: Double = 0,
    amplitude: Double? = nil
  ) -> [Float] {
    let period = rate / frequency
    let cycle = (0..<period).map { n in
      sin(2 * Double.pi * Double(n) / Double(period) + phase * Double.pi / 180)
    }
    let frames = Int((seconds * Double(rate)).rounded())
    var out = [Float](repeating: 0, count: frames * levels.count)
    for (channel, level) in levels.enumerated() {
      guard let level else { continue }
      let gain = amplitude ?? pow(10, level / 20)
      let values = cycle.map { Float(gain * $0) }
      for frame in 0..<frames { out[frame * levels.count + channel] = values[frame % period] }
    }
    return out
  }

  /// Stereo segments (level in dBFS, seconds), one after the other.
  static func sequence(_ segments: [(Double, Double)]) -> [Float] {
    segments.flatMap { tone([$0.0, $0.0], seconds: $0.1) }
  }

  static func analyze(_ samples: [Float], channels: Int = 2, mask: UInt64 = 0x3) -> AudioAnalysis {
    let analyzer = AudioAnalyzer(
      encoding: .f32, channels: channels, sampleRate: rate, channelMask: mask,
      options: AnalysisOptions(), measured: "decoded")
    samples.withUnsafeBytes { analyzer.process($0) }
    return analyzer.finish()
  }

  /// libebur128 in its default mode (every block kept): integrated loudness and loudness range.
  static func exact(_ samples: [Float], channels: Int = 2, map: [Int32]? = nil) -> (Double, Double)
  {
    let mode = Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue)
    let state = EBUR128State(channels: channels, sampleRate: rate, mode: mode)!
    if let map { state.setChannels(map) }
    samples.withUnsafeBufferPointer {
      _ = ebur128_add_frames_float(state.pointer, $0.baseAddress, samples.count / channels)
    }
    var loudness = 0.0
    var range = 0.0
    _ = ebur128_loudness_global(state.pointer, &loudness)
    _ = ebur128_loudness_range(state.pointer, &range)
    return (loudness, range)
  }

  // Published lengths where the gating depends on them; cases 1, 2 and 6 are steady tones whose
  // loudness does not depend on the length, so 5 s of them keeps the suite fast.
  static let integrated:
    [(name: String, signal: @Sendable () -> [Float], channels: Int, mask: UInt64)] = [
      ("3341-1", { sequence([(-23, 5)]) }, 2, 0x3),
      ("3341-2", { sequence([(-33, 5)]) }, 2, 0x3),
      ("3341-3", { sequence([(-36, 10), (-23, 60), (-36, 10)]) }, 2, 0x3),
      ("3341-4", { sequence([(-72, 10), (-36, 10), (-23, 60), (-36, 10), (-72, 10)]) }, 2, 0x3),
      ("3341-5", { sequence([(-26, 20), (-20, 20.1), (-26, 20)]) }, 2, 0x3),
      // 5.0 (L R C Ls Rs) and 5.1 with a silent LFE (L R C LFE Ls Rs).
      ("3341-6 5.0", { tone([-28, -28, -24, -30, -30], seconds: 5) }, 5, 0x37),
      ("3341-6 5.1", { tone([-28, -28, -24, nil, -30, -30], seconds: 5) }, 6, 0x3F),
    ]

  @Test(arguments: integrated.map(\.name))
  func integratedLoudnessOfTech3341(_ name: String) throws {
    let spec = try #require(Self.integrated.first { $0.name == name })
    let signal = spec.signal()
    let analysis = Self.analyze(signal, channels: spec.channels, mask: spec.mask)
    let loudness = try #require(analysis.integratedLoudness)
    let expected = name == "3341-2" ? -33.0 : -23.0
    #expect(abs(loudness - expected) <= 0.1, "\(name): \(loudness) LUFS")
    let map = ebur128ChannelMap(mask: spec.mask, channels: spec.channels)
    let (exact, _) = Self.exact(signal, channels: spec.channels, map: map)
    #expect(abs(loudness - exact) <= 0.051, "\(name): histogram \(loudness), exact \(exact)")
    print("EBU \(name): I \(loudness) LUFS (default mode \(rounded(exact)), expected \(expected))")
  }

  static let ranges: [(name: String, segments: [(Double, Double)], expected: Double)] = [
    ("3342-1", [(-20, 20), (-30, 20)], 10),
    ("3342-2", [(-20, 20), (-15, 20)], 5),
    ("3342-3", [(-40, 20), (-20, 20)], 20),
    ("3342-4", [(-50, 20), (-35, 20), (-20, 20), (-35, 20), (-50, 20)], 15),
  ]

  @Test(arguments: ranges.map(\.name))
  func loudnessRangeOfTech3342(_ name: String) throws {
    let spec = try #require(Self.ranges.first { $0.name == name })
    let signal = Self.sequence(spec.segments)
    let range = try #require(Self.analyze(signal).loudnessRange)
    #expect(abs(range - spec.expected) <= 1, "\(name): \(range) LU")
    let (_, exact) = Self.exact(signal)
    #expect(abs(range - exact) <= 0.11, "\(name): histogram \(range), exact \(exact)")
    print(
      "EBU \(name): LRA \(range) LU (default mode \(rounded(exact)), expected \(spec.expected))")
  }

  // Tech 3341 cases 15-19: sines at fs/4, fs/6, fs/8 whose samples miss the crest (or hit it),
  // 0.5 of full scale (-6.02 dB), case 19 at 1.41 (+2.98 dB).
  static let truePeaks: [(name: String, frequency: Int, phase: Double, amplitude: Double)] = [
    ("3341-15", 12000, 0, 0.5), ("3341-16", 12000, 45, 0.5), ("3341-17", 8000, 0, 0.5),
    ("3341-18", 6000, 67.5, 0.5), ("3341-19", 12000, 45, 1.41),
  ]

  @Test(arguments: truePeaks.map(\.name))
  func truePeakOfTech3341(_ name: String) throws {
    let spec = try #require(Self.truePeaks.first { $0.name == name })
    var signal = Self.tone(
      [0, 0], seconds: 1, frequency: spec.frequency, phase: spec.phase, amplitude: spec.amplitude)
    // Faded in and out over 0.1 s, as the EBU files are: an abrupt start rings in the
    // oversampling filter and reads up to 0.6 dB high.
    let fade = Self.rate / 10
    let frames = signal.count / 2
    for frame in 0..<fade {
      let gain = Float(frame) / Float(fade)
      for index in [
        2 * frame, 2 * frame + 1, 2 * (frames - 1 - frame), 2 * (frames - 1 - frame) + 1,
      ] {
        signal[index] *= gain
      }
    }
    let peak = try #require(Self.analyze(signal).truePeak)
    let expected = spec.amplitude > 1 ? 3.0 : -6.0
    #expect(peak - expected <= 0.2 && expected - peak <= 0.4, "\(name): \(peak) dBTP")
    print("EBU \(name): TP \(peak) dBTP (expected \(expected) +0.2/-0.4)")
  }

  /// A deterministic noise source (a linear congruential generator), uniform in [-1, 1).
  struct Noise {
    var state: UInt64
    mutating func next() -> Float {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Float(Int64(bitPattern: state) >> 40) / Float(1 << 23)
    }
  }

  /// Signals for the true-peak screen: noise whose level swells and falls, a chirp, a steady
  /// tone, isolated clicks.
  static func screened(_ kind: String, channels: Int, frames: Int) -> [Float] {
    var noise = Noise(state: 42)
    var out = [Float](repeating: 0, count: frames * channels)
    for frame in 0..<frames {
      let t = Double(frame) / Double(rate)
      for channel in 0..<channels {
        let value: Double =
          switch kind {
          case "noise": Double(noise.next()) * (0.2 + 0.7 * abs(sin(t * 0.9 + Double(channel))))
          case "chirp": 0.8 * sin(2 * .pi * (100 + 4000 * t) * t)
          case "tone": 0.7 * sin(2 * .pi * 12000 * t + .pi / 4)
          default: frame % 9000 == 4321 ? (frame % 18000 == 4321 ? 0.9 : -0.7) : 0
          }
        out[frame * channels + channel] = Float(value)
      }
    }
    return out
  }

  @Test(arguments: [
    ("noise", 2, 48000), ("chirp", 1, 48000), ("tone", 2, 48000), ("clicks", 2, 48000),
    ("noise", 2, 96000), ("noise", 3, 44100), ("noise", 1, 192_000),
  ])
  func screenedTruePeakEqualsLibebur128(_ kind: String, _ channels: Int, _ sampleRate: Int) {
    // The screened meter's result must equal one libebur128 state fed every sample.
    let frames = 3 * sampleRate
    let signal = Self.screened(kind, channels: channels, frames: frames)
    let meter = TruePeakMeter(channels: channels, sampleRate: sampleRate)
    var samplePeak: Float = 0
    var start = 0
    while start < frames {
      let count = min(TruePeakMeter.blockFrames, frames - start)
      signal.withUnsafeBufferPointer { all in
        let block = all.baseAddress! + start * channels
        for i in 0..<count * channels { samplePeak = max(samplePeak, abs(block[i])) }
        meter.process(block, frames: count, samplePeak: samplePeak)
      }
      start += count
    }
    let state = EBUR128State(
      channels: channels, sampleRate: sampleRate, mode: Int32(EBUR128_MODE_TRUE_PEAK.rawValue))!
    signal.withUnsafeBufferPointer {
      _ = ebur128_add_frames_float(state.pointer, $0.baseAddress, frames)
    }
    let reference = state.perChannel(ebur128_true_peak).max()!
    #expect(max(meter.peak, Double(samplePeak)) == reference, "\(kind) \(sampleRate) Hz")
    if kind == "tone" {
      // A steady signal cannot raise the peak after its first blocks: almost nothing is re-run.
      #expect(meter.evaluatedFrames * 10 < meter.screenedFrames)
    }
  }

  @Test func channelWeightsFollowBS1770() throws {
    // 7.1 (FL FR FC LFE BL BR SL SR): a tone in a side channel (90 degrees) weighs 1.41, in a back
    // channel (135-150 degrees) 1.0, in the LFE nothing; 5.1's back pair are its surrounds (1.41).
    func loudness(_ channel: Int, of channels: Int, mask: UInt64) -> Double? {
      var levels = [Double?](repeating: nil, count: channels)
      levels[channel] = -20
      return Self.analyze(Self.tone(levels, seconds: 2), channels: channels, mask: mask)
        .integratedLoudness
    }
    let front = try #require(loudness(0, of: 8, mask: 0x63F))
    let back = try #require(loudness(4, of: 8, mask: 0x63F))
    let side = try #require(loudness(6, of: 8, mask: 0x63F))
    let surround = try #require(loudness(4, of: 6, mask: 0x3F))
    #expect(abs(back - front) < 0.01)
    #expect(abs(side - front - 10 * log10(1.41)) < 0.11)
    #expect(abs(surround - side) < 0.01)
    #expect(loudness(3, of: 8, mask: 0x63F) == nil)
  }

  @Test func silenceClippingAndLevelsByConstruction() throws {
    // Mono 48 kHz: a -6 dBFS tone, zeroed over [1 s, 3.5 s) (reported) and [4 s, 4.5 s) (too
    // short), silent again from 6 s to the end at 8 s; clipped runs forced at known samples.
    // A cosine: no sample of the tone is zero at the span boundaries.
    var signal = Self.tone([-6], seconds: 8, phase: 90)
    for range in [48000..<168_000, 192_000..<216_000, 288_000..<384_000] {
      for i in range { signal[i] = 0 }
    }
    for i in 10..<13 { signal[i] = 1 }
    for i in 30_000..<30_005 { signal[i] = -1.5 }
    signal[250_000] = 1
    let analysis = Self.analyze(signal, channels: 1, mask: 0x4)
    #expect(
      analysis.silence.spans.map { [$0.startSample, $0.endSample] } == [
        [48000, 168_000], [288_000, 384_000],
      ])
    #expect(analysis.silence.totalDuration == 4.5)
    #expect(analysis.clipping.samples == 9)
    #expect(analysis.clipping.runs == 3)
    #expect(analysis.clipping.longestRun == 5)
    #expect(analysis.clipping.first.map(\.sample) == [10, 30_000, 250_000])
    #expect(analysis.clipping.first.map(\.length) == [3, 5, 1])
    #expect(analysis.samplePeak == rounded(20 * log10(1.5)))
    #expect(!analysis.allSilent)
    #expect(Self.analyze([Float](repeating: 0, count: 1000), channels: 1).allSilent)
    // A square wave at full scale has an RMS of 0 dBFS and no DC; a constant has its DC.
    let square = (0..<4800).map { Float($0 % 2 == 0 ? 0.5 : -0.5) }
    #expect(Self.analyze(square, channels: 1).channels[0].rms == rounded(20 * log10(0.5)))
    #expect(Self.analyze(square, channels: 1).channels[0].dcOffset == 0)
    let constant = [Float](repeating: 0.25, count: 4800)
    #expect(Self.analyze(constant, channels: 1).channels[0].dcOffset == 0.25)
  }

  @Test func normalizingGainRespectsTheCeiling() {
    let target = NormalizationOptions(target: -16, truePeakCeiling: -1)
    #expect(
      AudioExtractor.normalizingGain(loudness: -20, truePeak: -8, to: target) == (4, "loudness"))
    #expect(
      AudioExtractor.normalizingGain(loudness: -20, truePeak: -3, to: target) == (2, "true_peak"))
    #expect(
      AudioExtractor.normalizingGain(loudness: nil, truePeak: nil, to: target) == (0, "no_loudness")
    )
  }
}
