import OutputKit
import MediaCore
/// Finds where the frames of an MPEG audio file (MP1/MP2/MP3) start when junk comes before them
/// (a partial download, a broken tag, bytes of another file): the first offset from which a run
/// of consistent frame headers follows one another, each where the previous frame's length puts
/// it (with the ID3v2 tag right before them, if any). FFmpeg's mp3 demuxer looks for the frames in
/// the first 64 KiB only, and then estimates the duration from the bit rate over the junk too; its
/// probe may pick another demuxer altogether (junk that looks like AMR frames probes as `amrnb`).
/// Even when it finds them, it misses the Xing/LAME frame behind the junk (the frame count, the
/// gapless delay and padding). FFmpeg's ADTS demuxer resynchronizes on its own.
package enum LeadingJunk {
  /// Frame headers that must follow one another for a run to count.
  package static let runLength = 8
  /// How far into the file the frames are looked for.
  package static let searchLimit: Int64 = 4 << 20

  /// How much junk FFmpeg's mp3 demuxer skips by itself (mp3dec.c searches 64 KiB).
  package static let ffmpegSearch: Int64 = 64 << 10

  /// The demuxers whose frames this knows: FFmpeg's `mp3` (MPEG audio layers 1-3).
  package static func knows(_ demuxer: String) -> Bool { demuxer == "mp3" }

  /// The number of junk bytes before the first run of frames of `demuxer`'s format in `source`
  /// (a regular file): 0 when the file starts with a frame run or an ID3v2 tag; nil when no run
  /// lies within the first 4 MiB, or the format is not one this knows.
  package static func length(for demuxer: String, in source: ByteSource) -> Int64? {
    guard knows(demuxer), let size = source.size else { return nil }
    let head = source.bytes(at: 0, count: 3)
    if head == [0x49, 0x44, 0x33] { return 0 }  // "ID3": FFmpeg reads the tag and what follows
    let frame: ([UInt8], Int) -> Frame? = { mpegAudioFrame($0, $1) }
    let chunk = 1 << 16
    var offset: Int64 = 0
    while offset < min(size, searchLimit) {
      // Each chunk with room for a run of the largest frames after its last candidate.
      let bytes = source.bytes(at: UInt64(offset), count: chunk + runLength * 8192)
      if bytes.count < 4 { return nil }
      for at in 0..<min(chunk, bytes.count - 3) where bytes[at] == 0xFF || bytes[at] == 0x49 {
        if bytes[at] == 0x49 {
          // An ID3v2 tag right before the frames belongs to them (its tags are the file's).
          guard let end = id3End(bytes, at), end < bytes.count,
            startsRun(bytes, end, frame: frame, fileEnd: size - offset)
          else { continue }
          return offset + Int64(at)
        }
        if startsRun(bytes, at, frame: frame, fileEnd: size - offset) { return offset + Int64(at) }
      }
      offset += Int64(chunk)
    }
    return nil
  }

  /// Where the ID3v2 tag whose header is at `at` ends (header, size and footer), when it is one.
  package static func id3End(_ bytes: [UInt8], _ at: Int) -> Int? {
    guard at + 10 <= bytes.count, bytes[at + 1] == 0x44, bytes[at + 2] == 0x33,  // "ID3"
      bytes[at + 3] < 0xFF, bytes[at + 4] < 0xFF,
      bytes[(at + 6)...(at + 9)].allSatisfy({ $0 < 0x80 })
    else { return nil }
    let size = bytes[(at + 6)...(at + 9)].reduce(0) { $0 << 7 | Int($1) }
    return at + 10 + size + (bytes[at + 5] & 0x10 != 0 ? 10 : 0)
  }

  /// A frame header's length in bytes and the fields that must stay the same from frame to frame.
  package struct Frame {
    var length: Int
    var constant: UInt32
  }

  /// Whether `runLength` frames follow one another from `at` (or fewer that end exactly at the
  /// end of the file, at least 2).
  private static func startsRun(
    _ bytes: [UInt8], _ at: Int, frame: ([UInt8], Int) -> Frame?, fileEnd: Int64
  ) -> Bool {
    guard let first = frame(bytes, at) else { return false }
    var position = at + first.length
    var count = 1
    while count < runLength {
      if Int64(position) == fileEnd { return count >= 2 }
      guard let next = frame(bytes, position), next.constant == first.constant else {
        return false
      }
      position += next.length
      count += 1
    }
    return true
  }

  /// An MPEG audio frame header (ISO/IEC 11172-3, 13818-3 and MPEG 2.5) at `at`.
  package static func mpegAudioFrame(_ bytes: [UInt8], _ at: Int) -> Frame? {
    guard at >= 0, at + 4 <= bytes.count, bytes[at] == 0xFF, bytes[at + 1] & 0xE0 == 0xE0 else {
      return nil
    }
    let version = Int(bytes[at + 1] >> 3) & 3  // 0: 2.5, 2: 2, 3: 1
    let layer = 4 - Int(bytes[at + 1] >> 1) & 3  // 1, 2, 3 (4: reserved)
    let bitrateIndex = Int(bytes[at + 2] >> 4)
    let rateIndex = Int(bytes[at + 2] >> 2) & 3
    let padding = Int(bytes[at + 2] >> 1) & 1
    guard version != 1, layer != 4, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else {
      return nil
    }
    let mpeg1 = version == 3
    let table: [Int] =
      switch (mpeg1, layer) {
      case (true, 1): [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
      case (true, 2): [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
      case (true, _): [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
      case (false, 1): [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
      case (false, _): [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
      }
    let bitrate = table[bitrateIndex] * 1000
    let sampleRate = [44100, 48000, 32000][rateIndex] >> (mpeg1 ? 0 : version == 2 ? 1 : 2)
    let length =
      switch layer {
      case 1: (12 * bitrate / sampleRate + padding) * 4
      case 2: 144 * bitrate / sampleRate + padding
      default: (mpeg1 ? 144 : 72) * bitrate / sampleRate + padding
      }
    // Sync, version, layer, sample rate and channel mode stay the same.
    let header = bytes[at..<(at + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    return Frame(length: length, constant: header & 0xFFFE_0CC0)
  }
}
