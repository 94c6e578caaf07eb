import Foundation

/// What the top-level boxes of an ISO BMFF file (MP4, MOV, 3GP, M4A) say, read from their headers
/// only: whether `moov` comes before `mdat` (fast start), whether the file ends inside a box
/// (truncated), and whether the movie header's duration is the "unknown" sentinel.
package struct BoxLayout: Equatable {
  /// A `moov` box exists.
  package var hasMovie = false
  /// `moov` comes before the first `mdat`.
  package var movieBeforeData = false
  /// A box claims to extend past the end of the file.
  package var truncated = false
  /// `mvhd`'s duration is all ones (0xFFFFFFFF, or 64-bit all ones): the "unknown" sentinel
  /// some fragmented-MP4 writers use.
  package var unknownDurationSentinel = false

  /// Reads the box headers of the file at `path`.
  ///
  /// - Returns: nil when the file cannot be read or does not start with a plausible box.
  package static func read(path: String) -> BoxLayout? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    guard let fileSize = try? handle.seekToEnd() else { return nil }
    var layout = BoxLayout()
    var offset: UInt64 = 0
    var sawData = false
    var boxes = 0
    while offset + 8 <= fileSize, boxes < 10_000 {
      boxes += 1
      guard let header = readBytes(handle, at: offset, count: 16), header.count >= 8 else {
        return boxes > 1 ? layout : nil
      }
      var size = UInt64(bigEndian32(header, 0))
      let type = String(decoding: header[4..<8], as: UTF8.self)
      var headerSize: UInt64 = 8
      if size == 1 {
        guard header.count == 16 else { layout.truncated = true; break }
        size = bigEndian64(header, 8)
        headerSize = 16
      } else if size == 0 {
        size = fileSize - offset  // extends to the end of the file
      }
      guard size >= headerSize else { return boxes > 1 ? layout : nil }
      switch type {
      case "moov":
        layout.hasMovie = true
        if !sawData { layout.movieBeforeData = true }
        layout.unknownDurationSentinel = movieHeaderSentinel(
          handle, from: offset + headerSize, to: Swift.min(offset + size, fileSize))
      case "mdat": sawData = true
      default: break
      }
      if offset + size > fileSize {
        layout.truncated = true
        break
      }
      offset += size
    }
    return layout
  }

  /// Looks for `mvhd` among the children of `moov` and checks its duration for all ones.
  private static func movieHeaderSentinel(_ handle: FileHandle, from start: UInt64, to end: UInt64)
    -> Bool
  {
    var offset = start
    while offset + 8 <= end {
      guard let header = readBytes(handle, at: offset, count: 8), header.count == 8 else {
        return false
      }
      let size = UInt64(bigEndian32(header, 0))
      if String(decoding: header[4..<8], as: UTF8.self) == "mvhd" {
        // version(1) flags(3), then v0: ctime(4) mtime(4) timescale(4) duration(4);
        // v1: ctime(8) mtime(8) timescale(4) duration(8).
        guard let body = readBytes(handle, at: offset + 8, count: 32), body.count >= 24 else {
          return false
        }
        if body[0] == 1 {
          return body.count == 32 && bigEndian64(body, 24) == UInt64.max
        }
        return bigEndian32(body, 16) == UInt32.max
      }
      guard size >= 8 else { return false }
      offset += size
    }
    return false
  }

  private static func readBytes(_ handle: FileHandle, at offset: UInt64, count: Int) -> [UInt8]? {
    guard (try? handle.seek(toOffset: offset)) != nil,
      let data = try? handle.read(upToCount: count)
    else { return nil }
    return [UInt8](data)
  }

  private static func bigEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
  }

  private static func bigEndian64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
    bytes[at..<at + 8].reduce(0) { $0 << 8 | UInt64($1) }
  }
}
