import Composition
import Foundation
import MediaCore
import Testing

/// Reading composition documents strictly: each rule on a document written to break it, with the
/// path (and line and column) the error must name, known from the text itself.
@Suite struct DecodingTests {
  static let full = """
    {
      "version": 1,
      "size": "1280x720",
      "fit": "cover",
      "fps": "30000/1001",
      "background": "#10A0ff",
      "clips": [
        {"source": "title.png", "duration": 2},
        {"source": "a.mp4", "from": 1.5, "to": 9.5, "volume": 0.5,
         "transition": {"type": "crossfade", "duration": 1},
         "markers": [{"at": 3.25, "name": "goal"}]},
        {"source": "frames/%04d.jpg", "fps": 24, "transition": {"type": "wipeleft", "duration": "1/2"}},
        {"duration": 1.25, "transition": {"type": "fade", "duration": 0.5}}
      ],
      "audio": [
        {"source": "music.m4a", "at": 0, "from": 0, "to": 3, "volume": 0.25, "loop": true,
         "fade_in": 1, "fade_out": 2, "ramps": [{"at": 5, "duration": 2, "to": 0.125}]}
      ]
    }
    """

  @Test func everyFieldIsRead() throws {
    let doc = try document(Self.full)
    #expect(doc.version == 1)
    #expect(doc.size == FrameSize(width: 1280, height: 720))
    #expect(doc.fit == .cover)
    #expect(doc.fps == n("30000/1001"))
    #expect(doc.background == Color(red: 0x10, green: 0xA0, blue: 0xFF))
    #expect(doc.clips.count == 4)
    #expect(doc.clips[0].source == "title.png" && doc.clips[0].duration == ExactNumber(2))
    // Decimals are exact: 1.5 is 3/2, 9.5 is 19/2, 3.25 is 13/4.
    #expect(doc.clips[1].from == n("3/2"))
    #expect(doc.clips[1].to == n("19/2"))
    #expect(doc.clips[1].volume == n("1/2"))
    #expect(doc.clips[1].transition == Transition(type: .crossfade, duration: ExactNumber(1)))
    #expect(doc.clips[1].markers == [Marker(at: n("13/4"), name: "goal")])
    #expect(doc.clips[2].fps == ExactNumber(24))
    #expect(doc.clips[2].transition == Transition(type: .wipeleft, duration: n("1/2")))
    #expect(doc.clips[3].source == nil && doc.clips[3].duration == n("5/4"))
    let music = try #require(doc.audio?.first)
    #expect(music.loop == true && music.fadeIn == ExactNumber(1) && music.fadeOut == ExactNumber(2))
    #expect(music.ramps == [Ramp(at: ExactNumber(5), duration: ExactNumber(2), to: n("1/8"))])
  }

  /// Written back, the document reads to the same value, and what it left out stays out.
  @Test func roundTrip() throws {
    let doc = try document(Self.full)
    let text = String(decoding: doc.encodedJSON(), as: UTF8.self)
    #expect(try document(text) == doc)
    #expect(text.contains("\"fade_in\" : 1"))
    #expect(text.contains("\"fps\" : \"30000/1001\""))
    #expect(text.contains("\"from\" : 1.5"))
    #expect(!text.contains("\"loop\" : false"))
    let minimal = try document(#"{"version": 1, "clips": [{"source": "a.mp4"}]}"#)
    #expect(
      String(decoding: minimal.encodedJSON(), as: UTF8.self)
        == "{\n  \"clips\" : [\n    {\n      \"source\" : \"a.mp4\"\n    }\n  ],\n  \"version\" : 1\n}"
    )
  }

  @Test func exactNumbers() {
    #expect(ExactNumber.parse("0.1") == n("1/10"))
    #expect(ExactNumber.parse("1.50") == n("3/2"))
    #expect(ExactNumber.parse("-2.5e-3") == n("-1/400"))
    #expect(ExactNumber.parse("12e2") == ExactNumber(1200))
    #expect(ExactNumber.parse("30000/1001") == n("30000/1001"))
    #expect(ExactNumber.parse("1001/30000")?.time == MediaTime(value: 1001, timescale: 30000))
    #expect(ExactNumber.parse("0.000") == .zero)
    for bad in ["", "1/0", "1/-2", "+1", "1.", ".5", "1e", "x", "1/2/3", "12345678901234567890"] {
      #expect(ExactNumber.parse(bad) == nil, "\(bad)")
    }
    // Exact arithmetic: 1001/30000 thirty times is 1.001 s, no drift.
    var sum = ExactNumber.zero
    for _ in 0..<30 { sum = sum.adding(n("1001/30000"))! }
    #expect(sum == n("1001/1000"))
    #expect(n("1/3").description == "1/3")
    #expect(n("-1/8").description == "-0.125")
  }

