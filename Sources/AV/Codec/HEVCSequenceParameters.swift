import OutputKit
import MediaCore
/// What an HEVC sequence parameter set says about interlacing, read from a stream's extradata
/// (`hvcC`, or Annex B start codes) without opening a decoder (H.265 7.3.2.2, 7.3.3, E.2.1):
///
/// - `general_progressive_source_flag` and `general_interlaced_source_flag` of the profile, tier
///   and level: the source's scan type (1, 0: progressive; 0, 1: interlaced; 1, 1: stated per
///   picture in SEI; 0, 0: unknown);
/// - the VUI's `field_seq_flag`: every picture is a field;
/// - the VUI's `frame_field_info_present_flag`: picture timing SEI messages carry each picture's
///   `pic_struct` (a frame, a field, a frame of two fields), which FFmpeg's decoder reads.
package struct HEVCSequenceParameters: Equatable {
  /// `general_progressive_source_flag`.
  package var progressiveSource: Bool
  /// `general_interlaced_source_flag`.
  package var interlacedSource: Bool
  /// `field_seq_flag` (false without VUI).
  package var fieldSequence: Bool
  /// `frame_field_info_present_flag` (false without VUI).
  package var frameFieldInfoPresent: Bool

  /// Whether the pictures are interlaced, when the parameter set alone says so: fields
  /// (`field_seq_flag`), or a source the profile calls interlaced and not progressive; false
  /// when the pictures are frames and nothing in the stream describes fields (no picture timing
  /// field information, and the source is not called interlaced). Nil when each picture's SEI
  /// decides (`frame_field_info_present_flag` without either answer above).
  package var interlaced: Bool? {
    if fieldSequence { return true }
    if interlacedSource && !progressiveSource { return true }
    if progressiveSource && !interlacedSource { return false }
    return frameFieldInfoPresent ? nil : false
  }

  /// The first SPS in `extradata`; nil when there is none or it does not parse.
  package init?(extradata: [UInt8]) {
    guard let nal = Self.firstSPS(extradata) else { return nil }
    var bits = BitReader(NALUnits.removingEmulationPrevention(nal))
    // NAL unit header: forbidden_zero_bit, nal_unit_type (33), nuh_layer_id, temporal_id.
    guard let header = bits.read(16), (header >> 9) & 0x3F == 33 else { return nil }
    guard bits.read(4) != nil, let maxSubLayersMinus1 = bits.read(3), bits.read(1) != nil else {
      return nil
    }
    // profile_tier_level(1, sps_max_sub_layers_minus1)
    guard bits.skip(2 + 1 + 5 + 32), let progressive = bits.read(1), let interlaced = bits.read(1),
      bits.skip(2 + 43 + 1 + 8)
    else { return nil }
    progressiveSource = progressive == 1
    interlacedSource = interlaced == 1
    var profilePresent: [Bool] = []
    var levelPresent: [Bool] = []
    for _ in 0..<maxSubLayersMinus1 {
      guard let profile = bits.read(1), let level = bits.read(1) else { return nil }
      profilePresent.append(profile == 1)
      levelPresent.append(level == 1)
    }
    if maxSubLayersMinus1 > 0 {
      guard bits.skip(2 * (8 - Int(maxSubLayersMinus1))) else { return nil }
    }
    for layer in 0..<Int(maxSubLayersMinus1) {
      if profilePresent[layer] { guard bits.skip(88) else { return nil } }
      if levelPresent[layer] { guard bits.skip(8) else { return nil } }
    }
    guard bits.readUE() != nil, let chroma = bits.readUE() else { return nil }  // sps id, chroma
    if chroma == 3 { guard bits.skip(1) else { return nil } }
    guard bits.readUE() != nil, bits.readUE() != nil, let window = bits.read(1) else { return nil }
    if window == 1 { for _ in 0..<4 { guard bits.readUE() != nil else { return nil } } }
    // bit depths, log2_max_pic_order_cnt_lsb_minus4
    guard bits.readUE() != nil, bits.readUE() != nil, let pocBits = bits.readUE(), pocBits <= 12,
      let orderingInfo = bits.read(1)
    else { return nil }
    for _ in (orderingInfo == 1 ? 0 : maxSubLayersMinus1)...maxSubLayersMinus1 {
      for _ in 0..<3 { guard bits.readUE() != nil else { return nil } }
    }
    // coding and transform block sizes, transform hierarchy depths
    for _ in 0..<6 { guard bits.readUE() != nil else { return nil } }
    guard let scaling = bits.read(1) else { return nil }
    if scaling == 1 {
      guard let present = bits.read(1) else { return nil }
      if present == 1 { guard Self.skipScalingListData(&bits) else { return nil } }
    }
    guard bits.skip(2), let pcm = bits.read(1) else { return nil }  // amp, sao, pcm
    if pcm == 1 {
      guard bits.skip(8), bits.readUE() != nil, bits.readUE() != nil, bits.skip(1) else {
        return nil
      }
    }
    guard let sets = bits.readUE(), sets <= 64 else { return nil }
    var deltaPictures: [Int] = []
    for index in 0..<Int(sets) {
      guard let count = Self.shortTermReferenceSet(&bits, index: index, counts: deltaPictures)
      else { return nil }
      deltaPictures.append(count)
    }
    guard let longTerm = bits.read(1) else { return nil }
    if longTerm == 1 {
      guard let count = bits.readUE(), count <= 32 else { return nil }
      for _ in 0..<count { guard bits.skip(Int(pocBits) + 4 + 1) else { return nil } }
    }
    guard bits.skip(2), let vui = bits.read(1) else { return nil }  // temporal mvp, smoothing
    guard vui == 1 else {
      fieldSequence = false
      frameFieldInfoPresent = false
      return
    }
    guard let aspect = bits.read(1) else { return nil }
    if aspect == 1 {
      guard let idc = bits.read(8) else { return nil }
      if idc == 255 { guard bits.skip(32) else { return nil } }
    }
    guard let overscan = bits.read(1) else { return nil }
    if overscan == 1 { guard bits.skip(1) else { return nil } }
    guard let signal = bits.read(1) else { return nil }
    if signal == 1 {
      guard bits.skip(4), let colour = bits.read(1) else { return nil }
      if colour == 1 { guard bits.skip(24) else { return nil } }
    }
    guard let chromaLocation = bits.read(1) else { return nil }
    if chromaLocation == 1 { guard bits.readUE() != nil, bits.readUE() != nil else { return nil } }
    guard bits.skip(1), let fields = bits.read(1), let frameFieldInfo = bits.read(1) else {
      return nil
    }
    fieldSequence = fields == 1
    frameFieldInfoPresent = frameFieldInfo == 1
  }

  /// Skips `scaling_list_data()` (7.3.4).
  private static func skipScalingListData(_ bits: inout BitReader) -> Bool {
    for size in 0..<4 {
      var matrix = 0
      while matrix < 6 {
        guard let predicted = bits.read(1) else { return false }
        if predicted == 0 {
          guard bits.readUE() != nil else { return false }
        } else {
          if size > 1 { guard bits.readSE() != nil else { return false } }
          for _ in 0..<min(64, 1 << (4 + (size << 1))) {
            guard bits.readSE() != nil else { return false }
          }
        }
        matrix += size == 3 ? 3 : 1
      }
    }
    return true
  }

  /// Reads `st_ref_pic_set(index)` (7.3.7) and returns its number of delta pictures
  /// (`NumDeltaPocs`), which a set predicted from it needs; `counts` are the earlier sets'.
  private static func shortTermReferenceSet(
    _ bits: inout BitReader, index: Int, counts: [Int]
  ) -> Int? {
    var predicted: UInt32 = 0
    if index != 0 { guard let flag = bits.read(1) else { return nil }; predicted = flag }
    if predicted == 1 {
      // In the SPS the set is predicted from the one before it (delta_idx_minus1 is absent).
      guard bits.skip(1), bits.readUE() != nil, let reference = counts.last else { return nil }
      var count = 0
      for _ in 0...reference {
        guard let used = bits.read(1) else { return nil }
        var useDelta: UInt32 = 1
        if used == 0 { guard let flag = bits.read(1) else { return nil }; useDelta = flag }
        if used == 1 || useDelta == 1 { count += 1 }
      }
      return count
    }
    guard let negative = bits.readUE(), let positive = bits.readUE(), negative <= 16,
      positive <= 16
    else { return nil }
    for _ in 0..<(negative + positive) {
      guard bits.readUE() != nil, bits.skip(1) else { return nil }
    }
    return Int(negative + positive)
  }

  /// The first SPS NAL unit (type 33): from an `hvcC` record (version 1: 22 bytes of header,
  /// then arrays of NAL units by type), or after a start code.
  private static func firstSPS(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
    if bytes.count > 23, bytes[0] == 1 {
      var offset = 23
      for _ in 0..<Int(bytes[22]) {
        guard offset + 3 <= bytes.count else { return nil }
        let type = bytes[offset] & 0x3F
        let count = Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
        offset += 3
        for _ in 0..<count {
          guard offset + 2 <= bytes.count else { return nil }
          let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
          offset += 2
          guard offset + length <= bytes.count else { return nil }
          if type == 33 { return bytes[offset..<(offset + length)] }
          offset += length
        }
      }
      return nil
    }
    return NALUnits.annexB(bytes).first { $0.count > 1 && ($0.first! >> 1) & 0x3F == 33 }
  }
}
