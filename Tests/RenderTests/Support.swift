import AV
import Foundation
import MediaCore
import OutputKit
import Render
import Testing

/// The package's root folder.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent()

/// The folder holding the built tools (beside the test bundle).
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

/// The result of running a command.
struct Run {
  var status: Int32
  var stdout: Data
  var stderr: String
  var text: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs `tool` (a path, or a program on PATH) with `arguments` and extra `environment`.
func run(_ tool: String, _ arguments: [String], environment: [String: String] = [:]) throws
  -> Run
{
  let process = Process()
  if tool.contains("/") {
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
  } else {
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
  }
  if !environment.isEmpty {
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  }
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

/// Runs the ffmpeg CLI (the oracle), failing on a non-zero status.
@discardableResult
func ffmpeg(_ arguments: [String]) throws -> Run {
  let result = try run("ffmpeg", ["-v", "error", "-nostdin", "-y"] + arguments)
  guard result.status == 0 else { throw ToolFailure(message: "ffmpeg: \(result.stderr)") }
  return result
}

/// ffprobe's JSON for `path` with `arguments` (`-show_streams`, ...).
func ffprobe(_ path: String, _ arguments: [String]) throws -> [String: Any] {
  let result = try run("ffprobe", ["-v", "error", "-of", "json"] + arguments + [path])
  guard result.status == 0 else { throw ToolFailure(message: "ffprobe: \(result.stderr)") }
  return try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] ?? [:]
}

/// The ffmpeg CLI's per-stream MD5 of every packet of `path`'s video and audio streams (`-c copy
/// -f streamhash`): equal for two files whose packets are byte for byte the same.
func streamHash(_ path: String, streams: [String] = ["0:v", "0:a"]) throws -> String {
  try ffmpeg(
    ["-i", path] + streams.flatMap { ["-map", $0] }
      + ["-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]
  ).text
}

/// A failed oracle run.
struct ToolFailure: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}

/// The fixtures, made by construction with the ffmpeg CLI once per test run into a temporary
/// directory of the run's own.
enum Fixtures {
  /// This run's directory, removed when the process exits (a child test process gets its
  /// parent's through the environment, and leaves it).
  static let directory: String = {
    if let inherited = ProcessInfo.processInfo.environment["RENDER_TESTS_FIXTURES"] {
      return inherited
    }
    let path = NSTemporaryDirectory() + "render-tests-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: Fixtures.directory) }
    return path
  }()

  /// 3 s of testsrc2 320x240 at 25 fps (75 frames) and a 440 Hz sine (44.1 kHz mono), H.264
  /// and AAC in MP4.
  static let clip: String = make("in.mp4") {
    [
      "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine=f=440",
      "-t", "3", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", $0,
    ]
  }

  /// The same content in Matroska (H.264 + AAC) with container tags, a French audio stream
  /// that is not the default one, and two chapters (0-1.2 s "Opening", 1.2-3 s "Ending").
  static let matroska: String = {
    let metadata = directory + "/chapters.txt"
    try? Data(
      """
      ;FFMETADATA1
      title=Render tests
      [CHAPTER]
      TIMEBASE=1/1000
      START=0
      END=1200
      title=Opening
      [CHAPTER]
      TIMEBASE=1/1000
      START=1200
      END=3000
      title=Ending

      """.utf8
    ).write(to: URL(fileURLWithPath: metadata))
    return make("in.mkv") {
      [
        "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine=f=440",
        "-i", metadata, "-map", "0", "-map", "1", "-map_metadata", "2", "-map_chapters", "2",
        "-t", "3", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac",
        "-metadata:s:a:0", "language=fra", "-disposition:a:0", "0", $0,
      ]
    }
  }()

  /// 3 s of H.264 + AAC in MPEG-TS, which starts at 1.4 s (the muxer's default offset).
  static let transportStream: String = make("in.ts") {
    [
      "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-f", "lavfi", "-i", "sine=f=440",
      "-t", "3", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", $0,
    ]
  }

