import Testing

@testable import Compatibility
@testable import MediaCore
import AV
@testable import MediaProbe

/// The platform database and the rule engine's semantics.
@Suite struct PlatformDatabaseTests {
  static let expectedIDs: Set = [
    "iphone-2012", "android-2.3.3", "android-3.0", "android-4.0", "iphone-browser-2012",
    "ipad-browser-2012",
    "android-browser-2012", "mobile-low", "mobile-medium", "mobile-high", "ios-17", "android-14",
    "chrome",
    "safari", "firefox", "apple-hls",
  ]

  @Test func everyPlatformIsThere() {
    #expect(Set(PlatformDatabase.all.map(\.id)) == Self.expectedIDs)
    #expect(PlatformDatabase.all.allSatisfy { $0.schemaVersion == 1 })
  }

  /// The names read without decoding the rules are those of the decoded platforms, in order.
  @Test func namesAreThoseOfTheDecodedPlatforms() {
    let all = PlatformDatabase.all
    #expect(PlatformDatabase.names == all.map(\.id) + Set(all.flatMap(\.aliases)).sorted())
  }

  @Test func everyRuleCitesAKnownSource() {
    for platform in PlatformDatabase.all {
      var cited = platform.directPlay.map(\.source)
      for entry in platform.rules {
        switch entry {
        case .rule(let rule): cited.append(rule.source)
        case .anyOf(let group):
          cited.append(group.source)
          cited += group.anyOf.flatMap(\.rules).map(\.source)
        }
      }
      for source in cited {
        #expect(platform.sources[source] != nil, "\(platform.id) cites unknown source \(source)")
      }
    }
  }

  @Test func aliasesResolve() throws {
    #expect(PlatformDatabase.resolve("iphone")?.map(\.id) == ["ios-17"])
    // The names people type first select the current versions (issue 20).
    #expect(
      try PlatformDatabase.resolve(list: ["ios,android,chrome", "safari", "firefox"]).map(\.id)
        == ["ios-17", "android-14", "chrome", "safari", "firefox"])
    #expect(PlatformDatabase.resolve("android")?.map(\.id) == ["android-14"])
    #expect(
      Set(PlatformDatabase.resolve("web")?.map(\.id) ?? []) == ["chrome", "safari", "firefox"])
    #expect(PlatformDatabase.resolve("IOS-17")?.map(\.id) == ["ios-17"])
    #expect(PlatformDatabase.resolve("windows-phone") == nil)
  }
}

@Suite struct RuleEngineTests {
  @Test func operators() {
    typealias C = CompatibilityChecker
    #expect(C.holds(.text("High"), .in, .list([.text("Main"), .text("High")])))
    #expect(!C.holds(.text("High 10"), .in, .list([.text("Main"), .text("High")])))
    #expect(C.holds(.text("vp8"), .notIn, .list([.text("hevc")])))
    #expect(C.holds(.number(1_500_000), .atMost, .number(1_500_000)))
    #expect(!C.holds(.number(1_500_001), .atMost, .number(1_500_000)))
    #expect(C.holds(.number(4.2), .atLeast, .number(4.1)))
    #expect(C.holds(.flag(false), .equals, .flag(false)))
    // A size fits a box in either orientation (portrait phone clips).
    #expect(C.holds(.size(width: 480, height: 640), .fits, .list([.number(640), .number(480)])))
    #expect(!C.holds(.size(width: 720, height: 480), .fits, .list([.number(640), .number(480)])))
  }

  static func platform(_ rules: [RuleEntry]) -> Platform {
    Platform(
      schemaVersion: 1, id: "test", name: "test", era: "modern", aliases: [],
      sources: ["s": Source(title: "Spec", url: "https://example.invalid/spec")],
      directPlay: [
        DirectPlayRow(containers: ["mp4"], video: ["h264"], audio: ["aac"], source: "s")
      ],
      rules: rules,
      transcode: TranscodeRecipe(
        container: "mp4", video: VideoEncoderSettings(encoder: "libx264"),
        audio: AudioEncoderSettings(encoder: "aac"), audioChannels: 2,
        audioSampleRate: 48000))
  }

  static func rule(_ field: String, _ op: RuleOperator, _ value: RuleValue, required: Bool = false)
    -> Rule
  {
    Rule(
      id: field, field: field, op: op, value: value, severity: .fail, fix: .transcodeVideo,
      reason: "{actual} vs {limit}", source: "s", when: nil, required: required, delivery: nil)
  }

  static func facts(_ values: [String: Fact]) -> CompatFacts {
    var facts = CompatFacts(
      MediaInfo(
        path: "x.mp4", sizeBytes: 1,
        container: Container(
          formatName: "mov,mp4,m4a,3gp,3g2,mj2", formatLongName: nil, majorBrand: "isom",
          bitRate: nil, startTime: nil, fastStart: true, tags: [:]),
        duration: nil, streams: [], scanned: false))
    facts.values.merge(values) { $1 }
    facts.hasVideo = true
    return facts
  }

