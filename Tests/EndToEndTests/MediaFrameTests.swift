import Foundation
import Testing

/// mediaframe end to end: the records (against the schema), the names of series and sheets,
/// atomic outputs, errors and exit codes. The pictures themselves are checked against the
/// ffmpeg CLI in FrameGrabTests.
@Suite struct MediaFrameTests {
  static let frames = "Tests/FrameFixtures"

  static func records(_ result: Run) throws -> [[String: Any]] {
    try result.text.split(separator: "\n").map {
      try #require(
        try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
  }

  static func validate(_ result: Run) throws {
    let validation = try run(
      "python3", ["Scripts/validate-json.py", "schemas/mediaframe.schema.json", "-"],
      stdin: result.stdout)
    #expect(validation.status == 0, "\(validation.stderr)")
  }

  @Test func posterRecord() throws {
    let directory = try TemporaryDirectory()
    let out = directory.path("poster.jpg")
    let result = try run(
      "mediaframe",
      ["\(Self.frames)/corners_right.mp4", "--at", "0:00.55", "-o", out, "--max-size", "20x20"])
    #expect(result.status == 0, "\(result.stderr)")
    try Self.validate(result)
    let record = try #require(try Self.records(result).first)
    #expect(record["kind"] as? String == "frame")
    #expect(record["requested_time"] as? Double == 0.55)
    #expect(record["actual_time"] as? Double == 0.5)
    #expect(record["orientation"] as? String == "right")
    #expect(record["rotation"] as? Int == 90)
    #expect(record["width"] as? Int == 13 && record["height"] as? Int == 20)
    // ffprobe reads the file written: a 13x20 JPEG.
    let probe = try run(
      "ffprobe",
      ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", out])
    #expect(probe.text.trimmingCharacters(in: .whitespacesAndNewlines) == "mjpeg,13,20")
    // The file exists now: without --force it is kept and the input fails.
    let again = try run("mediaframe", ["\(Self.frames)/numbers.mp4", "-o", out])
    #expect(again.status == 1)
    #expect(again.text.contains("\"output_exists\""))
    #expect(directory.contents == ["poster.jpg"])
  }

  /// Posters of several files at --jobs 2 start the largest file first (the last input here,
  /// with a missing one between): the records still come out in the inputs' order, each the
  /// frame the construction puts at 0.95 s (10 fps: 0.9 s; numbers_open.mkv 25 fps: 0.92 s),
  /// and the pictures are byte for byte those of --jobs 1 (lossless PNG).
  @Test func batchOfPostersInInputOrder() throws {
    let directory = try TemporaryDirectory()
    let inputs = [
      "\(Self.frames)/corners_up.mp4", "\(Self.frames)/numbers.mp4",
      directory.path("missing.mp4"), "\(Self.frames)/numbers_open.mkv",
    ]
    for jobs in ["2", "1"] {
      let out = directory.path("jobs\(jobs)")
      try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
      let result = try run(
        "mediaframe",
        inputs + ["--jobs", jobs, "--at", "0.95", "--format", "png", "--output-dir", out])
      #expect(result.status == 1, "\(result.stderr)")
      try Self.validate(result)
      let records = try Self.records(result)
      #expect(records.map { $0["input"] as? String } == inputs.map { Optional($0) })
      #expect(records.map { $0["actual_time"] as? Double } == [0.9, 0.9, nil, 0.92])
      #expect((records[2]["error"] as? [String: Any])?["code"] as? String == "not_found")
    }
    for name in ["corners_up.png", "numbers.png", "numbers_open.png"] {
      let two = try Data(contentsOf: URL(fileURLWithPath: directory.path("jobs2/\(name)")))
      let one = try Data(contentsOf: URL(fileURLWithPath: directory.path("jobs1/\(name)")))
      #expect(two == one, "\(name)")
    }
  }

  @Test func seriesAndSheetNames() throws {
    let directory = try TemporaryDirectory()
    let series = try run(
      "mediaframe",
      ["\(Self.frames)/numbers.mp4", "--every", "1", "-o", directory.path("t_%02d.webp")])
    #expect(series.status == 0, "\(series.stderr)")
    try Self.validate(series)
    let records = try Self.records(series)
    #expect(records.map { $0["actual_time"] as? Double } == [0, 1, 2])
    #expect(records.map { $0["index"] as? Int } == [1, 2, 3])
    #expect(directory.contents.sorted() == ["t_01.webp", "t_02.webp", "t_03.webp"])
    let sheet = try run(
      "mediaframe",
      [
        "\(Self.frames)/numbers.mp4", "--sheet", "3x2", "--timestamps", "--max-size", "32x32",
        "--output-dir", directory.url.path, "--format", "png", "--tolerance", "0",
      ])
    #expect(sheet.status == 0, "\(sheet.stderr)")
    try Self.validate(sheet)
    let record = try #require(try Self.records(sheet).first)
    #expect(record["output"] as? String == directory.path("numbers_sheet.png"))
    #expect(record["tile_times"] as? [Double] == [0.2, 0.7, 1.2, 1.7, 2.2, 2.7])
    #expect(record["width"] as? Int == 3 * 32 + 16 && record["height"] as? Int == 2 * 24 + 12)
    // By default a sheet takes the keyframe (at 0, 1, 2 s) within half the tiles' spacing
    // (0.25 s) of each time, else the exact frame (2.75 s has none: frame 27).
    let keyframes = try run(
      "mediaframe",
      [
        "\(Self.frames)/numbers.mp4", "--sheet", "3x2", "--max-size", "32x32", "--force", "-o",
        directory.path("k.png"),
      ])
    #expect(
      try Self.records(keyframes).first?["tile_times"] as? [Double] == [0, 1, 1, 2, 2, 2.7])
  }

  @Test func manyInputsAndErrors() throws {
    let directory = try TemporaryDirectory()
    let result = try run(
      "mediaframe",
      [
        "\(Self.frames)/numbers.mp4", "\(Self.frames)/pcm.wav", "Tests/Fixtures/tone_cover.mp3",
        "\(Self.frames)/missing.mp4", "--at", "2.5", "--output-dir", directory.url.path,
        "--jobs", "2",
      ])
    #expect(result.status == 1)
    try Self.validate(result)
    let records = try Self.records(result)
    #expect(records.count == 4)
    #expect(records[0]["actual_time"] as? Double == 2.5)
    let codes = records.dropFirst().map { ($0["error"] as? [String: Any])?["code"] as? String }
    #expect(codes == ["no_video", "no_video", "not_found"])
    #expect(result.stderr.contains("--cover"))
    #expect(directory.contents == ["numbers.jpg"])
    let late = try run("mediaframe", ["\(Self.frames)/numbers.mp4", "--at", "4", "-o", "x.jpg"])
    #expect(late.status == 1)
    #expect(late.text.contains("time_past_end") && late.text.contains("3.000 s"))
  }

  @Test func coverAndWaveform() throws {
    let directory = try TemporaryDirectory()
    let cover = try run(
      "mediaframe", ["Tests/Fixtures/tone_cover.mp3", "--cover", "-o", directory.path("c.png")])
    #expect(cover.status == 0, "\(cover.stderr)")
    try Self.validate(cover)
    let wave = try run(
      "mediaframe",
      [
        "\(Self.frames)/pcm.wav", "--waveform", directory.path("w.json"), "--samples-per-pixel",
        "100", "--bits", "8",
      ])
    #expect(wave.status == 0, "\(wave.stderr)")
    try Self.validate(wave)
    let data = try Data(contentsOf: URL(fileURLWithPath: directory.path("w.json")))
    let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(json["version"] as? Int == 2 && json["bits"] as? Int == 8)
    #expect(json["length"] as? Int == 10 && (json["data"] as? [Int])?.count == 20)
    let png = try run(
      "mediaframe",
      [
        "\(Self.frames)/pcm.wav", "--waveform", "png", "--output-dir", directory.url.path,
        "--waveform-size", "300x80", "--split-channels",
      ])
    #expect(png.status == 0, "\(png.stderr)")
    let probe = try run(
      "ffprobe",
      [
        "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0",
        directory.path("pcm.png"),
      ])
    #expect(probe.text.trimmingCharacters(in: .whitespacesAndNewlines) == "300,80")
  }

  @Test func usageErrors() throws {
    for arguments in [
      ["x.mp4", "--at", "1", "--best"], ["x.mp4", "-o", "x.gif"],
      ["a.mp4", "b.mp4", "-o", "x.jpg"],
      ["x.mp4", "--quality", "0"], ["x.mp4", "--max-size", "0x10"], ["x.mp4", "--bits", "12"],
    ] {
      let result = try run("mediaframe", arguments)
      #expect(result.status == 64, "\(arguments): \(result.stderr)")
    }
  }
}
