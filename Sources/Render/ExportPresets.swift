import AV
import MediaCore

/// AVAssetExportSession's presets mapped onto stated encoder settings. Apple documents what
/// each preset is for ("low-quality movie", "1920x1080", "HEVC", "audio-only M4A",
/// "passthrough") and that the sized ones do not scale movies up, but no bit rates: the numbers
/// here are the project's choice (docs/mediamerge.md, Presets; reference/composition.md §2).
package enum ExportPreset: String, CaseIterable, Sendable {
  case lowQuality = "low"
  case mediumQuality = "medium"
  case highestQuality = "highest"
  case size640x480 = "640x480"
  case size960x540 = "960x540"
  case size1280x720 = "1280x720"
  case size1920x1080 = "1920x1080"
  case size3840x2160 = "3840x2160"
  case hevcHighestQuality = "hevc-highest"
  case hevc1920x1080 = "hevc-1920x1080"
  case hevc3840x2160 = "hevc-3840x2160"
  case appleM4A = "m4a"
  case passthrough

  /// AVFoundation's constant (`AVAssetExportPreset1920x1080`).
  package var avFoundationName: String {
    let suffix =
      switch self {
      case .lowQuality: "LowQuality"
      case .mediumQuality: "MediumQuality"
      case .highestQuality: "HighestQuality"
      case .size640x480: "640x480"
      case .size960x540: "960x540"
      case .size1280x720: "1280x720"
      case .size1920x1080: "1920x1080"
      case .size3840x2160: "3840x2160"
      case .hevcHighestQuality: "HEVCHighestQuality"
      case .hevc1920x1080: "HEVC1920x1080"
      case .hevc3840x2160: "HEVC3840x2160"
      case .appleM4A: "AppleM4A"
      case .passthrough: "Passthrough"
      }
    return "AVAssetExportPreset" + suffix
  }

  /// The preset named `name`: the short name (`1920x1080`, `hevc-highest`, `m4a`), the
  /// AVFoundation constant (`AVAssetExportPreset1920x1080`) or its suffix (`HEVC1920x1080`,
  /// `LowQuality`), in any case.
  package init?(name: String) {
    let wanted = name.lowercased()
    let found = Self.allCases.first { preset in
      let full = preset.avFoundationName.lowercased()
      return preset.rawValue == wanted || full == wanted
        || String(full.dropFirst("avassetexportpreset".count)) == wanted
    }
    guard let found else { return nil }
    self = found
  }

  /// How the picture is sized.
  package enum Sizing: Sendable, Equatable {
    /// Kept as the source's.
    case source
    /// Fitted inside `width`×`height` keeping its shape, only when the source is larger
    /// (`scale=W:H:force_original_aspect_ratio=decrease:force_divisible_by=2`). The quality
    /// presets' long edge (224, 568) is the box L×L.
    case box(width: Int, height: Int)
  }

  /// A preset's video: encoder, sizing and rate control.
  package struct Video: Sendable, Equatable {
    /// FFmpeg's encoder (`libx264`, `libx265`).
    package var encoder: String
    /// The encoder's preset (`veryfast`, `medium`, `slow`; nil: its default).
    package var speed: String?
    /// Constant quality (CRF).
    package var crf: Double
    /// The profile (a ceiling for libx264).
    package var profile: String?
    /// The level.
    package var level: String?
    /// How the picture is sized.
    package var sizing: Sizing
    /// The MP4 sample entry's tag (`hvc1` for HEVC: the one QuickTime plays); nil: the muxer's.
    package var tag: String?
  }

  /// What a preset writes.
  package struct Settings: Sendable, Equatable {
    /// The container (`mp4`; `ipod` for .m4a).
    package var container: String
    /// The output's extension.
    package var fileExtension: String
    /// The video; nil: no video (audio-only) or copied (`copy`).
    package var video: Video?
    /// AAC's bit rate in bits per second; nil: no audio re-encoding (copied when `copy`).
    package var audioBitRate: Int?
    /// Every stream copied as it is (Passthrough).
    package var copy: Bool
    /// MP4 options (`+faststart`: "optimize for network use", the default).
    package var movflags: String
  }

  /// The preset's settings (the table in docs/mediamerge.md, Presets).
  package var settings: Settings {
    func h264(_ speed: String?, crf: Double, profile: String, level: String?, _ sizing: Sizing)
      -> Video
    {
      Video(
        encoder: "libx264", speed: speed, crf: crf, profile: profile, level: level,
        sizing: sizing, tag: nil)
    }
    func hevc(_ sizing: Sizing) -> Video {
      Video(
        encoder: "libx265", speed: nil, crf: 24, profile: nil, level: nil, sizing: sizing,
        tag: "hvc1")
    }
    func movie(_ video: Video, audio: Int) -> Settings {
      Settings(
        container: "mp4", fileExtension: "mp4", video: video, audioBitRate: audio, copy: false,
        movflags: "+faststart")
    }
    switch self {
    case .lowQuality:
      return movie(
        h264("veryfast", crf: 30, profile: "main", level: nil, .box(width: 224, height: 224)),
        audio: 64000)
    case .mediumQuality:
      return movie(
        h264("medium", crf: 26, profile: "main", level: nil, .box(width: 568, height: 568)),
        audio: 96000)
    case .highestQuality:
      return movie(h264("slow", crf: 18, profile: "high", level: nil, .source), audio: 192000)
    case .size640x480:
      return movie(
        h264(nil, crf: 23, profile: "high", level: "3.1", .box(width: 640, height: 480)),
        audio: 128000)
    case .size960x540:
      return movie(
        h264(nil, crf: 23, profile: "high", level: "3.1", .box(width: 960, height: 540)),
        audio: 128000)
    case .size1280x720:
      return movie(
        h264(nil, crf: 21, profile: "high", level: "4.1", .box(width: 1280, height: 720)),
        audio: 160000)
    case .size1920x1080:
      return movie(
        h264(nil, crf: 21, profile: "high", level: "4.1", .box(width: 1920, height: 1080)),
        audio: 160000)
    case .size3840x2160:
      return movie(
        h264(nil, crf: 20, profile: "high", level: "5.1", .box(width: 3840, height: 2160)),
        audio: 192000)
    case .hevcHighestQuality: return movie(hevc(.source), audio: 160000)
    case .hevc1920x1080: return movie(hevc(.box(width: 1920, height: 1080)), audio: 160000)
    case .hevc3840x2160: return movie(hevc(.box(width: 3840, height: 2160)), audio: 160000)
    case .appleM4A:
      return Settings(
        container: "ipod", fileExtension: "m4a", video: nil, audioBitRate: 256000, copy: false,
        movflags: "+faststart")
    case .passthrough:
      return Settings(
        container: "mp4", fileExtension: "mp4", video: nil, audioBitRate: nil, copy: true,
        movflags: "+faststart")
    }
  }
}

