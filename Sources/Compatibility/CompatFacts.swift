import MediaCore

/// A fact about a file that rules test: text, a number, a flag, or a display size.
public enum Fact: Sendable, Equatable, CustomStringConvertible {
  case text(String)
  case number(Double)
  case flag(Bool)
  case size(width: Int, height: Int)

  /// As reports show it (`1920x1080` for a size).
  public var description: String {
    switch self {
    case .text(let text): text
    case .number(let number): RuleValue.number(number).description
    case .flag(let flag): String(flag)
    case .size(let width, let height): "\(width)x\(height)"
    }
  }
}

/// The facts of a probed file that platform rules test, by field name: `container`,
/// `video.codec`, `video.tag`, `video.profile`, `video.level`, `video.size` (display size after
/// rotation), `video.frame_rate` (the nominal rate: see `nominalFrameRate`), `video.bit_rate`
/// (the stream's, else the container's), `video.bit_depth`, `video.interlaced`,
/// `video.anamorphic`, `video.hdr`, `video.above_720p`, `audio.codec`, `audio.profile`,
/// `audio.channels`, `audio.sample_rate`, `audio.bit_rate`, `audio.bit_depth` (the source's bits
/// per sample: 24 for 24-bit FLAC), `file.fast_start`, `file.duration`, `file.size_bytes`. A
/// missing fact is unknown.
public struct CompatFacts: Sendable {
  /// The known facts.
  public var values: [String: Fact]
  /// The file has a video stream (cover art does not count).
  public var hasVideo: Bool
  /// The file has an audio stream.
  public var hasAudio: Bool
  /// The container index of the video stream the facts describe.
  public var videoIndex: Int?
  /// The container index of the audio stream the facts describe.
  public var audioIndex: Int?

  /// The facts of `info`: its container, its first video stream (not cover art) and its first
  /// audio stream (the default one if marked).
  public init(_ info: MediaInfo) {
    var values: [String: Fact] = [:]
    let video = info.streams.first { $0.type == .video && $0.disposition["attached_pic"] != true }
    let audios = info.streams.filter { $0.type == .audio }
    let audio = audios.first { $0.disposition["default"] == true } ?? audios.first
    values["container"] = .text(Self.containerName(info, video: video, audio: audio))
    if let fastStart = info.container.fastStart { values["file.fast_start"] = .flag(fastStart) }
    if let duration = info.duration { values["file.duration"] = .number(duration.seconds) }
    if let size = info.sizeBytes { values["file.size_bytes"] = .number(Double(size)) }

    if let video, let v = video.video {
      values["video.codec"] = .text(video.codec.name)
      if let tag = video.codec.tag { values["video.tag"] = .text(tag) }
      if let profile = video.codec.profile { values["video.profile"] = .text(profile) }
      if let level = video.codec.level.flatMap(Self.levelNumber),
        Self.plausible(level: level, codec: video.codec.name)
      {
        values["video.level"] = .number(level)
      }
      let (width, height) = (v.orientation.displayWidth, v.orientation.displayHeight)
      if width > 0 && height > 0 {
        values["video.size"] = .size(width: width, height: height)
        values["video.above_720p"] = .flag(max(width, height) > 1280 || min(width, height) > 720)
      }
      if let rate = Self.nominalFrameRate(v.frameRate) {
        values["video.frame_rate"] = .number(rate)
      }
      if let bitRate = video.bitRate ?? info.container.bitRate {
        values["video.bit_rate"] = .number(Double(bitRate))
      }
      if let depth = v.bitDepth { values["video.bit_depth"] = .number(Double(depth)) }
      if let interlaced = v.interlaced { values["video.interlaced"] = .flag(interlaced) }
      if v.sampleAspectRatio != nil { values["video.anamorphic"] = .flag(v.anamorphic) }
      values["video.hdr"] = .text(v.hdr ?? "sdr")
    }
    if let audio, let a = audio.audio {
      values["audio.codec"] = .text(audio.codec.name)
      if let profile = audio.codec.profile { values["audio.profile"] = .text(profile) }
      if let channels = a.channels { values["audio.channels"] = .number(Double(channels)) }
      if let rate = a.sampleRate { values["audio.sample_rate"] = .number(Double(rate)) }
      if let bitRate = audio.bitRate { values["audio.bit_rate"] = .number(Double(bitRate)) }
      if let depth = a.bitsPerSample, depth > 0 {
        values["audio.bit_depth"] = .number(Double(depth))
      }
    }
    self.values = values
    hasVideo = video != nil
    hasAudio = audio != nil
    videoIndex = video?.index
    audioIndex = audio?.index
  }

