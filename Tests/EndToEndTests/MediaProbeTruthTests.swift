import Foundation
import Testing

/// Durations, counts and rates where the headers (and so ffprobe or MediaInfo) are wrong: each
/// fixture is made by construction in Scripts/make-fixtures.sh ("Probe truth"), and each expected
/// value comes from that construction or from an oracle independent of our code: ffmpeg's decoder
/// (frames and samples it outputs), ffprobe's packet list, MediaInfo.
@Suite struct MediaProbeTruthTests {
  /// The frames (video) or samples (audio, per channel) ffmpeg's decoder outputs for a stream.
  static func decoded(_ fixture: String, _ map: String, audio: Bool) throws -> Int {
    let path = "\(fixturesDirectory)/\(fixture)"
    if audio {
      let result = try run(
        "ffmpeg",
        ["-nostdin", "-v", "error", "-i", path, "-map", map, "-ac", "1", "-f", "s16le", "-"])
      #expect(result.status == 0, "\(result.stderr)")
      return result.stdout.count / 2
    }
    let result = try run(
      "ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", map, "-f", "framecrc", "-"])
    #expect(result.status == 0, "\(result.stderr)")
    return result.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
  }

  /// MediaInfo's duration of the file, in seconds (it prints milliseconds).
  static func mediainfoSeconds(_ fixture: String) throws -> Double {
    let result = try run(
      "mediainfo", ["--Inform=General;%Duration%", "\(fixturesDirectory)/\(fixture)"])
    return try #require(Double(result.text.trimmingCharacters(in: .whitespacesAndNewlines))) / 1000
  }

  /// An exact duration as (value, timescale) reduced, so 2500/1000 and 5/2 compare equal.
  static func exact(_ json: Any?) -> String? {
    guard let count = value(json, "value") as? Int, let scale = value(json, "timescale") as? Int,
      scale > 0
    else { return nil }
    var (a, b) = (count, scale)
    while b != 0 { (a, b) = (b, a % b) }
    return "\(count / a)/\(scale / a)"
  }

  /// Streams that start at different times: the file lasts from the earliest start of any to the
  /// latest end of any (video 0-2.000 s, audio 0.500-2.500 s; FLV video 0.300-2.300 s).
  @Test(arguments: [
    ("offset_audio_late.mkv", "5/2"), ("offset_audio_late.mov", "5/2"),
    ("offset_video_late.flv", "23/10"),
  ])
  func scanSpansEveryStream(_ fixture: String, _ seconds: String) throws {
    let json = try probe(fixture, ["--scan"])
    #expect(Self.exact(json["duration"]) == seconds, "\(fixture)")
    let video = try #require(firstStream(json, "video"))
    #expect(video["frame_count"] as? Int == 60)
    #expect(Self.exact(video["duration"]) == "2/1")
    let audio = try #require(firstStream(json, "audio"))
    #expect(Self.exact(audio["duration"]) == "2/1", "\(fixture)")
  }

  /// An edit list that starts the presentation inside the stored GOP and ends it early: the
  /// presented frames are those whose display interval overlaps the edit's range of the sample
  /// table (issue 26; the oracle reads the boxes: 77, frames 43 to 119, the edit starting
  /// half-way through frame 43), one more than ffmpeg's decoder outputs (it drops the frame the
  /// edit starts inside); the file lasts what the edit says (MediaInfo reads it too), and the
  /// rate stays the recorded 30 fps.
  @Test func editListsArePresentedAsEdited() throws {
    let oracle = try run(
      "python3",
      ["Tests/PresentedFixtures/mp4_presented.py", "\(fixturesDirectory)/editlist_trim.mp4"])
    let tracks = try #require(try oracle.json() as? [[String: Any]])
    let frames = try #require(
      tracks.first { $0["handler"] as? String == "vide" }?["presented_samples"] as? Int)
    #expect(frames == 77)
    #expect(try Self.decoded("editlist_trim.mp4", "0:v", audio: false) == frames - 1)
    let edited = try Self.mediainfoSeconds("editlist_trim.mp4")
    #expect(abs(edited - 2.55) < 0.001)
    for options in [[], ["--scan"]] {
      let json = try probe("editlist_trim.mp4", options)
      let duration = try #require(value(json, "duration", "seconds") as? Double)
      #expect(abs(duration - edited) < 1e-9, "\(options): \(duration)")
      let video = try #require(firstStream(json, "video"))
      #expect(video["frame_count"] as? Int == frames, "\(options)")
      #expect(ratio(value(video, "video", "frame_rate", "best")) == "30/1", "\(options)")
    }
  }

  /// Fragmented MP4 without a scan: the movie's samples plus the fragments', from the boxes.
  @Test(arguments: [
    ("fragmented_unknown_duration.mp4", 25, 1.0), ("fragmented_partial.mp4", 60, 2.0),
  ])
  func fragmentsAreCounted(_ fixture: String, _ frames: Int, _ seconds: Double) throws {
    let plain = try probe(fixture)
    #expect(value(plain, "duration", "seconds") as? Double == seconds, "\(fixture)")
    #expect(value(plain, "duration", "estimated") as? Bool == false)
    let video = try #require(firstStream(plain, "video"))
    #expect(video["frame_count"] as? Int == frames, "\(fixture)")
    #expect(video["frame_count_source"] as? String == "fragments")
    #expect(try Self.decoded(fixture, "0:v", audio: false) == frames)
    #expect(abs(try Self.mediainfoSeconds(fixture) - seconds) < 0.001)
  }

  /// AVI headers count what is not stored (dwLength: 51 video frames for 50; PCM audio in
  /// samples): the index's count is reported, as ffprobe's packet list shows.
  @Test(arguments: [("avi_mp3.avi", 0, 1), ("avi_pcm.avi", 0, 1)])
  func aviCountsWhatIsStored(_ fixture: String, _ videoIndex: Int, _ audioIndex: Int) throws {
    let presented = try MediaProbeVersusFFprobeTests.presentedPackets(fixture)
    let streams = try #require(try probe(fixture)["streams"] as? [[String: Any]])
    #expect(streams[videoIndex]["frame_count"] as? Int == presented[videoIndex])
    #expect(streams[videoIndex]["frame_count"] as? Int == 50)  // 2 s at 25 fps
    #expect(streams[audioIndex]["frame_count"] as? Int == presented[audioIndex])
    #expect(try Self.decoded(fixture, "0:v", audio: false) == 50)
  }

  /// An MP3 with a LAME tag lasts what a gapless decoder outputs (2.000 s by construction), not
  /// every frame's samples (ffprobe: 2.0376 s); the Xing frame is not counted as audio.
  @Test func mp3IsGapless() throws {
    let samples = try Self.decoded("tone_cover.mp3", "0:a", audio: true)
    #expect(samples == 88200)
    for options in [[], ["--scan"]] {
      let json = try probe("tone_cover.mp3", options)
      let audio = try #require(firstStream(json, "audio"))
      #expect(Self.exact(audio["duration"]) == "2/1", "\(options)")
      #expect(Self.exact(json["duration"]) == "2/1", "\(options)")
      let packets = try MediaProbeVersusFFprobeTests.presentedPackets("tone_cover.mp3")
      #expect(audio["frame_count"] as? Int == packets[audio["index"] as? Int ?? -1])
    }
  }

  /// Ogg ends at its last granule (the packet durations are already trimmed: the discard padding
  /// is for the decoder), Vorbis's first packet yields nothing, Opus in Matroska starts after
  /// its pre-skip: the scanned length is what the decoder outputs (2 s and 1 s by construction).
  @Test(arguments: [("tone.ogg", "2/1"), ("tone.opus", "2/1"), ("vp9_opus.webm", "1/1")])
  func audioScansEndWhereTheDecoderDoes(_ fixture: String, _ seconds: String) throws {
    let audio = try #require(firstStream(try probe(fixture, ["--scan"]), "audio"))
    #expect(Self.exact(audio["duration"]) == seconds, "\(fixture)")
    let index = try #require(audio["index"] as? Int)
    let rate = try #require(value(audio, "audio", "sample_rate") as? Int)
    let samples = try Self.decoded(fixture, "0:\(index)", audio: true)
    #expect(Self.exact(audio["duration"]) == Self.exact(["value": samples, "timescale": rate]))
  }

  /// An `mdat` whose size runs past the end of the file, with every sample inside it, is read
  /// (with a warning), as ffprobe and players read it; the same file cut inside its samples is
  /// still truncated.
  @Test func mdatPastTheEndIsAWarning() throws {
    let json = try probe("mdat_past_eof.mp4")
    #expect(json["error"] == nil)
    #expect(json["warnings"] as? [String] == ["mdat_size_past_eof"])
    let original = try probe("h264_25fps.mp4")
    #expect(value(json, "duration", "seconds") as? Double == 1.0)
    #expect(
      firstStream(json, "video")?["frame_count"] as? Int
        == firstStream(original, "video")?["frame_count"] as? Int)
    let cut = try run("mediaprobe", ["\(fixturesDirectory)/hostile_truncated.mp4"])
    #expect(value(try cut.json(), "error", "code") as? String == "truncated")
  }

  /// 32-bit FLAC: FFmpeg 5.1 parses its header but not its frames; the scan keeps what the
  /// header knows (1.5 s at 48 kHz) instead of null.
  @Test func headerValuesSurviveAScanThatFindsNothing() throws {
    for options in [[], ["--scan"]] {
      let json = try probe("flac_32bit.flac", options)
      #expect(Self.exact(json["duration"]) == "3/2", "\(options)")
      #expect(Self.exact(firstStream(json, "audio")?["duration"]) == "3/2", "\(options)")
    }
  }

  /// A 30 fps Matroska file whose DefaultDuration says 1 ms (avg_frame_rate 1000/1): the first
  /// packets' timestamps give 30 fps without a scan (MediaInfo: 30.056), and the scan agrees.
  @Test func implausibleHeaderRatesAreTimed() throws {
    let plain = try probe("framerate_bad_header.mkv")
    let video = try #require(firstStream(plain, "video"))
    #expect(ratio(value(video, "video", "frame_rate", "average")) == "1000/1")
    #expect(ratio(value(video, "video", "frame_rate", "best")) == "30/1")
    #expect(value(video, "video", "frame_rate", "source") as? String == "timestamps")
    #expect(plain["warnings"] as? [String] == ["frame_rate_from_timestamps"])
    let scanned = try #require(
      firstStream(try probe("framerate_bad_header.mkv", ["--scan"]), "video"))
    #expect(ratio(value(scanned, "video", "frame_rate", "best")) == "30/1")
    #expect(scanned["frame_count"] as? Int == 90)
    #expect(try Self.decoded("framerate_bad_header.mkv", "0:v", audio: false) == 90)
  }

  /// A count, when reported, is never the container's word against the file: every fixture's
  /// plain count equals its scanned count (or is null), and says where it came from.
  @Test(arguments: mediaFixtures)
  func plainCountsAgreeWithTheScan(_ fixture: String) throws {
    let plain = try #require(try probe(fixture)["streams"] as? [[String: Any]])
    let scanned = try #require(try probe(fixture, ["--scan"])["streams"] as? [[String: Any]])
    for (stream, truth) in zip(plain, scanned) {
      guard let count = stream["frame_count"] as? Int else {
        #expect(stream["frame_count_source"] == nil || stream["frame_count_source"] is NSNull)
        continue
      }
      #expect(stream["frame_count_source"] is String, "\(fixture)")
      if fixture != "flac_32bit.flac" {
        #expect(count == truth["frame_count"] as? Int, "\(fixture) #\(stream["index"] ?? "?")")
      }
    }
  }
}
