import AV
import MediaCore
import OutputKit

/// Why a picture could not be taken or written. Each case has a stable `code` for scripts and
/// keeps the failure underneath as its `cause`. Whatever the case, no output file was left.
public enum FrameError: ToolError, Equatable {
  /// The input could not be opened; the code is the probe's (`not_found`, `truncated`, ...).
  case input(ProbeError)
  /// The input has no video stream to take a picture of (`no_video`); `hasCover` says that it
  /// has cover art, which `--cover` gives.
  case noVideo(hasCover: Bool)
  /// The input has no video stream FFmpeg 5.1 knows, but streams of codecs it does not know
  /// (`unknown`: "stream 0, tag 0x33"), which may be video (an MPEG-TS VVC stream): `no_video`
  /// with that said.
  case noKnownVideo(unknown: String)
  /// `--cover` was asked for and the input has no cover art (`no_cover`).
  case noCover
  /// The time asked for lies past the end of the video (`time_past_end`).
  case pastEnd(requested: Double, duration: Double)
  /// The time asked for lies past the end of the video's last frame, which ends before the
  /// duration the headers state (`stated`, nil when none): a file cut short
  /// (`time_past_end`).
  case pastLastFrame(requested: Double, end: Double, stated: Double?)
  /// The decoder gave no picture where one was asked for (`no_frame`).
  case noFrame(String)
  /// The stream's decoder is missing or failed to open (`decoder_error`).
  case decoder(FFmpegError)
  /// Converting the picture (libswscale, or the tone-mapping graph) failed (`filter_error`).
  case filter(String, FFmpegError)
  /// The image encoder refused its settings or failed (`encoder_error`).
  case encoder(String, FFmpegError)
  /// The output's name says no image format this tool writes (`unsupported_output`).
  case unsupportedOutput(String)
  /// The audio of `--waveform` could not be read; the code is the extraction's
  /// (`no_audio_stream`, `no_decodable_audio`, `decoder_error`, the probe's input codes).
  case audio(ExtractError)
  /// The options do not fit this input (`invalid_option`).
  case invalidOption(String)
  /// Writing the output failed; the code is the output file's own (`output_exists`,
  /// `write_error`, ...).
  case output(OutputFileError)
  /// Another input of the same call already writes `path` (`duplicate_output`): inputs whose
  /// names differ only in their folder or extension, into one `--output-dir` or beside each
  /// other. `owner` is that input; it keeps the name.
  case duplicateOutput(String, owner: String)
  /// SIGINT or SIGTERM stopped the work (`interrupted`).
  case interrupted
  /// The input's time limit passed (`timeout`).
  case timeout(seconds: Double?)

  /// The stable machine-readable code.
  public var code: String {
    switch self {
    case .input(let error): error.code
    case .audio(let error): error.code
    case .noVideo, .noKnownVideo: "no_video"
    case .noCover: "no_cover"
    case .pastEnd, .pastLastFrame: "time_past_end"
    case .noFrame: "no_frame"
    case .decoder: "decoder_error"
    case .filter: "filter_error"
    case .encoder: "encoder_error"
    case .unsupportedOutput: "unsupported_output"
    case .invalidOption: "invalid_option"
    case .duplicateOutput: "duplicate_output"
    case .output(let error): error.code
    case .interrupted: "interrupted"
    case .timeout: "timeout"
    }
  }

  /// A sentence for humans.
  public var message: String {
    switch self {
    case .input(let error): error.message
    case .audio(let error): error.message
    case .noVideo(let hasCover):
      hasCover
        ? "no video stream (the file has cover art: --cover writes it)" : "no video stream"
    case .noKnownVideo(let unknown):
      "no video stream FFmpeg 5.1 knows: \(unknown) of a codec it does not know, which "
        + "mediaprobe names from the container"
    case .noCover: "no cover art (no attached picture stream)"
    case .pastEnd(let requested, let duration):
      "\(Self.apart(requested, duration).0) s is past the end of the video "
        + "(duration \(Self.apart(requested, duration).1) s)"
    case .pastLastFrame(let requested, let end, let stated):
      "\(Self.apart(requested, end).0) s is past the end of the video: its last frame ends at "
        + "\(Self.apart(requested, end).1) s"
        + (stated.map {
          " though its header says \(fixed($0, places: 3)) s (the file may be cut short)"
        }
          ?? "")
    case .noFrame(let detail): "no picture decoded: \(detail)"
    case .decoder(let error): "cannot decode the video: \(error.message)"
    case .filter(let detail, let error): "\(detail): \(error.message)"
    case .encoder(let name, let error): "the \(name) encoder failed: \(error.message)"
    case .unsupportedOutput(let name):
      "cannot tell the image format of \(name): name it .jpg, .jpeg, .png or .webp"
    case .invalidOption(let detail): detail
    case .output(let error): error.message
    case .duplicateOutput(let path, let owner):
      "\(path) is the output of \(owner) in this call already: give the inputs different "
        + "names, or -o for each"
    case .interrupted: "interrupted; nothing was written"
    case .timeout(let seconds):
      seconds.map { "the input took longer than \(fixed($0, places: 1)) s; nothing was written" }
        ?? "the time limit passed; nothing was written"
    }
  }

  /// Two times with 3 decimal places, or as many more (up to 6) as tell them apart: 3.0001
  /// read "3.000 s is past the end of the video (duration 3.000 s)".
  static func apart(_ a: Double, _ b: Double) -> (String, String) {
    let places = (3...6).first { fixed(a, places: $0) != fixed(b, places: $0) } ?? 6
    return (fixed(a, places: places), fixed(b, places: places))
  }

  /// The failure underneath: the FFmpeg error, the write's `errno`, the probe's cause.
  public var cause: ErrorCause? {
    switch self {
    case .input(let error): error.cause
    case .audio(let error): error.cause
    case .decoder(let error), .filter(_, let error), .encoder(_, let error): error.cause
    case .output(let error): error.cause
    default: nil
    }
  }
}
