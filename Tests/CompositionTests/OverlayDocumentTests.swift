import Composition
import Foundation
import MediaCore
import Testing

/// Overlays in the composition document: read strictly (each error names its path), written
/// back as read, resolved into the plan with their boxes in render pixels (the arithmetic of
/// the corners and the scale done here) and their times re-timed from a clip's source time as a
/// marker is (clip start + (t − from), computed here from the constructed clips).
@Suite struct OverlayDocumentTests {
  static func with(_ overlays: String) -> String {
    """
    {"version": 1, "size": "640x360", "clips": [{"source": "a.mp4", "from": 1, "to": 5},
      {"source": "b.mp4", "from": 2, "to": 6, "transition": {"type": "crossfade", "duration": 1}}],
     "overlays": \(overlays)}
    """
  }

  static let facts: [String: SourceFacts] = [
    "a.mp4": .video(duration: t("10"), width: 640, height: 360, frameRate: Rational(25, 1)),
    "b.mp4": .video(duration: t("10"), width: 640, height: 360, frameRate: Rational(25, 1)),
    "logo.png": .image(width: 200, height: 100),
    "turned.jpg": .image(width: 100, height: 50, rotation: 90),
  ]

  @Test func overlaysAreReadAndWrittenBack() throws {
    let doc = try document(
      Self.with(
        #"[{"image": "logo.png", "position": "bottom_right", "margin": 10, "opacity": "1/2"}, "#
          + ##"{"text": "Hi", "color": "#FF0000", "fade_in": 0.5, "clip": 1, "from": 3}]"##))
    let overlays = try #require(doc.overlays)
    #expect(overlays[0].position == .bottomRight && overlays[0].opacity == n("1/2"))
    #expect(overlays[1].color == Color(red: 255, green: 0, blue: 0) && overlays[1].clip == 1)
    let text = String(decoding: doc.encodedJSON(), as: UTF8.self)
    #expect(try document(text) == doc)
    #expect(text.contains("\"fade_in\"") && !text.contains("\"blend\""))
  }

  @Test(arguments: [
    (#"[{"x": 1, "y": 1}]"#, "overlays[0]", "needs an image or a text"),
    (#"[{"image": "logo.png", "text": "a"}]"#, "overlays[0].text", "not both"),
    (#"[{"image": "logo.png", "x": 4}]"#, "overlays[0].y", "go together"),
    (
      #"[{"image": "logo.png", "x": 4, "y": 4, "position": "center"}]"#, "overlays[0].position",
      "not both"
    ),
    (#"[{"image": "logo.png", "opacity": 1.5}]"#, "overlays[0].opacity", "0 to 1"),
    (#"[{"image": "logo.png", "scale": 0}]"#, "overlays[0].scale", "more than 0"),
    (#"[{"image": "logo.png", "width": 10, "scale": 2}]"#, "overlays[0].scale", "not both"),
    (#"[{"image": "logo.png", "size": 10}]"#, "overlays[0].size", "for a text overlay"),
    (#"[{"text": "a", "width": 10}]"#, "overlays[0].width", "font size"),
    (#"[{"text": ""}]"#, "overlays[0].text", "empty"),
    (#"[{"text": "a", "clip": 2}]"#, "overlays[0].clip", "names no clip"),
    (#"[{"text": "a", "from": 2, "to": 1}]"#, "overlays[0].to", "not after"),
    (#"[{"text": "a", "fade_out": -1}]"#, "overlays[0].fade_out", "negative"),
    (#"[{"text": "a", "position": "top"}]"#, "overlays[0].position", "unknown position"),
    (#"[{"image": "logo.png", "blend": "burn"}]"#, "overlays[0].blend", "unknown blend"),
    (##"[{"text": "a", "colour": "#ffffff"}]"##, "overlays[0].colour", "unknown key"),
  ])
  func errorsNameTheirPath(_ overlays: String, _ path: String, _ message: String) throws {
    let error = try #require(decodingError(Self.with(overlays)), "\(overlays)")
    #expect(error.code == "invalid_composition")
    #expect(error.location.hasPrefix(path), "\(overlays): \(error.location)")
    #expect(error.message.contains(message), "\(overlays): \(error.message)")
  }

  /// Boxes: a corner with a margin, a scale, one side given (the other keeps the shape), an
  /// upright size for an EXIF-turned image; a title keeps its corner for the renderer.
  @Test func boxesAreResolvedInRenderPixels() throws {
    let plan = try resolver(Self.facts).resolve(
      try document(
        Self.with(
          """
          [{"image": "logo.png", "position": "bottom_right", "margin": 10, "scale": 0.5},
           {"image": "logo.png", "width": 50},
           {"image": "logo.png", "position": "center", "height": 30},
           {"image": "turned.jpg", "x": -5, "y": 7},
           {"text": "Hi", "position": "top_right", "margin": 8}]
          """)))
    let overlays = try #require(plan.overlays)
    func box(_ i: Int) -> [Int?] {
      [overlays[i].x, overlays[i].y, overlays[i].width, overlays[i].height]
    }
    #expect(box(0) == [640 - 100 - 10, 360 - 50 - 10, 100, 50])
    #expect(box(1) == [0, 0, 50, 25])
    #expect(box(2) == [(640 - 60) / 2, (360 - 30) / 2, 60, 30])
    #expect(box(3) == [-5, 7, 100, 50] && overlays[3].rotation == 90)
    #expect(overlays[4].position == .topRight && overlays[4].margin == 8 && overlays[4].x == nil)
    #expect(overlays[4].font == "Sans" && overlays[4].fontSize == 48 && !overlays[4].fontFile)
    #expect(overlays.allSatisfy { $0.range == TimeRange(start: t("0"), end: t("7")) })
  }

  /// Clip 1 plays its source 2–6 s from composition 3 s (clip 0 lasts 4 s, the crossfade takes
  /// 1): source 3–4.5 s lands at 3 + (3 − 2) = 4 to 3 + (4.5 − 2) = 5.5 s. Left out, `from` and
  /// `to` are the clip's own. A `to` past the end is cut there; a `from` outside the clip's part
  /// is an error naming it.
  @Test func clipTimesAreRetimedAsMarkers() throws {
    let plan = try resolver(Self.facts).resolve(
      try document(
        Self.with(
          """
          [{"text": "A", "clip": 1, "from": 3, "to": 4.5, "font": "f/Title.ttf"},
           {"text": "B", "clip": 1},
           {"text": "C", "from": 6, "to": 9}]
          """)))
    let overlays = try #require(plan.overlays)
    #expect(overlays[0].range == TimeRange(start: t("4"), end: t("11/2")))
    #expect(overlays[0].sourceRange == TimeRange(start: t("3"), end: t("9/2")))
    #expect(overlays[0].font == "f/Title.ttf" && overlays[0].fontFile)
    #expect(overlays[1].range == TimeRange(start: t("3"), end: t("7")))
    #expect(overlays[2].range == TimeRange(start: t("6"), end: t("7")))

    let error = #expect(throws: CompositionError.self) {
      try resolver(Self.facts).resolve(
        try document(Self.with(#"[{"text": "A", "clip": 0, "from": 0.5}]"#)))
    }
    #expect(error?.location == "overlays[0].from")
    #expect(error?.message.contains("outside the part") == true)
    let fades = #expect(throws: CompositionError.self) {
      try resolver(Self.facts).resolve(
        try document(
          Self.with(#"[{"text": "A", "from": 1, "to": 2, "fade_in": 0.6, "fade_out": 0.6}]"#)))
    }
    #expect(fades?.location == "overlays[0].fade_in")
    let video = #expect(throws: CompositionError.self) {
      try resolver(Self.facts).resolve(try document(Self.with(#"[{"image": "a.mp4"}]"#)))
    }
    #expect(video?.message.contains("not a still image") == true)
    let huge = #expect(throws: CompositionError.self) {
      try resolver(Self.facts).resolve(
        try document(Self.with(#"[{"image": "logo.png", "scale": 8}]"#)))
    }
    #expect(huge?.location == "overlays[0].scale")
    #expect(huge?.message.contains("1600x800") == true)
  }

  /// OTIO has no form for overlays: the timeline keeps them in `metadata.mediatools.overlays`,
  /// and reading that timeline back gives the same overlays.
  @Test func overlaysSurviveOTIO() throws {
    let doc = try document(
      Self.with(
        #"[{"image": "logo.png", "position": "center", "blend": "screen", "opacity": 0.5}, "#
          + #"{"text": "Hi", "clip": 1, "from": 3, "to": 4, "fade_in": "1/4"}]"#))
    let plan = try resolver(Self.facts).resolve(doc)
    let otio = doc.written(as: .otio, plan: plan)
    #expect(String(decoding: otio, as: UTF8.self).contains("\"overlays\""))
    let back = try CompositionDocument.read(otio, format: .otio)
    #expect(back.overlays == doc.overlays)
  }

  /// The fades: opacity × a linear ramp at a frame's middle, 0 outside the range.
  @Test func opacityFollowsTheFades() throws {
    let plan = try resolver(Self.facts).resolve(
      try document(
        Self.with(
          #"[{"text": "A", "from": 1, "to": 3, "fade_in": 0.5, "fade_out": 1, "opacity": 0.8}]"#)))
    let overlay = try #require(plan.overlays?.first)
    #expect(overlay.opacity(at: 0.99) == 0)
    #expect(abs(overlay.opacity(at: 1.25) - 0.4) < 1e-12)
    #expect(abs(overlay.opacity(at: 1.75) - 0.8) < 1e-12)
    #expect(abs(overlay.opacity(at: 2.5) - 0.4) < 1e-12)
    #expect(overlay.opacity(at: 3) == 0)
  }
}