  /// 3 s of testsrc2 at 25 fps with a keyframe every 5 frames (15 keyframes), H.264 in MP4.
  static let shortGOP: String = make("gop5.mp4") {
    [
      "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-t", "3", "-c:v", "libx264",
      "-preset", "veryfast", "-g", "5", $0,
    ]
  }

  /// A 64x48 PNG of one colour, R'G'B' (200, 100, 50).
  static let still: String = make("still.png") {
    ["-f", "lavfi", "-i", "color=c=0xC86432:size=64x48", "-frames:v", "1", $0]
  }

  private static func make(_ name: String, _ arguments: (String) -> [String]) -> String {
    let path = directory + "/" + name
    if !FileManager.default.fileExists(atPath: path) {
      let partial = directory + "/partial-\(UUID().uuidString)-" + name
      do {
        try ffmpeg(arguments(partial))
        try FileManager.default.moveItem(atPath: partial, toPath: path)
      } catch {
        fatalError("fixture \(name): \(error)")
      }
    }
    return path
  }

  /// A fresh path for an output of this run (nothing there yet).
  static func output(_ name: String) -> String {
    let path = directory + "/out-" + name
    try? FileManager.default.removeItem(atPath: path)
    return path
  }
}

/// Opens a fixture as every tool does.
func open(_ path: String) throws -> InputFile {
  try Transcoder.open(.file(path))
}

/// Writes `name` through an `OutputFile` (an unnamed file, linked into place by `commit` only
/// when `body` succeeds) and returns its path.
func writeOutput(_ name: String, _ body: (OutputFile, String) throws -> Void) throws -> String {
  let path = Fixtures.output(name)
  let file = try OutputFile(.file(path: path, overwrite: false), sync: false)
  try body(file, path)
  try file.commit()
  return path
}

/// Transcodes `input` with `settings` into a new output named `name`.
func transcode(_ input: String, _ name: String, _ settings: RenderSettings) throws -> (
  path: String, report: RenderReport
) {
  var report: RenderReport?
  let path = try writeOutput(name) { file, path in
    report = try Transcoder.run(input: open(input), output: file, name: path, settings: settings)
  }
  return (path, try #require(report))
}

/// The top-level MP4 boxes of `path`, in order.
func topLevelBoxes(_ path: String) throws -> [String] {
  let data = try Data(contentsOf: URL(fileURLWithPath: path))
  var boxes: [String] = []
  var offset = 0
  while offset + 8 <= data.count {
    var size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
    boxes.append(String(decoding: data[offset + 4..<offset + 8], as: UTF8.self))
    if size == 1 { size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) } }
    guard size >= 8 else { break }
    offset += size
  }
  return boxes
}

/// The index (moov) is before the media data (mdat).
func isFaststart(_ path: String) throws -> Bool {
  let boxes = try topLevelBoxes(path)
  guard let moov = boxes.firstIndex(of: "moov"), let mdat = boxes.firstIndex(of: "mdat") else {
    return false
  }
  return moov < mdat
}

/// Audio samples per channel that ffmpeg decodes from `path`'s first audio stream.
func decodedSampleCount(_ path: String) throws -> Int {
  let result = try ffmpeg(["-i", path, "-map", "0:a:0", "-ac", "1", "-f", "s16le", "-"])
  return result.stdout.count / 2
}

/// The streams ffprobe reads from `path`, with their frames counted.
func probedStreams(_ path: String) throws -> [[String: Any]] {
  let probe = try ffprobe(path, ["-count_frames", "-show_streams"])
  return probe["streams"] as? [[String: Any]] ?? []
}

/// A frame of one R'G'B' colour converted to `format` (BT.709 limited by default) by our
/// scaler.
func solidFrame(
  red: UInt8, green: UInt8, blue: UInt8, width: Int, height: Int,
  format: PixelFormat = .yuv420p
) throws -> Frame {
  let rgb = try Frame.video(width: width, height: height, pixelFormat: .rgb24)
  for row in 0..<height {
    rgb.withRow(row) { bytes in
      for x in 0..<width {
        bytes[3 * x] = red
        bytes[3 * x + 1] = green
        bytes[3 * x + 2] = blue
      }
    }
  }
  let scaler = try Scaler(
    from: ImageFormat(width: width, height: height, pixelFormat: .rgb24),
    to: ImageFormat(width: width, height: height, pixelFormat: format, matrix: .bt709),
    interpolation: .nearest, accurate: true)
  return try scaler.scale(rgb)
}

