import AV
import Foundation
import MediaCore
import OutputKit
import Render
import Testing

/// Export presets, sizing, bits per pixel and compress-to-size. The table's values are the
/// project's stated mapping (reference/composition.md §2, docs/mediamerge.md Presets); sizes
/// come from the ffmpeg CLI's own `scale=…:force_original_aspect_ratio=decrease:
/// force_divisible_by=2` on pictures of each size (the oracle); the arithmetic from its
/// formulas written out here; the rate loop from files written by Render's Transcoder and
/// measured on disk.
@Suite struct ExportPresetsTests {
  /// Every AVFoundation name and short name finds its preset; the table says what the
  /// reference's table says.
  @Test func table() throws {
    #expect(ExportPreset.allCases.count == 13)
    for preset in ExportPreset.allCases {
      #expect(ExportPreset(name: preset.avFoundationName) == preset)
      #expect(ExportPreset(name: preset.rawValue.uppercased()) == preset)
    }
    #expect(ExportPreset(name: "AVAssetExportPresetHEVC1920x1080") == .hevc1920x1080)
    #expect(ExportPreset(name: "LowQuality") == .lowQuality)
    #expect(ExportPreset(name: "HEVCHighestQualityWithAlpha") == nil)  // no alpha in libx265
    #expect(ExportPreset(name: "720p") == nil)

    typealias Row = (
      ExportPreset, String?, String?, Double?, String?, String?, ExportPreset.Sizing?, Int?
    )
    let rows: [Row] = [
      (.lowQuality, "libx264", "veryfast", 30, "main", nil, .box(width: 224, height: 224), 64000),
      (.mediumQuality, "libx264", "medium", 26, "main", nil, .box(width: 568, height: 568), 96000),
      (.highestQuality, "libx264", "slow", 18, "high", nil, .source, 192000),
      (.size640x480, "libx264", nil, 23, "high", "3.1", .box(width: 640, height: 480), 128000),
      (.size960x540, "libx264", nil, 23, "high", "3.1", .box(width: 960, height: 540), 128000),
      (.size1280x720, "libx264", nil, 21, "high", "4.1", .box(width: 1280, height: 720), 160000),
      (.size1920x1080, "libx264", nil, 21, "high", "4.1", .box(width: 1920, height: 1080), 160000),
      (.size3840x2160, "libx264", nil, 20, "high", "5.1", .box(width: 3840, height: 2160), 192000),
      (.hevcHighestQuality, "libx265", nil, 24, nil, nil, .source, 160000),
      (.hevc1920x1080, "libx265", nil, 24, nil, nil, .box(width: 1920, height: 1080), 160000),
      (.hevc3840x2160, "libx265", nil, 24, nil, nil, .box(width: 3840, height: 2160), 160000),
      (.appleM4A, nil, nil, nil, nil, nil, nil, 256000),
      (.passthrough, nil, nil, nil, nil, nil, nil, nil),
    ]
    for (preset, encoder, speed, crf, profile, level, sizing, audio) in rows {
      let settings = preset.settings
      #expect(settings.video?.encoder == encoder, "\(preset)")
      #expect(settings.video?.speed == speed, "\(preset)")
      #expect(settings.video?.crf == crf, "\(preset)")
      #expect(settings.video?.profile == profile, "\(preset)")
      #expect(settings.video?.level == level, "\(preset)")
      #expect(settings.video?.sizing == sizing, "\(preset)")
      #expect(settings.audioBitRate == audio, "\(preset)")
      #expect(settings.movflags == "+faststart")
      #expect(settings.video?.tag == (encoder == "libx265" ? "hvc1" : nil))
    }
    #expect(ExportPreset.appleM4A.settings.container == "ipod")
    #expect(ExportPreset.appleM4A.settings.fileExtension == "m4a")
    #expect(ExportPreset.passthrough.settings.copy)
  }

  /// The size the ffmpeg CLI's scale filter gives a `width`×`height` picture in the box.
  static func cliSize(_ width: Int, _ height: Int, box: (Int, Int)) throws -> (Int, Int) {
    let result = try ffmpeg([
      // 4:4:4 (the colour source rounds odd sizes down to even in 4:2:0).
      "-f", "lavfi", "-i", "color=s=\(width)x\(height):d=0.04,format=yuv444p", "-frames:v", "1",
      "-vf", "scale=\(box.0):\(box.1):force_original_aspect_ratio=decrease:force_divisible_by=2",
      "-pix_fmt", "yuv444p", "-f", "yuv4mpegpipe", "-",
    ])
    let header = String(decoding: result.stdout.prefix(80), as: UTF8.self)
    let fields = header.split(separator: " ")
    let w = Int(fields.first { $0.hasPrefix("W") }!.dropFirst())!
    let h = Int(fields.first { $0.hasPrefix("H") }!.dropFirst())!
    return (w, h)
  }