/// Output sizes, bit rates from bits per pixel, and the arithmetic of compressing to a size.
package enum ExportSizing {
  /// The size a `width`×`height` picture is given by `sizing`: libavfilter's `scale` with
  /// `force_original_aspect_ratio=decrease:force_divisible_by=2` (each side the box's or the
  /// other side's rescaled value rounded to nearest, the smaller kept, then rounded down to
  /// even), only when the picture is larger than the box; otherwise its own size rounded down
  /// to even (4:2:0 needs even sides).
  package static func outputSize(width: Int, height: Int, sizing: ExportPreset.Sizing) -> (
    width: Int, height: Int
  ) {
    switch sizing {
    case .source:
      return (width - width % 2, height - height % 2)
    case .box(let boxWidth, let boxHeight):
      guard width > boxWidth || height > boxHeight else {
        return (width - width % 2, height - height % 2)
      }
      // scale_eval.c (5.1): the other side rescaled (av_rescale: round to nearest, halves away
      // from zero), the smaller of that and the box kept, then rounded down to even.
      func rescale(_ a: Int, _ b: Int, _ c: Int) -> Int { (2 * a * b + c) / (2 * c) }
      let w = min(rescale(boxHeight, width, height), boxWidth)
      let h = min(rescale(boxWidth, height, width), boxHeight)
      return (w - w % 2, h - h % 2)
    }
  }

  /// The recording post's rule: bit rate = bits per pixel × width × height × frames per
  /// second, in bits per second (rounded to nearest).
  package static func bitRate(bitsPerPixel: Double, width: Int, height: Int, frameRate: Rational)
    -> Int
  {
    Int(
      (bitsPerPixel * Double(width) * Double(height) * Double(frameRate.num)
        / Double(frameRate.den)).rounded())
  }

  /// Parses a size cap: `8MB` (10^6 bytes), `8MiB` (2^20), `500kB`/`500KiB`, `1.5GB`, or a
  /// number of bytes; nil otherwise.
  package static func parseSize(_ text: String) -> Int64? {
    let units: [(String, Double)] = [
      ("kib", 1024), ("mib", 1_048_576), ("gib", 1_073_741_824), ("kb", 1000),
      ("mb", 1_000_000), ("gb", 1_000_000_000), ("b", 1), ("k", 1000), ("m", 1_000_000),
      ("g", 1_000_000_000),
    ]
    let lower = text.lowercased()
    for (suffix, factor) in units where lower.hasSuffix(suffix) {
      guard let number = Double(lower.dropLast(suffix.count)), number > 0, number.isFinite
      else { return nil }
      return Int64((number * factor).rounded(.down))
    }
    guard let bytes = Int64(lower), bytes > 0 else { return nil }
    return bytes
  }
}

