import Foundation
import Testing

/// mediacompat on the acceptance cases of reference/compat.md, its suggestions run for real, and
/// its behaviour for scripts.
@Suite struct MediaCompatTests {
  static let platforms = [
    "iphone-2012", "android-2.3.3", "ios-17", "android-14", "chrome", "safari", "firefox",
  ]

  /// The acceptance table, row by row: the fixture made to match the row, and one cell per
  /// platform above (P pass, W warn, F fail; a fix when the table names one).
  static let table: [(row: Int, fixture: String, cells: [String])] = [
    (1, "compat_01_h264_baseline_480p_1.2M.mp4", ["P", "P", "P", "P", "P", "P", "P"]),
    (2, "compat_02_h264_baseline_480p_2M.mp4", ["F video.bit_rate", "P", "P", "P", "P", "P", "P"]),
    (
      3, "compat_03_h264_high_1080p_5M.mp4",
      ["F video.profile video.size", "F", "P", "W", "P", "P", "P"]
    ),
    (4, "compat_04_hevc_main10_2160p_hvc1.mp4", ["F", "F", "P", "W", "W", "P", "W"]),
    (5, "compat_05_hevc_main10_2160p_hev1.mp4", ["F", "F", "F remux", "W", "W", "F remux", "W"]),
    (6, "vp8_vorbis.webm", ["F", "P", "F", "P", "P", "W", "P"]),
    (7, "h264_30fps.mkv", ["F", "F", "F remux", "P", "W", "F remux", "W"]),
    (8, "compat_08_h263_qcif_amrnb.3gp", ["F", "P", "F", "W", "F", "F", "F"]),
    (9, "compat_09_mpeg4_sp_480p_2M.mp4", ["P", "F remux", "P", "P", "F", "F", "F"]),
    (10, "compat_10_av1_1080p.mp4", ["F", "F", "W", "P", "P", "W", "P"]),
    (11, "compat_11_h264_main_1080i.mp4", ["F", "F", "F video.interlaced", "W", "W", "F", "W"]),
  ]

  func check(_ fixture: String, _ options: [String]) throws -> [[String: Any]] {
    let result = try run("mediacompat", ["--json"] + options + ["\(fixturesDirectory)/\(fixture)"])
    return try #require(value(try result.json(), "results") as? [[String: Any]], "\(result.stderr)")
  }

