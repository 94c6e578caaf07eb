import Foundation
import Testing

/// media2wav against the ffmpeg CLI (same libraries): the PCM byte for byte, whole files where the
/// header rules coincide, header validators, and the edge cases of the issue.
@Suite struct Media2WavTests {
  static let encodings = ["u8", "s16", "s24", "s32", "f32", "f64"]

  /// Runs media2wav writing `out.wav` in a temporary directory and returns the parsed file.
  func extract(_ fixture: String, _ options: [String] = [], in directory: TemporaryDirectory) throws
    -> WAVFile
  {
    let output = directory.path("out.wav")
    let result = try run(
      "media2wav",
      ["--quiet", "--force", "\(fixturesDirectory)/\(fixture)", "-o", output] + options)
    #expect(result.status == 0, "media2wav \(fixture) \(options): \(result.stderr)")
    return try WAVFile(Data(contentsOf: URL(fileURLWithPath: output)))
  }

  // 32-bit FLAC has no audio FFmpeg can read: ffmpeg writes nothing, media2wav fails
  // (Media2WavWildTests).
  @Test(arguments: audioFixtures.filter { $0 != "flac_32bit.flac" })
  func everyEncodingMatchesFFmpeg(_ fixture: String) throws {
    let directory = try TemporaryDirectory()
    for encoding in Self.encodings {
      let ours = try extract(fixture, ["--format", encoding], in: directory).samples
      let theirs = try ffmpegPCM("\(fixturesDirectory)/\(fixture)", format: rawFormat(encoding))
      #expect(ours == theirs, "\(fixture) \(encoding): \(ours.count) vs \(theirs.count) bytes")
    }
  }

