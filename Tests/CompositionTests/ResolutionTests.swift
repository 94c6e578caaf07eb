import Composition
import Foundation
import MediaCore
import Testing

/// The resolution rules, each on sources made up for it, against values known by construction
/// (the arithmetic of the durations chosen), never against what the resolver printed.
@Suite struct ResolutionTests {
  static let landscape = SourceFacts.video(
    duration: t("10"), width: 1280, height: 720, frameRate: Rational(30, 1))
  static let eight = SourceFacts.video(
    duration: t("8"), width: 1280, height: 720, frameRate: Rational(30, 1))
  static let six = SourceFacts.video(
    duration: t("6"), width: 1280, height: 720, frameRate: Rational(30, 1))
  static let music = SourceFacts.audio(duration: t("3"))

  static func range(_ start: String, _ end: String) -> TimeRange {
    TimeRange(start: t(start), end: t(end))
  }

  static func points(_ envelope: GainEnvelope?) -> [String] {
    (envelope?.points ?? []).map { "\(ExactNumber($0.time))@\($0.gain.num)/\($0.gain.den)" }
  }

  /// 8 + 8 + 6 s with two 1 s crossfades = 20 s; the clips overlap by each transition.
  @Test func transitionsOverlap() throws {
    let doc = CompositionDocument(clips: [
      Clip(source: "a.mp4"),
      Clip(source: "b.mp4", transition: Transition(type: .crossfade, duration: n("1"))),
      Clip(source: "c.mp4", transition: Transition(type: .crossfade, duration: n("1"))),
    ])
    let plan = try resolver(["a.mp4": Self.eight, "b.mp4": Self.eight, "c.mp4": Self.six])
      .resolve(doc)
    #expect(plan.duration == t("20"))
    #expect(
      plan.segments.map(\.compositionRange) == [
        Self.range("0", "8"), Self.range("7", "15"), Self.range("14", "20"),
      ])
    #expect(
      plan.segments.map(\.sourceRange) == [
        Self.range("0", "8"), Self.range("0", "8"), Self.range("0", "6"),
      ])
    #expect(plan.transitions.map(\.range) == [Self.range("7", "8"), Self.range("14", "15")])
    #expect(plan.transitions.map(\.from) == [0, 1] && plan.transitions.map(\.to) == [1, 2])
    // The clip audio cross-fades over the same overlaps, linear in gain.
    #expect(Self.points(plan.segments[0].audio?.gain) == ["0@1/1", "7@1/1", "8@0/1"])
    #expect(Self.points(plan.segments[1].audio?.gain) == ["7@0/1", "8@1/1", "14@1/1", "15@0/1"])
    #expect(Self.points(plan.segments[2].audio?.gain) == ["14@0/1", "15@1/1", "20@1/1"])
    // At the middle of the crossfade each side plays at half its gain: -6.02 dB.
    let middle = t("7.5")
    #expect(plan.segments[0].audio?.gain.exactGain(at: middle) == n("1/2"))
    #expect(plan.segments[1].audio?.gain.exactGain(at: middle) == n("1/2"))
    let decibels = 20 * log10(plan.segments[0].audio!.gain.gain(at: middle)!)
    #expect(abs(decibels - (-6.0206)) < 0.0001)
    // A quarter of the way: 3/4 and 1/4.
    #expect(plan.segments[0].audio?.gain.exactGain(at: t("7.25")) == n("3/4"))
    #expect(plan.segments[1].audio?.gain.exactGain(at: t("7.25")) == n("1/4"))
  }

  /// Trims and volumes: the source range is from-to, exact; the transition overlaps 1/2 s.
  @Test func trimsAreExact() throws {
    let doc = try document(
      """
      {"version": 1, "clips": [
        {"source": "a.mp4", "from": 1.5, "to": "1001/200", "volume": 0.5},
        {"source": "a.mp4", "from": "1001/30000", "transition": {"type": "fade", "duration": 0.5}}
      ]}
      """)
    let plan = try resolver(["a.mp4": Self.landscape]).resolve(doc)
    // (5.005 - 1.5) + (10 - 1001/30000) - 0.5 = 3.505 + 298999/30000 - 0.5 = 389149/30000
    #expect(plan.duration == MediaTime(value: 389149, timescale: 30000))
    #expect(plan.segments[0].sourceRange == TimeRange(start: t("3/2"), end: t("1001/200")))
    #expect(plan.segments[1].sourceRange.start == MediaTime(value: 1001, timescale: 30000))
    #expect(plan.segments[1].compositionRange.start == t("3.005"))
    #expect(plan.segments[0].audio?.volume == Rational(1, 2))
    #expect(Self.points(plan.segments[0].audio?.gain) == ["0@1/2", "3.005@1/2", "3.505@0/1"])
    #expect(plan.transitions[0].type == .fade)
  }

  /// "An event at 0:35 of a clip that starts at 1:45 lands at 2:20."
  @Test func markersAreRetimed() throws {
    let long = SourceFacts.video(
      duration: t("200"), width: 640, height: 360, frameRate: Rational(25, 1))
    let doc = CompositionDocument(clips: [
      Clip(source: "intro.mp4", to: n("105")),
      Clip(source: "match.mp4", markers: [Marker(at: n("35"), name: "goal")]),
      // With from = 10 a marker at 45 s of the source is 35 s into the clip.
      Clip(
        source: "match.mp4", from: n("10"), to: n("60"),
        transition: Transition(type: .crossfade, duration: n("2")),
        markers: [
          Marker(at: n("45"), name: "replay"), Marker(at: n("5"), name: "before from"),
          Marker(at: n("60"), name: "at to"),
        ]),
    ])
    let plan = try resolver(["intro.mp4": long, "match.mp4": long]).resolve(doc)
    #expect(plan.segments[1].compositionRange.start == t("105"))  // 1:45
    let goal = try #require(plan.markers.first { $0.name == "goal" })
    #expect(goal.time == t("140"))  // 2:20
    #expect(goal.sourceTime == t("35") && goal.clip == 1)
    // The third clip starts at 105 + 200 - 2 = 303 s; 303 + (45 - 10) = 338 s.
    let replay = try #require(plan.markers.first { $0.name == "replay" })
    #expect(replay.time == t("338"))
    #expect(plan.markers.map(\.name) == ["goal", "replay"])
    #expect(plan.warnings.count == 2)
    #expect(plan.warnings.allSatisfy { $0.contains("dropped") })
  }

  /// "A 3 s music bed looped under 20 s ends exactly at 20 s with its fade-out ending there."
  @Test func loopedBedEndsWithTheComposition() throws {
    let doc = CompositionDocument(
      clips: [
        Clip(source: "a.mp4"),
        Clip(source: "b.mp4", transition: Transition(type: .crossfade, duration: n("1"))),
        Clip(source: "c.mp4", transition: Transition(type: .crossfade, duration: n("1"))),
      ],
      audio: [AudioTrack(source: "music.m4a", volume: n("0.5"), loop: true, fadeOut: n("2"))])
    let plan = try resolver([
      "a.mp4": Self.eight, "b.mp4": Self.eight, "c.mp4": Self.six, "music.m4a": Self.music,
    ]).resolve(doc)
    let bed = try #require(plan.audio.first)
    #expect(bed.compositionRange == Self.range("0", "20"))
    #expect(bed.loop)
    // 0-3, 3-6, ..., 15-18, then 18-20 from the first 2 s of the source.
    #expect(bed.pieces.count == 7)
    for (index, piece) in bed.pieces.enumerated() {
      let start = index * 3
      #expect(piece.compositionRange.start == t("\(start)"))
      #expect(piece.sourceRange.start == .zero)
    }
    #expect(bed.pieces.last?.compositionRange == Self.range("18", "20"))
    #expect(bed.pieces.last?.sourceRange == Self.range("0", "2"))
    #expect(Self.points(bed.gain) == ["0@1/2", "18@1/2", "20@0/1"])
    #expect(bed.gain.exactGain(at: t("19")) == n("1/4"))
    #expect(bed.gain.exactGain(at: t("20")) == .zero)
    #expect(bed.gain.gain(at: t("20.001")) == nil)
  }

  /// A bed longer than the composition is cut at its end, and its fade-out ends there; one that
  /// ends earlier plays once, its fade-out ending where it ends.
  @Test func bedsAreCutAtTheEnd() throws {
    let doc = CompositionDocument(
      clips: [Clip(source: "a.mp4")],
      audio: [
        AudioTrack(source: "long.m4a", at: n("2"), fadeIn: n("1"), fadeOut: n("1")),
        AudioTrack(source: "music.m4a", at: n("1"), from: n("0.5"), fadeOut: n("0.5")),
        AudioTrack(source: "music.m4a", at: n("10")),
      ])
    let plan = try resolver([
      "a.mp4": Self.landscape, "long.m4a": SourceFacts.audio(duration: t("60")),
      "music.m4a": Self.music,
    ]).resolve(doc)
    #expect(plan.audio.count == 2)
    #expect(plan.audio[0].compositionRange == Self.range("2", "10"))
    #expect(
      plan.audio[0].pieces == [
        AudioPiece(sourceRange: Self.range("0", "8"), compositionRange: Self.range("2", "10"))
      ])
    #expect(Self.points(plan.audio[0].gain) == ["2@0/1", "3@1/1", "9@1/1", "10@0/1"])
    #expect(plan.audio[1].compositionRange == Self.range("1", "3.5"))
    #expect(plan.audio[1].sourceRange == Self.range("0.5", "3"))
    #expect(Self.points(plan.audio[1].gain) == ["1@1/1", "3@1/1", "3.5@0/1"])
    #expect(plan.warnings.contains { $0.contains("audio[2]") && $0.contains("left out") })
  }

  /// Ramps are linear in gain from the gain they find; one cut by the end is interpolated there.
  @Test func rampsAreLinearInGain() throws {
    let doc = try document(
      """
      {"version": 1, "clips": [{"source": "a.mp4"}], "audio": [
        {"source": "long.m4a", "volume": 1, "fade_in": 1,
         "ramps": [{"at": 2, "duration": 2, "to": 0.25}, {"at": 6, "duration": 0, "to": 0.5},
                   {"at": 9, "duration": 2, "to": 0}]}
      ]}
      """)
    let plan = try resolver([
      "a.mp4": Self.landscape, "long.m4a": SourceFacts.audio(duration: t("60")),
    ]).resolve(doc)
    let gain = try #require(plan.audio.first?.gain)
    #expect(
      Self.points(gain) == [
        "0@0/1", "1@1/1", "2@1/1", "4@1/4", "6@1/4", "6@1/2", "9@1/2", "10@1/4",
      ])
    #expect(gain.exactGain(at: t("0.5")) == n("1/2"))
    #expect(gain.exactGain(at: t("3")) == n("5/8"))
    #expect(gain.exactGain(at: t("6")) == n("1/2"))  // a step: the later point holds
    #expect(gain.exactGain(at: t("5.999")) == n("1/4"))
  }

  @Test func rampsMayNotOverlapTheFades() throws {
    let sources = [
      "a.mp4": Self.landscape, "long.m4a": SourceFacts.audio(duration: t("60")),
    ]
    for (json, location) in [
      (
        #"{"source": "long.m4a", "fade_in": 3, "ramps": [{"at": 2, "duration": 1, "to": 0}]}"#,
        "audio[0].ramps[0].at"
      ),
      (
        #"{"source": "long.m4a", "fade_out": 3, "ramps": [{"at": 6, "duration": 2, "to": 0}]}"#,
        "audio[0].ramps[0]"
      ),
      (#"{"source": "long.m4a", "fade_in": 6, "fade_out": 5}"#, "audio[0]"),
      (
        #"{"source": "long.m4a", "at": 2, "ramps": [{"at": 1, "duration": 1, "to": 0}]}"#,
        "audio[0].ramps[0].at"
      ),
    ] {
      let doc = try document(
        #"{"version": 1, "clips": [{"source": "a.mp4"}], "audio": ["# + json + "]}")
      #expect {
        try resolver(sources).resolve(doc)
      } throws: { error in
        let error = error as! CompositionError
        return error.code == "invalid_composition" && error.location == location
      }
    }
  }

  /// Stills, sequences and gaps: their durations, their silence, the size and rate rules.
  @Test func stillsSequencesAndGaps() throws {
    let doc = try document(
      """
      {"version": 1, "clips": [
        {"source": "title.png", "duration": 2},
        {"source": "frames/%04d.jpg", "fps": 24, "from": 0.5,
         "transition": {"type": "crossfade", "duration": 0.25}},
        {"duration": 1, "transition": {"type": "fade", "duration": 0.5}},
        {"source": "silent.mp4"}
      ]}
      """)
    let plan = try resolver([
      "title.png": .image(width: 4000, height: 3000),
      "frames/%04d.jpg": .imageSequence(frames: 48, width: 640, height: 480),
      "silent.mp4": .video(
        duration: t("3"), width: 1280, height: 720, frameRate: Rational(25, 1), hasAudio: false),
    ]).resolve(doc)
    #expect(plan.segments.map(\.kind) == [.still, .sequence, .gap, .video])
    // 2 + (48/24 - 0.5) + 1 + 3 - 0.25 - 0.5 = 6.75
    #expect(plan.duration == t("6.75"))
    #expect(plan.segments[1].sourceRange == Self.range("0.5", "2"))
    #expect(plan.segments[1].frameRate == Rational(24, 1))
    #expect(plan.segments[2].compositionRange == Self.range("2.75", "3.75"))
    #expect(plan.segments[2].transform == nil && plan.segments[2].source == nil)
    // None has audio: each contributes silence.
    #expect(plan.segments.allSatisfy { $0.audio == nil })
    // The size comes from the videos and sequences (1280 wide, 720 high), not the 4000x3000
    // still; the rate is the highest of them (25 vs 24).
    #expect(plan.render.width == 1280 && plan.render.height == 720)
    #expect(plan.render.frameRate == Rational(25, 1))
    // The still is contained: 4000x3000 scaled by 0.24 = 960x720, centred at x = 160.
    #expect(
      plan.segments[0].transform
        == SegmentTransform(
          rotation: 0, mirrored: false, sourceWidth: 4000, sourceHeight: 3000, x: 160, y: 0,
          width: 960, height: 720))
  }

  /// The default size is the largest upright width by the largest upright height; a portrait
  /// phone clip (stored 1280x720, turned 90°) is contained in it.
  @Test func sizeAndRateDefaults() throws {
    let portrait = SourceFacts.video(
      duration: t("2.002"), width: 720, height: 1280, frameRate: Rational(30000, 1001),
      hasAudio: false, rotation: 90)
    let doc = CompositionDocument(clips: [Clip(source: "land.mp4"), Clip(source: "port.mp4")])
    let plan = try resolver(["land.mp4": Self.landscape, "port.mp4": portrait]).resolve(doc)
    #expect(plan.render.width == 1280 && plan.render.height == 1280)
    #expect(plan.render.frameRate == Rational(30, 1))
    #expect(plan.render.fit == .contain && plan.render.background == .black)
    #expect(
      plan.segments[1].transform
        == SegmentTransform(
          rotation: 90, mirrored: false, sourceWidth: 720, sourceHeight: 1280, x: 280, y: 0,
          width: 720, height: 1280))
    // 1280x720 contained in 1280x1280: a band 720 high at y = 280.
    #expect(plan.segments[0].transform?.y == 280 && plan.segments[0].transform?.height == 720)
    // cover crops; stretch fills.
    var covered = doc
    covered.fit = .cover
    covered.size = FrameSize(width: 1280, height: 720)
    let cover = try resolver(["land.mp4": Self.landscape, "port.mp4": portrait]).resolve(covered)
    #expect(
      cover.segments[1].transform.map { [$0.x, $0.y, $0.width, $0.height] }
        == [0, -778, 1280, 2276])
    covered.fit = .stretch
    let stretch = try resolver(["land.mp4": Self.landscape, "port.mp4": portrait]).resolve(covered)
    #expect(
      stretch.segments[1].transform.map { [$0.x, $0.y, $0.width, $0.height] }
        == [0, 0, 1280, 720])
    // Stills only: their size, 30 fps.
    let stills = try resolver(["t.png": .image(width: 800, height: 600)]).resolve(
      CompositionDocument(clips: [Clip(source: "t.png", duration: n("2"))]))
    #expect(stills.render.width == 800 && stills.render.frameRate == Rational(30, 1))
    // The document's own size and rate win.
    let own = try resolver(["land.mp4": Self.landscape]).resolve(
      CompositionDocument(
        size: FrameSize(width: 640, height: 360), fps: n("30000/1001"),
        clips: [Clip(source: "land.mp4")]))
    #expect(own.render.width == 640 && own.render.frameRate == Rational(30000, 1001))
  }

  /// Relative sources resolve against the document's folder; absolute ones stay; each source is
  /// probed once.
  @Test func pathsResolveAgainstTheDocument() throws {
    let asked = Counter()
    let resolver = CompositionResolver(baseDirectory: "/work/doc") { path in
      asked.add(path)
      return path.hasSuffix(".m4a") ? ResolutionTests.music : ResolutionTests.landscape
    }
    let plan = try resolver.resolve(
      CompositionDocument(
        clips: [
          Clip(source: "clips/a.mp4"), Clip(source: "/abs/b.mp4"), Clip(source: "clips/a.mp4"),
        ],
        audio: [AudioTrack(source: "m.m4a")]))
    #expect(
      plan.segments.map(\.path) == ["/work/doc/clips/a.mp4", "/abs/b.mp4", "/work/doc/clips/a.mp4"])
    #expect(plan.segments.map(\.source) == ["clips/a.mp4", "/abs/b.mp4", "clips/a.mp4"])
    #expect(plan.audio.first?.path == "/work/doc/m.m4a")
    #expect(asked.paths == ["/work/doc/clips/a.mp4", "/abs/b.mp4", "/work/doc/m.m4a"])
  }

  final class Counter: @unchecked Sendable {
    var paths: [String] = []
    let lock = NSLock()
    func add(_ path: String) { lock.withLock { paths.append(path) } }
  }

  /// Each error of the resolution step, with its code and the location it names.
  @Test func resolutionErrors() throws {
    let sources: [String: SourceFacts] = [
      "a.mp4": Self.eight, "b.mp4": Self.six, "song.m4a": Self.music,
      "t.png": .image(width: 10, height: 10),
      "seq": .imageSequence(frames: 10, width: 10, height: 10),
    ]
    let cases: [(String, String, String, String)] = [
      (#"{"source": "a.mp4", "from": 5, "to": 5}"#, "", "source_range_invalid", "clips[0]"),
      (#"{"source": "a.mp4", "from": 9}"#, "", "source_range_invalid", "clips[0]"),
      (#"{"source": "a.mp4", "to": 8.5}"#, "", "clip_past_source_end", "clips[0].to"),
      (#"{"source": "song.m4a"}"#, "", "clip_without_video", "clips[0].source"),
      (#"{"source": "missing.mp4"}"#, "", "not_found", "clips[0]"),
      (#"{"source": "t.png"}"#, "", "invalid_composition", "clips[0]"),
      (#"{"source": "t.png", "duration": 1, "to": 1}"#, "", "invalid_composition", "clips[0].to"),
      (#"{"source": "seq"}"#, "", "invalid_composition", "clips[0]"),
      (#"{"source": "a.mp4", "duration": 1}"#, "", "invalid_composition", "clips[0].duration"),
      (
        #"{"source": "a.mp4"}, {"source": "b.mp4", "transition": {"type": "crossfade", "duration": 7}}"#,
        "", "transition_too_long", "clips[1].transition"
      ),
      (
        #"{"source": "b.mp4"}, {"source": "a.mp4", "transition": {"type": "crossfade", "duration": 6.5}}"#,
        "", "transition_too_long", "clips[1].transition"
      ),
      (
        #"{"source": "a.mp4"}, {"source": "b.mp4", "transition": {"type": "crossfade", "duration": 4}}, {"source": "a.mp4", "transition": {"type": "crossfade", "duration": 3}}"#,
        "", "transition_too_long", "clips[2].transition"
      ),
      (
        #"{"source": "a.mp4"}"#, #"{"source": "song.m4a", "to": 4}"#, "clip_past_source_end",
        "audio[0].to"
      ),
      (
        #"{"source": "a.mp4"}"#, #"{"source": "song.m4a", "from": 3}"#, "source_range_invalid",
        "audio[0]"
      ),
    ]
    for (clips, audio, code, location) in cases {
      let doc = try document(
        #"{"version": 1, "clips": ["# + clips + #"], "audio": ["# + audio + "]}")
      do {
        _ = try resolver(sources).resolve(doc)
        Issue.record("\(clips) \(audio): resolved")
      } catch {
        #expect(error.code == code, "\(clips) \(audio): \(error.message)")
        #expect(error.location == location, "\(clips) \(audio): \(error.message)")
      }
    }
    // The past-the-end error says the source's duration; not_found keeps the probe's cause.
    let past = try document(#"{"version": 1, "clips": [{"source": "a.mp4", "to": 8.5}]}"#)
    #expect {
      try resolver(sources).resolve(past)
    } throws: { error in
      (error as! CompositionError).message.contains("lasts 8 s")
    }
    let missing = try document(#"{"version": 1, "clips": [{"source": "x.mp4"}]}"#)
    #expect {
      try resolver(sources).resolve(missing)
    } throws: { error in
      (error as! CompositionError).cause?.code == 2
    }
    // Equal to a neighbour is not longer than it: allowed.
    let equal = try document(
      #"{"version": 1, "clips": [{"source": "b.mp4"}, {"source": "a.mp4", "transition": {"type": "crossfade", "duration": 6}}]}"#
    )
    #expect(try resolver(sources).resolve(equal).duration == t("8"))
  }

  /// An audio track whose source has no audio contributes silence, with a warning.
  @Test func silentAudioTrackIsAWarning() throws {
    let plan = try resolver(["a.mp4": Self.eight, "b.mp4": Self.six.withoutAudio]).resolve(
      CompositionDocument(clips: [Clip(source: "a.mp4")], audio: [AudioTrack(source: "b.mp4")]))
    #expect(plan.audio.isEmpty)
    #expect(plan.warnings == ["audio[0] (b.mp4) has no audio stream: it contributes silence"])
  }

  /// The plan is JSON with the schema's layout: exact times and gains.
  @Test func planEncodes() throws {
    let plan = try resolver(["a.mp4": Self.eight]).resolve(
      CompositionDocument(clips: [Clip(source: "a.mp4", volume: n("0.5"))]))
    let text = String(decoding: try MediaToolsJSONEncoder().encode(plan), as: UTF8.self)
    #expect(text.contains("\"schema_version\" : 1"))
    #expect(text.contains("\"composition_range\""))
    #expect(text.contains("\"num\" : 1"))
    let round = try JSONDecoder.mediaTools().decode(
      CompositionPlan.self, from: try MediaToolsJSONEncoder().encode(plan))
    #expect(round == plan)
  }
}

extension SourceFacts {
  var withoutAudio: SourceFacts {
    var copy = self
    copy.hasAudio = false
    return copy
  }
}

@Suite struct ScaleTests {
  /// 500 clips of 1001/30000-based lengths with crossfades: exact to the tick, each source
  /// probed once, quickly.
  @Test func fiveHundredClips() throws {
    let facts = SourceFacts.video(
      duration: MediaTime(value: 60060, timescale: 30000), width: 1280, height: 720,
      frameRate: Rational(30000, 1001))
    var clips: [Clip] = []
    for index in 0..<500 {
      clips.append(
        Clip(
          source: "clip\(index % 7).mp4", from: n("1001/30000"),
          transition: index == 0
            ? nil : Transition(type: .crossfade, duration: n("1001/3000"))))
    }
    let sources = Dictionary(uniqueKeysWithValues: (0..<7).map { ("clip\($0).mp4", facts) })
    let clock = ContinuousClock()
    let start = clock.now
    let plan = try resolver(sources).resolve(CompositionDocument(clips: clips))
    #expect(clock.now - start < .seconds(2))
    // Each clip plays 60060 - 1001 ticks; 499 transitions of 10010 ticks overlap.
    #expect(plan.duration == MediaTime(value: 500 * 59059 - 499 * 10010, timescale: 30000))
    #expect(plan.segments.count == 500 && plan.transitions.count == 499)
    #expect(plan.segments.last?.compositionRange.end == plan.duration)
  }
}
