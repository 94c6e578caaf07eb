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

  /// The builder against the definition (`bins`, audiowaveform's per-sample rule) on
  /// pseudo-random samples reaching both extremes, for 1 to 6 channels merged and split, fed
  /// in pieces of every size: a merged bin's extremes are taken of the channels' sums and
  /// divided once, which must equal dividing every sample.
  @Test(arguments: [1, 2, 3, 6])
  func builderEqualsDefinition(channels: Int) {
    var state: UInt32 = 12345
    func next() -> Int {
      state = state &* 1_664_525 &+ 1_013_904_223
      let value = Int(state >> 16) - 32768
      return value % 7 == 0 ? (value < 0 ? -32768 : 32767) : value
    }
    let frames = 5000
    let perChannel = (0..<channels).map { _ in (0..<frames).map { _ in next() } }
    let interleaved = (0..<frames).flatMap { n in perChannel.map { Int16($0[n]) } }
    for split in [false, true] {
      for size in [1, 7, 256, 1024, 6000] {
        var builder = Waveform.Builder(
          inputChannels: channels, split: split, samplesPerPixel: size)
        var at = 0
        var piece = 1
        interleaved.withUnsafeBufferPointer { all in
          while at < frames {
            let take = min(piece, frames - at)
            builder.add(
              UnsafeBufferPointer(rebasing: all[(at * channels)..<((at + take) * channels)]))
            at += take
            piece = piece * 3 % 1001 + 1
          }
        }
        let waveform = builder.finish(sampleRate: 8000)
        #expect(
          waveform.values(bits: 16) == Self.bins(perChannel, per: size, split: split),
          "split \(split), \(size) a bin")
      }
    }
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

/// The waveform decoded in chunks at once (`AudioChunks`) against one sequential decode and
/// the ffmpeg CLI's 16-bit decode: AAC LC and MP3 in MP4 are cut, and their bins equal both;
/// AAC whose bands are coded as noise (PNS) is found out and decoded in one pass.
@Suite struct ChunkedWaveformTests {
  /// The ffmpeg CLI's decode of `path` as 16-bit samples, per channel.
  static func decoded(_ path: String) throws -> [[Int]] {
    let result = try run("ffmpeg", ["-v", "error", "-i", path, "-f", "s16le", "-"])
    let pcm = result.stdout.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    let probe = try run(
      "ffprobe", ["-v", "error", "-show_entries", "stream=channels", "-of", "csv=p=0", path])
    let channels = Int(String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n")[0])!
    return (0..<channels).map { c in
      stride(from: c, to: pcm.count, by: channels).map { Int(pcm[$0]) }
    }
  }

  @Test(arguments: [
    ("steps_lc.m4a", 256, false, 2), ("steps_lc.m4a", 100, true, 3),
    ("steps_lc.m4a", 1000, false, 5),
    ("steps_mp3.mp4", 256, false, 2), ("steps_mp3.mp4", 441, true, 3),
  ])
  func chunksEqualOnePass(name: String, size: Int, split: Bool, chunks: Int) throws {
    let path = fixture(name)
    let plan = try #require(
      AudioChunks.plan(
        .file(path), options: OpenOptions(), chunks: chunks, alignment: size, minimumSeconds: 0))
    #expect(plan.count == chunks)
    #expect(plan.starts.allSatisfy { ($0 - plan.firstSample) % Int64(size) == 0 })
    let joined = try #require(try Waveform.measure(plan, samplesPerPixel: size, split: split))
    let sequential = try Waveform.measureSequentially(
      .file(path), options: OpenOptions(), samplesPerPixel: size, split: split)
    #expect(joined == sequential)
    let channels = try Self.decoded(path)
    #expect(joined.values(bits: 16) == WaveformTests.bins(channels, per: size, split: split))
  }

