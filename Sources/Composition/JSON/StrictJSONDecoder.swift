import MediaCore

/// A step on the way to a value in a JSON document: a key or an array index.
enum JSONPathComponent: Sendable, Equatable {
  case key(String)
  case index(Int)
}

/// `clips[2].transition.type`; `(document)` for the root.
func describe(_ path: [JSONPathComponent]) -> String {
  var text = ""
  for component in path {
    switch component {
    case .key(let key): text += text.isEmpty ? key : ".\(key)"
    case .index(let index): text += "[\(index)]"
    }
  }
  return text.isEmpty ? "(document)" : text
}

/// `fadeIn` → `fade_in`: a Swift property name as the document spells it.
func snakeCase(_ name: String) -> String {
  var result = ""
  for character in name {
    if character.isUppercase {
      result += "_" + character.lowercased()
    } else {
      result.append(character)
    }
  }
  return result
}

/// `fade_in` → `fadeIn`.
func camelCase(_ name: String) -> String {
  var result = ""
  var upper = false
  for character in name {
    if character == "_" {
      upper = true
    } else if upper {
      result += character.uppercased()
      upper = false
    } else {
      result.append(character)
    }
  }
  return result
}

/// A strict `Decoder` over a parsed JSON document: a key the type does not declare is an error
/// that names its path (`clips[2].transiton`), as is a value of the wrong JSON type (`clips[0]
/// .volume: expected a number, found a string`); keys are snake_case (the tools' JSON
/// convention) and nothing else; numbers are read exactly (see `ExactNumber`). Every error is a
/// `CompositionError.invalidComposition` with the path and the value's line and column.
final class StrictJSONDecoder: Decoder {
  let value: JSONValue
  let path: [JSONPathComponent]
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(value: JSONValue, path: [JSONPathComponent], codingPath: [any CodingKey]) {
    self.value = value
    self.path = path
    self.codingPath = codingPath
  }

  /// An error about this value.
  func error(_ message: String) -> CompositionError {
    .invalidComposition(location: "\(describe(path)) (\(value.position))", message: message)
  }

  func typeError(expected: String) -> CompositionError {
    error("expected \(expected), found \(value.typeName)")
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .object(let members) = value.kind else { throw typeError(expected: "an object") }
    var values: [String: JSONValue] = [:]
    for (key, member) in members {
      let name = camelCase(key)
      guard let codingKey = Key(stringValue: name), snakeCase(codingKey.stringValue) == key else {
        let known = Self.knownKeys(Key.self)
        throw StrictJSONDecoder(value: member, path: path + [.key(key)], codingPath: codingPath)
          .error(
            "unknown key"
              + (known.isEmpty ? "" : " (the keys here are: \(known.joined(separator: ", ")))"))
      }
      values[codingKey.stringValue] = member
    }
    return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, values: values))
  }

  /// The keys a `CodingKey` enum declares, as the document spells them, when it can list them.
  static func knownKeys<Key: CodingKey>(_ type: Key.Type) -> [String] {
    guard let listing = type as? any DocumentKeys.Type else { return [] }
    return listing.documentKeys
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let items) = value.kind else { throw typeError(expected: "an array") }
    return UnkeyedContainer(decoder: self, items: items)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    SingleContainer(decoder: self)
  }

  /// Decodes `T` from `value` at `path`.
  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    do {
      return try T(from: self)
    } catch let error as CompositionError {
      throw error
    } catch let error as DecodingError {
      throw convert(error)
    }
  }

  /// A `DecodingError` thrown by a type's own `init(from:)` (a value it refuses), with the path
  /// of the value it names.
  func convert(_ error: DecodingError) -> CompositionError {
    switch error {
    case .dataCorrupted(let context), .typeMismatch(_, let context),
      .valueNotFound(_, let context), .keyNotFound(_, let context):
      var components = path
      for key in context.codingPath.dropFirst(codingPath.count) {
        if let index = key.intValue {
          components.append(.index(index))
        } else {
          components.append(.key(snakeCase(key.stringValue)))
        }
      }
      var message = context.debugDescription
      if case .keyNotFound(let key, _) = error {
        components.append(.key(snakeCase(key.stringValue)))
        message = "missing (required)"
      }
      return .invalidComposition(location: describe(components), message: message)
    @unknown default:
      return self.error("\(error)")
    }
  }

  // MARK: Scalars

  func decodeBool() throws -> Bool {
    guard case .bool(let bool) = value.kind else { throw typeError(expected: "true or false") }
    return bool
  }

  func decodeString() throws -> String {
    guard case .string(let string) = value.kind else { throw typeError(expected: "a string") }
    return string
  }

  func decodeDouble() throws -> Double {
    guard case .number(let text) = value.kind else { throw typeError(expected: "a number") }
    guard let double = Double(text), double.isFinite else {
      throw error("\(text) is out of range")
    }
    return double
  }

  func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
    guard case .number(let text) = value.kind else { throw typeError(expected: "a whole number") }
    guard let exact = ExactNumber.parse(text), exact.denominator == 1,
      let integer = T(exactly: exact.numerator)
    else {
      throw error("expected a whole number, found \(text)")
    }
    return integer
  }

  var isNull: Bool {
    if case .null = value.kind { return true }
    return false
  }
}

