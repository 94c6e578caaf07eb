import AudioExtract
import Compatibility
import Foundation
import MediaCore
import AV
import MediaProbe
import Merge
import Testing

/// `MediaToolsJSONEncoder` against the oracle it replaces, Foundation's `JSONEncoder` with the same
/// settings: the same bytes, pretty and compact, on every kind of record the tools print (this
/// target sees every module) and on values made to hit each rule (escapes, numbers, key
/// conversion, dictionaries, merged containers).
@Suite struct JSONOutputTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path

  static func foundation(compact: Bool) -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting =
      compact
      ? [.sortedKeys, .withoutEscapingSlashes]
      : [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return encoder
  }

  /// Both layouts, byte for byte; returns the number of bytes compared.
  @discardableResult
  static func expectSame<T: Encodable>(
    _ value: T, _ label: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> Int {
    var compared = 0
    for compact in [false, true] {
      let ours = try MediaToolsJSONEncoder(compact: compact).encode(value)
      let theirs = try foundation(compact: compact).encode(value)
      #expect(
        ours == theirs,
        "\(label) (compact \(compact)):\n\(String(decoding: ours, as: UTF8.self))\n---\n\(String(decoding: theirs, as: UTF8.self))",
        sourceLocation: sourceLocation)
      compared += theirs.count
    }
    return compared
  }

  static func fixtures() throws -> [String] {
    try [
      "Tests/Fixtures", "Tests/CompatFixtures", "Tests/Regressions", "Tests/MergeFixtures",
      "Tests/TruthFixtures", "Tests/DamagedFixtures",
    ]
    .flatMap { folder in
      try FileManager.default.contentsOfDirectory(atPath: root + "/" + folder).sorted()
        .map { root + "/" + folder + "/" + $0 }
    }
  }

  /// Every fixture probed plain, with --scan, and verified with its hash (failures included),
  /// with its verdicts on every platform.
  @Test func everyProbeRecordAndVerdict() throws {
    let paths = try Self.fixtures()
    let checker = CompatibilityChecker()
    let platforms = PlatformDatabase.all
    var bytes = 0
    for options in [
      ProbeOptions(), ProbeOptions(scan: true), ProbeOptions(scan: true, verify: .all, hash: true),
    ] {
      let prober = Prober(options: options)
      for path in paths {
        let outcome = prober.outcome(for: .file(path), path: path)
        bytes += try Self.expectSame(outcome, path)
        if options.verify == nil, case .success(let info) = outcome {
          bytes += try Self.expectSame(platforms.map { checker.check(info, on: $0) }, path)
        }
      }
    }
    #expect(bytes > 1_000_000)
  }

  /// A merge plan, an extraction report with the loudness analysis, and a mix report.
  @Test func planAndAudioReports() throws {
    let clips = try ["landscape.mp4", "portrait.mp4", "mirrored.mp4", "mono44k.mp4"].map {
      try ClipProber().probe(Self.root + "/Tests/MergeFixtures/" + $0)
    }
    try Self.expectSame(
      try MergePlanner(request: MergeRequest(output: "/tmp/out.mp4", ffmpeg: "/usr/bin/ffmpeg"))
        .plan(clips), "plan")
    let output = FileManager.default.temporaryDirectory.appendingPathComponent(
      "json-\(UUID().uuidString).wav"
    ).path
    defer { try? FileManager.default.removeItem(atPath: output) }
    var options = ExtractOptions()
    options.analysis = AnalysisOptions()
    let report = try AudioExtractor(options: options).extract(
      .file(Self.root + "/Tests/Fixtures/tone.ogg"), path: "tone.ogg",
      to: .file(path: output, overwrite: true))
    #expect(report.analysis != nil)
    try Self.expectSame(report, "extraction")
    let mix = MixDescription(
      inputs: [
        MixInput(path: Self.root + "/Tests/Fixtures/tone.wav"),
        MixInput(path: Self.root + "/Tests/Fixtures/tone.ogg"),
      ])
    try Self.expectSame(try Mixer().mix(mix, to: .file(path: output, overwrite: true)), "mix")
  }

  struct Edges: Encodable {
    var plainKey = "a/b \"quoted\" back\\slash \u{8}\u{C}\n\r\t \u{1} \u{1F} \u{7F} é 日本 😀 \u{2028}"
    var myURLProperty = 1
    var aB = true
    var httpStatusCode: Int64 = .min
    var unsignedMax: UInt64 = .max
    var doubles: [Double] = [
      0, -0.0, 1, 1.5, 0.1, 1e20, 1e21, 1e-7, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
      .infinity,
      -.infinity, .nan, 29.97, 1 / 3,
    ]
    var floats: [Float] = [0.1, 3, -2.5e-8, .infinity]
    var small: [Int8] = [-128, 127]
    var emptyArray: [Int] = []
    var emptyObject: [String: Int] = [:]
    var tags = [
      "HandlerName": "x", "major_brand": "isom", "creation_time": "2020", "Z": "", "a": "",
    ]
    var nested = [["x": [1, 2]], [:]]
    var optionalAbsent: Int? = nil
    var optionalPresent: String? = "yes"
    var indexed: [Int: String] = [2: "b", 10: "a"]
    var deep = Deep()
    var values: [Value] = [.text("t"), .number(2), .none]
  }

  struct Deep: Encodable {
    var level = 1
    var inner: [Deep] = []
    init() { inner = [Deep(leaf: true)] }
    init(leaf: Bool) {}
  }

  enum Value: Encodable {
    case text(String), number(Double), none
    func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      switch self {
      case .text(let text): try container.encode(text)
      case .number(let number): try container.encode(number)
      case .none: try container.encodeNil()
      }
    }
  }

  /// One object from two containers (as ProbeRecord adds `compat` to the probe's own keys),
  /// a repeated key (the last value wins), nested and unkeyed containers, a super encoder.
  struct Merged: Encodable {
    enum Keys: String, CodingKey { case zebra, apple, nestedList, nestedObject, parentValue }
    func encode(to encoder: any Encoder) throws {
      var first = encoder.container(keyedBy: Keys.self)
      try first.encode("one", forKey: .zebra)
      var list = first.nestedUnkeyedContainer(forKey: .nestedList)
      try list.encode(1)
      var inList = list.nestedContainer(keyedBy: Keys.self)
      try inList.encode(2.5, forKey: .apple)
      var object = first.nestedContainer(keyedBy: Keys.self, forKey: .nestedObject)
      try object.encodeNil(forKey: .apple)
      try Edges().encode(to: first.superEncoder(forKey: .parentValue))
      var second = encoder.container(keyedBy: Keys.self)
      try second.encode("two", forKey: .zebra)
      try second.encode(["k": 1], forKey: .apple)
    }
  }

  /// Keys through the snake_case conversion: capitals first, runs of capitals, digits,
  /// underscores, non-ASCII letters, the empty key.
  struct Keys: Encodable {
    struct Key: CodingKey {
      var stringValue: String
      var intValue: Int? { nil }
      init(stringValue: String) { self.stringValue = stringValue }
      init?(intValue: Int) { nil }
    }
    static let names = [
      "Name", "aBCd", "ABC", "x", "", "a1B2c", "éTé", "ÉtéÀ", "URLs", "isHTTP2Enabled", "_private",
      "with_Under", "endsUP", "aB", "AbCdEF", "x9Y", "ßUpper", "dž", "ǅx",
    ]
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: Key.self)
      for (index, name) in Self.names.enumerated() {
        try container.encode(index, forKey: Key(stringValue: name))
      }
    }
  }

  /// An array element encoded one level in: the level-0 text with every line after the first
  /// indented by two more spaces (what the stream writer once did to each record).
  @Test func indentLevelIndentsEveryLineButTheFirst() throws {
    let flat = String(decoding: try MediaToolsJSONEncoder().encode(Merged()), as: UTF8.self)
    let nested = String(
      decoding: try MediaToolsJSONEncoder(indentLevel: 1).encode(Merged()), as: UTF8.self)
    #expect(nested == flat.replacing("\n", with: "\n  "))
    let compact = try MediaToolsJSONEncoder(compact: true, indentLevel: 1).encode(Merged())
    #expect(compact == (try Self.foundation(compact: true).encode(Merged())))
  }

  @Test func edgeCases() throws {
    try Self.expectSame(Keys(), "keys")
    try Self.expectSame(Edges(), "edges")
    try Self.expectSame(Merged(), "merged")
    try Self.expectSame([Merged(), Merged()], "array of merged")
    try Self.expectSame("top-level string", "string")
    try Self.expectSame(Double.nan, "nan")
    try Self.expectSame(Int?.none, "nil")
    try Self.expectSame([String](), "empty array")
  }
}
