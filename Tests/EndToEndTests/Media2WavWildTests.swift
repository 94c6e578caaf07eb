import Foundation
import Testing

/// Audio from the wild (issue 20): inputs whose audio FFmpeg cannot read must fail, never give an
/// empty or noisy WAV, and ISO/IEC 23003-5 PCM in MP4 is decoded as its `pcmC` box says.
@Suite struct Media2WavWildTests {
  static let audioFixtures = "Tests/AudioFixtures"

  // MARK: - Audio the demuxer cannot read (item 3)

  /// 32-bit FLAC: FFmpeg 5.1's FLAC parser finds no frame in it, so the raw `.flac` demuxer
  /// delivers no packet at all (ffmpeg decodes nothing, exit 0). The header declares 1.5 s.
  @Test func thirtyTwoBitFLACIsNoDecodableAudioInEveryPath() throws {
    let input = "\(fixturesDirectory)/flac_32bit.flac"
    let ffmpeg = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", input, "-f", "s16le", "-"])
    #expect(ffmpeg.stdout.isEmpty)
    let declared = try run(
      "ffprobe", ["-v", "error", "-show_entries", "stream=duration", "-of", "csv=p=0", input])
    #expect(declared.text.trimmingCharacters(in: .whitespacesAndNewlines) == "1.500000")
    let tone = "\(fixturesDirectory)/tone.wav"
    let directory = try TemporaryDirectory()
    let out = directory.path("out.wav")
    for arguments in [
      ["--json", input, "-o", out], ["--json", "--start", "0.5", input, "-o", out],
      ["--json", "--analyze", input, "-o", out], ["--analyze-only", input],
      ["-o", "-", input], ["mix", "--json", "-o", out, tone, input],
      ["mix", "--json", "-o", out, input, tone],
      ["mix", "--json", "-o", out, tone, input, "--loop"],
    ] {
      let result = try run("media2wav", arguments)
      #expect(result.status == 1, "\(arguments)")
      #expect(result.stderr.contains("no decodable audio"), "\(arguments): \(result.stderr)")
      if arguments.contains("--json") || arguments.contains("--analyze-only") {
        #expect(value(try result.json(), "error", "code") as? String == "no_decodable_audio")
      }
      if arguments.contains("-") { #expect(result.stdout.isEmpty, "no WAV on standard output") }
      #expect(directory.contents.isEmpty, "\(arguments)")
    }
  }

  /// The same file with no length in its STREAMINFO (total samples 0, as a streaming encoder
  /// writes it): nothing declares a length, but the demuxer read the whole file after the header
  /// and found no packet in it.
  @Test func thirtyTwoBitFLACWithoutALengthIsNoDecodableAudio() throws {
    let directory = try TemporaryDirectory()
    var bytes = [UInt8](
      try Data(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/flac_32bit.flac")))
    // fLaC, the STREAMINFO block header, then 10 bytes of block/frame sizes: 20 bits of rate,
    // 3 of channels, 5 of depth and 36 of total samples.
    try #require(bytes.count > 42 && bytes[0..<4] == [0x66, 0x4C, 0x61, 0x43])
    #expect(((bytes[20] & 1) << 4 | bytes[21] >> 4) + 1 == 32, "32 bits per sample")
    bytes[21] &= 0xF0
    for index in 22..<26 { bytes[index] = 0 }
    let input = directory.path("unknown_length.flac")
    try Data(bytes).write(to: URL(fileURLWithPath: input))
    let probe = try run(
      "ffprobe",
      ["-v", "error", "-show_entries", "stream=duration:format=duration", "-of", "csv=p=0", input])
    #expect(!probe.text.contains("1.5"), "no length left: \(probe.text)")
    #expect(
      try run("ffmpeg", ["-nostdin", "-v", "error", "-i", input, "-f", "s16le", "-"]).stdout
        .isEmpty)
    for arguments in [
      ["--json", input, "-o", directory.path("x.wav")], ["--analyze-only", input],
    ] {
      let result = try run("media2wav", arguments)
      #expect(result.status == 1)
      #expect(value(try result.json(), "error", "code") as? String == "no_decodable_audio")
    }
    #expect(directory.contents == ["unknown_length.flac"])
  }

  /// A stream that is really empty (FLAC and WAV holding 0 samples) still gives an empty WAV with
  /// ffmpeg's format chunk, byte for byte: nothing was there to decode. (With no length known
  /// ours also reserves a `JUNK` chunk for RF64.)
  @Test(arguments: [("flac", ["-c:a", "flac"]), ("wav", ["-c:a", "pcm_s16le"])])
  func emptyStreamsStillGiveAnEmptyWAV(_ ext: String, _ codec: [String]) throws {
    let directory = try TemporaryDirectory()
    let input = directory.path("empty.\(ext)")
    let made = try run(
      "ffmpeg",
      ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "anullsrc=r=48000:cl=mono", "-t", "0"]
        + codec + [input])
    try #require(made.status == 0, "\(made.stderr)")
    let ours = directory.path("ours.wav")
    let theirs = directory.path("ffmpeg.wav")
    let result = try run("media2wav", ["-q", input, "-o", ours])
    #expect(result.status == 0, "\(result.stderr)")
    let ffmpeg = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-i", input, "-map", "0:a:0", "-map_metadata", "-1",
        "-fflags", "+bitexact", "-acodec", "pcm_s16le", theirs,
      ])
    #expect(ffmpeg.status == 0)
    let ourFile = try WAVFile(Data(contentsOf: URL(fileURLWithPath: ours)))
    let theirFile = try WAVFile(Data(contentsOf: URL(fileURLWithPath: theirs)))
    #expect(ourFile.chunk("fmt ") != nil && ourFile.chunk("fmt ") == theirFile.chunk("fmt "))
    #expect(ourFile.chunk("data") == Data() && theirFile.chunk("data") == Data())
  }

  // MARK: - ISO/IEC 23003-5 PCM in MP4 (item 4)

  /// The fixtures (Scripts/make-ipcm.py via make-fixtures.sh): name, codec, bits, float, frames.
  static let pcmFixtures: [(String, String, Int, Bool, Int)] = [
    ("ipcm_s24be.mp4", "pcm_s24be", 24, false, 4000),
    ("ipcm_s16be.mp4", "pcm_s16be", 16, false, 4000),
    ("ipcm_s32le.mp4", "pcm_s32le", 32, false, 800),
    ("fpcm_f32le.mp4", "pcm_f32le", 32, true, 800),
    ("fpcm_f64be.mp4", "pcm_f64be", 64, true, 800),
  ]

  /// The value the construction stored for channel `channel`, frame `frame`, as a fraction of
  /// full scale: 0.25/(c+1) sin(2 pi 997 (c+1) n / 8000), rounded to the stored integer (scaled
  /// by 2^(bits-1) - 1, read back over 2^(bits-1) as every PCM decoder does) or float.
  static func constructed(channel: Int, frame: Int, bits: Int, float: Bool) -> Double {
    let c = Double(channel + 1)
    let x = 0.25 / c * sin(2 * Double.pi * 997 * c * Double(frame) / 8000)
    if float { return bits == 32 ? Double(Float(x)) : x }
    let scale = Double((Int64(1) << (bits - 1)) - 1)
    return (x * scale + 0.5).rounded(.down) / Double(Int64(1) << (bits - 1))
  }

  /// Every sample decodes to the value the construction wrote (exactly: f64 holds each of them),
  /// with the construction's length; before the fix 24-bit came out as 16-bit noise (the
  /// QuickTime-style layout also lost a third of each chunk) and float as codec `none`.
  @Test(arguments: pcmFixtures)
  func pcmInMP4DecodesToTheConstructedSamples(
    _ fixture: String, _ codec: String, _ bits: Int, _ float: Bool, _ frames: Int
  ) throws {
    let input = "\(Self.audioFixtures)/\(fixture)"
    let directory = try TemporaryDirectory()
    let output = directory.path("out.wav")
    let result = try run("media2wav", ["--json", "--format", "f64", input, "-o", output])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(value(try result.json(), "codec") as? String == codec)
    #expect(value(try result.json(), "samples") as? Int == frames)
    let data = try WAVFile(Data(contentsOf: URL(fileURLWithPath: output))).samples
    let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
    try #require(samples.count == frames * 2)
    var wrong = 0
    for frame in 0..<frames {
      for channel in 0..<2
      where samples[frame * 2 + channel]
        != Self.constructed(channel: channel, frame: frame, bits: bits, float: float)
      {
        wrong += 1
      }
    }
    #expect(wrong == 0, "\(fixture): \(wrong) of \(frames * 2) samples differ")
    // --format auto keeps the depth pcmC states.
    let auto = try run("media2wav", ["--json", "--format", "auto", input, "-o", output, "--force"])
    let expected = float ? (bits == 32 ? "f32" : "f64") : "s\(bits)"
    #expect(value(try auto.json(), "format", "encoding") as? String == expected)
  }

  /// mediaprobe reports what `pcmC` says, and `--verify` decodes every constructed sample.
  @Test(arguments: pcmFixtures)
  func mediaprobeReportsThePCMThatPcmCStates(
    _ fixture: String, _ codec: String, _ bits: Int, _ float: Bool, _ frames: Int
  ) throws {
    let result = try run("mediaprobe", ["--verify", "\(Self.audioFixtures)/\(fixture)"])
    let json = try #require(try result.json() as? [String: Any], "\(result.stderr)")
    let audio = try #require(firstStream(json, "audio"))
    #expect(value(audio, "codec", "name") as? String == codec)
    #expect(value(audio, "audio", "bits_per_sample") as? Int == bits)
    #expect(json["integrity"] as? String == "ok")
    #expect(value(audio, "decode", "samples") as? Int == frames)
  }

  /// The loudness of the 24-bit file is its 16-bit twin's (the issue: -6 LUFS of noise against
  /// the twin's real level), and the peak is the construction's: 0.25 of full scale.
  @Test func twentyFourBitPCMHasItsSixteenBitTwinsLoudness() throws {
    func analysis(_ fixture: String) throws -> (Double, Double) {
      let result = try run("media2wav", ["--analyze-only", "\(Self.audioFixtures)/\(fixture)"])
      let json = try result.json()
      let loudness = try #require(value(json, "analysis", "integrated_loudness") as? Double)
      let peak = try #require(value(json, "analysis", "sample_peak") as? Double)
      return (loudness, peak)
    }
    let (loudness24, peak24) = try analysis("ipcm_s24be.mp4")
    let (loudness16, peak16) = try analysis("ipcm_s16be.mp4")
    #expect(abs(loudness24 - loudness16) < 0.01, "\(loudness24) vs \(loudness16)")
    #expect(abs(peak24 - 20 * log10(0.25)) < 0.01 && abs(peak16 - 20 * log10(0.25)) < 0.01)
  }

  /// A `pcmC` that states a size ISO/IEC 23003-5 does not have (20 bits) is refused, not
  /// guessed: codec `none` in mediaprobe, `decoder_error` and no file from media2wav.
  @Test func anImpossiblePcmCSizeIsRefused() throws {
    let directory = try TemporaryDirectory()
    var bytes = [UInt8](
      try Data(
        contentsOf: packageRoot.appendingPathComponent("\(Self.audioFixtures)/ipcm_s24be.mp4")))
    let pcmC: [UInt8] = Array("pcmC".utf8)
    let at = try #require(
      (0..<(bytes.count - 4)).first { Array(bytes[$0..<$0 + 4]) == pcmC })
    #expect(bytes[at + 9] == 24)
    bytes[at + 9] = 20
    let input = directory.path("ipcm_20.mp4")
    try Data(bytes).write(to: URL(fileURLWithPath: input))
    let probed = try run("mediaprobe", [input])
    let probedJSON = try #require(try probed.json() as? [String: Any])
    let audio = try #require(firstStream(probedJSON, "audio"))
    #expect(value(audio, "codec", "name") as? String == "none")
    let result = try run("media2wav", ["--json", input, "-o", directory.path("out.wav")])
    #expect(result.status == 1)
    #expect(value(try result.json(), "error", "code") as? String == "decoder_error")
    #expect(directory.contents == ["ipcm_20.mp4"])
  }

  // MARK: - The last line, and progress on a terminal (rough edges)

  /// `m:ss.s`, as the issue writes the duration (`2:03.4`).
  static func clock(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10).rounded())
    let s = tenths / 10 % 60
    return "\(tenths / 600):\(s < 10 ? "0" : "")\(s).\(tenths % 10)"
  }

  /// Decimal kB/MB with one decimal (`23.7 MB`).
  static func size(_ bytes: Int) -> String {
    bytes < 1_000_000
      ? String(format: "%.1f kB", Double(bytes) / 1e3)
      : String(format: "%.1f MB", Double(bytes) / 1e6)
  }

  /// The line each written WAV ends with, from independent values: the sample count of ffmpeg's
  /// decoding, the rate and channels ffprobe reports, the file's size on disk.
  static func expectedLine(_ input: String, output: String, encoding: String = "s16", bytes: Int)
    throws -> String
  {
    let probe = try run(
      "ffprobe",
      [
        "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=sample_rate,channels",
        "-of", "csv=p=0", input,
      ])
    let fields = probe.text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
    try #require(fields.count == 2, "\(input) has an audio stream")
    let (rate, channels) = (try #require(Int(fields[0])), try #require(Int(fields[1])))
    let pcm = try ffmpegPCM(input, format: "s16le")
    let seconds = Double(pcm.count / (2 * channels)) / Double(rate)
    return "wrote \(output): \(clock(seconds)), \(rate) Hz, \(channels) ch, \(encoding), "
      + "\(size(bytes))\n"
  }

  /// Without a terminal too (the issue: "unless -q"), on standard error only: one line per WAV,
  /// in input order; standard output keeps only the JSON or the WAV data; none for `-q`,
  /// `--analyze-only` (nothing written) or a failed input.
  @Test func eachWrittenWAVEndsWithOneLine() throws {
    let directory = try TemporaryDirectory()
    let m4a = "\(fixturesDirectory)/tone.m4a"
    let ac3 = "\(fixturesDirectory)/surround_5.1.ac3"
    let out = directory.path("out.wav")
    func fileSize(_ path: String) throws -> Int {
      try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    let plain = try run("media2wav", [m4a, "-o", out])
    #expect(plain.status == 0 && plain.stdout.isEmpty)
    #expect(plain.stderr == (try Self.expectedLine(m4a, output: out, bytes: try fileSize(out))))

    let json = try run("media2wav", ["--json", "--force", m4a, "-o", out])
    #expect(try json.json() is [String: Any], "standard output is the JSON report alone")
    #expect(json.stderr == (try Self.expectedLine(m4a, output: out, bytes: try fileSize(out))))

    let piped = try run("media2wav", [m4a, "-o", "-"])
    #expect(try WAVFile(piped.stdout).samples.count > 0)
    #expect(
      piped.stderr
        == (try Self.expectedLine(m4a, output: "standard output", bytes: piped.stdout.count)))

    try FileManager.default.createDirectory(
      atPath: directory.path("many"), withIntermediateDirectories: false)
    let several = try run("media2wav", ["--output-dir", directory.path("many"), m4a, ac3])
    #expect(
      several.stderr
        == (try Self.expectedLine(
          m4a, output: directory.path("many/tone.wav"),
          bytes: try fileSize(directory.path("many/tone.wav"))))
        + (try Self.expectedLine(
          ac3, output: directory.path("many/surround_5.1.wav"),
          bytes: try fileSize(directory.path("many/surround_5.1.wav")))))

    let mixed = directory.path("mix.wav")
    let mix = try run("media2wav", ["mix", "-o", mixed, m4a, m4a, "--volume", "0.5"])
    #expect(mix.stderr == (try Self.expectedLine(m4a, output: mixed, bytes: try fileSize(mixed))))

    #expect(try run("media2wav", ["-q", "--force", m4a, "-o", out]).stderr.isEmpty)
    #expect(!(try run("media2wav", ["--analyze-only", m4a]).stderr.contains("wrote")))
    let failed = try run("media2wav", ["\(fixturesDirectory)/orient_up.mp4", "-o", out, "--force"])
    #expect(failed.status == 1 && !failed.stderr.contains("wrote"))
  }

  /// Runs `command` (a shell command line) under a pseudo-terminal (`script`), with its standard
  /// output sent to /dev/null: what it writes to a terminal's standard error.
  static func onATerminal(_ command: String) throws -> String {
    let result = try run("script", ["-qec", command + " >/dev/null", "/dev/null"])
    #expect(result.status == 0, "\(result.stderr)")
    return result.text
  }

  /// `mediaprobe --verify` shows a progress bar while it decodes, on a terminal only, and clears
  /// it; media2wav's bar gives way to its last line.
  @Test func progressOnATerminalOnly() throws {
    let input = "\(fixturesDirectory)/h264_60fps.ts"
    let binaries = productsDirectory.path
    let terminal = try Self.onATerminal("\(binaries)/mediaprobe --verify \(input)")
    #expect(terminal.hasPrefix("\r\(input) ["), "\(terminal.debugDescription)")
    #expect(terminal.contains("% ") && terminal.contains("× realtime"))
    #expect(terminal.hasSuffix("\r\u{1B}[K"), "cleared at the end")
    #expect(try run("mediaprobe", ["--verify", input]).stderr.isEmpty)
    #expect(
      try Self.onATerminal("\(binaries)/mediaprobe --verify -q \(input)").isEmpty)
    #expect(try Self.onATerminal("\(binaries)/mediaprobe \(input)").isEmpty, "no decoding, no bar")

    let directory = try TemporaryDirectory()
    let out = directory.path("out.wav")
    let audio = "\(fixturesDirectory)/tone.m4a"
    let wav = try Self.onATerminal("\(binaries)/media2wav \(audio) -o \(out)")
    let line = try Self.expectedLine(
      audio, output: out,
      bytes: try #require(try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int))
    // The terminal turns "\n" into "\r\n".
    #expect(wav.hasSuffix(line.replacingOccurrences(of: "\n", with: "\r\n")))
  }
}
