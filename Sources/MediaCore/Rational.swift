/// An exact rational number (a frame rate, a time base, an aspect ratio) with its decimal value,
/// encoded as `{"num": 30000, "den": 1001, "value": 29.97002997002997}`.
public struct Rational: Codable, Sendable, Equatable, Hashable {
  /// The numerator.
  public var num: Int64
  /// The denominator (never 0).
  public var den: Int64
  /// `num / den` as a decimal.
  public var value: Double

  /// A rational in lowest terms; nil when `den` is 0 (FFmpeg's "0/0" or "x/0" means unknown).
  public init?(_ num: Int64, _ den: Int64) {
    guard den != 0 else { return nil }
    var (n, d) = (num, den)
    if d < 0 { (n, d) = (-n, -d) }
    let divisor = Rational.gcd(Swift.abs(n), d)
    if divisor > 1 { (n, d) = (n / divisor, d / divisor) }
    self.num = n
    self.den = d
    self.value = Double(n) / Double(d)
  }

  /// Like `init?(_:_:)`, but also nil for zero (FFmpeg uses 0/1 for "unknown" rates and ratios).
  public static func nonZero(_ num: Int64, _ den: Int64) -> Rational? {
    num == 0 ? nil : Rational(num, den)
  }

  package static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
    var (a, b) = (a, b)
    while b != 0 { (a, b) = (b, a % b) }
    return a
  }
}
