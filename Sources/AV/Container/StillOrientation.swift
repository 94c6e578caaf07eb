import OutputKit

/// The EXIF orientation of a still picture: a JPEG's (`JPEGOrientation`), a WebP's `EXIF` chunk
/// (RIFF, in a VP8X file) or a PNG's `eXIf` chunk (PNG 1.5), which hold the same TIFF structure
/// as a JPEG's APP1 segment; browsers (CSS `image-orientation: from-image`, the default since
/// 2020) and PIL's `ImageOps.exif_transpose` turn the picture by it. FFmpeg 5.1 turns none of
/// them into a display matrix. The one reader for the probe and the frame grabber.
package enum StillOrientation {
  /// The Orientation value (1-8) of a JPEG, WebP or PNG file's EXIF, nil when it has none.
  package static func read(_ source: ByteSource) -> Int? {
    if let jpeg = JPEGOrientation.read(source) { return jpeg }
    let header = source.bytes(at: 0, count: 12)
    if header.count == 12, header[0..<4].elementsEqual("RIFF".utf8),
      header[8..<12].elementsEqual("WEBP".utf8)
    {
      return webP(source)
    }
    if header.count >= 8,
      header[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    {
      return png(source)
    }
    return nil
  }

  /// A TIFF structure, after the "Exif\0\0" some writers put before it.
  private static func orientation(_ payload: [UInt8]) -> Int? {
    let exif: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
    let tiff = payload.starts(with: exif) ? Array(payload.dropFirst(6)) : payload
    return JPEGOrientation.orientation(tiff: tiff).flatMap { (1...8).contains($0) ? $0 : nil }
  }

  /// RIFF chunks after "WEBP": a four-character code, a 32-bit little-endian size, the
  /// payload padded to an even size.
  private static func webP(_ source: ByteSource) -> Int? {
    var offset: UInt64 = 12
    for _ in 0..<64 {
      let chunk = source.bytes(at: offset, count: 8)
      guard chunk.count == 8 else { return nil }
      let size =
        UInt64(chunk[4]) | UInt64(chunk[5]) << 8 | UInt64(chunk[6]) << 16
        | UInt64(chunk[7]) << 24
      if chunk[0..<4].elementsEqual("EXIF".utf8) {
        return orientation(source.bytes(at: offset + 8, count: Int(min(size, 1 << 16))))
      }
      offset += 8 + size + (size & 1)
    }
    return nil
  }

  /// PNG chunks after the signature: a 32-bit big-endian length, the type, the data, a CRC.
  private static func png(_ source: ByteSource) -> Int? {
    var offset: UInt64 = 8
    for _ in 0..<1024 {
      let chunk = source.bytes(at: offset, count: 8)
      guard chunk.count == 8 else { return nil }
      let length =
        UInt64(chunk[0]) << 24 | UInt64(chunk[1]) << 16 | UInt64(chunk[2]) << 8
        | UInt64(chunk[3])
      if chunk[4..<8].elementsEqual("eXIf".utf8) {
        return orientation(source.bytes(at: offset + 8, count: Int(min(length, 1 << 16))))
      }
      if chunk[4..<8].elementsEqual("IEND".utf8) { return nil }
      offset += 12 + length
    }
    return nil
  }
}
