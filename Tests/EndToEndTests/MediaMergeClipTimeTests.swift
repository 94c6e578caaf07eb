import Foundation
import Testing

/// `mediamerge --composition` with a clip's speed, freeze, crop and turns: `--plan` prints them
/// (valid against the plan schema), errors keep their codes, and the render lasts what the
/// construction says.
@Suite struct MediaMergeClipTimeTests {
  static let document = #"""
    {"version": 1, "fps": 25, "clips": [
      {"source": "clip.mp4", "speed": 2, "crop": {"x": 0, "y": 0, "width": 80, "height": 60},
       "rotate": 270, "markers": [{"at": 0.5, "name": "half"}]},
      {"source": "clip.mp4", "freeze": 0.5, "duration": 0.4},
      {"source": "clip.mp4", "speed": "1/2", "pitch": "follow", "to": 0.4}]}
    """#

  /// `--plan`: the 1 s clip at 2x lasts 0.5 s, its marker at 0.25 s; the freeze 0.4 s; 0.4 s at
  /// half speed 0.8 s: 1.7 s in all. The plan follows its schema.
  @Test func planShowsSpeedFreezeAndCrop() throws {
    let directory = try MediaMergeCompositionTests.folder()
    try Data(Self.document.utf8).write(to: URL(fileURLWithPath: directory.path("doc.json")))
    let result = try run("mediamerge", ["--composition", directory.path("doc.json"), "--plan"])
    #expect(result.status == 0, "\(result.stderr)")
    let plan = try #require(try result.json() as? [String: Any])
    #expect(value(plan, "duration", "seconds") as? Double == 1.7)
    let segments = try #require(plan["segments"] as? [[String: Any]])
    #expect(value(segments[0], "speed", "num") as? Int == 2)
    #expect(value(segments[0], "transform", "crop", "width") as? Int == 80)
    #expect(value(segments[0], "transform", "rotation") as? Int == 270)
    #expect(value(segments[1], "freeze", "seconds") as? Double == 0.5)
    #expect(value(segments[2], "pitch") as? String == "follow")
    #expect(value(plan, "markers", 0, "time", "seconds") as? Double == 0.25)
    try result.stdout.write(to: URL(fileURLWithPath: directory.path("plan.json")))
    let valid = try run(
      "python3",
      [
        "Scripts/validate-json.py", "schemas/mediamerge-composition-plan.schema.json",
        directory.path("plan.json"),
      ])
    #expect(valid.status == 0, "\(valid.stderr)")
  }

  /// The render: 1.7 s (ffprobe), 160x120 (the largest of the pictures: the 60x80 crop turned a
  /// quarter beside two whole 160x120 clips), checked.
  @Test func rendersTheRetimedClips() throws {
    let directory = try MediaMergeCompositionTests.folder()
    let result = try MediaMergeCompositionTests.compose(Self.document, in: directory)
    #expect(result.status == 0, "\(result.stderr)")
    let report = try #require(try result.json() as? [String: Any])
    #expect(value(report, "render", "check", "passed") as? Bool == true)
    let probe = try run(
      "ffprobe",
      [
        "-v", "error", "-select_streams", "v", "-show_entries",
        "stream=width,height:format=duration", "-of", "json", directory.path("out.mp4"),
      ])
    let json = try #require(try probe.json() as? [String: Any])
    #expect(value(json, "streams", 0, "width") as? Int == 160)
    #expect(value(json, "streams", 0, "height") as? Int == 120)
    let duration = Double(value(json, "format", "duration") as? String ?? "") ?? 0
    #expect(abs(duration - 1.7) < 0.05, "\(duration)")
  }

  /// A crop outside the stored picture and a freeze past the end keep their codes and paths.
  @Test(arguments: [
    (
      #"{"version": 1, "clips": [{"source": "clip.mp4", "crop": {"x": 100, "y": 0, "width": 80, "height": 60}}]}"#,
      "invalid_composition", "clips[0].crop"
    ),
    (
      #"{"version": 1, "clips": [{"source": "clip.mp4", "freeze": 2, "duration": 1}]}"#,
      "clip_past_source_end", "clips[0].freeze"
    ),
    (
      #"{"version": 1, "clips": [{"source": "clip.mp4", "speed": 5}]}"#, "invalid_composition",
      "clips[0].speed"
    ),
  ])
  func errorsKeepTheirCodes(document: String, code: String, mentions: String) throws {
    let directory = try MediaMergeCompositionTests.folder()
    let result = try MediaMergeCompositionTests.compose(document, in: directory)
    #expect(result.status == 1, "\(result.stderr)")
    #expect(result.stderr.contains("[\(code)]"), "\(result.stderr)")
    #expect(result.stderr.contains(mentions), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: directory.path("out.mp4")))
  }
}
