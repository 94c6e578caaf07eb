import OutputKit
import MediaCore
/// The EXIF orientation of a JPEG file (tag 0x0112 of IFD0 in the `Exif` APP1 segment), read
/// from the markers before the first scan. FFmpeg 5.1's JPEG demuxers do not turn it into a
/// display matrix.
package enum JPEGOrientation {
  /// The orientation value (1-8) of the JPEG in `source`; nil when the file has none or is not
  /// a JPEG.
  package static func read(_ source: ByteSource) -> Int? {
    guard source.bytes(at: 0, count: 2) == [0xFF, 0xD8] else { return nil }
    var offset: UInt64 = 2
    for _ in 0..<64 {  // the APPn segments come first
      let marker = source.bytes(at: offset, count: 4)
      guard marker.count == 4, marker[0] == 0xFF else { return nil }
      let type = marker[1]
      let length = UInt64(marker[2]) << 8 | UInt64(marker[3])
      if type == 0xDA || type == 0xD9 || length < 2 { return nil }  // start of scan, end
      if type == 0xE1 {
        let segment = source.bytes(at: offset + 4, count: Int(min(length - 2, 1 << 16)))
        if segment.starts(with: Array("Exif\0\0".utf8)) {
          return orientation(tiff: Array(segment.dropFirst(6)))
        }
      }
      offset += 2 + length
    }
    return nil
  }

  /// The Orientation entry of IFD0 in a TIFF structure (EXIF's), in either byte order.
  package static func orientation(tiff: [UInt8]) -> Int? {
    guard tiff.count >= 8 else { return nil }
    let little: Bool
    switch (tiff[0], tiff[1]) {
    case (0x49, 0x49): little = true  // "II"
    case (0x4D, 0x4D): little = false  // "MM"
    default: return nil
    }
    func int(_ at: Int, _ count: Int) -> Int? {
      guard at >= 0, at + count <= tiff.count else { return nil }
      let bytes = tiff[at..<(at + count)]
      return (little ? bytes.reversed() : Array(bytes)).reduce(0) { $0 << 8 | Int($1) }
    }
    guard int(2, 2) == 42, let ifd = int(4, 4), let count = int(ifd, 2) else { return nil }
    for entry in 0..<min(count, 512) {
      let at = ifd + 2 + entry * 12
      guard let tag = int(at, 2) else { return nil }
      // SHORT (3), one value, stored in the first two bytes of the value field.
      if tag == 0x0112, int(at + 2, 2) == 3, let value = int(at + 8, 2), (1...8).contains(value) {
        return value
      }
    }
    return nil
  }

  /// The transform an EXIF orientation stands for, as `UIImage.Orientation` (whose cases map one
  /// to one to the EXIF values: 1 up, 2 up mirrored, 3 down, 4 down mirrored, 5 left mirrored,
  /// 6 right, 7 right mirrored, 8 left), with the translation that keeps a `width`×`height`
  /// picture at the origin.
  package static func transform(_ value: Int, width: Int, height: Int) -> AffineTransform {
    let (a, b, c, d): (Double, Double, Double, Double) =
      switch value {
      case 2: (-1, 0, 0, 1)
      case 3: (-1, 0, 0, -1)
      case 4: (1, 0, 0, -1)
      case 5: (0, 1, 1, 0)
      case 6: (0, 1, -1, 0)
      case 7: (0, -1, -1, 0)
      case 8: (0, -1, 1, 0)
      default: (1, 0, 0, 1)
      }
    return AffineTransform.keepingOrigin(a: a, b: b, c: c, d: d, width: width, height: height)
  }
}

extension AffineTransform {
  /// The transform (a, b, c, d) with the translation that keeps a `width`×`height` picture's
  /// corners at non-negative coordinates, as a camera writes it.
  package static func keepingOrigin(
    a: Double, b: Double, c: Double, d: Double, width: Int, height: Int
  )
    -> AffineTransform
  {
    let corners = [
      (0.0, 0.0), (Double(width), 0.0), (0.0, Double(height)), (Double(width), Double(height)),
    ]
    let tx = -(corners.map { a * $0.0 + c * $0.1 }.min() ?? 0)
    let ty = -(corners.map { b * $0.0 + d * $0.1 }.min() ?? 0)
    return AffineTransform(a: a, b: b, c: c, d: d, tx: tx + 0, ty: ty + 0)
  }
}

