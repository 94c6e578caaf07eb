import MediaCore

/// Why a remote input could not be read. The messages never contain a request header's value.
package enum RemoteError: Error, Equatable, Sendable {
  /// The server answered 404 or 410.
  case notFound(status: Int)
  /// The server answered 401 or 403.
  case forbidden(status: Int)
  /// The server answered 416 to a range inside the size it stated.
  case rangeNotSatisfiable
  /// Another HTTP status (after the retries, for 5xx, 408 and 429).
  case status(Int)
  /// The file is not the one first read: another size, validator (ETag, Last-Modified) or
  /// `Content-Range` than asked for, or ranges no longer honoured.
  case changed(String)
  /// A redirect to something other than `http:`/`https:`, or too many.
  case redirect(String)
  /// The connection failed (after the retries, when they apply), or libcurl is missing.
  case connection(String)
  /// The input's deadline passed.
  case timedOut
  /// SIGINT or SIGTERM arrived.
  case interrupted

  /// The probe's error for this failure (`timeout` is the caller's time limit in seconds).
  package func probeError(timeout: Double) -> ProbeError {
    switch self {
    case .notFound(let status): .remoteNotFound(status: status)
    case .forbidden(let status): .remoteForbidden(status: status)
    case .rangeNotSatisfiable: .remoteRangeNotSatisfiable
    case .status(let status): .remoteStatus(status: status)
    case .changed(let detail): .remoteChanged(detail: detail)
    case .redirect(let detail): .remoteRedirect(detail: detail)
    case .connection(let detail): .readError(detail: detail)
    case .timedOut: .timeout(seconds: timeout)
    case .interrupted: .readError(detail: "interrupted")
    }
  }
}
