#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The encoder every tool writes JSON with: snake_case keys (String-keyed dictionaries, such as
/// tags, keep their keys), keys sorted by their UTF-8 bytes, unescaped slashes, non-finite
/// numbers as the strings "inf", "-inf" and "nan"; pretty-printed unless `compact` (one line, for
/// `--ndjson`).
///
/// The bytes are those Foundation's `JSONEncoder` writes with the same settings (`sortedKeys`,
/// `withoutEscapingSlashes`, `prettyPrinted`, `convertToSnakeCase`, `convertToString`); the tests
/// compare the two on every record the tools print. It exists because Foundation's encoder cost a
/// batch of small files a sixth of its CPU time (200 probe records, 1.5 MB of NDJSON); this one
/// builds a small tree of enums and writes it in one pass, in a quarter of that time.
public struct MediaToolsJSONEncoder: Sendable {
  /// One line, no spaces (NDJSON); otherwise two-space indentation and `"key" : value`.
  public var compact: Bool
  /// Pretty-printed: the levels every line after the first is indented by, blank ones too (an
  /// element of an array written around it, as `JSONStreamWriter` does): the level-0 text with
  /// each newline followed by two spaces per level.
  public var indentLevel: Int

  /// An encoder, pretty-printed unless `compact`.
  public init(compact: Bool = false, indentLevel: Int = 0) {
    self.compact = compact
    self.indentLevel = indentLevel
  }

  /// The JSON text of `value`.
  public func encode<T: Encodable>(_ value: T) throws -> Data {
    let encoder = TreeEncoder(parent: nil, key: nil)
    let node = try encoder.node(for: value, key: nil)
    var writer = JSONTextWriter(pretty: !compact, lineStart: compact ? 0 : indentLevel)
    writer.write(node)
    return Data(writer.bytes)
  }
}

extension JSONDecoder {
  /// The decoder matching `MediaToolsJSONEncoder`.
  public static func mediaTools() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return decoder
  }
}

// MARK: - The tree

/// A JSON value before it is written. Numbers keep their binary value until then.
private enum JSONNode {
  case null
  case bool(Bool)
  case signed(Int64)
  case unsigned(UInt64)
  case double(Double)
  case float(Float)
  case string(String)
  case array(JSONArray)
  case object(JSONObject)
}

/// An array under construction (containers are written into after they are handed out).
private final class JSONArray {
  var items: [JSONNode] = []
}

/// An object under construction: its members in the order they were encoded. A key encoded twice
/// keeps its last value, as a dictionary would.
private final class JSONObject {
  var keys: [String] = []
  var values: [JSONNode] = []

  func append(_ key: String, _ value: JSONNode) {
    keys.append(key)
    values.append(value)
  }
}

// MARK: - Encoder

/// Encodes one value into a `JSONNode`. The coding path is the chain of parents, built only when
/// asked for (an error message).
private final class TreeEncoder: Encoder {
  let parent: TreeEncoder?
  let key: (any CodingKey)?
  /// What `encode(to:)` produced; nil until it asks for a container.
  var result: JSONNode?

  init(parent: TreeEncoder?, key: (any CodingKey)?) {
    self.parent = parent
    self.key = key
  }

  var codingPath: [any CodingKey] {
    var path: [any CodingKey] = []
    var encoder: TreeEncoder? = self
    while let current = encoder {
      if let key = current.key { path.append(key) }
      encoder = current.parent
    }
    return path.reversed()
  }

  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    let object: JSONObject
    if case .object(let existing) = result {
      object = existing  // a type and its superclass (or a wrapper) share one object
    } else {
      object = JSONObject()
      result = .object(object)
    }
    return KeyedEncodingContainer(ObjectContainer<Key>(encoder: self, object: object))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    let array: JSONArray
    if case .array(let existing) = result {
      array = existing
    } else {
      array = JSONArray()
      result = .array(array)
    }
    return ArrayContainer(encoder: self, array: array)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    ValueContainer(encoder: self)
  }

  /// The node for `value`, encoded below this encoder at `key`.
  func node<T: Encodable>(for value: T, key: (any CodingKey)?) throws -> JSONNode {
    // The common leaves without a nested encoder (generic code such as Array's lands here).
    if T.self == String.self { return .string(value as! String) }
    if T.self == Int.self { return .signed(Int64(value as! Int)) }
    if T.self == Int64.self { return .signed(value as! Int64) }
    if T.self == Int32.self { return .signed(Int64(value as! Int32)) }
    if T.self == Double.self { return Self.node(value as! Double) }
    if T.self == Bool.self { return .bool(value as! Bool) }
    if let dictionary = value as? any StringKeyedDictionary {
      return try dictionary.node(in: self, key: key)
    }
    let child = TreeEncoder(parent: self, key: key)
    try value.encode(to: child)
    if let result = child.result { return result }
    if parent == nil && key == nil {
      throw EncodingError.invalidValue(
        value,
        .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
    }
    return .object(JSONObject())  // encoded nothing: an empty object, as Foundation writes
  }

  /// A finite number, or the strings the tools write for the others.
  static func node(_ value: Double) -> JSONNode {
    if value.isFinite { return .double(value) }
    return .string(value.isNaN ? "nan" : value < 0 ? "-inf" : "inf")
  }

  static func node(_ value: Float) -> JSONNode {
    if value.isFinite { return .float(value) }
    return .string(value.isNaN ? "nan" : value < 0 ? "-inf" : "inf")
  }
}

