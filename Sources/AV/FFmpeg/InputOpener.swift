import OutputKit
import CFFmpeg
import MediaCore

/// How an untrusted input may be opened.
public struct OpenOptions: Sendable {
  /// Let playlist-like demuxers (HLS, DASH, concat, image patterns) open other local files.
  public var allowReferences: Bool
  /// Seconds one input may take (nil: no limit); past it the input fails with `timeout`.
  public var timeout: Double?
  /// Bytes one input may read (nil: no limit).
  public var maxBytes: Int64?
  /// Read the input with this FFmpeg demuxer (`--input-format`) instead of probing its bytes.
  public var inputFormat: String?
  /// Request headers for a remote input (`--header`), sent to its origin only.
  public var headers: [HTTPHeader]

  /// Options; the defaults refuse references and set no limits.
  public init(
    allowReferences: Bool = false, timeout: Double? = nil, maxBytes: Int64? = nil,
    inputFormat: String? = nil, headers: [HTTPHeader] = []
  ) {
    self.allowReferences = allowReferences
    self.timeout = timeout
    self.maxBytes = maxBytes
    self.inputFormat = inputFormat
    self.headers = headers
  }
}

/// The untrusted-input policy: the one way every tool opens an input.
public enum InputOpener {
  /// Opens an untrusted input the one way every tool does: opens the path once (devices,
  /// sockets and directories refused), probes the format on our own I/O context, refuses
  /// referencing demuxers unless allowed, reads stream information.
  ///
  /// - Throws: `ProbeError` with a stable code.
  package static func open(_ source: InputSource, options: OpenOptions) throws(ProbeError)
    -> InputFile
  {
    let bytes: ByteSource
    switch source {
    case .file(let path):
      do {
        bytes = try ByteSource(path: path, timeout: options.timeout, maxBytes: options.maxBytes)
      } catch {
        throw probeError(for: error, timeout: options.timeout)
      }
    case .standardInput:
      bytes = ByteSource(standardInputTimeout: options.timeout, maxBytes: options.maxBytes)
    case .url(let url):
      do {
        bytes = try ByteSource(
          url: url, headers: options.headers, timeout: options.timeout,
          maxBytes: options.maxBytes)
      } catch {
        throw probeError(for: error, timeout: options.timeout)
      }
    }
    let input: InputFile
    do {
      input = try InputFile.open(
        source: bytes, name: source.name, allowReferences: options.allowReferences,
        format: options.inputFormat)
    } catch {
      throw probeError(for: error, source: bytes, timeout: options.timeout)
    }
    // A remote read that failed is the error, whatever libavformat made of the missing bytes.
    if let error = bytes.remoteError { throw error }
    if input.formatName == "tty" { throw .unrecognizedFormat }  // any text file probes as ANSI art
    // A read that stopped at the deadline looks like the end of the file to libavformat.
    if bytes.timedOut || bytes.isExpired {
      throw .timeout(seconds: options.timeout ?? ByteSource.fifoFirstBytesWait)
    }
    return input
  }

  private static func probeError(for error: ByteSource.OpenError, timeout: Double?) -> ProbeError {
    switch error {
    case .notFound: .notFound
    case .permissionDenied: .permissionDenied
    case .notAFile(let kind): .notAFile(kind: kind)
    case .empty: .empty
    case .timedOut: .timeout(seconds: timeout ?? ByteSource.fifoFirstBytesWait)
    case .interrupted: .readError(detail: "interrupted")
    case .io(let detail): .readError(detail: detail)
    case .remote(let error): error.probeError(timeout: timeout ?? 0)
    }
  }

  private static func probeError(
    for failure: OpenFailure, source: ByteSource, timeout: Double?
  ) -> ProbeError {
    if source.timedOut || source.isExpired {
      return .timeout(seconds: timeout ?? ByteSource.fifoFirstBytesWait)
    }
    if let error = source.remoteError { return error }
    switch failure {
    case .unrecognized:
      return source.bytesRead == 0 && source.kind == .stream ? .empty : .unrecognizedFormat
    case .refused(let demuxer): return .refusedReference(demuxer: demuxer)
    case .unknownFormat(let name):
      return .unsupportedFormat(detail: "FFmpeg has no demuxer named \(name.debugDescription)")
    case .io(let error):
      if error.code == mt_averror(EACCES) { return .permissionDenied }
      if error.code == mt_averror(ENOENT) { return .notFound }
      return .readError(detail: error.message, cause: error.cause)
    case .unreadable(let demuxer, let error):
      if demuxer.hasPrefix("mov,"), let image = HEIFImage.read(source) {
        // A still image, not an interrupted recording: FFmpeg 5.1 reads no HEIF (only an AVIF
        // file's primary item).
        return .unsupportedFormat(
          detail: "\(image.summary): FFmpeg 5.1 cannot read \(image.formatName) images")
      }
      if demuxer.hasPrefix("mov,"), let layout = BoxLayout.read(source) {
        if let box = layout.boxPastEndDescription {
          return .truncated(detail: "\(box) extends past the end of the file")
        }
        if !layout.hasMovie {
          return .truncated(
            detail: "no moov box: the index was never written (an interrupted recording?)")
        }
      }
      if error.isEndOfFile { return .truncated(detail: "unexpected end of file") }
      return .corrupt(demuxer: demuxer, detail: error.message, cause: error.cause)
    }
  }

}