  /// The construction: each half second's peak is the step's amplitude (0.1 to 0.6 of full
  /// scale, the right channel half of it), within what the lossy coding moves it: bins of
  /// 1/8 s, the two in the middle of each step (away from the coding's echo of a change).
  @Test func stepsByConstruction() throws {
    let path = fixture("steps_lc.m4a")
    let plan = try #require(
      AudioChunks.plan(
        .file(path), options: OpenOptions(), chunks: 2, alignment: 2000, minimumSeconds: 0))
    let waveform = try #require(try Waveform.measure(plan, samplesPerPixel: 2000, split: true))
    #expect(waveform.length >= 48)
    for step in 0..<12 {
      let amplitude = 0.1 * Double(1 + step % 6) * 32767
      for bin in [step * 4 + 1, step * 4 + 2] {
        for channel in 0..<2 {
          let peak = Double(waveform.data[(bin * 2 + channel) * 2 + 1])
          let wanted = amplitude * (channel == 0 ? 1 : 0.5)
          #expect(abs(peak - wanted) < 0.03 * wanted + 100, "bin \(bin) channel \(channel)")
        }
      }
    }
  }

  /// Perceptual noise substitution draws from the decoder's noise generator, whose state a
  /// chunk starting later cannot know: the check finds it, and `measure` decodes in one pass.
  @Test func noiseSubstitutionFallsBack() throws {
    let path = fixture("noise_pns.m4a")
    // The oracle: the ffmpeg CLI's decode from a seek to 2.5 s differs from its decode from the
    // start after 3 s, half a second (21 frames) past the seek: more than the MDCT overlap
    // carries over.
    let whole = try run("ffmpeg", ["-v", "error", "-i", path, "-f", "s16le", "-"]).stdout
    let seeked = try run("ffmpeg", ["-v", "error", "-ss", "2.5", "-i", path, "-f", "s16le", "-"])
      .stdout
    let fromWhole = whole.dropFirst(3 * 44100 * 2)
    let fromSeek = seeked.dropFirst(22050 * 2)
    #expect(!fromSeek.isEmpty)
    #expect(!fromWhole.starts(with: fromSeek.prefix(fromWhole.count)))
    // Noise from the first frames: the plan's early look refuses the file.
    #expect(
      AudioChunks.plan(
        .file(path), options: OpenOptions(), chunks: 2, alignment: 256, minimumSeconds: 0) == nil)
    let counted = try Waveform.measureCounting(
      .file(path), options: OpenOptions(), samplesPerPixel: 256, split: false, threads: 2)
    #expect(counted.chunks == 1)
    #expect(
      counted.waveform.values(bits: 16)
        == WaveformTests.bins(try Self.decoded(path), per: 256, split: false))
  }

  /// The one pass with the bins made on a second thread (`WaveformThread`), as `measure` takes
  /// it for a noise-coded stream with more than one thread: the bins and a picture's columns
  /// equal those of the ffmpeg CLI's decode, handed over in batches of the default size (three
  /// for this 6 s stream) and in small ones that end inside bins (1000 bytes: 500 samples).
  @Test(arguments: [
    (256, false, WaveformThread.batchBytes), (100, true, 1000), (7, false, 1000),
    (4410, false, 2),
  ])
  func noiseSubstitutionOverlapped(size: Int, split: Bool, batch: Int) throws {
    let path = fixture("noise_pns.m4a")
    let expected = WaveformTests.bins(try Self.decoded(path), per: size, split: split)
    let measured = try Waveform.measureSequentially(
      .file(path), options: OpenOptions(), samplesPerPixel: size, split: split, columns: nil,
      overlapped: true, batchBytes: batch)
    #expect(measured.chunks == 1)
    #expect(measured.waveform.values(bits: 16) == expected)
    let pictured = try Waveform.measureSequentially(
      .file(path), options: OpenOptions(), samplesPerPixel: size, split: split, columns: 37,
      overlapped: true, batchBytes: batch)
    #expect(pictured.waveform.data.isEmpty)
    #expect(pictured.columns == WaveformColumns(measured.waveform, width: 37))
    #expect(pictured.bins == measured.waveform.length)
  }

  /// Noise only from 5.5 to 7 s, in the middle of three chunks: the plan is made (the first
  /// 5 s draw no noise), the middle chunk's check finds the draws, and one pass is taken.
  @Test func lateNoiseFallsBack() throws {
    let path = fixture("noise_late.m4a")
    // The oracle: the ffmpeg CLI's decode from a seek to 6 s differs from its decode from the
    // start between 6.5 and 7 s (the noise drawn since 5.5 s).
    let whole = try run("ffmpeg", ["-v", "error", "-i", path, "-f", "s16le", "-"]).stdout
    let seeked = try run("ffmpeg", ["-v", "error", "-ss", "6", "-i", path, "-f", "s16le", "-"])
      .stdout
    let half = 22050 * 2
    #expect(
      Array(whole.dropFirst(13 * half).prefix(half)) != Array(seeked.dropFirst(half).prefix(half)))
    let plan = try #require(
      AudioChunks.plan(
        .file(path), options: OpenOptions(), chunks: 3, alignment: 256, minimumSeconds: 0))
    let reports = try (0..<3).map { k throws(ExtractError) in
      try AudioChunks.decode(plan, chunk: k) { _ in }
    }
    #expect(reports.allSatisfy { $0.contiguous })
    #expect(reports[0].tail == reports[1].head && reports[1].tail == reports[2].head)
    #expect(reports[0].noiseUnused == true && reports[1].noiseUnused == false)
    #expect(!AudioChunks.joined(reports, plan: plan))
    #expect(try Waveform.measure(plan, samplesPerPixel: 256, split: false) == nil)
    let counted = try Waveform.measureCounting(
      .file(path), options: OpenOptions(), samplesPerPixel: 256, split: false, threads: 3)
    #expect(counted.chunks == 1)
    #expect(
      counted.waveform.values(bits: 16)
        == WaveformTests.bins(try Self.decoded(path), per: 256, split: false))
  }

  /// What is not cut: a raw MP3 (its demuxer seeks by estimate), a WAV, a short input, one
  /// thread.
  @Test func notPlanned() {
    func planned(_ path: String, chunks: Int = 2, minimumSeconds: Double = 0) -> Bool {
      AudioChunks.plan(
        .file(path), options: OpenOptions(), chunks: chunks, alignment: 256,
        minimumSeconds: minimumSeconds) != nil
    }
    #expect(!planned(sharedFixture("tone_cover.mp3")))
    #expect(!planned(fixture("pcm.wav")))
    #expect(!planned(fixture("steps_lc.m4a"), minimumSeconds: 20))
    #expect(!planned(fixture("steps_lc.m4a"), chunks: 1))
    #expect(planned(fixture("steps_lc.m4a")))
  }
}

