import Compatibility
import MediaCore

/// One file's record of `mediacompat --fix` (a line of its NDJSON; schema in
/// `schemas/mediacompat-fix.schema.json`).
public struct FixReport: Codable, Sendable, Equatable {
  /// The input as given.
  public var path: String
  /// Where the output goes (null: nothing to write, or `--dry-run` without a destination).
  @NullEncoded public var output: String?
  /// `fixed` (written and re-checked), `fine` (already passes; nothing written),
  /// `planned` (`--dry-run`), `failed` (see `error`).
  public var status: String
  /// The platforms the output must pass.
  public var platforms: [String]
  /// The action.
  @NullEncoded public var action: FixAction?
  /// Why that action.
  @NullEncoded public var reason: String?
  /// The plan (null when the input could not be probed or planned).
  @NullEncoded public var plan: FixPlan?
  /// The equivalent ffmpeg command (with `--suggest`).
  @NullEncoded public var command: String?
  /// What became of each output stream.
  public var streams: [StreamOutcome]
  /// The input's size.
  @NullEncoded public var bytesIn: Int64?
  /// The output's size (null when nothing was written).
  @NullEncoded public var bytesOut: Int64?
  /// Seconds the file took (probe, plan, render, re-check).
  public var seconds: Double
  /// Seconds of each phase: `probe` (and plan), `render` (the remux or transcode), `recheck`
  /// (probe and decode of the output), `quality` (SSIM/PSNR).
  public var timings: [String: Double]
  /// The re-check of the output (null when nothing was written).
  @NullEncoded public var recheck: Recheck?
  /// Video quality against the input, for a video re-encode.
  @NullEncoded public var quality: Quality?
  /// Why the file could not be fixed.
  @NullEncoded public var error: FixFailure?

  /// A report with nothing done yet.
  public init(path: String, platforms: [String]) {
    self.path = path
    output = nil
    status = "failed"
    self.platforms = platforms
    action = nil
    reason = nil
    plan = nil
    command = nil
    streams = []
    bytesIn = nil
    bytesOut = nil
    seconds = 0
    timings = [:]
    recheck = nil
    quality = nil
    error = nil
  }
}

/// What became of one stream.
public struct StreamOutcome: Codable, Sendable, Equatable {
  /// The input stream's index.
  public var input: Int
  /// The output stream's index.
  public var output: Int
  /// `video` or `audio`.
  public var kind: String
  /// `copied` (packets byte for byte) or `re-encoded`.
  public var treatment: String
  /// The output's codec.
  public var codec: String
  /// The encoder's settings, in the ffmpeg options that state them (null when copied).
  @NullEncoded public var settings: [String]?
  /// Packets written.
  public var packets: Int
}

/// The output, checked the way its input was.
public struct Recheck: Codable, Sendable, Equatable {
  /// What was decoded: `all` packets, or video `keyframes` (and all audio) with
  /// `--fast-recheck`.
  public var scope: VerifyScope
  /// Every platform passes (warnings allowed) and every stream decodes without an error.
  public var passed: Bool
  /// The output's verdict per platform.
  public var verdicts: [PlatformVerdict]
  /// The verify path's verdict (`ok`, `damaged`, `truncated`, `undecodable`).
  @NullEncoded public var integrity: Integrity?
  /// The input's duration in seconds.
  @NullEncoded public var inputDuration: Double?
  /// The output's duration in seconds.
  @NullEncoded public var outputDuration: Double?
  /// The audio's start minus the video's start in the output, minus the same in the input
  /// (seconds; 0 when the sync is kept exactly; null without both).
  @NullEncoded public var syncShift: Double?
}

/// SSIM and PSNR of the re-encoded video against the input (libavfilter's `ssim` and `psnr`,
/// over every frame, the input scaled to the output's size where it was scaled).
public struct Quality: Codable, Sendable, Equatable {
  /// The mean SSIM over all planes (1 = identical).
  public var ssim: Double
  /// The mean PSNR in dB over all planes (null when identical: infinite).
  @NullEncoded public var psnr: Double?
  /// Frames compared.
  public var frames: Int
}

/// Why a file could not be fixed: the stable code, the sentence, and what lies underneath.
public struct FixFailure: Codable, Sendable, Equatable {
  /// The stable code (`not_fixable`, `fix_check_failed`, `output_is_input`, `write_error`, ...).
  public var code: String
  /// A sentence for humans.
  public var message: String
  /// The failure underneath (an FFmpeg error, an `errno`), when there is one.
  @NullEncoded public var cause: String?
}
