import Foundation
import Testing

/// `mediacompat --fix` (issue 23) on the fixtures of `Scripts/make-fix-fixtures.sh`, whose
/// needed step is known by construction. The oracles are ffmpeg's and ffprobe's: `streamhash`
/// of every packet (copy is copy), ffprobe's codecs, tags, durations and start times, ffmpeg's
/// `ssim`/`psnr` summaries, and the platform files' direct-play rows read as plain JSON.
@Suite("mediacompat --fix")
struct MediaCompatFixTests {
  static let fixtures = "Tests/FixFixtures"

  /// Runs `mediacompat --fix --ndjson ARGS` and returns the status and the records.
  func fix(_ arguments: [String]) throws -> (status: Int32, records: [[String: Any]], run: Run) {
    let result = try run("mediacompat", ["--fix", "--ndjson"] + arguments)
    let records = result.text.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    return (result.status, records, result)
  }

  /// ffmpeg's MD5 of every packet, per stream (`-c copy -f streamhash`).
  func streamHashes(_ path: String) throws -> [String] {
    let result = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-i", path, "-map", "0", "-c", "copy", "-f", "streamhash",
        "-hash", "md5", "-",
      ])
    #expect(result.status == 0, "ffmpeg: \(result.stderr)")
    return result.text.split(separator: "\n").map {
      String($0.split(separator: ",").last ?? "")
    }
  }

  /// ffprobe's streams and format.
  func ffprobe(_ path: String) throws -> (streams: [[String: Any]], format: [String: Any]) {
    let result = try run(
      "ffprobe",
      ["-v", "error", "-show_streams", "-show_format", "-of", "json", path])
    let json = try #require(try result.json() as? [String: Any], "ffprobe: \(result.stderr)")
    return (json["streams"] as? [[String: Any]] ?? [], json["format"] as? [String: Any] ?? [:])
  }

  func double(_ value: Any?) -> Double? {
    (value as? String).flatMap(Double.init) ?? (value as? Double)
  }

  /// The first audio start minus the first video start, from ffprobe.
  func syncOffset(_ streams: [[String: Any]]) -> Double? {
    let video = streams.first { $0["codec_type"] as? String == "video" }
    let audio = streams.first { $0["codec_type"] as? String == "audio" }
    guard let v = double(video?["start_time"]), let a = double(audio?["start_time"]) else {
      return nil
    }
    return a - v
  }

  /// Durations within one frame (25 fps) and the A/V offset within one AAC frame at 48 kHz.
  func expectTimingKept(_ input: String, _ output: String) throws {
    let a = try ffprobe(input)
    let b = try ffprobe(output)
    let inDuration = try #require(double(a.format["duration"]))
    let outDuration = try #require(double(b.format["duration"]))
    #expect(abs(inDuration - outDuration) <= 1.0 / 25 + 1e-6, "\(inDuration) vs \(outDuration)")
    if let x = syncOffset(a.streams), let y = syncOffset(b.streams) {
      #expect(abs(x - y) <= 1024.0 / 48000 + 1e-6, "A/V offset \(x) -> \(y)")
    }
  }

  @Test("an H.264/AAC MKV for ios-17 is remuxed: every packet copied, MP4 with faststart")
  func remux() throws {
    let directory = try TemporaryDirectory()
    let input = "\(Self.fixtures)/h264_aac.mkv"
    let (status, records, result) = try fix([
      "--platform", "ios-17", "--output-dir", directory.url.path, input,
    ])
    #expect(status == 0, "\(result.stderr)")
    let record = try #require(records.first)
    #expect(record["action"] as? String == "remux")
    #expect(record["status"] as? String == "fixed")
    let output = directory.path("h264_aac.mp4")
    #expect(try streamHashes(output) == streamHashes(input))
    let streams = record["streams"] as? [[String: Any]] ?? []
    #expect(streams.map { $0["treatment"] as? String } == ["copied", "copied"])
    let probe = try ffprobe(output)
    #expect((probe.format["format_name"] as? String)?.contains("mp4") == true)
    // faststart: the index (moov) before the media data (mdat).
    let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
    let moov = try #require(bytes.range(of: Data("moov".utf8))?.lowerBound)
    let mdat = try #require(bytes.range(of: Data("mdat".utf8))?.lowerBound)
    #expect(moov < mdat)
    try expectTimingKept(input, output)
    #expect(value(record, "recheck", "passed") as? Bool == true)
    #expect(value(record, "recheck", "scope") as? String == "all")
    // --fast-recheck decodes the video's keyframes only, and says so.
    let fast = try fix([
      "--fast-recheck", "--force", "--platform", "ios-17", "--output-dir", directory.url.path,
      input,
    ])
    #expect(value(fast.records.first, "recheck", "scope") as? String == "keyframes")
    #expect(value(fast.records.first, "recheck", "passed") as? Bool == true)
    #expect(try streamHashes(output) == streamHashes(input))
  }

  @Test("an HEVC 'hev1' MP4 for ios-17 is retagged to 'hvc1', packets copied")
  func retag() throws {
    let directory = try TemporaryDirectory()
    let input = "\(Self.fixtures)/hevc_hev1.mp4"
    let output = directory.path("out.mp4")
    let (status, records, result) = try fix(["--platform", "ios-17", "-o", output, input])
    #expect(status == 0, "\(result.stderr)")
    #expect(records.first?["action"] as? String == "retag")
    #expect(try ffprobe(input).streams.first?["codec_tag_string"] as? String == "hev1")
    #expect(try ffprobe(output).streams.first?["codec_tag_string"] as? String == "hvc1")
    #expect(try streamHashes(output) == streamHashes(input))
    try expectTimingKept(input, output)
  }

  @Test("an H.264 + AC-3 MKV for chrome gets an audio-only transcode: the video's packets copied")
  func audioOnly() throws {
    let directory = try TemporaryDirectory()
    let input = "\(Self.fixtures)/h264_ac3.mkv"
    let output = directory.path("out.mp4")
    let (status, records, result) = try fix(["--platform", "chrome", "-o", output, input])
    #expect(status == 0, "\(result.stderr)")
    let record = try #require(records.first)
    #expect(record["action"] as? String == "transcode-audio")
    let skipped = (value(record, "plan", "cheaper_steps") as? [[String: Any]] ?? []).compactMap {
      $0["action"] as? String
    }
    #expect(skipped == ["none", "retag", "remux"])
    #expect(try streamHashes(output).first == streamHashes(input).first)
    let streams = try ffprobe(output).streams
    #expect(streams.map { $0["codec_name"] as? String } == ["h264", "aac"])
    #expect(streams.last?["channels"] as? Int == 6, "no platform caps AAC at 2 channels")
    try expectTimingKept(input, output)
  }

  @Test("an HEVC MP4 for firefox --strict is re-encoded to H.264; SSIM and PSNR are ffmpeg's")
  func videoTranscode() throws {
    let directory = try TemporaryDirectory()
    let input = "\(Self.fixtures)/hevc_hev1.mp4"
    let output = directory.path("out.mp4")
    let (status, records, result) = try fix([
      "--strict", "--platform", "firefox", "-o", output, input,
    ])
    #expect(status == 0, "\(result.stderr)")
    let record = try #require(records.first)
    #expect(record["action"] as? String == "transcode-video")
    let streams = try ffprobe(output).streams
    #expect(streams.first?["codec_name"] as? String == "h264")
    #expect(streams.first?["profile"] as? String == "High")
    // Nothing changed that firefox does not need: the size and rate are the input's.
    #expect(streams.first?["width"] as? Int == 320)
    #expect(streams.first?["height"] as? Int == 240)
    #expect(streams.first?["r_frame_rate"] as? String == "25/1")
    // The audio is copied.
    #expect(try streamHashes(output).last == streamHashes(input).last)
    try expectTimingKept(input, output)
    // ffmpeg's own ssim and psnr summaries, the output against the input.
    let measured = try run(
      "ffmpeg",
      [
        "-nostdin", "-hide_banner", "-i", output, "-i", input, "-lavfi",
        "[0:v][1:v]ssim=shortest=1;[0:v][1:v]psnr=shortest=1", "-f", "null", "-",
      ])
    let ssimLine = try #require(
      measured.stderr.split(separator: "\n").first { $0.contains("SSIM Y:") })
    let psnrLine = try #require(
      measured.stderr.split(separator: "\n").first { $0.contains("PSNR y:") })
    let ssim = try #require(
      Double(ssimLine.split(separator: "All:").last!.split(separator: " ").first!))
    let psnr = try #require(
      Double(psnrLine.split(separator: "average:").last!.split(separator: " ").first!))
    let ours = try #require(value(record, "quality", "ssim") as? Double)
    let oursPSNR = try #require(value(record, "quality", "psnr") as? Double)
    #expect(abs(ours - ssim) < 1e-5, "SSIM \(ours) vs ffmpeg \(ssim)")
    #expect(abs(oursPSNR - psnr) < 0.01, "PSNR \(oursPSNR) vs ffmpeg \(psnr)")
    #expect(value(record, "quality", "frames") as? Int == 50)
  }

  /// HDR10 HEVC for firefox --strict: H.264 8-bit cannot carry PQ light, so the re-encode is
  /// tone-mapped to SDR (`ToneMapping`) and tagged BT.709; the pictures are the ffmpeg CLI's run
  /// of the same zscale/tonemap chain on the input (PSNR >= 35 dB), and differ from a plain
  /// conversion to 8 bits that keeps the PQ values (< 30 dB against it).
  @Test("HDR10 HEVC re-encoded for firefox is tone-mapped to SDR BT.709")
  func hdrIsToneMapped() throws {
    let directory = try TemporaryDirectory()
    let input = "\(Self.fixtures)/hevc_pq.mp4"
    let output = directory.path("out.mp4")
    let (status, records, result) = try fix([
      "--strict", "--platform", "firefox", "-o", output, input,
    ])
    #expect(status == 0, "\(result.stderr)")
    let record = try #require(records.first)
    #expect(record["action"] as? String == "transcode-video")
    let video = try #require(try ffprobe(output).streams.first)
    #expect(video["codec_name"] as? String == "h264")
    #expect(video["pix_fmt"] as? String == "yuv420p")
    #expect(video["color_transfer"] as? String == "bt709")
    #expect(video["color_primaries"] as? String == "bt709")
    #expect(video["color_space"] as? String == "bt709")
    func psnr(against filter: String) throws -> Double {
      let measured = try run(
        "ffmpeg",
        [
          "-nostdin", "-hide_banner", "-i", output, "-i", input, "-lavfi",
          "[1:v]\(filter)[ref];[0:v][ref]psnr=shortest=1", "-f", "null", "-",
        ])
      let line = try #require(
        measured.stderr.split(separator: "\n").first { $0.contains("PSNR y:") })
      return try #require(
        Double(line.split(separator: "average:").last!.split(separator: " ").first!))
    }
    let toneMapped = try psnr(
      against: "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,"
        + "tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p")
    #expect(toneMapped >= 35, "\(toneMapped) dB against the CLI's tone mapping")
    let untouched = try psnr(against: "format=yuv420p")
    #expect(untouched < 30, "\(untouched) dB against the PQ values kept")
    let probed = try run("mediaprobe", [output])
    let probedVideo = value(try probed.json(), "streams", 0, "video") as? [String: Any]
    #expect(probedVideo?["hdr"] is NSNull, "mediaprobe: the output is SDR")
  }

  @Test("one output for ios-17 android-14 chrome firefox meets every platform's published rows")
  func severalPlatforms() throws {
    let directory = try TemporaryDirectory()
    let input = "\(Self.fixtures)/h264_ac3.mkv"
    let output = directory.path("out.mp4")
    let platforms = ["ios-17", "android-14", "chrome", "firefox"]
    let (status, records, result) = try fix(
      platforms.flatMap { ["--platform", $0] } + ["-o", output, input])
    #expect(status == 0, "\(result.stderr)")
    #expect(records.first?["action"] as? String == "transcode-audio")
    // The facts by ffprobe, against each platform file's direct-play rows read as plain JSON.
    let probe = try ffprobe(output)
    let video = try #require(probe.streams.first { $0["codec_type"] as? String == "video" })
    let audio = try #require(probe.streams.first { $0["codec_type"] as? String == "audio" })
    #expect((probe.format["format_name"] as? String)?.hasPrefix("mov,mp4") == true)
    for platform in platforms {
      let data = try Data(
        contentsOf: packageRoot.appendingPathComponent(
          "Sources/Compatibility/Platforms/\(platform).json"))
      let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
      let rows = json["direct_play"] as? [[String: Any]] ?? []
      let playable = rows.contains { row in
        (row["containers"] as? [String] ?? []).contains("mp4")
          && (row["video"] as? [String] ?? []).contains(video["codec_name"] as? String ?? "")
          && (row["audio"] as? [String] ?? []).contains(audio["codec_name"] as? String ?? "")
      }
      #expect(playable, "\(platform): no direct-play row holds mp4/h264/aac")
    }
    #expect(video["codec_tag_string"] as? String == "avc1")
    #expect(try streamHashes(output).first == streamHashes(input).first)
    // And mediacompat itself passes it on all four.
    let check = try run("mediacompat", platforms.flatMap { ["--platform", $0] } + [output])
    #expect(check.status == 0, "\(check.text)")
  }

  @Test("a file that already passes: nothing written; --always-write copies it")
  func alreadyFine() throws {
    let directory = try TemporaryDirectory()
    let input = "\(Self.fixtures)/h264_aac.mp4"
    let (status, records, _) = try fix([
      "--platform", "ios-17", "--output-dir", directory.url.path, input,
    ])
    #expect(status == 0)
    #expect(records.first?["status"] as? String == "fine")
    #expect(directory.contents.isEmpty)
    let again = try fix([
      "--always-write", "--platform", "ios-17", "--output-dir", directory.url.path, input,
    ])
    #expect(again.status == 0)
    #expect(try streamHashes(directory.path("h264_aac.mp4")) == streamHashes(input))
  }

  @Test(
    "--dry-run writes nothing; --suggest's command of the same plan, run by ffmpeg, writes the same packets",
    arguments: [
      (["--platform", "ios-17"], "h264_aac.mkv", "remux"),
      (["--platform", "chrome"], "h264_ac3.mkv", "transcode-audio"),
      (["--strict", "--platform", "firefox"], "hevc_hev1.mp4", "transcode-video"),
    ])
  func dryRunAndSuggest(platform: [String], fixture: String, action: String) throws {
    let directory = try TemporaryDirectory()
    let input = "\(Self.fixtures)/\(fixture)"
    let planned = try fix(
      ["--dry-run", "--suggest", "--output-dir", directory.url.path] + platform + [input])
    #expect(planned.status == 0)
    #expect(directory.contents.isEmpty)
    let record = try #require(planned.records.first)
    #expect(record["status"] as? String == "planned")
    #expect(record["action"] as? String == action)
    let command = try #require(record["command"] as? String)
    // The same plan run by ffmpeg, and by mediacompat: the same packets, copied and encoded
    // (libx264 and aac are deterministic with the same settings and threads).
    let theirs = directory.path("ffmpeg.out")
    let arguments = command.split(separator: " ").map(String.init).dropFirst().dropLast()
    let ran = try run("ffmpeg", ["-v", "error"] + Array(arguments) + [theirs])
    #expect(ran.status == 0, "\(ran.stderr)")
    let ours = directory.path("ours.out")
    _ = try fix(platform + ["-o", ours, input])
    #expect(try streamHashes(ours) == streamHashes(theirs))
  }

  @Test("bad inputs: a clear error each, the other files go on, nothing partial is left")
  func badInputs() throws {
    let directory = try TemporaryDirectory()
    let good = "\(Self.fixtures)/h264_aac.mkv"
    let (status, records, _) = try fix([
      "--platform", "ios-17", "--output-dir", directory.url.path,
      "\(Self.fixtures)/subtitles.mkv", "\(Self.fixtures)/missing.mkv", good,
    ])
    #expect(status == 1)
    #expect(
      records.map { value($0, "error", "code") as? String } == [
        "no_playable_stream", "not_found", nil,
      ])
    #expect(directory.contents == ["h264_aac.mp4"])
    // The output is the input.
    let copy = directory.path("h264_aac.mp4")
    let same = try fix(["--always-write", "--platform", "ios-17", "--force", "-o", copy, copy])
    #expect(same.status == 1)
    #expect(value(same.records.first, "error", "code") as? String == "output_is_input")
    // An existing output without --force.
    let exists = try fix(["--platform", "ios-17", "-o", copy, good])
    #expect(value(exists.records.first, "error", "code") as? String == "output_exists")
  }

  @Test("a read-only output directory is write_error, and nothing is left")
  func readOnlyDirectory() throws {
    let directory = try TemporaryDirectory()
    #expect(chmod(directory.url.path, 0o555) == 0)
    defer { chmod(directory.url.path, 0o755) }
    let input = packageRoot.appendingPathComponent("\(Self.fixtures)/h264_aac.mkv").path
    let result = try runUnprivileged(
      "mediacompat",
      ["--fix", "--ndjson", "--platform", "ios-17", "--output-dir", directory.url.path, input])
    #expect(result.status == 1, "\(result.stderr)")
    #expect(result.text.contains("\"code\":\"write_error\""), "\(result.text)")
    #expect(directory.contents.isEmpty)
  }

  @Test("every kind of record validates against schemas/mediacompat-fix.schema.json")
  func schema() throws {
    let directory = try TemporaryDirectory()
    var lines = ""
    for arguments in [
      [
        "--strict", "--suggest", "--platform", "firefox", "-o", directory.path("a.mp4"),
        "\(Self.fixtures)/hevc_hev1.mp4",
      ],
      [
        "--platform", "ios-17", "--output-dir", directory.url.path,
        "\(Self.fixtures)/h264_aac.mkv", "\(Self.fixtures)/subtitles.mkv",
        "\(Self.fixtures)/h264_aac.mp4",
      ],
      ["--dry-run", "--platform", "chrome", "\(Self.fixtures)/h264_ac3.mkv"],
    ] {
      lines += try fix(arguments).run.text
    }
    #expect(lines.split(separator: "\n").count == 5)
    let result = try run(
      "python3", ["Scripts/validate-json.py", "schemas/mediacompat-fix.schema.json", "-"],
      stdin: Data(lines.utf8))
    #expect(result.status == 0, "\(result.stderr)")
  }

  @Test("an encrypted (Common Encryption) MP4 is drm_protected; nothing is written")
  func drm() throws {
    let directory = try TemporaryDirectory()
    let (status, records, _) = try fix([
      "--always-write", "--platform", "ios-17", "--output-dir", directory.url.path,
      "\(Self.fixtures)/drm_cenc.mp4",
    ])
    #expect(status == 1)
    #expect(value(records.first, "error", "code") as? String == "drm_protected")
    #expect(directory.contents.isEmpty)
  }

  @Test("a full disk (past the file size limit: EFBIG) is write_error, and nothing is left")
  func diskFull() throws {
    let directory = try TemporaryDirectory()
    let tool = productsDirectory.appendingPathComponent("mediacompat").path
    // 20 KiB may be written; the output is ~58 KB. SIGXFSZ ignored: write() fails with EFBIG.
    let result = try run(
      "bash",
      [
        "-c", "trap '' XFSZ; ulimit -f 20; exec \"$0\" \"$@\"", tool, "--fix", "--ndjson",
        "--platform", "chrome", "--output-dir", directory.url.path,
        "\(Self.fixtures)/h264_ac3.mkv",
      ])
    #expect(result.status == 1, "\(result.stderr)")
    #expect(result.text.contains("\"code\":\"write_error\""), "\(result.text)")
    #expect(directory.contents.isEmpty)
  }

  @Test("Ctrl-C during a transcode: status 130, nothing left in the output directory")
  func interrupted() throws {
    let directory = try TemporaryDirectory()
    let input = directory.path("long.mp4")
    let made = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25",
        "-t", "30", "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error",
        input,
      ])
    #expect(made.status == 0, "\(made.stderr)")
    let out = directory.path("out")
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    let process = Process()
    process.executableURL = productsDirectory.appendingPathComponent("mediacompat")
    process.arguments = ["--fix", "--strict", "--platform", "firefox", "--output-dir", out, input]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    #expect(waitUntilWriting(process, under: out), "the output should be open meanwhile")
    Thread.sleep(forTimeInterval: 0.3)
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    #expect(process.terminationStatus == 130)
    #expect((try FileManager.default.contentsOfDirectory(atPath: out)).isEmpty)
  }

  @Test("4K 120 fps H.264 with 96 kHz AAC for apple-hls: scaled into 1920x1080, 60 fps, 48 kHz")
  func limitsLowered() throws {
    let directory = try TemporaryDirectory()
    let input = directory.path("uhd120.mp4")
    // apple-hls: H.264 level <= 4.2, <= 60 fps, audio <= 48 kHz (its rules); 4K at 120 fps is
    // level 5.2 (x264 labels it so), and the recipe's box is 1920x1080.
    let made = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=3840x2160:rate=120",
        "-f", "lavfi", "-i", "sine=sample_rate=96000", "-t", "0.5", "-c:v", "libx264",
        "-preset", "ultrafast", "-crf", "40", "-c:a", "aac", "-ac", "2", input,
      ])
    #expect(made.status == 0, "\(made.stderr)")
    let output = directory.path("out.mp4")
    let (status, records, result) = try fix(["--platform", "apple-hls", "-o", output, input])
    #expect(status == 0, "\(result.stderr)")
    let record = try #require(records.first)
    #expect(record["action"] as? String == "transcode-video")
    let streams = try ffprobe(output).streams
    let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
    let audio = try #require(streams.first { $0["codec_type"] as? String == "audio" })
    #expect(video["width"] as? Int == 1920)
    #expect(video["height"] as? Int == 1080)
    #expect(video["r_frame_rate"] as? String == "60/1")
    #expect((video["level"] as? Int).map { $0 <= 42 } == true, "level \(video["level"] ?? "")")
    #expect(audio["sample_rate"] as? String == "48000")
    #expect(audio["channels"] as? Int == 2)
    let check = try run("mediacompat", ["--platform", "apple-hls", output])
    #expect(check.status == 0, "\(check.text)")
  }

  @Test("--fast-recheck (and mediaprobe --verify-fast) on 10 s GOPs: no timestamp jump")
  func longGOPs() throws {
    let directory = try TemporaryDirectory()
    let input = directory.path("gop.mkv")
    // x264's default keyint 250 at 25 fps: keyframes at 0, 10 and 20 s.
    let made = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25",
        "-t", "25", "-c:v", "libx264", "-preset", "ultrafast", "-g", "250", input,
      ])
    #expect(made.status == 0, "\(made.stderr)")
    let probe = try run("mediaprobe", ["--verify-fast", input])
    #expect(probe.status == 0, "\(probe.stderr)")
    #expect(value(try probe.json(), "integrity") as? String == "ok")
    let output = directory.path("out.mp4")
    let (status, records, result) = try fix([
      "--fast-recheck", "--platform", "ios-17", "-o", output, input,
    ])
    #expect(status == 0, "\(result.stderr)")
    #expect(value(records.first, "recheck", "integrity") as? String == "ok")
  }

  /// 32-bit FLAC (flac_32bit.flac, by construction with sox and flac 1.4) fails on Firefox, but
  /// FFmpeg 5.1 cannot read its frames (oracle: ffmpeg's own copy of it writes no packet), so no
  /// re-encode can fix it: the error names the stream and the reason (unsupported_input), not an
  /// empty output that failed its check, and nothing is written.
  @Test("--fix on a stream FFmpeg cannot read: unsupported_input naming it, nothing written")
  func unreadableStream() throws {
    let input = "Tests/Fixtures/flac_32bit.flac"
    let copied = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-i", input, "-map", "0:a", "-c", "copy", "-f",
        "framecrc", "-",
      ])
    #expect(!copied.text.split(separator: "\n").contains { !$0.hasPrefix("#") })
    let directory = try TemporaryDirectory()
    let (status, records, result) = try fix([
      "--platform", "firefox", "--output-dir", directory.url.path, input,
    ])
    #expect(status == 1, "\(result.stderr)")
    #expect(value(records.first, "error", "code") as? String == "unsupported_input")
    let message = try #require(value(records.first, "error", "message") as? String)
    #expect(message.contains("stream 0 (flac, which declares 1.500 s)"), "\(message)")
    #expect(directory.contents.isEmpty)
  }
}
