/// Why a file could not be probed. Each case has a stable `code` for scripts.
public enum ProbeError: ToolError, Equatable {
  /// The path does not exist.
  case notFound
  /// The path is a directory, socket or device (directories need `--recursive`).
  case notAFile(kind: String)
  /// The file cannot be read with the current permissions.
  case permissionDenied
  /// The file is empty.
  case empty
  /// No demuxer recognizes the bytes as media.
  case unrecognizedFormat
  /// The file is a known kind of media that FFmpeg 5.1 cannot read (a HEIF image), or the
  /// demuxer asked for by name does not exist.
  case unsupportedFormat(detail: String)
  /// The file ends before its container says it does (or before its index was written).
  case truncated(detail: String)
  /// A demuxer recognized the format but could not read it.
  case corrupt(demuxer: String, detail: String, cause: ErrorCause? = nil)
  /// The input is a playlist or list that would open other resources; refused unless allowed.
  case refusedReference(demuxer: String)
  /// Reading failed (an I/O error).
  case readError(detail: String, cause: ErrorCause? = nil)
  /// The input took longer than its time limit (`--timeout`), or a FIFO or URL delivered nothing.
  case timeout(seconds: Double)
  /// A remote input's server answered 404 or 410 (`remote_not_found`).
  case remoteNotFound(status: Int)
  /// A remote input's server refused access: 401 or 403 (`remote_forbidden`).
  case remoteForbidden(status: Int)
  /// A remote input's server answered 416 to a range inside the size it had stated
  /// (`remote_range_not_satisfiable`).
  case remoteRangeNotSatisfiable
  /// A remote input's server answered another error status, after the retries for 5xx, 408 and
  /// 429 (`remote_http_error`).
  case remoteStatus(status: Int)
  /// A remote input changed between two requests, or its server answered another range than
  /// asked: its size, ETag or Last-Modified differ, a `Content-Range` is wrong, or ranges are no
  /// longer honoured (`remote_changed`). No byte of the other answer was used.
  case remoteChanged(detail: String)
  /// A redirect to something other than http: or https:, or too many (`remote_redirect`).
  case remoteRedirect(detail: String)

  /// The stable machine-readable code (`not_found`, `truncated`, ...).
  public var code: String {
    switch self {
    case .notFound: "not_found"
    case .notAFile: "not_a_file"
    case .permissionDenied: "permission_denied"
    case .empty: "empty"
    case .unrecognizedFormat: "unrecognized_format"
    case .unsupportedFormat: "unsupported_format"
    case .truncated: "truncated"
    case .corrupt: "corrupt"
    case .refusedReference: "refused_reference"
    case .readError: "read_error"
    case .timeout: "timeout"
    case .remoteNotFound: "remote_not_found"
    case .remoteForbidden: "remote_forbidden"
    case .remoteRangeNotSatisfiable: "remote_range_not_satisfiable"
    case .remoteStatus: "remote_http_error"
    case .remoteChanged: "remote_changed"
    case .remoteRedirect: "remote_redirect"
    }
  }

  /// The FFmpeg error or `errno` underneath a read error or a corrupt file.
  public var cause: ErrorCause? {
    switch self {
    case .corrupt(_, _, let cause), .readError(_, let cause): cause
    default: nil
    }
  }

  /// A sentence for humans.
  public var message: String {
    switch self {
    case .notFound: "no such file"
    case .notAFile(let kind): "not a regular file (\(kind))"
    case .permissionDenied: "permission denied"
    case .empty: "the file is empty"
    case .unrecognizedFormat: "not a recognized media format"
    case .unsupportedFormat(let detail): "unsupported format: \(detail)"
    case .truncated(let detail): "the file is truncated: \(detail)"
    case .corrupt(let demuxer, let detail, _): "\(demuxer) data could not be read: \(detail)"
    case .refusedReference(let demuxer):
      "refused: \(demuxer) input opens other files or URLs (allow with --allow-references)"
    case .readError(let detail, _): "read error: \(detail)"
    case .timeout(let seconds):
      "gave up after \(seconds.formatted) s (the time limit, or nothing arrived from a FIFO or URL)"
    case .remoteNotFound(let status): "the server has no such file (HTTP \(status))"
    case .remoteForbidden(let status): "the server refused access (HTTP \(status))"
    case .remoteRangeNotSatisfiable:
      "the server refused a range inside the size it stated (HTTP 416)"
    case .remoteStatus(let status): "the server answered HTTP \(status)"
    case .remoteChanged(let detail): "the remote file changed while it was read: \(detail)"
    case .remoteRedirect(let detail): "redirect refused: \(detail)"
    }
  }
}

extension Double {
  /// Seconds as people write them: `10`, `2.5`.
  fileprivate var formatted: String {
    self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
  }
}

/// A probe's outcome for one input: the information, or the error in its place.
public enum ProbeOutcome: Sendable, Equatable, Encodable {
  /// The file was probed.
  case success(MediaInfo)
  /// The file could not be probed.
  case failure(path: String, error: ProbeError)

  /// Encodes as the `MediaInfo` object, or `{"path": .., "error": {"code": .., "message": ..}}`.
  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .success(let info): try info.encode(to: encoder)
    case .failure(let path, let error):
      try ErrorRecord(path: path, code: error.code, message: error.message).encode(to: encoder)
    }
  }
}

/// How every tool reports an input it could not handle:
/// `{"path": .., "error": {"code": .., "message": ..}}` (media2wav names the path `input`, as in
/// its other reports).
public struct ErrorRecord: Encodable, Sendable {
  /// The key the path goes under.
  public var key: String
  /// The input as given.
  public var path: String
  /// The stable code.
  public var code: String
  /// The sentence for humans.
  public var message: String

  /// A record for `path` under `key`.
  public init(key: String = "path", path: String, code: String, message: String) {
    self.key = key
    self.path = path
    self.code = code
    self.message = message
  }

  private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  /// Encodes the path under `key` and the error's code and message.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Key.self)
    try container.encode(path, forKey: Key(stringValue: key))
    var error = container.nestedContainer(keyedBy: Key.self, forKey: Key(stringValue: "error"))
    try error.encode(code, forKey: Key(stringValue: "code"))
    try error.encode(message, forKey: Key(stringValue: "message"))
  }
}
