import AV
import Foundation
import FrameGrab
import MediaCore
import Testing

/// The 8 display matrices (corners_*.mp4: stored 48x32, red top-left, green top-right, blue
/// bottom-left, white bottom-right), pixel aspect ratio, --max-size, EXIF, cover art, HDR and
/// the three encoders.
@Suite struct PictureTests {
  /// The matrices patched into corners_*.mp4 (Scripts/make-frame-fixtures.sh): a b c d.
  static let matrices: [(String, [Double])] = [
    ("up", [1, 0, 0, 1]), ("right", [0, 1, -1, 0]), ("down", [-1, 0, 0, -1]),
    ("left", [0, -1, 1, 0]), ("up_mirrored", [-1, 0, 0, 1]), ("down_mirrored", [1, 0, 0, -1]),
    ("left_mirrored", [0, 1, 1, 0]), ("right_mirrored", [0, -1, -1, 0]),
  ]

  static let colors: [(x: Double, y: Double, rgb: (Int, Int, Int))] = [
    (8, 6, (255, 0, 0)), (40, 6, (0, 255, 0)), (8, 26, (0, 0, 255)), (40, 26, (255, 255, 255)),
  ]

  /// Where the display matrix puts each stored corner (x' = a·x + c·y, y' = b·x + d·y, the
  /// picture's bounding box moved to the origin): the oracle is the matrix itself.
  static func expectedCorners(_ m: [Double], width: Double, height: Double) -> [(
    Bool, Bool, (Int, Int, Int)
  )] {
    func map(_ x: Double, _ y: Double) -> (Double, Double) {
      (m[0] * x + m[2] * y, m[1] * x + m[3] * y)
    }
    let box = [map(0, 0), map(width, 0), map(0, height), map(width, height)]
    let (minX, maxX) = (box.map(\.0).min()!, box.map(\.0).max()!)
    let (minY, maxY) = (box.map(\.1).min()!, box.map(\.1).max()!)
    return colors.map { corner in
      let (x, y) = map(corner.x, corner.y)
      return (x < (minX + maxX) / 2, y < (minY + maxY) / 2, corner.rgb)
    }
  }

