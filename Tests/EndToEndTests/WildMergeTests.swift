import Foundation
import Testing

/// Issue 20, items 13 and 16-19: wild timestamps, unbounded renders, killed merges and chapters.
///
/// The inputs are made by construction (Tests/WildFixtures, Scripts/make-wild-fixtures.sh: one
/// timestamp moved, one frame stretched, chapters from an FFmetadata file) or are the fuzzing
/// campaign's mutants (Tests/Regressions: `offset_video_late_*.flv`, `h264_60fps_*.ts` and
/// `orient_down_mirrored_15.mp4`, from ../shared/regressions/fuzz-2026-11-25, the project's
/// fixtures with mutated bytes: each made `mediaprobe --scan` report up to 45 days, or made the
/// merge's ffmpeg run for days or spin). Expected values come from the construction and from
/// ffprobe's packets; time limits are generous (a loaded 2-core machine) but each is far below
/// what the old behaviour took (forever).
@Suite struct WildMergeTests {
  static let wild = "Tests/WildFixtures"
  static let pairA = "Tests/MergeFixtures/pair_a.mp4"
  static let pairB = "Tests/MergeFixtures/pair_b.mp4"
  static let mutants = [
    "offset_video_late_1.flv", "offset_video_late_30.flv", "offset_video_late_42.flv",
    "offset_video_late_49.flv", "offset_video_late_5.flv", "h264_60fps_14.ts", "h264_60fps_15.ts",
    "h264_60fps_43.ts", "orient_down_mirrored_15.mp4",
  ]

  /// How a bounded run ended.
  struct Ended {
    var status: Int32
    var signaled: Bool
    var seconds: Double
    var stdout: String
    var stderr: String
  }