  @Test(arguments: table.map(\.row))
  func acceptanceRow(_ row: Int) throws {
    let entry = try #require(Self.table.first { $0.row == row })
    let results = try check(entry.fixture, ["--platform", Self.platforms.joined(separator: ",")])
    #expect(results.map { $0["platform"] as? String } == Self.platforms)
    for (result, cell) in zip(results, entry.cells) {
      let words = cell.split(separator: " ").map(String.init)
      let expected = ["P": "pass", "W": "warn", "F": "fail"][words[0]]!
      let label = "row \(row) \(result["platform"] ?? "?")"
      #expect(result["verdict"] as? String == expected, "\(label)")
      let findings = (result["findings"] as? [[String: Any]]) ?? []
      for detail in words.dropFirst() {
        if detail == "remux" {
          #expect(result["fixes"] as? [String] == ["remux"], "\(label): only a remux is needed")
        } else {
          #expect(
            findings.contains {
              $0["field"] as? String == detail && $0["severity"] as? String == "fail"
            }, "\(label): \(detail) fails")
        }
      }
      // Every finding names its field, value, limit, reason, source and fix.
      for finding in findings {
        #expect(!(finding["source"] as? String ?? "").isEmpty, "\(label)")
        #expect(
          finding["fix"] is String && finding["limit"] is String && finding["reason"] is String,
          "\(label)")
      }
    }
  }

  @Test(arguments: [
    ("compat_05_hevc_main10_2160p_hev1.mp4", "ios-17"),
    ("compat_02_h264_baseline_480p_2M.mp4", "iphone-2012"),
    ("h264_30fps.mkv", "safari"), ("compat_11_h264_main_1080i.mp4", "ios-17"),
    ("vp8_vorbis.webm", "ios-17"),
    ("compat_08_h263_qcif_amrnb.3gp", "chrome"),
    ("compat_03_h264_high_1080p_5M.mp4", "iphone-2012"),
  ])
  func suggestionMakesTheFilePass(_ fixture: String, _ platform: String) throws {
    let directory = try TemporaryDirectory()
    let source = directory.path(fixture)
    try FileManager.default.copyItem(
      atPath: packageRoot.appendingPathComponent("\(fixturesDirectory)/\(fixture)").path,
      toPath: source)
    let result = try run("mediacompat", ["--json", "--suggest", "--platform", platform, source])
    #expect(result.status == 1)
    let suggestion = try #require(
      value(try result.json(), "results", 0, "suggestion") as? [String: Any])
    let arguments = try #require(suggestion["arguments"] as? [String])
    let output = try #require(suggestion["output"] as? String)
    if fixture.contains("hev1") || fixture.hasSuffix(".mkv") {
      #expect(arguments.contains("copy"), "a remux copies the streams")
    }
    let converted = try run(arguments[0], Array(arguments.dropFirst()) + ["-v", "error"])
    #expect(converted.status == 0, "\(converted.stderr)")
    let recheck = try run("mediacompat", ["--json", "--platform", platform, output])
    #expect(
      value(try recheck.json(), "results", 0, "verdict") as? String == "pass", "\(recheck.text)")
    #expect(recheck.status == 0)
  }

  @Test func exitCodes() throws {
    let pass = "\(fixturesDirectory)/compat_01_h264_baseline_480p_1.2M.mp4"
    #expect(try run("mediacompat", ["-q", "--platform", "ios-17", pass]).status == 0)
    #expect(
      try run("mediacompat", ["-q", "--platform", "ios-17", "\(fixturesDirectory)/h264_30fps.mkv"])
        .status == 1)
    // Warnings pass, unless --strict.
    let warned = "\(fixturesDirectory)/compat_10_av1_1080p.mp4"
    #expect(try run("mediacompat", ["-q", "--platform", "ios-17", warned]).status == 0)
    #expect(try run("mediacompat", ["-q", "--strict", "--platform", "ios-17", warned]).status == 1)
    #expect(try run("mediacompat", ["--platform", "windows-phone", pass]).status == 64)
    #expect(
      try run(
        "mediacompat", ["--platform", "ios-17", "\(fixturesDirectory)/hostile_empty.mp4", pass]
      ).status == 2)
    #expect(try run("mediacompat", []).status == 64)
    #expect(try run("mediacompat", ["--delivery", "carrier-pigeon", pass]).status == 64)
  }

  @Test func deliveryAdvisories() throws {
    // orient_up.mp4 has moov after mdat: fine as a file, a warning for Android streaming.
    let file = try check("orient_up.mp4", ["--platform", "android-14"])
    #expect(file.first?["verdict"] as? String == "pass")
    let stream = try check("orient_up.mp4", ["--platform", "android-14", "--delivery", "stream"])
    #expect(stream.first?["verdict"] as? String == "warn")
    #expect(
      (stream.first?["findings"] as? [[String: Any]])?.first?["field"] as? String
        == "file.fast_start")
    // Over 10 minutes on cellular needs HLS (Apple).
    let directory = try TemporaryDirectory()
    let long = directory.path("long.m4a")
    let made = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "660",
        "-c:a", "aac", "-b:a", "16k", long,
      ])
    try #require(made.status == 0)
    let result = try run(
      "mediacompat", ["--json", "--platform", "ios-17", "--delivery", "stream", long])
    let findings = try #require(
      value(try result.json(), "results", 0, "findings") as? [[String: Any]])
    #expect(
      findings.contains {
        $0["rule"] as? String == "cellular-hls" && $0["severity"] as? String == "warn"
      })
  }

  @Test func listAndExplain() throws {
    let list = try run("mediacompat", ["--list-platforms", "--json"])
    #expect(list.status == 0)
    let entries = try #require(try list.json() as? [[String: Any]])
    #expect(entries.count == 16)
    #expect(
      entries.contains {
        $0["id"] as? String == "ios-17" && ($0["aliases"] as? [String]) == ["iphone", "ios"]
      })
    let explained = try run("mediacompat", ["--explain", "iphone-2012"])
    #expect(explained.status == 0)
    #expect(explained.text.contains("320x240, 30 fps, 768 kbps"))
    #expect(explained.text.contains("Sources:"))
    // --explain says how the verdicts are verified: a real player for the browsers that run in
    // the tests, the documents alone for the others.
    #expect(
      try run("mediacompat", ["--explain", "chrome"]).text.contains(
        "verified: against a real player"))
    #expect(try run("mediacompat", ["--explain", "firefox"]).text.contains("Firefox ESR"))
    #expect(try run("mediacompat", ["--explain", "safari"]).text.contains("cited documents only"))
    #expect(explained.text.contains("verified: against the 2012-2013 source tables"))
    #expect(try run("mediacompat", ["--explain", "nope"]).status == 64)
  }

  @Test func mediaprobeCarriesTheSameVerdicts() throws {
    let fixture = "\(fixturesDirectory)/compat_05_hevc_main10_2160p_hev1.mp4"
    let probe = try run("mediaprobe", ["--compat", "iphone,safari", fixture])
    let compat = try run("mediacompat", ["--json", "--platform", "iphone,safari", fixture])
    let fromProbe = try JSONSerialization.data(
      withJSONObject: value(try probe.json(), "compat") as Any, options: [.sortedKeys])
    let fromCompat = try JSONSerialization.data(
      withJSONObject: value(try compat.json(), "results") as Any, options: [.sortedKeys])
    #expect(fromProbe == fromCompat)
  }

  /// The audio files of issue 8 (Tests/CompatFixtures, made by `make-fixtures.sh compat-audio`):
  /// one cell per platform of `audioPlatforms`. Where the cells come from:
  /// - chrome, firefox: what headless Chromium and Firefox ESR did with the same files in the
  ///   browser oracle (Scripts/browser-oracle, run by `make test`), which agrees with Chromium's
  ///   Audio/Video list and MDN where they speak;
  /// - ios-17, safari: Apple's iPhone specifications (AAC, MP3, Linear PCM, Apple Lossless, FLAC,
  ///   Dolby Digital, Dolby Digital Plus) and AVFileType (MP3, M4A, WAVE, AIFF, CAF, AMR, AC-3,
  ///   E-AC-3), caniuse (FLAC from Safari 11, Opus in WebM/MP4 from Safari 17), no Ogg and no
  ///   WebM in AVPlayer; W where no Apple document lists the combination;
  /// - android-14: Android's Supported media formats (MP3, AAC in MP4/ADTS, FLAC in FLAC/MP4/MKV,
  ///   Opus and Vorbis in Ogg/Matroska, Vorbis in MP4, AMR, 8- and 16-bit WAVE) and CDD 5.1.2
  ///   (PCM up to 24-bit); W where the list is silent (AC-3, Opus in MP4, FLAC in Ogg, 32-bit PCM).
  static let audioPlatforms = ["ios-17", "android-14", "chrome", "safari", "firefox"]
  static let audioTable: [(fixture: String, cells: String)] = [
    ("mp3.mp3", "P P P P P"),
    ("aac.m4a", "P P P P P"),  // brand 'M4A ': MP4 audio
    ("aac_isom.mp4", "P P P P P"),
    ("aac_adts.aac", "P P P P P"),
    ("alac.m4a", "P F F P F"),
    ("alac.caf", "P F F W F"),
    ("flac.flac", "P P P P P"),
    ("flac.mp4", "W P P W P"),
    ("flac.ogg", "F W P F P"),
    ("opus.ogg", "F P P F P"),
    ("opus.webm", "F P P W P"),
    ("opus.mp4", "W W P W P"),
    ("opus.caf", "W F F W F"),
    ("vorbis.ogg", "F P P F P"),
    ("vorbis.webm", "F P P W P"),
    ("vorbis.mp4", "F P P F F"),
    ("pcm_u8.wav", "P P P P P"),
    ("pcm_s16le.wav", "P P P P P"),
    ("pcm_s24le.wav", "P P P P P"),
    ("pcm_s32le.wav", "P W P P P"),
    ("pcm_f32le.wav", "P W P P P"),
    ("pcm_s16be.aiff", "P F F W F"),
    ("amr_nb.amr", "W P F W F"),
    ("amr_nb.3gp", "W P F F F"),
    ("ac3.ac3", "P F F W F"),
    ("eac3.eac3", "P F F W F"),
    ("ac3.mp4", "P W F P F"),
    ("eac3.mp4", "P W F P F"),
  ]

  @Test(arguments: audioTable.map(\.fixture))
  func audioFile(_ fixture: String) throws {
    let cells = try #require(Self.audioTable.first { $0.fixture == fixture }).cells
    let result = try run(
      "mediacompat",
      [
        "--json", "--platform", Self.audioPlatforms.joined(separator: ","),
        "Tests/CompatFixtures/\(fixture)",
      ])
    let results = try #require(value(try result.json(), "results") as? [[String: Any]])
    #expect(results.map { $0["platform"] as? String } == Self.audioPlatforms)
    for (result, cell) in zip(results, cells.split(separator: " ")) {
      let expected = ["P": "pass", "W": "warn", "F": "fail"][String(cell)]!
      let findings = (result["findings"] as? [[String: Any]]) ?? []
      #expect(
        result["verdict"] as? String == expected,
        "\(fixture) on \(result["platform"] ?? "?"): \(findings.map { $0["reason"] ?? "" })")
      // A warning says why: a reason and a source for every finding.
      for finding in findings {
        #expect(!(finding["reason"] as? String ?? "").isEmpty && finding["source"] is String)
      }
    }
  }

  /// Android lists FLAC as mono or stereo up to 48 kHz: a 96 kHz FLAC is a warning there.
  @Test func androidFlacAbove48kHz() throws {
    let results = try check("tone_24bit_96k.flac", ["--platform", "android-14"])
    #expect(results.first?["verdict"] as? String == "warn")
    let findings = (results.first?["findings"] as? [[String: Any]]) ?? []
    #expect(findings.map { $0["field"] as? String } == ["audio.sample_rate"])
  }

  /// H.264 + AAC in QuickTime (brand 'qt  ') plays in both browsers (browser oracle: Chromium and
  /// Firefox ESR play h264_aac.mov); it used to fail as an unknown container.
  @Test func quickTimePlaysInBrowsers() throws {
    let results = try check("h264_23.976fps.mov", ["--platform", "chrome,firefox"])
    #expect(results.map { $0["verdict"] as? String } == ["pass", "pass"])
  }

  /// The limit of a finding is the condition the file must meet: Matroska on chrome is warned
  /// because it is not among the containers Chromium documents (MP4/MOV, Ogg, WebM, WAV), not
  /// "container = mkv (not in mkv)".
  @Test func findingLimitIsTheRealCondition() throws {
    for platform in ["chrome", "firefox"] {
      let results = try check("h264_30fps.mkv", ["--platform", platform])
      let findings = try #require(results.first?["findings"] as? [[String: Any]])
      let container = try #require(findings.first { $0["field"] as? String == "container" })
      let limit = try #require(container["limit"] as? String)
      #expect(limit.hasPrefix("in ") && limit.contains("mp4") && limit.contains("webm"), "\(limit)")
      #expect(!limit.contains("mkv"), "\(platform): \(limit)")
    }
    let text = try run(
      "mediacompat", ["--platform", "chrome", "\(fixturesDirectory)/h264_30fps.mkv"])
    #expect(!text.text.contains("(not in mkv)"), "\(text.text)")
  }

  @Test func outputsValidateAndMatchGoldens() throws {
    let files = Self.table.map { "\(fixturesDirectory)/\($0.fixture)" }
    let json = try run(
      "mediacompat",
      ["--json", "--suggest", "--platform", Self.platforms.joined(separator: ",")] + files)
    try assertGolden(json.text, "mediacompat/acceptance.json")
    let directory = try TemporaryDirectory()
    let path = directory.path("out.json")
    try json.stdout.write(to: URL(fileURLWithPath: path))
    let lines = try run("mediacompat", ["--ndjson", "--delivery", "stream"] + files)
    let linesPath = directory.path("out.ndjson")
    try lines.stdout.write(to: URL(fileURLWithPath: linesPath))
    let validation = try run(
      "python3", ["Scripts/validate-json.py", "schemas/mediacompat.schema.json", path, linesPath])
    #expect(validation.status == 0, "\(validation.stderr)")
    let table = try run("mediacompat", ["--all-platforms"] + files)
    try assertGolden(table.text, "mediacompat/table.txt")
    let detail = try run(
      "mediacompat", ["--suggest", "--platform", "iphone-2012,ios-17,android-14"] + files.prefix(5))
    try assertGolden(detail.text, "mediacompat/detail.txt")
  }

  @Test func platformFilesValidateAgainstTheSchema() throws {
    let folder = "Sources/Compatibility/Platforms"
    let names = try FileManager.default.contentsOfDirectory(
      atPath: packageRoot.appendingPathComponent(folder).path
    )
    .filter { $0.hasSuffix(".json") }.sorted()
    #expect(names.count == 16)
    let validation = try run(
      "python3",
      ["Scripts/validate-json.py", "schemas/platform.schema.json"] + names.map { "\(folder)/\($0)" }
    )
    #expect(validation.status == 0, "\(validation.stderr)")
  }
}