  @Test func unknownWarnsUnlessRequired() {
    let checker = CompatibilityChecker()
    let platform = Self.platform([])
    let facts = Self.facts([:])
    let optional = checker.evaluate(
      Self.rule("video.bit_rate", .atMost, .number(1)), facts, platform)
    #expect(optional.map(\.severity) == [.warn])
    #expect(optional.first?.actual == nil)
    let required = checker.evaluate(
      Self.rule("video.bit_rate", .atMost, .number(1), required: true), facts, platform)
    #expect(required.map(\.severity) == [.fail])
  }

  @Test func findingsCarryValuesAndSources() {
    let checker = CompatibilityChecker()
    let findings = checker.evaluate(
      Self.rule("video.bit_rate", .atMost, .number(1_500_000)),
      Self.facts(["video.bit_rate": .number(2_000_000)]),
      Self.platform([]))
    #expect(findings.count == 1)
    #expect(findings.first?.actual == "2000000")
    #expect(findings.first?.limit == "<= 1500000")
    #expect(findings.first?.reason == "2000000 vs 1500000")
    #expect(findings.first?.source == "Spec")
    #expect(findings.first?.sourceUrl == "https://example.invalid/spec")
  }

  @Test func fixesAreOrderedCheapestFirst() {
    #expect(
      [Fix.transcodeVideo, .remux, .transcodeAudio].sorted() == [
        .remux, .transcodeAudio, .transcodeVideo,
      ])
  }
}

@Suite struct CompatFactsTests {
  static func info(video: MediaStream) -> MediaInfo {
    MediaInfo(
      path: "x.mp4", sizeBytes: 1,
      container: Container(
        formatName: "mov,mp4,m4a,3gp,3g2,mj2", formatLongName: nil, majorBrand: "qt  ",
        bitRate: 1000,
        startTime: 0, fastStart: true, tags: [:]),
      duration: nil, streams: [video], scanned: false)
  }

  static func stream(
    codec: String, level: String?, width: Int = 1920, height: Int = 1080,
    rotation: AffineTransform = .identity
  ) -> MediaStream {
    let orientation = Orientation(
      transform: rotation, width: width, height: height, sampleAspectRatio: nil)
    return MediaStream(
      index: 0, type: .video,
      codec: Codec(name: codec, longName: nil, tag: nil, profile: "Main", level: level),
      bitRate: nil, duration: nil, frameCount: nil, timeBase: Rational(1, 600)!, language: nil,
      title: nil,
      disposition: ["default": true, "attached_pic": false],
      video: VideoInfo(
        width: width, height: height, codedWidth: nil, codedHeight: nil, pixelFormat: nil,
        bitDepth: 8,
        chromaSubsampling: nil, sampleAspectRatio: nil, displayAspectRatio: nil, anamorphic: false,
        fieldOrder: nil, interlaced: false,
        color: ColorInfo(range: nil, primaries: nil, transfer: nil, matrix: nil),
        hdr: nil, frameRate: FrameRate(nominal: Rational(30, 1), average: Rational(30, 1)),
        orientation: orientation),
      audio: nil)
  }

  @Test func unrestrictedLevelIsUnknown() {
    // x265's level 8.5 ("unrestricted", general_level_idc 255) is not a limit to compare.
    #expect(
      CompatFacts(Self.info(video: Self.stream(codec: "hevc", level: "8.5"))).values["video.level"]
        == nil)
    #expect(
      CompatFacts(Self.info(video: Self.stream(codec: "hevc", level: "5.1"))).values["video.level"]
        == .number(5.1))
  }

  @Test func sizeIsTheDisplaySizeAfterRotation() {
    let portrait = Self.stream(
      codec: "h264", level: "3.0", width: 640, height: 480,
      rotation: AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 0, ty: 0))
    let facts = CompatFacts(Self.info(video: portrait))
    #expect(facts.values["video.size"] == .size(width: 480, height: 640))
    #expect(facts.values["container"] == .text("mov"))  // brand "qt  "
  }
}

/// The frame rate a limit is compared with: the nominal rate of a variable-rate clip.
@Suite struct NominalFrameRateTests {
  static func rate(nominal: Rational?, average: Rational?) -> Double? {
    CompatFacts.nominalFrameRate(FrameRate(nominal: nominal, average: average))
  }

  @Test func variableRatePhoneClipIsItsNominalRate() {
    // An iPhone clip: time scale 600, 30 frames in 299 ticks (60.2 fps), r_frame_rate 60.
    #expect(Self.rate(nominal: Rational(60, 1), average: Rational(18000, 299)) == 60)
    // A base rate that is a tick rate, not a frame rate: the standard rate within 1%.
    #expect(Self.rate(nominal: Rational(120, 1), average: Rational(60060, 1000)) == 60)
    #expect(Self.rate(nominal: nil, average: Rational(2997, 100)) == 30000.0 / 1001)
  }

