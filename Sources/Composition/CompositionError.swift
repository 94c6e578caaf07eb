import MediaCore

/// Why a composition document could not be read or resolved. Each case has a stable `code` for
/// scripts; `location` names where the problem is: a path into the document
/// (`clips[2].transition.duration`), with the line and column when the text is at hand, or a
/// path into an OpenTimelineIO file (`tracks.children[0].children[3]`).
public enum CompositionError: ToolError, Equatable {
  /// The document is not JSON (line and column), has a key the model does not know, a value of
  /// the wrong type or out of range, misses a required value, or asks for something the model
  /// cannot do (a still without a duration, a transition into the first clip). `invalid_composition`.
  case invalidComposition(location: String, message: String)
  /// A clip's or audio track's `from` is not before its `to`, or lies before the source's start.
  /// `source_range_invalid`.
  case sourceRangeInvalid(location: String, from: MediaTime, to: MediaTime)
  /// A transition lasts longer than the clip before or after it, or a clip's two transitions
  /// together last longer than the clip. `transition_too_long`.
  case transitionTooLong(location: String, message: String)
  /// A clip's or audio track's `to` lies past the end of its source. `clip_past_source_end`.
  case clipPastSourceEnd(location: String, source: String, to: MediaTime, duration: MediaTime)
  /// A clip's source has no picture (an audio-only file). `clip_without_video`.
  case clipWithoutVideo(location: String, source: String)
  /// An OpenTimelineIO file holds what the model cannot express (effects, a nested stack, two
  /// video tracks, a media reference that is not a file, a trimmed track).
  /// `unsupported_timeline`.
  case unsupportedTimeline(location: String, message: String)
  /// A source could not be probed; the code is the probe's own (`not_found`, `truncated`, ...).
  case source(location: String, source: String, code: String, message: String, cause: ErrorCause?)

  /// The stable machine-readable code.
  public var code: String {
    switch self {
    case .invalidComposition: "invalid_composition"
    case .sourceRangeInvalid: "source_range_invalid"
    case .transitionTooLong: "transition_too_long"
    case .clipPastSourceEnd: "clip_past_source_end"
    case .clipWithoutVideo: "clip_without_video"
    case .unsupportedTimeline: "unsupported_timeline"
    case .source(_, _, let code, _, _): code
    }
  }

  /// Where the problem is: a document path (and position), or an OTIO path.
  public var location: String {
    switch self {
    case .invalidComposition(let location, _), .sourceRangeInvalid(let location, _, _),
      .transitionTooLong(let location, _), .clipPastSourceEnd(let location, _, _, _),
      .clipWithoutVideo(let location, _), .unsupportedTimeline(let location, _),
      .source(let location, _, _, _, _):
      location
    }
  }

  /// A sentence for humans, starting with the location.
  public var message: String {
    switch self {
    case .invalidComposition(let location, let message):
      "\(location): \(message)"
    case .sourceRangeInvalid(let location, let from, let to):
      from < .zero
        ? "\(location): from \(ExactNumber(from)) s lies before the source's start"
        : "\(location): from \(ExactNumber(from)) s is not before to \(ExactNumber(to)) s"
    case .transitionTooLong(let location, let message):
      "\(location): \(message)"
    case .clipPastSourceEnd(let location, let source, let to, let duration):
      "\(location): to \(ExactNumber(to)) s lies past the end of \(source), which lasts "
        + "\(ExactNumber(duration)) s"
    case .clipWithoutVideo(let location, let source):
      "\(location): \(source) has no video stream (an audio-only file goes in \"audio\", not "
        + "\"clips\")"
    case .unsupportedTimeline(let location, let message):
      "\(location): \(message)"
    case .source(let location, let source, _, let message, _):
      "\(location): \(source): \(message)"
    }
  }

  /// The probe's cause for `source`, nil otherwise.
  public var cause: ErrorCause? {
    if case .source(_, _, _, _, let cause) = self { return cause }
    return nil
  }
}