/// A `CodingKey` enum that can list the keys it accepts, for the unknown-key message.
protocol DocumentKeys: CodingKey, CaseIterable {}

extension DocumentKeys {
  static var documentKeys: [String] { allCases.map { snakeCase($0.stringValue) } }
}

private struct IndexKey: CodingKey {
  var intValue: Int?
  var stringValue: String { "\(intValue ?? 0)" }
  init(intValue: Int) { self.intValue = intValue }
  init?(stringValue: String) { nil }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: StrictJSONDecoder
  let values: [String: JSONValue]

  var codingPath: [any CodingKey] { decoder.codingPath }
  var allKeys: [Key] { values.keys.compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool { values[key.stringValue] != nil }

  func child(_ key: Key) throws -> StrictJSONDecoder {
    guard let value = values[key.stringValue] else {
      throw CompositionError.invalidComposition(
        location: describe(decoder.path + [.key(snakeCase(key.stringValue))]),
        message: "missing (required)")
    }
    return StrictJSONDecoder(
      value: value, path: decoder.path + [.key(snakeCase(key.stringValue))],
      codingPath: decoder.codingPath + [key])
  }

  func decodeNil(forKey key: Key) throws -> Bool { try child(key).isNull }
  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decodeBool() }
  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    try child(key).decodeString()
  }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    try child(key).decodeDouble()
  }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    Float(try child(key).decodeDouble())
  }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
    try child(key).decodeInteger(type)
  }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
    try child(key).decodeInteger(type)
  }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
    try child(key).decodeInteger(type)
  }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
    try child(key).decodeInteger(type)
  }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
    try child(key).decodeInteger(type)
  }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
    try child(key).decodeInteger(type)
  }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
    try child(key).decodeInteger(type)
  }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
    try child(key).decodeInteger(type)
  }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
    try child(key).decodeInteger(type)
  }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
    try child(key).decodeInteger(type)
  }
  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try child(key).decode(type)
  }
  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    guard contains(key), try !decodeNil(forKey: key) else { return nil }
    return try decode(type, forKey: key)
  }
  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key)
    throws -> KeyedDecodingContainer<NestedKey>
  {
    try child(key).container(keyedBy: type)
  }
  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try child(key).unkeyedContainer()
  }
  func superDecoder() throws -> any Decoder { decoder }
  func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
  let decoder: StrictJSONDecoder
  let items: [JSONValue]
  var currentIndex = 0

  init(decoder: StrictJSONDecoder, items: [JSONValue]) {
    self.decoder = decoder
    self.items = items
  }

  var codingPath: [any CodingKey] { decoder.codingPath }
  var count: Int? { items.count }
  var isAtEnd: Bool { currentIndex >= items.count }

  mutating func next() throws -> StrictJSONDecoder {
    guard !isAtEnd else { throw decoder.error("fewer items than expected") }
    defer { currentIndex += 1 }
    return StrictJSONDecoder(
      value: items[currentIndex], path: decoder.path + [.index(currentIndex)],
      codingPath: decoder.codingPath + [IndexKey(intValue: currentIndex)])
  }

  mutating func decodeNil() throws -> Bool {
    guard !isAtEnd, case .null = items[currentIndex].kind else { return false }
    currentIndex += 1
    return true
  }
  mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decodeBool() }
  mutating func decode(_ type: String.Type) throws -> String { try next().decodeString() }
  mutating func decode(_ type: Double.Type) throws -> Double { try next().decodeDouble() }
  mutating func decode(_ type: Float.Type) throws -> Float { Float(try next().decodeDouble()) }
  mutating func decode(_ type: Int.Type) throws -> Int { try next().decodeInteger(type) }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().decodeInteger(type) }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().decodeInteger(type) }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().decodeInteger(type) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().decodeInteger(type) }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try next().decodeInteger(type) }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().decodeInteger(type) }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().decodeInteger(type) }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().decodeInteger(type) }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().decodeInteger(type) }
  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decode(type) }
  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    try next().container(keyedBy: type)
  }
  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try next().unkeyedContainer()
  }
  mutating func superDecoder() throws -> any Decoder { try next() }
}

private struct SingleContainer: SingleValueDecodingContainer {
  let decoder: StrictJSONDecoder
  var codingPath: [any CodingKey] { decoder.codingPath }

  func decodeNil() -> Bool { decoder.isNull }
  func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool() }
  func decode(_ type: String.Type) throws -> String { try decoder.decodeString() }
  func decode(_ type: Double.Type) throws -> Double { try decoder.decodeDouble() }
  func decode(_ type: Float.Type) throws -> Float { Float(try decoder.decodeDouble()) }
  func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type) }
  func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type) }
  func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type) }
  func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type) }
  func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type) }
  func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type) }
  func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type) }
}
