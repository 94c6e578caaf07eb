import AV
import Foundation
import MediaCore
import OutputKit
import Testing

/// Encoders opened from typed settings, checked with ffprobe on what they wrote.
@Suite struct EncoderTests {
  /// Profile, level, keyframe interval, SAR and colour tags reach the bitstream and the
  /// container: 30 frames, profile Main, level 3.1, a keyframe every 10 frames, SAR 4:3,
  /// BT.601 tags. (x264's profile is a ceiling: with `ultrafast`'s features it would write
  /// Constrained Baseline, so `veryfast`, which uses CABAC and B-frames.)
  @Test func videoSettingsReachTheFile() throws {
    var settings = EncoderSettings.Video(
      width: 64, height: 48, frameRate: Rational(30, 1)!, sampleAspectRatio: Rational(4, 3)!,
      color: ColorTags(
        matrix: .bt601, range: .limited, primaries: .smpte170m, transfer: .smpte170m),
      keyframeInterval: 10, preset: "veryfast", profile: "main", level: "3.1", threads: 1)
    settings.rateControl = .bitRate(200_000)
    let path = try writeOutput("settings.mp4") { file, name in
      let muxer = try Muxer(format: "mp4", output: file, name: name)
      let encoder = try CodecEncoder(video: settings, globalHeader: muxer.needsGlobalHeader)
      let stream = try muxer.addStream(for: encoder)
      try muxer.writeHeader()
      let frame = try solidFrame(red: 10, green: 200, blue: 30, width: 64, height: 48)
      let packet = Packet()
      for index in 0..<30 {
        try frame.makeWritable()
        frame.pts = Int64(index)
        frame.color = settings.color
        try encoder.encode(frame, into: packet) { packet throws(FFmpegError) in
          try muxer.write(packet, stream: stream, timeBase: encoder.timeBase)
        }
      }
      try encoder.encode(nil, into: packet) { packet throws(FFmpegError) in
        try muxer.write(packet, stream: stream, timeBase: encoder.timeBase)
      }
      try muxer.finish()
    }
    let probe = try ffprobe(path, ["-show_streams", "-show_frames", "-select_streams", "v"])
    let stream = try #require((probe["streams"] as? [[String: Any]])?.first)
    #expect(stream["profile"] as? String == "Main")
    #expect(stream["level"] as? Int == 31)
    #expect(stream["sample_aspect_ratio"] as? String == "4:3")
    #expect(stream["color_space"] as? String == "smpte170m")
    #expect(stream["color_primaries"] as? String == "smpte170m")
    #expect(stream["color_transfer"] as? String == "smpte170m")
    #expect(stream["color_range"] as? String == "tv")
    let frames = try #require(probe["frames"] as? [[String: Any]])
    #expect(frames.count == 30)
    let keys = frames.enumerated().filter { $0.element["key_frame"] as? Int == 1 }.map(\.offset)
    #expect(keys == [0, 10, 20])
  }

  /// A decoded frame's picture type is not obeyed: the source has a keyframe every 5 frames
  /// (15 in 75), and re-encoding with the default interval (250) must give 1, not 15 (libx264
  /// makes a keyframe of every frame typed I; the encoder clears the type, as the CLI does).
  @Test func pictureTypeOfDecodedFramesIsCleared() throws {
    let input = try open(Fixtures.shortGOP)
    let found = input.streams.first(where: \.isVideo)
    let video = try #require(found)
    let settings = EncoderSettings.Video(
      width: video.width, height: video.height, frameRate: Rational(25, 1)!,
      preset: "ultrafast", threads: 1)
    let encoder = try CodecEncoder(video: settings, globalHeader: true)
    let encoded = Packet()
    var keyframes = 0
    var packets = 0
    var index: Int64 = 0
    func count(_ packet: Packet) throws(FFmpegError) {
      packets += 1
      if packet.isKeyframe { keyframes += 1 }
    }
    var sourceKeyframes = 0
    try decodeFrames(input, stream: video.index) { frame in
      if frame.isKeyFrame { sourceKeyframes += 1 }
      frame.pts = index
      index += 1
      try encoder.encode(frame, into: encoded, count)
    }
    try encoder.encode(nil, into: encoded, count)
    #expect(sourceKeyframes == 15)
    #expect(packets == 75)
    #expect(keyframes == 1)
  }

  /// The AAC encoder's frame size, sample format and priming, as FFmpeg documents them.
  @Test func audioEncoderFacts() throws {
    let encoder = try CodecEncoder(audio: EncoderSettings.Audio(), globalHeader: true)
    #expect(encoder.frameSize == 1024)
    #expect(encoder.audioParameters.sampleFormat == .fltp)
    #expect(encoder.audioParameters.channelLayout == .stereo)
    #expect(encoder.timeBase == Rational(1, 48000)!)
    #expect(encoder.initialPadding == 1024)
    #expect(encoder.kind == .audio && encoder.name == "aac")
  }

  /// Settings an encoder does not take are errors, not silently ignored.
  @Test func refusedSettings() throws {
    var unknown = EncoderSettings.Video(width: 64, height: 48, frameRate: Rational(25, 1)!)
    unknown.encoder = "nosuchencoder"
    let missing = #expect(throws: FFmpegError.self) {
      _ = try CodecEncoder(video: unknown, globalHeader: false)
    }
    #expect(missing?.isEncoderNotFound == true)

    // An audio encoder is not a video encoder.
    unknown.encoder = "aac"
    #expect(throws: FFmpegError.self) { _ = try CodecEncoder(video: unknown, globalHeader: false) }