/// A picture's columns reduced while decoding (no bins held) against the columns of the whole
/// waveform: equal for one pass and for chunks, for more and fewer columns than bins; an input
/// whose length the container does not state exactly keeps its bins.
@Suite struct WaveformColumnTests {
  @Test(arguments: [(256, 1000, false), (256, 37, true), (100, 1000, false), (4000, 7, true)])
  func columnsWhileDecoding(size: Int, width: Int, split: Bool) throws {
    let path = fixture("steps_lc.m4a")
    let whole = try Waveform.measureSequentially(
      .file(path), options: OpenOptions(), samplesPerPixel: size, split: split)
    let expected = WaveformColumns(whole, width: width)
    let one = try Waveform.measureSequentially(
      .file(path), options: OpenOptions(), samplesPerPixel: size, split: split, columns: width)
    #expect(one.columns == expected)
    #expect(one.waveform.data.isEmpty)
    #expect(one.bins == whole.length)
    let plan = try #require(
      AudioChunks.plan(
        .file(path), options: OpenOptions(), chunks: 3, alignment: size, minimumSeconds: 0))
    let chunked = try #require(
      try Waveform.measure(plan, samplesPerPixel: size, split: split, columns: width))
    #expect(chunked.columns == expected)
    #expect(chunked.waveform.data.isEmpty)
    #expect(chunked.bins == whole.length)
    var style = WaveformStyle()
    style.width = width
    #expect(
      style.draw(chunked.columns!, sampleRate: 16000, samplesPerPixel: size) == style.draw(whole))
  }

  @Test func withoutStatedLength() throws {
    let measured = try Waveform.measureSequentially(
      .file(fixture("pcm.wav")), options: OpenOptions(), samplesPerPixel: 7, split: false,
      columns: 100)
    #expect(measured.columns == nil)
    #expect(measured.waveform.length == (1000 + 6) / 7)
  }
}

