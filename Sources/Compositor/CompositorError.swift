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
  /// A still or a sequence's image that no single-image demuxer (JPEG, PNG, WebP) reads, or
  /// whose picture does not decode (`unsupported_image`).
  case unsupportedImage(path: String, detail: String)
  /// A video source gave no picture where the plan needs one: its decoder produced no frame
  /// (`source_undecodable`).
  case sourceUndecodable(path: String, detail: String, cause: ErrorCause? = nil)
  /// The written output does not match the plan (its length, or a segment's picture against
  /// the same source frame put through the planned transform): nothing was committed
  /// (`check_failed`).
  case checkFailed(String)

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
    case .unsupportedImage: "unsupported_image"
    case .sourceUndecodable: "source_undecodable"
    case .checkFailed: "check_failed"
    }
  }

  /// A sentence for humans.
  public var message: String {
    switch self {
    case .source(let path, let error): "\(path): \(error.message)"
    case .render(let error): error.message
    case .audio(let failure): failure.message
    case .unsupportedImage(let path, let detail): "\(path): not a decodable image (\(detail))"
    case .sourceUndecodable(let path, let detail, _): "\(path): \(detail)"
    case .checkFailed(let detail): "the output does not match the plan: \(detail)"
    }
  }

  /// The failure underneath.
  public var cause: ErrorCause? {
    switch self {
    case .source(_, let error): error.cause
    case .render(let error): error.cause
    case .audio(let failure): failure.cause
    case .sourceUndecodable(_, _, let cause): cause
    case .unsupportedImage, .checkFailed: nil
    }
  }
}
