import Composition
import Foundation
import MediaCore
import Testing

/// A clip's speed and freeze frame through OpenTimelineIO: `LinearTimeWarp` and `FreezeFrame`,
/// whose item keeps its duration on the track (OTIO's time_scalar "does not affect the duration
/// of the item this effect is attached to"), against the reference implementation's placing of
/// the items (`range_of_child_at_index`); crop, rotate, mirror and pitch in our metadata.
@Suite(.serialized) struct ClipTimeOTIOTests {
  /// The reference implementation's track ranges ([start, duration] per item) of `path`.
  static func ranges(_ path: String) throws -> [[Double]] {
    let result = try run("Scripts/test-python", [OTIOTests.oracle, "ranges", path])
    try #require(result.status == 0, "\(result.stderr)")
    let files = try #require(
      try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
    let tracks = try #require(files.first?["tracks"] as? [[String: Any]])
    let video = try #require(tracks.first { $0["kind"] as? String == "Video" })
    return (video["children"] as? [[String: Any]] ?? []).filter {
      $0["schema"] as? String != "Transition"
    }.map {
      let range = $0["range"] as! [Double]
      let handles = $0["handles"] as! [Double]
      return [range[0] - handles[0], range[0] + range[1] + handles[1]]
    }
  }

  static func close(_ a: MediaTime, _ b: Double) -> Bool { abs(a.seconds - b) < 1e-9 }

  /// Built by the reference implementation: b read at 2x from 1 s for 2 s on the track, then
  /// c's picture at 1.5 s frozen for 1 s. Our plan puts them where OTIO does; b reads 4 s of its
  /// media (1 to 5 s).
  @Test func timeEffectsFromTheReference() throws {
    let built = try OTIOTests.built.get()
    let path = built.folder.path("time-effects.otio")
    let document = try OTIOReader.read(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    #expect(document.clips[1].speed == n("2"))
    #expect(document.clips[1].from == n("1") && document.clips[1].to == n("5"))
    #expect(document.clips[2].freeze == n("1.5") && document.clips[2].duration == n("1"))
    let plan = try CompositionResolver(baseDirectory: built.folder.url.path) {
      try OTIOTests.facts($0)
    }.resolve(document)
    let theirs = try Self.ranges(path)
    try #require(theirs.count == plan.segments.count)
    for (segment, range) in zip(plan.segments, theirs) {
      #expect(Self.close(segment.compositionRange.start, range[0]), "\(segment.index)")
      #expect(Self.close(segment.compositionRange.end, range[1]), "\(segment.index)")
    }
    #expect(plan.segments[1].sourceRange == TimeRange(start: t("1"), end: t("5")))
    #expect(plan.segments[2].freeze == t("1.5"))
  }

  /// Out and back: speeds (with transitions borrowing handles, which a warped clip reads
  /// `speed` times as fast), a freeze frame, crops and turns: the reference implementation
  /// places every item where our plan does, and our reader gives back the same plan.
  @Test func writtenTimeEffectsRoundTrip() throws {
    let document = try document(
      """
      {"version": 1, "fps": 24, "clips": [
        {"source": "media/a.mp4", "from": 1, "to": 5, "speed": 2, "pitch": "follow",
         "crop": {"x": 10, "y": 20, "width": 640, "height": 360}, "rotate": 90},
        {"source": "media/b.mp4", "from": 2, "to": 4, "speed": "1/3", "mirror": true,
         "transition": {"type": "crossfade", "duration": 0.5}},
        {"source": "media/c.mp4", "freeze": 2.5, "duration": 1.5,
         "markers": [{"at": 0.5, "name": "held"}],
         "transition": {"type": "wipeleft", "duration": 0.5}},
        {"source": "media/a.mp4", "to": 2, "speed": 0.5,
         "transition": {"type": "crossfade", "duration": 1}}
      ]}
      """)
    let folder = try TemporaryFolder()
    let resolver = CompositionResolver(baseDirectory: folder.url.path) {
      try OTIOTests.facts($0)
    }
    let plan = try resolver.resolve(document)
    // 2 + 6 + 1.5 + 4 - 0.5 - 0.5 - 1
    #expect(plan.duration == t("11.5"))
    let bytes = OTIOWriter.write(document, plan: plan)
    let path = folder.path("time.otio")
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let theirs = try Self.ranges(path)
    try #require(theirs.count == plan.segments.count)
    for (segment, range) in zip(plan.segments, theirs) {
      #expect(Self.close(segment.compositionRange.start, range[0]), "\(segment.index)")
      #expect(Self.close(segment.compositionRange.end, range[1]), "\(segment.index)")
    }
    let back = try OTIOReader.read(bytes)
    #expect(try resolver.resolve(back) == plan)
    #expect(back.clips.map(\.crop) == document.clips.map(\.crop))
    #expect(back.clips.map(\.rotate) == document.clips.map(\.rotate))
    #expect(back.clips.map(\.mirror) == document.clips.map(\.mirror))
    #expect(back.clips.map(\.pitch) == document.clips.map(\.pitch))
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(text.contains("LinearTimeWarp.1") && text.contains("FreezeFrame.1"))
  }
}
