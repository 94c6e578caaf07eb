import Testing

@testable import Compatibility
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

  @Test func aliasesResolve() {
    #expect(PlatformDatabase.resolve("iphone")?.map(\.id) == ["ios-17"])
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
        container: "mp4", video: ["-c:v", "libx264"], audio: ["-c:a", "aac"], audioChannels: 2,
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
