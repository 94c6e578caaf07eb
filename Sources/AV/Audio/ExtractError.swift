import MediaCore
import OutputKit

/// Why an extraction failed. Each case has a stable `code` for scripts.
public enum ExtractError: ToolError, Equatable {
  /// The input could not be opened (the probe codes: not_found, unrecognized_format, ...).
  case input(ProbeError)
  /// The input has no audio stream.
  case noAudioStream
  /// `--stream` or `--language` named no audio stream.
  case streamNotFound(String)
  /// The audio stream's codec has no decoder, or the decoder failed to open (the FFmpeg error
  /// kept).
  case decoder(String, FFmpegError? = nil)
  /// libswresample could not convert the decoded samples (for example, a frame changed
  /// mid-stream to a channel count with no layout, which cannot be mixed to the output's).
  /// Reported as `decoder_error`; the FFmpeg error is kept.
  case conversion(String, FFmpegError)
  /// The audio stream has packets but none of them decoded to a sample (the ffmpeg CLI fails
  /// too), or it has no packets and its format is unknown.
  case noDecodableAudio(String)
  /// The output could not be written: it exists (`output_exists`), is a directory
  /// (`output_is_directory`), or writing failed (`write_error`: a full disk, an unwritable
  /// directory, a closed pipe). The output's own code is kept.
  case output(OutputFileError)
  /// An option cannot apply to this input (e.g. a start past the end).
  case invalidOption(String)
  /// Interrupted (SIGINT/SIGTERM); nothing was left behind.
  case interrupted

  /// The stable machine-readable code.
  public var code: String {
    switch self {
    case .input(let error): error.code
    case .noAudioStream: "no_audio_stream"
    case .streamNotFound: "stream_not_found"
    case .decoder, .conversion: "decoder_error"
    case .noDecodableAudio: "no_decodable_audio"
    case .output(let error): error.code
    case .invalidOption: "invalid_option"
    case .interrupted: "interrupted"
    }
  }

  /// A sentence for humans.
  public var message: String {
    switch self {
    case .input(let error): error.message
    case .noAudioStream: "the input has no audio stream"
    case .streamNotFound(let what): "no audio stream \(what)"
    case .decoder(let detail, _): "cannot decode the audio: \(detail)"
    case .conversion(let detail, let error):
      "cannot convert the audio: \(detail) (\(error.message))"
    case .noDecodableAudio(let detail): "no decodable audio: \(detail)"
    case .output(let error): error.message
    case .invalidOption(let detail): detail
    case .interrupted: "interrupted; the partial output was removed"
    }
  }

  /// The failure underneath: the decoder's or converter's FFmpeg error, the output's `errno`, or
  /// the input's cause.
  public var cause: ErrorCause? {
    switch self {
    case .input(let error): error.cause
    case .decoder(_, let error): error?.cause
    case .conversion(_, let error): error.cause
    case .output(let error): error.cause
    default: nil
    }
  }

  /// The reader of standard output went away (EPIPE): not a failure of the extraction, the
  /// end of the consumer's interest, as for `yes | head`.
  public var isBrokenPipe: Bool {
    if case .output(let error) = self { return error.isBrokenPipe }
    return false
  }
}