/// `[String: Value]` is written with its keys as they are (no snake_case), as Foundation does.
private protocol StringKeyedDictionary {
  func node(in encoder: TreeEncoder, key: (any CodingKey)?) throws -> JSONNode
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Encodable {
  fileprivate func node(in encoder: TreeEncoder, key: (any CodingKey)?) throws -> JSONNode {
    let object = JSONObject()
    object.keys.reserveCapacity(count)
    object.values.reserveCapacity(count)
    let child = TreeEncoder(parent: encoder, key: key)
    for (name, value) in self {
      object.append(name, try child.node(for: value, key: PlainKey(name)))
    }
    return .object(object)
  }
}

/// A key made at run time (dictionary keys, array indices in coding paths).
private struct PlainKey: CodingKey {
  var stringValue: String
  var intValue: Int?
  init(_ string: String) { stringValue = string }
  init(stringValue: String) { self.stringValue = stringValue }
  init(intValue: Int) {
    stringValue = "Index \(intValue)"
    self.intValue = intValue
  }
}

/// Foundation's `convertToSnakeCase`: words split where lower case turns to upper case, and
/// before the last capital of a run of capitals followed by lower case (`myURLKey` →
/// `my_url_key`); then lowercased and joined with `_`. ASCII keys (all of ours) take a path that
/// allocates nothing for a short key.
func snakeCase(_ key: String) -> String {
  var ascii = true
  var upper = false
  for byte in key.utf8 {
    if byte >= 0x80 { ascii = false }
    if byte &- 65 < 26 { upper = true }
  }
  guard ascii else { return unicodeSnakeCase(key) }
  guard upper else { return key }
  let bytes = Array(key.utf8)
  func isUpper(_ index: Int) -> Bool { bytes[index] &- 65 < 26 }
  func isLower(_ index: Int) -> Bool { bytes[index] &- 97 < 26 }
  // Word boundaries, as in the Unicode version below.
  var boundaries: [Int] = []
  var searchStart = 1
  let end = bytes.count
  while let upperIndex = (searchStart..<end).first(where: isUpper) {
    boundaries.append(upperIndex)
    guard let lowerIndex = (upperIndex..<end).first(where: isLower) else { break }
    if lowerIndex != upperIndex + 1 { boundaries.append(lowerIndex - 1) }
    searchStart = lowerIndex + 1
    if searchStart >= end { break }
  }
  return String(unsafeUninitializedCapacity: end + boundaries.count) { buffer in
    var written = 0
    var next = 0
    for (index, byte) in bytes.enumerated() {
      if next < boundaries.count, boundaries[next] == index {
        // A boundary at 0 (or twice at one place) gives an empty word, joined all the same.
        while next < boundaries.count, boundaries[next] == index {
          buffer[written] = UInt8(ascii: "_")
          written += 1
          next += 1
        }
      }
      buffer[written] = byte &- 65 < 26 ? byte + 32 : byte
      written += 1
    }
    return written
  }
}

/// `snakeCase` for keys with non-ASCII characters (upper and lower case by Unicode category).
private func unicodeSnakeCase(_ key: String) -> String {
  let scalars = Array(key.unicodeScalars)
  var words: [Range<Int>] = []
  var wordStart = 0
  var searchStart = 1
  let end = scalars.count
  while searchStart < end, let upper = scalars[searchStart..<end].firstIndex(where: isUpper) {
    words.append(wordStart..<upper)
    guard let lower = scalars[upper..<end].firstIndex(where: isLower) else {
      wordStart = upper
      break
    }
    if lower == upper + 1 {
      wordStart = upper
    } else {
      words.append(upper..<(lower - 1))
      wordStart = lower - 1
    }
    searchStart = lower + 1
  }
  words.append(wordStart..<end)
  return words.map { range in
    var word = String.UnicodeScalarView()
    word.append(contentsOf: scalars[range])
    return String(word).lowercased()
  }.joined(separator: "_")
}

private func isUpper(_ scalar: Unicode.Scalar) -> Bool {
  if scalar.isASCII { return scalar.value >= 65 && scalar.value <= 90 }
  let category = scalar.properties.generalCategory
  return category == .uppercaseLetter || category == .titlecaseLetter
}

private func isLower(_ scalar: Unicode.Scalar) -> Bool {
  if scalar.isASCII { return scalar.value >= 97 && scalar.value <= 122 }
  return scalar.properties.generalCategory == .lowercaseLetter
}

// MARK: - Containers

private struct ObjectContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: TreeEncoder
  let object: JSONObject