  /// Boxes against the CLI on landscape, portrait, square, odd and nearly-fitting sources; a
  /// source inside the box keeps its size (the presets do not scale up).
  @Test func sizesMatchTheScaleFilter() throws {
    let sources = [
      (1920, 1080), (1080, 1920), (1000, 1000), (1279, 721), (3840, 1600), (800, 400),
      (725, 483), (4096, 2160),
    ]
    let presets: [ExportPreset] = [
      .lowQuality, .mediumQuality, .size640x480, .size960x540, .size1280x720, .size1920x1080,
    ]
    for (width, height) in sources {
      for preset in presets {
        guard case .box(let bw, let bh) = preset.settings.video!.sizing else { continue }
        let size = ExportSizing.outputSize(
          width: width, height: height, sizing: preset.settings.video!.sizing)
        if width > bw || height > bh {
          let cli = try Self.cliSize(width, height, box: (bw, bh))
          #expect(size == cli, "\(width)x\(height) in \(preset.rawValue): CLI \(cli)")
        } else {
          #expect(size == (width - width % 2, height - height % 2))
        }
      }
    }
    // The measured iPhone Low/Medium outputs of a 1080p movie were 224×128 and 568×320; the
    // long-edge rule gives 224×126 and 568×320.
    #expect(
      ExportSizing.outputSize(width: 1920, height: 1080, sizing: .box(width: 224, height: 224)) == (
        224, 126
      ))
    #expect(
      ExportSizing.outputSize(width: 1920, height: 1080, sizing: .box(width: 568, height: 568)) == (
        568, 320
      ))
  }

  /// bit rate = bpp × width × height × fps.
  @Test func bitsPerPixel() {
    #expect(
      ExportSizing.bitRate(
        bitsPerPixel: 0.1, width: 1920, height: 1080, frameRate: Rational(30, 1)!)
        == 6_220_800)
    // 0.08 × 921,600 = 73,728 bits a frame; × 30000/1001 = 2,209,630.37…
    #expect(
      ExportSizing.bitRate(
        bitsPerPixel: 0.08, width: 1280, height: 720, frameRate: Rational(30000, 1001)!)
        == 2_209_630)
    #expect(
      ExportSizing.bitRate(bitsPerPixel: 0.25, width: 640, height: 480, frameRate: Rational(25, 1)!)
        == 1_920_000)
  }

  @Test func sizeCaps() {
    #expect(ExportSizing.parseSize("8MB") == 8_000_000)
    #expect(ExportSizing.parseSize("8MiB") == 8_388_608)
    #expect(ExportSizing.parseSize("1.5GB") == 1_500_000_000)
    #expect(ExportSizing.parseSize("500kB") == 500_000)
    #expect(ExportSizing.parseSize("500KiB") == 512_000)
    #expect(ExportSizing.parseSize("123456") == 123_456)
    #expect(ExportSizing.parseSize("-1MB") == nil)
    #expect(ExportSizing.parseSize("eight") == nil)
  }

  /// Video rate = (target bytes − overhead)·8/duration − audio rate, written out: 8 MB over
  /// 60 s with 128 kb/s audio at 30 fps and 48 kHz AAC (46.875 frames/s).
  @Test func compressToSizeArithmetic() throws {
    let budget = SizeBudget(
      maxBytes: 8_000_000, duration: 60, audioBitRate: 128_000, frameRate: 30,
      audioFrameRate: 48000.0 / 1024)
    // 1024 + 60 × (16 × 30 + 8 × 46.875) = 1024 + 51300.
    #expect(budget.containerOverhead == 52_324)
    #expect(budget.targetBytes == 7_800_000)
    // (7,800,000 − 52,324) × 8 / 60 − 128,000 = 1,033,023.47 − 128,000.
    #expect(budget.firstVideoBitRate == 905_023)
    #expect(budget.audioBytes == 960_000)
    #expect(budget.accepts(8_000_000) && budget.accepts(7_600_000))
    #expect(!budget.accepts(8_000_001) && !budget.accepts(7_599_999))
    // A cap that cannot hold the audio: no rate.
    let tiny = SizeBudget(
      maxBytes: 100_000, duration: 60, audioBitRate: 128_000, frameRate: 30,
      audioFrameRate: 46.875)
    #expect(tiny.firstVideoBitRate == nil)
    // One attempt: fixed part estimated (960,000 + 52,324 bytes); 905,023 b/s gave 8,400,000
    // bytes, so the video part is (8,400,000 − 1,012,324)/905,023 bytes per b/s.
    let slope = (8_400_000.0 - 1_012_324) / 905_023
    let expected = Int(((7_800_000.0 - 1_012_324) / slope).rounded(.down))
    #expect(budget.nextVideoBitRate(after: [(905_023, 8_400_000)]) == expected)
    // Two attempts: the line through both.
    let secant = (7_000_000.0 - 8_400_000) / Double(800_000 - 905_023)
    let fixed = 7_000_000.0 - secant * 800_000
    #expect(
      budget.nextVideoBitRate(after: [(905_023, 8_400_000), (800_000, 7_000_000)])
        == Int(((7_800_000 - fixed) / secant).rounded(.down)))
    // A content that cannot use the bits: 4 times the rate at most, then nothing more to try.
    #expect(budget.nextVideoBitRate(after: [(905_023, 2_000_000)]) == 4 * 905_023)
    #expect(budget.nextVideoBitRate(after: [(905_023, 2_000_000), (3_620_092, 2_050_000)]) == nil)
    #expect(budget.choice(among: [(905_023, 2_000_000), (3_620_092, 2_050_000)]) == 1)
    #expect(budget.choice(among: [(905_023, 8_100_000), (800_000, 7_700_000)]) == 1)
    #expect(budget.choice(among: [(905_023, 8_100_000)]) == nil)
  }

  /// An output without video (`--preset m4a`): the audio rate is what the passes adjust,
  /// written out for 12 s of stereo AAC at 48 kHz (46.875 frames/s) under 200 kB.
  @Test func audioOnlyBudgetArithmetic() throws {
    var budget = SizeBudget(
      maxBytes: 200_000, duration: 12, audioBitRate: 256_000, frameRate: 0,
      audioFrameRate: 48000.0 / 1024)
    budget.channels = 2
    #expect(budget.audioOnly)
    // 1024 + 12 × 8 × 46.875 = 5,524 bytes; target 195,000: (195,000 − 5,524) × 8 / 12 =
    // 126,317.3 b/s, 126 whole kb/s.
    #expect(budget.containerOverhead == 5_524)
    #expect(budget.firstAudioBitRate(highest: 256_000) == 126_000)
    // Never more than asked: the cap is a limit.
    #expect(budget.firstAudioBitRate(highest: 96_000) == 96_000)
    // In 95-100% of the cap: no next pass. Over it: scaled by (195,000 − 5,524)/(210,000 −
    // 5,524) and at least 1 kb/s down; under 95%: scaled up, at most the rate asked.
    #expect(budget.nextAudioBitRate(after: 126_000, wrote: 199_000, highest: 256_000) == nil)
    #expect(
      budget.nextAudioBitRate(after: 126_000, wrote: 210_000, highest: 256_000)
        == Int((126_000.0 * 189_476 / 204_476 / 1000).rounded(.down)) * 1000)
    // Just over: 126,000 × 189,476/194,477 = 122,760 b/s, 122 whole kb/s.
    #expect(budget.nextAudioBitRate(after: 126_000, wrote: 200_001, highest: 256_000) == 122_000)
    // 32 kb/s wrote 92% (the container took less than estimated): 32,000 × 189,476/(184,000 −
    // 5,524) = 33,970 b/s, 33 whole kb/s; never above the rate asked.
    #expect(budget.nextAudioBitRate(after: 32_000, wrote: 184_000, highest: 256_000) == 33_000)
    #expect(budget.nextAudioBitRate(after: 32_000, wrote: 184_000, highest: 32_000) == nil)
    // The lowest rate is 16 kb/s per channel: 40 kB cannot hold 12 s of stereo (32 kb/s need
    // 48,000 bytes), mono fits.
    budget.maxBytes = 40_000
    #expect(budget.firstAudioBitRate(highest: 256_000) == nil)
    budget.channels = 1
    #expect(budget.lowestAudioBitRate == 16_000)
    // (39,000 − 5,524) × 8 / 12 = 22,317.3 b/s.
    #expect(budget.firstAudioBitRate(highest: 256_000) == 22_000)
    #expect(budget.nextAudioBitRate(after: 16_000, wrote: 41_000, highest: 256_000) == nil)
    // With video the budget is not audio-only.
    budget.frameRate = 25
    #expect(!budget.audioOnly)
  }

  /// The two-pass loop's next rate, written out (8 MB over 60 s, target 7,800,000 bytes). After
  /// the first pass: the video gets what the target leaves beside the audio and container bytes
  /// that pass measured; after a second-pass attempt, or when the first pass spent under half the
  /// rate asked: the rate scaled by target video bytes / video bytes written (at most 4 times).
  @Test func twoPassNextRate() throws {
    let budget = SizeBudget(
      maxBytes: 8_000_000, duration: 60, audioBitRate: 128_000, frameRate: 30,
      audioFrameRate: 48000.0 / 1024)
    // 9,000,000 bytes, 8,000,000 of them video (the ABR overshot): fixed 1,000,000 measured,
    // so (7,800,000 − 1,000,000) × 8 / 60 = 906,666.67 b/s.
    #expect(budget.nextTwoPassVideoBitRate(after: [(905_023, 9_000_000, 8_000_000)]) == 906_666)
    // A second-pass attempt at 906,666 b/s wrote 6,600,000 video bytes of 7,620,000: the rate
    // scaled by (7,800,000 − 1,020,000) / 6,600,000.
    #expect(
      budget.nextTwoPassVideoBitRate(after: [
        (905_023, 9_000_000, 8_000_000), (906_666, 7_620_000, 6_600_000),
      ]) == Int((906_666.0 * 6_780_000 / 6_600_000).rounded(.down)))
    // A first pass that spent under half the rate (still content): scaled, 4 times at most;
    // then a higher rate that buys under 1% of the cap ends the loop.
    #expect(budget.nextTwoPassVideoBitRate(after: [(905_023, 2_000_000, 1_000_000)]) == 3_620_092)
    #expect(
      budget.nextTwoPassVideoBitRate(after: [
        (905_023, 2_000_000, 1_000_000), (3_620_092, 2_050_000, 1_050_000),
      ]) == nil)
    #expect(budget.nextTwoPassVideoBitRate(after: []) == 905_023)
  }

  /// The measured rate loop through Render's Transcoder on three contents made by construction
  /// (320×240, 25 fps, 4 s, with a 1 kHz tone): noise over testsrc2 (high motion), testsrc2
  /// (moving graphics) and one colour (static). Every attempt is written and measured on disk.
  /// The contents that need the bits land within 95-100% of a 120 kB cap in at most 4 attempts;
  /// the static one cannot use them, and the attempt kept is under the cap.
  @Test(arguments: [
    ("noisy", "testsrc2=size=320x240:rate=25,noise=alls=40:allf=t", true),
    ("moving", "testsrc2=size=320x240:rate=25", true),
    ("static", "color=c=0x406080:size=320x240:rate=25", false),
  ])
  func rateLoopLandsUnderTheCap(_ name: String, _ source: String, _ needsTheBits: Bool) throws {
    let clip = Fixtures.directory + "/\(name).mp4"
    if !FileManager.default.fileExists(atPath: clip) {
      try ffmpeg([
        "-f", "lavfi", "-i", source, "-f", "lavfi", "-i", "sine=f=1000:sample_rate=48000", "-t",
        "4", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "10", "-c:a", "aac", "-b:a",
        "128k", clip,
      ])
    }
    let cap: Int64 = 120_000
    let budget = SizeBudget(
      maxBytes: cap, duration: 4, audioBitRate: 64_000, frameRate: 25,
      audioFrameRate: 48000.0 / 1024)
    var attempts: [(videoBitRate: Int, bytes: Int64)] = []
    while attempts.count < 4, let rate = budget.nextVideoBitRate(after: attempts) {
      let input = try open(clip)
      var video = VideoEncoding()
      video.encoder.preset = "veryfast"
      video.encoder.rateControl = .bitRate(rate)
      let audio = AudioEncoding(
        encoder: EncoderSettings.Audio(sampleRate: 48000, channelLayout: .mono, bitRate: 64_000))
      let settings = RenderSettings(
        streams: RenderSettings.firstStreams(
          of: input, video: .encodeVideo(video), audio: .encodeAudio(audio)))
      let path = try transcode(clip, "capped-\(name)-\(attempts.count).mp4", settings).path
      let bytes = try #require(
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber
      ).int64Value
      attempts.append((rate, bytes))
      #expect(try isFaststart(path), "moov before mdat (optimise for network use)")
      print(
        "rate loop (\(name)): attempt \(attempts.count) at \(rate) b/s wrote \(bytes) bytes "
          + "(\(String(format: "%.1f", Double(bytes) * 100 / Double(cap)))% of the cap)")
      if budget.accepts(bytes) { break }
    }
    let kept = try #require(budget.choice(among: attempts), "every attempt over the cap")
    let bytes = attempts[kept].bytes
    #expect(bytes <= cap)
    #expect(budget.accepts(bytes) == needsTheBits, "\(name): \(attempts)")
  }
}
