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

extension Rational {
  /// `value` units of `from` seconds in units of `to` seconds, rounded to the nearest (halves
  /// away from zero), as libavutil's `av_rescale_q`; exact for any 64-bit input (the product is
  /// kept in 128 bits), saturated when the result does not fit.
  package static func rescale(_ value: Int64, from: Rational, to: Rational) -> Int64 {
    // value · from.num · to.den / (from.den · to.num)
    let (numeratorHigh, numeratorLow) = from.num.multipliedFullWidth(by: to.den)
    let (denominatorHigh, denominatorLow) = from.den.multipliedFullWidth(by: to.num)
    guard numeratorHigh == 0 || numeratorHigh == -1, denominatorHigh == 0,
      denominatorLow > 0, denominatorLow <= UInt64(Int64.max)
    else {
      return Int64(clamping: Int((Double(value) * from.value / to.value).rounded()))
    }
    let factor = Int64(bitPattern: numeratorLow)
    let divisor = Int64(denominatorLow)
    let negative = (value < 0) != (factor < 0)
    let magnitude = value.magnitude.multipliedFullWidth(by: factor.magnitude)
    // (magnitude + divisor / 2) / divisor, in 128 bits.
    let half = UInt64(divisor / 2)
    let (low, carry) = magnitude.low.addingReportingOverflow(half)
    let high = magnitude.high + (carry ? 1 : 0)
    guard high < UInt64(divisor) else { return negative ? Int64.min : Int64.max }
    let (quotient, _) = UInt64(divisor).dividingFullWidth((high, low))
    guard quotient <= UInt64(Int64.max) else { return negative ? Int64.min : Int64.max }
    return negative ? -Int64(quotient) : Int64(quotient)
  }
}
