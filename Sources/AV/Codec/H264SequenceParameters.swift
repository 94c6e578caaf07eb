import OutputKit
import MediaCore
/// What an H.264 sequence parameter set says about the picture structure, read from a stream's
/// extradata (`avcC`, or Annex B start codes) without opening a decoder: whether every picture is
/// a progressive frame (`frame_mbs_only_flag`), and the coded size in macroblocks. Probing many
/// files then decodes a first frame only for streams that may be interlaced.
package struct H264SequenceParameters: Equatable {
  /// `frame_mbs_only_flag`: every picture is a progressive frame (no fields, no MBAFF).
  package var frameMacroblocksOnly: Bool
  /// The coded width in pixels (`pic_width_in_mbs` × 16).
  package var codedWidth: Int
  /// The coded height in pixels (map units × 16, doubled for field-capable streams).
  package var codedHeight: Int

  /// The first SPS in `extradata`; nil when there is none or it does not parse.
  package init?(extradata: UnsafeBufferPointer<UInt8>) {
    guard let nal = Self.firstSPS(extradata) else { return nil }
    var bits = BitReader(Self.removingEmulationPrevention(nal))
    guard (bits.read(8) ?? 0) & 0x1F == 7, let profile = bits.read(8) else { return nil }
    _ = bits.read(16)  // constraint flags, reserved, level_idc
    guard bits.readUE() != nil else { return nil }  // seq_parameter_set_id
    if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
      guard let chroma = bits.readUE() else { return nil }
      if chroma == 3 { _ = bits.read(1) }  // separate_colour_plane_flag
      guard bits.readUE() != nil, bits.readUE() != nil, bits.read(1) != nil else { return nil }
      guard let scaling = bits.read(1) else { return nil }
      if scaling == 1 {
        for list in 0..<(chroma == 3 ? 12 : 8) {
          guard let present = bits.read(1) else { return nil }
          if present == 1 { guard bits.skipScalingList(list < 6 ? 16 : 64) else { return nil } }
        }
      }
    }
    // log2_max_frame_num_minus4, then pic_order_cnt_type.
    guard bits.readUE() != nil, let pocType = bits.readUE() else { return nil }
    if pocType == 0 {
      guard bits.readUE() != nil else { return nil }
    } else if pocType == 1 {
      guard bits.read(1) != nil, bits.readSE() != nil, bits.readSE() != nil,
        let cycle = bits.readUE(), cycle < 256
      else { return nil }
      for _ in 0..<cycle { guard bits.readSE() != nil else { return nil } }
    }
    guard bits.readUE() != nil, bits.read(1) != nil,  // max_num_ref_frames, gaps
      let widthInMbs = bits.readUE(), let heightInMapUnits = bits.readUE(),
      let frameMbsOnly = bits.read(1)
    else { return nil }
    frameMacroblocksOnly = frameMbsOnly == 1
    codedWidth = (Int(widthInMbs) + 1) * 16
    codedHeight = (Int(heightInMapUnits) + 1) * 16 * (frameMbsOnly == 1 ? 1 : 2)
  }

  /// The first SPS NAL unit: from an `avcC` record (version 1), or after a start code.
  private static func firstSPS(_ data: UnsafeBufferPointer<UInt8>) -> ArraySlice<UInt8>? {
    let bytes = Array(data)
    if bytes.count > 8, bytes[0] == 1 {
      let count = Int(bytes[5] & 0x1F)
      guard count > 0 else { return nil }
      let length = Int(bytes[6]) << 8 | Int(bytes[7])
      guard bytes.count >= 8 + length, length > 0 else { return nil }
      return bytes[8..<(8 + length)]
    }
    return NALUnits.annexB(bytes).first { $0.first.map { $0 & 0x1F == 7 } ?? false }
  }

  /// The RBSP: every 0x03 that follows two zero bytes removed.
  private static func removingEmulationPrevention(_ nal: ArraySlice<UInt8>) -> [UInt8] {
    NALUnits.removingEmulationPrevention(nal)
  }
}