/// What the boxes of a HEIF still image (ISO/IEC 23008-12: `.heic`, `.heif`, `.avif`) say about
/// its primary item: a file whose `ftyp` names a HEIF brand and that has a top-level `meta` box
/// but no `moov` holds images, not a movie. FFmpeg 5.1 cannot read HEIF (its mov demuxer reads
/// only the primary item of an AVIF file); the brand, the primary item's coding and its size
/// (`ispe`) and rotation (`irot`) are read here so the report can say what the file is.
package struct HEIFImage: Equatable, Sendable {
  /// The major brand (`heic`, `mif1`, `avif`, ...), when it is a known HEIF brand; else the
  /// first known HEIF brand among the compatible ones.
  package var brand: String
  /// The primary item's type (`hvc1`, `av01`, `grid`, `jpeg`, ...), when it is a known one.
  package var itemType: String?
  /// The primary item's size from its `ispe` property.
  package var width: Int?
  package var height: Int?
  /// The primary item's `irot` rotation, counter-clockwise quarter turns (0-3).
  package var quarterTurns: Int = 0

  /// The HEIF brands (ISO/IEC 23008-12 Annex B-E, MIAF, AVIF).
  package static let brands: Set = [
    "mif1", "mif2", "msf1", "miaf", "heic", "heix", "heim", "heis", "hevc", "hevx", "heif",
    "avif", "avis", "avio", "jpeg", "jpgs", "avci", "vvic",
  ]
  /// Item types named in messages (others are left out: they are bytes of the file).
  package static let itemTypes: Set = [
    "hvc1", "av01", "grid", "jpeg", "avc1", "iden", "iovl", "vvc1",
  ]

  /// The format's name for people: AVIF for an AV1 image or an `avif` brand, else HEIF.
  package var formatName: String {
    itemType == "av01" || brand == "avif" || brand == "avis" ? "AVIF" : "HEIF"
  }

  /// Clockwise degrees of the primary item's rotation (`irot` counts counter-clockwise).
  package var rotation: Int { (4 - quarterTurns) % 4 * 90 }

  /// The primary item's display transform (its `irot` rotation; `imir` mirroring is not read),
  /// keeping the picture at the origin.
  package var transform: AffineTransform {
    let (a, b, c, d): (Double, Double, Double, Double) =
      switch rotation {
      case 90: (0, 1, -1, 0)
      case 180: (-1, 0, 0, -1)
      case 270: (0, -1, 1, 0)
      default: (1, 0, 0, 1)
      }
    return AffineTransform.keepingOrigin(
      a: a, b: b, c: c, d: d, width: width ?? 0, height: height ?? 0)
  }

  /// A description for messages: `HEIF image (brand heic, hvc1, 4032x3024, rotated 90° clockwise)`.
  package var summary: String {
    var parts = ["brand \(brand)"]
    if let itemType { parts.append(itemType) }
    if let width, let height { parts.append("\(width)x\(height)") }
    if rotation != 0 { parts.append("rotated \(rotation)° clockwise") }
    return "\(formatName) image (\(parts.joined(separator: ", ")))"
  }

  /// Reads the top-level boxes of `source` (a regular file): nil unless it is a HEIF image file.
  package static func read(_ source: ByteSource) -> HEIFImage? {
    guard let size = source.size else { return nil }
    let file = BoxFile(source: source, size: UInt64(size))
    guard let ftyp = file.box(at: 0, within: file.size), ftyp.type == "ftyp", ftyp.size <= 4096
    else { return nil }
    let body = file.bytes(at: ftyp.body, count: Int(ftyp.size - ftyp.headerSize))
    guard body.count >= 8 else { return nil }
    let major = String(decoding: body[0..<4], as: UTF8.self)
    let compatible = stride(from: 8, to: body.count - 3, by: 4).map {
      String(decoding: body[$0..<($0 + 4)], as: UTF8.self)
    }
    guard let brand = ([major] + compatible).first(where: brands.contains) else { return nil }
    var meta: BoxFile.Header?
    var offset = ftyp.size
    var boxes = 0
    while offset + 8 <= file.size, boxes < 10_000, let box = file.box(at: offset, within: file.size)
    {
      if box.type == "moov" { return nil }  // a movie (an image sequence has one too)
      if box.type == "meta", meta == nil { meta = box }
      offset += box.size
      boxes += 1
    }
    guard let meta else { return nil }
    var image = HEIFImage(brand: brand)
    image.readMeta(file, meta)
    return image
  }

  /// The primary item (`pitm`), its type (`iinf`/`infe`) and its properties (`iprp`: `ipco`
  /// with `ipma`).
  private mutating func readMeta(_ file: BoxFile, _ meta: BoxFile.Header) {
    // `meta` is a full box: its children start after version and flags.
    let inner = BoxFile.Header(
      type: "meta", offset: meta.offset, size: meta.size, headerSize: meta.headerSize + 4)
    let children = inner.children(in: file)
    var primary: Int64?
    if let pitm = children.first(where: { $0.type == "pitm" }) {
      let bytes = file.bytes(at: pitm.body, count: 8)
      primary = bytes.first == 0 ? BoxLayout.int(bytes, 4, 2) : BoxLayout.int(bytes, 4, 4)
    }
    guard let primary else { return }
    if let iinf = children.first(where: { $0.type == "iinf" }) {
      let header = file.bytes(at: iinf.body, count: 8)
      let skip: UInt64 = header.first == 0 ? 6 : 8  // version, flags, entry count
      let entries = BoxFile.Header(
        type: "iinf", offset: iinf.offset, size: iinf.size, headerSize: iinf.headerSize + skip)
      for infe in entries.children(in: file) where infe.type == "infe" {
        let bytes = file.bytes(at: infe.body, count: 16)
        guard let version = bytes.first, version >= 2 else { continue }
        let id = version == 2 ? BoxLayout.int(bytes, 4, 2) : BoxLayout.int(bytes, 4, 4)
        let typeAt = version == 2 ? 8 : 10
        guard id == primary, bytes.count >= typeAt + 4 else { continue }
        let type = String(decoding: bytes[typeAt..<(typeAt + 4)], as: UTF8.self)
        itemType = Self.itemTypes.contains(type) ? type : nil
      }
    }
    guard let iprp = children.first(where: { $0.type == "iprp" }) else { return }
    let parts = iprp.children(in: file)
    guard let ipco = parts.first(where: { $0.type == "ipco" }) else { return }
    let properties = ipco.children(in: file)
    for ipma in parts where ipma.type == "ipma" {
      let bytes = file.bytes(at: ipma.body, count: Int(min(ipma.size - ipma.headerSize, 1 << 16)))
      guard bytes.count >= 8 else { continue }
      let version = bytes[0]
      let wideIndex = bytes[3] & 1 != 0
      let count = BoxLayout.int(bytes, 4, 4)
      var at = 8
      for _ in 0..<min(count, 10_000) {
        let idSize = version < 1 ? 2 : 4
        guard at + idSize + 1 <= bytes.count else { return }
        let id = BoxLayout.int(bytes, at, idSize)
        let associations = Int(bytes[at + idSize])
        at += idSize + 1
        for _ in 0..<associations {
          let entrySize = wideIndex ? 2 : 1
          guard at + entrySize <= bytes.count else { return }
          let index = Int(BoxLayout.int(bytes, at, entrySize)) & (wideIndex ? 0x7FFF : 0x7F)
          at += entrySize
          guard id == primary, index >= 1, index <= properties.count else { continue }
          apply(file, properties[index - 1])
        }
      }
    }
  }

  /// Takes the size from `ispe` and the rotation from `irot`.
  private mutating func apply(_ file: BoxFile, _ property: BoxFile.Header) {
    let bytes = file.bytes(at: property.body, count: 12)
    switch property.type {
    case "ispe" where bytes.count >= 12:  // full box: version, flags, width, height
      width = Int(BoxLayout.int(bytes, 4, 4))
      height = Int(BoxLayout.int(bytes, 8, 4))
    case "irot" where !bytes.isEmpty:
      quarterTurns = Int(bytes[0] & 3)
    default: break
    }
  }
}
