import MediaCore

/// What `mediacompat --fix` does to a file, cheapest first (Jellyfin's ladder: direct play,
/// remux, audio-only transcode, full transcode, with a retag step below the remux).
public enum FixAction: String, Codable, Sendable, Comparable, CaseIterable {
  /// The file already passes every platform: nothing to do.
  case none
  /// Same container, every packet copied; only metadata changes (the video's sample entry:
  /// `hev1` → `hvc1`, `avc3` → `avc1`).
  case retag
  /// Another container, every packet copied byte for byte (MP4 with `+faststart`).
  case remux
  /// The video copied, the audio re-encoded.
  case transcodeAudio = "transcode-audio"
  /// The video re-encoded (the audio copied or re-encoded).
  case transcodeVideo = "transcode-video"

  /// Cheaper actions sort first.
  public static func < (a: FixAction, b: FixAction) -> Bool {
    allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
  }
}

/// A failing rule of one platform, as the plan cites it.
public struct FixFinding: Codable, Sendable, Equatable {
  /// The platform's id.
  public var platform: String
  /// The rule's id (`direct-play` for the container × codec rows).
  public var rule: String
  /// The fact it tests.
  public var field: String
  /// The file's value (null: unknown).
  @NullEncoded public var actual: String?
  /// The limit in words.
  public var limit: String
  /// The fix the rule asks for.
  public var fix: Fix

  /// The finding of `verdict`'s platform.
  init(platform: String, _ finding: RuleFinding) {
    self.platform = platform
    rule = finding.rule
    field = finding.field
    actual = finding.actual
    limit = finding.limit
    fix = finding.fix
  }

  /// `chrome: audio.codec ac3 (in aac, mp3, ...)`.
  public var text: String { "\(platform): \(field) \(actual ?? "unknown") (\(limit))" }
}

/// Why a cheaper step than the chosen one could not make the file pass.
public struct SkippedStep: Codable, Sendable, Equatable {
  /// The step.
  public var action: FixAction
  /// Why not, in words.
  public var reason: String
  /// What the step's best output would still fail (empty when the step does not apply at all).
  public var wouldFail: [FixFinding]
}

/// A step that cannot make the file pass is the failure of trying it.
extension SkippedStep: Error {}

/// The video of a fixed file: copied (perhaps with a new sample entry) or re-encoded.
public struct VideoFixPlan: Codable, Sendable, Equatable {
  /// The input stream's index.
  public var input: Int
  /// The input's codec.
  public var sourceCodec: String
  /// The output's codec.
  public var codec: String
  /// Copied (packets byte for byte) rather than re-encoded.
  public var copy: Bool
  /// The sample entry (codec tag) written instead of the muxer's default (`hvc1`); nil: the
  /// muxer's own choice (`avc1` for H.264 in MP4) or the input's.
  @NullEncoded public var tag: String?
  /// How it is re-encoded (nil when copied).
  @NullEncoded public var encode: VideoEncodePlan?
}

/// A video re-encode: what the platforms need and nothing more.
public struct VideoEncodePlan: Codable, Sendable, Equatable {
  /// The encoder and the profile, pixel format and level it is opened with.
  public var settings: VideoEncoderSettings
  /// libx264's constant quality (CRF); the default 23. Used when `bitRate` is nil.
  public var crf: Double
  /// The encoder's preset (`medium`, x264's default).
  public var preset: String
  /// The stored picture's width after the filters.
  public var width: Int
  /// The stored picture's height after the filters.
  public var height: Int
  /// The frame rate the encoder is given (the source's unless a platform caps it).
  public var frameRate: Double
  /// Scaled down into a platform's box.
  public var scaled: Bool
  /// The frame rate lowered to a platform's limit.
  public var rateCapped: Bool
  /// Deinterlaced (`yadif`).
  public var deinterlaced: Bool
  /// The libavfilter chain between the decoder and the encoder (`null`: none).
  public var filter: String
  /// A target bit rate (nil: CRF only).
  @NullEncoded public var bitRate: Int?
  /// HDR (PQ or HLG) tone-mapped to SDR BT.709 (`ToneMapping`): the platforms' encoder writes
  /// 8-bit pictures, which cannot carry the source's light. The output is tagged BT.709.
  public var toneMapped: Bool = false
}

/// The audio of a fixed file: copied or re-encoded.
public struct AudioFixPlan: Codable, Sendable, Equatable {
  /// The input stream's index.
  public var input: Int
  /// The input's codec.
  public var sourceCodec: String
  /// The output's codec.
  public var codec: String
  /// Copied (packets byte for byte) rather than re-encoded.
  public var copy: Bool
  /// How it is re-encoded (nil when copied).
  @NullEncoded public var encode: AudioEncodePlan?
}

/// An audio re-encode.
public struct AudioEncodePlan: Codable, Sendable, Equatable {
  /// The encoder, profile and bit rate.
  public var settings: AudioEncoderSettings
  /// Output channels (the source's unless a platform caps them: `downmixed`).
  public var channels: Int
  /// Output sample rate (the source's unless the encoder or a platform needs another).
  public var sampleRate: Int
  /// Fewer channels than the source.
  public var downmixed: Bool
  /// Another sample rate than the source's.
  public var resampled: Bool
}

