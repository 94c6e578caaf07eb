import Foundation
import MediaCore
import MediaProbe
import Testing

@testable import Compatibility

/// `FixPlanner` on the probed fixtures of `Scripts/make-fix-fixtures.sh`: the step each needs is
/// known by construction from the platform files (an MKV row is missing on ios-17, AC-3 on
/// chrome, HEVC on firefox's direct-play rows, `hvc1` is required on ios-17).
@Suite struct FixPlannerTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  func info(_ name: String) throws -> MediaInfo {
    let path = Self.root.appendingPathComponent("Tests/FixFixtures/\(name)").path
    return try Prober().probe(.file(path), path: path)
  }

  func planner(_ names: [String], strict: Bool = false) throws -> FixPlanner {
    FixPlanner(platforms: try PlatformDatabase.resolve(list: names), strict: strict)
  }

  @Test func remuxWhenOnlyTheContainerFails() throws {
    let plan = try planner(["ios-17"]).plan(for: info("h264_aac.mkv"))
    #expect(plan.action == .remux)
    #expect(plan.container == "mp4" && plan.fileExtension == "mp4")
    #expect(plan.muxerOptions == ["movflags": "+faststart"])
    #expect(plan.video?.copy == true && plan.audio?.copy == true)
    #expect(plan.cheaperSteps.map(\.action) == [.none, .retag])
    #expect(plan.failing.map(\.field) == ["container"])
  }

  @Test func retagOnlyTheSampleEntry() throws {
    let plan = try planner(["ios-17"]).plan(for: info("hevc_hev1.mp4"))
    #expect(plan.action == .retag)
    #expect(plan.video?.tag == "hvc1")
    let arguments = plan.ffmpegArguments(input: "in.mp4", output: "out.mp4")
    #expect(arguments.contains("-tag:v") && arguments.contains("hvc1"))
    #expect(!arguments.contains("libx264"))
  }

  @Test func audioOnlyWhenTheAudioCodecFails() throws {
    let plan = try planner(["chrome"]).plan(for: info("h264_ac3.mkv"))
    #expect(plan.action == .transcodeAudio)
    #expect(plan.video?.copy == true)
    #expect(plan.audio?.codec == "aac")
    // No chrome rule caps AAC's channels: the 5.1 is kept.
    #expect(plan.audio?.encode?.channels == 6 && plan.audio?.encode?.downmixed == false)
    #expect(plan.cheaperSteps.last?.action == .remux)
    #expect(plan.cheaperSteps.last?.wouldFail.map(\.field) == ["audio.codec"])
  }

  @Test func warningsOnlyWithStrict() throws {
    #expect(try planner(["firefox"]).plan(for: info("hevc_hev1.mp4")).action == .none)
    let strict = try planner(["firefox"], strict: true).plan(for: info("hevc_hev1.mp4"))
    #expect(strict.action == .transcodeVideo)
    #expect(strict.video?.encode?.width == 320 && strict.video?.encode?.height == 240)
    #expect(strict.video?.encode?.scaled == false && strict.video?.encode?.rateCapped == false)
    #expect(strict.video?.encode?.settings.level == "1.3")  // Table A-1: 300 MBs at 25 fps
    #expect(strict.audio?.copy == true)
  }

  @Test func oneOutputForFourPlatforms() throws {
    let plan = try planner(["ios-17", "android-14", "chrome", "firefox"]).plan(
      for: info("h264_ac3.mkv"))
    #expect(plan.action == .transcodeAudio)
    #expect(plan.container == "mp4")
    #expect(plan.expected.allSatisfy { $0.verdict != .fail })
  }

  @Test func aRefusedStepIsSkippedWithItsReason() throws {
    let plan = try planner(["ios-17"]).plan(
      for: info("h264_aac.mkv"), atLeast: .transcodeAudio, refused: [.remux: "the muxer said no"])
    #expect(plan.action == .transcodeAudio)
    #expect(plan.cheaperSteps.first { $0.action == .remux }?.reason == "the muxer said no")
  }

  @Test func nothingToPlay() throws {
    #expect(throws: FixPlanError.noPlayableStream) {
      try planner(["ios-17"]).plan(for: info("subtitles.mkv"))
    }
  }
}
