import MediaProbe

/// Why a merge could not be planned, run or delivered. Each case has a stable `code` for scripts.
public enum MergeError: Error, Sendable, Equatable {
  /// A clip could not be probed; the code is the probe's (`not_found`, `truncated`, ...).
  case input(path: String, ProbeError)
  /// The clips cannot be merged as asked: a clip without a video stream, or `--copy` with clips
  /// that do not share their codec parameters (every reason listed).
  case incompatibleInputs(path: String?, reasons: [String])
  /// No `ffmpeg` executable on `PATH` (a declared runtime dependency).
  case ffmpegNotFound
  /// ffmpeg exited with an error or was killed; `detail` holds what it said.
  case ffmpegFailed(status: String, detail: String)
  /// The written file disagrees with the plan or does not decode cleanly (it was not kept).
  case outputMismatch(path: String, problems: [String])
  /// The output exists and `--force` was not given.
  case outputExists(String)
  /// The output names a directory.
  case outputIsDirectory(String)
  /// The output could not be written (temporary file, disk full, rename).
  case writeError(path: String, detail: String)
  /// SIGINT or SIGTERM stopped the merge; nothing was written.
  case interrupted

  /// The stable machine-readable code.
  public var code: String {
    switch self {
    case .input(_, let error): error.code
    case .incompatibleInputs: "incompatible_inputs"
    case .ffmpegNotFound: "ffmpeg_not_found"
    case .ffmpegFailed: "ffmpeg_failed"
    case .outputMismatch: "output_mismatch"
    case .outputExists: "output_exists"
    case .outputIsDirectory: "output_is_directory"
    case .writeError: "write_error"
    case .interrupted: "interrupted"
    }
  }

  /// The file the error is about (a clip or the output), when there is one.
  public var path: String? {
    switch self {
    case .input(let path, _): path
    case .incompatibleInputs(let path, _): path
    case .outputMismatch(let path, _), .writeError(let path, _): path
    case .outputExists(let path), .outputIsDirectory(let path): path
    case .ffmpegNotFound, .ffmpegFailed, .interrupted: nil
    }
  }

  /// A sentence (or a few lines) for humans.
  public var message: String {
    switch self {
    case .input(_, let error): error.message
    case .incompatibleInputs(_, let reasons):
      "the clips cannot be merged as asked: " + reasons.joined(separator: "; ")
    case .ffmpegNotFound:
      "ffmpeg was not found on PATH (mediamerge runs the ffmpeg command; install it: Scripts/setup.sh)"
    case .ffmpegFailed(let status, let detail):
      "ffmpeg failed (\(status))" + (detail.isEmpty ? "" : ": \(detail)")
    case .outputMismatch(_, let problems):
      "the written file does not match the plan, so it was not kept: "
        + problems.joined(separator: "; ")
    case .outputExists: "the output exists (replace it with --force)"
    case .outputIsDirectory: "the output is a directory"
    case .writeError(_, let detail): "cannot write the output: \(detail)"
    case .interrupted: "interrupted: nothing was written"
    }
  }
}
