import MediaCore

/// One MPEG audio frame header (ISO/IEC 11172-3 2.4.1.3, ISO/IEC 13818-3 2.4.1.3): 11 sync bits,
/// version, layer, bit rate, sample rate and padding, from which the frame's size follows.
package struct MPEGAudioHeader: Equatable, Sendable {
  /// 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5.
  package var version: Int
  /// 1, 2 or 3.
  package var layer: Int
  package var bitRate: Int
  package var sampleRate: Int
  package var padding: Bool
  package var channelMode: Int
  package var protected: Bool

  /// The header at `bytes[at...]`; nil when it is not a valid one (a reserved version, layer,
  /// sample rate, the "bad" bit rate, or free format, whose size no header states).
  package init?(_ data: [UInt8], at: Int) {
    guard at >= 0, at + 4 <= data.count else { return nil }
    self.init(header: Array(data[at..<(at + 4)]))
  }

  init?(_ data: BlockReader, at: Int) {
    guard at >= 0, at + 4 <= data.count else { return nil }
    self.init(header: data.slice(at, 4))
  }

  /// The header in the 4 bytes of `bytes`.
  init?(header bytes: [UInt8]) {
    let at = 0
    guard bytes.count == 4, bytes[at] == 0xFF, bytes[at + 1] & 0xE0 == 0xE0 else { return nil }
    let versionBits = Int(bytes[at + 1] >> 3) & 3
    let layerBits = Int(bytes[at + 1] >> 1) & 3
    let rateIndex = Int(bytes[at + 2] >> 4)
    let sampleIndex = Int(bytes[at + 2] >> 2) & 3
    guard versionBits != 1, layerBits != 0, rateIndex != 0, rateIndex != 15, sampleIndex != 3
    else { return nil }
    version = versionBits
    layer = 4 - layerBits
    let mpeg1 = versionBits == 3
    let table: [Int]
    switch (mpeg1, layer) {
    case (true, 1): table = [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
    case (true, 2): table = [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
    case (true, _): table = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
    case (false, 1): table = [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
    case (false, _): table = [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
    }
    bitRate = table[rateIndex - 1] * 1000
    sampleRate = [44100, 48000, 32000][sampleIndex] >> (mpeg1 ? 0 : versionBits == 2 ? 1 : 2)
    padding = bytes[at + 2] & 0x02 != 0
    channelMode = Int(bytes[at + 3] >> 6)
    protected = bytes[at + 1] & 1 == 0
  }

  /// Samples per channel in one frame: 384 (Layer I), 1152 (Layer II, and Layer III of MPEG-1),
  /// 576 (Layer III of MPEG-2 and 2.5).
  package var samplesPerFrame: Int {
    layer == 1 ? 384 : layer == 2 || version == 3 ? 1152 : 576
  }

  /// The frame's size in bytes, header included.
  package var size: Int {
    if layer == 1 { return (12 * bitRate / sampleRate + (padding ? 1 : 0)) * 4 }
    return samplesPerFrame / 8 * bitRate / sampleRate + (padding ? 1 : 0)
  }

  /// Another frame of the same stream: the same version, layer and sample rate.
  package func sameStream(_ other: MPEGAudioHeader) -> Bool {
    version == other.version && layer == other.layer && sampleRate == other.sampleRate
  }

  /// The frame at `at` (whose header this is) is a Xing/Info or VBRI frame: an encoder's table,
  /// not audio.
  func isTagFrame(_ data: BlockReader, at: Int) -> Bool {
    let sideInfo =
      version == 3 ? (channelMode == 3 ? 17 : 32) : (channelMode == 3 ? 9 : 17)
    // After the side information; encoders write it there whether or not a CRC follows the
    // header (libavformat looks only there), some after the CRC.
    let places = protected ? [at + 4 + sideInfo, at + 6 + sideInfo] : [at + 4 + sideInfo]
    func tag(_ offset: Int) -> String? {
      guard offset + 4 <= data.count else { return nil }
      return String(decoding: data.slice(offset, 4), as: UTF8.self)
    }
    return places.contains { tag($0) == "Xing" || tag($0) == "Info" } || tag(at + 36) == "VBRI"
  }
}

/// The MPEG audio frames of a stream of bytes, counted by walking their headers (each frame's
/// header states its size, where the next one starts), as a player's parser reads them and
/// independently of libavformat's demuxer:
/// - a Xing/Info or VBRI frame is the encoder's table, not audio, even when it is cut short (a
///   trimmed first frame: the next header comes before its stated end);
/// - bytes between frames that start no chain of frames (a cut frame, junk) are skipped, the
///   walk resyncing on the next header that starts one;
/// - a last frame cut by the end of the data is a frame (FFmpeg's decoder outputs one from it),
///   and what follows the last frame that is not a tag (ID3v1 `TAG`, APEv2 `APETAGEX`,
///   Lyrics3) is trailing data.
package struct MPEGAudioFrames: Equatable {
  /// Audio frames (not counting a Xing/Info/VBRI frame).
  package var frames: Int64 = 0
  /// The first audio frame's header facts.
  package var samplesPerFrame: Int64 = 0
  package var sampleRate: Int64 = 0
  /// The first frame was a Xing/Info/VBRI frame.
  package var tagFrame = false
  /// Bytes after the last frame that are neither a frame nor a known tag.
  package var trailingBytes: Int64 = 0
  /// Bytes between the first and the last frame that were no frame (skipped in a resync).
  package var skippedBytes: Int64 = 0

  /// Samples per channel the frames hold (before any encoder delay or padding is removed).
  package var samples: Int64 { frames * samplesPerFrame }

  /// Walks the frames of an MP3 file (after its ID3v2 tag), read through its own descriptor in
  /// blocks. Nil when the source is not a regular file or holds no chain of frames.
  package static func read(_ source: ByteSource) -> MPEGAudioFrames? {
    guard let size = source.size else { return nil }
    var start = 0
    let id3 = source.bytes(at: 0, count: 10)
    if id3.count == 10, id3[0] == 0x49, id3[1] == 0x44, id3[2] == 0x33 {  // "ID3"
      let tagSize = id3[6...9].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
      start = 10 + tagSize + (id3[5] & 0x10 != 0 ? 10 : 0)
    }
    let data = BlockReader(size: Int(size)) { source.bytes(at: UInt64($0), count: $1) }
    return walk(data, from: start)
  }

  /// Walks the frames of `data` from `start`. Nil when no chain of frames is found.
  package static func walk(_ bytes: [UInt8], from start: Int = 0) -> MPEGAudioFrames? {
    walk(BlockReader(bytes), from: start)
  }

  /// Walks the frames of `data` from `start`. Nil when no chain of frames is found.
  static func walk(_ data: BlockReader, from start: Int) -> MPEGAudioFrames? {
    var result = MPEGAudioFrames()
    var first: MPEGAudioHeader?
    var at = start
    var lastEnd: Int?
    var sawFrame = false
    /// A frame starts a chain here: its header is valid (and of the stream), and the next one
    /// (of the same stream) starts where it ends, or the data ends there.
    func startsChain(_ offset: Int) -> MPEGAudioHeader? {
      guard let header = MPEGAudioHeader(data, at: offset),
        first.map({ header.sameStream($0) }) ?? true
      else { return nil }
      let next = offset + header.size
      if next == data.count { return header }
      // A frame that follows the one before it exactly continues the chain when it is whole,
      // whatever follows it (the last frame before trailing bytes).
      if offset == lastEnd, sawFrame || result.tagFrame, next < data.count { return header }
      guard let following = MPEGAudioHeader(data, at: next), following.sameStream(header)
      else { return nil }
      return header
    }
    while at + 4 <= data.count {
      guard let header = startsChain(at) else {
        // A cut last frame, trailing bytes, or junk before the next chain: find that chain.
        if let header = MPEGAudioHeader(data, at: at), first.map({ header.sameStream($0) }) ?? true,
          at + header.size > data.count, sawFrame, at == lastEnd
        {
          // A last frame cut by the end of the data: FFmpeg's decoder still outputs a frame of
          // it (a file cut short plays to its end).
          result.frames += 1
          lastEnd = data.count
          break
        }
        at += 1
        continue
      }
      if let lastEnd, at > lastEnd { result.skippedBytes += Int64(at - lastEnd) }
      if first == nil {
        first = header
        result.samplesPerFrame = Int64(header.samplesPerFrame)
        result.sampleRate = Int64(header.sampleRate)
        if header.isTagFrame(data, at: at) {
          result.tagFrame = true
          lastEnd = at + header.size
          at += header.size
          continue
        }
      } else if !sawFrame, result.tagFrame == false, header.isTagFrame(data, at: at) {
        result.tagFrame = true
        lastEnd = at + header.size
        at += header.size
        continue
      }
      sawFrame = true
      result.frames += 1
      lastEnd = at + header.size
      at += header.size
    }
    // A trimmed tag frame: its stated size runs into the first audio frame, so the walk above
    // resynced inside it; the bytes it skipped there are the tag frame's, not a gap.
    guard first != nil, let lastEnd else { return nil }
    if lastEnd < data.count { result.trailingBytes = Int64(Self.untagged(data, from: lastEnd)) }
    return result
  }

  /// The bytes from `offset` to the end that are not ID3v1 (`TAG`, 128 bytes), APEv2
  /// (`APETAGEX` footer) or Lyrics3 tags.
  static func untagged(_ data: BlockReader, from offset: Int) -> Int {
    var end = data.count
    func has(_ text: String, at position: Int) -> Bool {
      let bytes = Array(text.utf8)
      guard position >= offset, position + bytes.count <= data.count else { return false }
      return data.slice(position, bytes.count) == bytes
    }
    func byte(_ at: Int) -> Int { Int(data.slice(at, 1).first ?? 0) }
    if end - offset >= 128, has("TAG", at: end - 128) { end -= 128 }
    if end - offset >= 32, has("APETAGEX", at: end - 32) {
      let size = byte(end - 20) | byte(end - 19) << 8 | byte(end - 18) << 16
      end = max(offset, end - size - (byte(end - 9) & 0x80 != 0 ? 32 : 0))
    }
    if end - offset >= 15, has("LYRICS200", at: end - 9) || has("LYRICSEND", at: end - 9),
      let start = (offset..<end).first(where: { has("LYRICSBEGIN", at: $0) })
    {
      end = start
    }
    return max(0, end - offset)
  }
}

/// Bytes of a file or an array, read in blocks of 1 MiB through a one-block cache: a walk over
/// frames moves forward, and reads a few bytes at a time.
final class BlockReader {
  let count: Int
  private let read: (Int, Int) -> [UInt8]
  private var block: [UInt8] = []
  private var blockStart = 0
  private static let blockSize = 1 << 20

  init(size: Int, read: @escaping (Int, Int) -> [UInt8]) {
    count = size
    self.read = read
  }

  convenience init(_ bytes: [UInt8]) {
    self.init(size: bytes.count) { Array(bytes[$0..<min(bytes.count, $0 + $1)]) }
  }

  /// `length` bytes at `offset` (fewer at the end).
  func slice(_ offset: Int, _ length: Int) -> [UInt8] {
    guard offset >= 0, length > 0, offset < count else { return [] }
    let end = min(count, offset + length)
    if offset < blockStart || end > blockStart + block.count {
      blockStart = offset
      block = read(offset, max(Self.blockSize, length))
    }
    let from = offset - blockStart
    return Array(block[from..<min(block.count, from + (end - offset))])
  }
}

/// Counts the MPEG audio frames in a stream's packets, in order, as their headers chain them
/// (a frame may span packets: the bytes it has left are skipped at the next packet's start).
/// For containers whose timestamps do not count samples (AVI audio stored as bytes, with a
/// header's byte rate that VBR frames do not keep).
package struct MPEGAudioFrameCounter: Sendable {
  /// Frames found, and the samples (per channel) they hold.
  package private(set) var frames: Int64 = 0
  package private(set) var samples: Int64 = 0
  /// The first frame's sample rate.
  package private(set) var sampleRate: Int64 = 0
  private var carry = 0
  private var first: MPEGAudioHeader?

  package init() {}

  /// Adds one packet's bytes.
  package mutating func add(_ bytes: UnsafeRawBufferPointer) {
    guard carry < bytes.count else {
      carry -= bytes.count
      return
    }
    var at = carry
    while at + 4 <= bytes.count {
      let header = MPEGAudioHeader(header: [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
      guard let header, first.map({ header.sameStream($0) }) ?? true else {
        at += 1
        continue
      }
      if first == nil {
        first = header
        sampleRate = Int64(header.sampleRate)
      }
      frames += 1
      samples += Int64(header.samplesPerFrame)
      at += header.size
    }
    carry = Swift.max(0, at - bytes.count)
  }
}
