#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

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

  /// Reads the box headers of the file at `path` (a few bytes per box, never the payloads).
  ///
  /// - Returns: nil when the file cannot be read or does not start with a plausible box.
  package static func read(path: String) -> BoxLayout? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { return nil }
    let file = BoxFile(fd: fd, size: UInt64(info.st_size))

    var layout = BoxLayout()
    var offset: UInt64 = 0
    var sawData = false
    var boxes = 0
    while offset + 8 <= file.size, boxes < 10_000 {
      boxes += 1
      guard let box = file.box(at: offset) else { return boxes > 1 ? layout : nil }
      switch box.type {
      case "moov":
        layout.hasMovie = true
        if !sawData { layout.movieBeforeData = true }
        layout.unknownDurationSentinel = file.movieHeaderSentinel(
          from: offset + box.headerSize, to: min(offset + box.size, file.size))
      case "mdat": sawData = true
      default: break
      }
      if offset + box.size > file.size {
        layout.truncated = true
        break
      }
      offset += box.size
    }
    return layout
  }
}

/// Box headers read with `pread` from an open file.
private struct BoxFile {
  let fd: Int32
  let size: UInt64

  struct Header {
    var type: String
    var size: UInt64
    var headerSize: UInt64
  }

  func bytes(at offset: UInt64, count: Int) -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: count)
    let read = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
    return read > 0 ? Array(buffer.prefix(read)) : []
  }

  /// The box header at `offset`; nil when it is not a plausible box.
  func box(at offset: UInt64) -> Header? {
    let header = bytes(at: offset, count: 16)
    guard header.count >= 8 else { return nil }
    var boxSize = UInt64(bigEndian(header[0..<4]))
    var headerSize: UInt64 = 8
    if boxSize == 1 {
      guard header.count == 16 else { return Header(type: "", size: .max, headerSize: 16) }
      boxSize = bigEndian(header[8..<16])
      headerSize = 16
    } else if boxSize == 0 {
      boxSize = size - offset  // extends to the end of the file
    }
    guard boxSize >= headerSize else { return nil }
    return Header(
      type: String(decoding: header[4..<8], as: UTF8.self), size: boxSize, headerSize: headerSize)
  }

  /// Looks for `mvhd` among the children of `moov` and checks its duration for all ones.
  func movieHeaderSentinel(from start: UInt64, to end: UInt64) -> Bool {
    var offset = start
    while offset + 8 <= end, let child = box(at: offset) {
      if child.type == "mvhd" {
        // version(1) flags(3), then v0: ctime(4) mtime(4) timescale(4) duration(4);
        // v1: ctime(8) mtime(8) timescale(4) duration(8).
        let body = bytes(at: offset + child.headerSize, count: 32)
        if body.first == 1 { return body.count == 32 && bigEndian(body[24..<32]) == UInt64.max }
        return body.count >= 24 && bigEndian(body[16..<20]) == UInt64(UInt32.max)
      }
      offset += child.size
    }
    return false
  }

  private func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
    bytes.reduce(0) { $0 << 8 | UInt64($1) }
  }
}