  /// The container as platforms name it. The ISO base media family by what it is: QuickTime
  /// (brand `qt  `) is `mov`, 3GPP and 3GPP2 (`3gp*`, `3g2*`) are `3gp`, and every other brand
  /// (`isom`, `mp41`, `mp42`, `M4A `, `M4V `, `M4B `, `dash`, ...) is `mp4`: an `.m4a` is MP4
  /// audio and an `.m4v` is MP4 video. Matroska is `webm` when every codec is a WebM codec (else
  /// `mkv`), MPEG-TS is `ts`, raw ADTS AAC is `adts`, and other demuxers keep their first name
  /// (`mp3`, `flac`, `ogg`, `wav`, `aiff`, `caf`, `amr`, `ac3`, `eac3`, ...).
  static func containerName(_ info: MediaInfo, video: MediaStream?, audio: MediaStream?) -> String {
    let demuxer = info.container.formatName
    if demuxer.hasPrefix("mov,") {
      let brand = (info.container.majorBrand ?? "").trimmingCharacters(in: " ").lowercased()
      switch brand {
      case "qt": return "mov"
      case let b where b.hasPrefix("3gp") || b.hasPrefix("3g2"): return "3gp"
      default: return "mp4"
      }
    }
    if demuxer == "matroska,webm" {
      let webm: Set = ["vp8", "vp9", "av1", "opus", "vorbis"]
      let codecs = info.streams.filter { $0.type == .video || $0.type == .audio }.map(\.codec.name)
      return codecs.allSatisfy(webm.contains) ? "webm" : "mkv"
    }
    if demuxer == "mpegts" { return "ts" }
    if demuxer == "aac" { return "adts" }
    return String(demuxer.split(separator: ",").first ?? "")
  }

  /// How far a clip's measured rate may stray from its nominal rate: 1%. A phone records at a
  /// nominal 30 or 60 fps with a variable frame rate, so its average comes out at 60.06 or 59.9.
  /// The only standard rates within 1% of each other are the NTSC rates and their integer twins
  /// (23.976/24, 29.97/30, 59.94/60, 119.88/120: 0.1%), which no limit separates.
  static let frameRateTolerance = 0.01

  /// The rates cameras and broadcast record at: Apple's HLS Authoring Specification's "typical
  /// frame rates" (23.976, 24, 25, 29.97, 30, 50, 59.94, 60) and the high rates phones record
  /// (the iPhone's 120 and 240 fps slow motion; 48, 90, 100 and 119.88 elsewhere).
  static let standardFrameRates: [Double] = [
    24000.0 / 1001, 24, 25, 30000.0 / 1001, 30, 48, 50, 60000.0 / 1001, 60, 90, 100,
    120000.0 / 1001, 120, 240,
  ]

  /// The nominal rate a frame-rate limit is compared with: the container's base rate
  /// (`r_frame_rate`) when the measured rate (`best`, usually the average) is within 1% of it;
  /// else the standard rate within 1% of the measured one; else the measured rate. A variable-rate
  /// phone clip recorded at 60 fps that averages 60.06 is a 60 fps clip, not one over 60.
  static func nominalFrameRate(_ rate: FrameRate) -> Double? {
    guard let best = rate.best?.value, best > 0 else { return nil }
    func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= frameRateTolerance * b }
    if let nominal = rate.nominal?.value, nominal > 0, near(best, nominal) { return nominal }
    let closest = standardFrameRates.min { abs($0 - best) < abs($1 - best) }!
    return near(best, closest) ? closest : best
  }

  /// Levels beyond the codec's table are placeholders, not limits: x265 writes 8.5 ("unrestricted")
  /// when it was told no level. They count as unknown (a warning), not as a failure.
  static func plausible(level: Double, codec: String) -> Bool {
    switch codec {
    case "h264", "hevc": level <= 6.2
    case "av1": level <= 7.3
    default: true
    }
  }

  /// "4.1" → 4.1; named levels (MPEG-2's "Main") are not comparable: nil.
  static func levelNumber(_ level: String) -> Double? {
    level == "1b" ? 1.05 : Double(level)
  }
}

extension String {
  fileprivate func trimmingCharacters(in set: Character) -> String {
    String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
  }
}