  @Test func otherRatesStayMeasured() {
    #expect(Self.rate(nominal: Rational(240, 1), average: Rational(240, 1)) == 240)
    // 61.5 fps is 2.5% above 60: over a 60 fps limit.
    #expect(Self.rate(nominal: Rational(123, 2), average: Rational(123, 2)) == 61.5)
    // Half 10 fps and half 30 fps: 20 on average, no standard rate near.
    #expect(Self.rate(nominal: Rational(30, 1), average: Rational(20, 1)) == 20)
    #expect(Self.rate(nominal: nil, average: nil) == nil)
  }
}

/// H.264 Table A-1 (ITU-T Rec. H.264 Annex A) against the level examples the standard's limits
/// give: 1080p needs 4.0 at 30 fps and 4.2 at 60, 4K needs 5.1 at 30 and 5.2 at 60.
@Suite struct H264LevelTests {
  @Test func lowestLevels() {
    func level(_ width: Int, _ height: Int, _ rate: Double) -> String? {
      H264Level.lowest(width: width, height: height, frameRate: rate)?.name
    }
    #expect(level(176, 144, 15) == "1.0")  // QCIF: 99 MBs x 15 = 1485 = MaxMBPS of level 1
    #expect(level(640, 480, 30) == "3.0")
    #expect(level(1280, 720, 30) == "3.1")
    #expect(level(1920, 1080, 30) == "4.0")
    #expect(level(1920, 1080, 60) == "4.2")
    #expect(level(1080, 1920, 60) == "4.2")  // portrait: the same macroblocks
    #expect(level(3840, 2160, 30) == "5.1")
    #expect(level(3840, 2160, 60) == "5.2")
    #expect(level(1920, 1080, 240) == "5.2")
    #expect(level(7680, 4320, 60) == "6.1")
    #expect(level(7680, 4320, 240) == nil)
    // 4.1 allows 245,760 MB/s: 1080p (8,160 MBs) at 30.1 fps at most.
    let l41 = H264Level.table.first { $0.name == "4.1" }!
    #expect(l41.allows(width: 1920, height: 1080, frameRate: 30))
    #expect(!l41.allows(width: 1920, height: 1080, frameRate: 60))
  }

  @Test func aFrameTooNarrowForALevelNeedsAHigherOne() {
    // MaxFS 1,620 (level 3.0) but a side of at most sqrt(8 x 1620) = 113 macroblocks: a
    // 1920x64 strip (120 x 4 = 480 MBs) needs level 3.1 (sqrt(8 x 3600) = 169).
    #expect(H264Level.lowest(width: 1920, height: 64, frameRate: 10)?.name == "3.1")
  }
}

/// How a suggestion writes linear PCM and sizes a scaled picture.
@Suite struct SuggestionPartsTests {
  @Test func pcmKeepsItsKindAndDepth() {
    let wav: Set = ["pcm_u8", "pcm_s16le", "pcm_s24le", "pcm_s32le", "pcm_f32le"]
    #expect(PCMFormat.preferred(for: PCMFormat("pcm_f64le")!, among: wav).first == "pcm_f32le")
    #expect(
      PCMFormat.preferred(for: PCMFormat("pcm_s32le")!, among: wav).prefix(2) == [
        "pcm_s32le", "pcm_s24le",
      ])
    #expect(PCMFormat("pcm_mulaw") == nil && PCMFormat("aac") == nil)
  }

  /// The sizes ffmpeg 5.1's `scale=w=W:h=H:force_original_aspect_ratio=decrease:
  /// force_divisible_by=2` wrote for these inputs (ffprobe on its output, 2026-11-25).
  @Test func scaledToFitMatchesFFmpeg() {
    #expect(Suggestion.scaledToFit(width: 1918, height: 1080, box: (1280, 720)) == (1278, 720))
    #expect(Suggestion.scaledToFit(width: 2160, height: 3840, box: (1080, 1920)) == (1080, 1920))
    #expect(Suggestion.scaledToFit(width: 2880, height: 2160, box: (1920, 1080)) == (1440, 1080))
    #expect(Suggestion.scaledToFit(width: 1000, height: 999, box: (640, 480)) == (480, 480))
  }

  /// Platform files hold typed encoder settings; their ffmpeg options are derived in one place,
  /// and a level is set per output (H.264 Table A-1), never taken from the file.
  @Test func encoderSettingsBecomeFFmpegOptions() throws {
    var video = VideoEncoderSettings(encoder: "libx264", profile: "high", pixelFormat: "yuv420p")
    #expect(video.codec == "h264")
    #expect(
      video.ffmpegArguments == ["-c:v", "libx264", "-profile:v", "high", "-pix_fmt", "yuv420p"])
    video.level = "4.2"
    #expect(video.ffmpegArguments.suffix(2) == ["-level", "4.2"])
    let audio = AudioEncoderSettings(encoder: "libopus", bitRate: 96_000)
    #expect(audio.codec == "opus")
    #expect(audio.ffmpegArguments == ["-c:a", "libopus", "-b:a", "96k"])
    for platform in PlatformDatabase.all { #expect(platform.transcode.video.level == nil) }
  }
}
