import AV
/// What an analysis measures besides loudness: where silence starts and how long it must last.
public struct AnalysisOptions: Sendable, Equatable {
  /// A sample frame is silent when every channel's magnitude is below this level, in dBFS (as
  /// ffmpeg's `silencedetect` `noise`, default -60 dB = 0.001).
  public var silenceThreshold: Double = -60
  /// The shortest silence reported, in seconds (as `silencedetect`'s `d`, default 2 s).
  public var silenceMinimum: Double = 2
  /// How many silence spans and clipped runs are listed (all are counted).
  public var listLimit = 100

  /// Defaults: -60 dBFS, 2 s, 100 listed.
  public init() {}
}

/// `media2wav --normalize`: a linear gain to a target integrated loudness, never above a true-peak
/// ceiling, found by measuring first (two passes over the input).
public struct NormalizationOptions: Sendable, Equatable {
  /// The integrated loudness to reach, in LUFS (e.g. -23 for EBU R128, -16 for podcasts).
  public var target: Double
  /// The highest true peak the output may have, in dBTP.
  public var truePeakCeiling: Double

  /// A target and a ceiling.
  public init(target: Double, truePeakCeiling: Double = -1) {
    self.target = target
    self.truePeakCeiling = truePeakCeiling
  }
}