/// The typed plan of one file's fix: the action, why, why nothing cheaper does it, and exactly
/// what is written. The in-process executor and `--suggest`'s ffmpeg command are both derived
/// from it, so the two cannot disagree.
public struct FixPlan: Codable, Sendable, Equatable {
  /// The cheapest action that passes every platform.
  public var action: FixAction
  /// Why, in words: the failing rules that chose it.
  public var reason: String
  /// The failing rules of the input, per platform.
  public var failing: [FixFinding]
  /// Each cheaper step, and why it could not do it.
  public var cheaperSteps: [SkippedStep]
  /// The output container, as platforms name it (`mp4`, `mov`, `mkv`, `webm`, `ogg`).
  public var container: String
  /// The output file's extension.
  public var fileExtension: String
  /// The muxer's options (`movflags=+faststart` for MP4 and QuickTime).
  public var muxerOptions: [String: String]
  /// The video stream (nil: the file has none).
  @NullEncoded public var video: VideoFixPlan?
  /// The audio stream (nil: the file has none).
  @NullEncoded public var audio: AudioFixPlan?
  /// The verdicts the planner expects of the output (from the facts it would have); the
  /// executor's re-check probes the real output.
  public var expected: [PlatformVerdict]
  /// Streams of the input the output leaves out (subtitles, data, further audio), by index.
  public var droppedStreams: [Int]
  /// Further streams copied beside the video and the audio, by index: other audio tracks (a
  /// second language) in the copied audio's codec, and 3GPP timed text (`mov_text`) into MP4
  /// or QuickTime.
  public var keptStreams: [Int] = []

  /// libavformat's muxer name for `container`.
  public var muxerName: String {
    switch container {
    case "mkv": "matroska"
    case "ts": "mpegts"
    default: container
    }
  }

  /// The ffmpeg command that performs the same plan: the same streams, copied or encoded with
  /// the same settings, the same filters, container and muxer options.
  ///
  /// - Parameters:
  ///   - input: the input path.
  ///   - output: the output path.
  public func ffmpegArguments(input: String, output: String) -> [String] {
    // The display matrix is kept, the pictures not turned (as the render does).
    let rotate = video?.encode != nil ? ["-noautorotate"] : []
    var arguments = ["ffmpeg", "-nostdin"] + rotate + ["-i", input]
    if let video { arguments += ["-map", "0:\(video.input)"] }
    if let audio { arguments += ["-map", "0:\(audio.input)"] }
    for index in keptStreams { arguments += ["-map", "0:\(index)"] }
    if let video {
      if let encode = video.encode {
        if encode.filter != "null" { arguments += ["-vf", encode.filter] }
        arguments += encode.settings.ffmpegArguments
        arguments += ["-preset", encode.preset]
        // A platform's bit rate (the historical tiers) replaces constant quality, as in the
        // render (`RateControl.bitRate`).
        if encode.bitRate == nil {
          arguments += ["-crf", RuleValue.number(encode.crf).description]
        }
        if let bitRate = encode.bitRate {
          arguments += [
            "-b:v", "\(bitRate)", "-maxrate", "\(bitRate * 5 / 4)", "-bufsize", "\(bitRate * 2)",
          ]
        }
      } else {
        arguments += ["-c:v", "copy"]
      }
      if let tag = video.tag { arguments += ["-tag:v", tag] }
    }
    if let audio {
      if let encode = audio.encode {
        arguments += encode.settings.ffmpegArguments
        arguments += ["-ac", "\(encode.channels)", "-ar", "\(encode.sampleRate)"]
      } else {
        arguments += ["-c:a", "copy"]
      }
    }
    // Kept further audio is in the copied audio's codec (`-c:a copy` above); timed text too.
    if !keptStreams.isEmpty { arguments += ["-c:s", "copy"] }
    for (key, value) in muxerOptions.sorted(by: { $0.key < $1.key }) {
      arguments += ["-\(key)", value]
    }
    arguments += ["-f", muxerName, output]
    return arguments
  }

  /// The same command as one shell line.
  public func ffmpegCommand(input: String, output: String) -> String {
    ffmpegArguments(input: input, output: output).map(Suggestion.shellQuoted).joined(
      separator: " ")
  }
}

/// Why a file cannot be fixed (planning); each with a stable code.
public enum FixPlanError: ToolError, Equatable {
  /// The file has no audio or video stream to make play (`no_playable_stream`).
  case noPlayableStream
  /// The file's streams are encrypted (`drm_protected`): no re-encode or remux can help.
  case drmProtected(String)
  /// No action this tool can take passes every named platform (`not_fixable`), with the
  /// findings the best step would still fail, or why no step may touch the file.
  case notFixable([FixFinding], because: String? = nil)

  /// The stable machine-readable code.
  public var code: String {
    switch self {
    case .noPlayableStream: "no_playable_stream"
    case .drmProtected: "drm_protected"
    case .notFixable: "not_fixable"
    }
  }

  /// A sentence for humans.
  public var message: String {
    switch self {
    case .noPlayableStream: "the file has no audio or video stream to make playable"
    case .drmProtected(let detail): "the file is DRM-protected (\(detail)); it cannot be fixed"
    case .notFixable(let findings, let reason?):
      "no remux or re-encode this tool can do keeps the file right: \(reason); it fails: "
        + findings.map(\.text).joined(separator: "; ")
    case .notFixable(let findings, nil):
      "no remux or re-encode this tool can do passes every platform; the best would still fail: "
        + findings.map(\.text).joined(separator: "; ")
    }
  }

  /// No failure underneath.
  public var cause: ErrorCause? { nil }
}
