import Foundation
import Testing

/// media2wav --analyze / --analyze-only / --normalize against independent oracles: ffmpeg's
/// ebur128 (peak=true), silencedetect and astats filters, pyloudnorm 0.1.1, and signals whose
/// silent ranges and clipped runs are known by construction.
@Suite struct Media2WavAnalysisTests {
  /// A WAV of interleaved samples: float (format 3) or 16-bit PCM.
  static func writeWAV(
    _ path: String, float samples: [Float] = [], int16: [Int16] = [], channels: Int,
    rate: Int = 48000
  ) throws {
    let isFloat = int16.isEmpty
    let bytesPerSample = isFloat ? 4 : 2
    let data: Data =
      isFloat
      ? samples.withUnsafeBytes { Data($0) } : int16.withUnsafeBytes { Data($0) }
    var header = Data()
    func u32(_ v: Int) {
      withUnsafeBytes(of: UInt32(v).littleEndian) { header.append(contentsOf: $0) }
    }
    func u16(_ v: Int) {
      withUnsafeBytes(of: UInt16(v).littleEndian) { header.append(contentsOf: $0) }
    }
    header.append(contentsOf: Array("RIFF".utf8))
    u32(36 + data.count)
    header.append(contentsOf: Array("WAVEfmt ".utf8))
    u32(16)
    u16(isFloat ? 3 : 1)
    u16(channels)
    u32(rate)
    u32(rate * channels * bytesPerSample)
    u16(channels * bytesPerSample)
    u16(8 * bytesPerSample)
    header.append(contentsOf: Array("data".utf8))
    u32(data.count)
    try (header + data).write(to: URL(fileURLWithPath: path))
  }

  /// `seconds` of a sine at `frequency`, peak `level` dBFS, phase 90 degrees (no zero samples at
  /// whole milliseconds).
  static func tone(seconds: Double, level: Double, frequency: Double = 1000, rate: Int = 48000)
    -> [Float]
  {
    let gain = pow(10, level / 20)
    return (0..<Int(seconds * Double(rate))).map {
      Float(gain * cos(2 * Double.pi * frequency * Double($0) / Double(rate)))
    }
  }

  /// ffmpeg's ebur128 filter: integrated loudness to 3 decimals (the last frame's metadata) and
  /// the summary's true peak (printed to 1 decimal).
  static func ffmpegLoudness(_ input: String) throws -> (loudness: Double, truePeak: Double) {
    let result = try run(
      "ffmpeg",
      [
        "-nostdin", "-nostats", "-hide_banner", "-i", input, "-map", "0:a:0", "-af",
        "ebur128=peak=true:metadata=1,ametadata=print:key=lavfi.r128.I:file=-", "-f", "null", "-",
      ])
    let loudness = result.text.split(separator: "\n").last { $0.hasPrefix("lavfi.r128.I=") }
      .flatMap { Double($0.dropFirst("lavfi.r128.I=".count)) }
    let summary = result.stderr.components(separatedBy: "Summary:").last ?? ""
    let peak = summary.components(separatedBy: "True peak:").last?
      .split(separator: "\n").first { $0.contains("Peak:") }
      .flatMap { Double($0.split(separator: " ").dropFirst().first ?? "") }
    return (try #require(loudness, "\(input): \(result.stderr)"), try #require(peak))
  }

  /// pyloudnorm 0.1.1 (BS.1770-4) on ffmpeg's float decoding, with one of its weighting filters:
  /// `K-weighting` (its default, which reads about 0.04 LU low) or `DeMan` (the filter design
  /// libebur128 and ffmpeg use).
  static func pyloudnorm(_ input: String, channels: Int, rate: Int, filter: String) throws
    -> Double
  {
    let directory = try TemporaryDirectory()
    let raw = directory.path("samples.f32")
    let decoded = try run(
      "ffmpeg", ["-nostdin", "-v", "error", "-i", input, "-map", "0:a:0", "-f", "f32le", raw])
    #expect(decoded.status == 0)
    let script = """
      import sys, numpy, pyloudnorm
      x = numpy.fromfile(sys.argv[1], dtype='<f4').reshape(-1, int(sys.argv[2])).astype(numpy.float64)
      print(pyloudnorm.Meter(int(sys.argv[3]), filter_class=sys.argv[4]).integrated_loudness(x))
      """
    let result = try run("python3", ["-c", script, raw, "\(channels)", "\(rate)", filter])
    return try #require(
      Double(result.text.trimmingCharacters(in: .whitespacesAndNewlines)),
      "pyloudnorm: \(result.stderr)")
  }

