/// An H.264 level's limits on picture size and decoding speed, from ITU-T Rec. H.264 (08/2021),
/// Annex A, Table A-1 "Level limits" (<https://www.itu.int/rec/T-REC-H.264>): `MaxMBPS` (max
/// macroblock processing rate, MB/s) and `MaxFS` (max frame size, MBs). Clause A.3.1 items f–h
/// (A.3.2 for Main and High) bound a frame to `MaxFS` macroblocks and each side to
/// `sqrt(8 × MaxFS)` macroblocks; item a bounds the rate to `MaxMBPS` macroblocks a second.
public struct H264Level: Sendable, Equatable {
  /// The level as mediaprobe reports it and ffmpeg's `-level` takes it (`4.0`, `4.2`).
  public var name: String
  /// `MaxMBPS`: macroblocks a second.
  public var maxMacroblocksPerSecond: Int
  /// `MaxFS`: macroblocks a frame.
  public var maxFrameMacroblocks: Int

  /// Table A-1, in order. Level 1b (the same size and speed as level 1, twice the bit rate) is
  /// left out: size and rate alone never need it.
  public static let table: [H264Level] = [
    ("1.0", 1_485, 99), ("1.1", 3_000, 396), ("1.2", 6_000, 396), ("1.3", 11_880, 396),
    ("2.0", 11_880, 396), ("2.1", 19_800, 792), ("2.2", 20_250, 1_620), ("3.0", 40_500, 1_620),
    ("3.1", 108_000, 3_600), ("3.2", 216_000, 5_120), ("4.0", 245_760, 8_192),
    ("4.1", 245_760, 8_192), ("4.2", 522_240, 8_704), ("5.0", 589_824, 22_080),
    ("5.1", 983_040, 36_864), ("5.2", 2_073_600, 36_864), ("6.0", 4_177_920, 139_264),
    ("6.1", 8_355_840, 139_264), ("6.2", 16_711_680, 139_264),
  ].map { H264Level(name: $0.0, maxMacroblocksPerSecond: $0.1, maxFrameMacroblocks: $0.2) }

  /// Whether a `width` × `height` picture at `frameRate` frames a second fits this level: the
  /// frame's macroblocks (16×16, rounded up) within `MaxFS`, each side within `sqrt(8 × MaxFS)`
  /// macroblocks, and macroblocks a second within `MaxMBPS`.
  public func allows(width: Int, height: Int, frameRate: Double) -> Bool {
    let (columns, rows) = ((width + 15) / 16, (height + 15) / 16)
    let side = 8 * maxFrameMacroblocks
    return columns * rows <= maxFrameMacroblocks && columns * columns <= side
      && rows * rows <= side
      && Double(columns * rows) * frameRate <= Double(maxMacroblocksPerSecond) * (1 + 1e-9)
  }

  /// The lowest level that allows a `width` × `height` picture at `frameRate`; nil beyond 6.2.
  public static func lowest(width: Int, height: Int, frameRate: Double) -> H264Level? {
    table.first { $0.allows(width: width, height: height, frameRate: frameRate) }
  }
}
