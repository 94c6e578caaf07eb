import Foundation
import Testing

/// `mediaframe --waveform` on inputs from the wild (docs/mediaframe.md, "Inputs from the
/// wild"), each made with the ffmpeg CLI at test time; the bins are checked against the ffmpeg
/// CLI's 16-bit decode of the same file, binned as audiowaveform does (min and max of each
/// 256 samples; mono here, so nothing is merged).
@Suite struct MediaFrameWaveformWildTests {
  /// Runs the ffmpeg CLI (quiet, overwriting) and requires it to succeed.
  static func ffmpeg(_ arguments: [String]) throws {
    let result = try run("ffmpeg", ["-v", "error", "-nostdin", "-y"] + arguments)
    try #require(result.status == 0, "ffmpeg \(arguments): \(result.stderr)")
  }

  /// The oracle: audiowaveform's bins of the ffmpeg CLI's 16-bit decode of mono `path`.
  static func oracleBins(_ path: String, per size: Int = 256) throws -> [Int] {
    let pcm = try ffmpegPCM(path, format: "s16le").withUnsafeBytes {
      Array($0.bindMemory(to: Int16.self)).map(Int.init)
    }
    return stride(from: 0, to: pcm.count, by: size).flatMap { start in
      let bin = pcm[start..<min(pcm.count, start + size)]
      return [bin.min()!, bin.max()!]
    }
  }

  /// The waveform file's data array.
  static func data(_ path: String) throws -> [Int] {
    let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
    return try #require((json as? [String: Any])?["data"] as? [Int])
  }

  /// A FLAC cut short in the middle of a frame: the decode skips the broken frame (as the
  /// ffmpeg CLI does) and the waveform is that of what decoded, exit 0 as before; but it said
  /// nothing, where media2wav warns. The record now carries `warnings` (and standard error
  /// repeats them), valid against the schema; a clean file has none.
  @Test func damagedInputWarns() throws {
    let directory = try TemporaryDirectory()
    let whole = directory.path("whole.flac")
    try Self.ffmpeg([
      "-f", "lavfi", "-i", "sine=f=440:d=2:sample_rate=48000", "-c:a", "flac", whole,
    ])
    let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
    let cut = directory.path("cut.flac")
    try bytes.prefix(bytes.count * 2 / 5).write(to: URL(fileURLWithPath: cut))
    let result = try run("mediaframe", [cut, "--waveform", directory.path("cut.json")])
    #expect(result.status == 0, "\(result.stderr)")
    try MediaFrameTests.validate(result)
    let record = try #require(try MediaFrameTests.records(result).first)
    let warnings = try #require(record["warnings"] as? [String])
    #expect(warnings.contains { $0.contains("error decoding") })
    #expect(result.stderr.contains("warning: error decoding"))
    #expect(try Self.data(directory.path("cut.json")) == (try Self.oracleBins(cut)))
    let clean = try run("mediaframe", [whole, "--waveform", directory.path("whole.json")])
    #expect(clean.status == 0 && !clean.text.contains("warnings") && clean.stderr.isEmpty)
  }

