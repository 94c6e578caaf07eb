import Foundation
import Testing

/// Issue 26, class 4: MPEG-TS whose last audio frame was cut by the end of the file. A packet
/// shorter than the frame size its own header states is not a frame: not counted, not in the
/// duration, and the warning `trailing_data` says bytes are left over. Fixtures by construction
/// (Scripts/make-fixtures.sh `wild`, Tests/WildFixtures/ts_*_cut.ts).
@Suite struct CutLastFrameTests {
  static func scannedFrames(_ name: String) throws -> (count: Int, warnings: [String]) {
    let result = try run("mediaprobe", ["--scan", FilesFromTheWildTests.path(name)])
    #expect(result.status == 0)
    let json = try result.json()
    let count = try #require(value(json, "streams", 0, "frame_count") as? Int)
    return (count, value(json, "warnings") as? [String] ?? [])
  }

  /// AAC (ADTS): FFmpeg's decoder outputs nothing from the cut frame ("Input buffer exhausted
  /// before END element found"): the count is the frames it decodes.
  @Test func adtsInTransportStream() throws {
    let name = "ts_aac_cut.ts"
    let decoded = try run(
      "ffprobe",
      [
        "-v", "quiet", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0",
        FilesFromTheWildTests.path(name),
      ])
    // ffprobe prints the stream twice in a TS (under its program too): the first line.
    let first = decoded.text.split(separator: "\n").first.map(String.init) ?? ""
    let frames = try #require(Int(first))
    let scanned = try Self.scannedFrames(name)
    #expect(scanned.count == frames)
    #expect(scanned.warnings.contains("trailing_data"))
  }

  /// AC-3 and E-AC-3 at a constant bit rate: every whole frame has the size recorded beside the
  /// fixture (from the uncut stream), so the whole frames are the cut stream's bytes divided by
  /// it; the rest is a frame cut short (FFmpeg's decoder conceals it into a frame of its own:
  /// "incomplete frame").
  @Test(arguments: ["ts_ac3_cut.ts", "ts_eac3_cut.ts"])
  func ac3InTransportStream(_ name: String) throws {
    let sidecar = packageRoot.appendingPathComponent(FilesFromTheWildTests.path(name) + ".json")
    let frameBytes = try #require(
      (try JSONSerialization.jsonObject(with: Data(contentsOf: sidecar)) as? [String: Int])?[
        "frame_bytes"])
    let format = name.contains("eac3") ? "eac3" : "ac3"
    let stream = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "quiet", "-i", FilesFromTheWildTests.path(name), "-c", "copy", "-f",
        format, "-",
      ])
    let bytes = stream.stdout.count
    #expect(bytes % frameBytes != 0, "the cut falls inside a frame")
    let scanned = try Self.scannedFrames(name)
    #expect(scanned.count == bytes / frameBytes)
    #expect(scanned.warnings.contains("trailing_data"))
  }
}
