import Foundation
import Testing

/// mediamerge's export options (issue 25, Export): codecs, containers, presets, rates,
/// `--max-size`, fast start. Oracles: ffprobe (codec_name, codec_tag_string, profile, size,
/// bit rate), the top-level box order read by the parser below, the presets' stated sizes
/// (reference/composition.md §2, the scale filter's rule) and the cap arithmetic.
@Suite(.serialized) struct MediaMergeExportTests {
  /// Makes a clip by construction with the ffmpeg CLI: `video` a lavfi source description,
  /// with a 440 Hz tone, `seconds` long, H.264 + AAC.
  static func clip(
    _ name: String, video: String, seconds: Double, in directory: TemporaryDirectory,
    crf: Int = 18
  ) throws -> String {
    let path = directory.path(name)
    let made = try run(
      "ffmpeg",
      [
        "-v", "error", "-y", "-f", "lavfi", "-i", video, "-f", "lavfi", "-i",
        "sine=f=440:r=48000", "-t", "\(seconds)", "-c:v", "libx264", "-preset", "veryfast",
        "-crf", "\(crf)", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k", path,
      ])
    #expect(made.status == 0, "\(made.stderr)")
    return path
  }

  /// ffprobe's streams of `path`: `[codec_type: [key: value]]` for the first of each type.
  static func streams(_ path: String) throws -> [String: [String: Any]] {
    let probe = try run(
      "ffprobe",
      [
        "-v", "error", "-show_entries",
        "stream=codec_type,codec_name,codec_tag_string,profile,width,height,bit_rate,sample_rate",
        "-of", "json", path,
      ])
    let json = try JSONSerialization.jsonObject(with: probe.stdout) as? [String: Any]
    var result: [String: [String: Any]] = [:]
    for stream in json?["streams"] as? [[String: Any]] ?? [] {
      let type = stream["codec_type"] as? String ?? "?"
      if result[type] == nil { result[type] = stream }
    }
    return result
  }

