import Compatibility
import Foundation
import MediaCore
import AV
import MediaProbe
import Testing

@testable import Merge

/// The planner on the committed clips (Tests/MergeFixtures, made by Scripts/make-fixtures.sh,
/// whose sizes, rates, durations and matrices are known by construction) and on variants of
/// them that differ in one field each.
@Suite struct PlannerTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path
  static let folder = root + "/Tests/MergeFixtures/"

  static func clip(_ name: String) throws -> ProbedClip {
    try ClipProber().probe(folder + name)
  }

  static func plan(
    _ clips: [ProbedClip], _ configure: (inout MergeRequest) -> Void = { _ in }
  ) throws -> MergePlan {
    var request = MergeRequest(output: "/tmp/out.mp4", ffmpeg: "/usr/bin/ffmpeg")
    configure(&request)
    return try MergePlanner(request: request).plan(clips)
  }

  static func four() throws -> [ProbedClip] {
    try ["landscape.mp4", "portrait.mp4", "mirrored.mp4", "mono44k.mp4"].map(clip)
  }

  // MARK: - Timeline

  /// Starts are the exact sums of the previous clips' spans; a clip lasts the longer of its
  /// streams (mono44k: video 1 s, audio 1.2 s), and the shorter is padded.
  @Test func timelineIsTheExactSumOfTheClips() throws {
    let plan = try Self.plan(Self.four())
    let starts = plan.clips.map(\.start)
    #expect(
      starts == [
        .zero, MediaTime(value: 1, timescale: 1), MediaTime(value: 1501, timescale: 500),
        MediaTime(value: 2001, timescale: 500),
      ])
    #expect(plan.clips.map(\.duration.seconds) == [1, 2.002, 1, 1.2])
    #expect(plan.duration == MediaTime(value: 2601, timescale: 500))  // 5.202 s
    #expect(plan.clips[3].padding.video == MediaTime(value: 1, timescale: 5))  // last frame held
    #expect(plan.clips[3].padding.audio == .zero)
    #expect(plan.clips[1].audio == nil)
    #expect(plan.clips[1].padding.audio == plan.clips[1].duration)  // all silence
  }

  /// Frames and samples are rounded at each clip's end on the output grid, so per-clip rounding
  /// never adds up: a 30 fps clip and 99 clips of 2.002 s make round(199.198 x 30) = 5976
  /// frames, where rounding each clip would give 30 + 99 x 60 = 5970 (0.2 s short).
  @Test func roundingHappensAtClipEndsOnly() throws {
    let plan = try Self.plan(Self.four())
    #expect(plan.clips.map(\.frames) == [30, 60, 30, 36])
    #expect(plan.clips.map(\.samples) == [48000, 96096, 48000, 57600])
    #expect(plan.expected.videoDuration == MediaTime(value: 26, timescale: 5))  // 156 frames
    #expect(plan.expected.audioDuration == MediaTime(value: 2601, timescale: 500))

    let portrait = try Self.clip("portrait.mp4")
    let long = try Self.plan([Self.clip("landscape.mp4")] + Array(repeating: portrait, count: 99))
    #expect(long.duration == MediaTime(value: 99599, timescale: 500))  // 199.198 s
    #expect(long.clips.compactMap(\.frames).reduce(0, +) == 5976)
    #expect(abs(long.expected.videoDuration.seconds - long.duration.seconds) <= 1.0 / 60)
  }

  // MARK: - Render

  /// The guide's rule: the largest display width by the largest display height after rotation;
  /// the highest frame rate; each clip fitted and centred on even offsets.
  @Test func renderSizeIsTheLargestDisplaySize() throws {
    let plan = try Self.plan(Self.four())
    #expect(plan.method == .encode)
    #expect(plan.render.width == 160 && plan.render.height == 160)
    #expect(plan.render.frameRate == Rational(30, 1))
    let transforms = plan.clips.compactMap(\.transform)
    #expect(transforms.map(\.upright) == [[], ["transpose=clock"], ["transpose=cclock_flip"], []])
    let placements: [[Int]] = [
      [0, 34, 160, 90], [34, 0, 90, 160], [34, 0, 90, 160], [0, 20, 160, 120],
    ]
    #expect(transforms.map { [$0.x, $0.y, $0.width, $0.height] } == placements)
    #expect(plan.expected.orientation == "up")
  }

  /// `--size` and `--fill`: the picture covers the render and the overflow is cropped.
  @Test func fillCropsCentred() throws {
    let plan = try Self.plan([Self.clip("portrait.mp4")]) {
      $0.size = RenderSize(width: 640, height: 480)
      $0.fit = .fill
    }
    let transform = try #require(plan.clips[0].transform)
    // 90x160 scaled by 640/90 covers 640x1138; the middle 480 rows are kept.
    let placement: [Int] = [0, -328, 640, 1138]
    #expect([transform.x, transform.y, transform.width, transform.height] == placement)
    #expect(plan.clips[0].videoFilter?.contains("crop=640:480:0:328") == true)
  }

  /// A platform's recipe: its largest size and frame rate limit the render.
  @Test func platformLimitsTheRender() throws {
    let platform = try #require(PlatformDatabase.resolve("mobile-low")?.first)
    let plan = try Self.plan(Self.four()) {
      $0.size = RenderSize(width: 1920, height: 1080)
      $0.platform = platform
    }
    #expect(plan.render.width == 320 && plan.render.height == 180)
    #expect(plan.video.encoder?.profile == "baseline")
    #expect(plan.ffmpeg.arguments.contains("baseline"))
    #expect(plan.platform == "mobile-low")
  }

  // MARK: - Upright

  /// The filters put every pixel where the display matrix puts it: the matrix applied as
  /// CGAffineTransform (then moved to the origin) against FFmpeg's documented filter geometry,
  /// for the 8 matrices of reference/probe.md.
  @Test(arguments: [
    (1.0, 0.0, 0.0, 1.0), (0, 1, -1, 0), (-1, 0, 0, -1), (0, -1, 1, 0), (-1, 0, 0, 1),
    (1, 0, 0, -1), (0, 1, 1, 0), (0, -1, -1, 0),
  ])
  func uprightFiltersApplyTheDisplayMatrix(_ m: (Double, Double, Double, Double)) {
    let (width, height) = (3, 2)
    let transform = AffineTransform(a: m.0, b: m.1, c: m.2, d: m.3, tx: 0, ty: 0)
    let orientation = Orientation(
      transform: transform, width: width, height: height, sampleAspectRatio: nil)
    let filters = MergePlanner.uprightFilters(
      rotation: orientation.rotation, mirrored: orientation.mirrored)
    for y in 0..<height {
      for x in 0..<width {
        // The matrix: pixel centres through x' = a x + c y, y' = b x + d y, box moved to 0.
        let corners = [
          (0.0, 0.0), (Double(width), 0), (0, Double(height)), (Double(width), Double(height)),
        ]
        let xs = corners.map { m.0 * $0.0 + m.2 * $0.1 }
        let ys = corners.map { m.1 * $0.0 + m.3 * $0.1 }
        let (cx, cy) = (Double(x) + 0.5, Double(y) + 0.5)
        let expected = (
          Int(m.0 * cx + m.2 * cy - xs.min()!), Int(m.1 * cx + m.3 * cy - ys.min()!)
        )
        // The filters, as ffmpeg-filters(1) describes them.
        var (px, py, w, h) = (x, y, width, height)
        for filter in filters {
          switch filter {
          case "hflip": px = w - 1 - px
          case "vflip": py = h - 1 - py
          case "transpose=clock": (px, py, w, h) = (h - 1 - py, px, h, w)
          case "transpose=cclock": (px, py, w, h) = (py, w - 1 - px, h, w)
          case "transpose=cclock_flip": (px, py, w, h) = (py, px, h, w)
          case "transpose=clock_flip": (px, py, w, h) = (h - 1 - py, w - 1 - px, h, w)
          default: Issue.record("unknown filter \(filter)")
          }
        }
        #expect(px == expected.0 && py == expected.1, "\(orientation.name) pixel (\(x),\(y))")
        #expect((w, h) == (orientation.displayWidth, orientation.displayHeight))
      }
    }
  }

  // MARK: - Copy or encode

  /// Two clips made with the same settings are copied: the concat list names both with their
  /// exact durations and selects the video track by id.
  @Test func compatibleClipsAreCopied() throws {
    let plan = try Self.plan([Self.clip("pair_a.mp4"), Self.clip("pair_b.mp4")])
    #expect(plan.method == .copy)
    #expect(plan.copyBlockers.isEmpty)
    #expect(plan.video.encoder == nil)
    let options = plan.ffmpeg.arguments
    #expect(zip(options, options.dropFirst()).contains { $0 == "-c:v" && $1 == "copy" })
    let list = try #require(plan.ffmpeg.stdin)
    #expect(list.hasPrefix("ffconcat version 1.0\nstream\nexact_stream_id 1\n"))
    #expect(list.contains("pair_a.mp4'\nduration 1.000000\n"))
    #expect(list.contains("pair_b.mp4'\nduration 1.500000\n"))
    #expect(plan.expected.orientation == "right")  // the matrix is kept
    #expect(plan.expected.displayWidth == 90 && plan.expected.displayHeight == 160)
    #expect(plan.audio != nil)  // the audio is encoded once even so
  }

  /// One field that differs from the first clip blocks the copy, and is the only reason given.
  @Test(arguments: [
    "video.codec", "video.tag", "video.profile", "video.level", "video.size",
    "video.pixel_format", "video.sample_aspect_ratio", "video.time_base", "video.extradata",
    "orientation", "video.track_id", "video.edit_list",
  ])
  func eachDifferenceBlocksTheCopy(_ field: String) throws {
    let first = try Self.clip("pair_a.mp4")
    var other = try Self.clip("pair_b.mp4")
    let index = try #require(other.videoStream?.index)
    var stream = other.info.streams[index]
    var video = try #require(stream.video)
    switch field {
    case "video.codec": stream.codec.name = "mpeg4"
    case "video.tag": stream.codec.tag = "avc3"
    case "video.profile": stream.codec.profile = "Main"
    case "video.level": stream.codec.level = "3.1"
    case "video.size": video.width = 320
    case "video.pixel_format": video.pixelFormat = "yuv422p"
    case "video.sample_aspect_ratio": video.sampleAspectRatio = Rational(4, 3)
    case "video.time_base": stream.timeBase = Rational(1, 30000)!
    case "video.extradata": other.videoExtradata[other.videoExtradata.count - 1] ^= 0xFF
    case "orientation":
      video.orientation = Orientation(
        transform: .identity, width: video.width, height: video.height, sampleAspectRatio: nil)
    case "video.track_id": other.videoContainerID = 2
    case "video.edit_list": other.videoPacketsOutsideEdits = 12
    default: Issue.record("no variant for \(field)")
    }
    stream.video = video
    other.info.streams[index] = stream
    let plan = try Self.plan([first, other])
    #expect(plan.method == .encode)
    #expect(plan.copyBlockers.map(\.field) == [field])
    #expect(plan.copyBlockers.allSatisfy { $0.clip == 1 && $0.reason.hasPrefix("clip 2 (") })
  }

  /// The clips of the issue: the portrait clip's 1/30000 time base is named with both values.
  @Test func reasonsNameBothValues() throws {
    let plan = try Self.plan([Self.clip("landscape.mp4"), Self.clip("portrait.mp4")])
    let reasons = plan.copyBlockers.map(\.reason)
    #expect(reasons.contains { $0.contains("time base 1/30000 differs from clip 1's 1/15360") })
    #expect(reasons.contains { $0.contains("display matrix right (0,1,-1,0)") })
    // landscape and pair_a differ only by their matrix (same encoder settings).
    let matrixOnly = try Self.plan([Self.clip("landscape.mp4"), Self.clip("pair_a.mp4")])
    #expect(matrixOnly.copyBlockers.map(\.field) == ["orientation"])
  }

  /// `--encode` and `--size` ask for an encode; `--copy` refuses to encode and lists why.
  @Test func theRequestDecides() throws {
    let pair = [try Self.clip("pair_a.mp4"), try Self.clip("pair_b.mp4")]
    #expect(try Self.plan(pair) { $0.method = .encode }.copyBlockers.map(\.field) == ["request"])
    #expect(
      try Self.plan(pair) { $0.size = RenderSize(width: 320, height: 180) }.copyBlockers.map(
        \.field) == ["request"])
    #expect(try Self.plan(pair) { $0.method = .copy }.method == .copy)
    let mixed = [try Self.clip("landscape.mp4"), try Self.clip("portrait.mp4")]
    #expect {
      try Self.plan(mixed) { $0.method = .copy }
    } throws: { error in
      guard let error = error as? MergeError, case .incompatibleInputs(_, let reasons) = error
      else { return false }
      return error.code == "incompatible_inputs" && reasons.count == 3
    }
  }

  /// A platform the clips do not play on forces an encode; one they play on does not.
  @Test func platformsDecideToo() throws {
    let pair = [try Self.clip("pair_a.mp4"), try Self.clip("pair_b.mp4")]
    let ios = try #require(PlatformDatabase.resolve("ios-17")?.first)
    #expect(try Self.plan(pair) { $0.platform = ios }.method == .copy)
    let old = try #require(PlatformDatabase.resolve("iphone-2012")?.first)  // Baseline only
    let blocked = try Self.plan(pair) { $0.platform = old }
    #expect(blocked.method == .encode)
    #expect(
      blocked.copyBlockers.contains { $0.field == "platform" && $0.reason.contains("iphone-2012") })
  }

  // MARK: - Edge cases

  /// A clip without video cannot be merged; without any audio the output has none.
  @Test func streamsThatAreMissing() throws {
    let audioOnly = try ClipProber().probe(Self.root + "/Tests/CompatFixtures/aac.m4a")
    #expect(throws: MergeError.self) { try Self.plan([Self.clip("landscape.mp4"), audioOnly]) }
    let silent = try Self.plan([Self.clip("portrait.mp4")])
    #expect(silent.audio == nil && silent.expected.audioCodec == nil)
    #expect(silent.clips.allSatisfy { $0.audioFilter == nil && $0.samples == nil })
    #expect(!silent.ffmpeg.arguments.contains("[a]"))
  }

  /// `CMTimeAdd`: exact in the common timescale (merge.md: 15360 and 30000 meet at 1,920,000).
  @Test func timesAddExactly() {
    let sum = MediaTime(value: 1, timescale: 15360) + MediaTime(value: 1, timescale: 30000)
    #expect(Int64(1_920_000) % sum.timescale == 0)
    #expect(sum == MediaTime(value: 189, timescale: 1_920_000))
    #expect(MediaTime(value: 1501, timescale: 500).units(atRate: Rational(30, 1)!) == 90)
    #expect(MediaTime(value: 1, timescale: 60).units(atRate: Rational(30, 1)!) == 1)  // half up
    #expect(MediaTime(units: 60, rate: Rational(30000, 1001)!).seconds == 2.002)
  }

  /// The plan survives JSON (snake_case keys, nulls present).
  @Test func planRoundTripsThroughJSON() throws {
    let plan = try Self.plan(Self.four())
    let data = try MediaToolsJSONEncoder().encode(plan)
    let text = String(decoding: data, as: UTF8.self)
    #expect(text.contains("\"copy_blockers\"") && text.contains("\"platform\" : null"))
    #expect(try JSONDecoder.mediaTools().decode(MergePlan.self, from: data) == plan)
  }

  // MARK: - Output check

  /// A file checked against its own one-clip copy plan passes; against a plan it does not
  /// match, every difference is named.
  @Test func outputCheckNamesEveryDifference() throws {
    let pairA = try Self.clip("pair_a.mp4")
    let probe = try Prober(options: ProbeOptions(scan: true, verify: .all)).probe(
      .file(pairA.path), path: pairA.path)
    #expect(OutputCheck.problems(probe, against: try Self.plan([pairA])).isEmpty)
    let longer = try Self.plan([pairA, try Self.clip("pair_b.mp4")])
    let problems = OutputCheck.problems(probe, against: longer)
    #expect(problems.contains { $0.hasPrefix("video duration 1.000000 s, 2.5 s planned") })
    #expect(problems.contains { $0.hasPrefix("audio duration") })
    let encoded = try Self.plan([Self.clip("landscape.mp4"), Self.clip("portrait.mp4")])
    let mismatched = OutputCheck.problems(probe, against: encoded)
    #expect(mismatched.contains("video size 160x90, 160x160 planned"))
    #expect(mismatched.contains("orientation right, up planned"))
  }
}
