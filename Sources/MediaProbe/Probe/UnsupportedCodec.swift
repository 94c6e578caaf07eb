import AV
import MediaCore

/// A stream whose codec FFmpeg 5.1 can neither decode nor parse, named from the container's own
/// identification (issue 26, class 7): an MPEG-TS `stream_type` or DVB descriptor, an MP4 sample
/// entry's FourCC. Its facts come from the container only: the sample rate and channels an MP4
/// sample entry (or a TS descriptor) states, and, under `--scan`, the access units the
/// transport frames (one PES packet per unit in MPEG-TS, one sample per MP4 sample), which is
/// what libavformat hands out when it has no parser for the codec.
struct UnsupportedCodec: Equatable {
  /// The codec's short name, in FFmpeg's spelling where FFmpeg has one (`mpegh_3d_audio`).
  var name: String
  /// What the container says it is, and where it said so.
  var longName: String
  var type: StreamType
  /// Channels a TS descriptor states (the AC-4 descriptor's channel mode), when it does.
  var channels: Int? = nil

  /// The codec of stream `view`, when FFmpeg has no decoder for it and the container names it;
  /// nil for a stream FFmpeg decodes, or one the container does not identify either.
  static func identify(_ view: StreamView, map: TransportStreamMap?) -> UnsupportedCodec? {
    guard !view.hasDecoder else { return nil }
    if let map, let entry = map.streams[Int(view.containerID)] {
      return transportStream(entry)
    }
    if view.input.formatName.hasPrefix("mov,") {
      return sampleEntry(fourCC(view.codecTag))
    }
    return nil
  }

  /// MPEG-TS: ISO/IEC 13818-1 Table 2-34 `stream_type`s FFmpeg 5.1 does not map, and the DVB
  /// extension descriptors (ETSI EN 300 468 §6.4) that identify PES private data (0x06).
  static func transportStream(_ entry: TransportStreamMap.Entry) -> UnsupportedCodec? {
    switch entry.streamType {
    case 0x2D:
      return UnsupportedCodec(
        name: "mpegh_3d_audio", longName: "MPEG-H 3D Audio (MPEG-TS stream_type 0x2D, main stream)",
        type: .audio)
    case 0x2E:
      return UnsupportedCodec(
        name: "mpegh_3d_audio",
        longName: "MPEG-H 3D Audio (MPEG-TS stream_type 0x2E, auxiliary stream)", type: .audio)
    case 0x33:
      return UnsupportedCodec(
        name: "vvc", longName: "H.266 / VVC (MPEG-TS stream_type 0x33)", type: .video)
    case 0x06:
      if let ac4 = entry.extensionDescriptor(0x7F, 0x15) {
        // AC-4_descriptor: ac4_config_flag, ac4_toc_flag, 6 reserved bits; with the config flag,
        // dialog enhancement (1 bit) and ac4_channel_mode (2 bits: mono, stereo, multichannel).
        var channels: Int?
        if ac4.count >= 2, ac4[0] & 0x80 != 0 {
          switch (ac4[1] >> 5) & 3 {
          case 0: channels = 1
          case 1: channels = 2
          default: channels = nil  // multichannel: how many is not stated
          }
        }
        return UnsupportedCodec(
          name: "ac4", longName: "Dolby AC-4 (MPEG-TS PES private data, DVB AC-4 descriptor)",
          type: .audio, channels: channels)
      }
      if entry.extensionDescriptor(0x7F, 0x21) != nil {
        return UnsupportedCodec(
          name: "dts_uhd",
          longName: "DTS-UHD (MPEG-TS PES private data, DVB DTS-UHD descriptor)", type: .audio)
      }
      return nil
    default:
      return nil
    }
  }

  /// MP4 sample entries (ISO/IEC 23008-3 §20 `mha1`/`mha2`/`mhm1`/`mhm2`, ETSI TS 103 190-2
  /// `ac-4`, ISO/IEC 14496-15 `vvc1`/`vvi1`, ETSI TS 103 491 `dtsx`).
  static func sampleEntry(_ fourCC: String?) -> UnsupportedCodec? {
    guard let fourCC else { return nil }
    let entry = "MP4 sample entry '\(fourCC)'"
    switch fourCC {
    case "mha1", "mha2", "mhm1", "mhm2":
      return UnsupportedCodec(
        name: "mpegh_3d_audio", longName: "MPEG-H 3D Audio (\(entry))", type: .audio)
    case "ac-4":
      return UnsupportedCodec(name: "ac4", longName: "Dolby AC-4 (\(entry))", type: .audio)
    case "dtsx":
      return UnsupportedCodec(name: "dts_uhd", longName: "DTS-UHD (\(entry))", type: .audio)
    case "vvc1", "vvi1":
      return UnsupportedCodec(name: "vvc", longName: "H.266 / VVC (\(entry))", type: .video)
    default:
      return nil
    }
  }

  /// The FourCC of an MP4 sample entry as libavformat stores it (little-endian in `codec_tag`).
  static func fourCC(_ tag: UInt32) -> String? {
    guard tag != 0 else { return nil }
    let bytes = (0..<4).map { UInt8((tag >> (8 * $0)) & 0xFF) }
    guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }
}
