import AV
import Composition
import Foundation
import MediaCore
import OutputKit
import Testing

@testable import Compositor

/// The package's root folder.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent()

/// The result of running a command.
struct Run {
  var status: Int32
  var stdout: Data
  var stderr: String
  var text: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs `tool` (on PATH) with `arguments`.
func run(_ tool: String, _ arguments: [String]) throws -> Run {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [tool] + arguments
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  process.standardInput = FileHandle.nullDevice
  try process.run()
  nonisolated(unsafe) var errorData = Data()
  let group = DispatchGroup()
  group.enter()
  DispatchQueue.global().async {
    errorData = err.fileHandleForReading.readDataToEndOfFile()
    group.leave()
  }
  let data = out.fileHandleForReading.readDataToEndOfFile()
  group.wait()
  process.waitUntilExit()
  return Run(
    status: process.terminationStatus, stdout: data,
    stderr: String(decoding: errorData, as: UTF8.self))
}

/// A failed oracle run.
struct ToolFailure: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}

/// Runs the ffmpeg CLI (the oracle), failing on a non-zero status.
@discardableResult
func ffmpeg(_ arguments: [String]) throws -> Run {
  let result = try run("ffmpeg", ["-v", "error", "-nostdin", "-y"] + arguments)
  guard result.status == 0 else { throw ToolFailure(message: "ffmpeg: \(result.stderr)") }
  return result
}

/// ffprobe's JSON for `path` with `arguments`.
func ffprobe(_ path: String, _ arguments: [String]) throws -> [String: Any] {
  let result = try run("ffprobe", ["-v", "error", "-of", "json"] + arguments + [path])
  guard result.status == 0 else { throw ToolFailure(message: "ffprobe: \(result.stderr)") }
  return try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] ?? [:]
}

/// The ffmpeg CLI's decoding of the picture of `path` shown at `seconds` (`-ss`, then the first
/// frame; the CLI turns a clip upright from its display matrix), `width`×`height` after
/// `filter`, as 4:2:0 planes (Y, Cb, Cr).
func decodedPicture(
  _ path: String, at seconds: Double, width: Int, height: Int, filter: String? = nil,
  input format: String? = nil
) throws -> [[UInt8]] {
  var arguments = seconds > 0 ? ["-ss", String(format: "%.6f", seconds)] : []
  if let format { arguments += ["-f", format] }
  arguments += ["-i", path, "-frames:v", "1"]
  if let filter { arguments += ["-vf", filter] }
  let raw = Array(try ffmpeg(arguments + ["-pix_fmt", "yuv420p", "-f", "rawvideo", "-"]).stdout)
  let luma = width * height
  let chroma = ((width + 1) / 2) * ((height + 1) / 2)
  guard raw.count == luma + 2 * chroma else {
    throw ToolFailure(message: "\(raw.count) bytes for \(width)x\(height) at \(seconds) s")
  }
  return [
    Array(raw[0..<luma]), Array(raw[luma..<luma + chroma]),
    Array(raw[(luma + chroma)..<(luma + 2 * chroma)]),
  ]
}

/// The mean Y, Cb, Cr of a centred `size`×`size` block of a picture `width` wide.
func centre(_ planes: [[UInt8]], width: Int, height: Int, size: Int = 8) -> [Double] {
  let sizes = [(width, height, size), ((width + 1) / 2, (height + 1) / 2, size / 2)]
  return (0..<3).map { plane in
    let (w, h, s) = plane == 0 ? sizes[0] : sizes[1]
    var sum = 0
    for y in (h / 2 - s / 2)..<(h / 2 + s / 2) {
      for x in (w / 2 - s / 2)..<(w / 2 + s / 2) { sum += Int(planes[plane][y * w + x]) }
    }
    return Double(sum) / Double(s * s)
  }
}

/// The fixtures, made by construction with the ffmpeg CLI once per test run.
enum Fixtures {
  static let directory: String = {
    let path = NSTemporaryDirectory() + "compositor-tests-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: Fixtures.directory) }
    return path
  }()

  /// A solid colour clip: `seconds` at `rate` fps, `size`, H.264 4:2:0 (limited range, the
  /// colour converted by the CLI with BT.601, untagged unless `tags`), with a 440 Hz tone unless
  /// `audio` is false.
  static func solid(
    _ name: String, colour: String, size: String = "320x240", rate: String = "25",
    seconds: Double = 2, audio: Bool = true, tags: [String] = [], filter: String? = nil
  ) -> String {
    make(name) {
      var arguments = ["-f", "lavfi", "-i", "color=c=\(colour):s=\(size):r=\(rate)"]
      if audio { arguments += ["-f", "lavfi", "-i", "sine=f=440:r=48000"] }
      arguments += ["-t", String(seconds)]
      if let filter { arguments += ["-vf", filter] }
      arguments += ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"] + tags
      if audio { arguments += ["-c:a", "aac"] }
      return arguments + [$0]
    }
  }

  static let red = solid("red.mp4", colour: "0xC83214")
  static let blue = solid("blue.mp4", colour: "0x1464C8", audio: false)
  /// A 64x48 PNG of one colour.
  static let green: String = make("green.png") {
    ["-f", "lavfi", "-i", "color=c=0x20C040:s=64x48", "-frames:v", "1", $0]
  }

  static func make(_ name: String, _ arguments: (String) -> [String]) -> String {
    let path = directory + "/" + name
    if !FileManager.default.fileExists(atPath: path) {
      let partial =
        directory + "/partial-\(UUID().uuidString)-"
        + name.replacingOccurrences(
          of: "/", with: "_")
      do {
        try ffmpeg(arguments(partial))
        try FileManager.default.createDirectory(
          atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: partial, toPath: path)
      } catch {
        fatalError("fixture \(name): \(error)")
      }
    }
    return path
  }

  /// A fresh path for an output of this run.
  static func output(_ name: String) -> String {
    let path = directory + "/out-" + name
    try? FileManager.default.removeItem(atPath: path)
    return path
  }
}

/// Resolves a JSON document whose sources are relative to the fixtures' folder.
func plan(_ json: String) throws -> CompositionPlan {
  let document = try CompositionDocument.decode(json: Array(json.utf8))
  return try CompositionLoader.resolve(document, baseDirectory: Fixtures.directory).plan
}

/// Renders `plan` to a new output named `name`.
func render(
  _ plan: CompositionPlan, _ name: String, settings: CompositorSettings = CompositorSettings(),
  progress: (Double) -> Void = { _ in }
) throws -> (path: String, report: CompositionRenderReport) {
  let path = Fixtures.output(name)
  var settings = settings
  settings.threads = settings.threads == 0 ? 2 : settings.threads
  let report = try Compositor.render(
    plan, to: path, overwrite: false, sync: false, settings: settings, progress: progress)
  return (path, report)
}
