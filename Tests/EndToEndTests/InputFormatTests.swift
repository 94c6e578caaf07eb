import Foundation
import Testing

/// How inputs are recognized and opened (issue 20, items 7-10), on the fixtures of
/// Scripts/make-input-fixtures.sh: an MP3 behind junk that FFmpeg's probe calls AMR, JPEG photos
/// that it hands to the pattern-reading image2, HEIF/AVIF stills, Dolby Vision sample entries.
/// Each check first shows that FFmpeg really gets the fixture wrong (so the test can fail), then
/// compares with an oracle: ffmpeg's decoder, ffprobe where it is right, libheif's heif-info, the
/// construction.
@Suite struct InputFormatTests {
  static let folder = "Tests/InputFixtures"

  /// mediaprobe's JSON object for one input.
  func probeInput(_ path: String, _ options: [String] = []) throws -> [String: Any] {
    let result = try run("mediaprobe", options + [path])
    return try #require(try result.json() as? [String: Any], "mediaprobe \(path): \(result.stderr)")
  }

  /// ffprobe's format name and probe score.
  func ffprobeFormat(_ path: String) throws -> (name: String, score: Int) {
    let result = try run(
      "ffprobe",
      ["-v", "quiet", "-show_entries", "format=format_name,probe_score", "-of", "csv=p=0", path])
    let fields = result.text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
    return (fields.dropLast().joined(separator: ","), Int(fields.last ?? "") ?? -1)
  }

  /// Validates mediaprobe output against its schema.
  func validate(_ data: Data) throws {
    let validation = try run(
      "python3", ["Scripts/validate-json.py", "schemas/mediaprobe.schema.json", "-"], stdin: data)
    #expect(validation.status == 0, "\(validation.stderr)")
  }

  // MARK: - 7: junk before an MP3

  /// The samples ffmpeg decodes from the clean MP3: the presented length (it applies the LAME
  /// tag's delay and padding, as mediaprobe's duration does).
  func cleanSamples() throws -> Int {
    try ffmpegPCM("\(Self.folder)/tone.mp3", format: "s16le").count / 2
  }

  @Test func junkThatLooksLikeAMRBeforeAnMP3() throws {
    let path = "\(Self.folder)/amr_junk.mp3"
    // FFmpeg's probe picks raw AMR-NB with a low score (the fixture shows the class).
    let ffprobe = try ffprobeFormat(path)
    #expect(ffprobe.name == "amrnb" && ffprobe.score < 50, "\(ffprobe)")
    let json = try probeInput(path)
    #expect(value(json, "container", "format_name") as? String == "mp3")
    #expect(json["warnings"] as? [String] == ["format_mismatch", "leading_junk"])
    // The duration is the clean MP3's presented length (ffmpeg's decoder), exact.
    let samples = try cleanSamples()
    #expect(samples == 22050)  // 1 s at 22.05 kHz by construction
    #expect(value(json, "duration", "value") as? Int == samples)
    #expect(value(json, "duration", "timescale") as? Int == 22050)
    #expect(value(json, "duration", "estimated") as? Bool == false)
    let audio = try #require(firstStream(json, "audio"))
    #expect(value(audio, "codec", "name") as? String == "mp3")
    #expect(value(audio, "audio", "sample_rate") as? Int == 22050)
    let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
    #expect(json["size_bytes"] as? Int == size)
    try validate(try run("mediaprobe", [path]).stdout)
  }

  @Test func media2wavDecodesTheMP3BehindTheJunk() throws {
    let directory = try TemporaryDirectory()
    let output = directory.path("out.wav")
    let result = try run(
      "media2wav", ["--json", "\(Self.folder)/amr_junk.mp3", "-o", output])
    #expect(result.status == 0, "\(result.stderr)")
    let warnings = try #require(value(try result.json(), "warnings") as? [String])
    #expect(warnings.contains { $0.hasPrefix("format_mismatch:") }, "\(warnings)")
    #expect(warnings.contains { $0.hasPrefix("leading_junk:") }, "\(warnings)")
    // Byte for byte what ffmpeg decodes from the MP3 without the junk.
    let written = try Data(contentsOf: URL(fileURLWithPath: output)).dropFirst(44)
    #expect(written == (try ffmpegPCM("\(Self.folder)/tone.mp3", format: "s16le")))
  }

