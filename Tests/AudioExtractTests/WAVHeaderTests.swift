import AV
import OutputKit
import Testing

@testable import AudioExtract

/// Header layouts from the WAVE and RF64 specifications (and FFmpeg 5.1's wavenc rules).
@Suite struct WAVHeaderTests {
  static let stereo16 = PCMFormat(encoding: .s16, channels: 2, sampleRate: 44100, channelMask: 0x3)

  func u16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
  func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 | UInt32(b[at + $1]) << (8 * $1) }
  }
  func u64(_ b: [UInt8], _ at: Int) -> UInt64 {
    (0..<8).reduce(0) { $0 | UInt64(b[at + $1]) << (8 * $1) }
  }
  func text(_ b: [UInt8], _ at: Int) -> String { String(decoding: b[at..<at + 4], as: UTF8.self) }

  @Test func plainPCMIs44Bytes() {
    let header = WAVHeader(format: Self.stereo16, reservesRF64: false, seekable: true)
    let b = header.bytes(dataSize: 1000)
    #expect(b.count == 44)
    #expect(text(b, 0) == "RIFF" && u32(b, 4) == 1036 && text(b, 8) == "WAVE")
    #expect(text(b, 12) == "fmt " && u32(b, 16) == 16)
    #expect(u16(b, 20) == 1)  // WAVE_FORMAT_PCM
    #expect(
      u16(b, 22) == 2 && u32(b, 24) == 44100 && u32(b, 28) == 176_400 && u16(b, 32) == 4
        && u16(b, 34) == 16)
    #expect(text(b, 36) == "data" && u32(b, 40) == 1000)
  }

  @Test func oddDataSizeCountsThePadInRIFFOnly() {
    let mono8 = PCMFormat(encoding: .u8, channels: 1, sampleRate: 8000, channelMask: 0x4)
    let b = WAVHeader(format: mono8, reservesRF64: false, seekable: true).bytes(dataSize: 1001)
    #expect(u32(b, 4) == 36 + 1002)
    #expect(u32(b, 40) == 1001)
  }

  @Test(arguments: [
    // (channels, mask, rate, encoding): FFmpeg's rule — not mono/stereo, > 48 kHz, or > 16 bits.
    (6, UInt64(0x60F), 48000, PCMEncoding.s16, true), (2, UInt64(0x3), 96000, .s16, true),
    (2, UInt64(0x3), 48000, .s24, true), (1, UInt64(0x4), 48000, .f32, true),
    (2, UInt64(0x3), 48000, .s16, false), (1, UInt64(0x4), 8000, .u8, false),
  ])
  func extensibleRule(
    _ channels: Int, _ mask: UInt64, _ rate: Int, _ encoding: PCMEncoding, _ extensible: Bool
  ) {
    let format = PCMFormat(
      encoding: encoding, channels: channels, sampleRate: rate, channelMask: mask)
    #expect(
      WAVHeader(format: format, reservesRF64: false, seekable: true).isExtensible == extensible)
  }

  @Test func extensibleLayout() {
    let surround = PCMFormat(encoding: .s24, channels: 6, sampleRate: 48000, channelMask: 0x60F)
    let b = WAVHeader(format: surround, reservesRF64: false, seekable: true).bytes(dataSize: 18)
    #expect(b.count == 68)
    #expect(u32(b, 16) == 40 && u16(b, 20) == 0xFFFE)
    #expect(u16(b, 32) == 18 && u16(b, 34) == 24)  // block align, container bits
    #expect(u16(b, 36) == 22 && u16(b, 38) == 24)  // cbSize, valid bits
    #expect(u32(b, 40) == 0x60F)  // 5.1(side)
    #expect(
      Array(b[44..<60]) == [1, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71])
  }

  @Test func floatHasFactWhenSeekable() {
    let float = PCMFormat(encoding: .f32, channels: 2, sampleRate: 48000, channelMask: 0x3)
    let seekable = WAVHeader(format: float, reservesRF64: false, seekable: true).bytes(
      dataSize: 800)
    #expect(text(seekable, 60) == "fact" && u32(seekable, 64) == 4 && u32(seekable, 68) == 100)
    #expect(seekable[44] == 3)  // SubFormat: IEEE float
    let streaming = WAVHeader(format: float, reservesRF64: false, seekable: false).bytes(
      dataSize: nil)
    #expect(text(streaming, 60) == "data")
    #expect(u32(streaming, 4) == .max && u32(streaming, 64) == .max)
  }

  @Test func rf64() {
    let header = WAVHeader(format: Self.stereo16, reservesRF64: true, seekable: true)
    let reserved = header.bytes(dataSize: 4)
    #expect(reserved.count == 80 && text(reserved, 12) == "JUNK" && u32(reserved, 16) == 28)
    let data: UInt64 = 5 << 30  // 5 GiB
    #expect(header.needsRF64(dataSize: data))
    #expect(!header.needsRF64(dataSize: 1 << 20))
    let b = header.bytes(dataSize: data, rf64: true)
    #expect(text(b, 0) == "RF64" && u32(b, 4) == .max)
    #expect(text(b, 12) == "ds64" && u32(b, 16) == 28)
    #expect(
      u64(b, 20) == data + 72 && u64(b, 28) == data && u64(b, 36) == data / 4 && u32(b, 44) == 0)
    #expect(text(b, 72) == "data" && u32(b, 76) == .max)
  }
}
