import MediaCore
import AV
import Compatibility
import MediaProbe

/// Everything `mediamerge` decided before running ffmpeg: the timeline, the render size, how
/// each clip is made upright and fitted, copy or encode (and why), the exact ffmpeg command, and
/// what the output must look like afterwards. Encoded with `MediaToolsJSONEncoder()` (snake_case
/// keys, unknown values `null`); the schema is `schemas/mediamerge-plan.schema.json`.
public struct MergePlan: Codable, Sendable, Equatable {
  /// The version of this layout (1).
  public var schemaVersion: Int
  /// The output path as given.
  public var output: String
  /// The output container: `mp4` or `mov`.
  public var container: String
  /// The clips in timeline order.
  public var clips: [PlannedClip]
  /// The whole timeline: the end of the last clip (the sum of the clips' durations).
  public var duration: MediaTime
  /// `copy` (the video packets are copied) or `encode` (every clip decoded, normalised,
  /// encoded once).
  public var method: VideoMethod
  /// Why the video cannot be copied (empty when `method` is `copy`).
  public var copyBlockers: [CopyBlocker]
  /// The size, frame rate and fitting every clip is rendered to.
  public var render: RenderPlan
  /// The video stream of the output.
  public var video: VideoEncoding
  /// The audio stream of the output; null when no clip has audio (none is invented).
  @NullEncoded public var audio: AudioEncoding?
  /// The platform the output was made for (`--platform`), null otherwise.
  @NullEncoded public var platform: String?
  /// The chapters of the output: each clip's own, moved to where the clip starts on the
  /// timeline (clip start + chapter time, exact), and one named after each clip that has none
  /// (or for the part of a clip before its first chapter), so they cover the timeline as an MP4
  /// chapter track does; empty when no clip has chapters (then the output has none, and no
  /// chapter track).
  public var chapters: [PlannedChapter]
  /// What the plan leaves out, in words (chapters outside their clip's span, ...).
  public var warnings: [String]
  /// The command that does it.
  public var ffmpeg: FFmpegCommand
  /// What the written file must show when probed, or it is not kept.
  public var expected: ExpectedOutput
}

/// One chapter of the merged file.
public struct PlannedChapter: Codable, Sendable, Equatable {
  /// Where it starts on the timeline: its clip's start plus its time in the clip.
  public var start: MediaTime
  /// Where it ends: the next chapter's start, or the end of the timeline.
  public var end: MediaTime
  /// Its title (a clip without chapters: the clip's file name).
  public var title: String
  /// The clip it comes from (from 0).
  public var clip: Int
}

/// A chapter of a clip, on the clip's own timeline (0 = where it starts presenting).
public struct ClipChapter: Codable, Sendable, Equatable {
  /// Where it starts in the clip (exact).
  public var start: MediaTime
  /// Where it ends in the clip (exact).
  public var end: MediaTime
  /// Its title tag, when it has one.
  public var title: String?

  /// A chapter.
  public init(start: MediaTime, end: MediaTime, title: String?) {
    self.start = start
    self.end = end
    self.title = title
  }
}

/// How the output's video is made.
public enum VideoMethod: String, Codable, Sendable {
  /// The clips' video packets are copied (the concat demuxer), not decoded.
  case copy
  /// Every clip is decoded, made upright, fitted to the render size and encoded once.
  case encode
}

