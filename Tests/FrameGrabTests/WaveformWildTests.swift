import AV
import Foundation
import FrameGrab
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Waveforms of inputs nobody on the project made for the tests (docs/mediaframe.md, "Waveforms
/// of files from the wild"), each made with the ffmpeg CLI at test time and checked against the
/// ffmpeg CLI's own 16-bit decode of the same file, binned as audiowaveform does.
@Suite struct WaveformWildTests {
  /// A scratch folder, removed by the caller.
  static func scratch() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "waveform-wild-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }

  /// Runs the ffmpeg CLI (quiet, overwriting) and requires it to succeed.
  static func ffmpeg(_ arguments: [String]) throws {
    let result = try run("ffmpeg", ["-v", "error", "-nostdin", "-y"] + arguments)
    try #require(result.status == 0, "ffmpeg \(arguments)")
  }

  /// The oracle's bins: the ffmpeg CLI's decode of `path` (its default audio stream) as 16-bit
  /// samples, `channels` of them interleaved, binned by `WaveformTests.bins`.
  static func oracle(_ path: String, channels: Int, per size: Int, split: Bool) throws -> [Int] {
    let result = try run("ffmpeg", ["-v", "error", "-i", path, "-f", "s16le", "-"])
    let pcm = result.stdout.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    let perChannel = (0..<channels).map { c in
      stride(from: c, to: pcm.count, by: channels).map { Int(pcm[$0]) }
    }
    return WaveformTests.bins(perChannel, per: size, split: split)
  }

  /// A FIFO read with more than one thread allowed: the chunk planner looked at the input
  /// first (opening it read the start of the pipe and closed it), so the one-pass decode that
  /// followed found the writer gone and gave up with `timeout` after 10 s. A FIFO (not a
  /// regular file) is never planned now, and its one pass gives ffmpeg's bins.
  @Test func fifoWithThreads() throws {
    let directory = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = directory.appendingPathComponent("tone.ogg").path
    try Self.ffmpeg([
      "-f", "lavfi", "-i", "sine=f=440:d=1.5:sample_rate=48000", "-c:a", "libopus", source,
    ])
    let fifo = directory.appendingPathComponent("pipe.ogg").path
    try #require(mkfifo(fifo, 0o600) == 0)
    let writer = Process()
    writer.executableURL = URL(fileURLWithPath: "/bin/sh")
    writer.arguments = ["-c", "exec cat \"$0\" > \"$1\"", source, fifo]
    try writer.run()
    defer { writer.waitUntilExit() }
    let started = Date()
    let waveform = try Waveform.measure(
      .file(fifo), options: OpenOptions(timeout: 10), samplesPerPixel: 256, split: false,
      threads: 2)
    #expect(Date().timeIntervalSince(started) < 5)
    #expect(waveform.sampleRate == 48000)
    #expect(
      waveform.values(bits: 16) == (try Self.oracle(source, channels: 1, per: 256, split: false)))
  }

  /// A WAV of 300 channels (as a 7th-order ambisonic or a multitrack recorder writes more than
  /// 64): the ffmpeg CLI decodes it (no conversion is needed: 16-bit in and out), but
  /// libswresample takes at most 64 channels even to copy, so the waveform failed with
  /// `decoder_error` ("cannot be converted to 300 channels"), media2wav too. The resampler now
  /// copies a format that is already the output; merged and split bins equal ffmpeg's decode.
  @Test func manyChannels() throws {
    let directory = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    let channels = 300
    let frames = 700
    var samples: [Int16] = []
    var state: UInt32 = 12345
    for _ in 0..<(channels * frames) {
      state = state &* 1_103_515_245 &+ 12345
      samples.append(Int16(truncatingIfNeeded: Int32(bitPattern: state) >> 8))
    }
    var bytes: [UInt8] = []
    func put32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { bytes += $0 } }
    func put16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { bytes += $0 } }
    let data = samples.count * 2
    bytes += Array("RIFF".utf8)
    put32(36 + data)
    bytes += Array("WAVEfmt ".utf8)
    put32(16)
    put16(1)  // PCM
    put16(channels)
    put32(8000)
    put32(8000 * channels * 2)
    put16(channels * 2)
    put16(16)
    bytes += Array("data".utf8)
    put32(data)
    for sample in samples { withUnsafeBytes(of: sample.littleEndian) { bytes += $0 } }
    let path = directory.appendingPathComponent("many.wav").path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    for split in [false, true] {
      let waveform = try Waveform.measure(
        .file(path), options: OpenOptions(), samplesPerPixel: 256, split: split)
      #expect(waveform.channels == (split ? channels : 1))
      #expect(
        waveform.values(bits: 16)
          == (try Self.oracle(path, channels: channels, per: 256, split: split)))
    }
  }

  /// The time axis of 2 h 1 min 40 s at 1200 pixels ended in "2:0": the last tick's label
  /// (2:00:00, 41 pixels) was cut by the right edge and read as another time. Here 5.05 s at
  /// 1000 pixels: steps of 0.5 s (99 pixels), the tick of 0:05.0 at x = 990 has no room for its
  /// 35-pixel label, which is left out now (the tick stays); 0:04.5's label is whole.
  @Test func axisLabelsAreWholeOrAbsent() {
    let waveform = Waveform(
      sampleRate: 8000, samplesPerPixel: 80, channels: 1,
      data: Array(repeating: [Int16(-1000), 1000], count: 505).flatMap { $0 })
    var style = WaveformStyle()
    (style.width, style.height, style.axis) = (1000, 100, true)
    let picture = style.draw(waveform)
    let top = 100 - WaveformStyle.axisHeight
    let ticks = (0..<1000).filter { picture.pixel($0, top) != style.background }
    #expect(ticks.last == 990)
    let labelRows = (top + 4)..<(top + 11)
    func inked(_ columns: Range<Int>) -> Bool {
      columns.contains { x in labelRows.contains { picture.pixel(x, $0) != style.background } }
    }
    #expect(!inked(991..<1000))
    #expect(inked(893..<928))
  }
}