  /// A misspelt key names its path and position, and lists the keys that are known there.
  @Test func unknownKeyNamesItsPath() throws {
    let json = """
      {"version": 1, "clips": [
        {"source": "a.mp4"},
        {"source": "b.mp4"},
        {"source": "c.mp4", "transiton": {"type": "crossfade", "duration": 1}}
      ]}
      """
    let error = try #require(decodingError(json))
    #expect(error.code == "invalid_composition")
    #expect(error.location == "clips[2].transiton (line 4, column 36)")
    #expect(error.message.contains("unknown key"))
    #expect(error.message.contains("transition"))
    for (text, path) in [
      (##"{"version": 1, "clips": [{"source": "a"}], "colour": "#000000"}"##, "colour"),
      (#"{"version": 1, "clips": [{"source": "a", "fadeIn": 1}]}"#, "clips[0].fadeIn"),
      (
        #"{"version": 1, "clips": [{"source": "a"}], "audio": [{"source": "m", "fadein": 1}]}"#,
        "audio[0].fadein"
      ),
      (
        #"{"version": 1, "clips": [{"source": "a", "markers": [{"at": 1, "nam": "x"}]}]}"#,
        "clips[0].markers[0].nam"
      ),
      (
        #"{"version": 1, "clips": [{"source": "a"}], "audio": [{"source": "m", "ramps": [{"at": 1, "duration": 1, "to": 1, "from": 0}]}]}"#,
        "audio[0].ramps[0].from"
      ),
    ] {
      let error = try #require(decodingError(text) as CompositionError?, "\(text)")
      #expect(error.location.hasPrefix(path + " ("), "\(text): \(error.location)")
      #expect(error.message.contains("unknown key"))
    }
  }

  /// Not JSON: the line and column of the first fault, counted as Python's json module counts
  /// them (the oracle: json.loads on the same text).
  @Test func notJSONGivesLineAndColumn() throws {
    let cases: [(String, String)] = [
      ("{\"version\": 1,\n \"clips\": [\n  {\"source\": \"a\"},\n ]\n}", "line 4, column 2"),
      ("{\"version\": 1 \"clips\": []}", "line 1, column 15"),
      ("", "line 1, column 1"),
      ("{\"version\": 1, \"clips\": [{\"source\": \"é\" x]}", "line 1, column 41"),
    ]
    for (text, position) in cases {
      let error = try #require(decodingError(text))
      #expect(error.code == "invalid_composition")
      #expect(error.location == position, "\(text): \(error.message)")
      #expect(error.message.contains("not JSON"))
      // Python's json module agrees on where the text stops being JSON.
      let python = try run(
        "python3",
        [
          "-c",
          "import json,sys\ntry: json.loads(sys.stdin.read())\nexcept json.JSONDecodeError as e: print(f'line {e.lineno}, column {e.colno}')",
        ], stdin: Data(text.utf8))
      #expect(python.text.trimmingCharacters(in: .whitespacesAndNewlines) == position, "\(text)")
    }
    let duplicate = try #require(decodingError(#"{"version": 1, "version": 1, "clips": []}"#))
    #expect(duplicate.message.contains("appears twice"))
  }

  @Test func wrongTypesNameThePath() throws {
    for (text, path, expected) in [
      (#"{"version": 1, "clips": [{"source": 3}]}"#, "clips[0].source", "expected a string"),
      (
        #"{"version": 1, "clips": [{"source": "a", "volume": "loud"}]}"#, "clips[0].volume",
        "not a number"
      ),
      (#"{"version": 1, "clips": {"source": "a"}}"#, "clips", "expected an array"),
      (
        #"{"version": 1, "clips": [{"source": "a"}], "audio": [{"source": "m", "loop": 1}]}"#,
        "audio[0].loop", "true or false"
      ),
      (#"{"version": 1, "clips": [{"source": "a"}], "size": "1281x720"}"#, "size", "even numbers"),
      (
        #"{"version": 1, "clips": [{"source": "a"}], "fit": "fill"}"#, "fit",
        "contain, cover, stretch"
      ),
      (
        ##"{"version": 1, "clips": [{"source": "a"}], "background": "black"}"##, "background",
        "#rrggbb"
      ),
      (
        #"{"version": 1, "clips": [{"source": "a", "transition": {"type": "spin", "duration": 1}}]}"#,
        "clips[0].transition.type", "unknown transition"
      ),
      (
        #"{"version": 1, "clips": [{"source": "a"}, {"source": "b", "transition": {"type": "fade"}}]}"#,
        "clips[1].transition.duration", "missing"
      ),
      (#"{"clips": [{"source": "a"}]}"#, "version", "missing"),
      (#"{"version": 1}"#, "clips", "missing"),
    ] {
      let error = try #require(decodingError(text), "\(text)")
      #expect(error.code == "invalid_composition")
      #expect(error.location.hasPrefix(path), "\(text): \(error.location)")
      #expect(error.message.contains(expected), "\(text): \(error.message)")
    }
  }

  @Test func valuesTheModelRefuses() throws {
    for (text, path) in [
      (#"{"version": 2, "clips": [{"source": "a"}]}"#, "version"),
      (#"{"version": 1, "clips": []}"#, "clips"),
      (
        #"{"version": 1, "clips": [{"source": "a", "transition": {"type": "fade", "duration": 1}}]}"#,
        "clips[0].transition"
      ),
      (
        #"{"version": 1, "clips": [{"source": "a"}, {"source": "b", "transition": {"type": "fade", "duration": 0}}]}"#,
        "clips[1].transition.duration"
      ),
      (#"{"version": 1, "clips": [{"source": "a", "from": -1}]}"#, "clips[0].from"),
      (#"{"version": 1, "clips": [{"source": "a", "volume": -0.5}]}"#, "clips[0].volume"),
      (#"{"version": 1, "clips": [{"to": 2}]}"#, "clips[0]"),
      (#"{"version": 1, "clips": [{"duration": 2, "from": 1}]}"#, "clips[0].from"),
      (#"{"version": 1, "fps": 0, "clips": [{"source": "a"}]}"#, "fps"),
      (#"{"version": 1, "clips": [{"source": "a", "fps": 0}]}"#, "clips[0].fps"),
      (
        #"{"version": 1, "clips": [{"source": "a", "markers": [{"at": -1, "name": "x"}]}]}"#,
        "clips[0].markers[0].at"
      ),
      (
        #"{"version": 1, "clips": [{"source": "a"}], "audio": [{"source": "m", "fade_out": -1}]}"#,
        "audio[0].fade_out"
      ),
      (
        #"{"version": 1, "clips": [{"source": "a"}], "audio": [{"source": "m", "ramps": [{"at": 5, "duration": 2, "to": 1}, {"at": 6, "duration": 1, "to": 0}]}]}"#,
        "audio[0].ramps[1].at"
      ),
      (
        #"{"version": 1, "clips": [{"source": "a", "to": "1/3000000000000000000000"}]}"#,
        "clips[0].to"
      ),
    ] {
      let error = try #require(decodingError(text), "\(text)")
      #expect(error.code == "invalid_composition")
      #expect(error.location.hasPrefix(path), "\(text): \(error.location) \(error.message)")
    }
  }

  /// Deeply nested input is refused, not a stack overflow.
  @Test func deepNestingIsRefused() throws {
    let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    let error = try #require(decodingError(text))
    #expect(error.message.contains("nested more than"))
  }
}

@Suite struct FormatTests {
  @Test func layoutsAreDetected() throws {
    let otio = Array(#"  {"OTIO_SCHEMA": "Timeline.1"}"#.utf8)
    #expect(CompositionFormat.detect(path: "-", bytes: otio) == .otio)
    #expect(CompositionFormat.detect(path: "cut.OTIO", bytes: []) == .otio)
    #expect(
      CompositionFormat.detect(path: "doc.json", bytes: Array(#"{"version": 1}"#.utf8)) == .json)
    let whole = CompositionDocument.wholeClips(["a.mp4", "b.mp4"])
    #expect(try CompositionDocument.read(whole.encodedJSON(), path: "doc.json") == whole)
    // An OTIO file read as our JSON is refused as unknown keys, not misread.
    #expect(throws: CompositionError.self) {
      try CompositionDocument.read(otio, format: .json)
    }
  }
}
