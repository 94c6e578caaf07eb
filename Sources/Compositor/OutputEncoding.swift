import AV
import MediaCore

#if canImport(Glibc)
  import Glibc
#endif

/// The video codecs a render can write, each through the encoder Debian bookworm's libavcodec
/// (FFmpeg 5.1) offers for it.
public enum VideoCodecChoice: String, CaseIterable, Sendable, Codable {
  /// H.264 through libx264.
  case h264
  /// HEVC through libx265, tagged `hvc1` in MP4 and QuickTime (the sample entry Apple plays).
  case hevc
  /// VP9 through libvpx-vp9.
  case vp9
  /// AV1 through libsvtav1 (SVT-AV1 1.4; libaom-av1 took 28 times as long on the same clip,
  /// measured).
  case av1

  /// FFmpeg's encoder.
  public var encoder: String {
    switch self {
    case .h264: "libx264"
    case .hevc: "libx265"
    case .vp9: "libvpx-vp9"
    case .av1: "libsvtav1"
    }
  }

  /// The codec's name as ffprobe prints it (`codec_name`).
  public var codecName: String { rawValue }

  /// The constant quality used when nothing else is asked: libx264's 20, libx265's 24 (the
  /// HEVC presets' value), libvpx-vp9's 32 and SVT-AV1's 35 (both on a 0-63 scale).
  public var defaultCRF: Double {
    switch self {
    case .h264: 20
    case .hevc: 24
    case .vp9: 32
    case .av1: 35
    }
  }

  /// The highest constant-quality value the encoder takes (51 for x264/x265, 63 for VP9 and AV1).
  public var maxCRF: Double { self == .h264 || self == .hevc ? 51 : 63 }
}

/// The audio codecs a render can write.
public enum AudioCodecChoice: String, CaseIterable, Sendable, Codable {
  /// AAC-LC through FFmpeg's native encoder.
  case aac
  /// Opus through libopus (48 kHz; FFmpeg's own `opus` encoder is experimental).
  case opus

  /// FFmpeg's encoder.
  public var encoder: String { self == .aac ? "aac" : "libopus" }

  /// The codec's name as ffprobe prints it.
  public var codecName: String { rawValue }
}

/// The containers a render writes, chosen by the output's extension.
public enum OutputContainer: String, CaseIterable, Sendable, Codable {
  /// MP4 (`.mp4`, `.m4v`).
  case mp4
  /// QuickTime (`.mov`).
  case mov
  /// Audio-only MPEG-4 (`.m4a`): libavformat's `ipod` muxer, as AVFoundation's AppleM4A.
  case m4a
  /// WebM (`.webm`): VP9 or AV1 with Opus.
  case webm
  /// Matroska (`.mkv`), with Opus audio: libavformat 59 writes Matroska's `CodecDelay` for Opus
  /// only, so AAC's 1024 priming samples would play (21 ms late at 48 kHz; the self-check
  /// measured the shift).
  case mkv

  /// The container an output path asks for by its extension; nil for any other.
  public init?(path: String) {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    guard let dot = name.lastIndex(of: ".") else { return nil }
    switch name[name.index(after: dot)...].lowercased() {
    case "mp4", "m4v": self = .mp4
    case "mov": self = .mov
    case "m4a": self = .m4a
    case "webm": self = .webm
    case "mkv": self = .mkv
    default: return nil
    }
  }

  /// libavformat's muxer.
  public var muxer: String {
    switch self {
    case .mp4: "mp4"
    case .mov: "mov"
    case .m4a: "ipod"
    case .webm: "webm"
    case .mkv: "matroska"
    }
  }

  /// An ISO BMFF file (`moov`, `mdat`): written with `+faststart`, the index before the data.
  public var isISOBMFF: Bool { self == .mp4 || self == .mov || self == .m4a }

  /// The muxer's options: `movflags +faststart` for ISO BMFF, none for Matroska and WebM (their
  /// index, the cues, is written at the front when the output can be rewound).
  public var muxerOptions: [String: String] { isISOBMFF ? ["movflags": "+faststart"] : [:] }

  /// The video codecs it holds (none for `.m4a`).
  public var videoCodecs: [VideoCodecChoice] {
    switch self {
    case .mp4, .mkv: [.h264, .hevc, .vp9, .av1]
    case .mov: [.h264, .hevc]
    case .m4a: []
    case .webm: [.vp9, .av1]
    }
  }

  /// The audio codecs it holds.
  public var audioCodecs: [AudioCodecChoice] {
    switch self {
    case .mp4: [.aac, .opus]
    case .mov, .m4a: [.aac]
    case .webm, .mkv: [.opus]
    }
  }

