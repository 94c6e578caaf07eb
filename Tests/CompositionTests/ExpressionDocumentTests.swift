import Composition
import Foundation
import MediaCore
import Testing

/// The `expression` look in the document: its names checked by the reader (without FFmpeg),
/// `t` refused in a clip's looks, the expressions written back as read; the tokenizer keeps a
/// number's exponent and suffix letters and tells functions from variables.
@Suite struct ExpressionDocumentTests {
  static func with(clip: String = "[]", composition: String = "[]") -> String {
    """
    {"version": 1, "clips": [{"source": "a.mp4", "filters": \(clip)}], "filters": \(composition)}
    """
  }

  @Test func expressionsAreReadAndWrittenBack() throws {
    let doc = try document(
      Self.with(
        clip: #"[{"name": "expression", "r": "1-r", "g": 0.5}]"#,
        composition: #"[{"name": "expression", "b": "b*(1-t/2) + 1e-3*sin(2*PI*x)"}]"#))
    let look = try #require(doc.clips[0].filters?.first)
    #expect(look.expression("r") == "1-r")
    #expect(look.expression("g") == "(1/2)")
    #expect(look.expression("b") == "b")  // the default: unchanged
    let text = String(decoding: doc.encodedJSON(), as: UTF8.self)
    #expect(try document(text) == doc)
  }

  @Test(arguments: [
    (#"[{"name": "expression", "r": "z"}]"#, "clips[0].filters[0].r", "unknown name \"z\""),
    (#"[{"name": "expression", "g": "g*t"}]"#, "clips[0].filters[0].g", "composition's filters"),
    (#"[{"name": "expression", "b": "r(1)"}]"#, "clips[0].filters[0].b", "not a function"),
    (#"[{"name": "expression", "r": "r;g"}]"#, "clips[0].filters[0].r", "no place"),
    (#"[{"name": "expression", "r": " "}]"#, "clips[0].filters[0].r", "empty"),
    (#"[{"name": "expression", "a": "r"}]"#, "clips[0].filters[0].a", "unknown parameter"),
    (#"[{"name": "expression", "r": [1, 2]}]"#, "clips[0].filters[0].r", "expected an expression"),
  ])
  func errorsNameTheirPath(_ looks: String, _ path: String, _ message: String) throws {
    let error = try #require(decodingError(Self.with(clip: looks)), "\(looks)")
    #expect(error.code == "invalid_composition")
    #expect(error.location.hasPrefix(path), "\(looks): \(error.location)")
    #expect(error.message.contains(message), "\(looks): \(error.message)")
  }

  @Test func timeIsAllowedOnTheComposition() throws {
    #expect(decodingError(Self.with(composition: #"[{"name": "expression", "g": "g*t"}]"#)) == nil)
  }

  @Test func tokensAndRewrite() {
    #expect(
      LookExpression.tokens("1e-3*r+2k-gte(x,PI)") == [
        .other("1e-3*"), .name("r", call: false), .other("+2k-"), .name("gte", call: true),
        .other("("), .name("x", call: false), .other(","), .name("PI", call: false),
        .other(")"),
      ])
    #expect(
      LookExpression.rewrite("r*x + max(r, t)", ["r": "R", "x": "X", "t": "T"])
        == "R*X + max(R, T)")
  }
}
