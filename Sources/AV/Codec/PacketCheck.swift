import OutputKit
import MediaCore
import CFFmpeg

/// What a packet's own bytes say about the frame a decoder makes of it, where the demuxer says
/// nothing: `--scan` reads the packets without decoding them, and for these codecs a few bytes
/// tell whether FFmpeg's decoder outputs a frame.
package enum PacketCheck: Sendable {
  /// FLAC: a frame starts with the sync code 0xFFF8 or 0xFFF9 and ends with a CRC-16 of the
  /// whole frame. A packet that fails either is not a whole frame: one cut by the end of the
  /// file, or metadata text the parser framed (a VORBIS_COMMENT longer than its header says).
  /// FFmpeg's decoder rejects both ("invalid residual", "invalid sync code").
  case flac
  /// AC-3 and E-AC-3: a frame starts with the sync word 0x0B77 (0x770B byte-swapped, which the
  /// decoder also reads). A packet that does not is the tail of a frame cut off when the file was
  /// made (an AVI's first chunk); the decoder rejects it. A packet shorter than the frame size its
  /// header states (ATSC A/52 Table 5.18 from `frmsizecod` and `fscod`; E-AC-3's `frmsiz`, Annex
  /// E) is a frame cut by the end of the file: no frame (FFmpeg's decoder conceals it into a
  /// frame of its own making, "incomplete frame"; by the specification there is none).
  case ac3
  /// AAC with ADTS headers (ADTS files, MPEG-TS: no `extradata`): a packet shorter than the
  /// header's `aac_frame_length` (ISO/IEC 13818-7 6.2.1) is a frame cut by the end of the file:
  /// no frame (FFmpeg's decoder: "Input buffer exhausted before END element found").
  case adts
  /// H.264 with length-prefixed NAL units (`avcC`, MP4 and Matroska): a sample holding no slice
  /// (NAL types 1-5), such as a lone end-of-sequence NAL, is no picture: FFmpeg's decoder says
  /// "missing picture in access unit" and outputs no frame.
  case h264(lengthSize: Int)
  /// MPEG audio (Layers I–III): a frame starts with a header of 11 sync bits and valid version,
  /// layer, bit rate and sample rate fields (ISO/IEC 11172-3 2.4.1.3). A packet without one (a
  /// fragment after the last frame, shorter than a header; a damaged header) is presented by the
  /// demuxer but FFmpeg's decoder says "Header missing" and outputs nothing from it.
  case mpegAudio

  /// What the decoder makes of one packet.
  package enum Verdict: Equatable, Sendable {
    /// A frame the decoder outputs.
    case frame
    /// A packet the demuxer presents (it counts as a frame) that the decoder outputs nothing
    /// from: it neither starts nor ends the span.
    case undecodable
    /// Not a frame at all: not counted, not presented.
    case noFrame
  }

  /// The check for a stream's codec, nil when its packets are taken as they come.
  package init?(_ stream: StreamView) {
    switch stream.codecName {
    case "flac": self = .flac
    case "mp1", "mp2", "mp3": self = .mpegAudio
    case "ac3", "eac3": self = .ac3
    case "aac" where stream.extradata.isEmpty: self = .adts
    case "h264":
      let extradata = stream.extradata
      guard extradata.count >= 7, extradata[0] == 1 else { return nil }  // Annex B: no lengths
      self = .h264(lengthSize: Int(extradata[4] & 3) + 1)
    default: return nil
    }
  }

  /// The verdict on a packet's payload.
  package func verdict(_ bytes: UnsafeRawBufferPointer) -> Verdict {
    switch self {
    case .flac:
      guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] & 0xFE == 0xF8,
        let base = bytes.baseAddress
      else { return .undecodable }
      let crc = av_crc(
        av_crc_get_table(AV_CRC_16_ANSI), 0, base.assumingMemoryBound(to: UInt8.self),
        bytes.count)
      return crc == 0 ? .frame : .undecodable
    case .ac3:
      guard bytes.count >= 2 else { return .undecodable }
      let sync = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
      guard sync == 0x0B77 || sync == 0x770B else { return .undecodable }
      guard sync == 0x0B77, let size = Self.ac3FrameSize(bytes) else { return .frame }
      return bytes.count < size ? .noFrame : .frame
    case .adts:
      guard bytes.count >= 7, bytes[0] == 0xFF, bytes[1] & 0xF6 == 0xF0 else { return .frame }
      let length = Int(bytes[3] & 0x03) << 11 | Int(bytes[4]) << 3 | Int(bytes[5]) >> 5
      return length >= 7 && bytes.count < length ? .noFrame : .frame
    case .mpegAudio:
      guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0,
        bytes[1] & 0x18 != 0x08,  // version: not reserved
        bytes[1] & 0x06 != 0,  // layer: not reserved
        bytes[2] & 0xF0 != 0xF0,  // bit rate index: not "bad"
        bytes[2] & 0x0C != 0x0C  // sample rate index: not reserved
      else { return .undecodable }
      return .frame
    case .h264(let lengthSize):
      var at = 0
      while at + lengthSize < bytes.count {
        let length = (0..<lengthSize).reduce(0) { $0 << 8 | Int(bytes[at + $1]) }
        at += lengthSize
        guard length > 0, at + length <= bytes.count else { return .frame }  // not ours to judge
        if (1...5).contains(bytes[at] & 0x1F) { return .frame }
        at += length
      }
      return at == bytes.count ? .noFrame : .frame
    }
  }

  /// An AC-3 or E-AC-3 frame's size in bytes from its header, nil when the header does not say
  /// (a reserved sample rate or size code). AC-3 (`bsid` ≤ 10): A/52 Table 5.18, 16-bit words per
  /// `frmsizecod` at 48, 44.1 and 32 kHz (the 44.1 kHz sizes alternate by one word). E-AC-3
  /// (`bsid` 11–16): `(frmsiz + 1) * 2`.
  static func ac3FrameSize(_ bytes: UnsafeRawBufferPointer) -> Int? {
    guard bytes.count >= 6 else { return nil }
    let bsid = Int(bytes[5] >> 3)
    if bsid > 10 {
      guard bsid <= 16 else { return nil }
      return ((Int(bytes[2] & 0x07) << 8 | Int(bytes[3])) + 1) * 2
    }
    let code = Int(bytes[4] & 0x3F)
    let rates = [
      32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 576, 640,
    ]
    guard code / 2 < rates.count else { return nil }
    let kbps = rates[code / 2]
    switch bytes[4] >> 6 {
    case 0: return kbps * 2 * 2
    case 1: return (kbps * 96_000 / 44_100 + (code & 1)) * 2
    case 2: return kbps * 3 * 2
    default: return nil
    }
  }
}