  /// Runs a built tool with a time limit (killed with its process group past it); standard
  /// output and error go to files, so nothing blocks on a full pipe.
  static func runBounded(
    _ tool: String, _ arguments: [String], limit: Double, environment: [String: String] = [:]
  ) throws -> Ended {
    let directory = try TemporaryDirectory()
    let out = directory.path("out")
    let err = directory.path("err")
    FileManager.default.createFile(atPath: out, contents: nil)
    FileManager.default.createFile(atPath: err, contents: nil)
    let process = Process()
    process.executableURL = productsDirectory.appendingPathComponent(tool)
    process.arguments = arguments
    process.currentDirectoryURL = packageRoot
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
    let started = Date()
    try process.run()
    while process.isRunning && Date().timeIntervalSince(started) < limit { usleep(20_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    return Ended(
      status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
      seconds: Date().timeIntervalSince(started),
      stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
      stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
  }

  /// ffprobe's packets of the first video stream: (pts, duration) in stream ticks, and the time
  /// base's denominator.
  static func packets(_ path: String) throws -> (packets: [(Int64, Int64)], ticks: Int64) {
    let listed = try run(
      "ffprobe",
      [
        "-v", "error", "-select_streams", "v:0", "-show_entries",
        "packet=pts,duration:stream=time_base", "-of", "csv=p=0", path,
      ])
    var packets: [(Int64, Int64)] = []
    var ticks: Int64 = 0
    for line in listed.text.split(separator: "\n") {
      let fields = line.split(separator: ",").map(String.init)
      if fields.count == 1, fields[0].hasPrefix("1/") { ticks = Int64(fields[0].dropFirst(2)) ?? 0 }
      if fields.count >= 2, let pts = Int64(fields[0]), let duration = Int64(fields[1]) {
        packets.append((pts, duration))
      }
    }
    return (packets, ticks)
  }

  // MARK: - 16: a wild timestamp is not the duration

  /// One moved timestamp (1000 hours in FLV, one hour in TS) in 20 frames of 40 ms: ffprobe
  /// lists the 20 packets, each 40 ms long, one of them that far away; `--scan` says 0.8 s (20
  /// frames of 40 ms, the construction), counts 20 frames and warns. Before: 3,600,000.04 s and
  /// 3600.04 s.
  @Test(arguments: ["wild_pts.flv", "wild_pts.ts"])
  func scanLeavesAWildTimestampOut(_ name: String) throws {
    let path = "\(Self.wild)/\(name)"
    let (packets, ticks) = try Self.packets(path)
    #expect(packets.count == 20)
    let step = try #require(packets.first?.1)
    #expect(packets.allSatisfy { $0.1 == step } && Double(step) / Double(ticks) == 0.04)
    let first = try #require(packets.map(\.0).min())
    #expect(packets.filter { Double($0.0 - first) / Double(ticks) >= 3600 }.count == 1)

    let result = try run("mediaprobe", ["--scan", path])
    let json = try #require(try result.json() as? [String: Any], "\(result.stderr)")
    let seconds = try #require(value(json, "duration", "seconds") as? Double)
    #expect(seconds == Double(packets.count) * Double(step) / Double(ticks))
    #expect(value(json, "streams", 0, "frame_count") as? Int == packets.count)
    #expect((json["warnings"] as? [String])?.contains("timestamp_discontinuity") == true)
    // The plain probe (no scan) reads the container and is unchanged: FLV says 0.8 s, and no
    // warning is given without a scan.
    let plain = try #require(try run("mediaprobe", [path]).json() as? [String: Any])
    #expect((plain["warnings"] as? [String])?.contains("timestamp_discontinuity") == false)
  }

  /// The mutants: `--scan` answers in seconds, not days, and says why.
  @Test(arguments: mutants.filter { !$0.hasSuffix(".mp4") })
  func mutantsScanToWhatThePacketsSupport(_ name: String) throws {
    let ended = try Self.runBounded(
      "mediaprobe", ["--scan", "Tests/Regressions/\(name)"], limit: 60)
    #expect(ended.status == 0, "\(ended.stderr)")
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(ended.stdout.utf8)) as? [String: Any])
    let seconds = try #require(value(json, "duration", "seconds") as? Double)
    // ffprobe's packet count times the 60 s a gap may last without being a jump bounds what any
    // reading of these files can call their span; the old answers were 3,357 to 3,892,315 s.
    let count = try Self.packets("Tests/Regressions/\(name)").packets.count
    #expect(seconds < Double(count) * 60 && seconds < 120, "\(name): \(seconds) s")
    #expect((json["warnings"] as? [String])?.contains("timestamp_discontinuity") == true)
  }

  /// A merge with a clip that has a wild timestamp: the plan is the packets' span, the render
  /// finishes in seconds, and the output lasts the plan (ffprobe). Before: the plan was 1000
  /// hours, and ffmpeg padded to it.
  @Test(arguments: ["wild_pts.flv", "wild_pts.ts"])
  func mergeOfAWildClipIsBounded(_ name: String) throws {
    let directory = try TemporaryDirectory()
    let output = directory.path("merged.mp4")
    let ended = try Self.runBounded(
      "mediamerge", ["--no-sync", Self.pairA, "\(Self.wild)/\(name)", "-o", output], limit: 120)
    #expect(ended.status == 0, "\(ended.stderr)")
    // pair_a lasts 1 s, the clip 0.8 s (20 x 40 ms), rendered at 30 fps: 1 frame of slack.
    let duration = try MediaMergeTests.ffprobeDuration(output)
    #expect(abs(duration - 1.8) <= 1.0 / 30 + 1e-3, "\(duration)")
  }

  /// Every mutant merged after a valid clip (the campaign's command): it ends within two
  /// minutes (before: days, or never), leaves at most a small file, and either writes what it
  /// planned (ffprobe agrees within a frame) or fails with a stable code.
  @Test(arguments: mutants)
  func mutantMergesAreBounded(_ name: String) throws {
    let directory = try TemporaryDirectory()
    let output = directory.path("merged.mp4")
    let ended = try Self.runBounded(
      "mediamerge", ["--no-sync", Self.pairA, "Tests/Regressions/\(name)", "-o", output],
      limit: 120)
    #expect(!ended.signaled && ended.seconds < 120, "\(name): still running after 120 s")
    if ended.status == 0 {
      let plan = try MediaMergeTests.plan([Self.pairA, "Tests/Regressions/\(name)", "-o", output])
      let planned = try #require(value(plan, "duration", "seconds") as? Double)
      #expect(planned < 60, "\(name): planned \(planned) s")
      #expect(abs(try MediaMergeTests.ffprobeDuration(output) - planned) <= 1.0 / 25)
      let size = try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int ?? 0
      #expect(size < 4 << 20, "\(name): \(size) bytes")
    } else {
      #expect(ended.status == 1, "\(name): \(ended.stderr)")
      #expect(ended.stderr.contains("["), "\(name): no error code in \(ended.stderr)")
      #expect(directory.contents.isEmpty)
    }
  }

  // MARK: - 17 and 18: a render is bounded

  /// The MP4 whose packets each claim ~618,000 s (ffprobe): the plan says 1.5 s, and ffmpeg's
  /// stage ends (before: it made frames up to the packets' end, at full CPU, without end).
  @Test func absurdPacketDurationsDoNotSpinTheEncoder() throws {
    let mutant = "Tests/Regressions/orient_down_mirrored_15.mp4"
    let (packets, ticks) = try Self.packets(mutant)
    #expect(packets.allSatisfy { Double($0.1) / Double(ticks) > 600_000 })
    let plan = try MediaMergeTests.plan([Self.pairA, mutant, "-o", "/tmp/x.mp4"])
    #expect(value(plan, "duration", "seconds") as? Double == 1.5)
    let directory = try TemporaryDirectory()
    let ended = try Self.runBounded(
      "mediamerge", ["--no-sync", Self.pairA, mutant, "-o", directory.path("m.mp4")], limit: 60)
    #expect(!ended.signaled && ended.seconds < 60, "the render did not end")
  }

  /// A well-formed file whose one frame lasts 1,000,000 s (ffprobe: the construction): the plan
  /// is refused before anything runs, as `implausible_plan`, with --plan too.
  @Test func aClipLongerThanItsBytesIsRefused() throws {
    let stretched = "\(Self.wild)/stretched_frame.mp4"
    let (packets, ticks) = try Self.packets(stretched)
    #expect(packets.count == 1 && packets[0].1 == 1_000_000 * ticks)
    let directory = try TemporaryDirectory()
    let ended = try Self.runBounded(
      "mediamerge", [Self.pairA, stretched, "-o", directory.path("m.mp4")], limit: 60)
    #expect(ended.status == 1 && ended.stderr.contains("[implausible_plan]"), "\(ended.stderr)")
    #expect(ended.stderr.contains("stretched_frame.mp4"), "\(ended.stderr)")
    #expect(directory.contents.isEmpty)
    let plan = try run("mediamerge", ["--plan", Self.pairA, stretched, "-o", "x.mp4"])
    #expect(plan.status == 1)
    #expect(value(try plan.json(), "error", "code") as? String == "implausible_plan")
  }

  /// A clip whose stream says 1200 fps (made so by construction: ffmpeg's `-r 1200`): the render
  /// would run on a 1200 fps grid, past the 1000 fps a render takes, so the plan is refused as
  /// `implausible_plan` naming the rate (before: `invalid_composition`, about a document the user
  /// never wrote; the fuzzing's mutant m00247 claimed 1024 fps).
  @Test func aFrameRatePastTheRendersLimitIsRefused() throws {
    let directory = try TemporaryDirectory()
    let clip = directory.path("fast.mp4")
    let made = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=1200", "-t",
        "0.05", "-c:v", "libx264", "-preset", "ultrafast", clip,
      ])
    #expect(made.status == 0, "\(made.stderr)")
    let plan = try run("mediamerge", ["--plan", clip, "-o", directory.path("m.mp4")])
    #expect(plan.status == 1)
    let error = value(try plan.json(), "error") as? [String: Any]
    #expect(error?["code"] as? String == "implausible_plan")
    #expect((error?["message"] as? String ?? "").contains("1200.000 fps"), "\(error ?? [:])")
  }

  /// A picture no codec level takes: the fuzzing's 1,974-byte AV1 mutant declares 5616x12013
  /// (ffprobe: the oracle), so the render size is 12012x12012 and libx264 ground through it for
  /// minutes. The largest picture any level allows is 35,651,584 luma samples (H.264 level 6.2's
  /// MaxFS, 139,264 macroblocks of 256, Table A-1; HEVC level 6.2's MaxLumaPs), 16,888 a side:
  /// larger is `implausible_plan` before anything runs, also for --size 8192x8192 (67,108,864);
  /// 8192x4320 (35,389,440) is planned.
  @Test func aPictureNoCodecLevelTakesIsRefused() throws {
    let mutant = "Tests/Regressions/av1_picture_size_huge.mp4"
    let probed = try run(
      "ffprobe",
      ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", mutant]
    ).text.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(probed == "5616,12013")
    let directory = try TemporaryDirectory()
    let ended = try Self.runBounded(
      "mediamerge", [Self.pairA, mutant, "-o", directory.path("m.mp4")], limit: 60)
    #expect(ended.status == 1 && ended.stderr.contains("[implausible_plan]"), "\(ended.stderr)")
    #expect(ended.stderr.contains("larger than any codec level"), "\(ended.stderr)")
    #expect(directory.contents.isEmpty)
    let sized = try run(
      "mediamerge", ["--plan", "--size", "8192x8192", Self.pairA, "-o", "x.mp4"])
    #expect(sized.status == 1)
    #expect(value(try sized.json(), "error", "code") as? String == "implausible_plan")
    let largest = try run(
      "mediamerge", ["--plan", "--size", "8192x4320", Self.pairA, "-o", "x.mp4"])
    #expect(largest.status == 0, "\(largest.stderr)")
  }

  /// `--timeout` covers the whole merge: a limit that passes during the work stops it with code
  /// `timeout`, and nothing is left.
  @Test func timeoutCoversTheRender() throws {
    let directory = try TemporaryDirectory()
    let ended = try Self.runBounded(
      "mediamerge", ["--timeout", "0.001", Self.pairA, "-o", directory.path("m.mp4")], limit: 60)
    #expect(ended.status == 1 && ended.stderr.contains("[timeout]"), "\(ended.stderr)")
    #expect(directory.contents.isEmpty)
  }

  // MARK: - 13: chapters on the timeline

  /// ffprobe's chapters: (start, end, title).
  static func chapters(_ path: String) throws -> [(Double, Double, String)] {
    let listed = try run(
      "ffprobe", ["-v", "error", "-show_chapters", "-of", "json", path])
    let list = try #require(value(try listed.json(), "chapters") as? [[String: Any]])
    return list.map {
      (
        Double($0["start_time"] as? String ?? "") ?? -1,
        Double($0["end_time"] as? String ?? "") ?? -1,
        value($0, "tags", "title") as? String ?? ""
      )
    }
  }

  /// ffprobe's stream types.
  static func streamTypes(_ path: String) throws -> [String] {
    let listed = try run(
      "ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", path])
    // A stream with side data (the display matrix) prints a trailing comma and an empty line.
    return listed.text.split(separator: "\n").compactMap {
      $0.split(separator: ",").first.map(String.init)
    }
  }

  /// A clip without chapters (pair_a, 1 s) then one with chapters at 0 and 0.4 s (made from an
  /// FFmetadata file): the chapters land at 1.0 and 1.4 s (clip start + chapter time), the first
  /// clip gets one named after it, and the only stream besides video and audio is the MP4
  /// chapter track that carries them. In the other order they stay at 0 and 0.4 s and pair_a's
  /// starts at 1.5 s. Before: clip 2's chapters were written at 0 s. Without chapters in any
  /// clip, the output has none and no data stream.
  @Test func chaptersAreRetimedOntoTheTimeline() throws {
    let chaptered = "\(Self.wild)/chapters.mp4"
    let made = try Self.chapters(chaptered)
    #expect(made.map(\.0) == [0, 0.4] && made.map(\.2) == ["First", "Second"])
    for (clips, expected) in [
      (
        [Self.pairA, chaptered],
        [(0.0, 1.0, "pair_a.mp4"), (1.0, 1.4, "First"), (1.4, 2.5, "Second")]
      ),
      (
        [chaptered, Self.pairA],
        [(0.0, 0.4, "First"), (0.4, 1.5, "Second"), (1.5, 2.5, "pair_a.mp4")]
      ),
    ] {
      let directory = try TemporaryDirectory()
      let output = directory.path("merged.mp4")
      let ended = try Self.runBounded(
        "mediamerge", ["--no-sync"] + clips + ["-o", output], limit: 120)
      #expect(ended.status == 0, "\(ended.stderr)")
      let found = try Self.chapters(output)
      #expect(found.count == expected.count, "\(found)")
      for (got, want) in zip(found, expected) {
        #expect(abs(got.0 - want.0) <= 0.001 && abs(got.1 - want.1) <= 0.001, "\(got) \(want)")
        #expect(got.2 == want.2)
      }
      #expect(try Self.streamTypes(output).sorted() == ["audio", "data", "video"])
    }
    let directory = try TemporaryDirectory()
    let plain = directory.path("plain.mp4")
    let ended = try Self.runBounded(
      "mediamerge", ["--no-sync", Self.pairA, Self.pairB, "-o", plain], limit: 120)
    #expect(ended.status == 0, "\(ended.stderr)")
    #expect(try Self.chapters(plain).isEmpty)
    #expect(try Self.streamTypes(plain).sorted() == ["audio", "video"])
  }

  // MARK: - Rough edges

  /// No arguments: three lines (the error, the usage, a pointer to --help), exit 64. An unknown
  /// option is named first, before the missing output.
  @Test func usageErrorsAreShortAndNameTheBadOption() throws {
    let bare = try run("mediamerge", [])
    #expect(bare.status == 64)
    #expect(bare.stderr.split(separator: "\n").count <= 3, "\(bare.stderr)")
    #expect(bare.stderr.contains("--help") && bare.stderr.contains("-o <file>"))
    let bogus = try run("mediamerge", ["--bogus", Self.pairA])
    #expect(bogus.status == 64)
    #expect(bogus.stderr.hasPrefix("Error: Unknown option '--bogus'"), "\(bogus.stderr)")
  }
}
