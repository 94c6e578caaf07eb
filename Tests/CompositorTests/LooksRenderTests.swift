import AV
import Composition
import Foundation
import MediaCore
import OutputKit
import Render
import Testing

@testable import Compositor

/// The hook on real media: a BT.709 limited-range H.264 clip made by construction (two solid
/// colours side by side) rendered by Render's Transcoder with `LookFilters.chain` as its video
/// filter, losslessly (x264 CRF 0) so the codec adds nothing. The oracle is the ffmpeg CLI's
/// decode of the source and of the output to R'G'B' with the stated matrix and range, and the
/// shader formula applied to the source's pixels here: each output pixel within ±3 levels (the
/// chain's two Y'CbCr conversions and the oracle's own). The clip's colour tags survive.
@Suite struct LooksRenderTests {
  static let clip: String = {
    let path = AudioKit.directory + "/looks-bt709.mp4"
    if !FileManager.default.fileExists(atPath: path) {
      _ = try? AudioKit.ffmpeg([
        "-f", "lavfi", "-i",
        "color=c=0xC06030:s=32x32:r=25,format=rgb24[a];"
          + "color=c=0x3070B0:s=32x32:r=25,format=rgb24[b];[a][b]hstack",
        "-t", "0.4", "-vf",
        "scale=out_color_matrix=bt709:out_range=tv:flags=accurate_rnd+full_chroma_int,"
          + "format=yuv444p",
        "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-colorspace", "bt709",
        "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv", path,
      ])
    }
    return path
  }()

  /// The first picture of `path` as R'G'B' (BT.709, limited range), by the ffmpeg CLI.
  static func rgb(_ path: String) throws -> [UInt8] {
    Array(
      try AudioKit.ffmpeg([
        "-i", path, "-frames:v", "1", "-vf",
        "scale=in_color_matrix=bt709:in_range=tv:flags=accurate_rnd+full_chroma_int,format=rgb24",
        "-f", "rawvideo", "-",
      ]))
  }

  @Test(arguments: [LookName.sepia, .invert, .contrast])
  func lookThroughTheTranscoder(_ name: LookName) throws {
    let look: Look =
      name == .contrast
      ? Look(name: .contrast, parameters: ["contrast": .number(ExactNumber(2))])
      : Look(name: name)
    let chain = try LookFilters.chain(
      [look], matrix: "bt709", fullRange: false, width: 64, height: 32
    ).replacingOccurrences(of: "format=yuv420p", with: "format=yuv444p")
    let output = AudioKit.directory + "/looks-\(name.rawValue).mp4"
    try? FileManager.default.removeItem(atPath: output)
    let input = try Transcoder.open(.file(Self.clip))
    var video = VideoEncoding(filter: chain)
    video.encoder.preset = "ultrafast"
    video.encoder.pixelFormat = PixelFormat(name: "yuv444p")!
    video.encoder.rateControl = .constantQuality(0)
    let file = try OutputFile(.file(path: output, overwrite: false), sync: false)
    _ = try Transcoder.run(
      input: input, output: file, name: output,
      settings: RenderSettings(
        streams: RenderSettings.firstStreams(of: input, video: .encodeVideo(video), audio: nil)))
    try file.commit()

    let source = try Self.rgb(Self.clip)
    let result = try Self.rgb(output)
    var worst = 0
    for x in [4, 16, 27, 36, 48, 59] {
      let i = (10 * 64 + x) * 3
      let c = (0..<3).map { Double(source[i + $0]) / 255 }
      let formula: [Double]
      switch name {
      case .sepia:
        formula = LookFilters.sepia.map { row in zip(row, c).reduce(0) { $0 + $1.0 * $1.1 } }
      case .invert: formula = c.map { 1 - $0 }
      default: formula = c.map { ($0 - 0.5) * 2 + 0.5 }
      }
      let expected = formula.map { Int((min(max($0, 0), 1) * 255).rounded()) }
      let got = (0..<3).map { Int(result[i + $0]) }
      let difference = zip(expected, got).map { abs($0 - $1) }.max()!
      worst = max(worst, difference)
      #expect(difference <= 3, "\(name) at x \(x): \(got), formula \(expected)")
    }
    print("\(name.rawValue) through the transcoder: largest difference \(worst) levels")
    // The colour tags survive (the chain converts back with the matrix and range it read).
    let probe = try AudioKit.run(
      "ffprobe",
      [
        "-v", "error", "-select_streams", "v:0", "-show_entries",
        "stream=color_space,color_range,color_primaries", "-of", "csv=p=0", output,
      ])
    #expect(String(decoding: probe, as: UTF8.self).contains("tv,bt709,bt709"))
  }
}