  var codingPath: [any CodingKey] { encoder.codingPath }

  private func set(_ node: JSONNode, _ key: Key) {
    object.append(snakeCase(key.stringValue), node)
  }

  mutating func encodeNil(forKey key: Key) { set(.null, key) }
  mutating func encode(_ value: Bool, forKey key: Key) { set(.bool(value), key) }
  mutating func encode(_ value: String, forKey key: Key) { set(.string(value), key) }
  mutating func encode(_ value: Double, forKey key: Key) { set(TreeEncoder.node(value), key) }
  mutating func encode(_ value: Float, forKey key: Key) { set(TreeEncoder.node(value), key) }
  mutating func encode(_ value: Int, forKey key: Key) { set(.signed(Int64(value)), key) }
  mutating func encode(_ value: Int8, forKey key: Key) { set(.signed(Int64(value)), key) }
  mutating func encode(_ value: Int16, forKey key: Key) { set(.signed(Int64(value)), key) }
  mutating func encode(_ value: Int32, forKey key: Key) { set(.signed(Int64(value)), key) }
  mutating func encode(_ value: Int64, forKey key: Key) { set(.signed(value), key) }
  mutating func encode(_ value: UInt, forKey key: Key) { set(.unsigned(UInt64(value)), key) }
  mutating func encode(_ value: UInt8, forKey key: Key) { set(.unsigned(UInt64(value)), key) }
  mutating func encode(_ value: UInt16, forKey key: Key) { set(.unsigned(UInt64(value)), key) }
  mutating func encode(_ value: UInt32, forKey key: Key) { set(.unsigned(UInt64(value)), key) }
  mutating func encode(_ value: UInt64, forKey key: Key) { set(.unsigned(value), key) }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    set(try encoder.node(for: value, key: key), key)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let nested = JSONObject()
    set(.object(nested), key)
    return KeyedEncodingContainer(
      ObjectContainer<NestedKey>(encoder: TreeEncoder(parent: encoder, key: key), object: nested))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let nested = JSONArray()
    set(.array(nested), key)
    return ArrayContainer(encoder: TreeEncoder(parent: encoder, key: key), array: nested)
  }

  mutating func superEncoder() -> any Encoder {
    SlotEncoder(parent: encoder, key: PlainKey("super")) { [object] node in
      object.append("super", node)
    }
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    let name = snakeCase(key.stringValue)
    return SlotEncoder(parent: encoder, key: key) { [object] node in
      object.append(name, node)
    }
  }
}

private struct ArrayContainer: UnkeyedEncodingContainer {
  let encoder: TreeEncoder
  let array: JSONArray

  var codingPath: [any CodingKey] { encoder.codingPath }
  var count: Int { array.items.count }
  private var nextKey: PlainKey { PlainKey(intValue: array.items.count) }

