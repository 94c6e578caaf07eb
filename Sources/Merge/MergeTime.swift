import MediaProbe

/// An exact point or span on the merged timeline, as AVFoundation's `CMTime`: `value /
/// timescale` seconds. Encoded as `{"value": 3003, "timescale": 1000, "seconds": 3.003}`.
public struct MergeTime: Codable, Sendable, Equatable, Hashable, Comparable,
  CustomStringConvertible
{
  /// The numerator.
  public var value: Int64
  /// Units per second (never 0).
  public var timescale: Int64
  /// `value / timescale` as a decimal.
  public var seconds: Double

  /// Zero seconds.
  public static let zero = MergeTime(value: 0, timescale: 1)

  /// `value / timescale` seconds, reduced to lowest terms (timescale > 0).
  public init(value: Int64, timescale: Int64) {
    precondition(timescale > 0, "a timescale counts units per second")
    let divisor = Self.gcd(Swift.abs(value), timescale)
    self.value = divisor > 1 ? value / divisor : value
    self.timescale = divisor > 1 ? timescale / divisor : timescale
    self.seconds = Double(self.value) / Double(self.timescale)
  }

  /// The exact time of a probed duration.
  public init(_ duration: MediaDuration) {
    self.init(value: duration.value, timescale: max(1, duration.timescale))
  }

  /// `CMTimeAdd`: exact in the least common multiple of the timescales; when that overflows,
  /// microseconds (the probe's own fallback).
  public static func + (a: MergeTime, b: MergeTime) -> MergeTime {
    let divisor = gcd(a.timescale, b.timescale)
    let (lcm, o1) = (a.timescale / divisor).multipliedReportingOverflow(by: b.timescale)
    if !o1 {
      let (x, o2) = a.value.multipliedReportingOverflow(by: lcm / a.timescale)
      let (y, o3) = b.value.multipliedReportingOverflow(by: lcm / b.timescale)
      let (sum, o4) = x.addingReportingOverflow(y)
      if !o2 && !o3 && !o4 { return MergeTime(value: sum, timescale: lcm) }
    }
    return MergeTime(value: Int64(((a.seconds + b.seconds) * 1e6).rounded()), timescale: 1_000_000)
  }

  /// `a - b` (exact, as `+`).
  public static func - (a: MergeTime, b: MergeTime) -> MergeTime {
    a + MergeTime(value: -b.value, timescale: b.timescale)
  }

  /// Compares exactly when the cross products fit, else by seconds.
  public static func < (a: MergeTime, b: MergeTime) -> Bool {
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
  public var description: String { formatSeconds(seconds, decimals: 3) }

  static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
    var (a, b) = (a, b)
    while b != 0 { (a, b) = (b, a % b) }
    return Swift.max(a, 1)
  }

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

/// `seconds` with a fixed number of decimals, without Foundation's formatters.
func formatSeconds(_ seconds: Double, decimals: Int) -> String {
  var scale = 1.0
  for _ in 0..<decimals { scale *= 10 }
  let scaled = Int64((abs(seconds) * scale).rounded())
  let whole = scaled / Int64(scale)
  var fraction = String(scaled % Int64(scale))
  while fraction.count < decimals { fraction = "0" + fraction }
  return (seconds < 0 && scaled != 0 ? "-" : "") + "\(whole)" + (decimals > 0 ? "." + fraction : "")
}
