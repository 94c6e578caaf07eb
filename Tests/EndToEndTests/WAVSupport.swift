import Foundation
import Testing

/// A WAV (RIFF/RF64) file's chunks, found by walking them (not by assuming 44 bytes).
struct WAVFile {
  var riffID: String
  var chunks: [(id: String, size: UInt32, payload: Data)]

  init(_ data: Data) throws {
    let bytes = [UInt8](data)
    try #require(bytes.count >= 12, "shorter than a RIFF header")
    riffID = String(decoding: bytes[0..<4], as: UTF8.self)
    chunks = []
    var offset = 12
    while offset + 8 <= bytes.count {
      let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
      let size = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + 4 + $1]) << (8 * $1) }
      let available = bytes.count - offset - 8
      let length = size == .max ? available : min(Int(size), available)
      chunks.append((id, size, Data(bytes[offset + 8..<offset + 8 + length])))
      offset += 8 + length + (length & 1)
    }
  }

  /// The payload of the first chunk with this id.
  func chunk(_ id: String) -> Data? { chunks.first { $0.id == id }?.payload }

  /// The sample data.
  var samples: Data { chunk("data") ?? Data() }
}

/// A temporary directory removed at the end of a test.
final class TemporaryDirectory {
  let url: URL
  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "mediatools-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }
  deinit { try? FileManager.default.removeItem(at: url) }
  func path(_ name: String) -> String { url.appendingPathComponent(name).path }
  var contents: [String] { (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [] }
}

/// `ffmpeg -nostdin -v error [before] -i IN -map 0:a:N [after] -f FORMAT -`: the PCM oracle.
func ffmpegPCM(
  _ input: String, stream: Int? = 0, before: [String] = [], after: [String] = [], format: String
) throws -> Data {
  let map = stream.map { ["-map", "0:a:\($0)"] } ?? []
  let result = try run(
    "ffmpeg",
    ["-nostdin", "-v", "error"] + before + ["-i", input] + map + after + ["-f", format, "-"])
  #expect(result.status == 0, "ffmpeg: \(result.stderr)")
  return result.stdout
}

/// ffmpeg's raw format name for a --format value.
func rawFormat(_ encoding: String) -> String { encoding == "u8" ? "u8" : encoding + "le" }

/// The fixtures that have audio (by ffprobe), excluding the hostile ones.
let audioFixtures: [String] = mediaFixtures.filter { name in
  let result = try? run(
    "ffprobe",
    [
      "-v", "error", "-select_streams", "a", "-show_entries", "stream=index", "-of", "csv=p=0",
      "\(fixturesDirectory)/\(name)",
    ])
  return !(result?.text.isEmpty ?? true)
}
