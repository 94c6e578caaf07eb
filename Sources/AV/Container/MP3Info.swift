import OutputKit
import MediaCore
/// What an MP3 file's Xing/Info frame and LAME tag say, read from the first frame after any
/// ID3v2 tag: the number of audio frames, and the encoder delay and padding that gapless players
/// (and FFmpeg's decoder, through skip samples) remove. The Xing frame itself holds no audio.
package struct MP3Info: Equatable {
  /// Audio frames, not counting the Xing/Info frame.
  package var frames: Int64
  /// Samples per frame (1152 for MPEG-1 Layer III, 576 for MPEG-2/2.5).
  package var samplesPerFrame: Int64
  /// The sample rate of the first frame.
  package var sampleRate: Int64
  /// Encoder delay and padding from the LAME tag, when there is one.
  package var delay: Int64?
  package var padding: Int64?

  /// The samples a gapless decoder presents: every frame's, minus the delay and the padding;
  /// never below 0 (a LAME tag whose delay and padding exceed the frames' samples).
  package var presentedSamples: Int64 {
    Swift.max(0, frames * samplesPerFrame - (delay ?? 0) - (padding ?? 0))
  }

  /// Reads the Xing/Info header of the MP3 in `source` (a regular file).
  ///
  /// - Returns: nil when the first frame carries no Xing/Info header with a frame count.
  package static func read(_ source: ByteSource) -> MP3Info? {
    inspect(source).info
  }

  /// The Xing/Info header (nil as `read` gives it) and whether its frame is trimmed: the next
  /// frame starts before the tag frame's stated end (a file cut or edited inside it).
  /// libavformat then skips the tag frame by its stated size, into the first audio frame,
  /// which it loses; when the cut falls inside the tag's fields, what it reads there as a
  /// frame count is the next frame's bytes, and `info` is nil.
  package static func inspect(_ source: ByteSource) -> (info: MP3Info?, trimmed: Bool) {
    guard source.size != nil else { return (nil, false) }
    var offset: UInt64 = 0
    let id3 = source.bytes(at: 0, count: 10)
    if id3.count == 10, id3[0] == 0x49, id3[1] == 0x44, id3[2] == 0x33 {  // "ID3"
      let size = id3[6...9].reduce(UInt64(0)) { $0 << 7 | UInt64($1 & 0x7F) }
      offset = 10 + size + (id3[5] & 0x10 != 0 ? 10 : 0)  // footer flag
    }
    // The first frame sync within a few bytes of padding after the tag.
    let window = source.bytes(at: offset, count: 4096)
    guard let sync = (0..<max(0, window.count - 4)).first(where: { isFrameHeader(window, $0) })
    else { return (nil, false) }
    let header = window[sync..<(sync + 4)].map { UInt32($0) }.reduce(0) { $0 << 8 | $1 }
    let versionBits = (header >> 19) & 3  // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
    let channelMode = (header >> 6) & 3
    let rateIndex = Int((header >> 10) & 3)
    let mpeg1 = versionBits == 3
    let rates: [Int64] = [44100, 48000, 32000]
    let sampleRate = rates[rateIndex] / (mpeg1 ? 1 : versionBits == 2 ? 2 : 4)
    let sideInfo = mpeg1 ? (channelMode == 3 ? 17 : 32) : (channelMode == 3 ? 9 : 17)
    // The tag follows the side information; encoders write it there whether or not a CRC
    // follows the header (libavformat looks only there), some after the CRC.
    let crc = header & 0x10000 == 0 ? 2 : 0
    var tagAt = sync + 4 + sideInfo
    var bytes = source.bytes(at: offset + UInt64(tagAt), count: 160)
    func isTag(_ bytes: [UInt8]) -> Bool {
      guard bytes.count >= 8 else { return false }
      let tag = String(decoding: bytes[0..<4], as: UTF8.self)
      return tag == "Xing" || tag == "Info"
    }
    if !isTag(bytes), crc > 0 {
      tagAt += crc
      bytes = source.bytes(at: offset + UInt64(tagAt), count: 160)
    }
    guard isTag(bytes) else { return (nil, false) }
    // A trimmed tag frame (the file cut, or edited, inside it): the next frame starts before
    // the stated end. Its fields are read only when they lie before that start; otherwise they
    // are the next frame's bytes (a frame count of millions).
    let tagStart = offset + UInt64(sync)
    let next = MPEGAudioHeader(Array(window[sync..<(sync + 4)]), at: 0).flatMap {
      nextChain(source, from: tagStart, frameSize: $0.size, read: Array(window[sync...]))
    }
    let trimmed = next != nil
    /// Whether the next frame starts before `end` bytes of the tag's fields.
    func cut(before end: Int) -> Bool {
      next.map { $0 < tagStart + UInt64(tagAt - sync + end) } ?? false
    }
    guard !cut(before: 12) else { return (nil, true) }  // the flags and frame count
    let flags = BoxLayout.int(bytes, 4, 4)
    guard flags & 1 != 0 else { return (nil, trimmed) }  // no frame count
    let frames = BoxLayout.int(bytes, 8, 4)
    if flags & 2 != 0, let size = source.size {
      // A Xing byte count much smaller than the file: MP3s joined byte for byte, the tag
      // describes the first only (FFmpeg's mp3dec then falls back to the bit rate, as we do).
      let declared = BoxLayout.int(bytes, 12, 4)
      let actual = size - Int64(offset) - Int64(sync)
      let (low, high) = (min(declared, actual), max(declared, actual))
      if declared > 0, high - low > low >> 4 { return (nil, trimmed) }
    }
    var info = MP3Info(
      frames: frames, samplesPerFrame: mpeg1 ? 1152 : 576, sampleRate: sampleRate, delay: nil,
      padding: nil)
    // The LAME extension follows the Xing fields: frames(4) bytes(4) toc(100) quality(4).
    var at = 8 + 4
    if flags & 2 != 0 { at += 4 }
    if flags & 4 != 0 { at += 100 }
    if flags & 8 != 0 { at += 4 }
    var fieldsEnd = at
    if bytes.count >= at + 24 {
      let encoder = String(decoding: bytes[at..<(at + 4)], as: UTF8.self)
      if encoder == "LAME" || encoder == "Lavf" || encoder == "Lavc" {
        let packed = BoxLayout.int(bytes, at + 21, 3)
        info.delay = packed >> 12
        info.padding = packed & 0xFFF
        fieldsEnd = at + 24
      }
    }
    return (cut(before: fieldsEnd) ? nil : info, trimmed)
  }

  /// Where the frame after the tag frame at `start` begins, when it begins before the tag
  /// frame's stated end (`frameSize`): the first offset inside it where a header starts a chain
  /// of two frames of the same stream. Nil when the next frame follows at the stated end.
  /// `read`: the bytes from `start` already read (the first 4 KiB window).
  static func nextChain(
    _ source: ByteSource, from start: UInt64, frameSize: Int, read: [UInt8]
  ) -> UInt64? {
    guard let first = MPEGAudioHeader(read, at: 0) else { return nil }
    let after =
      read.count >= frameSize + 4
      ? Array(read[frameSize..<(frameSize + 4)])
      : source.bytes(at: start + UInt64(frameSize), count: 4)
    if after.count < 4 { return nil }  // the file ends with the tag frame
    if let header = MPEGAudioHeader(after, at: 0), header.sameStream(first) { return nil }
    let tail = source.bytes(at: start, count: frameSize + 4 + 1441 * 2)
    for at in 4..<min(frameSize, tail.count) {
      guard let header = MPEGAudioHeader(tail, at: at), header.sameStream(first),
        let following = MPEGAudioHeader(tail, at: at + header.size), following.sameStream(first)
      else { continue }
      return start + UInt64(at)
    }
    return nil
  }

  private static func isFrameHeader(_ bytes: [UInt8], _ at: Int) -> Bool {
    guard at + 4 <= bytes.count, bytes[at] == 0xFF, bytes[at + 1] & 0xE0 == 0xE0 else {
      return false
    }
    let layer = (bytes[at + 1] >> 1) & 3
    let version = (bytes[at + 1] >> 3) & 3
    let bitrate = bytes[at + 2] >> 4
    let rate = (bytes[at + 2] >> 2) & 3
    return layer == 1 && version != 1 && bitrate != 0 && bitrate != 15 && rate != 3
  }
}
