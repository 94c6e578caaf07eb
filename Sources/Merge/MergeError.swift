import Composition
import Compositor
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
  /// The in-process render failed: a source that stopped decoding, the encoder, the muxer
  /// (the compositor's own code: `source_undecodable`, `encoder_error`, `muxer_error`,
  /// `check_failed`, ...). Interruption, timeouts and write errors have their own cases.
  case render(path: String, CompositorError)
  /// The whole-clip composition of the plan could not be resolved (a clip that changed between
  /// the probe and the render): the composition's code.
  case composition(path: String, CompositionError)
  /// The written file disagrees with the plan or does not decode cleanly (it was not kept).
  case outputMismatch(path: String, problems: [String])
  /// The output file could not be created, kept or named: it exists (without `--force`), is a
  /// directory or something that is not a regular file, or writing it failed; the code is the
  /// output file's own (`output_exists`, `output_is_directory`, `write_error`), as media2wav's.
  case output(path: String, OutputFileError)
  /// SIGINT or SIGTERM stopped the merge; nothing was written.
  case interrupted
  /// The plan asks for more than its inputs can give: a clip lasting longer than its file can
  /// carry, an output bigger than its inputs allow, or a render that grew past that limit (it
  /// was stopped). Every reason listed.
  case implausiblePlan(reasons: [String])
  /// `--timeout` ran out (probing, rendering or checking); the merge was stopped, nothing was
  /// written.
  case timeout(seconds: Double)
  /// The encoding asked cannot be written (`unsupported_encoding`): a codec the output's
  /// container does not take, an audio-only preset into a movie, passthrough where nothing can
  /// be copied. Found before anything is rendered.
  case unsupportedEncoding(reason: String)
  /// `--max-size` cannot be met (`max_size_unreachable`): the cap cannot hold the audio and the
  /// container, or every pass came out over it. Nothing is written.
  case maxSizeUnreachable(path: String, reason: String)

  /// The failure underneath: the probe's or the output file's cause.
  public var cause: ErrorCause? {
    switch self {
    case .input(_, let error): error.cause
    case .output(_, let error): error.cause
    case .render(_, let error): error.cause
    case .composition(_, let error): error.cause
    default: nil
    }
  }

  /// The stable machine-readable code.
  public var code: String {
    switch self {
    case .input(_, let error): error.code
    case .incompatibleInputs: "incompatible_inputs"
    case .render(_, let error): error.code
    case .composition(_, let error): error.code
    case .outputMismatch: "output_mismatch"
    case .output(_, let error): error.code
    case .interrupted: "interrupted"
    case .implausiblePlan: "implausible_plan"
    case .timeout: "timeout"
    case .unsupportedEncoding: "unsupported_encoding"
    case .maxSizeUnreachable: "max_size_unreachable"
    }
  }

  /// The file the error is about (a clip or the output), when there is one.
  public var path: String? {
    switch self {
    case .input(let path, _): path
    case .incompatibleInputs(let path, _): path
    case .outputMismatch(let path, _): path
    case .output(let path, _), .render(let path, _), .composition(let path, _): path
    case .maxSizeUnreachable(let path, _): path
    case .interrupted, .implausiblePlan, .timeout, .unsupportedEncoding: nil
    }
  }

  /// A sentence (or a few lines) for humans.
  public var message: String {
    switch self {
    case .input(_, let error): error.message
    case .incompatibleInputs(_, let reasons):
      "the clips cannot be merged as asked: " + reasons.joined(separator: "; ")
    case .render(_, let error): error.message
    case .composition(_, let error): error.message
    case .outputMismatch(_, let problems):
      "the written file does not match the plan, so it was not kept: "
        + problems.joined(separator: "; ")
    case .output(_, let error): error.message
    case .interrupted: "interrupted: nothing was written"
    case .implausiblePlan(let reasons):
      "the plan asks for more than its clips can give, so nothing was written: "
        + reasons.joined(separator: "; ")
    case .timeout(let seconds):
      "gave up after --timeout \(fixed(seconds, places: 3)) s: nothing was written"
    case .unsupportedEncoding(let reason): "cannot write this encoding: \(reason)"
    case .maxSizeUnreachable(_, let reason):
      "--max-size cannot be met, so nothing was written: \(reason)"
    }
  }
}
