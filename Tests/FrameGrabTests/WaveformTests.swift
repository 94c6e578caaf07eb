import AV
import Foundation
import FrameGrab
import Testing

/// Waveform bins by construction (pcm.wav: samples chosen in Scripts/make-frame-fixtures.sh)
/// and against the ffmpeg CLI's 16-bit decode of AAC; the JSON and .dat layouts of BBC
/// audiowaveform's doc/DataFormat.md.
@Suite struct WaveformTests {
  /// pcm.wav's samples, computed again here from the recipe: left a 50 Hz sine at 0.8 of full
  /// scale, right a ramp from -32768 by 67 a sample (wrapping), 1000 frames at 8 kHz.
  static let left: [Int] = (0..<1000).map {
    Int((0.8 * 32767 * sin(2 * Double.pi * 50 * Double($0) / 8000)).rounded())
  }
  static let right: [Int] = (0..<1000).map { ($0 * 67) % 65536 - 32768 }

  /// audiowaveform's bins of `samples` (per channel lists), merged or split.
  static func bins(_ channels: [[Int]], per size: Int, split: Bool) -> [Int] {
    let frames = channels[0].count
    let series: [[Int]] =
      split
      ? channels
      : [(0..<frames).map { n in channels.map { $0[n] }.reduce(0, +) / channels.count }]
    var data: [Int] = []
    for start in stride(from: 0, to: frames, by: size) {
      for values in series {
        let bin = values[start..<min(frames, start + size)]
        data += [bin.min()!, bin.max()!]
      }
    }
    return data
  }

  @Test(arguments: [(100, false), (300, true), (7, false), (1000, true)])
  func binsByConstruction(size: Int, split: Bool) throws {
    let waveform = try Waveform.measure(
      .file(fixture("pcm.wav")), options: OpenOptions(), samplesPerPixel: size, split: split)
    let expected = Self.bins([Self.left, Self.right], per: size, split: split)
    #expect(waveform.values(bits: 16) == expected)
    #expect(waveform.values(bits: 8) == expected.map { $0 / 256 })
    #expect(waveform.sampleRate == 8000)
    #expect(waveform.channels == (split ? 2 : 1))
    #expect(waveform.length == (1000 + size - 1) / size)
  }

  @Test func binsOfAACEqualFFmpegsDecode() throws {
    let path = sharedFixture("tone.m4a")
    let result = try run("ffmpeg", ["-v", "error", "-i", path, "-f", "s16le", "-"])
    let pcm = result.stdout.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    let probe = try run(
      "ffprobe",
      ["-v", "error", "-show_entries", "stream=channels", "-of", "csv=p=0", path])
    let channels = Int(String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n")[0])!
    let perChannel = (0..<channels).map { c in
      stride(from: c, to: pcm.count, by: channels).map { Int(pcm[$0]) }
    }
    let waveform = try Waveform.measure(
      .file(path), options: OpenOptions(), samplesPerPixel: 512, split: false)
    #expect(waveform.values(bits: 16) == Self.bins(perChannel, per: 512, split: false))
  }

  @Test func dataFormats() throws {
    let waveform = Waveform(
      sampleRate: 48000, samplesPerPixel: 512, channels: 2,
      data: [-16640, 16128, -16896, 16384, -300, 255, -1, 32767])
    #expect(
      waveform.json(bits: 8)
        == "{\"version\":2,\"channels\":2,\"sample_rate\":48000,\"samples_per_pixel\":512,"
        + "\"bits\":8,\"length\":2,\"data\":[-65,63,-66,64,-1,0,0,127]}\n")
    let binary = waveform.binary(bits: 16)
    #expect(binary.count == 24 + 8 * 2)
    #expect(
      Array(binary[0..<24]) == [
        2, 0, 0, 0, 0, 0, 0, 0, 0x80, 0xBB, 0, 0, 0, 2, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0,
      ])
    #expect(Array(binary[24..<28]) == [0x00, 0xBF, 0x00, 0x3F])  // -16640, 16128 LE
    let eight = waveform.binary(bits: 8)
    #expect(eight[4] == 1)  // flags: 8-bit
    #expect(Array(eight[24...]) == [0xBF, 0x3F, 0xBE, 0x40, 0xFF, 0x00, 0x00, 0x7F])
  }

  @Test func picture() {
    // One bin per column: a full-scale bin fills its column, a silent one draws the centre.
    let waveform = Waveform(
      sampleRate: 8000, samplesPerPixel: 10, channels: 1,
      data: [-32768, 32767, 0, 0, -16384, 16384])
    var style = WaveformStyle()
    (style.width, style.height) = (3, 20)
    let picture = style.draw(waveform)
    let drawn = { (x: Int, y: Int) in picture.pixel(x, y) == style.color }
    #expect((0..<20).allSatisfy { drawn(0, $0) })
    #expect(drawn(1, 10) && !drawn(1, 2) && !drawn(1, 17))
    #expect(drawn(2, 6) && drawn(2, 14) && !drawn(2, 3) && !drawn(2, 17))
  }
}

/// The time axis: 8000 Hz, 80 samples a bin, 500 bins (5 s) on 1000 pixels: 0.005 s a pixel,
/// so the first step at least 80 pixels wide is 0.5 s (100 pixels): ticks at x = 0, 100, ...,
/// 900 in the strip's top rows, nothing between.
@Suite struct WaveformAxisTests {
  @Test func ticks() {
    let waveform = Waveform(
      sampleRate: 8000, samplesPerPixel: 80, channels: 1,
      data: Array(repeating: [Int16(-1000), 1000], count: 500).flatMap { $0 })
    var style = WaveformStyle()
    (style.width, style.height, style.axis) = (1000, 100, true)
    let picture = style.draw(waveform)
    let top = 100 - WaveformStyle.axisHeight
    let ticks = (0..<1000).filter { picture.pixel($0, top) != style.background }
    #expect(ticks == Array(stride(from: 0, to: 1000, by: 100)))
    // The waveform stays above the strip.
    #expect((top..<100).allSatisfy { picture.pixel(500, $0) != style.color })
  }
}
