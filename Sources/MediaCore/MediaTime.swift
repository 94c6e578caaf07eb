/// An exact point or span of time, as AVFoundation's `CMTime`: `value / timescale` seconds. The
/// one exact time type of the tools (a composition's timeline, a decoded stream's first and last
/// times, sums of durations). Encoded as `{"value": 3003, "timescale": 1000, "seconds": 3.003}`.
/// Equal and ordered by the exact number, whatever the timescale.
public struct MediaTime: Codable, Sendable, Equatable, Hashable, Comparable,
  CustomStringConvertible
{
  /// The numerator.
  public var value: Int64
  /// Units per second (never 0).
  public var timescale: Int64
  /// `value / timescale` as a decimal.
  public var seconds: Double

  /// Zero seconds.
  public static let zero = MediaTime(value: 0, timescale: 1)

  /// `value / timescale` seconds, reduced to lowest terms (timescale > 0).
  public init(value: Int64, timescale: Int64) {
    precondition(timescale > 0, "a timescale counts units per second")
    let divisor = Self.gcd(Swift.abs(value), timescale)
    self.value = divisor > 1 ? value / divisor : value
    self.timescale = divisor > 1 ? timescale / divisor : timescale
    self.seconds = Double(self.value) / Double(self.timescale)
  }

  /// `ticks` of a stream's time base, as given (not reduced: a decoded stream's times keep the
  /// stream's own timescale, as `CMTime` does); microseconds when the product overflows.
  public init(ticks: Int64, timeBase: Rational) {
    let (value, overflow) = ticks.multipliedReportingOverflow(by: timeBase.num)
    if overflow {
      self.init(exact: Int64((Double(ticks) * timeBase.value * 1e6).rounded()), 1_000_000)
    } else {
      self.init(exact: value, timeBase.den)
    }
  }

  /// `value / timescale` as given, not reduced.
  private init(exact value: Int64, _ timescale: Int64) {
    precondition(timescale > 0, "a timescale counts units per second")
    self.value = value
    self.timescale = timescale
    self.seconds = Double(value) / Double(timescale)
  }

  /// The same time in lowest terms.
  public var reduced: MediaTime { MediaTime(value: value, timescale: timescale) }

  /// The exact time of a probed duration.
  public init(_ duration: MediaDuration) {
    self.init(value: duration.value, timescale: max(1, duration.timescale))
  }

  /// `CMTimeAdd`: exact in the least common multiple of the timescales; when that overflows,
  /// microseconds (the probe's own fallback).
  public static func + (a: MediaTime, b: MediaTime) -> MediaTime {
    let divisor = gcd(a.timescale, b.timescale)
    let (lcm, o1) = (a.timescale / divisor).multipliedReportingOverflow(by: b.timescale)
    if !o1 {
      let (x, o2) = a.value.multipliedReportingOverflow(by: lcm / a.timescale)
      let (y, o3) = b.value.multipliedReportingOverflow(by: lcm / b.timescale)
      let (sum, o4) = x.addingReportingOverflow(y)
      if !o2 && !o3 && !o4 { return MediaTime(value: sum, timescale: lcm) }
    }
    return MediaTime(value: Int64(((a.seconds + b.seconds) * 1e6).rounded()), timescale: 1_000_000)
  }

  /// `a - b` (exact, as `+`).
  public static func - (a: MediaTime, b: MediaTime) -> MediaTime {
    a + MediaTime(value: -b.value, timescale: b.timescale)
  }

  /// Equal as numbers (3/2 == 6/4).
  public static func == (a: MediaTime, b: MediaTime) -> Bool {
    let (x, o1) = a.value.multipliedReportingOverflow(by: b.timescale)
    let (y, o2) = b.value.multipliedReportingOverflow(by: a.timescale)
    return o1 || o2 ? a.seconds == b.seconds : x == y
  }

  /// Hashes the reduced form, so that equal times hash alike.
  public func hash(into hasher: inout Hasher) {
    let lowest = reduced
    hasher.combine(lowest.value)
    hasher.combine(lowest.timescale)
  }

  /// Compares exactly when the cross products fit, else by seconds.
  public static func < (a: MediaTime, b: MediaTime) -> Bool {
    let (x, o1) = a.value.multipliedReportingOverflow(by: b.timescale)
    let (y, o2) = b.value.multipliedReportingOverflow(by: a.timescale)
    return o1 || o2 ? a.seconds < b.seconds : x < y
  }

  /// How many whole units of `1/rate` seconds fit in this time, rounded to the nearest (halves up):
  /// the frame at which a time falls on a grid of `rate` frames (or samples) per second.
  public func units(atRate rate: Rational) -> Int64 {
    // value/timescale * num/den, rounded: (2·value·num + timescale·den) / (2·timescale·den)
    let (n, o1) = value.multipliedReportingOverflow(by: rate.num)
    let (d, o2) = timescale.multipliedReportingOverflow(by: rate.den)
    let (n2, o3) = n.multipliedReportingOverflow(by: 2)
    let (d2, o4) = d.multipliedReportingOverflow(by: 2)
    let (sum, o5) = n2.addingReportingOverflow(d)
    if o1 || o2 || o3 || o4 || o5 || d2 == 0 {
      return Int64((seconds * rate.value).rounded())
    }
    return sum >= 0 ? sum / d2 : -((-sum + d2 - 1) / d2)
  }

  /// `count` units of `1/rate` seconds.
  public init(units count: Int64, rate: Rational) {
    let (value, overflow) = count.multipliedReportingOverflow(by: rate.den)
    if overflow || rate.num <= 0 {
      self.init(value: Int64((Double(count) / rate.value * 1e6).rounded()), timescale: 1_000_000)
    } else {
      self.init(value: value, timescale: rate.num)
    }
  }

  /// Seconds with three decimals (`3.003`), for people.
  public var description: String { fixed(seconds, places: 3) }

  /// The greatest common divisor, at least 1.
  package static func gcd(_ a: Int64, _ b: Int64) -> Int64 { Swift.max(Rational.gcd(a, b), 1) }

  enum CodingKeys: String, CodingKey { case value, timescale, seconds }

  /// Decodes `value` and `timescale` (`seconds` is derived).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let timescale = try container.decode(Int64.self, forKey: .timescale)
    guard timescale > 0 else {
      throw DecodingError.dataCorruptedError(
        forKey: .timescale, in: container, debugDescription: "timescale must be positive")
    }
    self.init(value: try container.decode(Int64.self, forKey: .value), timescale: timescale)
  }
}
