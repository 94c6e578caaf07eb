import Composition
import Foundation
import MediaCore
import Testing

/// OpenTimelineIO in and out, against the reference implementation (opentimelineio 0.18.1 and
/// its CMX 3600 adapter, pinned in Tests/requirements.txt): Tests/CompositionTests/OTIO/
/// otio-oracle.py builds the timelines with it (one converted from an EDL) and prints what it
/// computes for them (`range_of_child_at_index`, `handles_of_child`, `transformed_time`); each
/// clip's place on our plan must be OTIO's range widened by its handles.
@Suite(.serialized) struct OTIOTests {
  static let oracle = "Tests/CompositionTests/OTIO/otio-oracle.py"

  /// The timelines, built once per run into a temporary folder.
  nonisolated(unsafe) static let built:
    Result<(folder: TemporaryFolder, oracle: [[String: Any]]), any Error> = Result {
      let folder = try TemporaryFolder()
      let made = try run("Scripts/test-python", [oracle, "make", folder.url.path])
      guard made.status == 0 else { throw OracleFailed(message: made.stderr) }
      let files = ["dissolves.otio", "ntsc.otio", "edl.otio"].map(folder.path)
      let ranges = try run("Scripts/test-python", [oracle, "ranges"] + files)
      guard ranges.status == 0,
        let parsed = try JSONSerialization.jsonObject(with: ranges.stdout) as? [[String: Any]]
      else { throw OracleFailed(message: ranges.stderr) }
      return (folder, parsed)
    }

  struct OracleFailed: Error { var message: String }

  /// Sources by their extension: videos of 60 s (with audio), audio of 30 s.
  static func facts(_ path: String) throws -> SourceFacts {
    if path.hasSuffix(".m4a") { return .audio(duration: t("30")) }
    if path.hasSuffix(".mp4") {
      return .video(duration: t("60"), width: 1280, height: 720, frameRate: Rational(24, 1))
    }
    throw FakeNotFound(path: path)
  }

  static func read(_ name: String) throws -> (CompositionDocument, CompositionPlan, [String: Any]) {
    let built = try OTIOTests.built.get()
    let bytes = try Data(contentsOf: built.folder.url.appendingPathComponent(name))
    let document = try OTIOReader.read(Array(bytes))
    let plan = try CompositionResolver(baseDirectory: built.folder.url.path) { try facts($0) }
      .resolve(document)
    let oracle = try #require(built.oracle.first { $0["file"] as? String == name })
    return (document, plan, oracle)
  }

  static func close(_ a: MediaTime, _ b: Double) -> Bool { abs(a.seconds - b) < 1e-9 }