  /// The codecs written when none is asked: H.264 and AAC; VP9 and Opus in WebM; H.264 and
  /// Opus in Matroska.
  public var defaultCodecs: (video: VideoCodecChoice, audio: AudioCodecChoice) {
    switch self {
    case .webm: (.vp9, .opus)
    case .mkv: (.h264, .opus)
    default: (.h264, .aac)
    }
  }

  /// Why `video` (nil: no video) and `audio` cannot be written into this container; nil when
  /// they can. (The pairs come from libavformat 59's muxers: mov has no VP9, AV1 or Opus
  /// sample entry, WebM takes only VP8/VP9/AV1 and Vorbis/Opus, and `ipod` audio only.)
  public func refusal(video: VideoCodecChoice?, audio: AudioCodecChoice?) -> String? {
    var problems: [String] = []
    if let video, !videoCodecs.contains(video) {
      problems.append(
        videoCodecs.isEmpty
          ? "a .\(rawValue) file holds no video"
          : "\(video.rawValue) video cannot go into .\(rawValue) (it takes "
            + videoCodecs.map(\.rawValue).joined(separator: ", ") + ")")
    }
    if let audio, !audioCodecs.contains(audio) {
      problems.append(
        "\(audio.rawValue) audio cannot go into .\(rawValue) (it takes "
          + audioCodecs.map(\.rawValue).joined(separator: ", ") + ")")
    }
    return problems.isEmpty ? nil : problems.joined(separator: "; ")
  }
}

extension CompositorSettings {
  /// The video encoder's settings for a `width`×`height` picture at `frameRate` with `color`:
  /// the codec's encoder, its speed setting, rate control and profile as each encoder names
  /// them (libx264/libx265 `preset`, `profile`; libvpx-vp9 `deadline`/`cpu-used`/`row-mt`;
  /// SVT-AV1's numbered `preset`), and libx265's own log kept to errors.
  func videoEncoderSettings(width: Int, height: Int, frameRate: Rational, color: ColorTags)
    -> EncoderSettings.Video
  {
    let rate: EncoderSettings.RateControl =
      videoBitRate.map { bitRate in
        constrainedRate
          ? .bitRate(
            bitRate, maxRate: videoMaxRate ?? bitRate, bufferSize: videoBufferSize ?? bitRate)
          : .bitRate(bitRate, maxRate: nil, bufferSize: nil)
      } ?? .constantQuality(crf ?? videoCodec.defaultCRF)
    var settings = EncoderSettings.Video(
      encoder: videoCodec.encoder, width: width, height: height, frameRate: frameRate,
      color: color, rateControl: rate, threads: threads)
    switch videoCodec {
    case .h264:
      settings.preset = preset
      settings.profile = profile
      settings.level = level
      if videoBitRate != nil { settings.ratePass = ratePass }
    case .hevc:
      settings.preset = preset
      settings.profile = profile
      // x265 prints its banner and statistics on standard error by itself.
      settings.options["x265-params"] = "log-level=error"
    case .vp9:
      settings.options["deadline"] = "good"
      settings.options["cpu-used"] = preset
      settings.options["row-mt"] = "1"
    case .av1:
      settings.preset = preset
    }
    return settings
  }

  /// The encoder's speed setting as reported (`veryfast`; `cpu-used 5` for VP9; `10` for AV1).
  var speedDescription: String { videoCodec == .vp9 ? "cpu-used \(preset)" : preset }

  /// The audio encoder's settings: AAC, or libopus at 48 kHz (the only rate it and Opus share
  /// with the compositor's mix).
  var audioEncoderSettings: EncoderSettings.Audio {
    EncoderSettings.Audio(
      encoder: audioCodec.encoder, sampleRate: sampleRate,
      channelLayout: channels == 1 ? .mono : .stereo,
      sampleFormat: audioCodec == .opus ? .flt : nil, bitRate: audioBitRate)
  }
}

extension VideoCodecChoice {
  /// Keeps SVT-AV1's banner off standard error: it prints it by itself at its default log
  /// level (`SVT_LOG`, read when the encoder opens; a value the user set is kept).
  static func quietEncoderLog() {
    setenv("SVT_LOG", "1", 0)
  }
}

extension AudioBlock {
  /// The block as an interleaved `flt` frame (libopus takes interleaved samples only), with
  /// `pts` = its first sample's index.
  func interleavedFrame(sampleRate: Int) throws(CompositorError) -> Frame {
    let count = channels.first?.count ?? 0
    let frame: Frame
    do {
      frame = try Frame.audio(
        sampleCount: count, format: .flt, layout: channels.count == 1 ? .mono : .stereo,
        sampleRate: sampleRate)
    } catch {
      throw .render(.encoder("libopus", error))
    }
    frame.withSamples(channel: 0) { bytes in
      let out = bytes.bindMemory(to: Float.self)
      for (channel, values) in channels.enumerated() {
        for index in 0..<count { out[index * channels.count + channel] = values[index] }
      }
    }
    frame.pts = start
    return frame
  }
}
