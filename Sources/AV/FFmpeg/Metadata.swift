import CFFmpeg

/// One value of an FFmpeg metadata dictionary.
package func metadataValue(_ dictionary: OpaquePointer?, _ key: String) -> String? {
  guard let entry = av_dict_get(dictionary, key, nil, 0) else { return nil }
  return String(cString: entry.pointee.value)
}

/// A whole FFmpeg metadata dictionary.
package func metadataDictionary(_ dictionary: OpaquePointer?) -> [String: String] {
  var result: [String: String] = [:]
  var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
  while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
    result[String(cString: next.pointee.key)] = String(cString: next.pointee.value)
    entry = next
  }
  return result
}

/// The codec tag as four printable characters (`avc1`), or nil when there is none.
package func fourCC(_ tag: UInt32) -> String? {
  guard tag != 0 else { return nil }
  let bytes = (0..<4).map { UInt8(truncatingIfNeeded: tag >> ($0 * 8)) }
  guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
  return String(decoding: bytes, as: UTF8.self)
}
