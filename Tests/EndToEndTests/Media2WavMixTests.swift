import Foundation
import Testing

/// `media2wav mix`: sums computed independently from the inputs' own samples, ffmpeg's `amix`
/// (normalize=0) on real fixtures, sample-continuous loops, clipping counts, lengths.
@Suite struct Media2WavMixTests {
  /// The interleaved f32 samples of a WAV's data chunk.
  static func floats(_ path: String) throws -> [Float] {
    let data = try WAVFile(Data(contentsOf: URL(fileURLWithPath: path))).samples
    return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
  }

  /// Little-endian f32 samples from raw bytes (ffmpeg's `-f f32le`).
  static func floats(raw data: Data) -> [Float] {
    data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
  }

  /// A mono f32 WAV at 48 kHz of `expression` (ffmpeg's aevalsrc), `seconds` long.
  static func signal(_ expression: String, seconds: Double, into path: String) throws {
    let made = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-f", "lavfi", "-i",
        "aevalsrc='\(expression)':s=48000:d=\(seconds)", "-c:a", "pcm_f32le", "-y", path,
      ])
    #expect(made.status == 0, "\(made.stderr)")
  }

  static func mix(_ arguments: [String]) throws -> (Run, [String: Any]) {
    let result = try run("media2wav", ["mix", "--json", "--force"] + arguments)
    let json = (try? result.json()) as? [String: Any] ?? [:]
    return (result, json)
  }

  /// Volumes, an offset, a step and a ramp, computed in the test from the inputs' samples: the
  /// mix is the sum the volumes say, within 1e-6 in float and 1 LSB in s16.
  @Test func sumsAreWhatTheVolumesSay() throws {
    let directory = try TemporaryDirectory()
    let a = directory.path("a.wav")
    let b = directory.path("b.wav")
    try Self.signal("0.5*sin(2*PI*440*t)", seconds: 2, into: a)
    try Self.signal("0.4*sin(2*PI*660*t)", seconds: 1, into: b)
    let out = directory.path("mix.wav")
    let (result, json) = try Self.mix([
      "-o", out, "--format", "f32", a, "--volume", "0.9", "--volume-at", "0.5@1.5", b, "--volume",
      "0.8", "--at", "0.5", "--ramp", "0.8:0.2@1+0.25",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let (sa, sb, mixed) = (try Self.floats(a), try Self.floats(b), try Self.floats(out))
    #expect(mixed.count == sa.count)  // --length first
    #expect(json["clipped_samples"] as? Int == 0)
    // The description, frame by frame: A at 0.9 then 0.5 from 1.5 s; B from 0.5 s at 0.8,
    // ramping linearly to 0.2 over [1, 1.25) s, then 0.2.
    var worst: Double = 0
    for frame in 0..<mixed.count {
      let volumeA = frame < 72000 ? 0.9 : 0.5
      var expected = volumeA * Double(sa[frame])
      let inB = frame - 24000
      if inB >= 0 && inB < sb.count {
        let volumeB =
          frame < 48000
          ? 0.8 : frame < 60000 ? 0.8 + (0.2 - 0.8) * Double(frame - 48000) / 12000 : 0.2
        expected += volumeB * Double(sb[inB])
      }
      worst = max(worst, abs(expected - Double(mixed[frame])))
    }
    #expect(worst < 1e-6, "largest difference \(worst)")
    // And in s16: within 1 LSB of the expected float sum converted.
    let s16 = directory.path("mix16.wav")
    _ = try Self.mix([
      "-o", s16, a, "--volume", "0.9", "--volume-at", "0.5@1.5", b, "--volume", "0.8", "--at",
      "0.5", "--ramp", "0.8:0.2@1+0.25",
    ])
    let ints = try WAVFile(Data(contentsOf: URL(fileURLWithPath: s16))).samples.withUnsafeBytes {
      Array($0.bindMemory(to: Int16.self))
    }
    #expect(ints.count == mixed.count)
    let off = zip(ints, mixed).map { abs(Int($0) - Int((Double($1) * 32768).rounded())) }.max()
    #expect((off ?? 99) <= 1)
  }

  /// Against ffmpeg's amix with normalize=0 on real fixtures: AAC 48 kHz with an MP3 at 44.1 kHz
  /// resampled, offset (adelay), at a volume; a looped input (-stream_loop); two mono inputs
  /// mixed into stereo. The volume is
  /// applied after resampling in both (volume before aresample differs by up to 2.5e-5: the
  /// resampler's float arithmetic is not linear to the last bit).
  @Test func equalsAmixWithoutNormalisation() throws {
    let a = "\(fixturesDirectory)/h264_25fps.mp4"
    let b = "\(fixturesDirectory)/tone_cover.mp3"
    let directory = try TemporaryDirectory()
    let short = directory.path("short.wav")
    let cut = try run(
      "ffmpeg",
      ["-nostdin", "-v", "error", "-i", "\(fixturesDirectory)/tone.wav", "-t", "0.3", short])
    #expect(cut.status == 0)
    let cases: [(ours: [String], theirs: [String])] = [
      (
        [a, b, "--volume", "0.3", "--at", "0.25"],
        [
          "-i", a, "-i", b, "-filter_complex",
          "[1:a]aresample=48000,volume=0.3,adelay=250:all=1[b];"
            + "[0:a][b]amix=inputs=2:normalize=0:duration=first",
        ]
      ),
      (
        [a, short, "--volume", "0.5", "--loop"],
        [
          "-i", a, "-stream_loop", "-1", "-i", short, "-filter_complex",
          "[1:a]aresample=48000,volume=0.5[b];[0:a][b]amix=inputs=2:normalize=0:duration=first",
        ]
      ),
      // Two mono inputs into stereo: each plays in both channels at its own level (pan copies
      // it), not at libswresample's -3 dB upmix.
      (
        ["--channels", "2", a, b, "--volume", "0.5"],
        [
          "-i", a, "-i", b, "-filter_complex",
          "[0:a]pan=stereo|c0=c0|c1=c0[a];[1:a]aresample=48000,pan=stereo|c0=c0|c1=c0,"
            + "volume=0.5[b];[a][b]amix=inputs=2:normalize=0:duration=first",
        ]
      ),
    ]
    for (number, (ours, theirs)) in cases.enumerated() {
      let out = directory.path("ours\(number).wav")
      let (result, _) = try Self.mix(["-o", out, "--format", "f32"] + ours)
      #expect(result.status == 0, "\(result.stderr)")
      let reference = try run(
        "ffmpeg", ["-nostdin", "-v", "error"] + theirs + ["-f", "f32le", "-"])
      #expect(reference.status == 0, "\(reference.stderr)")
      let (mine, amix) = (try Self.floats(out), Self.floats(raw: reference.stdout))
      #expect(mine.count == amix.count, "case \(number): \(mine.count) vs \(amix.count)")
      let worst = zip(mine, amix).map { abs(Double($0) - Double($1)) }.max() ?? 1
      #expect(worst < 1e-6, "case \(number): largest difference \(worst)")
    }
  }

  /// A loop is sample-continuous: the sample after the last of one play is the first of the next.
  @Test func loopsAreSeamless() throws {
    let directory = try TemporaryDirectory()
    let ramp = directory.path("ramp.wav")
    // 1000 frames of distinct values, so any gap or overlap shows.
    try Self.signal("(mod(n,1000)+1)/2000", seconds: 1000.0 / 48000, into: ramp)
    let out = directory.path("loop.wav")
    let (result, json) = try Self.mix([
      "-o", out, "--format", "f32", "--length", "0.0625", ramp, "--loop",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let source = try Self.floats(ramp)
    let looped = try Self.floats(out)
    #expect(source.count == 1000)
    #expect(looped.count == 3000)
    for frame in 0..<looped.count { #expect(looped[frame] == source[frame % 1000]) }
    #expect(value(json, "inputs", 0, "plays") as? Int == 3)
  }

  /// No normalisation: two full-scale sines add past full scale, and the samples that do are
  /// counted (from the inputs, in the test); --limit bends them with the documented curve.
  @Test func clippingIsCountedOrLimited() throws {
    let directory = try TemporaryDirectory()
    let a = directory.path("a.wav")
    try Self.signal("0.9*sin(2*PI*100*t)", seconds: 0.5, into: a)
    let samples = try Self.floats(a)
    let expected = samples.filter { abs(2 * $0) > 1 }.count
    let clipped = directory.path("clipped.wav")
    let (result, json) = try Self.mix(["-o", clipped, a, a])
    #expect(result.status == 0)
    #expect(json["clipped_samples"] as? Int == expected)
    #expect(expected > 0)
    let limited = directory.path("limited.wav")
    let (_, report) = try Self.mix(["-o", limited, "--format", "f32", "--limit", a, a])
    #expect(report["clipped_samples"] as? Int == expected)
    let bent = try Self.floats(limited)
    let threshold = 0.891_250_94
    for (index, value) in bent.enumerated() {
      let sum = 2 * Double(samples[index])
      let magnitude = abs(sum)
      let curve =
        magnitude <= threshold
        ? magnitude : threshold + (1 - threshold) * tanh((magnitude - threshold) / (1 - threshold))
      #expect(abs(Double(value) - (sum < 0 ? -curve : curve)) < 1e-6)
      #expect(abs(value) <= 1)
    }
  }

  /// Lengths: first, longest, shortest, seconds; a description file gives the same output as
  /// the command line.
  @Test func lengthsAndDescriptions() throws {
    let directory = try TemporaryDirectory()
    let a = directory.path("a.wav")
    let b = directory.path("b.wav")
    try Self.signal("0.1*sin(2*PI*440*t)", seconds: 1, into: a)
    try Self.signal("0.1*sin(2*PI*880*t)", seconds: 0.5, into: b)
    // a: 0-1 s; b: 0.25-0.75 s; b again: 0.9-1.4 s; a looping b does not count.
    for (length, frames) in [
      ("first", 48000), ("longest", 67200), ("shortest", 36000), ("0.6", 28800),
    ] {
      let out = directory.path("\(length).wav")
      let (result, json) = try Self.mix([
        "-o", out, "--length", length, a, b, "--at", "0.25", b, "--at", "0.9", b, "--loop",
      ])
      #expect(result.status == 0, "\(length): \(result.stderr)")
      #expect(json["samples"] as? Int == frames, "\(length)")
    }
    let description = directory.path("mix.json")
    try """
    {"inputs": [{"path": "\(a)", "volume": 0.5}, {"path": "\(b)", "at": 0.25, "fade_in": 0.1,
      "envelope": [{"time": 0.5, "duration": 0.1, "from": 1, "to": 0}]}], "format": "f32"}
    """.write(toFile: description, atomically: true, encoding: .utf8)
    let fromFile = directory.path("file.wav")
    let fromLine = directory.path("line.wav")
    #expect(try Self.mix(["-o", fromFile, "--description", description]).0.status == 0)
    #expect(
      try Self.mix([
        "-o", fromLine, "--format", "f32", a, "--volume", "0.5", b, "--at", "0.25", "--fade-in",
        "0.1", "--ramp", "1:0@0.5+0.1",
      ]).0.status == 0)
    #expect(try Self.floats(fromFile) == Self.floats(fromLine))
    let validation = try run(
      "python3", ["Scripts/validate-json.py", "schemas/media2wav-mix.schema.json", description])
    #expect(validation.status == 0, "\(validation.stderr)")
  }

  /// SIGINT or SIGTERM while a mix is written (one input is a FIFO that stalls after most of
  /// its bytes): exit 130 or 143, and neither the output nor a temporary file remains.
  @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
  func interruptedMixLeavesNothing(signal: Int32, status: Int32) throws {
    let directory = try TemporaryDirectory()
    let source = directory.path("source.wav")
    try Self.signal("0.2*sin(2*PI*440*t)", seconds: 10, into: source)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
    let fifo = directory.path("music.fifo")
    #expect(mkfifo(fifo, 0o600) == 0)
    let output = directory.url.appendingPathComponent("out")
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    let process = Process()
    process.executableURL = productsDirectory.appendingPathComponent("media2wav")
    process.arguments = [
      "mix", "-q", "-o", output.appendingPathComponent("mix.wav").path, source, fifo,
      "--volume", "0.5",
    ]
    process.standardError = FileHandle.nullDevice
    try process.run()
    let writer = try FileHandle(forWritingTo: URL(fileURLWithPath: fifo))
    let ended = interruptWhileWriting(
      process, feeding: writer, bytes: bytes, outputUnder: output.path, signal: signal)
    #expect(ended == status)
    #expect((try FileManager.default.contentsOfDirectory(atPath: output.path)).isEmpty)
  }

  @Test func usageErrors() throws {
    let a = "\(fixturesDirectory)/tone.wav"
    #expect(try run("media2wav", ["mix", "-o", "/tmp/x.wav", "--volume", "1", a]).status == 64)
    #expect(try run("media2wav", ["mix", "-o", "/tmp/x.wav", a, "--speed", "2"]).status == 64)
    #expect(try run("media2wav", ["mix", "-o", "/tmp/x.wav", a, "--loop"]).status == 64)
    #expect(try run("media2wav", ["mix", "-o", "/tmp/x.wav", a, "--ramp", "1:0"]).status == 64)
    let missing = try run("media2wav", ["mix", "--json", "-o", "/tmp/x.wav", a, "nope.mp3"])
    #expect(missing.status == 1)
    #expect(value(try missing.json(), "error", "code") as? String == "not_found")
    #expect(value(try missing.json(), "input") as? String == "nope.mp3")
  }

  /// A looping input must rewind: standard input from a pipe cannot, and says so; the existing
  /// output stays as it was. Without --loop the same pipe mixes.
  @Test func aLoopedPipeIsRefused() throws {
    let directory = try TemporaryDirectory()
    let output = directory.path("out.wav")
    let before = Data("keep me".utf8)
    try before.write(to: URL(fileURLWithPath: output))
    let a = "\(fixturesDirectory)/tone.wav"
    let song = try Data(contentsOf: URL(fileURLWithPath: "\(fixturesDirectory)/tone.ogg"))
    let looped = try run(
      "media2wav", ["mix", "--json", "--length", "3", "--force", "-o", output, a, "-", "--loop"],
      stdin: song)
    #expect(looped.status == 1, "\(looped.stderr)")
    #expect(value(try looped.json(), "error", "code") as? String == "invalid_option")
    #expect(value(try looped.json(), "input") as? String == "-")
    #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == before)
    let once = try run("media2wav", ["mix", "--force", "-o", output, a, "-"], stdin: song)
    #expect(once.status == 0, "\(once.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: output)) != before)
  }
}