/// One clip on the timeline.
public struct PlannedClip: Codable, Sendable, Equatable {
  /// Its position in the merge, from 0.
  public var index: Int
  /// The path as given.
  public var path: String
  /// Where it starts on the merged timeline: the sum of the previous clips' durations.
  public var start: MediaTime
  /// How long it lasts: the longer of its audio and video (the probe's exact span, edit lists
  /// honoured), so its audio never runs into the next clip.
  public var duration: MediaTime
  /// `start + duration`.
  public var end: MediaTime
  /// The video stream used.
  public var video: ClipVideo
  /// The audio stream used; null when the clip has none (silence is put in its place).
  @NullEncoded public var audio: ClipAudio?
  /// What is added so both streams last `duration`.
  public var padding: ClipPadding
  /// How the clip is made upright and fitted to the render size (`encode` only).
  @NullEncoded public var transform: ClipTransform?
  /// Output video frames this clip covers (`encode` only): the frame grid rounded at the clip's
  /// end, so rounding never accumulates over clips.
  @NullEncoded public var frames: Int64?
  /// Output audio samples this clip covers (rounded at its end, as `frames`); null without
  /// audio output.
  @NullEncoded public var samples: Int64?
  /// The clip's video filter chain (`encode` only).
  @NullEncoded public var videoFilter: String?
  /// The clip's audio filter chain; null without audio output.
  @NullEncoded public var audioFilter: String?
}

/// A clip's video stream, as probed.
public struct ClipVideo: Codable, Sendable, Equatable {
  /// The stream's index in the clip.
  public var stream: Int
  /// FFmpeg's codec name.
  public var codec: String
  /// The codec profile.
  @NullEncoded public var profile: String?
  /// The stored (natural) width.
  public var width: Int
  /// The stored height.
  public var height: Int
  /// The width it displays at (rotation and sample aspect ratio applied).
  public var displayWidth: Int
  /// The height it displays at.
  public var displayHeight: Int
  /// The `UIImageOrientation` name of its display matrix (`up`, `right`, `left_mirrored`, ...).
  public var orientation: String
  /// Clockwise degrees the matrix turns it (0, 90, 180, 270).
  public var rotation: Int
  /// True when the matrix flips it.
  public var mirrored: Bool
  /// The frame rate to trust (the probe's `best`), null when unknown.
  @NullEncoded public var frameRate: Rational?
  /// The stream's time base.
  public var timeBase: Rational
  /// The stream's exact presented duration.
  public var duration: MediaTime
}

/// A clip's audio stream, as probed.
public struct ClipAudio: Codable, Sendable, Equatable {
  /// The stream's index in the clip.
  public var stream: Int
  /// FFmpeg's codec name.
  public var codec: String
  /// Samples per second.
  @NullEncoded public var sampleRate: Int?
  /// Channels.
  @NullEncoded public var channels: Int?
  /// The channel layout's name.
  @NullEncoded public var channelLayout: String?
  /// The stream's exact presented duration.
  public var duration: MediaTime
}

/// What is added to a clip's streams so both last the clip's duration.
public struct ClipPadding: Codable, Sendable, Equatable {
  /// How long the last video frame is held (encode: repeated; copy: shown until the next clip).
  public var video: MediaTime
  /// How much silence follows the clip's audio (all of it for a clip without audio).
  public var audio: MediaTime
}

/// How a clip is turned upright and fitted into the render size.
public struct ClipTransform: Codable, Sendable, Equatable {
  /// The filters that apply its display matrix to the pixels (`transpose=clock`, `hflip`, ...),
  /// empty when it is stored upright.
  public var upright: [String]
  /// Where its scaled picture lands in the output: left edge (negative when cropped).
  public var x: Int
  /// Top edge (negative when cropped).
  public var y: Int
  /// The scaled picture's width.
  public var width: Int
  /// The scaled picture's height.
  public var height: Int
}

/// The render size and rate.
public struct RenderPlan: Codable, Sendable, Equatable {
  /// The output's width.
  public var width: Int
  /// The output's height.
  public var height: Int
  /// Where the size comes from, in words.
  public var sizeRule: String
  /// `fit` (whole picture, black bars) or `fill` (cover, cropped); null for stream copy.
  @NullEncoded public var fit: FitMode?
  /// The output frame rate; null for stream copy when the clips' rate is unknown.
  @NullEncoded public var frameRate: Rational?
}

/// How a clip of another shape is fitted into the render size.
public enum FitMode: String, Codable, Sendable, CaseIterable {
  /// Scale to fit inside, centred, black bars (AVFoundation's resize-aspect).
  case fit
  /// Scale to cover, centred, cropped (resize-aspect-fill).
  case fill
}