  /// Two inputs whose names differ only in their extension name one output (NAME.json beside
  /// them, or in --output-dir). The second used to fail with output_exists, or under --force
  /// to replace the first one's file, both records printed, one naming a file that held the
  /// other input's bins (which one depended on the workers' timing: at --jobs 2 the larger
  /// file starts first). Now the first in the inputs' order writes it and the other fails
  /// with duplicate_output, at every --jobs, from the arguments or --files-from.
  @Test(arguments: [["--jobs", "2"], ["--jobs", "1"], ["--jobs", "2", "--files-from"]])
  func twoInputsOneOutputName(options: [String]) throws {
    let directory = try TemporaryDirectory()
    let first = directory.path("a.wav")
    let second = directory.path("a.flac")
    // The second input is the larger one (started first at --jobs 2).
    try Self.ffmpeg([
      "-f", "lavfi", "-i", "sine=f=300:d=0.5:sample_rate=8000", "-c:a", "pcm_s16le", first,
    ])
    try Self.ffmpeg([
      "-f", "lavfi", "-i", "anoisesrc=d=3:r=48000", "-c:a", "flac", second,
    ])
    let out = directory.path("out")
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    var arguments = ["--waveform", "json", "--output-dir", out, "--force"]
    if options.last == "--files-from" {
      let list = directory.path("list.txt")
      try "\(first)\n\(second)\n".write(toFile: list, atomically: true, encoding: .utf8)
      arguments += options.dropLast() + ["--files-from", list]
    } else {
      arguments += options + [first, second]
    }
    let result = try run("mediaframe", arguments)
    #expect(result.status == 1)
    try MediaFrameTests.validate(result)
    let records = try MediaFrameTests.records(result)
    try #require(records.count == 2)
    #expect(records[0]["input"] as? String == first && records[0]["length"] as? Int == 16)
    #expect(records[1]["input"] as? String == second)
    let error = records[1]["error"] as? [String: Any]
    #expect(error?["code"] as? String == "duplicate_output")
    #expect((error?["message"] as? String)?.contains("the output of \(first)") == true)
    // The file holds the first input's bins: 4000 samples, 16 bins.
    #expect(try Self.data("\(out)/a.json") == (try Self.oracleBins(first)))
    #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["a.json"])
  }

  /// Standard input (`-`) was refused (usage error: "mediaframe reads files"), so a pipeline
  /// (`curl URL | mediaframe - --waveform peaks.json`) had to save the audio first. With
  /// `--waveform FILE` it is read now (once, in order; never planned into chunks), and the bins
  /// equal the ffmpeg CLI's decode of the same bytes; a picture of `-` or a waveform named
  /// after `-` stays a usage error.
  @Test func standardInput() throws {
    let directory = try TemporaryDirectory()
    let source = directory.path("tone.ogg")
    try Self.ffmpeg([
      "-f", "lavfi", "-i", "sine=f=440:d=1.5:sample_rate=48000", "-c:a", "libopus", source,
    ])
    let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
    let out = directory.path("peaks.json")
    let result = try run("mediaframe", ["-", "--waveform", out], stdin: bytes)
    #expect(result.status == 0, "\(result.stderr)")
    try MediaFrameTests.validate(result)
    let record = try #require(try MediaFrameTests.records(result).first)
    #expect(record["input"] as? String == "-" && record["sample_rate"] as? Int == 48000)
    #expect(try Self.data(out) == (try Self.oracleBins(source)))
    for arguments in [["-", "--waveform", "json"], ["-", "--at", "1", "-o", "x.jpg"]] {
      let refused = try run("mediaframe", arguments, stdin: bytes)
      #expect(refused.status == 64 && refused.stderr.contains("standard input"))
    }
  }

  /// A picture is held whole: --waveform-size 65536x65536 (each side within the parser's
  /// 65536) asked for 13 GB and died in the allocator (SIGABRT, status 134) under a 4 GB
  /// limit. Now it is a usage error (64) before any input is read; 65536x1024 (the most
  /// pixels allowed) is drawn at that size, as ffprobe reads it back.
  @Test func pictureSizeIsBounded() throws {
    let directory = try TemporaryDirectory()
    let source = directory.path("tone.wav")
    try Self.ffmpeg([
      "-f", "lavfi", "-i", "sine=f=440:d=0.2:sample_rate=8000", "-c:a", "pcm_s16le", source,
    ])
    let huge = try run(
      "mediaframe",
      [source, "--waveform", directory.path("huge.png"), "--waveform-size", "65536x65536"])
    #expect(huge.status == 64 && huge.stderr.contains("67108864 pixels"))
    #expect(!FileManager.default.fileExists(atPath: directory.path("huge.png")))
    let widest = directory.path("widest.png")
    let result = try run(
      "mediaframe", [source, "--waveform", widest, "--waveform-size", "65536x1024"])
    #expect(result.status == 0, "\(result.stderr)")
    let probe = try run(
      "ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", widest])
    #expect(probe.text.trimmingCharacters(in: .whitespacesAndNewlines) == "65536,1024")
  }
}
