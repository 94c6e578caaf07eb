/// Writes a codec's numeric level the way people name it.
public enum CodecLevel {
  /// The human form of FFmpeg's `level` for `codec` (FFmpeg's short codec name), or nil when
  /// the level is unknown (FFmpeg's -99) or the codec has no levels.
  ///
  /// - H.264: level_idc / 10 (41 → "4.1", 9 → "1b").
  /// - HEVC: general_level_idc / 30 (153 → "5.1", 120 → "4.0").
  /// - VP9: level / 10 (41 → "4.1").
  /// - AV1: seq_level_idx → major 2 + idx/4, minor idx%4 (8 → "4.0").
  /// - MPEG-4 Part 2: the level number; MPEG-2: Low/Main/High 1440/High.
  public static func name(codec: String, level: Int) -> String? {
    guard level >= 0 else { return nil }
    switch codec {
    case "h264":
      if level == 9 { return "1b" }
      return level > 0 ? "\(level / 10).\(level % 10)" : nil
    case "hevc":
      return level > 0 ? "\(level / 30).\(level % 30 / 3)" : nil
    case "vp9":
      return "\(level / 10).\(level % 10)"
    case "av1":
      return level < 31 ? "\(2 + level / 4).\(level % 4)" : nil  // 31: no level restriction
    case "mpeg4":
      return "\(level)"
    case "mpeg2video":
      return [4: "High", 6: "High 1440", 8: "Main", 10: "Low"][level]
    default:
      return nil
    }
  }
}
