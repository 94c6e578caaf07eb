import AV
import Foundation
import MediaCore
import Testing

/// libswscale with the matrix and range stated.
@Suite struct ScalerTests {
  /// A still image (a PNG of R'G'B' (200, 100, 50), by construction) decoded and converted to a
  /// 320x240 yuv420p video frame: Y'CbCr per the matrix's equations (Y = 16 + 219 Y',
  /// Cb = 128 + 224 (B' - Y') / (2 - 2 Kb), Cr = 128 + 224 (R' - Y') / (2 - 2 Kr)), with BT.709
  /// when stated, not the BT.601 values libswscale would use unasked; back to R'G'B' within 2
  /// levels. libswscale's fixed-point R'G'B' -> Y'CbCr lands up to 1.04 below the exact value
  /// (Y 116 for 117.04 with BT.709; the ffmpeg CLI gives the same), hence 1.5 levels; the two
  /// matrices differ by 5.6 levels in Y and 5 in Cb, so the check tells them apart.
  @Test(arguments: [(ColorMatrix.bt709, 0.2126, 0.0722), (ColorMatrix.bt601, 0.299, 0.114)])
  func stillImageToVideoFrame(matrix: ColorMatrix, kr: Double, kb: Double) throws {
    let input = try open(Fixtures.still)
    let found = input.streams.first(where: \.isVideoType)
    let stream = try #require(found)
    var image: Frame?
    try decodeFrames(input, stream: stream.index) { frame in
      image = Frame()
      try image!.reference(frame)
    }
    let still = try #require(image)
    #expect(still.pixelFormat == .rgb24 && still.width == 64 && still.height == 48)

    let toVideo = try Scaler(
      from: ImageFormat(width: 64, height: 48, pixelFormat: .rgb24),
      to: ImageFormat(width: 320, height: 240, pixelFormat: .yuv420p, matrix: matrix),
      accurate: true)
    let frame = try toVideo.scale(still)
    #expect(frame.width == 320 && frame.pixelFormat == .yuv420p)
    #expect(frame.color.matrix == matrix && frame.color.range == .limited)

    let (r, g, b) = (200.0 / 255, 100.0 / 255, 50.0 / 255)
    let y = kr * r + (1 - kr - kb) * g + kb * b
    let expected = [
      16 + 219 * y, 128 + 224 * (b - y) / (2 - 2 * kb), 128 + 224 * (r - y) / (2 - 2 * kr),
    ]
    let actual = [
      frame.withRow(120, plane: 0) { Double($0[160]) },
      frame.withRow(60, plane: 1) { Double($0[80]) },
      frame.withRow(60, plane: 2) { Double($0[80]) },
    ]
    for plane in 0..<3 {
      #expect(abs(actual[plane] - expected[plane]) <= 1.5, "\(actual) vs \(expected)")
    }

    let toRGB = try Scaler(
      from: ImageFormat(width: 320, height: 240, pixelFormat: .yuv420p, matrix: matrix),
      to: ImageFormat(width: 320, height: 240, pixelFormat: .rgb24), accurate: true)
    let rgb = try toRGB.scale(frame)
    #expect(rgb.color.matrix == .rgb && rgb.color.range == .full)
    let back = pixel(rgb, x: 100, y: 100)
    #expect(zip(back, [200, 100, 50]).allSatisfy { abs($0 - $1) <= 2 }, "\(back)")
  }

  /// A frame of another size or format than the scaler's source is refused.
  @Test func refusesOtherFrames() throws {
    let scaler = try Scaler(
      from: ImageFormat(width: 64, height: 48, pixelFormat: .rgb24),
      to: ImageFormat(width: 32, height: 24, pixelFormat: .yuv420p))
    let other = try Frame.video(width: 32, height: 24, pixelFormat: .rgb24)
    #expect(throws: FFmpegError.self) { _ = try scaler.scale(other) }
  }

  /// A decoded frame of the clip turned into R'G'B' by our scaler (BT.601 limited, as the clip
  /// is untagged and libswscale assumes), against the ffmpeg CLI's rgb24 of the same frame.
  @Test func decodedFrameMatchesTheCLI() throws {
    let input = try open(Fixtures.clip)
    let found = input.streams.first(where: \.isVideo)
    let stream = try #require(found)
    var first: Frame?
    try decodeFrames(input, stream: stream.index) { frame in
      guard first == nil else { return }
      first = Frame()
      try first!.reference(frame)
    }
    let frame = try #require(first)
    let scaler = try Scaler(
      from: ImageFormat(width: 320, height: 240, pixelFormat: .yuv420p, matrix: .bt601),
      to: ImageFormat(width: 320, height: 240, pixelFormat: .rgb24))
    let rgb = try scaler.scale(frame)
    let oracle = try ffmpeg([
      "-i", Fixtures.clip, "-frames:v", "1", "-pix_fmt", "rgb24", "-f", "rawvideo", "-",
    ]).stdout
    #expect(oracle.count == 320 * 240 * 3)
    var largest = 0
    for row in 0..<240 {
      rgb.withRow(row) { bytes in
        for byte in 0..<320 * 3 {
          largest = max(largest, abs(Int(bytes[byte]) - Int(oracle[row * 320 * 3 + byte])))
        }
      }
    }
    #expect(largest <= 1, "largest difference \(largest)")
  }
}
