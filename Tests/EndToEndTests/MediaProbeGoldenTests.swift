import Foundation
import Testing

/// mediaprobe's whole output for every fixture, against golden/mediaprobe/ (recorded on purpose
/// with GOLDEN_RECORD=1 after checking the values against ffprobe and the construction).
@Suite struct MediaProbeGoldenTests {
  static let scanned = [
    "vfr.mp4", "h264_30fps.mkv", "h264_60fps.ts", "fragmented_unknown_duration.mp4",
    "tone_adts.aac",
    "vbr_no_xing.mp3", "interlaced_tff.mkv", "tone_cover.mp3",
  ]

  @Test(arguments: allFixtures)
  func golden(_ fixture: String) throws {
    let result = try run("mediaprobe", ["\(fixturesDirectory)/\(fixture)"])
    try assertGolden(result.text, "mediaprobe/\(fixture).json")
  }

  @Test(arguments: scanned)
  func goldenScan(_ fixture: String) throws {
    let result = try run("mediaprobe", ["--scan", "\(fixturesDirectory)/\(fixture)"])
    #expect(result.status == 0)
    try assertGolden(result.text, "mediaprobe/scan/\(fixture).json")
  }

  @Test func goldenSummary() throws {
    let result = try run(
      "mediaprobe", ["--summary", "--scan"] + allFixtures.map { "\(fixturesDirectory)/\($0)" })
    try assertGolden(result.text, "mediaprobe/summary.txt")
  }
}