  func analyzeOnly(_ input: String, _ options: [String] = []) throws -> [String: Any] {
    let result = try run("media2wav", ["--analyze-only", input] + options)
    #expect(result.status == 0, "\(input): \(result.stderr)")
    return try #require(try result.json() as? [String: Any])
  }

  /// A lossy, level-varying programme (AAC, 8 s, pink noise swelling by 12 dB) made by ffmpeg.
  static func makeProgramme(in directory: TemporaryDirectory) throws -> String {
    let path = directory.path("programme.m4a")
    let made = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-f", "lavfi", "-i",
        "anoisesrc=d=8:c=pink:r=48000:a=0.25:s=7,volume='0.25+0.75*abs(sin(t*0.6))':eval=frame",
        "-ac", "2", "-c:a", "aac", "-b:a", "128k", path,
      ])
    #expect(made.status == 0, "\(made.stderr)")
    return path
  }

  @Test func loudnessAndTruePeakMatchFFmpegAndPyloudnorm() throws {
    let directory = try TemporaryDirectory()
    var inputs = [
      "tone.m4a", "tone_cover.mp3", "tone.opus", "surround_5.1.ac3", "tone_24bit_96k.flac",
      "vp8_vorbis.webm", "tone.wav",
    ].map { "\(fixturesDirectory)/\($0)" }
    inputs.append(try Self.makeProgramme(in: directory))
    var worst = (ffmpegI: 0.0, ffmpegTP: 0.0, pyloudnorm: 0.0, pyloudnormDeMan: 0.0)
    for input in inputs {
      let report = try analyzeOnly(input)
      let loudness = try #require(value(report, "analysis", "integrated_loudness") as? Double)
      let peak = try #require(value(report, "analysis", "true_peak") as? Double)
      let reference = try Self.ffmpegLoudness(input)
      #expect(abs(loudness - reference.loudness) <= 0.1, "\(input): I \(loudness) vs \(reference)")
      // ffmpeg prints the true peak to one decimal: 0.05 of rounding on top of the 0.1.
      #expect(abs(peak - reference.truePeak) <= 0.15, "\(input): TP \(peak) vs \(reference)")
      worst.ffmpegI = max(worst.ffmpegI, abs(loudness - reference.loudness))
      worst.ffmpegTP = max(worst.ffmpegTP, abs(peak - reference.truePeak))
      let channels = try #require(value(report, "format", "channels") as? Int)
      let rate = try #require(value(report, "format", "sample_rate") as? Int)
      if channels <= 5 {  // pyloudnorm weighs at most 5 channels (L R C Ls Rs)
        for filter in ["K-weighting", "DeMan"] {
          let theirs = try Self.pyloudnorm(input, channels: channels, rate: rate, filter: filter)
          #expect(abs(loudness - theirs) <= 0.1, "\(input): I \(loudness) vs \(filter) \(theirs)")
          if filter == "DeMan" {
            worst.pyloudnormDeMan = max(worst.pyloudnormDeMan, abs(loudness - theirs))
          } else {
            worst.pyloudnorm = max(worst.pyloudnorm, abs(loudness - theirs))
          }
        }
      }
    }
    print("analysis vs oracles, largest differences: \(worst)")
  }

  @Test func silenceSpansMatchSilencedetect() throws {
    // Stereo 48 kHz: a -20 dBFS tone, zeroed on [1.5 s, 4 s) and [5 s, 6 s) (shorter than the
    // 2 s minimum), one channel only on [6.5 s, 9 s) (not silent), and from 10 s to the end.
    let directory = try TemporaryDirectory()
    let mono = Self.tone(seconds: 12.5, level: -20)
    var samples = mono.flatMap { [$0, $0] }
    for range in [72000..<192_000, 240_000..<288_000, 480_000..<600_000] {
      for frame in range { samples[2 * frame] = 0; samples[2 * frame + 1] = 0 }
    }
    for frame in 312_000..<432_000 { samples[2 * frame] = 0 }
    let path = directory.path("gaps.wav")
    try Self.writeWAV(path, float: samples, channels: 2)
    let report = try analyzeOnly(path, ["--silence-threshold", "-60", "--silence-duration", "2"])
    let spans = try #require(value(report, "analysis", "silence", "spans") as? [[String: Any]])
    #expect(
      spans.map { [$0["start_sample"] as? Int, $0["end_sample"] as? Int] } == [
        [72000, 192_000], [480_000, 600_000],
      ])
    let detect = try run(
      "ffmpeg",
      ["-nostdin", "-nostats", "-i", path, "-af", "silencedetect=n=-60dB:d=2", "-f", "null", "-"])
    let starts = detect.stderr.matches(of: /silence_start: ([0-9.]+)/).map { Double($0.1)! }
    let ends = detect.stderr.matches(of: /silence_end: ([0-9.]+)/).map { Double($0.1)! }
    #expect(starts.count == spans.count && ends.count == spans.count, "\(detect.stderr)")
    for (span, (start, end)) in zip(spans, zip(starts, ends)) {
      #expect(abs((span["start"] as? Double ?? -1) - start) < 1e-4)
      #expect(abs((span["end"] as? Double ?? -1) - end) < 1e-4)
    }
    #expect(value(report, "analysis", "all_silent") as? Bool == false)
    let silent = directory.path("silent.wav")
    try Self.writeWAV(silent, float: [Float](repeating: 0, count: 96000), channels: 2)
    let quiet = try analyzeOnly(silent)
    #expect(value(quiet, "analysis", "all_silent") as? Bool == true)
    #expect(value(quiet, "analysis", "integrated_loudness") == nil)
    #expect(value(quiet, "analysis", "true_peak") == nil)
  }

  @Test func clippedRunsMatchAstats() throws {
    // s16 stereo: a -12 dBFS tone with runs forced to full scale at known samples.
    let directory = try TemporaryDirectory()
    let tone = Self.tone(seconds: 2, level: -12).map { Int16(($0 * 32768).rounded()) }
    var samples = tone.flatMap { [$0, $0] }
    let runs: [(channel: Int, start: Int, length: Int, value: Int16)] = [
      (0, 1000, 4, .max), (1, 1002, 2, .min), (0, 50000, 1, .min), (1, 70000, 7, .max),
      (0, 90000, 3, .max),
    ]
    for run in runs {
      for frame in run.start..<run.start + run.length {
        samples[2 * frame + run.channel] = run.value
      }
    }
    let path = directory.path("clipped.wav")
    try Self.writeWAV(path, int16: samples, channels: 2)
    let result = try run(
      "media2wav", ["--json", "--analyze", path, "-o", directory.path("out.wav")])
    #expect(result.status == 0, "\(result.stderr)")
    let report = try #require(try result.json() as? [String: Any])
    let clipping = try #require(value(report, "analysis", "clipping") as? [String: Any])
    #expect(clipping["samples"] as? Int == runs.reduce(0) { $0 + $1.length })
    #expect(clipping["runs"] as? Int == runs.count)
    #expect(clipping["longest_run"] as? Int == 7)
    let first = try #require(clipping["first"] as? [[String: Any]])
    #expect(first.map { $0["sample"] as? Int } == runs.map(\.start).sorted())
    // astats (FFmpeg 5.1) on s16: "Peak count" is the samples at the channel's extreme levels,
    // "Flat factor" 20 log10(sum of run lengths squared / sum of run lengths) over their runs.
    let astats = try run(
      "ffmpeg", ["-nostdin", "-nostats", "-i", path, "-af", "astats", "-f", "null", "-"])
    let counts = astats.stderr.matches(of: /Peak count: ([0-9.]+)/).map { Double($0.1)! }
    let flatness = astats.stderr.matches(of: /Flat factor: ([0-9.]+)/).map { Double($0.1)! }
    #expect(counts.count == 3 && flatness.count == 3, "\(astats.stderr)")  // 2 channels, overall
    let perChannel = try #require(value(report, "analysis", "channels") as? [[String: Any]])
    #expect(
      perChannel.map { Double($0["clipped_samples"] as? Int ?? -1) } == Array(counts.prefix(2)))
    for channel in 0..<2 {
      let lengths = first.filter { $0["channel"] as? Int == channel }.map {
        Double($0["length"] as? Int ?? 0)
      }
      let factor = 20 * log10(lengths.map { $0 * $0 }.reduce(0, +) / lengths.reduce(0, +))
      #expect(abs(factor - flatness[channel]) < 1e-5, "channel \(channel): \(factor)")
    }
  }

  @Test func writtenAnalysisEqualsTheDecodedFloat() throws {
    // Writing f32 without effects writes the decoded samples: both measurements agree.
    let directory = try TemporaryDirectory()
    let input = "\(fixturesDirectory)/surround_5.1.ac3"
    let written = try run(
      "media2wav",
      ["--json", "--analyze", "--format", "f32", input, "-o", directory.path("out.wav")])
    #expect(written.status == 0, "\(written.stderr)")
    var ours = try #require(value(try written.json(), "analysis") as? [String: Any])
    var decoded = try #require(value(try analyzeOnly(input), "analysis") as? [String: Any])
    #expect(ours.removeValue(forKey: "measured") as? String == "written")
    #expect(decoded.removeValue(forKey: "measured") as? String == "decoded")
    // The DC offsets are sums in another order (other chunks): equal to their last digit.
    let offsets = [ours, decoded].map { analysis in
      (analysis["channels"] as? [[String: Any]] ?? []).map { $0["dc_offset"] as? Double ?? .nan }
    }
    #expect(zip(offsets[0], offsets[1]).allSatisfy { abs($0 - $1) <= 1e-9 })
    func withoutOffsets(_ analysis: [String: Any]) -> [String: Any] {
      var copy = analysis
      copy["channels"] = (analysis["channels"] as? [[String: Any]])?.map {
        $0.filter { $0.key != "dc_offset" }
      }
      return copy
    }
    ours = withoutOffsets(ours)
    decoded = withoutOffsets(decoded)
    #expect(NSDictionary(dictionary: ours) == NSDictionary(dictionary: decoded))
  }

  @Test func normalizationReachesTheTargetOrTheCeiling() throws {
    let directory = try TemporaryDirectory()
    // Limited by loudness: a level-varying programme to -16 LUFS.
    let programme = try Self.makeProgramme(in: directory)
    let out = directory.path("loud.wav")
    let result = try run("media2wav", ["--json", "--normalize", "-16", programme, "-o", out])
    #expect(result.status == 0, "\(result.stderr)")
    let report = try result.json()
    #expect(value(report, "normalization", "limited_by") as? String == "loudness")
    let measured = try Self.ffmpegLoudness(out)
    #expect(abs(measured.loudness + 16) <= 0.1, "ffmpeg measures \(measured.loudness) LUFS")
    let reported = try #require(
      value(report, "normalization", "output_integrated_loudness") as? Double)
    #expect(abs(reported + 16) <= 0.1)
    #expect(measured.truePeak <= -1 + 0.1)
    // Limited by the ceiling: a quiet tone with a few loud clicks cannot reach -14 LUFS under
    // -1 dBTP; the gain stops at the ceiling.
    var peaky = Self.tone(seconds: 6, level: -30, frequency: 440)
    for click in stride(from: 24000, to: peaky.count, by: 48000) { peaky[click] = 0.5 }
    let peakyPath = directory.path("peaky.wav")
    try Self.writeWAV(peakyPath, float: peaky, channels: 1)
    let limitedOut = directory.path("limited.wav")
    let limited = try run(
      "media2wav",
      ["--json", "--normalize", "-14", "--true-peak", "-1", peakyPath, "-o", limitedOut])
    #expect(limited.status == 0, "\(limited.stderr)")
    let limitedReport = try limited.json()
    #expect(value(limitedReport, "normalization", "limited_by") as? String == "true_peak")
    let ceiling = try #require(value(limitedReport, "normalization", "output_true_peak") as? Double)
    #expect(abs(ceiling + 1) <= 0.1, "output true peak \(ceiling)")
    let checked = try Self.ffmpegLoudness(limitedOut)
    #expect(abs(checked.truePeak + 1) <= 0.15, "ffmpeg: \(checked.truePeak) dBTP")
    for data in [result.stdout, limited.stdout] {
      try expectValid(data, schema: "media2wav.schema.json")
    }
  }

  @Test func reportsValidateAgainstTheSchema() throws {
    let directory = try TemporaryDirectory()
    let inputs = ["tone.m4a", "surround_5.1.ac3", "orient_up.mp4"].map {
      "\(fixturesDirectory)/\($0)"
    }
    let only = try run("media2wav", ["--analyze-only"] + inputs)
    #expect(only.status == 1)  // orient_up.mp4 has no audio
    let extracted = try run(
      "media2wav", ["--json", "--analyze", "--output-dir", directory.path("")] + inputs.prefix(2))
    let plain = try run("media2wav", ["--json", inputs[0], "-o", directory.path("plain.wav")])
    #expect(value(try plain.json(), "analysis") == nil)
    for data in [only.stdout, extracted.stdout, plain.stdout] {
      try expectValid(data, schema: "media2wav.schema.json")
    }
  }

  /// --analyze-only writes no file, so two inputs that would share an output name (tone.m4a
  /// and tone.wav) are both analysed, and nothing is written beside them.
  @Test func analyzeOnlyTakesInputsThatShareAName() throws {
    let directory = try TemporaryDirectory()
    for name in ["tone.m4a", "tone.wav"] {
      try FileManager.default.copyItem(
        atPath: packageRoot.appendingPathComponent("\(fixturesDirectory)/\(name)").path,
        toPath: directory.path(name))
    }
    let result = try run(
      "media2wav",
      ["--analyze-only", "--json", directory.path("tone.m4a"), directory.path("tone.wav")])
    #expect(result.status == 0, "\(result.stderr)")
    #expect((try result.json() as? [Any])?.count == 2)
    let left = try FileManager.default.contentsOfDirectory(atPath: directory.path("."))
    #expect(Set(left) == ["tone.m4a", "tone.wav"])
  }

  @Test func usageErrors() throws {
    let input = "\(fixturesDirectory)/tone.m4a"
    for arguments in [
      ["--analyze", input], ["--analyze-only", input, "-o", "x.wav"],
      ["--analyze-only", "--format", "s24", input], ["--normalize", "-16", "--gain", "3", input],
      ["--true-peak", "-1", input], ["--normalize", "5", input],
      ["--silence-duration", "3", input],
      ["--analyze-only", "--quiet", input], ["--normalize", "-16", "-", "-o", "x.wav"],
    ] {
      #expect(try run("media2wav", arguments).status == 64, "\(arguments)")
    }
  }
}
