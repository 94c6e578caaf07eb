import Compatibility
import Composition
import Compositor
import MediaCore
import AV
import MediaProbe

/// What the user asked for.
public struct MergeRequest: Sendable {
  /// Where the merged file goes (its extension picks the container: `.mp4`, `.m4v`, `.mov`).
  public var output: String
  /// `--size`: the render size; nil: the largest display size among the clips.
  public var size: RenderSize?
  /// How a clip of another shape is fitted.
  public var fit: FitMode
  /// Copy when possible, always copy, or always encode.
  public var method: MethodChoice
  /// `--platform`: encode with this platform's recipe, and check the result against it.
  public var platform: Platform?
  /// The ffmpeg executable.
  public var ffmpeg: String
  /// `--verbose`: ffmpeg prints its warnings too.
  public var verbose: Bool
  /// `--preset`, `--video-codec`, `--audio-codec`, `--crf`, `--bitrate`, `--bits-per-pixel`,
  /// `--max-size`.
  public var export: ExportRequest = ExportRequest()

  /// A request; by default copy when possible, fit, no platform.
  public init(
    output: String, size: RenderSize? = nil, fit: FitMode = .fit, method: MethodChoice = .auto,
    platform: Platform? = nil, ffmpeg: String = "ffmpeg", verbose: Bool = false
  ) {
    self.output = output
    self.size = size
    self.fit = fit
    self.method = method
    self.platform = platform
    self.ffmpeg = ffmpeg
    self.verbose = verbose
  }

  /// The muxer an output path asks for (`OutputContainer`): `mp4` for `.mp4`/`.m4v`, `mov`
  /// for `.mov`, `ipod` for `.m4a`, `webm` for `.webm`, `matroska` for `.mkv`; nil for anything
  /// else.
  public static func container(for path: String) -> String? {
    OutputContainer(path: path)?.muxer
  }
}

/// Copy or encode.
public enum MethodChoice: String, Sendable, CaseIterable {
  /// Copy when every clip shares its codec parameters, else encode.
  case auto
  /// Copy, or fail with `incompatible_inputs` and every reason.
  case copy
  /// Always decode, normalise and encode.
  case encode
}

/// A render size, `WIDTHxHEIGHT`.
public struct RenderSize: Sendable, Equatable, CustomStringConvertible {
  /// Width in pixels.
  public var width: Int
  /// Height in pixels.
  public var height: Int

  /// A size.
  public init(width: Int, height: Int) {
    self.width = width
    self.height = height
  }

  /// Parses `1280x720`; nil unless both are even numbers from 2 to 16384 (H.264 with 4:2:0
  /// chroma needs even sizes).
  /// (The composition's `size` is read by the same rule: `FrameSize(parsing:)`.)
  public init?(parsing text: String) {
    guard let size = FrameSize(parsing: text) else { return nil }
    self.init(width: size.width, height: size.height)
  }

  /// `1280x720`.
  public var description: String { "\(width)x\(height)" }
}
