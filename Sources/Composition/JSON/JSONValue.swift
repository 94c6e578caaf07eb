/// A JSON value as a composition document holds it: numbers keep their text (so `1.5` becomes
/// exactly 3/2, never a binary fraction), objects keep their key order, and every value knows
/// where it starts in the text (line and column, from 1) for error messages.
struct JSONValue: Sendable {
  /// What the value is.
  enum Kind: Sendable {
    case null
    case bool(Bool)
    /// The number exactly as written (`-1.25e3`).
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in document order (duplicate keys are refused by the parser).
    case object([(key: String, value: JSONValue)])
  }

  /// The value.
  var kind: Kind
  /// Where it starts.
  var position: TextPosition

  /// The name of the value's JSON type, for messages: "a number", "an object".
  var typeName: String {
    switch kind {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }
}

/// A place in a text: line and column, both from 1; the column counts characters (Unicode
/// scalars), as Python's `json` module counts them.
public struct TextPosition: Sendable, Equatable, CustomStringConvertible {
  /// The line, from 1.
  public var line: Int
  /// The column, from 1.
  public var column: Int

  /// A position.
  public init(line: Int, column: Int) {
    self.line = line
    self.column = column
  }

  /// `line 3, column 7`.
  public var description: String { "line \(line), column \(column)" }
}

/// Why a text is not JSON, and where.
struct JSONSyntaxError: Error, Sendable {
  var position: TextPosition
  var message: String
}

/// A strict RFC 8259 parser: one value, optional whitespace around it, UTF-8; no comments, no
/// trailing commas, no duplicate keys (a document that says one thing twice is an error, not a
/// silent "last one wins"), nesting at most `maxDepth` deep (a hostile document cannot exhaust
/// the stack).
struct JSONParser {
  static let maxDepth = 200

  private let bytes: [UInt8]
  private var index = 0
  private var line = 1
  private var column = 1
  private var depth = 0

  private init(bytes: [UInt8]) { self.bytes = bytes }

  /// Parses `bytes` (a leading UTF-8 byte-order mark is skipped).
  static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
    var parser = JSONParser(bytes: bytes)
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
    try parser.validateUTF8()
    parser.skipWhitespace()
    let value = try parser.parseValue()
    parser.skipWhitespace()
    guard parser.index == bytes.count else {
      throw parser.error("unexpected text after the document's end")
    }
    return value
  }

  private var position: TextPosition { TextPosition(line: line, column: column) }

  private func error(_ message: String) -> JSONSyntaxError {
    JSONSyntaxError(position: position, message: message)
  }