/// The output's video stream.
public struct VideoEncoding: Codable, Sendable, Equatable {
  /// copy or encode.
  public var method: VideoMethod
  /// The codec written.
  public var codec: String
  /// The encoder and its settings; null for a copy.
  @NullEncoded public var encoder: VideoEncoderSettings?
  /// The encoder's speed preset (`veryfast`), when one is set.
  @NullEncoded public var preset: String?
  /// The constant rate factor (quality), when the rate is not set by `bit_rate`.
  @NullEncoded public var crf: Int?
  /// The video bit rate to aim for (a platform's limit), in bits per second.
  @NullEncoded public var bitRate: Int?

  /// The rate-control buffer around `bitRate` (bits per second and bits): a peak of 5/4 of the
  /// rate over a buffer of two seconds of it. The render and the printed command both use it.
  public var rateLimits: (maxRate: Int, bufferSize: Int)? {
    bitRate.map { ($0 * 5 / 4, $0 * 2) }
  }
  /// The sample entry the output is tagged with (`avc1`, `hvc1`), when one is asked for.
  @NullEncoded public var tag: String?
}

/// The output's audio stream: always encoded once, from every clip's decoded audio.
public struct AudioEncoding: Codable, Sendable, Equatable {
  /// The codec written (`aac`).
  public var codec: String
  /// Samples per second.
  public var sampleRate: Int
  /// Channels.
  public var channels: Int
  /// The channel layout's name.
  public var channelLayout: String
  /// The encoder and its settings.
  public var encoder: AudioEncoderSettings
  /// Why it is encoded rather than copied.
  public var reason: String
}

/// Why the video cannot be stream-copied.
public struct CopyBlocker: Codable, Sendable, Equatable {
  /// The clip (from 0) that differs from the first, null when it is about the request.
  @NullEncoded public var clip: Int?
  /// What differs (`video.time_base`, `video.extradata`, `orientation`, `request`, ...).
  public var field: String
  /// The exact reason, with both values.
  public var reason: String
}

/// The command that makes the output.
public struct FFmpegCommand: Codable, Sendable, Equatable {
  /// The ffmpeg executable (found on PATH).
  public var executable: String
  /// The complete argument list, starting with the executable; the last argument is the output,
  /// which `mediamerge` replaces with its temporary file in the same directory.
  public var arguments: [String]
  /// What is written to ffmpeg's standard input (the concat list of a stream copy), or null.
  @NullEncoded public var stdin: String?
}

/// What probing the written file must show.
public struct ExpectedOutput: Codable, Sendable, Equatable {
  /// The video's stored width.
  public var width: Int
  /// The video's stored height.
  public var height: Int
  /// The width it displays at.
  public var displayWidth: Int
  /// The height it displays at.
  public var displayHeight: Int
  /// The display matrix's orientation name: `up` when encoded (the pixels are upright), the
  /// clips' own when copied (the matrix is kept).
  public var orientation: String
  /// The video codec.
  public var videoCodec: String
  /// The audio codec; null when the output has no audio.
  @NullEncoded public var audioCodec: String?
  /// The file's duration.
  public var duration: MediaTime
  /// The video stream's duration.
  public var videoDuration: MediaTime
  /// The audio stream's duration; null without audio.
  @NullEncoded public var audioDuration: MediaTime?
  /// How far a video or file duration may be off: one output frame.
  public var videoTolerance: MediaTime
  /// How far the audio duration may be off: one AAC frame (1024 samples).
  public var audioTolerance: MediaTime
  /// The most bytes the output may take: 32 times the clips' bytes, at least 64 MiB (more when
  /// a platform recipe's bit rate needs it). A plan whose smallest possible output is larger is
  /// refused (`implausible_plan`); a render that grows past it is stopped.
  public var maxBytes: Int64
}
