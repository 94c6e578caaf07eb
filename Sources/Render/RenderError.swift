import AV
import MediaCore
import OutputKit

/// Why a render (a remux or a transcode) failed. Each case has a stable `code` for scripts and
/// keeps the failure underneath as its `cause` (the FFmpeg error, or the `errno` of a write).
/// Whatever the case, the output file was not committed: nothing is left behind.
public enum RenderError: ToolError, Equatable {
  /// The input could not be opened; the code is the probe's (`not_found`, `truncated`, ...).
  case input(path: String, ProbeError)
  /// Nothing to write: the settings chose no stream, or the input has none of the kinds asked
  /// for (`no_streams`).
  case noStreams(String)
  /// The settings cannot apply to this input: a stream index it does not have, an encoding of
  /// the wrong kind for a stream, a stream without the timing a setting needs
  /// (`invalid_settings`).
  case invalidSettings(String)
  /// A stream's decoder is missing or failed to open (`decoder_error`).
  case decoder(stream: Int, FFmpegError)
  /// No encoder of that name in this FFmpeg build, or not one of the right kind
  /// (`encoder_not_found`).
  case encoderNotFound(String, FFmpegError)
  /// The encoder refused its settings (a value out of range, an option it does not take:
  /// named) or failed while encoding (`encoder_error`).
  case encoder(String, FFmpegError)
  /// The filter graph could not be built or configured (a syntax error, an unknown filter,
  /// formats that cannot be negotiated), failed while filtering, or libavfilter could not be
  /// loaded (`filter_error`).
  case filter(String, FFmpegError)
  /// The muxer refused the output: an unknown container, a codec it cannot hold, an option it
  /// does not take, a timestamp it cannot write (`muxer_error`).
  case muxer(String, FFmpegError)
  /// Writing the output failed (a full disk: `ENOSPC`; past the file size limit: `EFBIG`); the
  /// code is the output file's own (`write_error`), as every tool reports it.
  case output(path: String, OutputFileError)
  /// SIGINT or SIGTERM stopped the render (`interrupted`).
  case interrupted
  /// The render's time limit (or its input's) passed (`timeout`).
  case timeout(seconds: Double?)

  /// The stable machine-readable code.
  public var code: String {
    switch self {
    case .input(_, let error): error.code
    case .noStreams: "no_streams"
    case .invalidSettings: "invalid_settings"
    case .decoder: "decoder_error"
    case .encoderNotFound: "encoder_not_found"
    case .encoder: "encoder_error"
    case .filter: "filter_error"
    case .muxer: "muxer_error"
    case .output(_, let error): error.code
    case .interrupted: "interrupted"
    case .timeout: "timeout"
    }
  }

  /// A sentence for humans.
  public var message: String {
    switch self {
    case .input(let path, let error): "\(path): \(error.message)"
    case .noStreams(let detail): "nothing to write: \(detail)"
    case .invalidSettings(let detail): "the render settings do not fit the input: \(detail)"
    case .decoder(let stream, let error): "cannot decode stream \(stream): \(error.message)"
    case .encoderNotFound(let name, _): "no encoder named \(name) in this FFmpeg"
    case .encoder(let name, let error): "the \(name) encoder failed: \(error.message)"
    case .filter(let detail, let error): "\(detail): \(error.message)"
    case .muxer(let detail, let error): "\(detail): \(error.message)"
    case .output(_, let error): error.message
    case .interrupted: "interrupted; the partial output was removed"
    case .timeout(let seconds):
      seconds.map { "the render took longer than \(fixed($0, places: 1)) s; nothing was written" }
        ?? "the render's time limit passed; nothing was written"
    }
  }

  /// The failure underneath: the FFmpeg error, the write's `errno`, the probe's cause.
  public var cause: ErrorCause? {
    switch self {
    case .input(_, let error): error.cause
    case .decoder(_, let error), .encoderNotFound(_, let error), .encoder(_, let error),
      .filter(_, let error), .muxer(_, let error):
      error.cause
    case .output(_, let error): error.cause
    case .noStreams, .invalidSettings, .interrupted, .timeout: nil
    }
  }
}
