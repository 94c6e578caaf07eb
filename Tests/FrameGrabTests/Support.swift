import AV
import Foundation
import FrameGrab
import MediaCore
import Testing

/// The package's root folder.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent()

/// A fixture of Tests/FrameFixtures (Scripts/make-frame-fixtures.sh).
func fixture(_ name: String) -> String {
  packageRoot.appendingPathComponent("Tests/FrameFixtures/\(name)").path
}

/// A fixture of Tests/Fixtures.
func sharedFixture(_ name: String) -> String {
  packageRoot.appendingPathComponent("Tests/Fixtures/\(name)").path
}

struct ToolFailure: Error, CustomStringConvertible {
  var description: String
}

/// Runs a program on PATH; its standard output.
func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, stdout: Data) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [tool] + arguments
  let out = Pipe()
  process.standardOutput = out
  process.standardError = FileHandle.nullDevice
  process.standardInput = FileHandle.nullDevice
  try process.run()
  let data = out.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (process.terminationStatus, data)
}

/// The oracle: the ffmpeg CLI's decode of `input` through `filters` (with `inputOptions`
/// before `-i`), one picture as 8-bit RGB, with its size from the bytes and `width`.
func ffmpegPicture(
  _ input: String, inputOptions: [String] = [], filters: String? = nil, width: Int
) throws -> Picture {
  var arguments = ["-v", "error", "-nostdin"] + inputOptions + ["-i", input]
  if let filters { arguments += ["-vf", filters] }
  arguments += ["-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
  let result = try run("ffmpeg", arguments)
  guard result.status == 0, !result.stdout.isEmpty else {
    throw ToolFailure(description: "ffmpeg failed on \(input)")
  }
  let bytes = [UInt8](result.stdout)
  return Picture(width: width, height: bytes.count / 3 / width, pixels: bytes)
}

/// Decodes an image file with the ffmpeg CLI into 8-bit RGB.
func decodeImage(_ path: String, width: Int) throws -> Picture {
  try ffmpegPicture(path, width: width)
}

/// The peak signal-to-noise ratio between two pictures of the same size, in dB (infinity when
/// equal).
func psnr(_ a: Picture, _ b: Picture) -> Double {
  precondition(a.width == b.width && a.height == b.height, "sizes differ")
  var sum = 0.0
  for index in a.pixels.indices {
    let difference = Double(a.pixels[index]) - Double(b.pixels[index])
    sum += difference * difference
  }
  let mse = sum / Double(a.pixels.count)
  return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
}

/// The frame number a picture of numbers.mp4 / numbers_open.mkv shows (R = (N mod 8)*32+16,
/// G = floor(N/8)*32+16), read at its centre.
func frameNumber(_ picture: Picture) -> Int {
  let (r, g, _) = picture.pixel(picture.width / 2, picture.height / 2)
  let low = Int(((Double(r) - 16) / 32).rounded())
  let high = Int(((Double(g) - 16) / 32).rounded())
  return high * 8 + low
}

/// A grabber on a fixture.
func grabber(_ path: String, cover: Bool = false) throws -> FrameGrabber {
  try FrameGrabber(source: .file(path), options: OpenOptions(), cover: cover)
}
