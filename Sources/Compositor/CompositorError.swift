import AV
import Composition
import MediaCore
import OutputKit
import Render

/// Why rendering a composition failed. Each case has a stable `code` for scripts and keeps the
/// failure underneath as its `cause`. Whatever the case, the output was not committed.
public enum CompositorError: ToolError, Equatable {
  /// A source could not be opened or read; the code is the probe's (`not_found`, ...).
  case source(path: String, ProbeError)
  /// The render engine failed (encoder, filter graph, muxer, output, interruption): its code.
  case render(RenderError)

  // MARK: The audio mixer's cases (branch mixer)
  /// The composition's audio could not be mixed: a source that opened but cannot be decoded
  /// (its decoder's code, with the path), or mixer settings it cannot render.
  case audio(AudioFailure)

  /// The stable machine-readable code.
  public var code: String {
    switch self {
    case .source(_, let error): error.code
    case .render(let error): error.code
    case .audio(let failure): failure.code
    }
  }

  /// A sentence for humans.
  public var message: String {
    switch self {
    case .source(let path, let error): "\(path): \(error.message)"
    case .render(let error): error.message
    case .audio(let failure): failure.message
    }
  }

  /// The failure underneath.
  public var cause: ErrorCause? {
    switch self {
    case .source(_, let error): error.cause
    case .render(let error): error.cause
    case .audio(let failure): failure.cause
    }
  }
}
