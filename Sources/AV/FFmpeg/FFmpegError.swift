import OutputKit
import MediaCore
import CFFmpeg

/// An error code returned by an FFmpeg call, with FFmpeg's own description of it.
public struct FFmpegError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The negative `AVERROR` value the call returned.
  public let code: Int32
  /// What `av_strerror` says about `code`, or what went wrong where FFmpeg has no words for it
  /// (a library that could not be loaded, an option nothing recognized).
  public let message: String

  /// Wraps `code`, looking up its description with `av_strerror`.
  public init(code: Int32) {
    self.code = code
    var buffer = [CChar](repeating: 0, count: 256)
    if av_strerror(code, &buffer, buffer.count) == 0 {
      self.message = String(cBuffer: buffer)
    } else {
      self.message = "FFmpeg error \(code)"
    }
  }

  /// Wraps `code` with a description of our own.
  public init(code: Int32, message: String) {
    self.code = code
    self.message = message
  }

  /// The end of the input was reached (`AVERROR_EOF`).
  public var isEndOfFile: Bool { code == mt_averror_eof }
  /// The call needs more input or output first (`AVERROR(EAGAIN)`).
  public var isTryAgain: Bool { code == mt_averror_eagain }
  /// The data is not valid for the format or codec (`AVERROR_INVALIDDATA`).
  public var isInvalidData: Bool { code == mt_averror_invaliddata }

  /// The POSIX error number when the code is `AVERROR(errno)` (`ENOSPC` for a full disk, `EFBIG`
  /// past the file size limit, `EIO`), else nil (FFmpeg's own codes are tags far below -4095).
  public var posixErrno: Int32? { code < 0 && code > -4096 ? -code : nil }

  /// No encoder of that name (`AVERROR_ENCODER_NOT_FOUND`).
  public var isEncoderNotFound: Bool { code == mt_averror_encoder_not_found }
  /// An option nothing recognized (`AVERROR_OPTION_NOT_FOUND`).
  public var isOptionNotFound: Bool { code == mt_averror_option_not_found }
  /// The call was stopped by its interrupt callback or I/O (`AVERROR_EXIT`).
  public var isExit: Bool { code == mt_averror_exit }

  /// `AVERROR(errno)` for a POSIX error number.
  public static func posix(_ errno: Int32) -> FFmpegError { FFmpegError(code: mt_averror(errno)) }

  /// The description, as `av_strerror` gives it.
  public var description: String { message }
}

/// Runs an FFmpeg call's result through one place: a negative value becomes an `FFmpegError`.
///
/// - Returns: the non-negative result, unchanged.
/// - Throws: `FFmpegError` when `result` is negative.
@discardableResult
package func check(_ result: Int32) throws(FFmpegError) -> Int32 {
  if result < 0 { throw FFmpegError(code: result) }
  return result
}

/// How much FFmpeg itself prints on stderr.
public enum FFmpegLogLevel: Sendable {
  /// Nothing: the tools report errors themselves.
  case quiet
  /// Errors only.
  case error
  /// Errors and warnings (for `--verbose`).
  case warning

  /// Sets FFmpeg's process-wide log level.
  public func apply() {
    switch self {
    case .quiet: av_log_set_level(AV_LOG_QUIET)
    case .error: av_log_set_level(AV_LOG_ERROR)
    case .warning: av_log_set_level(AV_LOG_WARNING)
    }
  }
}

extension String {
  /// A string from a NUL-terminated C buffer filled by an FFmpeg call.
  package init(cBuffer buffer: [CChar]) {
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    self.init(decoding: bytes, as: UTF8.self)
  }
}

extension FFmpegError {
  /// This error as the cause of a tool's error.
  package var cause: ErrorCause { ErrorCause(domain: .ffmpeg, code: code, description: message) }
}
