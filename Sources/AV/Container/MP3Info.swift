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
    guard source.size != nil else { return nil }
    var offset: UInt64 = 0
    let id3 = source.bytes(at: 0, count: 10)
    if id3.count == 10, id3[0] == 0x49, id3[1] == 0x44, id3[2] == 0x33 {  // "ID3"
      let size = id3[6...9].reduce(UInt64(0)) { $0 << 7 | UInt64($1 & 0x7F) }
      offset = 10 + size + (id3[5] & 0x10 != 0 ? 10 : 0)  // footer flag
    }
    // The first frame sync within a few bytes of padding after the tag.
    let window = source.bytes(at: offset, count: 4096)
    guard let sync = (0..<max(0, window.count - 4)).first(where: { isFrameHeader(window, $0) })
    else { return nil }
    let header = window[sync..<(sync + 4)].map { UInt32($0) }.reduce(0) { $0 << 8 | $1 }
    let versionBits = (header >> 19) & 3  // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
    let channelMode = (header >> 6) & 3
    let rateIndex = Int((header >> 10) & 3)
    let mpeg1 = versionBits == 3
    let rates: [Int64] = [44100, 48000, 32000]
    let sampleRate = rates[rateIndex] / (mpeg1 ? 1 : versionBits == 2 ? 2 : 4)
    let sideInfo = mpeg1 ? (channelMode == 3 ? 17 : 32) : (channelMode == 3 ? 9 : 17)
    let crc = header & 0x10000 == 0 ? 2 : 0
    let tagAt = sync + 4 + crc + sideInfo
    let bytes = source.bytes(at: offset + UInt64(tagAt), count: 160)
    guard bytes.count >= 8 else { return nil }
    let tag = String(decoding: bytes[0..<4], as: UTF8.self)
    guard tag == "Xing" || tag == "Info" else { return nil }
    let flags = BoxLayout.int(bytes, 4, 4)
    guard flags & 1 != 0 else { return nil }  // no frame count
    let frames = BoxLayout.int(bytes, 8, 4)
    if flags & 2 != 0, let size = source.size {
      // A Xing byte count much smaller than the file: MP3s joined byte for byte, the tag
      // describes the first only (FFmpeg's mp3dec then falls back to the bit rate, as we do).
      let declared = BoxLayout.int(bytes, 12, 4)
      let actual = size - Int64(offset) - Int64(sync)
      let (low, high) = (min(declared, actual), max(declared, actual))
      if declared > 0, high - low > low >> 4 { return nil }
    }
    var info = MP3Info(
      frames: frames, samplesPerFrame: mpeg1 ? 1152 : 576, sampleRate: sampleRate, delay: nil,
      padding: nil)
    // The LAME extension follows the Xing fields: frames(4) bytes(4) toc(100) quality(4).
    var at = 8 + 4
    if flags & 2 != 0 { at += 4 }
    if flags & 4 != 0 { at += 100 }
    if flags & 8 != 0 { at += 4 }
    if bytes.count >= at + 24 {
      let encoder = String(decoding: bytes[at..<(at + 4)], as: UTF8.self)
      if encoder == "LAME" || encoder == "Lavf" || encoder == "Lavc" {
        let packed = BoxLayout.int(bytes, at + 21, 3)
        info.delay = packed >> 12
        info.padding = packed & 0xFFF
      }
    }
    return info
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