  mutating func encodeNil() { array.items.append(.null) }
  mutating func encode(_ value: Bool) { array.items.append(.bool(value)) }
  mutating func encode(_ value: String) { array.items.append(.string(value)) }
  mutating func encode(_ value: Double) { array.items.append(TreeEncoder.node(value)) }
  mutating func encode(_ value: Float) { array.items.append(TreeEncoder.node(value)) }
  mutating func encode(_ value: Int) { array.items.append(.signed(Int64(value))) }
  mutating func encode(_ value: Int8) { array.items.append(.signed(Int64(value))) }
  mutating func encode(_ value: Int16) { array.items.append(.signed(Int64(value))) }
  mutating func encode(_ value: Int32) { array.items.append(.signed(Int64(value))) }
  mutating func encode(_ value: Int64) { array.items.append(.signed(value)) }
  mutating func encode(_ value: UInt) { array.items.append(.unsigned(UInt64(value))) }
  mutating func encode(_ value: UInt8) { array.items.append(.unsigned(UInt64(value))) }
  mutating func encode(_ value: UInt16) { array.items.append(.unsigned(UInt64(value))) }
  mutating func encode(_ value: UInt32) { array.items.append(.unsigned(UInt64(value))) }
  mutating func encode(_ value: UInt64) { array.items.append(.unsigned(value)) }
  mutating func encode<T: Encodable>(_ value: T) throws {
    array.items.append(try encoder.node(for: value, key: nextKey))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    let nested = JSONObject()
    let child = TreeEncoder(parent: encoder, key: nextKey)
    array.items.append(.object(nested))
    return KeyedEncodingContainer(ObjectContainer<NestedKey>(encoder: child, object: nested))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let nested = JSONArray()
    let child = TreeEncoder(parent: encoder, key: nextKey)
    array.items.append(.array(nested))
    return ArrayContainer(encoder: child, array: nested)
  }

  mutating func superEncoder() -> any Encoder {
    let index = array.items.count
    array.items.append(.object(JSONObject()))  // the slot, filled when the encoder is done
    return SlotEncoder(parent: encoder, key: PlainKey(intValue: index)) { [array] node in
      array.items[index] = node
    }
  }
}

private struct ValueContainer: SingleValueEncodingContainer {
  let encoder: TreeEncoder

  var codingPath: [any CodingKey] { encoder.codingPath }

  func encodeNil() { encoder.result = .null }
  func encode(_ value: Bool) { encoder.result = .bool(value) }
  func encode(_ value: String) { encoder.result = .string(value) }
  func encode(_ value: Double) { encoder.result = TreeEncoder.node(value) }
  func encode(_ value: Float) { encoder.result = TreeEncoder.node(value) }
  func encode(_ value: Int) { encoder.result = .signed(Int64(value)) }
  func encode(_ value: Int8) { encoder.result = .signed(Int64(value)) }
  func encode(_ value: Int16) { encoder.result = .signed(Int64(value)) }
  func encode(_ value: Int32) { encoder.result = .signed(Int64(value)) }
  func encode(_ value: Int64) { encoder.result = .signed(value) }
  func encode(_ value: UInt) { encoder.result = .unsigned(UInt64(value)) }
  func encode(_ value: UInt8) { encoder.result = .unsigned(UInt64(value)) }
  func encode(_ value: UInt16) { encoder.result = .unsigned(UInt64(value)) }
  func encode(_ value: UInt32) { encoder.result = .unsigned(UInt64(value)) }
  func encode(_ value: UInt64) { encoder.result = .unsigned(value) }
  func encode<T: Encodable>(_ value: T) throws {
    // The value stands in this encoder's place: same path, no key of its own.
    let parentEncoder = encoder.parent ?? encoder
    encoder.result = try parentEncoder.node(
      for: value, key: encoder.parent == nil ? nil : encoder.key)
  }
}

/// The encoder `superEncoder()` hands out: what it encodes lands in its slot when it is released.
private final class SlotEncoder: Encoder {
  private let inner: TreeEncoder
  private let store: (JSONNode) -> Void

  init(parent: TreeEncoder, key: any CodingKey, store: @escaping (JSONNode) -> Void) {
    inner = TreeEncoder(parent: parent, key: key)
    self.store = store
  }

  deinit { store(inner.result ?? .object(JSONObject())) }

  var codingPath: [any CodingKey] { inner.codingPath }
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    inner.container(keyedBy: type)
  }
  func unkeyedContainer() -> any UnkeyedEncodingContainer { inner.unkeyedContainer() }
  func singleValueContainer() -> any SingleValueEncodingContainer { inner.singleValueContainer() }
}

// MARK: - Writing

/// Byte order of the UTF-8 forms (Foundation's `sortedKeys` on Linux), without the generic
/// sequence comparison.
private func utf8Precedes(_ first: String, _ second: String) -> Bool {
  let order = first.utf8.withContiguousStorageIfAvailable { a in
    second.utf8.withContiguousStorageIfAvailable { b in
      for index in 0..<min(a.count, b.count) where a[index] != b[index] {
        return a[index] < b[index]
      }
      return a.count < b.count
    }
  }
  return (order ?? nil) ?? first.utf8.lexicographicallyPrecedes(second.utf8)
}

