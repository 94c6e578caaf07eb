import Foundation
import Testing

/// `mediaprobe --scan` presents what a decoder outputs, where the packets' timestamps say more
/// (issue 9): each fixture is made by construction in Scripts/make-fixtures.sh ("probe-truth",
/// Tests/TruthFixtures), and each expected value comes from ffmpeg's decoder (the samples or
/// frames it outputs) or from the construction, never from mediaprobe.
@Suite struct MediaProbeScanTruthTests {
  static let directory = "Tests/TruthFixtures"

  /// mediaprobe's record of a fixture in Tests/TruthFixtures.
  static func probe(_ fixture: String, _ options: [String] = ["--scan"]) throws -> [String: Any] {
    let result = try run("mediaprobe", options + ["\(directory)/\(fixture)"])
    return try #require(
      try result.json() as? [String: Any], "mediaprobe \(fixture): \(result.stderr)")
  }

  /// The samples (per channel) ffmpeg's decoder outputs for the first audio stream.
  static func decodedSamples(_ fixture: String) throws -> Int {
    let result = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "quiet", "-i", "\(directory)/\(fixture)", "-map", "0:a:0", "-ac", "1",
        "-f", "s32le", "-",
      ])
    return result.stdout.count / 4
  }

  /// The frames ffmpeg's decoder outputs for the first video stream.
  static func decodedFrames(_ fixture: String) throws -> Int {
    let result = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "quiet", "-i", "\(directory)/\(fixture)", "-map", "0:v:0",
        "-fps_mode", "passthrough", "-f", "framecrc", "-",
      ])
    return result.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
  }

  /// A stream's scanned duration in seconds, and its time base's tick (1 / timescale).
  static func duration(_ stream: [String: Any]) throws -> (seconds: Double, tick: Double) {
    let ticks = try #require(value(stream, "duration", "value") as? Int)
    let timescale = try #require(value(stream, "duration", "timescale") as? Int)
    return (Double(ticks) / Double(timescale), 1 / Double(timescale))
  }

  /// Vorbis in Matroska: the first packet only primes the decoder's overlap and yields no
  /// samples, so the stream starts at the second packet (1.014 s of packets, 1.0115 s decoded).
  /// Matroska times are in milliseconds: the length is right within one tick.
  @Test func vorbisOutsideOggStartsAtTheSecondPacket() throws {
    let audio = try #require(firstStream(try Self.probe("vorbis.mkv"), "audio"))
    let samples = try Self.decodedSamples("vorbis.mkv")
    #expect(samples == 44_608)
    let (seconds, tick) = try Self.duration(audio)
    #expect(abs(seconds - Double(samples) / 44_100) <= tick, "\(seconds)")
  }
}
