import Composition
import Foundation
import MediaCore
import Testing

/// The package's root folder.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent()

/// An exact number from its text (`"1.5"`, `"30000/1001"`); fails the test when it is not one.
func n(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> ExactNumber {
  guard let number = ExactNumber.parse(text) else {
    Issue.record("\(text) is not an exact number", sourceLocation: sourceLocation)
    return .zero
  }
  return number
}

/// Seconds as an exact time.
func t(_ text: String) -> MediaTime { n(text).time }

/// A resolver over made-up facts (tests build sources without files): unknown paths throw a
/// `not_found` error, as the probe would.
func resolver(_ sources: [String: SourceFacts], base: String? = nil) -> CompositionResolver {
  CompositionResolver(baseDirectory: base) { path in
    guard let facts = sources[path] else { throw FakeNotFound(path: path) }
    return facts
  }
}

/// The probe's not_found, as a ToolError.
struct FakeNotFound: ToolError {
  var path: String
  var code: String { "not_found" }
  var message: String { "no such file" }
  var cause: ErrorCause? { ErrorCause(domain: .posix, code: 2, description: "No such file") }
}

/// A document from its JSON text, failing the test on an error.
func document(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws
  -> CompositionDocument
{
  try CompositionDocument.decode(json: Array(json.utf8))
}

/// The error decoding `json` gives (nil when it decodes).
func decodingError(_ json: String) -> CompositionError? {
  do {
    _ = try CompositionDocument.decode(json: Array(json.utf8))
    return nil
  } catch {
    return error
  }
}

/// The result of running a command.
struct Run {
  var status: Int32
  var stdout: Data
  var stderr: String
  var text: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs `executable` (a path relative to the package root, or a program on PATH) from the root.
func run(_ executable: String, _ arguments: [String], stdin: Data? = nil) throws -> Run {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [executable] + arguments
  process.currentDirectoryURL = packageRoot
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  let input = Pipe()
  process.standardInput = stdin == nil ? FileHandle.nullDevice : input
  try process.run()
  if let stdin {
    let writer = input.fileHandleForWriting
    DispatchQueue.global().async {
      try? writer.write(contentsOf: stdin)
      try? writer.close()
    }
  }
  nonisolated(unsafe) var errorData = Data()
  let group = DispatchGroup()
  group.enter()
  DispatchQueue.global().async {
    errorData = err.fileHandleForReading.readDataToEndOfFile()
    group.leave()
  }
  let outputData = out.fileHandleForReading.readDataToEndOfFile()
  group.wait()
  process.waitUntilExit()
  return Run(
    status: process.terminationStatus, stdout: outputData,
    stderr: String(decoding: errorData, as: UTF8.self))
}

/// A fresh temporary folder, removed when the value goes away.
final class TemporaryFolder {
  let url: URL
  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "composition-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }
  func path(_ name: String) -> String { url.appendingPathComponent(name).path }
  deinit { try? FileManager.default.removeItem(at: url) }
}
