import Foundation
import Testing

/// The duration a player presents and the span the samples cover (issue 26): two exact answers,
/// never one silently replacing the other. Fixtures by construction (Scripts/make-fixtures.sh
/// `wild`, Tests/WildFixtures/span_*); the declared durations are ffprobe's `format.duration`
/// (libavformat's reading of the movie header and the Segment Duration) and the construction.
@Suite struct DurationAndSpanTests {
  static func probe(_ name: String, scan: Bool) throws -> [String: Any] {
    let result = try run(
      "mediaprobe", (scan ? ["--scan"] : []) + [FilesFromTheWildTests.path(name)])
    #expect(result.status == 0)
    return try #require(try result.json() as? [String: Any])
  }

  static func ffprobeDuration(_ name: String) throws -> Double {
    let result = try run(
      "ffprobe",
      [
        "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
        FilesFromTheWildTests.path(name),
      ])
    return try #require(Double(result.text.trimmingCharacters(in: .whitespacesAndNewlines)))
  }

  static func seconds(_ json: [String: Any], _ key: String) -> Double? {
    value(json, key, "seconds") as? Double
  }

  /// 2 s of video (50 frames at 25 fps) and AAC whose movie header was set to 1500/1000 s: the
  /// duration is the header's, exactly, with and without --scan; the span is the samples' 2 s;
  /// the warning names the difference only when both are known (--scan).
  @Test func movieHeaderShorterThanTheSamples() throws {
    let name = "span_movie_header_short.mp4"
    #expect(try Self.ffprobeDuration(name) == 1.5)
    let plain = try Self.probe(name, scan: false)
    #expect(value(plain, "duration", "value") as? Int == 1500)
    #expect(value(plain, "duration", "timescale") as? Int == 1000)
    #expect(plain["span"] is NSNull)
    #expect((plain["warnings"] as? [String])?.contains("container_duration_differs") == false)

    let scanned = try Self.probe(name, scan: true)
    #expect(value(scanned, "duration", "value") as? Int == 1500)
    #expect(value(scanned, "duration", "timescale") as? Int == 1000)
    #expect(value(scanned, "duration", "source") as? String == "container")
    #expect(Self.seconds(scanned, "span") == 2)
    #expect(value(scanned, "span", "start") as? Double == 0)
    #expect(value(scanned, "span", "end") as? Double == 2)
    #expect((scanned["warnings"] as? [String])?.contains("container_duration_differs") == true)
  }

  /// Video and audio of 2 s with a subtitle lasting to 3 s in Matroska: the Segment Duration
  /// covers the subtitle (ffprobe's format duration, at least the construction's 3 s) and is the
  /// duration; the span ends within one frame (40 ms) of the construction's 2 s.
  @Test func subtitleLongerThanAudioAndVideo() throws {
    let name = "span_subtitle_longer.mkv"
    let declared = try Self.ffprobeDuration(name)
    #expect(declared >= 3)
    let scanned = try Self.probe(name, scan: true)
    let duration = try #require(Self.seconds(scanned, "duration"))
    #expect(abs(duration - declared) < 1e-6)
    let end = try #require(value(scanned, "span", "end") as? Double)
    #expect(abs(end - 2) <= 0.04, "span ends at \(end)")
    #expect((scanned["warnings"] as? [String])?.contains("container_duration_differs") == true)
  }

  /// Where the header and the samples agree (a plain 1 s MP4 made by ffmpeg), --scan gives the
  /// same duration as without it, a span of the construction's 1 s, and no warning.
  @Test func agreeingFileHasNoWarning() throws {
    let result = try run("mediaprobe", ["--scan", "Tests/Fixtures/h264_25fps.mp4"])
    let json = try #require(try result.json() as? [String: Any])
    #expect(Self.seconds(json, "duration") == 1)
    #expect(Self.seconds(json, "span") == 1)
    #expect((json["warnings"] as? [String])?.contains("container_duration_differs") == false)
  }

  /// An AVI whose header claims 75 video frames (3 s at 25 fps; ffprobe says 3.000) over the 2 s
  /// it stores: the video lasts to the last frame FFmpeg's decoder outputs plus one frame (its
  /// pts in the stream's 1/25 time base, from framecrc), the file as long as its longest stream,
  /// source `index`, with the warning.
  @Test func aviHeaderLongerThanItsFrames() throws {
    let name = "avi_header_longer.avi"
    #expect(try Self.ffprobeDuration(name) == 3)
    let crc = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-i", FilesFromTheWildTests.path(name), "-map", "0:v", "-f",
        "framecrc", "-",
      ])
    let lastPTS = try #require(
      crc.text.split(separator: "\n").filter { $0.hasPrefix("0,") }.last.flatMap {
        Int($0.split(separator: ",")[2].trimmingCharacters(in: .whitespaces))
      })
    let json = try Self.probe(name, scan: false)
    let video = try #require(value(json, "streams", 0, "duration") as? [String: Any])
    #expect(video["source"] as? String == "index")
    #expect(abs((video["seconds"] as? Double ?? 0) - Double(lastPTS + 1) / 25) < 1e-9)
    #expect(value(json, "duration", "source") as? String == "index")
    #expect(abs((Self.seconds(json, "duration") ?? 0) - Double(lastPTS + 1) / 25) < 1e-9)
    #expect((json["warnings"] as? [String])?.contains("container_duration_differs") == true)
  }
}
