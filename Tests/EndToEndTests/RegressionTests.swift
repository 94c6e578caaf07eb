import Foundation
import Testing

/// Every input in Tests/Regressions (crashes and faults found by fuzzing, and hand-made damaged
/// media; see Scripts/make-fixtures.sh) through all five tools (mediamerge plans it after a valid
/// clip, mediaframe makes a poster): each ends with an exit status, never a signal, within a time
/// limit, and media2wav and mediaframe leave no file when they fail.
@Suite struct RegressionTests {
  static let directory = "Tests/Regressions"
  static let inputs: [String] =
    ((try? FileManager.default.contentsOfDirectory(
      atPath: packageRoot.appendingPathComponent(directory).path)) ?? [])
    .filter { !$0.hasPrefix(".") }.sorted()

  /// Runs a tool with a 60 s limit; returns how it ended.
  func runLimited(_ tool: String, _ arguments: [String]) throws -> (
    reason: Process.TerminationReason, status: Int32, finished: Bool
  ) {
    let process = Process()
    process.executableURL = productsDirectory.appendingPathComponent(tool)
    process.arguments = arguments
    process.currentDirectoryURL = packageRoot
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(60)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    let finished = !process.isRunning
    if !finished {
      kill(process.processIdentifier, SIGKILL)
    }
    process.waitUntilExit()
    return (process.terminationReason, process.terminationStatus, finished)
  }

  @Test func thereAreRegressionInputs() {
    #expect(Self.inputs.contains("channel_jump_42.ts"))
    #expect(Self.inputs.contains("flac32_mid_side.mkv"))
    // A fuzzed MP4 whose video stream has no picture size: mediamerge divided by it (SIGILL).
    #expect(Self.inputs.contains("video_size_zero.mp4"))
    // Issue 20: mutants whose wild timestamps (FLV, TS) or packet durations (MP4) made the
    // merge plan days or its ffmpeg spin (WildMergeTests checks each is bounded).
    for mutant in ["offset_video_late_5.flv", "h264_60fps_14.ts", "orient_down_mirrored_15.mp4"] {
      #expect(Self.inputs.contains(mutant))
    }
    // A fuzzed AV1 MP4 (fuzz.sh seed 31, mutant 911 of compat_10_av1_1080p.mp4, cut to 300,000
    // bytes): Debian's dav1d 1.0.0 deadlocked in its frame threads on it, and mediaframe's
    // poster hung (5 of 8 runs idle, 8 of 8 loaded); it decodes one frame at a time now.
    #expect(Self.inputs.contains("av1_frame_threads_hang.mp4"))
    // A fuzzed AV1 MP4 of 1,974 bytes declaring 5616x12013: mediamerge rendered a 12012x12012
    // canvas for minutes (WildMergeTests checks it is refused).
    #expect(Self.inputs.contains("av1_picture_size_huge.mp4"))
  }

  @Test(arguments: inputs)
  func everyToolEndsCleanly(_ name: String) throws {
    let input = "\(Self.directory)/\(name)"
    let output = try TemporaryDirectory()
    for (tool, arguments) in [
      ("mediaprobe", ["--scan", input]), ("mediacompat", ["--suggest", input]),
      ("media2wav", ["--format", "s24", "--gain", "-1", input, "-o", output.path("out.wav")]),
      ("mediamerge", ["--plan", "Tests/MergeFixtures/landscape.mp4", input, "-o", "merged.mp4"]),
      ("mediaframe", ["--at", "0.5", "--max-size", "64x64", input, "-o", output.path("p.jpg")]),
    ] {
      let ended = try runLimited(tool, arguments)
      #expect(ended.finished, "\(tool) \(name): still running after 60 s")
      #expect(
        ended.reason == .exit && ended.status < 64,
        "\(tool) \(name): \(ended.reason == .exit ? "exit" : "signal") \(ended.status)")
      if tool == "media2wav" {
        #expect(output.contents == (ended.status == 0 ? ["out.wav"] : []), "\(output.contents)")
      }
      if tool == "mediaframe" {
        #expect(
          output.contents.filter { $0 != "out.wav" } == (ended.status == 0 ? ["p.jpg"] : []),
          "\(output.contents)")
      }
    }
  }
}
