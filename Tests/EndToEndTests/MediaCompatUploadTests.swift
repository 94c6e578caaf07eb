import Foundation
import Testing

/// mediacompat and `--fix` on what phones, cameras and editors write that the project's other
/// fixtures do not (a new upload backend's first week): each input is made here with ffmpeg, so
/// its properties are known by construction and confirmed by ffprobe; the expected verdicts come
/// from the platform documents the rules cite, the fixed files' properties from ffprobe.
@Suite struct MediaCompatUploadTests {
  /// Makes `name` in `directory` with `ffmpeg -nostdin -v error ARGS name`.
  func make(_ directory: TemporaryDirectory, _ name: String, _ arguments: [String]) throws
    -> String
  {
    let path = directory.path(name)
    let made = try run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments + [path])
    #expect(made.status == 0, "ffmpeg: \(made.stderr)")
    return path
  }

  /// ffprobe's streams, as JSON.
  func ffprobeStreams(_ path: String) throws -> [[String: Any]] {
    let result = try run(
      "ffprobe", ["-v", "error", "-show_streams", "-show_format", "-of", "json", path])
    return try #require(value(try result.json(), "streams") as? [[String: Any]], "\(result.stderr)")
  }

  /// ffprobe's format duration in seconds.
  func ffprobeDuration(_ path: String) throws -> Double {
    let result = try run(
      "ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
    return try #require(Double(result.text.trimmingCharacters(in: .whitespacesAndNewlines)))
  }

  /// `mediacompat --json --platform P FILE`: platform → (verdict, failing or warning rule ids).
  func verdicts(_ path: String, _ platforms: String) throws -> [String: (String, [String])] {
    let result = try run("mediacompat", ["--json", "--platform", platforms, path])
    let results = try #require(value(try result.json(), "results") as? [[String: Any]])
    var out: [String: (String, [String])] = [:]
    for item in results {
      let findings = item["findings"] as? [[String: Any]] ?? []
      out[item["platform"] as? String ?? ""] = (
        item["verdict"] as? String ?? "", findings.compactMap { $0["rule"] as? String }
      )
    }
    return out
  }

  static let lavfi = [
    "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1", "-f", "lavfi", "-i",
    "sine=sample_rate=48000:duration=1",
  ]

  /// 8-bit H.264 in the profiles above High that cameras and editors write (High 4:2:2 from
  /// XAVC-style cameras, High 4:4:4 Predictive from screen recorders and lossless exports):
  /// Apple's iPhones decode up to High profile (8-bit 4:2:0), Android requires Baseline and Main
  /// and lists nothing above High. Before, only the bit depth was checked, so these passed
  /// ios-17, safari and android-14. Chrome and Firefox play both (the browser oracle's corpus
  /// has them), so they still pass.
  @Test(arguments: [
    ("yuv422p", "high422", "High 4:2:2"), ("yuv444p", "high444", "High 4:4:4 Predictive"),
  ])
  func profilesAboveHigh(_ format: String, _ profile: String, _ name: String) throws {
    let directory = try TemporaryDirectory()
    let input = try make(
      directory, "\(profile).mp4",
      Self.lavfi + ["-c:v", "libx264", "-profile:v", profile, "-pix_fmt", format, "-c:a", "aac"])
    let video = try #require(
      try ffprobeStreams(input).first { $0["codec_type"] as? String == "video" })
    #expect(video["profile"] as? String == name)
    #expect(video["pix_fmt"] as? String == format)
    let found = try verdicts(input, "ios-17,safari,android-14,chrome,firefox")
    #expect(found["ios-17"]?.0 == "fail")
    #expect(found["ios-17"]?.1 == ["h264-profile"])
    #expect(found["safari"]?.0 == "fail")
    #expect(found["safari"]?.1 == ["h264-profile"])
    #expect(found["android-14"]?.0 == "warn")
    #expect(found["android-14"]?.1 == ["h264-above-high"])
    #expect(found["chrome"]?.0 == "pass")
    #expect(found["firefox"]?.0 == "pass")

    let output = directory.path("out.mp4")
    let fixed = try run("mediacompat", ["--fix", "--platform", "ios-17", "-o", output, input])
    #expect(fixed.status == 0, "\(fixed.text) \(fixed.stderr)")
    let streams = try ffprobeStreams(output)
    let out = try #require(streams.first { $0["codec_type"] as? String == "video" })
    #expect(out["profile"] as? String == "High")
    #expect(out["pix_fmt"] as? String == "yuv420p")
    // The audio (AAC, which plays) is copied.
    #expect(
      streams.first { $0["codec_type"] as? String == "audio" }?["codec_name"] as? String == "aac")
    #expect(abs(try ffprobeDuration(output) - ffprobeDuration(input)) <= 1.0 / 25 + 1e-6)
    #expect(try verdicts(output, "ios-17")["ios-17"]?.0 == "pass")
  }

  /// A picture with an odd width and height (321x241, by construction: a 4:4:4 screen capture
  /// for ios-17, a 4:4:4 MJPEG for chrome): the platforms' recipe writes 4:2:0, where libx264
  /// refuses odd sizes, so the fix failed with encoder_error. Now the last column and row are cropped
  /// (320x240, square pixels, nothing resampled) and the output passes.
  @Test(arguments: [
    (
      "odd444.mp4", "ios-17",
      ["-vf", "format=yuv444p,crop=321:241:0:0", "-c:v", "libx264", "-c:a", "aac"]
    ),
    (
      "oddmjpeg.mov", "chrome",
      ["-vf", "format=yuvj444p,crop=321:241:0:0", "-c:v", "mjpeg", "-c:a", "pcm_s16le"]
    ),
  ])
  func oddSizeIsCropped(_ name: String, _ platform: String, _ encode: [String]) throws {
    let directory = try TemporaryDirectory()
    let source = [
      "-f", "lavfi", "-i", "testsrc2=size=322x242:rate=25:duration=1", "-f", "lavfi", "-i",
      "sine=sample_rate=48000:duration=1",
    ]
    let input = try make(directory, name, source + encode)
    let video = try #require(
      try ffprobeStreams(input).first { $0["codec_type"] as? String == "video" })
    #expect([video["width"] as? Int, video["height"] as? Int] == [321, 241])
    let output = directory.path("out.mp4")
    let fixed = try run(
      "mediacompat", ["--fix", "--ndjson", "--platform", platform, "--strict", "-o", output, input])
    #expect(fixed.status == 0, "\(fixed.text) \(fixed.stderr)")
    let record = try #require(
      try JSONSerialization.jsonObject(with: Data(fixed.text.utf8)) as? [String: Any])
    #expect(record["action"] as? String == "transcode-video")
    #expect(
      value(record, "plan", "video", "encode", "filter") as? String == "crop=w=320:h=240:x=0:y=0")
    let out = try #require(
      try ffprobeStreams(output).first { $0["codec_type"] as? String == "video" })
    #expect([out["width"] as? Int, out["height"] as? Int] == [320, 240])
    #expect(out["sample_aspect_ratio"] as? String == "1:1")
    #expect(abs(try ffprobeDuration(output) - ffprobeDuration(input)) <= 1.0 / 25 + 1e-6)
    #expect(try verdicts(output, platform)[platform]?.0 == "pass")
  }

  /// ffprobe's Dolby Vision configuration record of the first video stream (profile and
  /// bl_signal_compatibility_id), nil when it has none, and its sample entry.
  func dolbyVision(_ path: String) throws -> (tag: String?, profile: Int?, compatibility: Int?) {
    let result = try run(
      "ffprobe",
      [
        "-v", "error", "-select_streams", "v:0", "-show_entries",
        "stream=codec_tag_string:stream_side_data=dv_profile,dv_bl_signal_compatibility_id",
        "-of", "json", path,
      ])
    let stream = try #require(value(try result.json(), "streams", 0) as? [String: Any])
    let side = (stream["side_data_list"] as? [[String: Any]])?.first { $0["dv_profile"] != nil }
    return (
      stream["codec_tag_string"] as? String, side?["dv_profile"] as? Int,
      side?["dv_bl_signal_compatibility_id"] as? Int
    )
  }

  /// Dolby Vision profile 8.1 (an HDR10 base layer) in a `dvhe` sample entry, by construction
  /// (x265 PQ, then Scripts/mp4patch.py's dvcC): the retag to `hvc1` that Apple's players need
  /// left the dvcC box out (FFmpeg 5.1's MP4 muxer writes it only with strict=unofficial), so a
  /// Dolby Vision device played plain HDR10 and nothing said so. Now the record is kept.
  @Test func dolbyVisionProfile8KeepsItsRecord() throws {
    let directory = try TemporaryDirectory()
    let input = try make(
      directory, "dv8.mp4",
      Self.lavfi + [
        "-c:v", "libx265", "-x265-params",
        "log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc", "-pix_fmt",
        "yuv420p10le", "-tag:v", "hvc1", "-c:a", "aac",
      ])
    let patched = try run(
      "python3", ["Scripts/mp4patch.py", "dolby-vision", input, "dvhe", "8", "4", "1"])
    #expect(patched.status == 0, "\(patched.stderr)")
    let source = try dolbyVision(input)
    #expect(source.tag == "dvhe" && source.profile == 8 && source.compatibility == 1)
    let output = directory.path("out.mp4")
    let fixed = try run(
      "mediacompat", ["--fix", "--ndjson", "--platform", "ios-17", "-o", output, input])
    #expect(fixed.status == 0, "\(fixed.text) \(fixed.stderr)")
    let record = try #require(
      try JSONSerialization.jsonObject(with: Data(fixed.text.utf8)) as? [String: Any])
    #expect(record["action"] as? String == "retag")
    let out = try dolbyVision(output)
    #expect(out.tag == "hvc1")
    #expect(out.profile == 8)
    #expect(out.compatibility == 1)
    #expect(try verdicts(output, "ios-17")["ios-17"]?.0 == "pass")
  }

  /// Dolby Vision profile 5 (no base layer other decoders show: bl_signal_compatibility_id 0,
  /// Tests/InputFixtures/dvhe.mp4 by construction) in `dvhe`: the retag wrote it as `hvc1` with
  /// the record dropped, a stream every player then decodes as plain HEVC with the wrong
  /// colours, and reported it fixed (exit 0). FFmpeg 5.1 cannot write `dvh1`, and its decoder
  /// does not apply the reshaping a re-encode would need: not_fixable, nothing written.
  @Test func dolbyVisionProfile5IsNotFixable() throws {
    let input = "Tests/InputFixtures/dvhe.mp4"
    let source = try dolbyVision(input)
    #expect(source.tag == "dvhe" && source.profile == 5 && source.compatibility == 0)
    #expect(try verdicts(input, "ios-17")["ios-17"]?.1 == ["hevc-tag"])
    let directory = try TemporaryDirectory()
    let fixed = try run(
      "mediacompat",
      ["--fix", "--ndjson", "--platform", "ios-17", "--output-dir", directory.url.path, input])
    #expect(fixed.status == 1)
    let record = try #require(
      try JSONSerialization.jsonObject(with: Data(fixed.text.utf8)) as? [String: Any])
    #expect(value(record, "error", "code") as? String == "not_fixable")
    let message = try #require(value(record, "error", "message") as? String)
    #expect(message.contains("Dolby Vision profile 5"), "\(message)")
    #expect(directory.contents.isEmpty)
  }

  /// Two audio languages and a subtitle track in MKV (by construction: streams 0 video, 1 and 2
  /// AAC, 3 SubRip): the remux for ios-17 wrote one video and one audio stream, silently (only
  /// the NDJSON's plan.dropped_streams said so). Now the second AAC track is copied too (it
  /// plays as the first does) and the SubRip track, which MP4 cannot carry, is named on a
  /// `left out:` line; ffprobe confirms what the output carries.
  @Test func leftOutStreamsAreNamed() throws {
    let directory = try TemporaryDirectory()
    let subtitles = directory.path("subs.srt")
    try "1\n00:00:00,000 --> 00:00:00,500\nHello\n".write(
      toFile: subtitles, atomically: true, encoding: .utf8)
    let input = try make(
      directory, "two.mkv",
      Self.lavfi + [
        "-f", "lavfi", "-i", "sine=frequency=880:sample_rate=48000:duration=1", "-i", subtitles,
        "-map", "0", "-map", "1", "-map", "2", "-map", "3", "-c:v", "libx264", "-c:a", "aac",
        "-c:s", "srt",
      ])
    let kinds = try ffprobeStreams(input).compactMap { $0["codec_type"] as? String }
    #expect(kinds == ["video", "audio", "audio", "subtitle"])
    let output = directory.path("out.mp4")
    let fixed = try run("mediacompat", ["--fix", "--platform", "ios-17", "-o", output, input])
    #expect(fixed.status == 0, "\(fixed.stderr)")
    #expect(fixed.text.contains("also copied: stream 2\n"), "\(fixed.text)")
    #expect(fixed.text.contains("left out: stream 3 "), "\(fixed.text)")
    let written = try ffprobeStreams(output)
    #expect(written.compactMap { $0["codec_type"] as? String } == ["video", "audio", "audio"])
    // The second track is the 880 Hz one, copied: its packets are the input's.
    let hashes = try run(
      "ffmpeg",
      ["-nostdin", "-v", "error", "-i", output, "-map", "0:a:1", "-c", "copy", "-f", "md5", "-"])
    let source = try run(
      "ffmpeg",
      ["-nostdin", "-v", "error", "-i", input, "-map", "0:a:1", "-c", "copy", "-f", "md5", "-"])
    #expect(hashes.text == source.text && !source.text.isEmpty)
  }

  /// An ALAC M4A with cover art (by construction: stream 0 ALAC, stream 1 an attached JPEG) for
  /// chrome, which does not play ALAC: the audio is re-encoded, and the reason said "(video
  /// copied)" of a file with no video (ffprobe: the only video is the attached picture). The
  /// cover is named as left out.
  @Test func audioOnlyReasonHasNoVideo() throws {
    let directory = try TemporaryDirectory()
    let cover = try make(
      directory, "cover.jpg", ["-f", "lavfi", "-i", "testsrc2=size=64x64", "-frames:v", "1"])
    let input = try make(
      directory, "song.m4a",
      [
        "-f", "lavfi", "-i", "sine=sample_rate=44100:duration=1", "-i", cover, "-map", "0",
        "-map", "1", "-c:a", "alac", "-c:v", "copy", "-disposition:v", "attached_pic",
      ])
    let streams = try ffprobeStreams(input)
    #expect(streams.compactMap { $0["codec_name"] as? String } == ["alac", "mjpeg"])
    #expect(value(streams[1], "disposition", "attached_pic") as? Int == 1)
    let output = directory.path("out.m4a")
    let fixed = try run("mediacompat", ["--fix", "--platform", "chrome", "-o", output, input])
    #expect(fixed.status == 0, "\(fixed.stderr)")
    #expect(
      fixed.text.contains("why: re-encode the audio: chrome: audio.codec alac"), "\(fixed.text)")
    #expect(!fixed.text.contains("video copied"), "\(fixed.text)")
    #expect(fixed.text.contains("left out: stream 1 "), "\(fixed.text)")
    #expect(try ffprobeStreams(output).compactMap { $0["codec_name"] as? String } == ["aac"])
  }

  /// ProRes 422 in QuickTime, as the Pro iPhones (13 Pro and later) record it, by construction
  /// (prores_ks profile 2, ffprobe: prores, apcn): ios-17 said FAIL ("not among the direct-play
  /// codecs") of a file an iPhone records, against the platform's own rule that such files pass.
  /// Now WARN (prores-pro-models: the other models list H.264 and HEVC only), and `--strict`
  /// re-encodes it to H.264 that passes.
  @Test func proResFromAProIPhoneWarns() throws {
    let directory = try TemporaryDirectory()
    let input = try make(
      directory, "prores.mov",
      Self.lavfi + ["-c:v", "prores_ks", "-profile:v", "2", "-c:a", "aac"])
    let video = try #require(
      try ffprobeStreams(input).first { $0["codec_type"] as? String == "video" })
    #expect(video["codec_name"] as? String == "prores")
    #expect(video["codec_tag_string"] as? String == "apcn")
    let found = try verdicts(input, "ios-17,android-14")
    #expect(found["ios-17"]?.0 == "warn")
    #expect(found["ios-17"]?.1 == ["prores-pro-models"])
    #expect(found["android-14"]?.0 == "fail")
    let output = directory.path("out.mp4")
    let fixed = try run(
      "mediacompat", ["--fix", "--strict", "--platform", "ios-17", "-o", output, input])
    #expect(fixed.status == 0, "\(fixed.text) \(fixed.stderr)")
    let out = try #require(
      try ffprobeStreams(output).first { $0["codec_type"] as? String == "video" })
    #expect(out["codec_name"] as? String == "h264")
    #expect(abs(try ffprobeDuration(output) - ffprobeDuration(input)) <= 1.0 / 25 + 1e-6)
    #expect(try verdicts(output, "ios-17")["ios-17"]?.0 == "pass")
  }

  /// A 240 fps slo-mo clip (320x240, by construction) for the mobile-low tier (96 kb/s video,
  /// recipe 30 fps): the plan kept 240 fps at the tier's 86.4 kb/s target, x264 spent 105.6 kb/s
  /// and the fix failed its re-check (fix_check_failed). A bit-rate tier is now held to its
  /// recipe's rate and box: ffprobe reads 30 fps and a bit rate within the tier.
  @Test func bitRateTierCapsTheRate() throws {
    let directory = try TemporaryDirectory()
    let input = try make(
      directory, "slomo.mov",
      [
        "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=240:duration=2", "-f", "lavfi", "-i",
        "sine=sample_rate=48000:duration=2", "-c:v", "libx264", "-c:a", "aac",
      ])
    let video = try #require(
      try ffprobeStreams(input).first { $0["codec_type"] as? String == "video" })
    #expect(video["r_frame_rate"] as? String == "240/1")
    let output = directory.path("out.mp4")
    let fixed = try run("mediacompat", ["--fix", "--platform", "mobile-low", "-o", output, input])
    #expect(fixed.status == 0, "\(fixed.text) \(fixed.stderr)")
    let out = try #require(
      try ffprobeStreams(output).first { $0["codec_type"] as? String == "video" })
    #expect(out["r_frame_rate"] as? String == "30/1")
    let bitRate = try #require((out["bit_rate"] as? String).flatMap(Int.init))
    #expect(bitRate <= 96000, "\(bitRate)")
    #expect(abs(try ffprobeDuration(output) - ffprobeDuration(input)) <= 1.0 / 30 + 1e-6)
    #expect(try verdicts(output, "mobile-low")["mobile-low"]?.0 == "pass")
  }

  /// PCM in QuickTime as cameras and editors write it (H.264 + PCM, by construction; ffprobe
  /// names the sample entry): Chromium 156 plays twos, in24 (either byte order), little-endian
  /// in32 and fl32, raw, ulaw and alaw, and not big-endian in32 or fl32 (the browser oracle,
  /// Scripts/browser-oracle, which `make test` runs on the same files); chrome FAILed every one
  /// but sowt. Firefox ESR plays none.
  @Test(arguments: [
    ("pcm_s16be", "twos", "pass"), ("pcm_s24be", "in24", "pass"), ("pcm_s24le", "in24", "pass"),
    ("pcm_f32le", "fl32", "pass"), ("pcm_s32le", "in32", "pass"), ("pcm_u8", "raw ", "pass"),
    ("pcm_mulaw", "ulaw", "pass"), ("pcm_f32be", "fl32", "fail"), ("pcm_s32be", "in32", "fail"),
  ])
  func pcmInQuickTimeForChrome(_ codec: String, _ tag: String, _ chrome: String) throws {
    let directory = try TemporaryDirectory()
    let input = try make(
      directory, "\(codec).mov", Self.lavfi + ["-c:v", "libx264", "-c:a", codec, "-f", "mov"])
    let audio = try #require(
      try ffprobeStreams(input).first { $0["codec_type"] as? String == "audio" })
    #expect(audio["codec_name"] as? String == codec)
    #expect(audio["codec_tag_string"] as? String == tag)
    let found = try verdicts(input, "chrome,firefox")
    #expect(found["chrome"]?.0 == chrome)
    #expect(found["firefox"]?.0 == "fail")
  }

  /// PCM in Matroska (by construction; ffprobe names the codec): Chromium 156 plays A_PCM/INT in
  /// either byte order from 8 to 32 bits and 32-bit float, not 64-bit float (the browser oracle)
  /// and chrome FAILed them all; now the Matroska row's WARN (an undocumented container).
  /// Firefox ESR plays none.
  @Test(arguments: [
    ("pcm_s16le", "warn"), ("pcm_s16be", "warn"), ("pcm_s24le", "warn"), ("pcm_s32le", "warn"),
    ("pcm_f32le", "warn"), ("pcm_u8", "warn"), ("pcm_f64le", "fail"),
  ])
  func pcmInMatroskaForChrome(_ codec: String, _ chrome: String) throws {
    let directory = try TemporaryDirectory()
    let input = try make(directory, "pcm.mkv", Self.lavfi + ["-c:v", "libx264", "-c:a", codec])
    let audio = try #require(
      try ffprobeStreams(input).first { $0["codec_type"] as? String == "audio" })
    #expect(audio["codec_name"] as? String == codec)
    let found = try verdicts(input, "chrome,firefox")
    #expect(found["chrome"]?.0 == chrome)
    if chrome == "warn" { #expect(found["chrome"]?.1 == ["documented-container"]) }
    #expect(found["firefox"]?.0 == "fail")
  }

  /// AAC alone in 3GP (a voice memo, by construction; ffprobe: major brand 3gp*) plays in Firefox
  /// ESR 153 and firefox FAILed it (3GP is not an MDN container); 3GP with H.264 video does not
  /// play there (the decoder does not start) and still FAILs. Both from the browser oracle.
  @Test func aacIn3GPForFirefox() throws {
    let directory = try TemporaryDirectory()
    let memo = try make(
      directory, "memo.3gp",
      ["-f", "lavfi", "-i", "sine=sample_rate=48000:duration=1", "-c:a", "aac", "-f", "3gp"])
    let clip = try make(
      directory, "clip.3gp", Self.lavfi + ["-c:v", "libx264", "-c:a", "aac", "-f", "3gp"])
    let brand = try run(
      "ffprobe",
      ["-v", "error", "-show_entries", "format_tags=major_brand", "-of", "csv=p=0", memo])
    #expect(brand.text.hasPrefix("3gp"), "\(brand.text)")
    #expect(try verdicts(memo, "firefox")["firefox"]?.0 == "pass")
    #expect(try verdicts(clip, "firefox")["firefox"]?.0 == "fail")
  }

  /// H.264 with B-frames in AVI (x264's defaults, by construction; ffprobe: has_b_frames > 0,
  /// and the AVI index gives no presentation times), for chrome, which does not play AVI: the
  /// remux copied the video into MP4 with its frames out of order, the re-check decoded it
  /// damaged (as the ffmpeg CLI's own `-c copy` to MP4 does) and the fix failed
  /// (fix_check_failed) although the input decodes cleanly. Now the video is re-encoded instead,
  /// the report says why the copy steps were passed over, and ffmpeg decodes the output without
  /// an error. The re-encode gives the frames the AVI packets' times in order (Render), so all
  /// 25 are kept from 0 s.
  @Test func aviWithBFramesIsReencodedWhenItsCopyDecodesDamaged() throws {
    let directory = try TemporaryDirectory()
    let input = try make(
      directory, "camera.avi",
      Self.lavfi + ["-c:v", "libx264", "-bf", "3", "-c:a", "libmp3lame"])
    let video = try #require(
      try ffprobeStreams(input).first { $0["codec_type"] as? String == "video" })
    #expect((video["has_b_frames"] as? Int ?? 0) > 0)
    let output = directory.path("out.mp4")
    let fixed = try run(
      "mediacompat", ["--fix", "--ndjson", "--platform", "chrome", "-o", output, input])
    #expect(fixed.status == 0, "\(fixed.text) \(fixed.stderr)")
    let record = try #require(
      try JSONSerialization.jsonObject(with: Data(fixed.text.utf8)) as? [String: Any])
    #expect(record["action"] as? String == "transcode-video")
    let steps = value(record, "plan", "cheaper_steps") as? [[String: Any]] ?? []
    let remux = steps.first { $0["action"] as? String == "remux" }
    #expect((remux?["reason"] as? String)?.contains("decodes damaged") == true, "\(steps)")
    let decoded = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", output, "-f", "null", "-"])
    #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded.stderr)")
    // All 25 frames (the construction), the first at 0 with the audio: the decoder's own
    // timestamps started 2 frames late and lost the last two.
    let out = try #require(
      try ffprobeStreams(output).first { $0["codec_type"] as? String == "video" })
    #expect(out["nb_frames"] as? String == "25")
    #expect(out["start_time"] as? String == "0.000000")
    #expect(try verdicts(output, "chrome")["chrome"]?.0 == "pass")
  }

  /// H.264, AAC and 3GPP timed text (mov_text) in QuickTime, as phones and editors write
  /// captions (by construction), for android-14, which lists MP4 but not QuickTime: the remux to
  /// MP4 left the captions out though MP4 carries them. Now they are copied (ffprobe: a
  /// mov_text subtitle stream in the output) and the output passes.
  @Test func timedTextIsKept() throws {
    let directory = try TemporaryDirectory()
    let subtitles = directory.path("subs.srt")
    try "1\n00:00:00,000 --> 00:00:00,500\nHello\n".write(
      toFile: subtitles, atomically: true, encoding: .utf8)
    let input = try make(
      directory, "captions.mov",
      Self.lavfi + [
        "-i", subtitles, "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-c:a", "aac",
        "-c:s", "mov_text",
      ])
    #expect(
      try ffprobeStreams(input).compactMap { $0["codec_name"] as? String } == [
        "h264", "aac", "mov_text",
      ])
    let output = directory.path("out.mp4")
    let fixed = try run(
      "mediacompat", ["--fix", "--ndjson", "--platform", "android-14", "-o", output, input])
    #expect(fixed.status == 0, "\(fixed.text) \(fixed.stderr)")
    let record = try #require(
      try JSONSerialization.jsonObject(with: Data(fixed.text.utf8)) as? [String: Any])
    #expect(record["action"] as? String == "remux")
    #expect(value(record, "plan", "kept_streams") as? [Int] == [2])
    #expect(value(record, "plan", "dropped_streams") as? [Int] == [])
    #expect(
      try ffprobeStreams(output).compactMap { $0["codec_name"] as? String } == [
        "h264", "aac", "mov_text",
      ])
    #expect(try verdicts(output, "android-14")["android-14"]?.0 == "pass")
  }

  /// The size of the first DecoderConfigDescriptor in an MP4's `esds` box (ISO/IEC 14496-1
  /// 7.2.6.6: 13 bytes, more when a DecoderSpecificInfo follows), read from the bytes.
  func decoderConfigSize(_ path: String) throws -> Int? {
    let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    guard
      let at = (0..<(data.count - 4)).first(where: {
        data[$0..<$0 + 4] == [0x65, 0x73, 0x64, 0x73]
      })
    else { return nil }
    var i = at + 8  // 'esds', version and flags
    func size() -> Int {
      var value = 0
      repeat {
        value = value << 7 | Int(data[i] & 0x7F)
        i += 1
      } while data[i - 1] & 0x80 != 0
      return value
    }
    guard data[i] == 0x03 else { return nil }
    i += 1
    _ = size()
    i += 3  // ES_ID, flags (none set by FFmpeg)
    guard data[i] == 0x04 else { return nil }
    i += 1
    return size()
  }

  /// MPEG-4 Part 2 and MP3 in AVI, as Xvid-era cameras and rippers wrote them (by construction:
  /// AVI's MPEGLAYER3WAVEFORMAT gives the MP3 stream 12 bytes of extradata), for firefox
  /// --strict: the video is re-encoded and the MP3 copied, and the copy carried those bytes
  /// into MP4 as a DecoderSpecificInfo, which MP3 in MP4 has none of and with which Firefox ESR
  /// 153 decodes no audio (browser oracle; the ffmpeg CLI's own -c copy writes the same box).
  /// Now the copy leaves them out: the DecoderConfigDescriptor is the bare 13 bytes.
  @Test func mp3FromAVIHasNoDecoderSpecificInfo() throws {
    let directory = try TemporaryDirectory()
    let input = try make(
      directory, "xvid.avi", Self.lavfi + ["-c:v", "mpeg4", "-vtag", "XVID", "-c:a", "libmp3lame"])
    let extradata = try run(
      "ffprobe",
      [
        "-v", "error", "-select_streams", "a", "-show_entries", "stream=extradata_size", "-of",
        "csv=p=0", input,
      ])
    #expect(extradata.text.trimmingCharacters(in: .whitespacesAndNewlines) == "12")
    let cli = directory.path("cli.mp4")
    let copied = try run(
      "ffmpeg",
      ["-nostdin", "-v", "error", "-i", input, "-c:v", "libx264", "-c:a", "copy", cli])
    #expect(copied.status == 0)
    #expect((try decoderConfigSize(cli) ?? 0) > 13)
    let output = directory.path("out.mp4")
    let fixed = try run(
      "mediacompat", ["--fix", "--strict", "--platform", "firefox", "-o", output, input])
    #expect(fixed.status == 0, "\(fixed.text) \(fixed.stderr)")
    #expect(fixed.text.contains("audio 1: copy mp3"), "\(fixed.text)")
    #expect(try decoderConfigSize(output) == 13)
    let decoded = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", output, "-f", "null", "-"])
    #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded.stderr)")
  }
}