  /// Every clip and gap of the video track where OTIO puts it: its composition range is
  /// `range_of_child_at_index` widened by `handles_of_child`, its source range OTIO's trimmed
  /// range (less the media's available start) widened the same way; the markers at
  /// `transformed_time`; the composition as long as the track.
  static func compareVideo(_ plan: CompositionPlan, _ oracle: [String: Any]) throws {
    let tracks = try #require(oracle["tracks"] as? [[String: Any]])
    let video = try #require(tracks.first { $0["kind"] as? String == "Video" })
    #expect(close(plan.duration, video["duration"] as! Double), "\(plan.duration)")
    let items = (video["children"] as! [[String: Any]]).filter {
      $0["schema"] as? String != "Transition"
    }
    try #require(items.count == plan.segments.count)
    var markers: [(String, Double)] = []
    for (segment, item) in zip(plan.segments, items) {
      let range = item["range"] as! [Double]
      let handles = item["handles"] as! [Double]
      let source = item["source_range"] as! [Double]
      let available = item["available_start"] as? Double ?? 0
      let label = "segment \(segment.index) (\(item["schema"]!) \(item["index"]!))"
      #expect(close(segment.compositionRange.start, range[0] - handles[0]), "\(label)")
      #expect(close(segment.compositionRange.end, range[0] + range[1] + handles[1]), "\(label)")
      if segment.kind == .gap {
        #expect(close(segment.sourceRange.duration, source[1] + handles[0] + handles[1]))
      } else {
        #expect(close(segment.sourceRange.start, source[0] - available - handles[0]), "\(label)")
        #expect(
          close(segment.sourceRange.end, source[0] + source[1] - available + handles[1]),
          "\(label)")
      }
      #expect(
        (segment.kind == .gap)
          == (item["schema"] as? String == "Gap" || item["enabled"] as? Bool == false))
      for marker in item["markers"] as! [[String: Any]] {
        let (name, time) = (marker["name"] as! String, marker["time"] as! Double)
        if segment.compositionRange.start.seconds - 1e-9 <= time
          && time < segment.compositionRange.end.seconds - 1e-9
        {
          markers.append((name, time))
        } else {
          // Outside the part of the source the clip plays: dropped, with a warning.
          #expect(plan.warnings.contains { $0.contains("\"\(name)\"") && $0.contains("dropped") })
        }
      }
    }
    #expect(plan.markers.map(\.name) == markers.map(\.0))
    for (ours, theirs) in zip(plan.markers, markers) {
      #expect(close(ours.time, theirs.1), "\(ours.name): \(ours.time) vs \(theirs.1)")
    }
  }

  @Test func dissolvesGapsAndHandles() throws {
    let (document, plan, oracle) = try Self.read("dissolves.otio")
    try Self.compareVideo(plan, oracle)
    // By construction: 8 + 6 + 1 + 4 + 1.5 + 2 s on the track, the transitions inside it.
    #expect(plan.duration == t("22.5"))
    #expect(plan.segments.map(\.kind) == [.video, .video, .gap, .video, .gap, .video])
    #expect(
      plan.transitions.map(\.range) == [
        TimeRange(start: t("7.5"), end: t("8.5")), TimeRange(start: t("15"), end: t("16")),
      ])
    #expect(plan.transitions.map(\.type) == [.crossfade, .crossfade])
    // URLs: a relative one as written (percent-decoded), a file: URL's path.
    #expect(
      document.clips.compactMap(\.source) == [
        "media/a.mp4", "media/b.mp4", "media/c d.mp4", "/abs/media/e.mp4",
      ])
    // OTIO's video clips carry no sound: volume 0.
    #expect(plan.segments.compactMap(\.audio).allSatisfy { $0.volume == Rational(0, 1) })
    // The music: its range on the track (2 s after the gap), its fade-out the dissolve into the
    // gap after it, which OTIO places at [10, 12).
    let tracks = oracle["tracks"] as! [[String: Any]]
    let audio = tracks[1]["children"] as! [[String: Any]]
    let music = try #require(plan.audio.first)
    let musicRange = audio[1]["range"] as! [Double]
    let fade = audio[2]["range"] as! [Double]
    #expect(Self.close(music.compositionRange.start, musicRange[0]))
    #expect(Self.close(music.compositionRange.end, musicRange[0] + musicRange[1]))
    #expect(music.sourceRange == TimeRange(start: t("1"), end: t("11")))
    let points = music.gain.points
    #expect(Self.close(points[points.count - 2].time, fade[0]))
    #expect(Self.close(points[points.count - 1].time, fade[0] + fade[1]))
    #expect(points.last?.gain == Rational(0, 1))
  }

  /// 30000/1001 fps: OTIO stores the rate as a float; we read it as the exact NTSC fraction.
  @Test func ntscRatesAreExact() throws {
    let (_, plan, oracle) = try Self.read("ntsc.otio")
    try Self.compareVideo(plan, oracle)
    // 300 + 301 frames, the 30-frame dissolve inside the track: 601 frames of 1001/30000 s.
    #expect(plan.duration == MediaTime(value: 601 * 1001, timescale: 30000))
    #expect(plan.segments[1].sourceRange.start == MediaTime(value: 15 * 1001, timescale: 30000))
    #expect(
      plan.markers.first?.time == MediaTime(value: (300 - 15 + 100 - 15) * 1001, timescale: 30000))
  }

  /// A CMX 3600 EDL (record timecode from 01:00:00:00), converted by the reference adapter.
  @Test func edlThroughTheAdapter() throws {
    let (document, plan, oracle) = try Self.read("edl.otio")
    try Self.compareVideo(plan, oracle)
    // By construction: events of 7.5, 8 and 2 s, the dissolve starting at the second's record in.
    #expect(plan.duration == t("17.5"))
    #expect(document.clips.compactMap(\.source) == ["media/a.mp4", "media/b.mp4", "media/c.mp4"])
    #expect(plan.segments[0].sourceRange == TimeRange(start: .zero, end: t("8.5")))
    #expect(plan.segments[1].compositionRange == TimeRange(start: t("7.5"), end: t("15.5")))
    #expect(plan.transitions.first?.range == TimeRange(start: t("7.5"), end: t("8.5")))
    // LOC 00:00:02:00 is 1 s into clip c (source 1-3 s), which starts at 15.5 s.
    #expect(plan.markers.map(\.name) == ["half way"])
    #expect(plan.markers.first?.time == t("16.5"))
    #expect(plan.warnings.count == 1)
  }

  /// What the model cannot express is an error naming the OTIO path.
  @Test func unsupportedConstructsNameTheirPath() throws {
    let built = try OTIOTests.built.get()
    for (name, location, words) in [
      ("warp", "tracks.children[0].children[1].effects[0].time_scalar", "time warp of -1"),
      ("nested", "tracks.children[0].children[1]", "nested stack"),
      ("two-video", "tracks.children[1]", "second video track"),
      (
        "missing", "tracks.children[0].children[1].media_references.DEFAULT_MEDIA",
        "MissingReference"
      ),
      ("track-marker", "tracks.children[0].markers[0]", "markers on a track"),
      ("url", "tracks.children[0].children[1].media_references.DEFAULT_MEDIA.target_url", "https"),
    ] {
      let bytes = try Data(
        contentsOf: built.folder.url.appendingPathComponent("unsupported-\(name).otio"))
      do {
        _ = try OTIOReader.read(Array(bytes))
        Issue.record("\(name): read")
      } catch {
        #expect(error.code == "unsupported_timeline", "\(name): \(error.message)")
        #expect(error.location == location, "\(name): \(error.message)")
        #expect(error.message.contains(words), "\(name): \(error.message)")
      }
    }
  }

  /// Out and back: a composition written as OTIO is read by the reference implementation with
  /// the same clip ranges, and read back by us it resolves to the same plan.
  @Test func writtenTimelinesRoundTrip() throws {
    let document = try document(
      """
      {"version": 1, "size": "1280x720", "fps": 24, "background": "#202020", "clips": [
        {"source": "media/title.png", "duration": 2, "markers": [{"at": 1, "name": "title"}],
         "filters": [{"name": "vignette", "start": 0.25}]},
        {"source": "media/a.mp4", "from": 1.5, "to": 9.5, "volume": 0.5,
         "transition": {"type": "crossfade", "duration": 1},
         "markers": [{"at": 3.25, "name": "goal"}],
         "filters": [{"name": "sepia", "intensity": 0.5}, {"name": "hue", "hue": "45/2"}]},
        {"duration": 1.25, "transition": {"type": "fade", "duration": 0.5},
         "filters": [{"name": "invert"}]},
        {"source": "media/b.mp4", "to": 6, "transition": {"type": "wipeleft", "duration": "1/3"}},
        {"source": "media/frames 1/%04d.jpg", "fps": 12, "from": 0.5,
         "transition": {"type": "slidedown", "duration": 0.5}},
        {"source": "/abs/media/c.mp4", "from": 2, "markers": [{"at": 2.5, "name": "c"}]}
      ], "audio": [
        {"source": "media/bed.m4a", "to": 3, "volume": 0.25, "loop": true, "fade_out": 2,
         "ramps": [{"at": 5, "duration": 2, "to": 0.125}]},
        {"source": "media/voice.m4a", "at": "7/2", "fade_in": 0.5}
      ], "filters": [{"name": "grayscale"}]}
      """)
    let facts: SourceFactsProvider = { path in
      if path.hasSuffix(".png") { return .image(width: 1920, height: 1080) }
      if path.hasSuffix("%04d.jpg") { return .imageSequence(frames: 48, width: 640, height: 480) }
      return try OTIOTests.facts(path)
    }
    let folder = try TemporaryFolder()
    let resolver = CompositionResolver(baseDirectory: folder.url.path, facts: facts)
    let plan = try resolver.resolve(document)
    let bytes = OTIOWriter.write(document, plan: plan)
    let path = folder.path("written.otio")
    try Data(bytes).write(to: URL(fileURLWithPath: path))

    // The reference implementation reads it and places every clip where our plan does.
    let ranges = try run("Scripts/test-python", [Self.oracle, "ranges", path])
    try #require(ranges.status == 0, "\(ranges.stderr)")
    let oracle = try #require(
      (try JSONSerialization.jsonObject(with: ranges.stdout) as? [[String: Any]])?.first)
    try Self.compareVideo(plan, oracle)

    // Read back, the same plan.
    let back = try OTIOReader.read(bytes)
    #expect(try resolver.resolve(back) == plan)
    #expect(back.size == document.size && back.fps == document.fps)
    #expect(back.background == document.background)
    #expect(back.clips.map(\.source) == document.clips.map(\.source))
    // Looks have no OTIO form: kept in metadata.mediatools and read back as written.
    #expect(back.clips.map(\.filters) == document.clips.map(\.filters))
    #expect(back.filters == document.filters)
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(text.contains(#""target_url": "media/frames%201/%2504d.jpg""#))
    #expect(text.contains(#""target_url": "file:///abs/media/c.mp4""#))
  }
}
