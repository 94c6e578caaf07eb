/// File names on Linux are bytes, not text: `caf\xE9.m4a` (Latin-1) is a valid name that is not
/// UTF-8, and decoding it to a `String` the usual way replaces the byte with U+FFFD, so the file
/// could no longer be opened. The tools keep such a name in a `String` that stands for its bytes
/// exactly: valid UTF-8 as it is, and each byte of an invalid sequence as one scalar of the
/// private-use range U+10FF80...U+10FFFF (U+10FF00 plus the byte). Names are made this way where
/// they enter (the command line, directory listings, `--files-from` lists), turned back into the
/// same bytes where a file is opened, and shown to people with U+FFFD.
///
/// The one name this cannot carry is one that already holds those private-use characters as
/// UTF-8; such a name is taken as the bytes they stand for.
public enum FileName {
  private static let base: UInt32 = 0x10FF00

  /// The string standing for `bytes` (a name read from the system).
  public static func string(fromBytes bytes: some Collection<UInt8>) -> String {
    let bytes = Array(bytes)
    if let text = String(validating: bytes, as: UTF8.self) { return text }
    var scalars = String.UnicodeScalarView()
    var iterator = bytes.makeIterator()
    var parser = Unicode.UTF8.ForwardParser()
    var offset = 0
    while true {
      switch parser.parseScalar(from: &iterator) {
      case .valid(let encoded):
        scalars.append(Unicode.UTF8.decode(encoded))
        offset += encoded.count
      case .error(let length):
        for byte in bytes[offset..<offset + length] {
          scalars.append(Unicode.Scalar(base + UInt32(byte))!)
        }
        offset += length
      case .emptyInput:
        return String(scalars)
      }
    }
  }

  /// The bytes `name` stands for (without a terminating NUL).
  public static func bytes(_ name: String) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(name.utf8.count)
    for scalar in name.unicodeScalars {
      if scalar.value >= base + 0x80 && scalar.value <= base + 0xFF {
        bytes.append(UInt8(scalar.value - base))
      } else {
        bytes.append(contentsOf: String(scalar).utf8)
      }
    }
    return bytes
  }

  /// Calls `body` with `name` as the NUL-terminated bytes the system knows it by.
  public static func withCString<Result>(
    _ name: String, _ body: (UnsafePointer<CChar>) throws -> Result
  ) rethrows -> Result {
    guard name.unicodeScalars.contains(where: isEscapedByte) else {
      return try name.withCString(body)
    }
    return try (bytes(name) + [0]).withUnsafeBufferPointer { buffer in
      try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
    }
  }

  /// `name` for people: each byte that is not UTF-8 shown as U+FFFD, as `String(decoding:)`
  /// shows it.
  public static func display(_ name: String) -> String {
    guard name.unicodeScalars.contains(where: isEscapedByte) else { return name }
    return String(decoding: bytes(name), as: UTF8.self)
  }

  private static func isEscapedByte(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value >= base + 0x80 && scalar.value <= base + 0xFF
  }
}
