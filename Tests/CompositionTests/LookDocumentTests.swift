import Composition
import Foundation
import MediaCore
import Testing

/// Looks (`filters`) in the composition document: read strictly (unknown names and parameters,
/// wrong shapes, out-of-range values named by their path), written back as read, carried into
/// the plan with GPUImage's defaults filled in, and absent from plans without looks.
@Suite struct LookDocumentTests {
  static func withLooks(clip: String = "[]", composition: String = "[]") -> String {
    """
    {"version": 1, "clips": [{"source": "a.mp4", "filters": \(clip)}], "filters": \(composition)}
    """
  }

  @Test func looksAreRead() throws {
    let doc = try document(
      Self.withLooks(
        clip: #"[{"name": "sepia", "intensity": 0.5}, {"name": "grayscale"}]"#,
        composition:
          ##"[{"name": "vignette", "center": [0.25, "1/2"], "color": "#FF0000", "end": 0.8}]"##))
    let looks = try #require(doc.clips[0].filters)
    #expect(looks.count == 2)
    #expect(looks[0] == Look(name: .sepia, parameters: ["intensity": .number(n("1/2"))]))
    #expect(looks[1] == Look(name: .grayscale))
    let vignette = try #require(doc.filters?.first)
    #expect(vignette.vector("center") == [0.25, 0.5])
    #expect(vignette.color("color") == Color(red: 255, green: 0, blue: 0))
    #expect(vignette.number("end") == 0.8)
    #expect(vignette.number("start") == 0.3)  // GPUImageVignetteFilter's init
    // Written back: what was given, nothing more, and it reads to the same document.
    let text = String(decoding: doc.encodedJSON(), as: UTF8.self)
    #expect(try document(text) == doc)
    #expect(!text.contains("\"start\""))
  }

  /// Each error names the look's path (and the parameter, or the matrix entry).
  @Test(arguments: [
    (#"[{"name": "blur"}]"#, "clips[0].filters[0].name", "unknown look \"blur\""),
    (#"[{"name": "sepia", "intensty": 1}]"#, "clips[0].filters[0].intensty", "unknown parameter"),
    (#"[{"name": "invert", "amount": 1}]"#, "clips[0].filters[0].amount", "it has none"),
    (#"[{"name": "contrast", "contrast": 4.5}]"#, "clips[0].filters[0].contrast", "0 to 4"),
    (
      #"[{"name": "pixellate", "fractional_width_of_pixel": 0}]"#,
      "clips[0].filters[0].fractional_width_of_pixel", "more than 0 to 1"
    ),
    (
      ##"[{"name": "brightness", "brightness": "#ffffff"}]"##, "clips[0].filters[0].brightness",
      "expected a number"
    ),
    (
      #"[{"name": "color_matrix", "color_matrix": [[1, 0], [0, 1]]}]"#,
      "clips[0].filters[0].color_matrix", "3×3 or 4×4"
    ),
    (
      #"[{"name": "color_matrix", "color_matrix": [[1, 0, 0], [0, 3, 0], [0, 0, 1]]}]"#,
      "clips[0].filters[0].color_matrix[1][1]", "-2 to 2"
    ),
    (
      #"[{"name": "vignette", "start": 0.8, "end": 0.5}]"#, "clips[0].filters[0].start",
      "less than end"
    ),
    (
      #"[{"name": "vignette", "center": [0.5, 1.5]}]"#, "clips[0].filters[0].center",
      "each 0 to 1"
    ),
    (#"[{"name": "kuwahara", "radius": 2.5}]"#, "clips[0].filters[0].radius", "whole"),
    (
      #"[{"name": "color_matrix", "color_matrix": [[1, 0, 0, 1.5], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], "offset": [1, 0, 0]}]"#,
      "clips[0].filters[0].offset", "2.5, out of range"
    ),
    (#"[{"brightness": 0.1}]"#, "clips[0].filters[0].name", "missing"),
  ])
  func errorsNameTheirPath(_ looks: String, _ path: String, _ message: String) throws {
    let error = try #require(decodingError(Self.withLooks(clip: looks)), "\(looks)")
    #expect(error.code == "invalid_composition")
    #expect(error.location.hasPrefix(path), "\(looks): \(error.location)")
    #expect(error.message.contains(message), "\(looks): \(error.message)")
  }

  @Test func compositionLooksAreCheckedToo() throws {
    let error = try #require(
      decodingError(Self.withLooks(composition: #"[{"name": "gamma", "gamma": -1}]"#)))
    #expect(error.location.hasPrefix("filters[0].gamma"), "\(error.location)")
  }

  /// The plan holds every parameter (defaults from GPUImage's init), and a plan without looks is
  /// written exactly as before looks existed (no `looks` key).
  @Test func planCarriesResolvedLooks() throws {
    let facts = SourceFacts.video(
      duration: t("4"), width: 640, height: 360, frameRate: Rational(25, 1))
    let plan = try resolver(["a.mp4": facts]).resolve(
      try document(
        Self.withLooks(
          clip: #"[{"name": "sepia"}, {"name": "pixellate"}]"#,
          composition: #"[{"name": "hue", "hue": 45}]"#)))
    let looks = try #require(plan.segments[0].looks)
    #expect(looks.map(\.name) == [.sepia, .pixellate])
    #expect(looks[0].parameters["intensity"] == .number(.one))
    #expect(looks[1].parameters["fractional_width_of_pixel"] == .number(n("0.05")))
    #expect(plan.looks == [Look(name: .hue, parameters: ["hue": .number(ExactNumber(45))])])
    let json = String(decoding: try MediaToolsJSONEncoder().encode(plan), as: UTF8.self)
    #expect(json.contains("\"fractional_width_of_pixel\" : 0.05"))

    let plain = try resolver(["a.mp4": facts]).resolve(
      try document(#"{"version": 1, "clips": [{"source": "a.mp4"}]}"#))
    #expect(plain.segments[0].looks == nil && plain.looks == nil)
    let plainJSON = String(decoding: try MediaToolsJSONEncoder().encode(plain), as: UTF8.self)
    #expect(!plainJSON.contains("looks"))
  }
}