  @Test(arguments: [
    (["--channels", "1"], [String](), ["-ac", "1"]), (["--channels", "2"], [], ["-ac", "2"]),
    (["--rate", "22050"], [], ["-ar", "22050"]),
    (["--rate", "48000", "--channels", "2"], [], ["-ar", "48000", "-ac", "2"]),
    (["--start", "0.5"], ["-ss", "0.5"], []),
    (["--start", "0.25", "--duration", "0.5"], ["-ss", "0.25", "-t", "0.5"], []),
    (["--start", "0:00.25", "--end", "0.75"], ["-ss", "0.25", "-t", "0.5"], []),
    (["--duration", "0.3"], ["-t", "0.3"], []),
    (["--start", "0.3", "--rate", "16000"], ["-ss", "0.3"], ["-ar", "16000"]),
  ])
  func optionsMatchFFmpeg(_ ours: [String], _ before: [String], _ after: [String]) throws {
    let directory = try TemporaryDirectory()
    for fixture in [
      "tone.m4a", "tone_cover.mp3", "tone.opus", "tone_24bit_96k.flac", "surround_5.1.ac3",
      "h264_30fps.mkv", "h264_60fps.ts", "tone_adts.aac",
    ] {
      let samples = try extract(fixture, ours, in: directory).samples
      let reference = try ffmpegPCM(
        "\(fixturesDirectory)/\(fixture)", before: before, after: after, format: "s16le")
      #expect(
        samples == reference, "\(fixture) \(ours): \(samples.count) vs \(reference.count) bytes")
    }
  }

  @Test(arguments: [
    ("tone.m4a", "s16", "pcm_s16le"), ("tone.m4a", "f32", "pcm_f32le"),
    ("tone.m4a", "s32", "pcm_s32le"),
    ("tone_24bit_96k.flac", "s24", "pcm_s24le"), ("surround_5.1.ac3", "s16", "pcm_s16le"),
    ("surround_5.1.ac3", "f64", "pcm_f64le"), ("tone_cover.mp3", "u8", "pcm_u8"),
    ("tone.opus", "s16", "pcm_s16le"),
  ])
  func wholeFileMatchesFFmpegBitexact(_ fixture: String, _ encoding: String, _ codec: String) throws
  {
    let directory = try TemporaryDirectory()
    let output = directory.path("ours.wav")
    let reference = directory.path("ffmpeg.wav")
    #expect(
      try run(
        "media2wav", ["-q", "\(fixturesDirectory)/\(fixture)", "--format", encoding, "-o", output]
      ).status == 0)
    let ff = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-i", "\(fixturesDirectory)/\(fixture)", "-map", "0:a:0",
        "-map_metadata", "-1", "-fflags", "+bitexact", "-acodec", codec, reference,
      ])
    #expect(ff.status == 0)
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: output))
        == Data(contentsOf: URL(fileURLWithPath: reference)))
  }

  @Test(arguments: [("s16", "pcm_s16le"), ("f32", "pcm_f32le"), ("s24", "pcm_s24le")])
  func pipeOutputMatchesFFmpeg(_ encoding: String, _ codec: String) throws {
    // Non-seekable output: sizes 0xFFFFFFFF, no fact chunk.
    let ours = try run(
      "media2wav", ["-q", "\(fixturesDirectory)/tone.m4a", "--format", encoding, "-o", "-"])
    #expect(ours.status == 0)
    let theirs = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-i", "\(fixturesDirectory)/tone.m4a", "-map", "0:a:0",
        "-map_metadata", "-1", "-fflags", "+bitexact", "-acodec", codec, "-f", "wav", "-",
      ])
    #expect(ours.stdout == theirs.stdout)
    let file = try WAVFile(ours.stdout)
    #expect(file.chunk("fact") == nil)
    #expect(file.chunks.last?.size == .max)
  }

  @Test func standardInputReservesRF64LikeFFmpegAuto() throws {
    // Read from a pipe the length is unknown, so the JUNK chunk is reserved (ffmpeg -rf64 auto).
    let directory = try TemporaryDirectory()
    let input = try Data(
      contentsOf: packageRoot.appendingPathComponent("\(fixturesDirectory)/tone_adts.aac"))
    let output = directory.path("ours.wav")
    #expect(try run("media2wav", ["-q", "-", "-o", output], stdin: input).status == 0)
    let reference = directory.path("ffmpeg.wav")
    let ff = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-i", "\(fixturesDirectory)/tone_adts.aac", "-map", "0:a:0",
        "-map_metadata", "-1", "-fflags", "+bitexact", "-rf64", "auto", "-acodec", "pcm_s16le",
        reference,
      ])
    #expect(ff.status == 0)
    let ours = try Data(contentsOf: URL(fileURLWithPath: output))
    #expect(ours == (try Data(contentsOf: URL(fileURLWithPath: reference))))
    #expect(try WAVFile(ours).chunks.first?.id == "JUNK")
  }

  @Test(arguments: ["tone.m4a", "tone_24bit_96k.flac", "surround_5.1.ac3", "tone_cover.mp3"])
  func validatorsAcceptTheHeaders(_ fixture: String) throws {
    let directory = try TemporaryDirectory()
    for encoding in Self.encodings {
      let output = directory.path("\(encoding).wav")
      #expect(
        try run(
          "media2wav",
          ["-q", "\(fixturesDirectory)/\(fixture)", "--format", encoding, "-o", output]
        ).status == 0)
      let info = try run("sndfile-info", [output])
      #expect(info.status == 0)
      #expect(
        sndfileComplaints(info.text).isEmpty, "sndfile-info \(fixture) \(encoding):\n\(info.text)")
      let soxi = try run("soxi", ["-V1", output])
      #expect(soxi.status == 0, "soxi \(fixture) \(encoding): \(soxi.stderr)")
      if encoding == "s16" || encoding == "u8", !fixture.contains("96k"), !fixture.contains("5.1") {
        // Python's wave module reads plain PCM (format tag 1) only.
        let samples = try WAVFile(Data(contentsOf: URL(fileURLWithPath: output))).samples.count
        let frames = try run(
          "python3", ["-c", "import wave,sys; print(wave.open(sys.argv[1]).getnframes())", output])
        #expect(
          Int(frames.text.trimmingCharacters(in: .whitespacesAndNewlines)) == samples
            / (encoding == "u8" ? 1 : 2) / channels(output))
      }
    }
  }

  /// sndfile-info's complaints (lines with `***` or "should be"), except its note that
  /// WAVE_FORMAT_EXTENSIBLE files "should have a 'fact' chunk": the WAVE specification requires
  /// `fact` for compressed formats only, and FFmpeg (whose headers we match byte for byte) writes
  /// none for extensible PCM.
  func sndfileComplaints(_ text: String) -> [Substring] {
    text.split(separator: "\n").filter {
      ($0.contains("***") || $0.contains("should be")) && !$0.contains("should have a 'fact' chunk")
    }
  }

  func channels(_ path: String) -> Int {
    let result = try? run("soxi", ["-c", path])
    return Int(result?.text.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 1
  }

  @Test func oddSampleCountGetsAPadByte() throws {
    // 22,051 mono u8 samples: an odd data chunk.
    let directory = try TemporaryDirectory()
    let file = try extract("tone.wav", ["--format", "u8", "--duration", "0.50002"], in: directory)
    #expect(file.samples.count == 22051)
    #expect(
      file.samples
        == (try ffmpegPCM("\(fixturesDirectory)/tone.wav", before: ["-t", "0.50002"], format: "u8"))
    )
    let bytes = try Data(contentsOf: URL(fileURLWithPath: directory.path("out.wav")))
    #expect(bytes.count == 44 + 22052)
    #expect(bytes.last == 0)
    // RIFF sizes exclude the pad byte, so an odd data chunk is correct; sndfile-info still notes
    // that it "should be an even number of bytes". What matters: the readers count every sample.
    let info = try run("sndfile-info", [directory.path("out.wav")])
    let complaints = sndfileComplaints(info.text).filter {
      !$0.contains("should be an even number of bytes")
    }
    #expect(complaints.isEmpty, "\(info.text)")
    #expect(info.text.contains("Frames      : 22051"))
    #expect(try run("soxi", ["-s", directory.path("out.wav")]).text.hasPrefix("22051"))
  }

  @Test func surroundKeepsItsMaskAndDownmixes() throws {
    let directory = try TemporaryDirectory()
    let kept = try extract("surround_5.1.ac3", [], in: directory)
    let format = try #require(kept.chunk("fmt "))
    #expect(format.count == 40)
    #expect([UInt8](format)[20..<24] == [0x0F, 0x06, 0, 0])  // 5.1(side) = 0x60F
    let stereo = try extract("surround_5.1.ac3", ["--channels", "2"], in: directory)
    #expect(try #require(stereo.chunk("fmt ")).count == 16)
  }

  @Test func zeroSamplesIsAValidEmptyWAV() throws {
    let directory = try TemporaryDirectory()
    let file = try extract("tone.wav", ["--start", "100"], in: directory)
    #expect(file.samples.isEmpty)
    #expect(file.chunks.first { $0.id == "data" }?.size == 0)
    let info = try run("sndfile-info", [directory.path("out.wav")])
    #expect(info.status == 0 && sndfileComplaints(info.text).isEmpty, "\(info.text)")
  }

  @Test func unreadableInputWritesNothing() throws {
    let directory = try TemporaryDirectory()
    let path = try unreadableCopy(named: "secret.wav", in: directory)
    #expect(chmod(directory.url.path, 0o777) == 0)  // the output directory stays writable
    let result = try runUnprivileged(
      "media2wav", [path, "-o", directory.path("out.wav"), "--json"])
    #expect(result.status == 1, "\(result.stderr)")
    #expect(value(try result.json(), "error", "code") as? String == "permission_denied")
    #expect(directory.contents == ["secret.wav"])
  }

  @Test func noAudioStreamFailsAndWritesNothing() throws {
    let directory = try TemporaryDirectory()
    let result = try run(
      "media2wav", ["\(fixturesDirectory)/orient_up.mp4", "-o", directory.path("x.wav"), "--json"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("no audio stream"))
    #expect(value(try result.json(), "error", "code") as? String == "no_audio_stream")
    #expect(directory.contents.isEmpty)
  }

  @Test func audioStreamWithoutSamplesFailsCleanly() throws {
    // Found by fuzzing: the stream exists but has no packets and no known format (no rate, no
    // channels); ffmpeg fails too.
    let directory = try TemporaryDirectory()
    let input = "\(fixturesDirectory)/hostile_truncated_audio.ts"
    #expect(
      try run("ffmpeg", ["-nostdin", "-v", "quiet", "-i", input, "-f", "s16le", "-"]).status != 0)
    let result = try run("media2wav", [input, "-o", directory.path("x.wav"), "--json"])
    #expect(result.status == 1)
    #expect(value(try result.json(), "error", "code") as? String == "no_decodable_audio")
    #expect(directory.contents.isEmpty)
  }

  @Test func streamSelection() throws {
    let directory = try TemporaryDirectory()
    let input = "\(fixturesDirectory)/two_audio.mkv"
    // Default: ffmpeg's own choice (the default-disposition stereo stream, not the 5.1 one).
    #expect(
      try extract("two_audio.mkv", [], in: directory).samples
        == (try ffmpegPCM(input, stream: nil, format: "s16le")))
    // Both default, #1 has more channels, but its packets start 8 s in: ffmpeg picks #0.
    let late = "\(fixturesDirectory)/late_surround.mkv"
    let lateDefault = try extract("late_surround.mkv", [], in: directory).samples
    #expect(lateDefault == (try ffmpegPCM(late, stream: nil, format: "s16le")))
    #expect(lateDefault == (try ffmpegPCM(late, stream: 0, format: "s16le")))
    let second = try ffmpegPCM(input, stream: 1, format: "s16le")
    #expect(try extract("two_audio.mkv", ["--stream", "1"], in: directory).samples == second)
    #expect(try extract("two_audio.mkv", ["--language", "fre"], in: directory).samples == second)
    let missing = try run("media2wav", [input, "--stream", "2", "-o", directory.path("y.wav")])
    #expect(missing.status == 1 && missing.stderr.contains("no audio stream #2"))
    let verbose = try run(
      "media2wav", ["--verbose", "--force", input, "-o", directory.path("z.wav")])
    #expect(verbose.stderr.contains("stream #0"))
  }

  @Test func corruptAndChangingInputsMatchFFmpeg() throws {
    let directory = try TemporaryDirectory()
    // Parameters change mid-stream (22.05 kHz mono → 44.1 kHz stereo): output fixed by the first frame.
    let switching = try run(
      "media2wav", ["\(fixturesDirectory)/format_switch.mp3", "-o", directory.path("switch.wav")])
    #expect(switching.status == 0)
    #expect(switching.stderr.contains("changed mid-stream"))
    let switched = try WAVFile(Data(contentsOf: URL(fileURLWithPath: directory.path("switch.wav"))))
    #expect(
      switched.samples == (try ffmpegPCM("\(fixturesDirectory)/format_switch.mp3", format: "s16le"))
    )
    // Garbage in the middle of an MP3: warn and go on, as ffmpeg does.
    var bytes = [UInt8](
      try Data(
        contentsOf: packageRoot.appendingPathComponent("\(fixturesDirectory)/tone_cover.mp3")))
    var state: UInt32 = 7
    for index in 15_000..<17_000 {
      state = state &* 1_103_515_245 &+ 12345
      bytes[index] = UInt8(truncatingIfNeeded: state >> 16)
    }
    let corrupt = directory.path("corrupt.mp3")
    try Data(bytes).write(to: URL(fileURLWithPath: corrupt))
    let result = try run("media2wav", [corrupt, "-o", directory.path("corrupt.wav")])
    #expect(result.status == 0)
    #expect(result.stderr.contains("warning"))
    let file = try WAVFile(Data(contentsOf: URL(fileURLWithPath: directory.path("corrupt.wav"))))
    #expect(file.samples == (try ffmpegPCM(corrupt, format: "s16le")))
    // A truncated MP4: what is there, like ffmpeg.
    let truncated = try extract("hostile_truncated.mp4", [], in: directory)
    #expect(
      truncated.samples
        == (try ffmpegPCM("\(fixturesDirectory)/hostile_truncated.mp4", format: "s16le")))
  }

  @Test func existingOutputIsKeptWithoutForce() throws {
    let directory = try TemporaryDirectory()
    let output = directory.path("keep.wav")
    try "precious".write(toFile: output, atomically: true, encoding: .utf8)
    let refused = try run("media2wav", ["\(fixturesDirectory)/tone.wav", "-o", output])
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("--force"))
    #expect(try String(contentsOfFile: output, encoding: .utf8) == "precious")
    #expect(
      try run("media2wav", ["--force", "\(fixturesDirectory)/tone.wav", "-o", output]).status == 0)
    #expect(try WAVFile(Data(contentsOf: URL(fileURLWithPath: output))).riffID == "RIFF")
    #expect(directory.contents == ["keep.wav"])  // no temporary files left
  }

  @Test func fullDiskIsReported() throws {
    // /dev/full answers every write with ENOSPC.
    let result = try run(
      "bash",
      [
        "-c", "\"$0\" -q \"$1\" -o - > /dev/full",
        productsDirectory.appendingPathComponent("media2wav").path, "\(fixturesDirectory)/tone.wav",
      ])
    #expect(result.status == 1)
    #expect(result.stderr.contains("No space left on device"))
  }

  @Test func unwritableDirectoryIsReported() throws {
    let result = try run(
      "media2wav", ["\(fixturesDirectory)/tone.wav", "-o", "/proc/mediatools-test.wav"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("creating /proc/mediatools-test.wav"))
  }

  @Test func interruptedRunLeavesNothing() throws {
    // Feed most of a 10 s WAV through a pipe that stays open, so media2wav has started writing
    // and then waits for input; SIGINT: exit 130, and neither output nor temporary file remains.
    let directory = try TemporaryDirectory()
    let source = directory.path("source.wav")
    let made = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=sample_rate=44100", "-t", "10",
        source,
      ])
    try #require(made.status == 0)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
    let output = directory.url.appendingPathComponent("out")
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    let process = Process()
    process.executableURL = productsDirectory.appendingPathComponent("media2wav")
    process.arguments = ["-q", "-", "-o", output.appendingPathComponent("partial.wav").path]
    let input = Pipe()
    process.standardInput = input
    process.standardError = FileHandle.nullDevice
    try process.run()
    let ended = interruptWhileWriting(
      process, feeding: input.fileHandleForWriting, bytes: bytes, outputUnder: output.path,
      signal: SIGINT)
    #expect(ended == 130)
    #expect((try FileManager.default.contentsOfDirectory(atPath: output.path)).isEmpty)
  }

  @Test func manyInputsWithJSONReports() throws {
    let directory = try TemporaryDirectory()
    let inputs = ["tone.m4a", "vp9_opus.webm", "orient_up.mp4", "tone_24bit_96k.flac"].map {
      "\(fixturesDirectory)/\($0)"
    }
    let result = try run(
      "media2wav",
      ["--json", "--jobs", "2", "--format", "auto", "--output-dir", directory.path("")] + inputs)
    #expect(result.status == 1)  // orient_up.mp4 has no audio
    let reports = try #require(try result.json() as? [[String: Any]])
    #expect(reports.count == 4)
    #expect(reports.map { $0["input"] as? String } == inputs)
    #expect(value(reports[0], "format", "encoding") as? String == "f32")  // AAC decodes to float
    #expect(value(reports[3], "format", "encoding") as? String == "s24")  // 24-bit FLAC
    #expect(value(reports[3], "samples") as? Int == 96000)
    #expect(value(reports[2], "error", "code") as? String == "no_audio_stream")
    #expect(Set(directory.contents) == ["tone.wav", "vp9_opus.wav", "tone_24bit_96k.wav"])
    let validation = try run(
      "python3", ["Scripts/validate-json.py", "schemas/media2wav.schema.json", "-"],
      stdin: result.stdout)
    #expect(validation.status == 0, "\(validation.stderr)")
  }

  @Test func defaultOutputIsNextToTheInput() throws {
    let directory = try TemporaryDirectory()
    try FileManager.default.copyItem(
      atPath: packageRoot.appendingPathComponent("\(fixturesDirectory)/tone.opus").path,
      toPath: directory.path("talk.opus"))
    #expect(try run("media2wav", ["-q", directory.path("talk.opus")]).status == 0)
    #expect(Set(directory.contents) == ["talk.opus", "talk.wav"])
  }

  @Test func usageErrors() throws {
    #expect(try run("media2wav", ["a.mp3", "b.mp3", "-o", "x.wav"]).status == 64)
    #expect(try run("media2wav", ["--format", "s12", "a.mp3"]).status == 64)
    #expect(try run("media2wav", ["--start", "1:75", "a.mp3"]).status == 64)
    #expect(try run("media2wav", ["-"]).status == 64)
    #expect(try run("media2wav", ["dir1/x.mp3", "dir2/x.mp3", "--output-dir", "out"]).status == 64)
  }

  @Test func gainAndFadesFollowFFmpegFilters() throws {
    // The same ramps as ffmpeg's volume and afade (linear) filters, within one LSB of rounding.
    let directory = try TemporaryDirectory()
    for (ours, filter) in [
      (["--gain", "-6"], "volume=-6dB"), (["--fade-in", "0.5"], "afade=t=in:d=0.5:curve=tri"),
    ] {
      let samples = try extract("tone.m4a", ours, in: directory).samples
      let reference = try ffmpegPCM(
        "\(fixturesDirectory)/tone.m4a", after: ["-af", filter], format: "s16le")
      #expect(samples.count == reference.count)
      let a = samples.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
      let b = reference.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
      let worst = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
      #expect(worst <= 2, "\(ours): largest difference \(worst)")
    }
    // A fade-out ends in (near) silence and leaves the start alone.
    let faded = try extract("tone.m4a", ["--fade-out", "0.5"], in: directory).samples
    let plain = try extract("tone.m4a", [], in: directory).samples
    #expect(faded.count == plain.count)
    #expect(faded.prefix(1000) == plain.prefix(1000))
    // A fade longer than the input holds back everything until the end: nothing may be lost.
    let longFade = try extract("tone.m4a", ["--fade-out", "5", "--format", "s24"], in: directory)
      .samples
    #expect(longFade.count == plain.count / 2 * 3)
    let tail = faded.suffix(8).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    #expect(tail.allSatisfy { abs(Int($0)) < 50 })
  }
}
