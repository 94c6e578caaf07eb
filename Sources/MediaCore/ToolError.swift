/// The failure underneath a tool's error, kept whole as it travels through the layers: an
/// FFmpeg error code (`AVERROR_INVALIDDATA`) or an `errno` (`ENOSPC`), with the library's own
/// words. swift-nio's `FileSystemError.cause` is the model: the stable code a script sees stays
/// the domain's (`corrupt`, `write_error`); the cause says what the library returned.
public struct ErrorCause: Sendable, Equatable, CustomStringConvertible {
  /// Where the code comes from.
  public enum Domain: String, Sendable {
    /// libavformat/libavcodec/libavutil (`AVERROR(...)`, negative).
    case ffmpeg
    /// The C library's `errno`.
    case posix
  }

  /// Where `code` comes from.
  public var domain: Domain
  /// The code as the library returned it.
  public var code: Int32
  /// The library's words (`av_strerror`, `strerror`).
  public var description: String

  /// A cause from its parts.
  public init(domain: Domain, code: Int32, description: String) {
    self.domain = domain
    self.code = code
    self.description = description
  }
}

/// An error the tools report: a stable machine-readable code for scripts (`not_found`,
/// `write_error`), a sentence for people, and the cause underneath when there is one. Each
/// domain has one such enum (`ProbeError`, `ExtractError`, `OutputFileError`, `MergeError`).
public protocol ToolError: Error, Sendable {
  /// The stable code.
  var code: String { get }
  /// A sentence for humans.
  var message: String { get }
  /// The library or system failure underneath, when there is one.
  var cause: ErrorCause? { get }
}
