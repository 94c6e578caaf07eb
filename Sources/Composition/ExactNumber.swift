import MediaCore

/// An exact rational number as a composition document writes it: a JSON number (`1.5` is exactly
/// 3/2, `0.1` exactly 1/10, never the nearest binary fraction) or a string holding a fraction
/// (`"30000/1001"`) or a decimal. Times (seconds), gains and frame rates are written this way.
///
/// Kept in lowest terms with a positive denominator, so equal numbers are equal values. The
/// arithmetic is checked: it returns nil rather than round when a result does not fit in 64 bits.
/// Written back as a JSON number when that number reads back to the same value, else as the
/// fraction string.
public struct ExactNumber: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
  /// The numerator (lowest terms).
  public let numerator: Int64
  /// The denominator (lowest terms, positive).
  public let denominator: Int64

  /// `numerator / denominator`, reduced; nil when `denominator` is 0.
  public init?(_ numerator: Int64, _ denominator: Int64) {
    guard denominator != 0, numerator != .min, denominator != .min else { return nil }
    var (n, d) = (numerator, denominator)
    if d < 0 { (n, d) = (-n, -d) }
    let divisor = Self.gcd(n.magnitude, d.magnitude)
    if divisor > 1 { (n, d) = (n / Int64(divisor), d / Int64(divisor)) }
    self.numerator = n
    self.denominator = d
  }

  /// A whole number.
  public init(_ integer: Int64) {
    numerator = integer
    denominator = 1
  }

  /// The exact value of a time.
  public init(_ time: MediaTime) {
    self = ExactNumber(time.value, time.timescale) ?? ExactNumber(0)
  }

  /// Zero.
  public static let zero = ExactNumber(0)
  /// One.
  public static let one = ExactNumber(1)

  /// The value as seconds.
  public var time: MediaTime { MediaTime(value: numerator, timescale: denominator) }
  /// The value as a `Rational` (`{"num", "den", "value"}` in JSON).
  public var rational: Rational { Rational(numerator, denominator)! }
  /// The nearest `Double`.
  public var doubleValue: Double { Double(numerator) / Double(denominator) }
  /// `3/2`, or `3` for a whole number.
  public var fraction: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }
  /// The value as a person reads it: a decimal when it is one with at most 6 places, else the
  /// fraction (`1.5`, `30000/1001`).
  public var description: String {
    if let decimal = decimalText, decimal.count <= 24 { return decimal }
    return fraction
  }

  /// The exact decimal text (`-0.125`) when the denominator has no prime factor but 2 and 5 and
  /// the decimal has at most 6 places; nil otherwise.
  var decimalText: String? {
    var scaled = numerator.magnitude
    var places = 0
    var d = denominator.magnitude
    while d % 10 == 0 {
      d /= 10
      places += 1
    }
    while d != 1 {
      let factor: UInt64 = d % 2 == 0 ? 5 : (d % 5 == 0 ? 2 : 0)
      guard factor != 0 else { return nil }
      let (product, overflow) = scaled.multipliedReportingOverflow(by: factor)
      guard !overflow else { return nil }
      scaled = product
      d /= (factor == 5 ? 2 : 5)
      places += 1
    }
    guard places <= 6 else { return nil }
    var digits = String(scaled)
    if places > 0 {
      if digits.count <= places {
        digits = String(repeating: "0", count: places - digits.count + 1) + digits
      }
      digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -places))
    }
    return (numerator < 0 ? "-" : "") + digits
  }

  // MARK: - Parsing

  /// Parses a JSON number's text (`-1.25`, `2e-3`), a fraction (`30000/1001`, `-1/2`) or a
  /// decimal in a string; nil when it is none of these or does not fit in 64 bits exactly.
  public static func parse(_ text: String) -> ExactNumber? {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    if parts.count == 2 {
      guard let n = Int64(parts[0]), let d = Int64(parts[1]), d > 0,
        parts[1].first != "+", parts[0].first != "+"
      else { return nil }
      return ExactNumber(n, d)
    }
    guard parts.count == 1 else { return nil }
    return parseDecimal(Substring(text))
  }

  /// `-? digits (. digits)? ([eE] [+-]? digits)?` as an exact fraction.
  static func parseDecimal(_ text: Substring) -> ExactNumber? {
    var rest = text
    var negative = false
    if rest.first == "-" {
      negative = true
      rest = rest.dropFirst()
    }
    var mantissa = ""
    var places = 0
    var seenDigit = false
    while let c = rest.first, c.isASCII, c.isNumber {
      mantissa.append(c)
      rest = rest.dropFirst()
      seenDigit = true
    }
    if rest.first == "." {
      rest = rest.dropFirst()
      var fractionDigit = false
      while let c = rest.first, c.isASCII, c.isNumber {
        mantissa.append(c)
        places += 1
        rest = rest.dropFirst()
        fractionDigit = true
      }
      guard fractionDigit else { return nil }
    }
    guard seenDigit else { return nil }
    var exponent = 0
    if let e = rest.first, e == "e" || e == "E" {
      rest = rest.dropFirst()
      guard let value = Int(rest), rest.first != "+" || rest.count > 1, abs(value) <= 40 else {
        return nil
      }
      exponent = value
      rest = ""
    }
    guard rest.isEmpty else { return nil }
    // Leading zeros say nothing; trailing ones move into the exponent.
    var digits = Substring(mantissa.drop { $0 == "0" })
    while digits.last == "0" {
      digits = digits.dropLast()
      places -= 1
    }
    if digits.isEmpty { return .zero }
    guard digits.count <= 18, var value = Int64(digits) else { return nil }
    if negative { value = -value }
    let power = exponent - places
    let (scale, overflow) = power10(abs(power))
    guard !overflow else { return nil }
    if power >= 0 {
      let (product, o) = value.multipliedReportingOverflow(by: scale)
      return o ? nil : ExactNumber(product)
    }
    return ExactNumber(value, scale)
  }

  private static func power10(_ n: Int) -> (Int64, Bool) {
    var result: Int64 = 1
    for _ in 0..<n {
      let (product, overflow) = result.multipliedReportingOverflow(by: 10)
      if overflow { return (0, true) }
      result = product
    }
    return (result, false)
  }

  // MARK: - Checked arithmetic

  /// `a + b`, nil when it does not fit.
  public func adding(_ other: ExactNumber) -> ExactNumber? {
    let divisor = Int64(Self.gcd(denominator.magnitude, other.denominator.magnitude))
    let (lcm, o1) = (denominator / divisor).multipliedReportingOverflow(by: other.denominator)
    guard !o1 else { return nil }
    let (a, o2) = numerator.multipliedReportingOverflow(by: lcm / denominator)
    let (b, o3) = other.numerator.multipliedReportingOverflow(by: lcm / other.denominator)
    let (sum, o4) = a.addingReportingOverflow(b)
    guard !o2, !o3, !o4 else { return nil }
    return ExactNumber(sum, lcm)
  }

  /// `a - b`, nil when it does not fit.
  public func subtracting(_ other: ExactNumber) -> ExactNumber? {
    adding(ExactNumber(-other.numerator, other.denominator)!)
  }

  /// `a · b`, nil when it does not fit.
  public func multiplied(by other: ExactNumber) -> ExactNumber? {
    let g1 = Int64(Self.gcd(numerator.magnitude, other.denominator.magnitude))
    let g2 = Int64(Self.gcd(other.numerator.magnitude, denominator.magnitude))
    let (n, o1) = (numerator / g1).multipliedReportingOverflow(by: other.numerator / g2)
    let (d, o2) = (denominator / g2).multipliedReportingOverflow(by: other.denominator / g1)
    guard !o1, !o2 else { return nil }
    return ExactNumber(n, d)
  }

  /// `a / b`, nil when `b` is 0 or the result does not fit.
  public func divided(by other: ExactNumber) -> ExactNumber? {
    guard other.numerator != 0 else { return nil }
    return multiplied(by: ExactNumber(other.denominator, other.numerator)!)
  }

  /// Ordered exactly (128-bit cross products).
  public static func < (a: ExactNumber, b: ExactNumber) -> Bool {
    let x = a.numerator.multipliedFullWidth(by: b.denominator)
    let y = b.numerator.multipliedFullWidth(by: a.denominator)
    return (x.high, x.low) < (y.high, y.low)
  }

  static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
    var (a, b) = (a, b)
    while b != 0 { (a, b) = (b, a % b) }
    return Swift.max(a, 1)
  }

  // MARK: - Codable

  /// Reads a JSON number exactly (from a composition document's text) or a string holding a
  /// fraction or decimal; from other decoders, a number goes through its shortest decimal form.
  public init(from decoder: any Decoder) throws {
    if let strict = decoder as? StrictJSONDecoder {
      switch strict.value.kind {
      case .number(let text), .string(let text):
        guard let number = ExactNumber.parse(text) else {
          throw strict.error(
            "\(text) is not a number this tool can hold exactly (at most 18 digits, or a "
              + "fraction of 64-bit integers such as \"30000/1001\")")
        }
        self = number
        return
      default:
        throw strict.error(
          "expected a number or a fraction in a string (\"30000/1001\"), found "
            + strict.value.typeName)
      }
    }
    let container = try decoder.singleValueContainer()
    if let text = try? container.decode(String.self) {
      guard let number = ExactNumber.parse(text) else {
        throw DecodingError.dataCorruptedError(
          in: container, debugDescription: "\(text) is not an exact number")
      }
      self = number
    } else if let integer = try? container.decode(Int64.self) {
      self = ExactNumber(integer)
    } else {
      let double = try container.decode(Double.self)
      guard double.isFinite, let number = ExactNumber.parse("\(double)") else {
        throw DecodingError.dataCorruptedError(
          in: container, debugDescription: "\(double) is not an exact number")
      }
      self = number
    }
  }

  /// A JSON number when it reads back exactly, else the fraction as a string.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    if denominator == 1 {
      try container.encode(numerator)
      return
    }
    let double = doubleValue
    var text = double.description
    if text.hasSuffix(".0") { text.removeLast(2) }
    if ExactNumber.parse(text) == self {
      try container.encode(double)
    } else {
      try container.encode(fraction)
    }
  }
}
