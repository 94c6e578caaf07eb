/// An optional property that is written to JSON as `null` when it has no value, instead of being
/// left out, so a script never meets a missing key.
@propertyWrapper
public struct NullEncoded<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
  /// The value, or nil for "applies, but unknown".
  public var wrappedValue: Value?

  /// Wraps a value.
  public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

  /// Decodes `null` as nil.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
  }

  /// Encodes nil as `null`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
  }
}

extension KeyedDecodingContainer {
  /// Decodes a missing key as nil rather than failing.
  public func decode<Value>(_ type: NullEncoded<Value>.Type, forKey key: Key) throws
    -> NullEncoded<Value>
  {
    NullEncoded(wrappedValue: try decodeIfPresent(Value.self, forKey: key))
  }
}
