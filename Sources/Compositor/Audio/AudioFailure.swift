import AV
import MediaCore

/// Why the composition's audio could not be mixed: a source that opened but cannot be decoded
/// (its decoder's stable code: `decoder_error`, `no_audio_stream`, `no_decodable_audio`, ...),
/// with its path, or settings the mixer cannot render (`invalid_settings`). A source that cannot
/// be opened at all is `CompositorError.source` with the probe's code.
public struct AudioFailure: ToolError, Equatable {
  /// What failed underneath.
  public enum Detail: Sendable, Equatable {
    /// Decoding or converting the source's audio failed.
    case extract(ExtractError)
    /// The mixer's rate or channel count cannot be rendered.
    case settings(String)
  }

  /// The source's path; nil for a settings failure.
  public var path: String?
  /// What failed.
  public var detail: Detail

  /// A failure on `path`.
  public init(path: String?, detail: Detail) {
    self.path = path
    self.detail = detail
  }

  /// The decoder's stable code, or `invalid_settings`.
  public var code: String {
    switch detail {
    case .extract(let error): error.code
    case .settings: "invalid_settings"
    }
  }

  /// A sentence for humans, naming the source.
  public var message: String {
    switch detail {
    case .extract(let error): "\(path ?? "audio"): \(error.message)"
    case .settings(let text): text
    }
  }

  /// The decoder's FFmpeg error, when there is one.
  public var cause: ErrorCause? {
    switch detail {
    case .extract(let error): error.cause
    case .settings: nil
    }
  }
}
