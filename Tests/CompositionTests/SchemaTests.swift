import Composition
import Foundation
import MediaCore
import Testing

/// The committed JSON Schema (schemas/mediamerge-composition.schema.json) and the strict reader
/// agree: Scripts/validate-json.py (Python's jsonschema, the independent validator) accepts the
/// valid example documents and what the reader writes back, and refuses each invalid one, which
/// the reader refuses too.
@Suite struct SchemaTests {
  static let schema = "schemas/mediamerge-composition.schema.json"
  static let folder = "Tests/CompositionTests/Documents"

  static func examples(_ kind: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(
      atPath: packageRoot.appendingPathComponent("\(folder)/\(kind)").path
    ).filter { $0.hasSuffix(".json") }.sorted().map { "\(folder)/\(kind)/\($0)" }
  }

  @Test func validDocumentsPass() throws {
    let files = try Self.examples("valid")
    #expect(files.count >= 3)
    let result = try run("python3", ["Scripts/validate-json.py", Self.schema] + files)
    #expect(result.status == 0, "\(result.stderr)")
    // The reader takes them, and what it writes back is valid too.
    let folder = try TemporaryFolder()
    var written: [String] = []
    for file in files {
      let bytes = try Data(contentsOf: packageRoot.appendingPathComponent(file))
      let document = try CompositionDocument.decode(json: Array(bytes))
      let path = folder.path((file as NSString).lastPathComponent)
      try Data(document.encodedJSON()).write(to: URL(fileURLWithPath: path))
      written.append(path)
    }
    let rewritten = try run("python3", ["Scripts/validate-json.py", Self.schema] + written)
    #expect(rewritten.status == 0, "\(rewritten.stderr)")
  }

  @Test(arguments: try SchemaTests.examples("invalid"))
  func invalidDocumentsFail(_ file: String) throws {
    let result = try run("python3", ["Scripts/validate-json.py", Self.schema, file])
    #expect(result.status == 1, "\(file): the schema accepts it")
    #expect(!result.stderr.isEmpty)
    let bytes = try Data(contentsOf: packageRoot.appendingPathComponent(file))
    #expect(throws: CompositionError.self, "\(file): the reader accepts it") {
      try CompositionDocument.decode(json: Array(bytes))
    }
  }

  /// The plan of each valid example (its sources made up) is valid against the plan schema.
  @Test func plansMatchTheirSchema() throws {
    let facts: SourceFactsProvider = { path in
      if path.hasSuffix(".png") { return .image(width: 1920, height: 1080, rotation: 90) }
      if path.hasSuffix(".jpg") { return .imageSequence(frames: 48, width: 640, height: 480) }
      if path.hasSuffix(".m4a") || path.hasSuffix(".wav") { return .audio(duration: t("30")) }
      return .video(duration: t("10"), width: 1280, height: 720, frameRate: Rational(25, 1))
    }
    let folder = try TemporaryFolder()
    var written: [String] = []
    for file in try Self.examples("valid") {
      let bytes = try Data(contentsOf: packageRoot.appendingPathComponent(file))
      let plan = try CompositionResolver(baseDirectory: "/media", facts: facts)
        .resolve(try CompositionDocument.decode(json: Array(bytes)))
      let path = folder.path((file as NSString).lastPathComponent)
      try MediaToolsJSONEncoder().encode(plan).write(to: URL(fileURLWithPath: path))
      written.append(path)
    }
    let result = try run(
      "python3",
      ["Scripts/validate-json.py", "schemas/mediamerge-composition-plan.schema.json"] + written)
    #expect(result.status == 0, "\(result.stderr)")
    // And the schema is not vacuous: a plan with a misspelt key fails it.
    let bad = folder.path("bad.json")
    try Data(#"{"schema_version": 1, "duraton": 1}"#.utf8).write(to: URL(fileURLWithPath: bad))
    let refused = try run(
      "python3",
      ["Scripts/validate-json.py", "schemas/mediamerge-composition-plan.schema.json", bad])
    #expect(refused.status == 1)
  }
}