  /// Refuses bytes that are not UTF-8, naming where they are.
  private mutating func validateUTF8() throws(JSONSyntaxError) {
    var iterator = bytes[index...].makeIterator()
    var decoder = UTF8()
    var (line, column) = (1, 1)
    loop: while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar):
        if scalar == "\n" { (line, column) = (line + 1, 1) } else { column += 1 }
      case .emptyInput: break loop
      case .error:
        throw JSONSyntaxError(
          position: TextPosition(line: line, column: column), message: "the text is not UTF-8")
      }
    }
  }

  /// Moves past one byte, counting lines and characters (continuation bytes do not count).
  private mutating func advance() {
    let byte = bytes[index]
    index += 1
    if byte == UInt8(ascii: "\n") {
      line += 1
      column = 1
    } else if byte & 0xC0 != 0x80 {
      column += 1
    }
  }

  private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

  private mutating func skipWhitespace() {
    while let byte = current,
      byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    {
      advance()
    }
  }

  private mutating func expect(_ byte: UInt8, _ what: String) throws(JSONSyntaxError) {
    guard current == byte else { throw error("expected \(what)\(found)") }
    advance()
  }

  /// `, found 'x'` or `, found the end of the text`.
  private var found: String {
    guard let byte = current else { return ", found the end of the text" }
    if byte >= 0x20 && byte < 0x7F { return ", found '\(Character(UnicodeScalar(byte)))'" }
    return ""
  }

  private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
    let start = position
    guard let byte = current else { throw error("expected a value, found the end of the text") }
    switch byte {
    case UInt8(ascii: "{"): return JSONValue(kind: try parseObject(), position: start)
    case UInt8(ascii: "["): return JSONValue(kind: try parseArray(), position: start)
    case UInt8(ascii: "\""): return JSONValue(kind: .string(try parseString()), position: start)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return JSONValue(kind: .number(try parseNumber()), position: start)
    case UInt8(ascii: "t"):
      try parseLiteral("true")
      return JSONValue(kind: .bool(true), position: start)
    case UInt8(ascii: "f"):
      try parseLiteral("false")
      return JSONValue(kind: .bool(false), position: start)
    case UInt8(ascii: "n"):
      try parseLiteral("null")
      return JSONValue(kind: .null, position: start)
    default:
      throw error("expected a value\(found)")
    }
  }

  private mutating func parseLiteral(_ word: String) throws(JSONSyntaxError) {
    for expected in word.utf8 {
      guard current == expected else { throw error("expected '\(word)'") }
      advance()
    }
  }

  private mutating func enter() throws(JSONSyntaxError) {
    depth += 1
    if depth > Self.maxDepth { throw error("nested more than \(Self.maxDepth) levels deep") }
  }

  private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue.Kind {
    try enter()
    defer { depth -= 1 }
    advance()  // {
    var members: [(key: String, value: JSONValue)] = []
    var seen = Set<String>()
    skipWhitespace()
    if current == UInt8(ascii: "}") {
      advance()
      return .object(members)
    }
    while true {
      skipWhitespace()
      let keyPosition = position
      guard current == UInt8(ascii: "\"") else { throw error("expected a key in quotes\(found)") }
      let key = try parseString()
      guard seen.insert(key).inserted else {
        throw JSONSyntaxError(position: keyPosition, message: "the key \"\(key)\" appears twice")
      }
      skipWhitespace()
      try expect(UInt8(ascii: ":"), "':' after a key")
      skipWhitespace()
      members.append((key, try parseValue()))
      skipWhitespace()
      if current == UInt8(ascii: ",") {
        advance()
        continue
      }
      try expect(UInt8(ascii: "}"), "',' or '}'")
      return .object(members)
    }
  }

  private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue.Kind {
    try enter()
    defer { depth -= 1 }
    advance()  // [
    var items: [JSONValue] = []
    skipWhitespace()
    if current == UInt8(ascii: "]") {
      advance()
      return .array(items)
    }
    while true {
      skipWhitespace()
      items.append(try parseValue())
      skipWhitespace()
      if current == UInt8(ascii: ",") {
        advance()
        continue
      }
      try expect(UInt8(ascii: "]"), "',' or ']'")
      return .array(items)
    }
  }

  private mutating func parseString() throws(JSONSyntaxError) -> String {
    advance()  // "
    var scalars = String.UnicodeScalarView()
    var run: [UInt8] = []
    func flush() {
      if !run.isEmpty {
        scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
        run.removeAll(keepingCapacity: true)
      }
    }
    while true {
      guard let byte = current else { throw error("unterminated string") }
      switch byte {
      case UInt8(ascii: "\""):
        advance()
        flush()
        return String(scalars)
      case UInt8(ascii: "\\"):
        flush()
        advance()
        guard let escape = current else { throw error("unterminated string") }
        let simple: [UInt8: Unicode.Scalar] = [
          UInt8(ascii: "\""): "\"", UInt8(ascii: "\\"): "\\", UInt8(ascii: "/"): "/",
          UInt8(ascii: "b"): "\u{08}", UInt8(ascii: "f"): "\u{0C}", UInt8(ascii: "n"): "\n",
          UInt8(ascii: "r"): "\r", UInt8(ascii: "t"): "\t",
        ]
        if let scalar = simple[escape] {
          advance()
          scalars.append(scalar)
        } else if escape == UInt8(ascii: "u") {
          advance()
          let unit = try parseHex4()
          if (0xD800..<0xDC00).contains(unit) {
            guard current == UInt8(ascii: "\\") else { throw error("a lone surrogate in \\u") }
            advance()
            guard current == UInt8(ascii: "u") else { throw error("a lone surrogate in \\u") }
            advance()
            let low = try parseHex4()
            guard (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate in \\u") }
            let value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            scalars.append(Unicode.Scalar(value)!)
          } else {
            guard let scalar = Unicode.Scalar(unit) else { throw error("a lone surrogate in \\u") }
            scalars.append(scalar)
          }
        } else {
          throw error("unknown escape '\\\(Character(UnicodeScalar(escape)))'")
        }
      case 0..<0x20:
        throw error("a control character in a string (write it as an escape)")
      default:
        run.append(byte)
        advance()
      }
    }
  }

  private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard let byte = current, let digit = Self.hexDigit(byte) else {
        throw error("expected four hexadecimal digits after \\u")
      }
      value = value * 16 + digit
      advance()
    }
    return value
  }

  private static func hexDigit(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
  }

  /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, returned as written.
  private mutating func parseNumber() throws(JSONSyntaxError) -> String {
    let start = index
    func isDigit(_ byte: UInt8?) -> Bool {
      byte.map { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ?? false
    }
    if current == UInt8(ascii: "-") { advance() }
    if current == UInt8(ascii: "0") {
      advance()
      if isDigit(current) { throw error("a number does not start with 0 followed by digits") }
    } else if isDigit(current) {
      while isDigit(current) { advance() }
    } else {
      throw error("expected a digit")
    }
    if current == UInt8(ascii: ".") {
      advance()
      guard isDigit(current) else { throw error("expected a digit after '.'") }
      while isDigit(current) { advance() }
    }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      advance()
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { advance() }
      guard isDigit(current) else { throw error("expected a digit in the exponent") }
      while isDigit(current) { advance() }
    }
    return String(decoding: bytes[start..<index], as: UTF8.self)
  }
}
