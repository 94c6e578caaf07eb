/// What an MPEG transport stream's program map tables (ISO/IEC 13818-1 §2.4.4) declare for each
/// elementary stream: its `stream_type` and its descriptors, by PID. libavformat keeps only what
/// it understands of them (an AC-4 or DTS-UHD stream becomes "binary data"), so the probe reads
/// the tables itself to name a codec FFmpeg 5.1 cannot parse from the container's own
/// identification.
package struct TransportStreamMap: Equatable {
  /// One elementary stream of a program map table.
  package struct Entry: Equatable {
    /// `stream_type` (Table 2-34: 0x2D MPEG-H 3D audio, 0x33 VVC, 0x06 PES private data...).
    package var streamType: UInt8
    /// The ES_info descriptors in order: tag and body (without tag and length bytes).
    package var descriptors: [(tag: UInt8, body: [UInt8])]

    package static func == (a: Entry, b: Entry) -> Bool {
      a.streamType == b.streamType
        && a.descriptors.map(\.tag) == b.descriptors.map(\.tag)
        && a.descriptors.map(\.body) == b.descriptors.map(\.body)
    }

    /// The body of the first extension descriptor (tag `tag`: 0x7F DVB, 0x3F MPEG) whose
    /// `descriptor_tag_extension` is `extensionTag`, without that extension byte.
    package func extensionDescriptor(_ tag: UInt8, _ extensionTag: UInt8) -> [UInt8]? {
      descriptors.first { $0.tag == tag && $0.body.first == extensionTag }.map {
        Array($0.body.dropFirst())
      }
    }

    /// The `format_identifier` of a registration descriptor (tag 0x05), as four characters.
    package var registration: String? {
      guard let body = descriptors.first(where: { $0.tag == 0x05 })?.body, body.count >= 4
      else { return nil }
      return String(decoding: body[0..<4], as: UTF8.self)
    }
  }

  /// The elementary streams, by PID (libavformat's `AVStream.id` for MPEG-TS).
  package var streams: [Int: Entry] = [:]

  /// How far into the file the tables are looked for: muxers repeat PAT and PMT every 100 ms or
  /// so, and write them first.
  static let window = 1 << 20

  /// Reads the PAT and the PMTs it points to from the first megabyte of `source` (188-byte
  /// packets, or 192-byte M2TS packets with their 4-byte time code); nil when the input is not a
  /// regular file or no PMT is found. Sections are taken whole from one TS packet or several
  /// (pointer_field, continuation by `payload_unit_start_indicator`); the CRC is checked.
  package static func read(_ source: ByteSource) -> TransportStreamMap? {
    guard source.size != nil else { return nil }
    let data = source.bytes(at: 0, count: window)
    guard let (start, stride) = packetLayout(data) else { return nil }
    var sections: [Int: [UInt8]] = [:]  // PID -> section bytes gathered so far
    var pmtPIDs: Set<Int> = []
    var map = TransportStreamMap()
    var seenPMT: Set<Int> = []
    var offset = start
    while offset + 188 <= data.count {
      defer { offset += stride }
      guard data[offset] == 0x47 else { continue }
      let pid = Int(data[offset + 1] & 0x1F) << 8 | Int(data[offset + 2])
      guard pid == 0 || pmtPIDs.contains(pid) else { continue }
      let unitStart = data[offset + 1] & 0x40 != 0
      let control = (data[offset + 3] >> 4) & 3
      guard control & 1 != 0 else { continue }  // no payload
      var payload = offset + 4
      if control & 2 != 0 { payload += 1 + Int(data[offset + 4]) }
      let end = offset + 188
      guard payload < end else { continue }
      var bytes: ArraySlice<UInt8>
      if unitStart {
        let pointer = Int(data[payload])
        guard payload + 1 + pointer < end else { continue }
        bytes = data[(payload + 1 + pointer)..<end]
        sections[pid] = []
      } else {
        guard sections[pid] != nil else { continue }
        bytes = data[payload..<end]
      }
      sections[pid]!.append(contentsOf: bytes)
      guard let section = sections[pid], section.count >= 3 else { continue }
      let length = Int(section[1] & 0x0F) << 8 | Int(section[2])
      guard section.count >= 3 + length else { continue }
      let whole = Array(section[0..<(3 + length)])
      sections[pid] = nil
      guard length >= 9, crc32(whole) == 0 else { continue }
      if pid == 0, whole[0] == 0x00 {
        var at = 8
        while at + 4 <= whole.count - 4 {
          let program = Int(whole[at]) << 8 | Int(whole[at + 1])
          let mapPID = Int(whole[at + 2] & 0x1F) << 8 | Int(whole[at + 3])
          if program != 0 { pmtPIDs.insert(mapPID) }
          at += 4
        }
      } else if whole[0] == 0x02, !seenPMT.contains(pid) {
        seenPMT.insert(pid)
        map.parsePMT(whole)
      }
      if !pmtPIDs.isEmpty, seenPMT.isSuperset(of: pmtPIDs) { break }
    }
    return map.streams.isEmpty ? nil : map
  }

  /// The first sync byte and the packet stride (188, or 192 for M2TS), when five packets in a
  /// row start with 0x47.
  private static func packetLayout(_ data: [UInt8]) -> (Int, Int)? {
    for stride in [188, 192] {
      for start in 0..<min(stride, data.count) {
        if (0..<5).allSatisfy({
          start + $0 * stride < data.count && data[start + $0 * stride] == 0x47
        }) {
          return (start, stride)
        }
      }
    }
    return nil
  }

  private mutating func parsePMT(_ section: [UInt8]) {
    let end = section.count - 4  // before the CRC
    guard section.count >= 16 else { return }
    let programInfo = Int(section[10] & 0x0F) << 8 | Int(section[11])
    var at = 12 + programInfo
    while at + 5 <= end {
      let type = section[at]
      let pid = Int(section[at + 1] & 0x1F) << 8 | Int(section[at + 2])
      let infoLength = Int(section[at + 3] & 0x0F) << 8 | Int(section[at + 4])
      let infoEnd = min(end, at + 5 + infoLength)
      var descriptors: [(tag: UInt8, body: [UInt8])] = []
      var d = at + 5
      while d + 2 <= infoEnd {
        let length = Int(section[d + 1])
        guard d + 2 + length <= infoEnd else { break }
        descriptors.append((section[d], Array(section[(d + 2)..<(d + 2 + length)])))
        d += 2 + length
      }
      streams[pid] = Entry(streamType: type, descriptors: descriptors)
      at = infoEnd
    }
  }

  /// CRC-32/MPEG-2 (polynomial 0x04C11DB7, no reflection): 0 over a section with its CRC.
  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte) << 24
      for _ in 0..<8 {
        crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1
      }
    }
    return crc
  }
}
