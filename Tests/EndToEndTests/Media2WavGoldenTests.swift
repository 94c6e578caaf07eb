import Foundation
import Testing

/// The WAV headers media2wav writes, as hex dumps in golden/media2wav/ (recorded on purpose with
/// GOLDEN_RECORD=1; each layout was checked against ffmpeg's and the WAVE/RF64 specifications).
@Suite struct Media2WavGoldenTests {
  static let cases: [(name: String, fixture: String, options: [String])] = [
    ("stereo_s16", "tone.m4a", []),
    ("mono_u8", "tone.wav", ["--format", "u8"]),
    ("stereo_f32", "tone.m4a", ["--format", "f32"]),
    ("mono_s24_96k", "tone_24bit_96k.flac", ["--format", "auto"]),
    ("surround_5.1_side_s16", "surround_5.1.ac3", []),
    ("surround_downmix_s32", "surround_5.1.ac3", ["--channels", "2", "--format", "s32"]),
    ("pipe_s16", "tone.m4a", ["-o", "-"]),
  ]

  @Test(arguments: cases.map(\.name))
  func header(_ name: String) throws {
    let spec = try #require(Self.cases.first { $0.name == name })
    let directory = try TemporaryDirectory()
    let toStdout = spec.options.contains("-")
    let output = directory.path("out.wav")
    let result = try run(
      "media2wav",
      ["-q", "\(fixturesDirectory)/\(spec.fixture)"]
        + (toStdout ? spec.options : spec.options + ["-o", output]))
    #expect(result.status == 0, "\(result.stderr)")
    let bytes = toStdout ? result.stdout : try Data(contentsOf: URL(fileURLWithPath: output))
    let file = try WAVFile(bytes)
    let dataStart = bytes.count - file.samples.count - (file.samples.count & 1)
    try assertGolden(hexDump([UInt8](bytes.prefix(dataStart))), "media2wav/\(name).hex")
  }

  /// 16 bytes a line: offset, hex, ASCII.
  func hexDump(_ bytes: [UInt8]) -> String {
    stride(from: 0, to: bytes.count, by: 16).map { offset in
      let line = bytes[offset..<min(offset + 16, bytes.count)]
      let hex = line.map { byte in
        let text = String(byte, radix: 16)
        return text.count == 1 ? "0" + text : text
      }.joined(separator: " ")
      let ascii = String(
        line.map { (0x20..<0x7F).contains($0) ? Character(UnicodeScalar($0)) : "." })
      let position = String(offset, radix: 16)
      return String(repeating: "0", count: 8 - position.count) + position + "  " + hex
        + String(repeating: " ", count: 48 - hex.count) + "  " + ascii
    }.joined(separator: "\n") + "\n"
  }
}
