/// A video stream's frame rates.
///
/// `nominal` is libavformat's `r_frame_rate` (the lowest rate that represents every timestamp),
/// `average` is `avg_frame_rate` (frames / duration). Both can be wrong (Matroska's 1/1000 time
/// base, VFR phone clips); `--scan` measures the truth from every packet's timestamp and fills
/// `mode`, `min`, `max` and `min_frame_duration`.
public struct FrameRate: Codable, Sendable, Equatable {
  /// `r_frame_rate`; null when FFmpeg reports 0/0.
  @NullEncoded public var nominal: Rational?
  /// `avg_frame_rate`; null when FFmpeg reports 0/0.
  @NullEncoded public var average: Rational?
  /// The rate to trust: the scan's exact rate for a CFR clip, otherwise `average` unless it is
  /// implausible, otherwise `nominal`; when the headers contradict each other, the rate the
  /// first packets' timestamps show.
  @NullEncoded public var best: Rational?
  /// Where `best` came from: `header`, `timestamps` (the first packets) or `scan`.
  @NullEncoded public var source: FrameRateSource? = nil
  /// `cfr` or `vfr`, from the timestamps (only with `--scan`).
  @NullEncoded public var mode: FrameRateMode?
  /// The lowest instantaneous rate (1 / the longest frame duration), only with `--scan`.
  @NullEncoded public var min: Rational?
  /// The highest instantaneous rate (1 / the shortest frame duration), only with `--scan`.
  @NullEncoded public var max: Rational?
  /// The shortest frame duration (AVFoundation's `minFrameDuration`), only with `--scan`.
  @NullEncoded public var minFrameDuration: MediaDuration?

  /// Rates as the container reports them, before any scan.
  public init(nominal: Rational?, average: Rational?) {
    self.nominal = nominal
    self.average = average
    self.best = FrameRate.plausible(average, against: nominal) ?? nominal
    self.source = best == nil ? nil : .header
  }

  /// The headers' rates are missing, implausible or disagree by more than 1%: the timestamps
  /// must decide.
  package var headersDisagree: Bool {
    guard let nominal, let average else { return true }
    if FrameRate.plausible(average, against: nominal) == nil || nominal.value > 240 { return true }
    return abs(nominal.value - average.value) > 0.01 * nominal.value
  }

  /// `average` unless it is missing or clearly a time base rather than a rate (above 240 fps and
  /// more than twice `nominal`, as Matroska's 1000/1).
  static func plausible(_ average: Rational?, against nominal: Rational?) -> Rational? {
    guard let average else { return nil }
    if let nominal, average.value > 240, average.value > 2 * nominal.value { return nil }
    return average
  }
}

/// Where a stream's `best` frame rate came from.
public enum FrameRateSource: String, Codable, Sendable {
  /// The container's rates (`r_frame_rate` / `avg_frame_rate`), which agree.
  case header
  /// The timestamps of the first packets (a bounded read) because the headers disagreed.
  case timestamps
  /// Every packet's timestamps (`--scan`).
  case scan
}

/// Constant or variable frame rate, decided from timestamps.
public enum FrameRateMode: String, Codable, Sendable {
  /// Every frame lasts the same (within one tick of the time base).
  case cfr
  /// Frame durations vary.
  case vfr
}