/// `AudioChunks.drawsNoise`: whether a whole stream codes any band as noise (PNS), the check the
/// chunks make, after one decode of every packet and a flush (which in FFmpeg 5.1 clears the
/// overlap, not the noise generator: a stream that drew noise is told apart after it).
@Suite struct NoiseSurveyTests {
  /// By construction: steps_lc.m4a was coded with `-aac_pns 0` (no noise bands); noise_pns.m4a
  /// is white noise coded by FFmpeg's encoder with PNS (its decode from a seek differs from the
  /// decode from the start: `noiseSubstitutionFallsBack`); noise_late.m4a has noise only from
  /// 5.5 to 7 s of 12 (`lateNoiseFallsBack`), which the first 5 s the plan looks at miss.
  @Test func fixtures() {
    #expect(AudioChunks.drawsNoise(.file(fixture("steps_lc.m4a")), options: OpenOptions()) == false)
    #expect(AudioChunks.drawsNoise(.file(fixture("noise_pns.m4a")), options: OpenOptions()) == true)
    #expect(
      AudioChunks.drawsNoise(.file(fixture("noise_late.m4a")), options: OpenOptions()) == true)
    // Not AAC: no answer.
    #expect(AudioChunks.drawsNoise(.file(fixture("steps_mp3.mp4")), options: OpenOptions()) == nil)
  }

  /// The survey of docs/mediaframe.md ("How common is PNS"): every AAC track of the test-truth
  /// corpus (`make test-corpus`: $CORPUS_CACHE/corpus/manifest.tsv), with ffprobe's profile,
  /// channels and the encoder and handler tags, and the verdict (yes, no, n/a where the check
  /// cannot tell: HE-AAC, more than two channels), written to $CORPUS_CACHE/pns-survey.tsv. Runs
  /// only when CORPUS_CACHE is set: `CORPUS_CACHE=/work/corpus-cache swift test --filter
  /// NoiseSurveyTests`. Every AAC LC track of one or two channels must get a verdict.
  @Test(.enabled(if: ProcessInfo.processInfo.environment["CORPUS_CACHE"] != nil))
  func corpus() throws {
    let cache = ProcessInfo.processInfo.environment["CORPUS_CACHE"]!
    let manifest = try String(contentsOfFile: "\(cache)/corpus/manifest.tsv", encoding: .utf8)
    var rows = ["path\tprofile\tchannels\tseconds\tencoder\thandler\tident\tnoise"]
    for line in manifest.split(separator: "\n").dropFirst() {
      let path = "\(cache)/corpus/\(line.split(separator: "\t")[0])"
      let probe = try run(
        "ffprobe",
        [
          "-v", "error", "-select_streams", "a:0", "-show_entries",
          "stream=codec_name,profile,channels,duration:stream_tags=encoder,handler_name"
            + ":format_tags=encoder",
          "-of", "default=nw=1", path,
        ])
      var fields: [String: String] = [:]
      for entry in String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n") {
        let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
        if parts.count == 2, fields[parts[0]] == nil { fields[parts[0]] = parts[1] }
      }
      guard fields["codec_name"] == "aac" else { continue }
      let verdict = AudioChunks.drawsNoise(.file(path), options: OpenOptions())
      let channels = Int(fields["channels"] ?? "") ?? 0
      if fields["profile"] == "LC" && (1...2).contains(channels) {
        #expect(verdict != nil, "\(path)")
      }
      let encoder = fields["TAG:encoder"] ?? fields["TAG:ENCODER"] ?? ""
      // The encoder's own mark in the audio packets: FFmpeg's AAC encoder writes "Lavc" and
      // its version in a data stream element of the first frame, libfaac "libfaac" and its.
      let packets = try run(
        "ffmpeg",
        ["-nostdin", "-v", "error", "-i", path, "-map", "0:a:0", "-c", "copy", "-f", "data", "-"]
      ).stdout
      let ident = Self.marks(in: [UInt8](packets)).joined(separator: " ")
      rows.append(
        [
          String(line.split(separator: "\t")[0]), fields["profile"] ?? "", String(channels),
          fields["duration"] ?? "", encoder, fields["TAG:handler_name"] ?? "", ident,
          verdict.map { $0 ? "yes" : "no" } ?? "n/a",
        ].joined(separator: "\t"))
    }
    try (rows.joined(separator: "\n") + "\n").write(
      toFile: "\(cache)/pns-survey.tsv", atomically: true, encoding: .utf8)
    #expect(rows.count > 1)
  }

  /// The distinct "Lavc<version>" and "libfaac <version>" marks in `bytes`.
  static func marks(in bytes: [UInt8]) -> [String] {
    var found: [String] = []
    for prefix in ["Lavc", "libfaac "] {
      let needle = Array(prefix.utf8)
      var at = 0
      while at + needle.count <= bytes.count {
        if Array(bytes[at..<(at + needle.count)]) == needle {
          var end = at + needle.count
          while end < bytes.count, bytes[end] == UInt8(ascii: ".") || (48...57).contains(bytes[end])
          {
            end += 1
          }
          let mark = String(decoding: bytes[at..<end], as: UTF8.self)
          if end > at + needle.count, !found.contains(mark) { found.append(mark) }
          at = end
        } else {
          at += 1
        }
      }
    }
    return found
  }
}
