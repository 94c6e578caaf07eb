import Foundation
import Testing

/// mediaframe on what users do that the first tests did not: inputs whose names differ only in
/// their folder or extension written into one place, an animated WebP, a time just past the end.
@Suite struct MediaFrameWildTests {
  static let frames = "Tests/FrameFixtures"

  /// The centre pixel of an image, decoded by the ffmpeg CLI.
  static func centre(_ path: String) throws -> (Int, Int, Int) {
    let decoded = try run(
      "ffmpeg",
      [
        "-v", "error", "-nostdin", "-i", path, "-vf", "crop=1:1", "-f", "rawvideo", "-pix_fmt",
        "rgb24", "-",
      ])
    let bytes = [UInt8](decoded.stdout)
    guard bytes.count == 3 else { throw CocoaError(.fileReadCorruptFile) }
    return (Int(bytes[0]), Int(bytes[1]), Int(bytes[2]))
  }

  /// a/clip.mp4 (numbers.mp4) and b/clip.mkv (numbers_open.mkv, the larger: started first at
  /// --jobs 2) into one --output-dir both make clip.png. The first in the inputs' order keeps
  /// the name; the second fails with duplicate_output before anything is decoded. Before, with
  /// --force, both records said clip.png and the second silently replaced the first's picture
  /// (without --force the first failed with output_exists for a file this call had made).
  @Test(arguments: [false, true])
  func namesThatCollide(fromList: Bool) throws {
    let directory = try TemporaryDirectory()
    let fileManager = FileManager.default
    for folder in ["a", "b", "out"] {
      try fileManager.createDirectory(
        atPath: directory.path(folder), withIntermediateDirectories: true)
    }
    let first = directory.path("a/clip.mp4")
    let second = directory.path("b/clip.mkv")
    try fileManager.copyItem(atPath: "\(Self.frames)/numbers.mp4", toPath: first)
    try fileManager.copyItem(atPath: "\(Self.frames)/numbers_open.mkv", toPath: second)
    var arguments = [
      "--at", "0.5", "--output-dir", directory.path("out"), "--format", "png", "--force",
      "--jobs", "2",
    ]
    if fromList {
      let list = directory.path("list.txt")
      try "\(first)\n\(second)\n".write(toFile: list, atomically: true, encoding: .utf8)
      arguments += ["--files-from", list]
    } else {
      arguments = [first, second] + arguments
    }
    let result = try run("mediaframe", arguments)
    #expect(result.status == 1)
    try MediaFrameTests.validate(result)
    let records = try MediaFrameTests.records(result)
    #expect(records.count == 2)
    #expect(records[0]["output"] as? String == directory.path("out/clip.png"))
    let error = try #require(records[1]["error"] as? [String: Any])
    #expect(error["code"] as? String == "duplicate_output")
    #expect((error["message"] as? String)?.contains(first) == true)
    #expect(try fileManager.contentsOfDirectory(atPath: directory.path("out")) == ["clip.png"])
    // The picture is the first input's: numbers.mp4's frame 5 at 0.5 s (R = 5*32+16,
    // G = 16), not numbers_open.mkv's frame 12 (R = 4*32+16, G = 48).
    let (r, g, _) = try Self.centre(directory.path("out/clip.png"))
    #expect(abs(r - 176) <= 3 && abs(g - 16) <= 3)
  }

  /// FFmpeg 5.1's WebP decoder skips an animated WebP's ANIM/ANMF chunks and gives nothing: a
  /// decoder_error naming the limitation (was no_frame, "the picture did not decode"), and no
  /// file.
  @Test func animatedWebP() throws {
    let directory = try TemporaryDirectory()
    let result = try run(
      "mediaframe", ["\(Self.frames)/wild_anim.webp", "-o", directory.path("x.png")])
    #expect(result.status == 1)
    try MediaFrameTests.validate(result)
    #expect(result.text.contains("\"decoder_error\""))
    #expect(result.text.contains("animated WebP"))
    #expect(directory.contents.isEmpty)
  }

  /// A time just past the end says so with the places that show it (was "3.000 s is past the
  /// end of the video (duration 3.000 s)").
  @Test func justPastTheEnd() throws {
    let result = try run(
      "mediaframe", ["\(Self.frames)/numbers.mp4", "--at", "3.0004", "-o", "/nonexistent/x.png"])
    #expect(result.status == 1)
    #expect(result.text.contains("time_past_end"))
    #expect(result.text.contains("3.0004 s is past the end of the video (duration 3.0000 s)"))
  }

  /// A NUL-separated list read without --null: one entry holding every name and NULs. The
  /// system read the name up to the first NUL, and the first file's picture came out under
  /// the whole list's name with exit 0; no file has such a name: not_found, nothing written.
  @Test func listWithNulsReadAsLines() throws {
    let directory = try TemporaryDirectory()
    let list = directory.path("list")
    try Data("\(Self.frames)/numbers.mp4\0\(Self.frames)/best.mp4\0".utf8).write(
      to: URL(fileURLWithPath: list))
    let result = try run(
      "mediaframe", ["--files-from", list, "--output-dir", directory.url.path, "--format", "png"])
    #expect(result.status == 1)
    try MediaFrameTests.validate(result)
    #expect(result.text.contains("\"not_found\""))
    #expect(directory.contents == ["list"])
    // With --null, both pictures.
    let null = try run(
      "mediaframe",
      ["--files-from", list, "--null", "--output-dir", directory.url.path, "--format", "png"])
    #expect(null.status == 0, "\(null.stderr)")
    #expect(Set(directory.contents) == ["list", "numbers.png", "best.png"])
  }

  /// A sheet of a file cut short (wild_cut_short.webm: the header says 2 s, the frames end at
  /// 0.9 s, ffprobe) failed at its first tile past the last frame; its tiles are spread over
  /// the frames there are now (the middles of four parts of 0.9 s: frames 1, 3, 5, 7 at 0.1,
  /// 0.3, 0.5, 0.7 s, by construction), with a warning on standard error.
  @Test func sheetOfAFileCutShort() throws {
    let directory = try TemporaryDirectory()
    let result = try run(
      "mediaframe",
      [
        "\(Self.frames)/wild_cut_short.webm", "--sheet", "2x2", "--tolerance", "0", "-o",
        directory.path("s.png"),
      ])
    #expect(result.status == 0, "\(result.stderr)")
    try MediaFrameTests.validate(result)
    let record = try #require(try MediaFrameTests.records(result).first)
    let times = try #require(record["tile_times"] as? [Double])
    #expect(times.count == 4)
    for (time, expected) in zip(times, [0.1, 0.3, 0.5, 0.7]) {
      #expect(abs(time - expected) < 1e-9)
    }
    #expect(result.stderr.contains("cut short"))
    #expect(directory.contents == ["s.png"])
  }
}
