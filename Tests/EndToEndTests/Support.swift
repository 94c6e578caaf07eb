import Foundation
import Testing

/// The package's root folder (tests run the tools from here, with relative fixture paths).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent()

/// The committed fixtures, relative to the package root.
let fixturesDirectory = "Tests/Fixtures"

/// Every fixture's file name, sorted.
let allFixtures: [String] = {
  let names =
    (try? FileManager.default.contentsOfDirectory(
      atPath: packageRoot.appendingPathComponent(fixturesDirectory).path)) ?? []
  return names.filter { !$0.hasPrefix(".") }.sorted()
}()

/// Fixtures that are valid media (not the hostile ones).
let mediaFixtures = allFixtures.filter { !$0.hasPrefix("hostile_") }

/// The result of running a command.
struct Run {
  var status: Int32
  var stdout: Data
  var stderr: String
  var text: String { String(decoding: stdout, as: UTF8.self) }

  /// Standard output parsed as JSON.
  func json() throws -> Any {
    try JSONSerialization.jsonObject(with: stdout, options: [.fragmentsAllowed])
  }
}

/// The folder holding the built products (beside the test bundle).
let productsDirectory: URL = {
  let runner = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
  for candidate in [
    runner, runner.deletingLastPathComponent(), packageRoot.appendingPathComponent(".build/debug"),
  ]
  where FileManager.default.isExecutableFile(
    atPath: candidate.appendingPathComponent("mediaprobe").path)
  {
    return candidate
  }
  return packageRoot.appendingPathComponent(".build/debug")
}()

/// Runs a built tool (or, when `tool` contains no slash and is not ours, a program on PATH)
/// from the package root.
func run(_ tool: String, _ arguments: [String], stdin: Data? = nil, in directory: URL = packageRoot)
  throws -> Run
{
  let process = Process()
  let ours = productsDirectory.appendingPathComponent(tool)
  if FileManager.default.isExecutableFile(atPath: ours.path) {
    process.executableURL = ours
    process.arguments = arguments
  } else {
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
  }
  process.currentDirectoryURL = directory
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
  // Read both pipes concurrently so neither fills up.
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

/// Runs a built tool as a user without privileges: through `setpriv` as `nobody` when the tests
/// run as root (root reads every file), directly otherwise.
func runUnprivileged(_ tool: String, _ arguments: [String]) throws -> Run {
  guard geteuid() == 0 else { return try run(tool, arguments) }
  let binary = productsDirectory.appendingPathComponent(tool).path
  return try run(
    "setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", binary] + arguments)
}

/// A copy of the `tone.wav` fixture named `name` in `directory`, with mode 000: only root may
/// read it (see `runUnprivileged`).
func unreadableCopy(named name: String, in directory: TemporaryDirectory) throws -> String {
  let path = directory.path(name)
  try FileManager.default.copyItem(
    atPath: packageRoot.appendingPathComponent("\(fixturesDirectory)/tone.wav").path, toPath: path)
  #expect(chmod(path, 0) == 0)
  return path
}

/// Runs mediaprobe on one fixture and returns its JSON object.
func probe(_ fixture: String, _ options: [String] = []) throws -> [String: Any] {
  let result = try run("mediaprobe", options + ["\(fixturesDirectory)/\(fixture)"])
  return try #require(
    try result.json() as? [String: Any], "mediaprobe \(fixture): \(result.stderr)")
}

/// Follows a path of keys and array indexes through parsed JSON.
/// Expects `report` (JSON or NDJSON, a tool's standard output) to follow `schema` (a path under
/// schemas/), as Python's jsonschema (Scripts/validate-json.py, the independent validator)
/// judges it.
func expectValid(
  _ report: Data, schema: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let validation = try run(
    "python3", ["Scripts/validate-json.py", "schemas/" + schema, "-"], stdin: report)
  #expect(validation.status == 0, "\(validation.stderr)", sourceLocation: sourceLocation)
}

func value(_ json: Any?, _ path: Any...) -> Any? {
  var current = json
  for key in path {
    if let key = key as? String { current = (current as? [String: Any])?[key] }
    if let index = key as? Int {
      guard let array = current as? [Any], index < array.count else { return nil }
      current = array[index]
    }
  }
  if current is NSNull { return nil }
  return current
}

/// The first stream of a type in a probe result.
func firstStream(_ json: [String: Any], _ type: String) -> [String: Any]? {
  (json["streams"] as? [[String: Any]])?.first { $0["type"] as? String == type }
}

/// A rational as "num/den", or nil.
func ratio(_ json: Any?) -> String? {
  guard let object = json as? [String: Any], let num = object["num"] as? Int,
    let den = object["den"] as? Int
  else { return nil }
  return "\(num)/\(den)"
}

/// True when golden files should be written rather than compared (`GOLDEN_RECORD=1`).
let recordingGoldens = ProcessInfo.processInfo.environment["GOLDEN_RECORD"] == "1"

/// Compares `actual` with the golden file at `relativePath` (under golden/), or records it.
func assertGolden(
  _ actual: String, _ relativePath: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let url = packageRoot.appendingPathComponent("golden").appendingPathComponent(relativePath)
  if recordingGoldens {
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try actual.write(to: url, atomically: true, encoding: .utf8)
    return
  }
  let expected = try? String(contentsOf: url, encoding: .utf8)
  #expect(
    expected != nil, "missing golden \(relativePath): record with GOLDEN_RECORD=1",
    sourceLocation: sourceLocation)
  if let expected {
    #expect(
      actual == expected, "differs from golden \(relativePath)", sourceLocation: sourceLocation)
  }
}

/// Waits until `process` holds a file under `directory` open (an output being written shows in
/// `/proc/PID/fd`, named or not), or has ended, or `seconds` passed.
///
/// - Returns: whether the file was seen open.
@discardableResult
func waitUntilWriting(_ process: Process, under directory: String, seconds: Double = 10) -> Bool {
  let descriptors = "/proc/\(process.processIdentifier)/fd"
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline && process.isRunning {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? []
    let open = names.contains { name in
      let target = try? FileManager.default.destinationOfSymbolicLink(
        atPath: descriptors + "/" + name)
      return target?.hasPrefix(directory) == true
    }
    if open { return true }
    usleep(5000)
  }
  return false
}

/// Feeds most of `bytes` (80%) to `writer`, a pipe or FIFO that `process` reads and that stays
/// open so the process stalls mid-input, waits until the process writes its output under
/// `directory`, sends `signal` and waits for the process to end.
///
/// - Returns: the process's exit status.
func interruptWhileWriting(
  _ process: Process, feeding writer: FileHandle, bytes: Data, outputUnder directory: String,
  signal: Int32, sourceLocation: SourceLocation = #_sourceLocation
) -> Int32 {
  // The process may die while the writer still writes: EPIPE, not a SIGPIPE that would end the
  // test runner.
  _ = Glibc.signal(SIGPIPE, SIG_IGN)
  DispatchQueue.global().async {
    try? writer.write(contentsOf: bytes.prefix(bytes.count * 8 / 10))
  }
  // An unnamed output file (O_TMPFILE) shows only as one of the process's descriptors.
  #expect(
    waitUntilWriting(process, under: directory), "the output file should be open meanwhile",
    sourceLocation: sourceLocation)
  Thread.sleep(forTimeInterval: 0.2)
  kill(process.processIdentifier, signal)
  process.waitUntilExit()
  try? writer.close()
  return process.terminationStatus
}
