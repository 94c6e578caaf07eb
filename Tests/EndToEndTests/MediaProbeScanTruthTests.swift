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

  /// The frames ffmpeg's decoder outputs for the first video stream, and where the last ends
  /// (its pts plus its duration, in seconds), from `framecrc`.
  static func decodedFrames(_ fixture: String) throws -> (count: Int, end: Double) {
    let result = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "quiet", "-i", "\(directory)/\(fixture)", "-map", "0:v:0",
        "-fps_mode", "passthrough", "-f", "framecrc", "-",
      ])
    let lines = result.text.split(separator: "\n")
    // "#tb 0: 1/15", then "0, dts, pts, duration, size, crc" per frame.
    let timeBase = try #require(lines.first { $0.hasPrefix("#tb 0:") }?.split(separator: " ").last)
    let parts = timeBase.split(separator: "/").compactMap { Double($0) }
    let tick = try #require(parts.count == 2 ? parts[0] / parts[1] : nil)
    let frames = lines.filter { !$0.hasPrefix("#") }.map {
      $0.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) ?? 0 }
    }
    let end = frames.map { $0[2] + $0[3] }.max() ?? 0
    return (frames.count, Double(end) * tick)
  }

  /// Whether a stream's scanned duration is exactly `samples` / `rate` seconds.
  static func lasts(_ stream: [String: Any], samples: Int, rate: Int) -> Bool {
    guard let ticks = value(stream, "duration", "value") as? Int,
      let timescale = value(stream, "duration", "timescale") as? Int
    else { return false }
    return ticks * rate == samples * timescale
  }

  /// The packets ffprobe lists for the first stream (the demuxer's count).
  static func demuxedPackets(_ fixture: String) throws -> Int {
    let result = try run(
      "ffprobe",
      [
        "-v", "quiet", "-select_streams", "0", "-count_packets", "-show_entries",
        "stream=nb_read_packets", "-of", "csv=p=0", "\(directory)/\(fixture)",
      ])
    // "16" or "16," (a stream with side data adds an empty field).
    let field = result.text.split(whereSeparator: { $0 == "," || $0.isNewline }).first
    return try #require(field.flatMap { Int($0) })
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

  /// AVI with dropped frames (one index tick per stored frame, gaps of 5): the last frame lasts
  /// its own tick, as the decoder times it (26/15 s by construction), not like the gap before it.
  @Test func aviLastFrameLastsItsOwnDuration() throws {
    let video = try #require(firstStream(try Self.probe("avi_dropped_frames.avi"), "video"))
    let decoded = try Self.decodedFrames("avi_dropped_frames.avi")
    #expect(decoded.count == 6)
    #expect(abs(decoded.end - 26.0 / 15) < 1e-9)
    #expect(video["frame_count"] as? Int == decoded.count)
    #expect(abs(try Self.duration(video).seconds - decoded.end) < 1e-9)
  }

  /// Decoding times are presentation times when the codec does not reorder (H.264 without
  /// B-frames in AVI, a dropped frame at 1/25 s), and untimed frames of one duration follow each
  /// other from zero (an MPEG-1 PS whose PES headers carry no PTS): both last 1.000 s, where the
  /// decoder's last frame ends.
  @Test(arguments: [("h264_dts_only.avi", 24), ("mpeg_ps_untimed.mpg", 25)])
  func videoWithoutPresentationTimes(_ fixture: String, _ frames: Int) throws {
    let video = try #require(firstStream(try Self.probe(fixture), "video"))
    let decoded = try Self.decodedFrames(fixture)
    #expect(decoded.count == frames, "\(fixture)")
    #expect(abs(decoded.end - 1) < 1e-9, "\(fixture)")
    #expect(video["frame_count"] as? Int == frames, "\(fixture)")
    #expect(abs(try Self.duration(video).seconds - decoded.end) < 1e-9, "\(fixture)")
    #expect(ratio(value(video, "video", "frame_rate", "best")) == "25/1", "\(fixture)")
  }

  /// AAC whose first frame names libfaac in a fill element: FFmpeg's decoder skips that frame
  /// (1024 samples), so 22 of its 23 frames are presented, exactly; the demuxer still presents
  /// 23 packets.
  @Test func libfaacFirstFrameIsNotPresented() throws {
    let audio = try #require(firstStream(try Self.probe("aac_libfaac.aac"), "audio"))
    let samples = try Self.decodedSamples("aac_libfaac.aac")
    #expect(samples == 22 * 1024)
    #expect(Self.lasts(audio, samples: samples, rate: 44_100), "\(audio["duration"] ?? "")")
    #expect(audio["frame_count"] as? Int == 23)
  }

  /// Skip and discard samples applied as libavcodec applies them, on MP3s whose LAME padding was
  /// raised: the end's discard spans two packets (the last wholly dropped: 2,300 samples), and
  /// padding past the samples there are, where the second packet's skip (0) replaces the 529 still
  /// pending (229 samples, as ffmpeg outputs; the gapless formula says -300). Without a scan the
  /// length is never negative.
  @Test(arguments: [("mp3_padding_split.mp3", 2_300), ("mp3_padding_past_end.mp3", 229)])
  func skipAndDiscardAsTheDecoderDoes(_ fixture: String, _ samples: Int) throws {
    #expect(try Self.decodedSamples(fixture) == samples, "\(fixture)")
    let audio = try #require(firstStream(try Self.probe(fixture), "audio"))
    #expect(Self.lasts(audio, samples: samples, rate: 24_000), "\(audio["duration"] ?? "")")
    let plain = try #require(firstStream(try Self.probe(fixture, []), "audio"))
    #expect((value(plain, "duration", "value") as? Int ?? -1) >= 0, "\(fixture)")
  }

  /// Packets the decoder rejects still count as frames (the demuxer presents them) but neither
  /// start nor end the span: a FLAC frame cut by the end of the file (4 of 5 frames decode) and
  /// an AC-3 frame without its sync word (15 of 16 decode, from the second).
  /// The last packet of a stream whose frames decode alone is decoded alone: an AC-3 frame
  /// followed by stray bytes is rejected (15 of 16 frames, less 256 priming samples).
  @Test(arguments: [
    ("flac_cut_last_frame.flac", 44_100, 4 * 4_608),
    ("ac3_last_frame_stray_bytes.mp4", 48_000, 15 * 1_536 - 256),
    ("ac3_first_frame_no_sync.mkv", 48_000, 15 * 1_536),
  ])
  func rejectedPacketsAreNotPresented(_ fixture: String, _ rate: Int, _ samples: Int) throws {
    #expect(try Self.decodedSamples(fixture) == samples, "\(fixture)")
    let audio = try #require(firstStream(try Self.probe(fixture), "audio"))
    #expect(Self.lasts(audio, samples: samples, rate: rate), "\(audio["duration"] ?? "")")
    #expect(audio["frame_count"] as? Int == (try Self.demuxedPackets(fixture)), "\(fixture)")
  }

  /// An H.264 sample with no slice (an access unit delimiter and an end of sequence) is no
  /// picture: ffmpeg's decoder outputs 11 frames of the 12 samples ("missing picture in access
  /// unit"), lasting 11/12 s, and so does the scan.
  @Test func h264SampleWithoutPictureIsNoFrame() throws {
    let fixture = "h264_sample_without_picture.mp4"
    #expect(try Self.demuxedPackets(fixture) == 12)
    let decoded = try Self.decodedFrames(fixture)
    #expect(decoded.count == 11)
    let video = try #require(firstStream(try Self.probe(fixture), "video"))
    #expect(video["frame_count"] as? Int == decoded.count)
    #expect(abs(try Self.duration(video).seconds - decoded.end) < 1e-9)
  }
}
