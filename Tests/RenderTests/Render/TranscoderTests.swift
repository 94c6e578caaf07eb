import AV
import Foundation
import MediaCore
import OutputKit
import Render
import Testing

/// The whole pipeline (demux, decode, graph, encode, mux into an `OutputFile`), checked with
/// ffprobe and the ffmpeg CLI.
@Suite struct TranscoderTests {
  /// The 3 s clip through `scale=160:120,format=yuv420p` and a resampling audio graph, encoded
  /// with libx264 and AAC into MP4 with faststart: 75 frames (3 s at 25 fps, by construction),
  /// exactly 3 x 48000 samples encoded (the AAC end padding trimmed at the stated duration),
  /// the index before the media data, both streams starting at 0.
  @Test(arguments: [false, true])
  func transcodeToFaststartMP4(regroupInGraph: Bool) throws {
    let input = try open(Fixtures.clip)
    var video = VideoEncoding(filter: "scale=160:120,format=yuv420p", keepSourceColor: false)
    video.encoder.preset = "veryfast"
    video.encoder.threads = 1
    let audio = AudioEncoding(filter: "aresample=48000", regroupInGraph: regroupInGraph)
    let settings = RenderSettings(
      streams: RenderSettings.firstStreams(
        of: input, video: .encodeVideo(video), audio: .encodeAudio(audio)),
      decoderThreads: 1, filterThreads: 1)
    let (path, report) = try transcode(
      Fixtures.clip, "transcoded-\(regroupInGraph).mp4", settings)
    #expect(report.streams.map(\.frames) == [75, 0])
    #expect(report.streams.map(\.samples) == [0, 3 * 48000])
    #expect(report.streams.map(\.encoder) == ["libx264", "aac"])
    #expect(report.streams[1].audioTimestampGap == 0)
    #expect(report.streams.allSatisfy { $0.decodeErrors == 0 && $0.dropped == 0 })
    #expect(report.readError == nil)
    #expect(try isFaststart(path))

    let probe = try ffprobe(path, ["-count_frames", "-show_streams", "-show_format"])
    let format = try #require(probe["format"] as? [String: Any])
    let duration = try #require(Double(format["duration"] as? String ?? ""))
    #expect(abs(duration - 3) <= 0.04, "duration \(duration)")
    let streams = try #require(probe["streams"] as? [[String: Any]])
    let probedVideo = try #require(streams.first { $0["codec_type"] as? String == "video" })
    let probedAudio = try #require(streams.first { $0["codec_type"] as? String == "audio" })
    #expect(probedVideo["nb_read_frames"] as? String == "75")
    #expect(probedVideo["width"] as? Int == 160 && probedVideo["height"] as? Int == 120)
    #expect(probedVideo["pix_fmt"] as? String == "yuv420p")
    #expect(probedVideo["color_space"] as? String == "bt709")
    #expect(probedVideo["color_range"] as? String == "tv")
    #expect(Double(probedVideo["start_time"] as? String ?? "") == 0)
    #expect(Double(probedAudio["start_time"] as? String ?? "") == 0)
    #expect(probedAudio["sample_rate"] as? String == "48000")
    #expect(Double(probedAudio["duration"] as? String ?? "") == 3)
    // Every sample decodes back, plus at most the last frame's padding.
    let samples = try decodedSampleCount(path)
    #expect(samples >= 3 * 48000 && samples < 3 * 48000 + 1024, "\(samples) samples")
  }

  /// Without the trim, the AAC end padding that FFmpeg 5.1's decoder keeps comes out as audio:
  /// more than the stated 3 s (132300 samples at 44.1 kHz) are encoded, which shows the trim
  /// above is what makes the count exact.
  @Test func withoutTrimTheAudioRunsLong() throws {
    let input = try open(Fixtures.clip)
    let audio = AudioEncoding(encoder: EncoderSettings.Audio(sampleRate: 44100))
    var settings = RenderSettings(
      streams: RenderSettings.firstStreams(of: input, video: nil, audio: .encodeAudio(audio)))
    settings.trimToStreamDuration = false
    let untrimmed = try transcode(Fixtures.clip, "untrimmed.m4a", settings).report
    settings.trimToStreamDuration = true
    let trimmed = try transcode(Fixtures.clip, "trimmed.m4a", settings).report
    #expect(trimmed.streams[0].samples == 132_300)
    #expect(untrimmed.streams[0].samples > 132_300)
  }

  /// Per-stream choice: the video copied (its packets hash equal to the input's, by the ffmpeg
  /// CLI's streamhash), the audio re-encoded (to 2 channels at 32 kHz, as ffprobe reads it).
  @Test func copyVideoEncodeAudio() throws {
    let input = try open(Fixtures.clip)
    let audio = AudioEncoding(
      encoder: EncoderSettings.Audio(sampleRate: 32000, channelLayout: .stereo, bitRate: 96000))
    let settings = RenderSettings(
      streams: RenderSettings.firstStreams(of: input, video: .copy, audio: .encodeAudio(audio)))
    let (path, report) = try transcode(Fixtures.clip, "copy-video.mp4", settings)
    #expect(report.streams.map(\.encoder) == [nil, "aac"])
    #expect(report.streams[0].packets == 75)
    #expect(try streamHash(path, streams: ["0:v"]) == streamHash(Fixtures.clip, streams: ["0:v"]))
    let streams = try probedStreams(path)
    let probedAudio = try #require(streams.first { $0["codec_type"] as? String == "audio" })
    #expect(probedAudio["sample_rate"] as? String == "32000")
    #expect(probedAudio["channels"] as? Int == 2)
    #expect(try streamHash(path, streams: ["0:a"]) != streamHash(Fixtures.clip, streams: ["0:a"]))
  }

