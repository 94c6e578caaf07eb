import MediaCore

/// What resolution needs to know about one source, from a probe: the renderer plugs in the real
/// probe, tests give made-up facts. Nothing here is read from a file by this module.
public struct SourceFacts: Sendable, Equatable {
  /// What a source is.
  public enum Kind: String, Codable, Sendable {
    /// A file with streams (video, audio or both).
    case media
    /// One still image (JPEG, PNG, WebP).
    case image
    /// Numbered images (`frames/%04d.jpg`) or a folder of images in name order.
    case imageSequence = "image_sequence"
  }

  /// What the source is.
  public var kind: Kind
  /// A media file's exact span (the probe's union of its streams); nil for images.
  public var duration: MediaTime?
  /// How many images an image sequence has; nil otherwise.
  public var frameCount: Int?
  /// True when it has a picture (any image; a media file with a video stream that is not cover
  /// art).
  public var hasVideo: Bool
  /// True when it has an audio stream.
  public var hasAudio: Bool
  /// The width it displays at, upright (rotation and sample aspect ratio applied); 0 without
  /// a picture.
  public var displayWidth: Int
  /// The height it displays at, upright; 0 without a picture.
  public var displayHeight: Int
  /// The stored (decoded) picture's width in pixels, before its sample aspect ratio and turn;
  /// 0: unknown (then the display size turned back, square pixels, is assumed).
  public var storedWidth: Int = 0
  /// The stored picture's height in pixels; 0: unknown.
  public var storedHeight: Int = 0
  /// Clockwise degrees that turn the stored picture upright (0, 90, 180, 270): its display
  /// matrix, or an image's EXIF orientation.
  public var rotation: Int
  /// True when the picture is shown mirrored.
  public var mirrored: Bool
  /// The video's frame rate (the probe's best), nil when unknown or not a video.
  public var frameRate: Rational?

  /// Facts from their parts.
  public init(
    kind: Kind, duration: MediaTime? = nil, frameCount: Int? = nil, hasVideo: Bool,
    hasAudio: Bool, displayWidth: Int = 0, displayHeight: Int = 0, rotation: Int = 0,
    mirrored: Bool = false, frameRate: Rational? = nil
  ) {
    self.kind = kind
    self.duration = duration
    self.frameCount = frameCount
    self.hasVideo = hasVideo
    self.hasAudio = hasAudio
    self.displayWidth = displayWidth
    self.displayHeight = displayHeight
    self.rotation = rotation
    self.mirrored = mirrored
    self.frameRate = frameRate
  }

  /// A video file (with audio unless `hasAudio` is false).
  public static func video(
    duration: MediaTime, width: Int, height: Int, frameRate: Rational?, hasAudio: Bool = true,
    rotation: Int = 0, mirrored: Bool = false
  ) -> SourceFacts {
    SourceFacts(
      kind: .media, duration: duration, hasVideo: true, hasAudio: hasAudio,
      displayWidth: width, displayHeight: height, rotation: rotation, mirrored: mirrored,
      frameRate: frameRate)
  }

  /// An audio-only file.
  public static func audio(duration: MediaTime) -> SourceFacts {
    SourceFacts(kind: .media, duration: duration, hasVideo: false, hasAudio: true)
  }

  /// A still image.
  public static func image(width: Int, height: Int, rotation: Int = 0, mirrored: Bool = false)
    -> SourceFacts
  {
    SourceFacts(
      kind: .image, hasVideo: true, hasAudio: false, displayWidth: width, displayHeight: height,
      rotation: rotation, mirrored: mirrored)
  }

  /// An image sequence of `frames` images.
  public static func imageSequence(frames: Int, width: Int, height: Int) -> SourceFacts {
    SourceFacts(
      kind: .imageSequence, frameCount: frames, hasVideo: true, hasAudio: false,
      displayWidth: width, displayHeight: height)
  }
}

/// Gives the facts of a source at a resolved path (the document's folder joined with the
/// source as written). A `ToolError` it throws keeps its code (`not_found`, ...).
public typealias SourceFactsProvider = @Sendable (_ path: String) throws -> SourceFacts
