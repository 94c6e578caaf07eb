import Foundation
import Testing

/// `mediamerge --composition`: every input error is reported with its stable code before any
/// rendering (nothing written), and a document renders in-process, checked, with its report.
@Suite struct MediaMergeCompositionTests {
  /// A folder with a 1 s clip (H.264 + AAC), an audio-only file and a file that is no image.
  static func folder() throws -> TemporaryDirectory {
    let directory = try TemporaryDirectory()
    let clip = try run(
      "ffmpeg",
      [
        "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x336699:s=160x120:r=25", "-f",
        "lavfi", "-i", "sine=f=440:r=48000", "-t", "1", "-c:v", "libx264", "-preset",
        "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", directory.path("clip.mp4"),
      ])
    #expect(clip.status == 0, "\(clip.stderr)")
    let tone = try run(
      "ffmpeg",
      [
        "-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:r=48000", "-t", "1", "-c:a", "aac",
        directory.path("tone.m4a"),
      ])
    #expect(tone.status == 0, "\(tone.stderr)")
    try Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }).write(
      to: URL(fileURLWithPath: directory.path("bad.png")))
    return directory
  }

  /// Runs `mediamerge --composition doc.json -o out.mp4` in `directory` with `document`.
  static func compose(_ document: String, in directory: TemporaryDirectory) throws -> Run {
    try Data(document.utf8).write(to: URL(fileURLWithPath: directory.path("doc.json")))
    return try run(
      "mediamerge", ["--composition", directory.path("doc.json"), "-o", directory.path("out.mp4")])
  }

  @Test(arguments: [
    (#"{"version": 1, "clips": [{"source": "missing.mp4"}]}"#, "not_found", "missing.mp4"),
    (
      #"{"version": 1, "clips": [{"source": "clip.mp4", "to": 3}]}"#, "clip_past_source_end",
      "lasts 1 s"
    ),
    (
      #"{"version": 1, "clips": [{"source": "clip.mp4", "from": 0.5, "to": 0.5}]}"#,
      "source_range_invalid", "clips[0]"
    ),
    (
      #"{"version": 1, "clips": [{"source": "clip.mp4"}, {"source": "clip.mp4", "to": 0.5, "transition": {"type": "crossfade", "duration": 0.8}}]}"#,
      "transition_too_long", "clips[1]"
    ),
    (#"{"version": 1, "clips": [{"source": "tone.m4a"}]}"#, "clip_without_video", "tone.m4a"),
    (
      #"{"version": 1, "clips": [{"source": "bad.png", "duration": 1}]}"#, "unsupported_image",
      "bad.png"
    ),
    ("{\"version\": 1,\n  \"clips\": [}", "invalid_composition", "line 2, column"),
    (
      #"{"version": 1, "clips": [{"source": "clip.mp4", "transiton": 1}]}"#, "invalid_composition",
      "clips[0].transiton"
    ),
  ])
  func inputErrorsHaveTheirCodesAndWriteNothing(document: String, code: String, mentions: String)
    throws
  {
    let directory = try Self.folder()
    let result = try Self.compose(document, in: directory)
    #expect(result.status == 1, "\(result.stderr)")
    #expect(result.stderr.contains("[\(code)]"), "\(result.stderr)")
    #expect(result.stderr.contains(mentions), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: directory.path("out.mp4")))
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path(""))
    #expect(Set(files) == ["clip.mp4", "tone.m4a", "bad.png", "doc.json"])
  }

  /// A document on standard input (sources relative to the working directory) renders, and the
  /// report carries the plan's summary, the encoder settings, the clipped samples and the check;
  /// ffprobe finds what the plan says (H.264 + AAC, 1.6 s, faststart).
  @Test func aDocumentOnStandardInputRendersWithItsReport() throws {
    let directory = try Self.folder()
    let document = #"""
      {"version": 1, "fps": 25, "clips": [
        {"source": "clip.mp4", "to": 0.8, "markers": [{"at": 0.2, "name": "one"}]},
        {"source": "clip.mp4", "from": 0.2, "transition": {"type": "fade", "duration": 0.2}}]}
      """#
    let result = try run(
      "mediamerge", ["--composition", "-", "-o", "out.mp4"], stdin: Data(document.utf8),
      in: URL(fileURLWithPath: directory.path("")))
    #expect(result.status == 0, "\(result.stderr)")
    let report = try #require(try result.json() as? [String: Any])
    #expect(value(report, "render", "check", "passed") as? Bool == true)
    #expect(value(report, "render", "clipped_samples") as? Int == 0)
    #expect(value(report, "render", "video", "encoder") as? String == "libx264")
    #expect(value(report, "render", "audio", "encoder") as? String == "aac")
    #expect(value(report, "plan", "segments") as? Int == 2)
    // The report follows its schema (Python's jsonschema, the independent validator).
    try expectValid(result.stdout, schema: "mediamerge-composition-report.schema.json")
    let probe = try run(
      "ffprobe",
      [
        "-v", "error", "-show_entries", "format=duration:stream=codec_name", "-of", "json",
        directory.path("out.mp4"),
      ])
    let json = try #require(try probe.json() as? [String: Any])
    let codecs = (json["streams"] as? [[String: Any]] ?? []).compactMap {
      $0["codec_name"] as? String
    }
    #expect(codecs.prefix(2) == ["h264", "aac"])
    let duration = Double(value(json, "format", "duration") as? String ?? "") ?? 0
    #expect(abs(duration - 1.4) < 0.05)  // 0.8 + 0.8 - 0.2
  }

  /// SIGINT and SIGTERM while the output is being written: exit 130 / 143, nothing left in the
  /// folder (the output was an unnamed file).
  @Test(arguments: [SIGINT, SIGTERM])
  func interruptedWhileRenderingLeavesNothing(signal: Int32) throws {
    let directory = try Self.folder()
    let clips = Array(repeating: #"{"source": "clip.mp4"}"#, count: 300)
    try Data(#"{"version": 1, "clips": [\#(clips.joined(separator: ","))]}"#.utf8).write(
      to: URL(fileURLWithPath: directory.path("doc.json")))
    let process = Process()
    process.executableURL = productsDirectory.appendingPathComponent("mediamerge")
    process.arguments = [
      "--composition", directory.path("doc.json"), "-o", directory.path("out.mp4"), "--quiet",
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    #expect(waitUntilWriting(process, under: directory.path("")), "the output should be open")
    Thread.sleep(forTimeInterval: 0.3)
    kill(process.processIdentifier, signal)
    process.waitUntilExit()
    #expect(process.terminationStatus == 128 + signal)
    #expect(Set(directory.contents) == ["clip.mp4", "tone.m4a", "bad.png", "doc.json"])
  }

  /// `--plan` prints the resolved plan and writes nothing; `--print-composition --format otio`
  /// prints an OpenTimelineIO timeline of whole clips.
  @Test func planAndPrintCompositionWriteNothing() throws {
    let directory = try Self.folder()
    try Data(#"{"version": 1, "clips": [{"source": "clip.mp4", "to": 0.5}]}"#.utf8).write(
      to: URL(fileURLWithPath: directory.path("doc.json")))
    let plan = try run("mediamerge", ["--composition", directory.path("doc.json"), "--plan"])
    #expect(plan.status == 0, "\(plan.stderr)")
    let json = try #require(try plan.json() as? [String: Any])
    #expect(value(json, "duration", "seconds") as? Double == 0.5)
    let otio = try run(
      "mediamerge", ["--print-composition", "--format", "otio", directory.path("clip.mp4")])
    #expect(otio.status == 0, "\(otio.stderr)")
    #expect(otio.text.contains("\"OTIO_SCHEMA\""))
    #expect(otio.text.contains("Timeline"))
    #expect(!FileManager.default.fileExists(atPath: directory.path("out.mp4")))
  }
}

/// The whole-clip merge, rendered in-process with no ffmpeg executable on `PATH`, against the
/// ffmpeg command its plan prints for people (`--plan`'s `ffmpeg.arguments` and `stdin`, run by
/// the test): the same pictures (every frame, ffmpeg's psnr filter), the same stream lengths,
/// and for a copy the same packets.
@Suite struct MediaMergeInProcessTests {
  /// Runs the ffmpeg command `--plan` prints for `arguments`, writing `output`.
  static func runPlannedCommand(_ arguments: [String], output: String) throws {
    let planned = try run("mediamerge", ["--plan"] + arguments + ["-o", output])
    #expect(planned.status == 0, "\(planned.stderr)")
    let json = try planned.json()
    var command = try #require(value(json, "ffmpeg", "arguments") as? [String])
    command[command.count - 1] = output
    let stdin = (value(json, "ffmpeg", "stdin") as? String).map { Data($0.utf8) }
    let ran = try run("ffmpeg", Array(command.dropFirst()), stdin: stdin)
    #expect(ran.status == 0, "\(ran.stderr)")
  }

  /// Runs mediamerge with an empty `PATH` (no ffmpeg to find).
  static func runWithoutFFmpeg(_ arguments: [String], in directory: TemporaryDirectory) throws
    -> (status: Int32, stderr: String)
  {
    let empty = directory.path("empty-path")
    try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
    let process = Process()
    process.executableURL = productsDirectory.appendingPathComponent("mediamerge")
    process.arguments = arguments
    process.currentDirectoryURL = packageRoot
    process.environment = ["PATH": empty]
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, stderr)
  }

  @Test func inProcessMergeMatchesTheFFmpegCommandOfItsPlan() throws {
    let directory = try TemporaryDirectory()
    let clips = ["landscape", "portrait", "mirrored", "mono44k"].map {
      "Tests/MergeFixtures/\($0).mp4"
    }
    try Self.runPlannedCommand(clips, output: directory.path("cli.mp4"))
    let ours = try Self.runWithoutFFmpeg(
      clips + ["-o", directory.path("ours.mp4"), "--quiet"], in: directory)
    #expect(ours.status == 0, "\(ours.stderr)")
    let compared = try run(
      "ffmpeg",
      [
        "-v", "info", "-nostdin", "-i", directory.path("ours.mp4"), "-i", directory.path("cli.mp4"),
        "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-",
      ])
    let line = try #require(compared.stderr.split(separator: "\n").last { $0.contains("PSNR") })
    let minimum =
      line.split(separator: " ").first { $0.hasPrefix("min:") }
      .flatMap { Double($0.dropFirst(4)) } ?? 0
    #expect(minimum >= 30, "\(line)")
    func streams(_ path: String) throws -> [String] {
      try run(
        "ffprobe",
        [
          "-v", "error", "-show_entries", "stream=codec_name,nb_frames,duration", "-of",
          "compact=p=0", path,
        ]
      ).text.split(separator: "\n").map(String.init)
    }
    #expect(try streams(directory.path("ours.mp4")) == streams(directory.path("cli.mp4")))
  }

  /// `--copy` of the copy-compatible pair (both rotated by their display matrix): every video
  /// packet is the clips' own, with the times and display matrix the planned ffmpeg command's
  /// copy gives (the CLI's framemd5 of both outputs: times, sizes and MD5 of every packet).
  @Test func inProcessCopyMatchesTheFFmpegCommandOfItsPlan() throws {
    let directory = try TemporaryDirectory()
    let clips = ["Tests/MergeFixtures/pair_a.mp4", "Tests/MergeFixtures/pair_b.mp4"]
    try Self.runPlannedCommand(["--copy"] + clips, output: directory.path("cli.mp4"))
    let ours = try Self.runWithoutFFmpeg(
      ["--copy"] + clips + ["-o", directory.path("ours.mp4"), "--quiet"], in: directory)
    #expect(ours.status == 0, "\(ours.stderr)")
    func packets(_ path: String) throws -> [String] {
      try run(
        "ffmpeg", ["-v", "error", "-i", path, "-map", "0:v", "-c", "copy", "-f", "framemd5", "-"]
      )
      .text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }
    let copied = try packets(directory.path("ours.mp4"))
    #expect(copied.count == 75)
    #expect(copied == (try packets(directory.path("cli.mp4"))))
    func md5s(_ lines: [String]) -> [String] {
      lines.map { String($0.split(separator: ",").last ?? "") }
    }
    var sources: [String] = []
    for clip in clips { sources += md5s(try packets(clip)) }
    #expect(md5s(copied) == sources)
    let rotation = try run(
      "ffprobe",
      [
        "-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data=rotation",
        "-of", "csv=p=0", directory.path("ours.mp4"),
      ])
    #expect(rotation.text.trimmingCharacters(in: .whitespacesAndNewlines) == "-90")
  }
}
