import AV
import Foundation
import Testing

@testable import AudioExtract
import OutputKit

/// The writer on real file descriptors, with the RF64 threshold lowered to drive the upgrade.
@Suite struct WAVWriterTests {
  static let format = PCMFormat(encoding: .s16, channels: 2, sampleRate: 8000, channelMask: 0x3)

  func withTemporaryFile(_ body: (Int32, URL) throws -> Void) throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "wavwriter-\(UUID().uuidString).wav")
    let fd = open(url.path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
    #expect(fd >= 0)
    defer {
      close(fd)
      try? FileManager.default.removeItem(at: url)
    }
    try body(fd, url)
  }

  func payload(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) } }

  @Test func patchesSizesAndPads() throws {
    try withTemporaryFile { fd, url in
      let mono8 = PCMFormat(encoding: .u8, channels: 1, sampleRate: 8000, channelMask: 0x4)
      var writer = try WAVWriter(fd: fd, format: mono8, seekable: true, reserveRF64: false)
      try writer.write(payload(301))
      try writer.finish()
      let file = try [UInt8](Data(contentsOf: url))
      #expect(file.count == 44 + 302)
      #expect(file.last == 0)
      #expect(Array(file[44..<345]) == payload(301))
      #expect(file[4..<8] == [0x52, 0x01, 0, 0])  // 338 = 36 + 302
      #expect(file[40..<44] == [0x2D, 0x01, 0, 0])  // 301
    }
  }

  @Test func upgradesToRF64PastTheLimit() throws {
    try withTemporaryFile { fd, url in
      var writer = try WAVWriter(
        fd: fd, format: Self.format, seekable: true, reserveRF64: true, rf64Limit: 1000)
      try writer.write(payload(2000))
      try writer.finish()
      let file = try [UInt8](Data(contentsOf: url))
      #expect(String(decoding: file[0..<4], as: UTF8.self) == "RF64")
      #expect(String(decoding: file[12..<16], as: UTF8.self) == "ds64")
      #expect(file[20..<28] == [0x18, 0x08, 0, 0, 0, 0, 0, 0])  // RIFF size 2072
      #expect(file[28..<36] == [0xD0, 0x07, 0, 0, 0, 0, 0, 0])  // data 2000
      #expect(file[36..<44] == [0xF4, 0x01, 0, 0, 0, 0, 0, 0])  // 500 sample frames
      #expect(Array(file[80...]) == payload(2000))
    }
  }

  @Test func staysRIFFUnderTheLimit() throws {
    try withTemporaryFile { fd, url in
      var writer = try WAVWriter(
        fd: fd, format: Self.format, seekable: true, reserveRF64: true, rf64Limit: 1_000_000)
      try writer.write(payload(2000))
      try writer.finish()
      let file = try [UInt8](Data(contentsOf: url))
      #expect(String(decoding: file[0..<4], as: UTF8.self) == "RIFF")
      #expect(String(decoding: file[12..<16], as: UTF8.self) == "JUNK")
    }
  }

  @Test func movesTheDataWhenNothingWasReserved() throws {
    // The size was misjudged: no JUNK chunk, yet the data passed the limit.
    try withTemporaryFile { fd, url in
      var writer = try WAVWriter(
        fd: fd, format: Self.format, seekable: true, reserveRF64: false, rf64Limit: 1000)
      try writer.write(payload(3001 * 4))
      try writer.finish()
      let file = try [UInt8](Data(contentsOf: url))
      #expect(String(decoding: file[0..<4], as: UTF8.self) == "RF64")
      #expect(String(decoding: file[12..<16], as: UTF8.self) == "ds64")
      #expect(file.count == 80 + 3001 * 4)
      #expect(Array(file[80...]) == payload(3001 * 4))
    }
  }

  @Test func streamingLeavesSizesUnknown() throws {
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    defer { close(fds[0]) }
    var writer = try WAVWriter(fd: fds[1], format: Self.format, seekable: false, reserveRF64: false)
    try writer.write(payload(8))
    try writer.finish()
    close(fds[1])
    var buffer = [UInt8](repeating: 0, count: 100)
    let count = read(fds[0], &buffer, 100)
    #expect(count == 52)
    #expect(buffer[4..<8] == [0xFF, 0xFF, 0xFF, 0xFF])
    #expect(buffer[40..<44] == [0xFF, 0xFF, 0xFF, 0xFF])
  }

  @Test func fullDiskIsAnError() throws {
    let fd = open("/dev/full", O_WRONLY)
    try #require(fd >= 0)
    defer { close(fd) }
    #expect(throws: OutputError.self) {
      _ = try WAVWriter(fd: fd, format: Self.format, seekable: false, reserveRF64: false)
    }
  }
}