  /// The top-level ISO BMFF box types of `path`, in order: an independent parser (32-bit size,
  /// `size == 1` a 64-bit size after the type, `size == 0` to the end).
  static func boxes(_ path: String) throws -> [String] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    var offset = 0
    var types: [String] = []
    while offset + 8 <= data.count {
      var size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
      types.append(String(decoding: data[offset + 4..<offset + 8], as: UTF8.self))
      if size == 1 {
        size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) }
      } else if size == 0 {
        break
      }
      guard size >= 8 else { break }
      offset += size
    }
    return types
  }

  /// `moov` before the first `mdat`.
  static func fastStart(_ path: String) throws -> Bool {
    let types = try boxes(path)
    guard let movie = types.firstIndex(of: "moov"), let data = types.firstIndex(of: "mdat") else {
      return false
    }
    return movie < data
  }

  @Test(
    arguments: [
      // (video codec, audio codec, extension, codec_name, codec_tag_string, profile)
      ("h264", "aac", "mp4", "h264", "avc1", "High"),
      ("hevc", "aac", "mp4", "hevc", "hvc1", "Main"),
      ("hevc", "aac", "mov", "hevc", "hvc1", "Main"),
      ("vp9", "opus", "webm", "vp9", nil, "Profile 0"),
      ("vp9", "opus", "mp4", "vp9", "vp09", "Profile 0"),
      ("av1", "aac", "mp4", "av1", "av01", "Main"),
      ("av1", "opus", "mkv", "av1", nil, "Main"),
    ] as [(String, String, String, String, String?, String)])
  func codecsAndContainers(
    video: String, audio: String, ext: String, name: String, tag: String?, profile: String
  ) throws {
    let directory = try TemporaryDirectory()
    let input = try Self.clip(
      "in.mp4", video: "testsrc2=s=176x144:r=25", seconds: 1, in: directory)
    let output = directory.path("out.\(ext)")
    let result = try run(
      "mediamerge",
      ["-q", "--video-codec", video, "--audio-codec", audio, input, "-o", output])
    #expect(result.status == 0, "\(result.stderr)")
    let streams = try Self.streams(output)
    #expect(streams["video"]?["codec_name"] as? String == name)
    #expect(streams["video"]?["profile"] as? String == profile)
    #expect(streams["video"]?["width"] as? Int == 176)
    #expect(streams["video"]?["height"] as? Int == 144)
    #expect(streams["audio"]?["codec_name"] as? String == audio)
    if let tag { #expect(streams["video"]?["codec_tag_string"] as? String == tag) }
    if ["mp4", "mov"].contains(ext) {
      let boxes = try Self.boxes(output)
      #expect(try Self.fastStart(output), "\(boxes)")
    }
  }

  @Test(arguments: [
    (["--video-codec", "h264"], "webm", "h264 video cannot go into .webm"),
    (["--audio-codec", "aac"], "mkv", "aac audio cannot go into .mkv"),
    (["--video-codec", "vp9"], "mov", "vp9 video cannot go into .mov"),
    (["--preset", "m4a"], "mp4", "--preset m4a writes audio-only"),
    (["--preset", "hevc-highest"], "webm", "hevc video cannot go into .webm"),
  ])
  func impossiblePairsAreRefusedBeforeRendering(
    options: [String], ext: String, message: String
  ) throws {
    let directory = try TemporaryDirectory()
    let input = try Self.clip(
      "in.mp4", video: "testsrc2=s=176x144:r=25", seconds: 1, in: directory)
    let result = try run("mediamerge", options + [input, "-o", directory.path("out.\(ext)")])
    #expect(result.status == 1)
    #expect(result.stderr.contains("[unsupported_encoding]"), "\(result.stderr)")
    #expect(result.stderr.contains(message), "\(result.stderr)")
    #expect(directory.contents == ["in.mp4"])
  }

  /// The presets' sizes and codecs: the table in docs/mediamerge.md (the box fitted by the
  /// scale filter's rule, `force_original_aspect_ratio=decrease:force_divisible_by=2`, never
  /// scaling up), computed here from a 1280x720 source.
  @Test(arguments: [
    ("low", 224, 126, "h264", "Main"),
    ("medium", 568, 320, "h264", "Main"),
    ("640x480", 640, 360, "h264", "High"),
    ("AVAssetExportPreset960x540", 960, 540, "h264", "High"),
    ("1920x1080", 1280, 720, "h264", "High"),
    ("hevc-1920x1080", 1280, 720, "hevc", "Main"),
  ])
  func presetsGiveTheirSizesAndCodecs(
    preset: String, width: Int, height: Int, codec: String, profile: String
  ) throws {
    let directory = try TemporaryDirectory()
    let input = try Self.clip(
      "in.mp4", video: "testsrc2=s=1280x720:r=10", seconds: 0.5, in: directory, crf: 30)
    let output = directory.path("out.mp4")
    let result = try run("mediamerge", ["-q", "--preset", preset, input, "-o", output])
    #expect(result.status == 0, "\(result.stderr)")
    let streams = try Self.streams(output)
    #expect(streams["video"]?["width"] as? Int == width)
    #expect(streams["video"]?["height"] as? Int == height)
    #expect(streams["video"]?["codec_name"] as? String == codec)
    #expect(streams["video"]?["profile"] as? String == profile)
    if codec == "hevc" { #expect(streams["video"]?["codec_tag_string"] as? String == "hvc1") }
    #expect(try Self.fastStart(output))
  }

  @Test func m4aPresetWritesAudioOnly() throws {
    let directory = try TemporaryDirectory()
    let input = try Self.clip(
      "in.mp4", video: "testsrc2=s=176x144:r=25", seconds: 1, in: directory)
    let output = directory.path("out.m4a")
    let result = try run("mediamerge", ["-q", "--preset", "m4a", input, "-o", output])
    #expect(result.status == 0, "\(result.stderr)")
    let streams = try Self.streams(output)
    #expect(streams["video"] == nil)
    #expect(streams["audio"]?["codec_name"] as? String == "aac")
    #expect(try Self.boxes(output).prefix(2) == ["ftyp", "moov"])
  }

  @Test func passthroughCopiesOrRefuses() throws {
    let directory = try TemporaryDirectory()
    let a = try Self.clip("a.mp4", video: "testsrc2=s=176x144:r=25", seconds: 1, in: directory)
    let b = try Self.clip("b.mp4", video: "testsrc2=s=176x144:r=25", seconds: 1, in: directory)
    let copied = try run(
      "mediamerge", ["--preset", "passthrough", a, b, "-o", directory.path("out.mp4")])
    #expect(copied.status == 0, "\(copied.stderr)")
    #expect(copied.stderr.contains("copied"), "\(copied.stderr)")
    let other = try Self.clip("c.mp4", video: "testsrc2=s=160x120:r=25", seconds: 1, in: directory)
    let refused = try run(
      "mediamerge", ["--preset", "passthrough", a, other, "-o", directory.path("no.mp4")])
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("[unsupported_encoding]"), "\(refused.stderr)")
    #expect(refused.stderr.contains("coded size"), "\(refused.stderr)")
  }

  /// `--bits-per-pixel 0.3` at 320x240 and 25 fps is 576,000 b/s (the recording post's rule);
  /// libx264's average over 4 s of a moving picture lands within 25% of it (ffprobe's stream
  /// bit rate). `--crf` and `--bitrate` exclude each other (usage error).
  @Test func bitsPerPixelSetsTheRate() throws {
    let directory = try TemporaryDirectory()
    let input = try Self.clip(
      "in.mp4", video: "testsrc2=s=320x240:r=25", seconds: 4, in: directory, crf: 10)
    let output = directory.path("out.mp4")
    let result = try run("mediamerge", ["-q", "--bits-per-pixel", "0.3", input, "-o", output])
    #expect(result.status == 0, "\(result.stderr)")
    let expected = 0.3 * 320 * 240 * 25
    let rate = Double(try Self.streams(output)["video"]?["bit_rate"] as? String ?? "0") ?? 0
    #expect(abs(rate - expected) / expected < 0.25, "\(rate) b/s, \(expected) asked")
    let both = try run(
      "mediamerge", ["--crf", "20", "--bitrate", "1M", input, "-o", directory.path("x.mp4")])
    #expect(both.status == 64)
    #expect(both.stderr.contains("give one of them"), "\(both.stderr)")
  }

  /// `--max-size` on three contents made by construction (4 s, 320x240, 25 fps): noise and a
  /// moving test pattern fill 95-100% of a 160 kB cap; one colour cannot, stays under it and
  /// says why. The report's numbers are checked against the file and the cap.
  @Test(arguments: [
    ("noise", "testsrc2=s=320x240:r=25,noise=alls=60:allf=t", true),
    ("pattern", "testsrc2=s=320x240:r=25", true),
    ("still", "color=c=gray:s=320x240:r=25", false),
  ])
  func maxSizeLandsUnderTheCap(name: String, source: String, fills: Bool) throws {
    let directory = try TemporaryDirectory()
    let input = try Self.clip("\(name).mp4", video: source, seconds: 4, in: directory, crf: 5)
    let document = #"{"version": 1, "clips": [{"source": "\#(name).mp4"}]}"#
    try Data(document.utf8).write(to: URL(fileURLWithPath: directory.path("doc.json")))
    _ = input
    let cap = 160_000
    let output = directory.path("out.mp4")
    let result = try run(
      "mediamerge",
      ["-q", "--composition", directory.path("doc.json"), "--max-size", "160kB", "-o", output])
    #expect(result.status == 0, "\(result.stderr)")
    let bytes = try #require(
      try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
    #expect(bytes <= cap)
    let json = try #require(try result.json() as? [String: Any])
    let size = try #require(json["size"] as? [String: Any])
    #expect(size["bytes"] as? Int == bytes)
    #expect(size["max_bytes"] as? Int == cap)
    #expect((size["passes"] as? Int ?? 0) >= 1)
    if fills {
      #expect(Double(bytes) >= 0.95 * Double(cap), "\(bytes) of \(cap): \(size)")
      #expect(size["reason"] is NSNull)
    } else {
      #expect(Double(bytes) < 0.95 * Double(cap))
      #expect((size["reason"] as? String)?.contains("fewer bits") == true, "\(size)")
    }
    #expect(try Self.fastStart(output))
  }

  /// `--max-size` where the first pass misses (made by construction: 4 s of 320x240 heavy noise,
  /// x264's one-pass ABR overshoots a 160 kB cap by about 30%, measured): the second pass is
  /// x264's two-pass rate control on the first pass's statistics and replayed pictures, and
  /// lands within 95-100% of the cap: 2 passes. The statistics live in a private directory under
  /// `$TMPDIR` (pointed at a directory of the test's): nothing is left there, nor beside the
  /// output. Oracles: the file's size on disk, ffprobe's frame count and duration (4 s at 25
  /// fps: 100 pictures, every one encoded in the replayed pass).
  @Test func maxSizeSecondPassLands() throws {
    let directory = try TemporaryDirectory()
    _ = try Self.clip(
      "in.mp4", video: "testsrc2=s=320x240:r=25,noise=alls=100:allf=t", seconds: 4,
      in: directory, crf: 10)
    let document = #"{"version": 1, "clips": [{"source": "in.mp4"}]}"#
    try Data(document.utf8).write(to: URL(fileURLWithPath: directory.path("doc.json")))
    let scratch = try TemporaryDirectory()
    let cap = 160_000
    let output = directory.path("out.mp4")
    let result = try run(
      "env",
      [
        "TMPDIR=\(scratch.url.path)", productsDirectory.appendingPathComponent("mediamerge").path,
        "-q", "--composition", directory.path("doc.json"), "--max-size", "160kB", "-o", output,
      ])
    #expect(result.status == 0, "\(result.stderr)")
    let bytes = try #require(
      try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
    #expect(bytes <= cap && Double(bytes) >= 0.95 * Double(cap), "\(bytes) of \(cap)")
    let json = try #require(try result.json() as? [String: Any])
    let size = try #require(json["size"] as? [String: Any])
    #expect(size["bytes"] as? Int == bytes)
    #expect(size["passes"] as? Int == 2, "\(size)")
    let attempts = try #require(size["attempts"] as? [[String: Any]])
    #expect(attempts.count == 2)
    if attempts.count == 2 {
      #expect((attempts[0]["bytes"] as? Int ?? 0) > cap, "the first pass misses: \(attempts)")
      #expect(attempts[0]["x264_pass"] as? Int == 1)
      #expect(attempts[0]["replayed"] as? Bool == false)
      #expect(attempts[1]["x264_pass"] as? Int == 2)
      #expect(attempts[1]["replayed"] as? Bool == true)
      #expect(attempts[1]["bytes"] as? Int == bytes)
    }
    #expect(size["reason"] is NSNull)
    #expect((size["minimum_psnr"] as? Double ?? 0) >= 12, "the self-check's floor with a rate set")
    #expect(scratch.contents.isEmpty, "left in TMPDIR: \(scratch.contents)")
    #expect(Set(directory.contents) == ["in.mp4", "doc.json", "out.mp4"], "\(directory.contents)")
    // The report, attempts included, follows its schema (Python's jsonschema).
    try expectValid(result.stdout, schema: "mediamerge-composition-report.schema.json")
    let probe = try run(
      "ffprobe",
      [
        "-v", "error", "-count_frames", "-select_streams", "v", "-show_entries",
        "stream=nb_read_frames:format=duration", "-of", "json", output,
      ])
    let probed = try #require(
      try JSONSerialization.jsonObject(with: probe.stdout) as? [String: Any])
    let stream = (probed["streams"] as? [[String: Any]])?.first
    #expect(stream?["nb_read_frames"] as? String == "100", "\(probed)")
    let duration = Double((probed["format"] as? [String: Any])?["duration"] as? String ?? "") ?? 0
    #expect(abs(duration - 4) < 0.05, "\(duration) s")
    #expect(try Self.fastStart(output))
  }

  /// `--preset m4a --max-size`: the output has no video, so the passes choose the AAC rate
  /// (at most the preset's 256 kb/s, at least 16 kb/s per channel). 6 s of stereo noise and a
  /// tone (made by construction) under 100 kB: the file is under the cap and within 95%
  /// of it, ffprobe's audio bit rate is the one reported (±5%), no video stream; the report is
  /// valid against its schema. Under 20 kB even 32 kb/s of stereo cannot fit:
  /// `max_size_unreachable`, nothing written. A generous cap keeps the preset's rate.
  @Test func m4aMaxSizeChoosesTheAudioRate() throws {
    let directory = try TemporaryDirectory()
    let input = directory.path("in.mp4")
    let made = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=176x144:r=25:d=6",
        "-f", "lavfi", "-i", "anoisesrc=d=6:a=0.3:r=48000", "-f", "lavfi", "-i",
        "sine=f=440:d=6:r=48000", "-filter_complex", "[1][2]amerge=inputs=2[a]", "-map", "0:v",
        "-map", "[a]", "-c:v", "libx264", "-c:a", "aac", "-b:a", "320k", input,
      ])
    #expect(made.status == 0, "\(made.stderr)")
    let document = #"{"version": 1, "clips": [{"source": "in.mp4"}]}"#
    try Data(document.utf8).write(to: URL(fileURLWithPath: directory.path("doc.json")))
    let output = directory.path("out.m4a")
    let result = try run(
      "mediamerge",
      [
        "-q", "--composition", directory.path("doc.json"), "--preset", "m4a", "--max-size",
        "100kB", "-o", output,
      ])
    #expect(result.status == 0, "\(result.stderr)")
    let json = try #require(try result.json() as? [String: Any])
    try expectValid(result.stdout, schema: "mediamerge-composition-report.schema.json")
    let size = try #require(json["size"] as? [String: Any])
    let bytes = try #require(
      try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
    #expect(bytes <= 100_000 && Double(bytes) >= 95_000, "\(bytes): \(size)")
    #expect(size["bytes"] as? Int == bytes)
    #expect(size["video_bit_rate"] is NSNull)
    let chosen = try #require(size["audio_bit_rate"] as? Int)
    #expect(chosen < 256_000 && chosen >= 32_000, "\(size)")
    let streams = try Self.streams(output)
    #expect(streams["video"] == nil)
    let measured = Double(streams["audio"]?["bit_rate"] as? String ?? "") ?? 0
    #expect(abs(measured - Double(chosen)) / Double(chosen) < 0.05, "\(measured) vs \(chosen)")
    #expect(try Self.fastStart(output))

    let refused = try run(
      "mediamerge",
      [
        "-q", "--composition", directory.path("doc.json"), "--preset", "m4a", "--max-size",
        "20kB", "-o", directory.path("small.m4a"),
      ])
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("[max_size_unreachable]"), "\(refused.stderr)")
    #expect(refused.stderr.contains("32000 b/s for 2 channels"), "\(refused.stderr)")
    #expect(!FileManager.default.fileExists(atPath: directory.path("small.m4a")))

    let roomy = try run(
      "mediamerge",
      [
        "-q", "--composition", directory.path("doc.json"), "--preset", "m4a", "--max-size",
        "1MB", "-o", directory.path("roomy.m4a"),
      ])
    #expect(roomy.status == 0, "\(roomy.stderr)")
    let roomySize = try #require((try roomy.json() as? [String: Any])?["size"] as? [String: Any])
    #expect(roomySize["audio_bit_rate"] as? Int == 256_000)
    #expect(roomySize["passes"] as? Int == 1)
    #expect((roomySize["reason"] as? String)?.contains("fewer bytes") == true, "\(roomySize)")
  }

  /// A cap that cannot hold the audio: `max_size_unreachable`, nothing written.
  @Test func maxSizeTooSmall() throws {
    let directory = try TemporaryDirectory()
    let input = try Self.clip(
      "in.mp4", video: "testsrc2=s=176x144:r=25", seconds: 2, in: directory)
    let result = try run(
      "mediamerge", ["--max-size", "20kB", input, "-o", directory.path("o.mp4")])
    #expect(result.status == 1)
    #expect(result.stderr.contains("[max_size_unreachable]"), "\(result.stderr)")
    #expect(directory.contents == ["in.mp4"])
  }

  /// `--platform` for a composition: the recipe's settings, and the verdict on the output.
  @Test func platformForCompositions() throws {
    let directory = try TemporaryDirectory()
    _ = try Self.clip("in.mp4", video: "testsrc2=s=176x144:r=25", seconds: 1, in: directory)
    let document = #"{"version": 1, "clips": [{"source": "in.mp4"}]}"#
    try Data(document.utf8).write(to: URL(fileURLWithPath: directory.path("doc.json")))
    let output = directory.path("out.mp4")
    let result = try run(
      "mediamerge",
      ["-q", "--composition", directory.path("doc.json"), "--platform", "ios-17", "-o", output])
    #expect(result.status == 0, "\(result.stderr)")
    let json = try #require(try result.json() as? [String: Any])
    #expect(json["platform"] as? String == "pass")
    let compat = try run("mediacompat", ["--platform", "ios-17", output])
    #expect(compat.status == 0, "\(compat.stderr)")
  }
}