/// A file-length limit (`AVAssetExportSession.fileLengthLimit`, `--max-size`): the output must
/// not exceed `maxBytes` and should use at least `lowerFraction` of it when the content needs
/// the bits. The first video bit rate comes from the arithmetic (trac.ffmpeg.org's
/// Encode/H.264: rate = size·8/duration − audio rate) less the container's overhead; the
/// encoder's result is then measured and the rate corrected (`nextVideoBitRate`) until the
/// size lands in range: a measured rate loop instead of two-pass.
package struct SizeBudget: Sendable, Equatable {
  /// The cap in bytes.
  package var maxBytes: Int64
  /// The output's duration in seconds.
  package var duration: Double
  /// The audio's bit rate (0: no audio).
  package var audioBitRate: Int
  /// Video frames per second (for the container's per-sample index).
  package var frameRate: Double
  /// Audio frames per second (48000/1024 for AAC at 48 kHz; 0: no audio).
  package var audioFrameRate: Double
  /// The fraction of the cap the size should reach at least (0.95).
  package var lowerFraction: Double = 0.95
  /// The fraction aimed at (the middle of the accepted range).
  package var targetFraction: Double = 0.975
  /// Audio channels (for the lowest audio bit rate of an audio-only output).
  package var channels: Int = 2

  /// True when the output has no video: its audio bit rate is what the passes adjust.
  package var audioOnly: Bool { frameRate == 0 }

  /// A budget.
  package init(
    maxBytes: Int64, duration: Double, audioBitRate: Int, frameRate: Double,
    audioFrameRate: Double
  ) {
    self.maxBytes = maxBytes
    self.duration = duration
    self.audioBitRate = audioBitRate
    self.frameRate = frameRate
    self.audioFrameRate = audioFrameRate
  }

  /// MP4's own bytes, estimated: 1 KiB of fixed boxes (ftyp, moov, the track headers) and 16
  /// bytes per video sample (stsz 4, ctts 8, stts/stco/stss share) and 8 per audio sample
  /// (stsz 4, stco share), rounded up.
  package var containerOverhead: Int64 {
    let samples = duration * (16 * frameRate + 8 * audioFrameRate)
    return 1024 + Int64(samples.rounded(.up))
  }

  /// The bytes aimed at: `targetFraction` of the cap.
  package var targetBytes: Int64 { Int64((Double(maxBytes) * targetFraction).rounded(.down)) }

  /// The audio's bytes: its bit rate over the duration.
  package var audioBytes: Int64 { Self.bytes(audioBitRate, over: duration) }

  /// The bytes `bitRate` b/s take over `duration` seconds (rounded up).
  package static func bytes(_ bitRate: Int, over duration: Double) -> Int64 {
    Int64((Double(bitRate) * duration / 8).rounded(.up))
  }

  /// The first video bit rate: (target bytes − container overhead)·8 / duration − audio rate;
  /// nil when the cap cannot even hold the audio and the container.
  package var firstVideoBitRate: Int? {
    let bits = Double(targetBytes - containerOverhead) * 8 / duration - Double(audioBitRate)
    return bits >= 1000 ? Int(bits.rounded(.down)) : nil
  }

  /// The lowest AAC bit rate an audio-only output is given: 16 kb/s per channel. Lower asks
  /// buy nothing: FFmpeg's AAC encoder wrote 32.4 kb/s of stereo noise when asked for 16 or
  /// 24 kb/s, and 15.8-17.9 kb/s of mono when asked for 8 or 16 kb/s (60 s at 48 kHz).
  package var lowestAudioBitRate: Int { 16_000 * max(1, channels) }

  /// An audio-only output's first audio bit rate: what the target leaves beside the container,
  /// (target − overhead)·8/duration, in whole kb/s, at most `highest` (the rate the preset or
  /// the options ask: the cap is a limit, not a reason to spend more); nil below
  /// `lowestAudioBitRate`.
  package func firstAudioBitRate(highest: Int) -> Int? {
    let bits = Double(targetBytes - containerOverhead) * 8 / duration
    let rate = min(highest, Int((bits / 1000).rounded(.down)) * 1000)
    return rate >= lowestAudioBitRate ? rate : nil
  }

  /// An audio-only output's next audio bit rate after a pass at `rate` wrote `bytes`: the rate
  /// scaled by what the target leaves beside the container over what the pass's audio took, in
  /// whole kb/s. Over the cap: at least 1 kb/s lower, nil below `lowestAudioBitRate` (the cap
  /// cannot be met). Under `lowerFraction` of it: higher by at least 1 kb/s, at most `highest`
  /// (nil when that buys nothing: the rate asked is reached). In range: nil.
  package func nextAudioBitRate(after rate: Int, wrote bytes: Int64, highest: Int) -> Int? {
    let audio = Double(bytes - containerOverhead)
    let wanted = Double(targetBytes - containerOverhead)
    guard audio > 0, wanted > 0, !accepts(bytes) else { return nil }
    let scaled = Int((Double(rate) * wanted / audio / 1000).rounded(.down)) * 1000
    if bytes > maxBytes {
      let next = min(scaled, rate - 1000)
      return next >= lowestAudioBitRate ? next : nil
    }
    let next = min(scaled, highest)
    return next >= rate + 1000 ? next : nil
  }

  /// True when `bytes` lies in the accepted range (`lowerFraction` of the cap to the cap).
  package func accepts(_ bytes: Int64) -> Bool {
    bytes <= maxBytes && Double(bytes) >= Double(maxBytes) * lowerFraction
  }

  /// The attempt to keep (its index): the first accepted one, else the largest not over the cap
  /// (content that cannot use the bits: a still picture stays under 95% at any rate); nil when
  /// every attempt is over the cap.
  package func choice(among attempts: [(videoBitRate: Int, bytes: Int64)]) -> Int? {
    if let accepted = attempts.firstIndex(where: { accepts($0.bytes) }) { return accepted }
    return attempts.indices.filter { attempts[$0].bytes <= maxBytes }
      .max { attempts[$0].bytes < attempts[$1].bytes }
  }

  /// The next video bit rate from the attempts so far (`(videoBitRate, bytes)` in order): the
  /// output's size is taken as fixed bytes (audio, container) plus a part proportional to the
  /// video rate; with one attempt the fixed part is the estimate (`audioBytes` +
  /// `containerOverhead`), with two or more it is fitted through the last two (a secant). At
  /// most 4 times the last rate; nil when a higher rate bought less than 1% of the cap (the
  /// content cannot use the bits: keep `choice(among:)`).
  package func nextVideoBitRate(after attempts: [(videoBitRate: Int, bytes: Int64)]) -> Int? {
    guard let last = attempts.last else { return firstVideoBitRate }
    if attempts.count >= 2 {
      let previous = attempts[attempts.count - 2]
      // More rate bought (almost) nothing: the content needs fewer bits than the cap allows.
      if last.videoBitRate > previous.videoBitRate,
        last.bytes - previous.bytes < maxBytes / 100, last.bytes < maxBytes
      {
        return nil
      }
    }
    let target = Double(targetBytes)
    var slope: Double
    var fixed: Double
    if attempts.count >= 2 {
      let previous = attempts[attempts.count - 2]
      slope =
        Double(last.bytes - previous.bytes) / Double(last.videoBitRate - previous.videoBitRate)
      fixed = Double(last.bytes) - slope * Double(last.videoBitRate)
    } else {
      fixed = Double(audioBytes + containerOverhead)
      slope = (Double(last.bytes) - fixed) / Double(last.videoBitRate)
    }
    guard slope.isFinite, slope > 0 else {
      // No measurable response (the content needs fewer bits than asked): nothing to gain.
      return nil
    }
    // At most 4 times the last rate up (a content that barely responds would ask for far more).
    let next = min((target - fixed) / slope, 4 * Double(last.videoBitRate))
    return next >= 1000 ? Int(next.rounded(.down)) : nil
  }

  /// One pass as the two-pass loop sees it: the video bit rate asked, the bytes written, and the
  /// bytes of the video packets among them (the rest is audio and container, measured).
  package typealias MeasuredPass = (videoBitRate: Int, bytes: Int64, videoBytes: Int64)

  /// The next video bit rate when the passes after the first use libx264's two-pass rate
  /// control (the first pass wrote its statistics). x264's second pass spends the rate it is
  /// asked over the whole output, closely (where its one-pass ABR can miss by half on a short
  /// busy clip: 6 s of heavy noise at 222 kb/s wrote 338 kb/s, measured), so after the first
  /// pass the video is given what the target leaves beside the audio and container bytes that
  /// pass measured: (target − measured fixed bytes)·8/duration. When the first pass spent less
  /// than half the rate asked, the content may not use the bits: the rate is scaled by what it
  /// spent (at most 4 times), as after a second-pass attempt, whose small miss is corrected
  /// the same way (asked × (target − fixed)/video bytes). Nil when a rate 10% or more higher
  /// bought less than 1% of the cap, or the video wrote nothing.
  package func nextTwoPassVideoBitRate(after attempts: [MeasuredPass]) -> Int? {
    guard let last = attempts.last else { return firstVideoBitRate }
    if attempts.count >= 2 {
      // A rate at least 10% higher bought less than 1% of the cap. (A small step up may write
      // fewer bytes: the first pass is x264's ABR, the later ones its two-pass planning.)
      let previous = attempts[attempts.count - 2]
      if Double(last.videoBitRate) >= 1.1 * Double(previous.videoBitRate),
        last.bytes - previous.bytes < maxBytes / 100, last.bytes < maxBytes
      {
        return nil
      }
    }
    guard last.videoBytes > 0 else { return nil }
    let fixed = Double(last.bytes - last.videoBytes)
    let videoTarget = Double(targetBytes) - fixed
    let asked = Double(last.videoBitRate) * duration / 8
    let next: Double
    if attempts.count == 1, Double(last.videoBytes) >= asked / 2 {
      next = videoTarget * 8 / duration
    } else {
      next = min(
        Double(last.videoBitRate) * videoTarget / Double(last.videoBytes),
        4 * Double(last.videoBitRate))
    }
    return next >= 1000 ? Int(next.rounded(.down)) : nil
  }
}
