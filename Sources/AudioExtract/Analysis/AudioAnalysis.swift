import MediaCore
import AV
import OutputKit

/// The measurements of one audio stream: loudness per EBU R128 / ITU-R BS.1770-4 (libebur128),
/// peaks, per-channel RMS and DC offset, clipping and silence, and the exact sample count.
///
/// Levels in decibels are `null` where they are minus infinity (digital silence, or too short to
/// measure), since JSON has no infinity.
public struct AudioAnalysis: Sendable, Codable, Equatable {
  /// What was measured: `written` (the samples of the WAV, in its encoding, after every option) or
  /// `decoded` (`--analyze-only`: the decoded samples as 32-bit float, after trimming, --rate,
  /// --channels and the effects, before any WAV encoding).
  public var measured: String
  /// Sample frames measured (per channel).
  public var samples: Int64
  /// `samples / sample_rate` seconds.
  public var duration: Double
  /// The rate of the measured samples.
  public var sampleRate: Int
  /// Integrated (gated) loudness in LUFS; null when no 400 ms block passed the gates (silence, or
  /// under 0.4 s).
  @NullEncoded public var integratedLoudness: Double?
  /// Loudness range in LU; null under 3 s (no short-term block exists).
  @NullEncoded public var loudnessRange: Double?
  /// The highest true peak of any channel (4x oversampled below 96 kHz, 2x below 192 kHz, the
  /// sample peak above), in dBTP; null for digital silence.
  @NullEncoded public var truePeak: Double?
  /// The highest sample magnitude of any channel, in dBFS; null for digital silence.
  @NullEncoded public var samplePeak: Double?
  /// Per channel, in the file's channel order.
  public var channels: [ChannelStatistics]
  /// Samples at full scale.
  public var clipping: ClippingReport
  /// Spans where every channel stays below the silence threshold.
  public var silence: SilenceReport
  /// No sample of any channel reached the silence threshold (true for an empty stream).
  public var allSilent: Bool
}

/// One channel's levels.
public struct ChannelStatistics: Sendable, Codable, Equatable {
  /// Root mean square level in dBFS (a full-scale square wave is 0); null for digital silence.
  @NullEncoded public var rms: Double?
  /// The highest sample magnitude in dBFS; null for digital silence.
  @NullEncoded public var samplePeak: Double?
  /// The mean sample value, as a fraction of full scale (as ffmpeg's `astats` "DC offset"), to
  /// 1e-9.
  public var dcOffset: Double
  /// Samples of this channel at full scale.
  public var clippedSamples: Int64
}

/// Samples at full scale: the largest or smallest value of an integer encoding, or a magnitude of
/// 1.0 or more in float (which clips in any integer encoding).
public struct ClippingReport: Sendable, Codable, Equatable {
  /// Clipped samples, all channels.
  public var samples: Int64
  /// Runs: consecutive clipped samples of one channel with the same sign (a lone sample at full
  /// scale is a run of 1).
  public var runs: Int64
  /// The longest run, in samples.
  public var longestRun: Int64
  /// The first runs, in order of their start (at most the list limit).
  public var first: [ClippedRun]
}

/// One run of clipped samples.
public struct ClippedRun: Sendable, Codable, Equatable {
  /// The channel, from 0.
  public var channel: Int
  /// The first clipped sample's index (per channel, from 0).
  public var sample: Int64
  /// The first clipped sample's time in seconds.
  public var time: Double
  /// Consecutive clipped samples.
  public var length: Int64
}

/// Silence as ffmpeg's `silencedetect` finds it (every channel below the threshold, for at least
/// the minimum duration), with exact sample indices.
public struct SilenceReport: Sendable, Codable, Equatable {
  /// The threshold in dBFS.
  public var threshold: Double
  /// The shortest span reported, in seconds.
  public var minimumDuration: Double
  /// Spans found.
  public var count: Int
  /// Their total length in seconds.
  public var totalDuration: Double
  /// The first spans (at most the list limit).
  public var spans: [SilenceSpan]
}

/// One silent span: samples `[start_sample, end_sample)`.
public struct SilenceSpan: Sendable, Codable, Equatable {
  /// The first silent sample.
  public var startSample: Int64
  /// The first sample after the span (the first loud one, or the end of the stream).
  public var endSample: Int64
  /// `start_sample / sample_rate`.
  public var start: Double
  /// `end_sample / sample_rate`.
  public var end: Double
  /// `end - start`.
  public var duration: Double
}

/// What `--normalize` did: the gain and the loudness measured before and after.
public struct Normalization: Sendable, Codable, Equatable {
  /// The target integrated loudness in LUFS.
  public var target: Double
  /// The true-peak ceiling in dBTP.
  public var truePeakCeiling: Double
  /// The input's integrated loudness (first pass), LUFS.
  @NullEncoded public var inputIntegratedLoudness: Double?
  /// The input's true peak (first pass), dBTP.
  @NullEncoded public var inputTruePeak: Double?
  /// The linear gain applied, in dB.
  public var gain: Double
  /// What set the gain: `loudness` (the target was reached), `true_peak` (the ceiling held the
  /// gain lower; the output is quieter than the target) or `no_loudness` (the input has no
  /// measurable loudness: silent or under 0.4 s; gain 0).
  public var limitedBy: String
  /// The output's integrated loudness, measured again while writing it, LUFS.
  @NullEncoded public var outputIntegratedLoudness: Double?
  /// The output's true peak, measured again while writing it, dBTP.
  @NullEncoded public var outputTruePeak: Double?
}

/// `media2wav --analyze-only`: the stream's analysis, nothing written.
public struct AnalysisReport: Sendable, Codable, Equatable {
  /// The input as given.
  public var input: String
  /// The container index of the decoded stream.
  public var streamIndex: Int
  /// The decoded stream's codec.
  public var codec: String
  /// The measured format (always 32-bit float, at the source's or the requested rate and
  /// channels).
  public var format: PCMFormat
  /// Sample frames measured (per channel).
  public var samples: Int64
  /// `samples / sample_rate` seconds.
  public var duration: Double
  /// Problems that did not stop the decoding.
  public var warnings: [String]
  /// The measurements.
  public var analysis: AudioAnalysis
}
