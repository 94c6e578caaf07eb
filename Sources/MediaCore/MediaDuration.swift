/// Where a duration came from.
public enum DurationSource: String, Codable, Sendable {
  /// The container's own header or timestamps (`mvhd`, the last packet's timestamp in TS).
  case container
  /// The stream's header (`mdhd`, the stream's duration field).
  case stream
  /// A `DURATION` tag written by the muxer (Matroska/WebM).
  case tag
  /// libavformat estimated it from the bit rate and the file size: not exact.
  case bitrate
  /// `--scan` demuxed every packet: exact.
  case scan
  /// The MP4 movie fragments' own durations (`mehd`, or the `trun` sample durations), read from
  /// the boxes because the headers hold the "unknown" sentinel.
  case fragments
  /// The MP3 Xing frame count with the LAME tag's delay and padding: the gapless length.
  case header
  /// The demuxer's index of stored frames (AVI's `idx1`), where the header claims more.
  case index
}

/// An exact duration, as AVFoundation's `CMTime`: `value / timescale` seconds.
public struct MediaDuration: Codable, Sendable, Equatable {
  /// The duration in seconds (`value / timescale`).
  public var seconds: Double
  /// The numerator of the exact duration.
  public var value: Int64
  /// The denominator of the exact duration (units per second).
  public var timescale: Int64
  /// True when the value is not trustworthy: estimated from the bit rate, or the container's
  /// "unknown" sentinel (AVFoundation's `providesPreciseDurationAndTiming == false`).
  public var estimated: Bool
  /// Where the value came from.
  public var source: DurationSource

  /// A duration of `value / timescale` seconds.
  public init(value: Int64, timescale: Int64, estimated: Bool = false, source: DurationSource) {
    self.value = value
    self.timescale = timescale
    self.seconds = timescale == 0 ? 0 : Double(value) / Double(timescale)
    self.estimated = estimated
    self.source = source
  }

  /// A duration of `ticks` in a time base of `timeBase` seconds per tick (`num/den`).
  public init(ticks: Int64, timeBase: Rational, estimated: Bool = false, source: DurationSource) {
    let (value, overflow) = ticks.multipliedReportingOverflow(by: timeBase.num)
    if overflow {
      self.init(
        value: Int64((Double(ticks) * timeBase.value * 1e6).rounded()), timescale: 1_000_000,
        estimated: estimated, source: source)
    } else {
      self.init(value: value, timescale: timeBase.den, estimated: estimated, source: source)
    }
  }
}

extension MediaDuration {
  /// Parses a Matroska `DURATION` tag (`HH:MM:SS.nnnnnnnnn`) into an exact nanosecond duration.
  ///
  /// - Returns: nil when the text is not of that form.
  public static func fromTag(_ text: String) -> MediaDuration? {
    let parts = text.split(separator: ":")
    guard parts.count == 3, let hours = Int64(parts[0]), let minutes = Int64(parts[1]) else {
      return nil
    }
    let secondParts = parts[2].split(separator: ".", omittingEmptySubsequences: false)
    guard let seconds = Int64(secondParts[0]), secondParts.count <= 2 else { return nil }
    var nanoseconds: Int64 = 0
    if secondParts.count == 2 {
      let digits = String(secondParts[1].prefix(9))
      guard let fraction = Int64(digits), digits.allSatisfy(\.isNumber) else { return nil }
      nanoseconds = fraction * Int64(pow10(9 - digits.count))
    }
    let total = ((hours * 60 + minutes) * 60 + seconds) * 1_000_000_000 + nanoseconds
    return MediaDuration(value: total, timescale: 1_000_000_000, source: .tag)
  }

  private static func pow10(_ n: Int) -> Int { (0..<n).reduce(1) { result, _ in result * 10 } }
}