/// Writes a node as Foundation's JSONWriter does with `sortedKeys` and `withoutEscapingSlashes`.
private struct JSONTextWriter {
  let pretty: Bool
  var bytes: [UInt8] = []
  private var indent = 0
  /// Levels written after every newline, before the line's own indentation.
  private let lineStart: Int

  init(pretty: Bool, lineStart: Int) {
    self.pretty = pretty
    self.lineStart = lineStart
    bytes.reserveCapacity(4096)
  }

  mutating func write(_ node: JSONNode) {
    switch node {
    case .null: append("null")
    case .bool(let value): append(value ? "true" : "false")
    case .signed(let value): append(String(value))
    case .unsigned(let value): append(String(value))
    case .double(let value): appendNumber(value.description)
    case .float(let value): appendNumber(value.description)
    case .string(let value): writeString(value)
    case .array(let array): writeArray(array.items)
    case .object(let object): writeObject(object)
    }
  }

  /// Swift's shortest round-trip form without a trailing ".0" (1.0 → 1, 1e+20 stays).
  private mutating func appendNumber(_ text: String) {
    var utf8 = text.utf8[...]
    if utf8.count >= 2, utf8.last == UInt8(ascii: "0"),
      utf8[utf8.index(utf8.endIndex, offsetBy: -2)] == UInt8(ascii: ".")
    {
      utf8 = utf8.dropLast(2)
    }
    bytes.append(contentsOf: utf8)
  }

  private mutating func writeArray(_ items: [JSONNode]) {
    bytes.append(UInt8(ascii: "["))
    if pretty {
      newline()
      indent += 1
    }
    for (index, item) in items.enumerated() {
      if index > 0 {
        bytes.append(UInt8(ascii: ","))
        if pretty { newline() }
      }
      if pretty { writeIndent() }
      write(item)
    }
    if pretty {
      newline()
      indent -= 1
      writeIndent()
    }
    bytes.append(UInt8(ascii: "]"))
  }

  private mutating func writeObject(_ object: JSONObject) {
    // Sorted by UTF-8 bytes; a stable sort keeps a repeated key's values in encoding order, and
    // the last one wins.
    let keys = object.keys
    var order = Array(keys.indices)
    if order.count > 1 {
      keys.withUnsafeBufferPointer { keys in order.sort { utf8Precedes(keys[$0], keys[$1]) } }
    }
    var unique: [Int] = []
    unique.reserveCapacity(order.count)
    for index in order {
      if let last = unique.last, keys[last] == keys[index] {
        unique[unique.count - 1] = index
      } else {
        unique.append(index)
      }
    }
    bytes.append(UInt8(ascii: "{"))
    if pretty {
      newline()
      indent += 1
      if !unique.isEmpty { writeIndent() }
    }
    for (position, index) in unique.enumerated() {
      if position > 0 {
        bytes.append(UInt8(ascii: ","))
        if pretty {
          newline()
          writeIndent()
        }
      }
      writeString(keys[index])
      append(pretty ? " : " : ":")
      write(object.values[index])
    }
    if pretty {
      newline()
      indent -= 1
      writeIndent()
    }
    bytes.append(UInt8(ascii: "}"))
  }

  private mutating func newline() {
    bytes.append(UInt8(ascii: "\n"))
    for _ in 0..<lineStart { append("  ") }
  }

  private mutating func writeIndent() {
    for _ in 0..<indent { append("  ") }
  }

  private mutating func append(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  private mutating func append(_ text: String) {
    bytes.append(contentsOf: text.utf8)
  }

  /// Quotes and escapes: `"` and `\`, the control characters (\b \f \n \r \t by name, the
  /// others as \u00xx in lower-case hex); everything else, slashes and non-ASCII included, as
  /// it is.
  private mutating func writeString(_ text: String) {
    bytes.append(UInt8(ascii: "\""))
    var text = text
    text.withUTF8 { utf8 in
      var start = 0  // of the bytes not yet copied
      for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
        start = index + 1
        switch byte {
        case UInt8(ascii: "\""): append("\\\"")
        case UInt8(ascii: "\\"): append("\\\\")
        case 0x08: append("\\b")
        case 0x0C: append("\\f")
        case 0x0A: append("\\n")
        case 0x0D: append("\\r")
        case 0x09: append("\\t")
        default:
          let hex: StaticString = "0123456789abcdef"
          append("\\u00")
          bytes.append(hex.utf8Start[Int(byte >> 4)])
          bytes.append(hex.utf8Start[Int(byte & 0xF)])
        }
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
    }
    bytes.append(UInt8(ascii: "\""))
  }
}