  static func check(_ picture: Picture, _ expected: [(Bool, Bool, (Int, Int, Int))]) {
    for (left, top, rgb) in expected {
      let x = left ? 3 : picture.width - 4
      let y = top ? 3 : picture.height - 4
      let (r, g, b) = picture.pixel(x, y)
      #expect(
        abs(Int(r) - rgb.0) <= 24 && abs(Int(g) - rgb.1) <= 24 && abs(Int(b) - rgb.2) <= 24,
        "\(left ? "left" : "right") \(top ? "top" : "bottom"): \((r, g, b)) for \(rgb)")
    }
  }

  @Test(arguments: matrices)
  func upright(name: String, matrix: [Double]) throws {
    let source = try grabber(fixture("corners_\(name).mp4"))
    #expect(source.orientation.name == name)
    let grab = try source.grab(at: 0.5, maxSize: nil)
    let sideways = matrix[0] == 0
    #expect(grab.picture.width == (sideways ? 32 : 48))
    #expect(grab.picture.height == (sideways ? 48 : 32))
    Self.check(grab.picture, Self.expectedCorners(matrix, width: 48, height: 32))
    if !name.hasSuffix("mirrored") {
      // FFmpeg 5.1's autorotate turns (it does not mirror): the same picture, by PSNR.
      let oracle = try ffmpegPicture(
        fixture("corners_\(name).mp4"), filters: "select=eq(n\\,5)", width: grab.picture.width)
      #expect(psnr(grab.picture, oracle) > 35)
    }
  }

  @Test func exifOrientation() throws {
    // EXIF 6 ("right"): shown turned 90° clockwise, as the matrix (0, 1, -1, 0).
    let grab = try grabber(fixture("exif6.jpg")).grab(at: 7, maxSize: nil)
    #expect(grab.requestedTime == nil && grab.actualTime == 0)
    #expect(grab.picture.width == 32 && grab.picture.height == 48)
    Self.check(grab.picture, Self.expectedCorners([0, 1, -1, 0], width: 48, height: 32))
  }

  @Test func sampleAspectRatioWidens() throws {
    // Stored 32x32 with SAR 2:1: shown 64x32, as ffmpeg's scale=iw*sar:ih.
    let source = try grabber(fixture("sar2.mp4"))
    let grab = try source.grab(at: 0, maxSize: nil)
    #expect(grab.picture.width == 64 && grab.picture.height == 32)
    let oracle = try ffmpegPicture(fixture("sar2.mp4"), filters: "scale=iw*sar:ih", width: 64)
    #expect(psnr(grab.picture, oracle) > 35)
  }

  @Test(arguments: [
    ("numbers.mp4", 32, 32, 32, 24), ("numbers.mp4", 100, 100, 64, 48),
    ("corners_right.mp4", 16, 16, 11, 16), ("sar2.mp4", 32, 100, 32, 16),
  ])
  func maxSize(name: String, boxWidth: Int, boxHeight: Int, width: Int, height: Int) throws {
    let grab = try grabber(fixture(name)).grab(
      at: 0, maxSize: FitSize(width: boxWidth, height: boxHeight))
    #expect(grab.picture.width == width && grab.picture.height == height)
  }

  @Test func coverArt() throws {
    #expect(throws: FrameError.noVideo(hasCover: true)) {
      try grabber(sharedFixture("tone_cover.mp3"))
    }
    let source = try grabber(sharedFixture("tone_cover.mp3"), cover: true)
    let grab = try source.grab(at: 0, maxSize: nil)
    #expect(grab.actualTime == nil)
    let oracle = try ffmpegPicture(
      sharedFixture("tone_cover.mp3"), inputOptions: [], filters: nil, width: grab.picture.width)
    #expect(psnr(grab.picture, oracle) > 40)
    #expect(throws: FrameError.noCover) { try grabber(fixture("numbers.mp4"), cover: true) }
    #expect(throws: FrameError.noVideo(hasCover: false)) { try grabber(fixture("pcm.wav")) }
  }

  /// PQ (BT.2020, SMPTE 2084) and HLG (ARIB STD-B67) to SDR: the oracle is the ffmpeg CLI
  /// running the same method (`ToneMapper.description`) on the same frame.
  @Test(arguments: ["pq.mkv", "hlg.mkv"])
  func hdrToneMapped(name: String) throws {
    let source = try grabber(fixture(name))
    #expect(source.isHDR)
    let grab = try source.grab(at: 0.5, maxSize: nil)
    #expect(source.toneMapped)
    let oracle = try ffmpegPicture(
      fixture(name),
      filters: "select=eq(n\\,5),"
        + "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,"
        + "tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p",
      width: 64)
    #expect(psnr(grab.picture, oracle) > 35)
    // Not the untouched code values: tone-mapping changed the picture.
    let plain = try ffmpegPicture(fixture(name), filters: "select=eq(n\\,5)", width: 64)
    #expect(psnr(grab.picture, plain) < 30)
  }

  @Test(arguments: [ImageKind.jpeg, .png, .webp])
  func encoders(kind: ImageKind) throws {
    let picture = try grabber(sharedFixture("anamorphic.mp4")).grab(at: 0.5, maxSize: nil)
      .picture
    let bytes = try ImageWriter.encode(picture, as: kind, quality: 95)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "mediaframe-\(getpid())-\(kind)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("out.\(kind.rawValue)").path
    try ImageWriter.write(bytes, to: path, overwrite: false, sync: false)
    #expect(throws: FrameError.output(.exists(path))) {
      try ImageWriter.write(bytes, to: path, overwrite: false, sync: false)
    }
    let decoded = try decodeImage(path, width: picture.width)
    #expect(decoded.height == picture.height)
    if kind == .png {
      #expect(decoded == picture)
    } else {
      #expect(psnr(decoded, picture) > 30)
    }
  }
}
