import AV
import MediaCore

/// What the output says about its colours and how each source gets there. A source's matrix
/// and range come from its tags; an untagged source goes through without a matrix conversion;
/// a tagged source whose matrix differs from the output's stated one is converted to it; the
/// output states only what its sources state:
///
/// - no video source states a matrix: the output states none (its pictures are the sources'
///   values, unconverted; R'G'B' stills are converted with BT.601, libswscale's and the ffmpeg
///   CLI's default);
/// - every source that states one states the same: the output states it (and the primaries and
///   transfer when those agree too);
/// - they differ: the output states BT.709 and the others are converted to it.
///
/// Every output is 4:2:0 limited range (full-range sources are converted).
struct ColorPlan: Sendable, Equatable {
  /// The tags the encoder writes.
  var output: ColorTags
  /// The matrix pictures are converted into (libswscale's name).
  var matrix: String

  /// The plan for sources tagged `tags` (one per video source; stills included).
  static func decide(_ tags: [ColorTags]) -> ColorPlan {
    let stated = tags.filter { scaleName($0.matrix) != nil }
    let matrices = Set(stated.map { scaleName($0.matrix)! })
    guard let first = stated.first else {
      return ColorPlan(output: .unspecified, matrix: "bt601")
    }
    guard matrices.count == 1 else { return ColorPlan(output: .bt709, matrix: "bt709") }
    let primaries = Set(stated.map(\.primaries)).count == 1 ? first.primaries : .unspecified
    let transfer = Set(stated.map(\.transfer)).count == 1 ? first.transfer : .unspecified
    return ColorPlan(
      output: ColorTags(
        matrix: first.matrix, range: .limited, primaries: primaries, transfer: transfer),
      matrix: scaleName(first.matrix)!)
  }

  /// The `scale` filter's options that convert a picture tagged `tags` in `format` into the
  /// output's matrix, limited range: the source's own matrix when it states one (else the
  /// output's: no conversion), its range (full for `yuvj` formats and full-range tags).
  func scaleOptions(for tags: ColorTags, format: PixelFormat) -> String {
    let input = Self.scaleName(tags.matrix) ?? matrix
    let full = tags.range == .full || format.name.hasPrefix("yuvj")
    return "in_color_matrix=\(input):out_color_matrix=\(matrix)"
      + ":in_range=\(full ? "full" : "limited"):out_range=limited"
  }

  /// libswscale's (the `scale` filter's) name of a Y'CbCr matrix; nil for an unstated one or one
  /// it does not know.
  static func scaleName(_ matrix: ColorMatrix) -> String? {
    switch matrix.name {
    case "bt709": "bt709"
    case "smpte170m", "bt470bg": "bt601"
    case "fcc": "fcc"
    case "smpte240m": "smpte240m"
    case "bt2020nc", "bt2020c": "bt2020"
    default: nil
    }
  }
}
