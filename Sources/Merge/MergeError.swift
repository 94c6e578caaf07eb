import OutputKit
import MediaCore
import AV
import MediaProbe

/// Why a merge could not be planned, run or delivered. Each case has a stable `code` for scripts.
public enum MergeError: ToolError, Equatable {
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
  /// The output file could not be created, kept or named: it exists (without `--force`), is a
  /// directory or something that is not a regular file, or writing it failed; the code is the
  /// output file's own (`output_exists`, `output_is_directory`, `write_error`), as media2wav's.
  case output(path: String, OutputFileError)
  /// ffmpeg could not write the output (a full disk).
  case writeError(path: String, detail: String)
  /// SIGINT or SIGTERM stopped the merge; nothing was written.
  case interrupted
  /// The plan asks for more than its inputs can give: a clip lasting longer than its file can
  /// carry, an output bigger than its inputs allow, or a render that grew past that limit (it
  /// was stopped). Every reason listed.
  case implausiblePlan(reasons: [String])
  /// `--timeout` ran out (probing, rendering or checking); the merge was stopped, nothing was
  /// written.
  case timeout(seconds: Double)

  /// The failure underneath: the probe's or the output file's cause.
  public var cause: ErrorCause? {
    switch self {
    case .input(_, let error): error.cause
    case .output(_, let error): error.cause
    default: nil
    }
  }

  /// The stable machine-readable code.
  public var code: String {
    switch self {
    case .input(_, let error): error.code
    case .incompatibleInputs: "incompatible_inputs"
    case .ffmpegNotFound: "ffmpeg_not_found"
    case .ffmpegFailed: "ffmpeg_failed"
    case .outputMismatch: "output_mismatch"
    case .output(_, let error): error.code
    case .writeError: "write_error"
    case .interrupted: "interrupted"
    case .implausiblePlan: "implausible_plan"
    case .timeout: "timeout"
    }
  }

  /// The file the error is about (a clip or the output), when there is one.
  public var path: String? {
    switch self {
    case .input(let path, _): path
    case .incompatibleInputs(let path, _): path
    case .outputMismatch(let path, _), .writeError(let path, _): path
    case .output(let path, _): path
    case .ffmpegNotFound, .ffmpegFailed, .interrupted, .implausiblePlan, .timeout: nil
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
    case .output(_, let error): error.message
    case .writeError(_, let detail): "cannot write the output: \(detail)"
    case .interrupted: "interrupted: nothing was written"
    case .implausiblePlan(let reasons):
      "the plan asks for more than its clips can give, so nothing was written: "
        + reasons.joined(separator: "; ")
    case .timeout(let seconds):
      "gave up after --timeout \(fixed(seconds, places: 3)) s: nothing was written"
    }
  }
}