    // mpeg4 has no presets: the option is left over, and named.
    var preset = EncoderSettings.Video(
      encoder: "mpeg4", width: 64, height: 48, frameRate: Rational(25, 1)!,
      rateControl: .bitRate(100_000), preset: "veryfast")
    preset.color = .unspecified
    let error = #expect(throws: FFmpegError.self) {
      _ = try CodecEncoder(video: preset, globalHeader: false)
    }
    #expect(error?.isOptionNotFound == true)
    #expect(error?.message.contains("preset") == true)

    let rate = EncoderSettings.Audio(sampleRate: 12345)
    #expect(throws: FFmpegError.self) { _ = try CodecEncoder(audio: rate, globalHeader: false) }

    let format = EncoderSettings.Audio(sampleFormat: .s16)
    #expect(throws: FFmpegError.self) { _ = try CodecEncoder(audio: format, globalHeader: false) }
  }
}

/// `AudioFrameAdapter`: frames of any size in, frames of exactly the encoder's size out, with
/// sample-exact timestamps and every sample kept in order.
@Suite struct AudioFrameAdapterTests {
  @Test func regroupsWithExactTimestamps() throws {
    let parameters = AudioParameters(sampleRate: 48000, sampleFormat: .fltp, channelLayout: .mono)
    let adapter = try AudioFrameAdapter(frameSize: 1024, parameters: parameters)
    // A ramp (sample n holds n) from pts 4800, in frames of uneven sizes.
    let sizes = [100, 333, 1000, 7, 2048, 1, 600, 911]
    let total = sizes.reduce(0, +)
    var start = 0
    var out: [(pts: Int64, samples: [Float])] = []
    let frame = Frame()
    for size in sizes {
      let samples = (start..<start + size).map { Float($0) }
      try adapter.push(
        audioFrame(samples, rate: 48000, pts: Int64(4800 + start)),
        timeBase: Rational(1, 48000)!)
      start += size
      while try adapter.pull(into: frame) { out.append((frame.pts!, floatSamples(frame))) }
    }
    while try adapter.pull(into: frame, flush: true) {
      out.append((frame.pts!, floatSamples(frame)))
    }
    #expect(total == 5000)
    #expect(out.map(\.samples.count) == [1024, 1024, 1024, 1024, 904])
    #expect(out.map(\.pts) == [4800, 5824, 6848, 7872, 8896])
    #expect(out.flatMap(\.samples) == (0..<total).map { Float($0) })
    #expect(adapter.largestGap == 0)
    #expect(adapter.bufferedSamples == 0)
  }

  /// Input timestamps in another time base: the first sets the origin (rounded to a sample),
  /// the rest follow the count; a frame that strays is reported.
  @Test func otherTimeBaseAndGaps() throws {
    let parameters = AudioParameters(sampleRate: 48000, sampleFormat: .fltp, channelLayout: .mono)
    let adapter = try AudioFrameAdapter(frameSize: 1024, parameters: parameters)
    let frame = Frame()
    // 1000 samples at 1 s (1/1000 time base), then 1000 more stamped at 1.030 s, where the
    // count says 1 s + 1000 samples: 49440 - 49000 = 440 samples late.
    try adapter.push(
      audioFrame([Float](repeating: 0, count: 1000), rate: 48000, pts: 1000),
      timeBase: Rational(1, 1000)!)
    try adapter.push(
      audioFrame([Float](repeating: 0, count: 1000), rate: 48000, pts: 1030),
      timeBase: Rational(1, 1000)!)
    #expect(try adapter.pull(into: frame))
    #expect(frame.pts == 48000)
    #expect(adapter.largestGap == 440)
  }

  /// A frame of another format than the adapter's is refused.
  @Test func refusesOtherFormats() throws {
    let parameters = AudioParameters(sampleRate: 48000, sampleFormat: .fltp, channelLayout: .mono)
    let adapter = try AudioFrameAdapter(frameSize: 1024, parameters: parameters)
    let stereo = try Frame.audio(
      sampleCount: 10, format: .fltp, layout: .stereo, sampleRate: 48000)
    #expect(throws: FFmpegError.self) {
      try adapter.push(stereo, timeBase: Rational(1, 48000)!)
    }
  }
}

/// The typed values read back what FFmpeg names.
@Suite struct FormatTests {
  @Test func namesRoundTrip() throws {
    #expect(PixelFormat(name: "yuv420p") == .yuv420p)
    #expect(PixelFormat(name: "nosuchformat") == nil)
    #expect(PixelFormat.rgb24.isRGB && !PixelFormat.yuv420p.isRGB)
    #expect(SampleFormat(name: "fltp") == .fltp && SampleFormat.fltp.isPlanar)
    #expect(SampleFormat.s16.bytesPerSample == 2)
    #expect(ChannelLayout(name: "stereo") == .stereo)
    #expect(ChannelLayout(name: "5.1(side)")?.channelCount == 6)
    #expect(ChannelLayout.mono.name == "mono")
    #expect(ChannelLayout(name: "3 channels")?.channelCount == 3)
    #expect(ChannelLayout(name: "nonsense") == nil)
    // The probe model's strings (ffprobe's names) map onto the typed tags.
    let tags = ColorTags(
      ColorInfo(range: "tv", primaries: "bt709", transfer: "bt709", matrix: "bt709"))
    #expect(tags == .bt709)
    #expect(ColorTags(ColorInfo()) == .unspecified)
  }
}