  /// Matroska output through the same descriptor I/O (no faststart there), the frame times kept
  /// (`sourceTimestamps`): the file decodes without an error, 75 frames.
  @Test func transcodeToMatroska() throws {
    let input = try open(Fixtures.clip)
    var video = VideoEncoding(timing: .sourceTimestamps)
    video.encoder.preset = "ultrafast"
    let settings = RenderSettings(
      streams: RenderSettings.firstStreams(
        of: input, video: .encodeVideo(video), audio: .encodeAudio(AudioEncoding())),
      container: "matroska", muxerOptions: [:])
    let (path, report) = try transcode(Fixtures.clip, "transcoded.mkv", settings)
    #expect(report.streams[0].frames == 75)
    let video0 = try #require(try probedStreams(path).first)
    #expect(video0["nb_read_frames"] as? String == "75")
    let check = try run("ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"])
    #expect(check.status == 0 && check.stderr.isEmpty, "\(check.stderr)")
  }

  /// The source's colour tags are kept by default (the clip states none: the output states
  /// none, instead of claiming BT.709), and tagged sources keep theirs.
  @Test func sourceColourTagsAreKept() throws {
    let input = try open(Fixtures.clip)
    var video = VideoEncoding()
    video.encoder.preset = "ultrafast"
    let settings = RenderSettings(
      streams: RenderSettings.firstStreams(of: input, video: .encodeVideo(video), audio: nil))
    let path = try transcode(Fixtures.clip, "untagged.mp4", settings).path
    let stream = try #require(try probedStreams(path).first)
    #expect(stream["color_space"] == nil && stream["color_primaries"] == nil)
    #expect(try probedStreams(Fixtures.clip).first?["color_space"] == nil)
  }

  /// Mistakes are typed errors with stable codes and their cause, before anything is written;
  /// nothing is left behind.
  @Test func errors() throws {
    let input = try open(Fixtures.clip)
    func failure(_ settings: RenderSettings, _ name: String) throws -> RenderError? {
      let path = Fixtures.output(name)
      let file = try OutputFile(.file(path: path, overwrite: false), sync: false)
      let error = #expect(throws: RenderError.self) {
        _ = try Transcoder.run(
          input: open(Fixtures.clip), output: file, name: path, settings: settings)
      }
      #expect(!FileManager.default.fileExists(atPath: path))
      return error
    }
    var encoder = VideoEncoding()
    encoder.encoder.encoder = "nosuchencoder"
    let missing = try failure(
      RenderSettings(
        streams: RenderSettings.firstStreams(of: input, video: .encodeVideo(encoder), audio: nil)),
      "missing-encoder.mp4")
    #expect(missing?.code == "encoder_not_found")
    #expect(missing?.cause?.domain == .ffmpeg)

    let filter = try failure(
      RenderSettings(
        streams: RenderSettings.firstStreams(
          of: input, video: .encodeVideo(VideoEncoding(filter: "nosuchfilter")), audio: nil)),
      "bad-filter.mp4")
    #expect(filter?.code == "filter_error")
    #expect(filter?.message.contains("nosuchfilter") == true)

    var option = VideoEncoding()
    option.encoder.preset = "nosuchpreset"
    let refused = try failure(
      RenderSettings(
        streams: RenderSettings.firstStreams(of: input, video: .encodeVideo(option), audio: nil)),
      "bad-preset.mp4")
    #expect(refused?.code == "encoder_error")

    // H.264 cannot go into a WAV file.
    let container = try failure(
      RenderSettings(
        streams: RenderSettings.firstStreams(of: input, video: .copy, audio: nil),
        container: "wav", muxerOptions: [:]),
      "h264.wav")
    #expect(container?.code == "muxer_error")

    let unknownOption = try failure(
      RenderSettings(
        streams: RenderSettings.firstStreams(of: input, video: .copy, audio: nil),
        muxerOptions: ["nosuchoption": "1"]),
      "option.mp4")
    #expect(unknownOption?.code == "muxer_error")
    #expect(unknownOption?.message.contains("nosuchoption") == true)

    let wrongKind = try failure(
      RenderSettings(
        streams: [StreamChoice(input: 0, action: .encodeAudio(AudioEncoding()))]),
      "wrong-kind.mp4")
    #expect(wrongKind?.code == "invalid_settings")
    let noSuchStream = try failure(
      RenderSettings(streams: [StreamChoice(input: 9, action: .copy)]), "no-stream.mp4")
    #expect(noSuchStream?.code == "invalid_settings")
    let nothing = try failure(RenderSettings(streams: []), "nothing.mp4")
    #expect(nothing?.code == "no_streams")

    // A time limit already passed stops the render before it writes anything.
    let late = try failure(
      RenderSettings(
        streams: RenderSettings.firstStreams(of: input, video: .copy, audio: .copy), timeout: 0),
      "late.mp4")
    #expect(late == .timeout(seconds: 0))
    #expect(late?.code == "timeout")

    let input404 = #expect(throws: RenderError.self) {
      _ = try Transcoder.open(.file(Fixtures.directory + "/nonexistent.mp4"))
    }
    #expect(input404?.code == "not_found")
  }
}