/// Which codec goes into which container: mediamerge's table against libavformat's muxers
/// themselves (the ffmpeg CLI copying a stream of each codec into each container: the muxer
/// accepts it or refuses the header). Two refusals are ours on purpose and say so: AAC in
/// Matroska (no CodecDelay: 21 ms late) and video in .m4a (AppleM4A is audio only).
@Suite struct ExportPairingOracleTests {
  @Test func ourPairsAreTheMuxersPairs() throws {
    let directory = try TemporaryDirectory()
    // One short stream of each codec, in MP4 (which takes them all).
    let codecs = [
      ("h264", ["-c:v", "libx264"]), ("hevc", ["-c:v", "libx265", "-x265-params", "log-level=0"]),
      ("vp9", ["-c:v", "libvpx-vp9"]), ("av1", ["-c:v", "libsvtav1"]),
    ]
    for (name, options) in codecs {
      let made = try run(
        "ffmpeg",
        ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=64x64:r=5", "-t", "0.4"]
          + options + [directory.path("\(name).mp4")])
      #expect(made.status == 0, "\(made.stderr)")
    }
    for (name, encoder) in [("aac", "aac"), ("opus", "libopus")] {
      let made = try run(
        "ffmpeg",
        [
          "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=r=48000", "-t", "0.4", "-c:a",
          encoder, directory.path("\(name).mp4"),
        ])
      #expect(made.status == 0, "\(made.stderr)")
    }
    let clip = try MediaMergeExportTests.clip(
      "in.mp4", video: "testsrc2=s=64x64:r=5", seconds: 0.4, in: directory)
    let containers = [("mp4", "mp4"), ("mov", "mov"), ("webm", "webm"), ("mkv", "matroska")]
    for (ext, muxer) in containers {
      for stream in ["h264", "hevc", "vp9", "av1", "aac", "opus"] {
        let muxed = try run(
          "ffmpeg",
          [
            "-nostdin", "-v", "error", "-y", "-i", directory.path("\(stream).mp4"), "-c", "copy",
            "-f", muxer, directory.path("copy.\(ext)"),
          ])
        let video = ["h264", "hevc", "vp9", "av1"].contains(stream)
        let options =
          video
          ? ["--video-codec", stream, "--audio-codec", ext == "mov" ? "aac" : "opus"]
          : ["--audio-codec", stream] + (ext == "webm" ? ["--video-codec", "vp9"] : [])
        let planned = try run(
          "mediamerge", ["--plan"] + options + [clip, "-o", directory.path("out.\(ext)")])
        let ours = planned.status == 0
        let theirs = muxed.status == 0
        if ext == "mkv" && stream == "aac" {
          #expect(theirs && !ours, "AAC in Matroska: ours \(ours), the muxer's \(theirs)")
          #expect(planned.text.contains("unsupported_encoding"))
        } else {
          #expect(ours == theirs, "\(stream) in .\(ext): ours \(ours), the muxer's \(theirs)")
          if !ours { #expect(planned.text.contains("unsupported_encoding"), "\(planned.text)") }
        }
      }
    }
  }
}