  @Test func junkThatFFmpegDoesNotSkip() throws {
    // 100 kB of zeros: past the 64 KiB FFmpeg's mp3 demuxer searches, so ffprobe estimates the
    // duration from the bit rate over the zeros too.
    let directory = try TemporaryDirectory()
    let path = directory.path("zeros.mp3")
    let tone = try Data(contentsOf: packageRoot.appendingPathComponent("\(Self.folder)/tone.mp3"))
    try (Data(count: 100_000) + tone).write(to: URL(fileURLWithPath: path))
    let ffprobe = try run(
      "ffprobe", ["-v", "quiet", "-show_entries", "format=duration", "-of", "csv=p=0", path])
    let estimate = try #require(
      Double(ffprobe.text.trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(estimate > 10, "ffprobe: \(estimate) s")
    let json = try probeInput(path)
    #expect(value(json, "container", "format_name") as? String == "mp3")
    #expect(json["warnings"] as? [String] == ["leading_junk"])
    #expect(value(json, "duration", "value") as? Int == (try cleanSamples()))
    #expect(value(json, "duration", "timescale") as? Int == 22050)
  }

  @Test func inputFormatChoosesTheDemuxer() throws {
    let path = "\(Self.folder)/amr_junk.mp3"
    // What the user asks for, without a mismatch warning: AMR-NB, as ffmpeg -f amrnb reads it.
    let amr = try probeInput(path, ["--input-format", "amrnb"])
    #expect(value(amr, "container", "format_name") as? String == "amrnb")
    #expect(value(firstStream(amr, "audio"), "codec", "name") as? String == "amr_nb")
    #expect(!((amr["warnings"] as? [String]) ?? []).contains("format_mismatch"))
    let mp3 = try probeInput(path, ["--input-format", "mp3"])
    #expect(value(mp3, "container", "format_name") as? String == "mp3")
    #expect(mp3["warnings"] as? [String] == ["leading_junk"])
    // media2wav decodes what the named demuxer reads: ffmpeg -f amrnb's samples.
    let directory = try TemporaryDirectory()
    let output = directory.path("amr.wav")
    let result = try run("media2wav", ["--input-format", "amrnb", path, "-o", output])
    #expect(result.status == 0, "\(result.stderr)")
    let written = try Data(contentsOf: URL(fileURLWithPath: output)).dropFirst(44)
    #expect(written == (try ffmpegPCM(path, before: ["-f", "amrnb"], format: "s16le")))
  }

  @Test(arguments: [
    ["mediaprobe"], ["media2wav"], ["mediacompat"], ["mediamerge", "-o", "out.mp4"],
    ["media2wav", "mix", "-o", "out.wav"],
  ])
  func everyToolTakesInputFormat(_ command: [String]) throws {
    let tool = command[0]
    let rest = Array(command.dropFirst())
    let input = "\(Self.folder)/tone.mp3"
    // An unknown name is a usage error that says where the names come from, with close ones.
    let unknown = try run(tool, rest + ["--input-format", "mp33", input])
    #expect(unknown.status == 64, "\(command): \(unknown.stderr)")
    #expect(unknown.stderr.contains("ffmpeg -demuxers"), "\(unknown.stderr)")
    #expect(unknown.stderr.contains("did you mean mp3"), "\(unknown.stderr)")
    // A demuxer that opens other files needs --allow-references.
    let concat = try run(tool, rest + ["--input-format", "concat", input])
    #expect(concat.status == 64, "\(command): \(concat.stderr)")
    #expect(concat.stderr.contains("--allow-references"), "\(concat.stderr)")
  }

  @Test func mediacompatReadsWithTheNamedDemuxer() throws {
    let result = try run(
      "mediacompat",
      ["--json", "--platform", "chrome", "--input-format", "mp3", "\(Self.folder)/amr_junk.mp3"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.text.contains("\"pass\""), "\(result.text)")
  }

  @Test func mediamergeProbesWithTheNamedDemuxer() throws {
    let clips = ["Tests/MergeFixtures/landscape.mp4", "Tests/MergeFixtures/portrait.mp4"]
    let directory = try TemporaryDirectory()
    let output = directory.path("out.mp4")
    // An MP4 read as Matroska fails in the probe, with the demuxer named.
    let wrong = try run(
      "mediamerge", ["--plan", "--input-format", "matroska"] + clips + ["-o", output])
    #expect(value(try wrong.json(), "error", "code") as? String == "corrupt", "\(wrong.text)")
    #expect(wrong.stderr.contains("matroska"), "\(wrong.stderr)")
    let right = try run(
      "mediamerge", ["--plan", "--input-format", "mp4"] + clips + ["-o", output])
    #expect(right.status == 0, "\(right.stderr)")
    #expect(value(try right.json(), "error") == nil)
  }

  // MARK: - 8: JPEG photos

  @Test func aJPEGIsOnePicture() throws {
    let path = "\(Self.folder)/photo.jpg"
    #expect(try ffprobeFormat(path).name == "image2")  // what the tools refused before
    let json = try probeInput(path)
    #expect(value(json, "container", "format_name") as? String == "jpeg_pipe")
    let streams = try #require(json["streams"] as? [[String: Any]])
    #expect(streams.count == 1)
    let video = try #require(firstStream(json, "video"))
    #expect(value(video, "codec", "name") as? String == "mjpeg")
    #expect(value(video, "disposition", "still_image") as? Bool == true)
    // The size ffprobe reports (and the construction: 160x120).
    let size = try run(
      "ffprobe",
      ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", path])
    #expect(size.text.trimmingCharacters(in: .whitespacesAndNewlines) == "160,120")
    #expect(value(video, "video", "width") as? Int == 160)
    #expect(value(video, "video", "height") as? Int == 120)
    // A picture has no duration or frame rate.
    #expect(value(json, "duration") == nil)
    #expect(value(video, "duration") == nil)
    #expect(value(video, "video", "frame_rate", "best") == nil)
    #expect(value(video, "video", "orientation", "name") as? String == "up")
    let summary = try run("mediaprobe", ["--summary", path])
    #expect(summary.text.contains("mjpeg 160x120 still image"), "\(summary.text)")
    // A scan counts its one frame.
    let scanned = try probeInput(path, ["--scan"])
    #expect(value(firstStream(scanned, "video"), "frame_count") as? Int == 1)
    try validate(try run("mediaprobe", [path]).stdout)
  }

  @Test(arguments: [
    (6, "right", 90, false), (5, "left_mirrored", 90, true),
  ])
  func exifOrientation(_ exif: Int, _ name: String, _ rotation: Int, _ mirrored: Bool) throws {
    let path = "\(Self.folder)/photo_exif\(exif).jpg"
    // FFmpeg's own EXIF parser reads the value the fixture was built with.
    let frames = try run("ffprobe", ["-v", "error", "-show_frames", path])
    #expect(frames.text.contains("TAG:Orientation=    \(exif)"), "\(frames.text)")
    // reference/probe.md's table (UIImageOrientation: EXIF 6 right, 5 left mirrored).
    let video = try #require(firstStream(try probeInput(path), "video"))
    #expect(value(video, "video", "orientation", "name") as? String == name)
    #expect(value(video, "video", "orientation", "rotation") as? Int == rotation)
    #expect(value(video, "video", "orientation", "mirrored") as? Bool == mirrored)
    #expect(value(video, "video", "orientation", "display_width") as? Int == 120)
    #expect(value(video, "video", "orientation", "display_height") as? Int == 160)
    #expect(value(video, "video", "orientation", "portrait") as? Bool == true)
  }

  /// A PNG's eXIf chunk and a WebP's EXIF chunk hold the same TIFF structure as a JPEG's APP1
  /// (Tests/FrameFixtures/wild_exif6.*, made by Scripts/make-wild-frame-fixtures.sh with
  /// Orientation 6 on a 48x32 picture: the construction is the oracle, and PIL's
  /// `ImageOps.exif_transpose` and the browsers turn such files): mediaprobe said `up`, while
  /// mediaframe turned them; both read them through one reader now.
  @Test(arguments: ["wild_exif6.png", "wild_exif6.webp"])
  func exifOrientationOfPNGAndWebP(_ name: String) throws {
    let video = try #require(
      firstStream(try probeInput("Tests/FrameFixtures/\(name)"), "video"))
    #expect(value(video, "video", "orientation", "name") as? String == "right")
    #expect(value(video, "video", "orientation", "rotation") as? Int == 90)
    #expect(value(video, "video", "orientation", "display_width") as? Int == 32)
    #expect(value(video, "video", "orientation", "display_height") as? Int == 48)
  }

  // MARK: - 9: HEIF and AVIF stills

  /// The primary image's size after its transformations, as libheif's heif-info prints it.
  func heifInfoSize(_ path: String) throws -> String? {
    let info = try run("heif-info", [path])
    return info.text.firstMatch(of: /image: ([0-9]+x[0-9]+) \(id=[0-9]+\), primary/).map {
      String($0.output.1)
    }
  }

  @Test func aHEIFStillIsUnsupportedNotTruncated() throws {
    for (name, size, detail) in [
      ("still.heic", "64x48", "64x48"),
      ("rotated.heic", "3024x4032", "4032x3024, rotated 90° clockwise"),
    ] {
      let path = "\(Self.folder)/\(name)"
      #expect(try heifInfoSize(path) == size, "\(name)")
      let result = try run("mediaprobe", [path])
      #expect(result.status == 1)
      let json = try result.json()
      #expect(value(json, "error", "code") as? String == "unsupported_format", "\(name)")
      let message = try #require(value(json, "error", "message") as? String)
      #expect(message.contains("HEIF image"), "\(message)")
      #expect(message.contains(detail), "\(message)")
      #expect(!message.contains("truncated"))
      try validate(result.stdout)
      // The other tools give the same code.
      let compat = try run("mediacompat", ["--json", "--platform", "chrome", path])
      #expect(compat.text.contains("unsupported_format"), "\(compat.text)")
      let directory = try TemporaryDirectory()
      let wav = try run("media2wav", ["--json", path, "-o", directory.path("x.wav")])
      #expect(value(try wav.json(), "error", "code") as? String == "unsupported_format")
    }
  }

  @Test func anAVIFStillIsOnePicture() throws {
    for (name, rotation, display) in [("still.avif", 0, "64x48"), ("rotated.avif", 270, "48x64")] {
      let path = "\(Self.folder)/\(name)"
      #expect(try heifInfoSize(path) == display, "\(name)")
      let video = try #require(firstStream(try probeInput(path), "video"))
      #expect(value(video, "codec", "name") as? String == "av1")
      #expect(value(video, "disposition", "still_image") as? Bool == true)
      #expect(value(video, "video", "width") as? Int == 64)
      #expect(value(video, "video", "height") as? Int == 48)
      #expect(value(video, "frame_count") as? Int == 1)
      #expect(value(video, "duration") == nil)
      #expect(value(video, "video", "orientation", "rotation") as? Int == rotation)
      let width = value(video, "video", "orientation", "display_width") as? Int ?? 0
      let height = value(video, "video", "orientation", "display_height") as? Int ?? 0
      #expect("\(width)x\(height)" == display)
    }
  }

  // MARK: - 10: Dolby Vision

  struct DolbyVisionCase: Sendable, CustomTestStringConvertible {
    var fourcc: String, base: String, codec: String, profile: Int, level: Int, compatibility: Int
    var testDescription: String { fourcc }
  }

  /// What Scripts/make-input-fixtures.sh wrote into each fixture.
  static let dolbyVision = [
    DolbyVisionCase(
      fourcc: "dav1", base: "av01", codec: "av1", profile: 10, level: 1, compatibility: 1),
    DolbyVisionCase(
      fourcc: "dvh1", base: "hvc1", codec: "hevc", profile: 8, level: 4, compatibility: 1),
    DolbyVisionCase(
      fourcc: "dvhe", base: "hvc1", codec: "hevc", profile: 5, level: 6, compatibility: 0),
    DolbyVisionCase(
      fourcc: "dva1", base: "avc1", codec: "h264", profile: 9, level: 3, compatibility: 2),
  ]

  @Test(arguments: dolbyVision)
  func dolbyVisionSampleEntries(_ expected: DolbyVisionCase) throws {
    let path = "\(Self.folder)/\(expected.fourcc).mp4"
    // The oracle for the codec: ffprobe on a copy with the base layer's own sample entry.
    let directory = try TemporaryDirectory()
    let base = directory.path("base.mp4")
    var bytes = try Data(contentsOf: packageRoot.appendingPathComponent(path))
    let ranges = bytes.ranges(of: Data(expected.fourcc.utf8))
    try #require(ranges.count == 1)
    bytes.replaceSubrange(ranges[0], with: Data(expected.base.utf8))
    try bytes.write(to: URL(fileURLWithPath: base))
    let oracle = try run(
      "ffprobe",
      ["-v", "error", "-show_entries", "stream=codec_name,profile", "-of", "csv=p=0", base])
    let fields = oracle.text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
    #expect(fields.first.map(String.init) == expected.codec)

    let json = try probeInput(path)
    let video = try #require(firstStream(json, "video"))
    #expect(value(video, "codec", "name") as? String == expected.codec)
    #expect(value(video, "codec", "tag") as? String == expected.fourcc)
    #expect(
      value(video, "codec", "profile") as? String == fields.dropFirst().first.map(String.init))
    let plain = try #require(firstStream(try probeInput(base), "video"))
    #expect(value(video, "codec", "level") as? String == value(plain, "codec", "level") as? String)
    #expect(value(video, "video", "hdr") as? String == "dolby_vision")
    // The record as built (rpu 1, el 0, bl 1) and as FFmpeg's parser exports it.
    let record = try #require(value(video, "video", "dolby_vision") as? [String: Any])
    #expect(record["version"] as? String == "1.0")
    #expect(record["profile"] as? Int == expected.profile)
    #expect(record["level"] as? Int == expected.level)
    #expect(record["rpu_present"] as? Bool == true)
    #expect(record["el_present"] as? Bool == false)
    #expect(record["bl_present"] as? Bool == true)
    #expect(record["bl_compatibility_id"] as? Int == expected.compatibility)
    let side = try run("ffprobe", ["-v", "error", "-show_streams", path])
    #expect(side.text.contains("dv_profile=\(expected.profile)"))
    #expect(side.text.contains("dv_bl_signal_compatibility_id=\(expected.compatibility)"))
    try validate(try run("mediaprobe", [path]).stdout)
    // The stream decodes: 3 frames (0.3 s at 10 fps by construction).
    let verified = try probeInput(path, ["--verify"])
    #expect(verified["integrity"] as? String == "ok")
    #expect(value(firstStream(verified, "video"), "decode", "frames") as? Int == 3)
  }
}
