#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension JSONEncoder {
  /// The encoder every tool writes JSON with: snake_case keys, sorted (stable) key order,
  /// unescaped slashes; pretty-printed unless `compact` (one line, for `--ndjson`).
  public static func mediaTools(compact: Bool = false) -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting =
      compact
      ? [.sortedKeys, .withoutEscapingSlashes]
      : [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return encoder
  }
}

extension JSONDecoder {
  /// The decoder matching `JSONEncoder.mediaTools()`.
  public static func mediaTools() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return decoder
  }
}