/// The R'G'B' of pixel (`x`, `y`) of an `rgb24` frame.
func pixel(_ frame: Frame, x: Int, y: Int) -> [Int] {
  frame.withRow(y) { bytes in (0..<3).map { Int(bytes[3 * x + $0]) } }
}

/// `count` samples of a sine of `frequency` Hz and `amplitude` at `rate` Hz, from sample
/// `start`.
func sine(frequency: Double, amplitude: Double, rate: Int, start: Int, count: Int) -> [Float] {
  (0..<count).map {
    Float(amplitude * Foundation.sin(2 * Double.pi * frequency * Double(start + $0) / Double(rate)))
  }
}

/// A mono `fltp` frame holding `samples`, stamped `pts` (in 1/`rate`).
func audioFrame(_ samples: [Float], rate: Int, pts: Int64) throws -> Frame {
  let frame = try Frame.audio(
    sampleCount: samples.count, format: .fltp, layout: .mono, sampleRate: rate)
  frame.withSamples { bytes in
    samples.withUnsafeBytes { bytes.copyMemory(from: $0) }
  }
  frame.pts = pts
  return frame
}

/// The float samples of channel `channel` of an `fltp` frame.
func floatSamples(_ frame: Frame, channel: Int = 0) -> [Float] {
  frame.withSamples(channel: channel) { Array($0.bindMemory(to: Float.self)) }
}

/// Decodes every frame of `input`'s stream `index` and hands each to `body`.
func decodeFrames(
  _ input: InputFile, stream index: Int, _ body: (Frame) throws -> Void
) throws {
  let demuxer = Demuxer(input)
  let decoder = try input.view(index).openDecoder()
  let frame = Frame()
  var failure: Error?
  func handle(_ frame: Frame) -> Bool {
    do { try body(frame) } catch {
      failure = error
      return false
    }
    return true
  }
  reading: while true {
    switch try demuxer.next() {
    case .packet:
      guard demuxer.packet.streamIndex == index else { continue }
      decoder.decode(demuxer.packet, into: frame, failure: { _ in }, body: handle)
    case .end: break reading
    case .failed(let error): throw error
    }
    if let failure { throw failure }
  }
  decoder.decode(nil, into: frame, failure: { _ in }, body: handle)
  if let failure { throw failure }
}

/// Child processes: a test that must run alone in a process (libavfilter not yet loaded, a file
/// size limit, an interruption) runs the test binary again with only itself selected and
/// `RENDER_TESTS_CHILD` set to its name; in the child, `ChildProcess.isChild(name)` is true.
enum ChildProcess {
  /// The marker a child prints when its checks ran.
  static func marker(_ name: String) -> String { "render-tests-child-ran: \(name)" }

  /// True in the child process started for `name`.
  static func isChild(_ name: String) -> Bool {
    ProcessInfo.processInfo.environment["RENDER_TESTS_CHILD"] == name
  }

  /// Prints the marker (the parent checks it: a filter that selected nothing also exits 0).
  static func ran(_ name: String) {
    FileHandle.standardOutput.write(Data((marker(name) + "\n").utf8))
  }

  /// Runs the test `testID` (`Suite/test()`) of this binary in a child process with
  /// `environment`, through `/bin/sh -c prefix` (e.g. `ulimit -f 100;`) when given.
  static func run(
    _ name: String, testID: String, environment: [String: String] = [:], shellPrefix: String = ""
  ) throws -> Run {
    let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    var env = environment
    env["RENDER_TESTS_CHILD"] = name
    env["RENDER_TESTS_FIXTURES"] = Fixtures.directory
    let arguments = ["--testing-library", "swift-testing", "--filter", "RenderTests.\(testID)"]
    if shellPrefix.isEmpty { return try RenderTests.run(binary, arguments, environment: env) }
    return try RenderTests.run(
      "/bin/sh", ["-c", shellPrefix + " exec \"$0\" \"$@\"", binary] + arguments,
      environment: env)
  }
}
