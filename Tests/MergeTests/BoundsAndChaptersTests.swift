import Foundation
import MediaCore
import AV
import MediaProbe
import Testing

@testable import Merge

/// The planner's bounds (`implausible_plan`) and chapters (issue 20, items 13 and 18), on the
/// committed clips with one field changed each, so every expected value is the construction.
@Suite struct BoundsAndChaptersTests {
  static func clip(_ name: String) throws -> ProbedClip { try PlannerTests.clip(name) }

  static func time(_ value: Int64, _ timescale: Int64) -> MediaTime {
    MediaTime(value: value, timescale: timescale)
  }

  // MARK: - implausible_plan

  /// A clip whose span is longer than its file's bytes can carry (1 s per byte) is refused,
  /// named, before any command is made; the same clip with its true size plans.
  @Test func aClipLongerThanItsBytesIsRefused() throws {
    let pairA = try Self.clip("pair_a.mp4")
    var tiny = try Self.clip("pair_b.mp4")  // 1.5 s
    tiny.info.sizeBytes = 1  // one byte cannot carry 1.5 s
    #expect(throws: MergeError.self) { try PlannerTests.plan([pairA, tiny]) }
    do {
      _ = try PlannerTests.plan([pairA, tiny])
    } catch {
      let merge = try #require(error as? MergeError)
      #expect(merge.code == "implausible_plan")
      #expect(merge.message.contains("clip 2") && merge.message.contains("1 bytes"))
    }
    #expect(try PlannerTests.plan([pairA, try Self.clip("pair_b.mp4")]).clips.count == 2)
  }

  /// The size limit: 32 times the clips' bytes, at least 64 MiB; a plan whose smallest output
  /// (10 bytes a video frame, 5 an AAC frame) is larger is refused. A clip stretched to 10^6 s
  /// (its size raised so the byte rule passes) makes 30,000,000 frames: 300 MB > 64 MiB.
  @Test func theSmallestOutputMustFitTheLimit() throws {
    let pairA = try Self.clip("pair_a.mp4")
    let plan = try PlannerTests.plan([pairA])
    let size = try #require(pairA.info.sizeBytes)
    #expect(plan.expected.maxBytes == max(64 << 20, 32 * size))

    var stretched = try Self.clip("landscape.mp4")
    stretched.info.sizeBytes = 2_000_000
    stretched.info.duration = MediaDuration(value: 1_000_000, timescale: 1, source: .scan)
    do {
      _ = try PlannerTests.plan([pairA, stretched]) { $0.method = .encode }
      Issue.record("a 1,000,000 s plan from 2 MB was accepted")
    } catch {
      let merge = try #require(error as? MergeError)
      #expect(merge.code == "implausible_plan")
      #expect(merge.message.contains("would take at least"), "\(merge.message)")
    }
  }

  // MARK: - Chapters

  /// Clip 2's chapters move to clip 2's start (exact: 2.002 s is 1001/500), clip 1 (none) gets
  /// one named after it, a chapter starting after its clip's end is dropped with a warning, and
  /// each chapter ends where the next starts, the last at the timeline's end.
  @Test func chaptersMoveToTheirClipsStart() throws {
    let portrait = try Self.clip("portrait.mp4")  // 2.002 s
    var chaptered = try Self.clip("pair_b.mp4")  // 1.5 s
    chaptered.chapters = [
      ClipChapter(start: .zero, end: Self.time(2, 5), title: "First"),
      ClipChapter(start: Self.time(2, 5), end: Self.time(3, 2), title: nil),
      ClipChapter(start: Self.time(2, 1), end: Self.time(3, 1), title: "Beyond"),
    ]
    let plan = try PlannerTests.plan([portrait, chaptered])
    #expect(plan.chapters.map(\.start) == [.zero, Self.time(1001, 500), Self.time(1201, 500)])
    #expect(
      plan.chapters.map(\.end) == [Self.time(1001, 500), Self.time(1201, 500), plan.duration])
    #expect(plan.chapters.map(\.title) == ["portrait.mp4", "First", "Chapter 2"])
    #expect(plan.chapters.map(\.clip) == [0, 1, 1])
    #expect(plan.warnings.count == 1 && plan.warnings[0].contains("chapter 3"))
    // ffmpeg gets them as an FFmetadata input and maps chapters from it alone.
    let arguments = plan.ffmpeg.arguments
    let index = try #require(arguments.firstIndex(of: "-map_chapters"))
    #expect(arguments[index + 1] == "2")  // inputs 0 and 1 are the clips
    #expect(arguments.contains { $0.hasPrefix("data:text/plain;base64,") })
  }

  /// A clip whose first chapter starts inside it: the part before gets the clip's name (an MP4
  /// chapter track cannot leave it out). Without chapters anywhere: none, and -map_chapters -1
  /// (the CLI would otherwise copy a clip's own at its own times).
  @Test func gapsAndNoChapters() throws {
    var late = try Self.clip("pair_a.mp4")
    late.chapters = [ClipChapter(start: Self.time(1, 2), end: Self.time(1, 1), title: "Late")]
    let plan = try PlannerTests.plan([late])
    #expect(plan.chapters.map(\.start) == [.zero, Self.time(1, 2)])
    #expect(plan.chapters.map(\.title) == ["pair_a.mp4", "Late"])
    let none = try PlannerTests.plan([try Self.clip("pair_a.mp4"), try Self.clip("pair_b.mp4")])
    #expect(none.chapters.isEmpty)
    let index = try #require(none.ffmpeg.arguments.firstIndex(of: "-map_chapters"))
    #expect(none.ffmpeg.arguments[index + 1] == "-1")
  }

  /// FFmetadata text: exact in the least common timescale, escaped, base64 as RFC 4648's
  /// test vectors.
  @Test func metadataTextAndBase64() {
    let chapter = PlannedChapter(
      start: Self.time(1001, 500), end: Self.time(7, 3), title: "a=b;#c\\", clip: 0)
    let text = MergePlanner.metadataText([chapter])
    #expect(
      text == ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1500\nSTART=3003\nEND=3500\n"
        + "title=a\\=b\\;\\#c\\\\\n")
    for (plain, encoded) in [
      ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
      ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ] {
      #expect(MergePlanner.base64(Array(plain.utf8)) == encoded)
    }
  }
}
