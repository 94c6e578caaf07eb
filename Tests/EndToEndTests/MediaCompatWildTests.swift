import Foundation
import Testing

/// mediacompat on files from the wild (issue 20): what an iPhone records passes ios-17 while the
/// HLS authoring limits stay in apple-hls (item 14), every suggested command writes a file that
/// passes (item 15), 32-bit FLAC, and the first things a new user types.
@Suite struct MediaCompatWildTests {
  static let compatFixtures = "Tests/CompatFixtures"

  /// What `mediacompat --json -p PLATFORMS FILE` says, per platform.
  func verdicts(_ path: String, _ platforms: String, _ options: [String] = []) throws
    -> [[String: Any]]
  {
    let result = try run("mediacompat", ["--json", "--platform", platforms] + options + [path])
    return try #require(value(try result.json(), "results") as? [[String: Any]], "\(result.stderr)")
  }

  /// ffprobe's first video stream, as JSON.
  func ffprobeVideo(_ path: String, in directory: URL = packageRoot) throws -> [String: Any] {
    let result = try run(
      "ffprobe",
      [
        "-v", "error", "-select_streams", "v:0", "-show_entries",
        "stream=codec_name,profile,level,width,height,r_frame_rate,avg_frame_rate,codec_tag_string",
        "-of", "json", path,
      ], in: directory)
    return try #require(
      value(try result.json(), "streams", 0) as? [String: Any], "\(result.stderr)")
  }

  // MARK: - Item 14: local playback on iOS 17 is not HLS

  /// The iPhone recordings of Scripts/make-compat-fixtures.sh, as constructed (ffprobe confirms
  /// codec, level_idc, stored size and rates), and the HLS Authoring Specification rules they
  /// break on apple-hls: H.264 above level 4.2, HEVC above level 5.0, above 60 fps.
  static let recordings:
    [(file: String, codec: String, level: Int, size: [Int], rates: [String], hls: Set<String>)] =
      [
        ("iphone_h264_high_l52_2160p60.mov", "h264", 52, [3840, 2160], ["60/1"], ["video.level"]),
        ("iphone_h264_high_l51_2160p60.mov", "h264", 51, [3840, 2160], ["60/1"], ["video.level"]),
        ("iphone_hevc_main_2160p60.mov", "hevc", 153, [3840, 2160], ["60/1"], ["video.level"]),
        ("iphone_hevc_main10_2160p60.mov", "hevc", 153, [3840, 2160], ["60/1"], ["video.level"]),
        (
          "iphone_hevc_1080p240.mov", "hevc", 153, [1920, 1080], ["240/1"],
          ["video.level", "video.frame_rate"]
        ),
        // Variable frame rate: 30 frames in 299/600 s, 60.2 fps on average, 60 nominal.
        ("iphone_hevc_vfr_1080p60.mov", "hevc", 123, [1920, 1080], ["60/1", "18000/299"], []),
      ]

  @Test(arguments: recordings.map(\.file))
  func iphoneRecordingPassesIOS17(_ file: String) throws {
    let entry = try #require(Self.recordings.first { $0.file == file })
    let path = "\(Self.compatFixtures)/\(file)"
    let stream = try ffprobeVideo(path)
    #expect(stream["codec_name"] as? String == entry.codec)
    #expect(stream["level"] as? Int == entry.level)
    #expect([stream["width"] as? Int, stream["height"] as? Int] == entry.size)
    #expect(stream["r_frame_rate"] as? String == entry.rates[0])
    #expect(stream["avg_frame_rate"] as? String == entry.rates.last)
    if entry.codec == "hevc" { #expect(stream["codec_tag_string"] as? String == "hvc1") }

    let results = try verdicts(path, "ios-17,apple-hls")
    let ios = try #require(results.first)
    #expect(ios["verdict"] as? String == "pass", "\(ios["findings"] ?? "")")
    let hls = try #require(results.last)
    let failing = ((hls["findings"] as? [[String: Any]]) ?? []).filter {
      $0["severity"] as? String == "fail"
    }
    #expect(Set(failing.compactMap { $0["field"] as? String }) == entry.hls, "\(failing)")
    #expect(hls["verdict"] as? String == (entry.hls.isEmpty ? "pass" : "fail"))
  }

  /// A frame-rate limit is compared with the nominal rate: the variable-rate clip averages 60.2
  /// fps (ffprobe: avg_frame_rate 18000/299) and passes "no more than 60 fps"; 240 fps does not.
  @Test func frameRateLimitUsesTheNominalRate() throws {
    let vfr = "\(Self.compatFixtures)/iphone_hevc_vfr_1080p60.mov"
    let average = try #require(try ffprobeVideo(vfr)["avg_frame_rate"] as? String)
    let parts = average.split(separator: "/").compactMap { Double($0) }
    #expect(parts.count == 2 && parts[0] / parts[1] > 60.1)
    let hls = try #require(try verdicts(vfr, "apple-hls").first)
    let findings = (hls["findings"] as? [[String: Any]]) ?? []
    #expect(!findings.contains { $0["field"] as? String == "video.frame_rate" })
    let fast = try #require(
      try verdicts("\(Self.compatFixtures)/iphone_hevc_1080p240.mov", "apple-hls").first)
    let rate = ((fast["findings"] as? [[String: Any]]) ?? []).first {
      $0["field"] as? String == "video.frame_rate"
    }
    #expect(rate?["actual"] as? String == "240" && rate?["severity"] as? String == "fail")
  }

  // MARK: - Item 15: every suggestion is checked

  /// For every modern platform and every fix kind, a fixture that fails there with exactly that
  /// fix (by construction: a container, an audio codec or a video property the platform's rows
  /// and rules exclude).
  static let suggestionCases: [(platform: String, fix: String, fixture: String)] = [
    ("ios-17", "remux", "\(fixturesDirectory)/h264_30fps.mkv"),
    ("ios-17", "transcode-audio", "\(compatFixtures)/pcm_f64le.wav"),
    ("ios-17", "transcode-video", "\(fixturesDirectory)/compat_11_h264_main_1080i.mp4"),
    ("apple-hls", "remux", "\(fixturesDirectory)/h264_30fps.mkv"),
    ("apple-hls", "transcode-audio", "\(compatFixtures)/opus.mp4"),
    ("apple-hls", "transcode-video", "\(compatFixtures)/iphone_h264_high_l52_2160p60.mov"),
    ("safari", "remux", "\(fixturesDirectory)/compat_05_hevc_main10_2160p_hev1.mp4"),
    ("safari", "transcode-audio", "\(compatFixtures)/pcm_f64le.wav"),
    ("safari", "transcode-video", "\(fixturesDirectory)/compat_09_mpeg4_sp_480p_2M.mp4"),
    ("chrome", "remux", "\(fixturesDirectory)/h264_60fps.ts"),
    ("chrome", "transcode-audio", "\(compatFixtures)/ac3.mp4"),
    ("chrome", "transcode-video", "\(fixturesDirectory)/compat_09_mpeg4_sp_480p_2M.mp4"),
    ("firefox", "remux", "\(fixturesDirectory)/h264_60fps.ts"),
    ("firefox", "transcode-audio", "\(compatFixtures)/eac3.mp4"),
    ("firefox", "transcode-video", "\(compatFixtures)/mpeg4_asp.mp4"),
    ("android-14", "remux", "\(fixturesDirectory)/h264_23.976fps.mov"),
    ("android-14", "transcode-audio", "\(compatFixtures)/alac.m4a"),
    ("android-14", "transcode-video", "\(compatFixtures)/mpeg4_asp.mp4"),
  ]

  /// The suggested command runs, and mediacompat passes what it wrote; a re-encode to H.264 is
  /// labelled with the level x264 itself picks for that size and frame rate (x264 chooses the
  /// lowest level whose Table A-1 limits allow the stream when no level is given).
  @Test(arguments: 0..<suggestionCases.count)
  func suggestionWritesAPassingFile(_ number: Int) throws {
    let (platform, fix, fixture) = Self.suggestionCases[number]
    let label = "\(platform) \(fix) \(fixture)"
    let directory = try TemporaryDirectory()
    let name = (fixture as NSString).lastPathComponent
    try FileManager.default.copyItem(
      atPath: packageRoot.appendingPathComponent(fixture).path, toPath: directory.path(name))
    let checked = try run(
      "mediacompat", ["--json", "--suggest", "--platform", platform, name], in: directory.url)
    let result = try #require(value(try checked.json(), "results", 0) as? [String: Any], "\(label)")
    #expect(result["verdict"] as? String == "fail", "\(label)")
    #expect(result["fixes"] as? [String] == [fix], "\(label): \(result["findings"] ?? "")")
    let suggestion = try #require(result["suggestion"] as? [String: Any], "\(label)")
    let arguments = try #require(suggestion["arguments"] as? [String])
    let output = try #require(suggestion["output"] as? String)
    if fix == "remux" { #expect(!arguments.contains { $0.hasPrefix("lib") }, "\(arguments)") }

    let converted = try run(
      arguments[0], Array(arguments.dropFirst()) + ["-v", "error"], in: directory.url)
    #expect(converted.status == 0, "\(label): \(converted.stderr)")
    let recheck = try run(
      "mediacompat", ["--json", "--platform", platform, output], in: directory.url)
    #expect(
      value(try recheck.json(), "results", 0, "verdict") as? String == "pass",
      "\(label): \(arguments.joined(separator: " ")) -> \(recheck.text)")

    guard fix == "transcode-video" else { return }
    let level = try #require(
      arguments.firstIndex(of: "-level").map { arguments[$0 + 1] }, "\(label)")
    let written = try ffprobeVideo(output, in: directory.url)
    let (width, height) = (written["width"] as? Int ?? 0, written["height"] as? Int ?? 0)
    let rate = written["r_frame_rate"] as? String ?? ""
    let profile = arguments.firstIndex(of: "-profile:v").map { arguments[$0 + 1] } ?? "high"
    let x264 = try x264Level(width: width, height: height, rate: rate, profile: profile)
    #expect(written["level"] as? Int == x264, "\(label): \(width)x\(height) at \(rate)")
    #expect(Int(((Double(level) ?? 0) * 10).rounded()) == x264, "\(label): -level \(level)")
    if platform == "apple-hls" {
      // The issue's case: a portrait 4K60 iPhone clip for HLS is 1080x1920 at 60 fps, which
      // needs level 4.2 (4.1 allows about 30 fps at that size).
      #expect([width, height, written["level"] as? Int] == [1080, 1920, 42])
      #expect(rate == "60/1")
    }
  }

  /// Every suggestion mediacompat makes for the acceptance table's files, on every platform
  /// (the 2012 ones too), runs and writes a file that passes there.
  @Test(arguments: [
    "iphone-2012", "android-2.3.3", "android-3.0", "android-4.0", "iphone-browser-2012",
    "ipad-browser-2012", "android-browser-2012", "mobile-low", "mobile-medium", "mobile-high",
    "ios-17", "android-14", "chrome", "safari", "firefox", "apple-hls",
  ])
  func everySuggestionForTheAcceptanceFilesPasses(_ platform: String) throws {
    let directory = try TemporaryDirectory()
    var names: [String] = []
    for fixture in MediaCompatTests.table.map(\.fixture) {
      try FileManager.default.copyItem(
        atPath: packageRoot.appendingPathComponent("\(fixturesDirectory)/\(fixture)").path,
        toPath: directory.path(fixture))
      names.append(fixture)
    }
    let checked = try run(
      "mediacompat", ["--json", "--suggest", "--platform", platform] + names, in: directory.url)
    let files = try #require(try checked.json() as? [[String: Any]])
    for file in files {
      guard let arguments = value(file, "results", 0, "suggestion", "arguments") as? [String],
        let output = value(file, "results", 0, "suggestion", "output") as? String
      else { continue }
      let converted = try run(
        arguments[0], Array(arguments.dropFirst()) + ["-v", "error"], in: directory.url)
      #expect(converted.status == 0, "\(platform): \(converted.stderr)")
      let recheck = try run(
        "mediacompat", ["--json", "--platform", platform, output], in: directory.url)
      #expect(
        value(try recheck.json(), "results", 0, "verdict") as? String == "pass",
        "\(platform): \(arguments.joined(separator: " ")) -> \(recheck.text)")
    }
  }

  /// The level x264 picks on its own for `width` x `height` at `rate` (2 frames, no -level).
  func x264Level(width: Int, height: Int, rate: String, profile: String) throws -> Int? {
    let directory = try TemporaryDirectory()
    let path = directory.path("level.h264")
    let made = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-f", "lavfi", "-i",
        "color=size=\(width)x\(height):rate=\(rate)",
        "-frames:v", "2", "-c:v", "libx264", "-profile:v", profile, "-pix_fmt", "yuv420p", path,
      ])
    try #require(made.status == 0, "\(made.stderr)")
    return try ffprobeVideo(path)["level"] as? Int
  }

  /// A float64 WAV on iOS is written as 32-bit float WAV, not as AAC inside WAV (which fails
  /// "container wav").
  @Test func float64WavStaysWav() throws {
    let result = try #require(
      try verdicts("\(Self.compatFixtures)/pcm_f64le.wav", "ios-17", ["--suggest"]).first)
    let arguments = try #require(value(result, "suggestion", "arguments") as? [String])
    // The deepest float PCM the platform's WAV row lists (Apple: "Linear PCM").
    #expect(arguments.firstIndex(of: "-c:a").map { arguments[$0 + 1] } == "pcm_f32le")
    #expect(!arguments.contains("aac"))
    #expect((arguments.last ?? "").hasSuffix(".ios-17.wav"))
  }

  // MARK: - 32-bit FLAC

  /// flac_32bit.flac (32 bits by construction: sox and flac 1.4): Chromium plays 32-bit FLAC and
  /// Firefox ESR does not (browser oracle: Scripts/browser-oracle's flac-s32 files); Android lists
  /// 16- and 24-bit FLAC; Apple lists FLAC without a bit depth (warnings).
  @Test func thirtyTwoBitFlac() throws {
    let platforms = ["ios-17", "android-14", "chrome", "safari", "firefox"]
    let results = try verdicts(
      "\(fixturesDirectory)/flac_32bit.flac", platforms.joined(separator: ","))
    #expect(results.map { $0["verdict"] as? String } == ["warn", "warn", "pass", "warn", "fail"])
    for result in results where result["verdict"] as? String != "pass" {
      let findings = (result["findings"] as? [[String: Any]]) ?? []
      #expect(findings.map { $0["field"] as? String } == ["audio.bit_depth"])
      #expect(findings.first?["actual"] as? String == "32")
    }
    // 24-bit FLAC is not flagged anywhere.
    let deep = try verdicts(
      "\(fixturesDirectory)/tone_24bit_96k.flac", platforms.joined(separator: ","))
    for result in deep {
      let findings = (result["findings"] as? [[String: Any]]) ?? []
      #expect(!findings.contains { $0["field"] as? String == "audio.bit_depth" })
    }
  }

  // MARK: - Rough edges

  /// `ios`, `android`, `chrome`, `safari` and `firefox` name the current platforms, and the
  /// list of platforms shows the aliases.
  @Test func firstNamesPeopleType() throws {
    let results = try verdicts(
      "\(fixturesDirectory)/compat_01_h264_baseline_480p_1.2M.mp4",
      "ios,android,chrome,safari,firefox")
    #expect(
      results.map { $0["platform"] as? String }
        == ["ios-17", "android-14", "chrome", "safari", "firefox"])
    let list = try run("mediacompat", ["--list-platforms"])
    let ios = list.text.split(separator: "\n").first { $0.hasPrefix("ios-17 ") }
    #expect(ios?.contains("iphone,ios") == true, "\(list.text)")
  }

  /// Without --platform the table has a column per modern platform (from --list-platforms);
  /// --all-platforms adds the 2012 ones; it cannot be combined with --platform.
  @Test func tableDefaultsToTheModernPlatforms() throws {
    let list = try #require(
      try run("mediacompat", ["--list-platforms", "--json"]).json() as? [[String: Any]])
    let modern = list.filter { $0["era"] as? String == "modern" }.compactMap { $0["id"] as? String }
    #expect(modern.count == 6)
    let file = "\(fixturesDirectory)/compat_01_h264_baseline_480p_1.2M.mp4"
    let table = try run("mediacompat", [file])
    let header = table.text.split(separator: "\n").first.map {
      $0.split(separator: " ").map(String.init)
    }
    #expect(header == ["FILE"] + modern, "\(table.text)")
    let all = try run("mediacompat", ["--all-platforms", file])
    let allHeader = all.text.split(separator: "\n").first?.split(separator: " ")
    #expect(allHeader?.count == 1 + list.count)
    #expect(try run("mediacompat", ["--all-platforms", "--platform", "ios", file]).status == 64)
  }

  /// A file that cannot be probed is one line on standard error, not a row of "error" cells;
  /// the others are still checked, and the exit status is 2.
  @Test func missingFileIsOneErrorLine() throws {
    let good = "\(fixturesDirectory)/compat_01_h264_baseline_480p_1.2M.mp4"
    let result = try run("mediacompat", ["Tests/Fixtures/no-such-file.mp4", good])
    #expect(result.status == 2)
    let errors = result.stderr.split(separator: "\n")
    #expect(errors.count == 1 && errors[0].contains("no-such-file.mp4"), "\(result.stderr)")
    #expect(!result.text.contains("error") && !result.text.contains("no-such-file"))
    #expect(result.text.split(separator: "\n").count == 2, "\(result.text)")  // header + good
  }
}
