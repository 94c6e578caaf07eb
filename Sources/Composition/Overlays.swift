import MediaCore

/// Where an overlay sits when it gives no `x` and `y`: a corner of the render (or its centre),
/// `margin` pixels in from the edges.
public enum OverlayPosition: String, Codable, Sendable, CaseIterable {
  /// The top left corner.
  case topLeft = "top_left"
  /// The top right corner.
  case topRight = "top_right"
  /// The bottom left corner.
  case bottomLeft = "bottom_left"
  /// The bottom right corner.
  case bottomRight = "bottom_right"
  /// Centred (the margin is not used).
  case center

  /// Reads the name, listing the known ones when it is not one of them.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let name = try container.decode(String.self)
    guard let position = OverlayPosition(rawValue: name) else {
      throw DecodingError.dataCorruptedError(
        in: container,
        debugDescription: "unknown position \"\(name)\" (known: "
          + OverlayPosition.allCases.map(\.rawValue).joined(separator: ", ") + ")")
    }
    self = position
  }

  /// The top left pixel of a `width`×`height` box placed here in a `canvasWidth`×`canvasHeight`
  /// render, `margin` pixels in from the edges (the centre rounds down).
  public func origin(
    width: Int, height: Int, canvasWidth: Int, canvasHeight: Int, margin: Int
  ) -> (x: Int, y: Int) {
    switch self {
    case .topLeft: (margin, margin)
    case .topRight: (canvasWidth - width - margin, margin)
    case .bottomLeft: (margin, canvasHeight - height - margin)
    case .bottomRight: (canvasWidth - width - margin, canvasHeight - height - margin)
    case .center: ((canvasWidth - width) / 2, (canvasHeight - height) / 2)
    }
  }
}

/// How an overlay's colour c combines with the picture's b under it, per R, G, B channel on
/// 0–1 values (GPUImage's `GPUImage<Mode>BlendFilter` formulas for opaque layers); the result is
/// then laid over the picture with the overlay's alpha × opacity, so `normal` is plain alpha
/// compositing.
public enum OverlayBlend: String, Codable, Sendable, CaseIterable {
  /// c.
  case normal
  /// c·b.
  case multiply
  /// 1 − (1 − c)(1 − b).
  case screen
  /// 2·c·b where b < 0.5, else 1 − 2(1 − c)(1 − b) (decided by the picture under it).
  case overlay
  /// min(c, b).
  case darken
  /// max(c, b).
  case lighten
  /// min(c + b, 1).
  case add
  /// max(b − c, 0).
  case subtract
  /// |b − c|.
  case difference

  /// The formula in words (the man page's table).
  public var formula: String {
    switch self {
    case .normal: "c"
    case .multiply: "c·b"
    case .screen: "1 − (1 − c)(1 − b)"
    case .overlay: "2·c·b if b < 0.5, else 1 − 2(1 − c)(1 − b)"
    case .darken: "min(c, b)"
    case .lighten: "max(c, b)"
    case .add: "min(c + b, 1)"
    case .subtract: "max(b − c, 0)"
    case .difference: "|b − c|"
    }
  }

  /// Reads the name, listing the known ones when it is not one of them.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let name = try container.decode(String.self)
    guard let blend = OverlayBlend(rawValue: name) else {
      throw DecodingError.dataCorruptedError(
        in: container,
        debugDescription: "unknown blend \"\(name)\" (known: "
          + OverlayBlend.allCases.map(\.rawValue).joined(separator: ", ") + ")")
    }
    self = blend
  }
}

/// Something drawn over the finished picture (after the composition's looks) for a while: an
/// image (a watermark: a still PNG with or without alpha, or a JPEG or WebP) or a text title.
///
/// Exactly one of `image` and `text`. Its place: `x` and `y` (the top left pixel, both or
/// neither) or `position` with `margin` (default: top left, margin 0). An image's size: `width`
/// and/or `height` (one alone keeps its shape) or `scale`; default its own upright size. Its
/// time: `from`–`to` in composition seconds (default: the whole composition), or, with `clip`,
/// in that clip's source time, re-timed as a marker is: clip start + (t − the clip's `from`).
public struct Overlay: Codable, Sendable, Equatable {
  /// A still image file (relative to the document's folder, or absolute).
  public var image: String?
  /// A title's text (one line or several, `\n` between them).
  public var text: String?
  /// The left edge in render pixels (with `y`).
  public var x: Int?
  /// The top edge in render pixels (with `x`).
  public var y: Int?
  /// A corner or the centre, instead of `x` and `y`; nil: `top_left`.
  public var position: OverlayPosition?
  /// Pixels in from the edges at a corner; nil: 0.
  public var margin: Int?
  /// An image's width in render pixels.
  public var width: Int?
  /// An image's height in render pixels.
  public var height: Int?
  /// An image's size as a factor of its own (more than 0, at most 16).
  public var scale: ExactNumber?
  /// 0 (invisible) to 1 (as drawn); nil: 1.
  public var opacity: ExactNumber?
  /// How the colours combine with the picture; nil: `normal`.
  public var blend: OverlayBlend?
  /// The clip whose source time `from` and `to` are given in (`clips[clip]`); nil: composition
  /// time.
  public var clip: Int?
  /// When it appears; nil: the start (or the clip's `from`).
  public var from: ExactNumber?
  /// When it goes (exclusive); nil: the end (or the clip's `to`).
  public var to: ExactNumber?
  /// A title's font: a font file (a path with `/`, or a name ending `.ttf`, `.otf`, `.ttc`)
  /// or a fontconfig name (`DejaVu Sans:style=Bold`); nil: `Sans`.
  public var font: String?
  /// A title's font size in pixels; nil: 48.
  public var size: Int?
  /// A title's colour; nil: white.
  public var color: Color?
  /// Seconds over which it rises from transparent at its start (opacity linear in time); nil: 0.
  public var fadeIn: ExactNumber?
  /// Seconds over which it falls to transparent, ending at its end; nil: 0.
  public var fadeOut: ExactNumber?

  /// An overlay.
  public init(
    image: String? = nil, text: String? = nil, x: Int? = nil, y: Int? = nil,
    position: OverlayPosition? = nil, margin: Int? = nil, width: Int? = nil, height: Int? = nil,
    scale: ExactNumber? = nil, opacity: ExactNumber? = nil, blend: OverlayBlend? = nil,
    clip: Int? = nil, from: ExactNumber? = nil, to: ExactNumber? = nil, font: String? = nil,
    size: Int? = nil, color: Color? = nil, fadeIn: ExactNumber? = nil, fadeOut: ExactNumber? = nil
  ) {
    self.image = image
    self.text = text
    self.x = x
    self.y = y
    self.position = position
    self.margin = margin
    self.width = width
    self.height = height
    self.scale = scale
    self.opacity = opacity
    self.blend = blend
    self.clip = clip
    self.from = from
    self.to = to
    self.font = font
    self.size = size
    self.color = color
    self.fadeIn = fadeIn
    self.fadeOut = fadeOut
  }

  enum CodingKeys: String, DocumentKeys {
    case image, text, x, y, position, margin, width, height, scale, opacity, blend, clip, from,
      to, font, size, color, fadeIn, fadeOut
  }

  /// The most overlays a composition may have (each holds a picture while it renders).
  public static let maxCount = 64

  /// The largest size, offset and margin in pixels.
  public static let maxPixels = 16384

  /// True when `font` names a file (a path with `/`, or a font file's extension).
  public static func isFontFile(_ font: String) -> Bool {
    let lower = font.lowercased()
    return font.contains("/")
      || [".ttf", ".otf", ".ttc", ".pfb", ".woff"].contains {
        lower.hasSuffix($0)
      }
  }

  /// Checks what the types cannot (the document's `validate()` calls it for each overlay).
  ///
  /// - Parameter clipCount: how many clips the document has (`clip` must name one).
  /// - Throws: `CompositionError.invalidComposition` naming `path` and the key.
  public func validate(path: String, clipCount: Int) throws(CompositionError) {
    func fail(_ key: String, _ message: String) -> CompositionError {
      .invalidComposition(location: key.isEmpty ? path : "\(path).\(key)", message: message)
    }
    switch (image, text) {
    case (nil, nil): throw fail("", "an overlay needs an image or a text")
    case (.some, .some): throw fail("text", "an overlay is an image or a text, not both")
    case (.some(let image), nil):
      if image.isEmpty { throw fail("image", "an empty path") }
      for (key, present) in [
        ("font", font != nil), ("size", size != nil), ("color", color != nil),
      ] where present {
        throw fail(key, "\(key) is for a text overlay, not an image")
      }
    case (nil, .some(let text)):
      if text.isEmpty { throw fail("text", "an empty text") }
      for (key, present) in [
        ("width", width != nil), ("height", height != nil), ("scale", scale != nil),
      ]
      where present {
        throw fail(key, "a text overlay's size is its font size (size), not \(key)")
      }
      if let font, font.isEmpty { throw fail("font", "an empty font name") }
      if let size, size < 1 || size > 4096 {
        throw fail("size", "\(size) is not a font size (1 to 4096 pixels)")
      }
    }
    if (x == nil) != (y == nil) {
      throw fail(x == nil ? "x" : "y", "x and y go together (or give position instead)")
    }
    if x != nil, position != nil {
      throw fail("position", "give x and y, or a position, not both")
    }
    for (key, value) in [("x", x), ("y", y)] {
      if let value, abs(value) > Self.maxPixels {
        throw fail(key, "\(value) is out of range (-\(Self.maxPixels) to \(Self.maxPixels))")
      }
    }
    if let margin {
      if x != nil { throw fail("margin", "a margin goes with a position, not with x and y") }
      if margin < 0 || margin > Self.maxPixels {
        throw fail("margin", "\(margin) is out of range (0 to \(Self.maxPixels))")
      }
    }
    for (key, value) in [("width", width), ("height", height)] {
      if let value, value < 1 || value > Self.maxPixels {
        throw fail(key, "\(value) is out of range (1 to \(Self.maxPixels))")
      }
    }
    if let scale {
      if width != nil || height != nil {
        throw fail("scale", "give width/height or scale, not both")
      }
      if scale <= .zero || scale > ExactNumber(16) {
        throw fail("scale", "\(scale) is out of range (more than 0, at most 16)")
      }
    }
    if let opacity, opacity < .zero || opacity > .one {
      throw fail("opacity", "\(opacity) is out of range (0 to 1)")
    }
    if let clip, clip < 0 || clip >= clipCount {
      throw fail(
        "clip", "\(clip) names no clip (the document has \(clipCount): 0 to \(clipCount - 1))")
    }
    for (key, value) in [
      ("from", from), ("to", to), ("fade_in", fadeIn), ("fade_out", fadeOut),
    ] {
      if let value, value < .zero { throw fail(key, "\(value) s is negative") }
    }
    if let from, let to, to <= from {
      throw fail("to", "\(to) s is not after from (\(from) s)")
    }
  }
}

/// What an overlay draws.
public enum OverlayKind: String, Codable, Sendable {
  /// A still image.
  case image
  /// A text title.
  case text
}

/// An overlay resolved: its time on the composition, an image's box in render pixels, a
/// title's font and place; every default applied (`CompositionPlan.overlays`).
public struct PlannedOverlay: Codable, Sendable, Equatable {
  /// Its index in the document (`overlays[index]`).
  public var index: Int
  /// Image or text.
  public var kind: OverlayKind
  /// The image as the document writes it; null for a title.
  @NullEncoded public var source: String?
  /// The image's path to open; null for a title.
  @NullEncoded public var path: String?
  /// The title's text; null for an image.
  @NullEncoded public var text: String?
  /// The title's font: a file's path (joined with the document's folder) when `font_file`,
  /// else a fontconfig name; null for an image.
  @NullEncoded public var font: String?
  /// True when `font` is a file.
  public var fontFile: Bool
  /// The title's font size in pixels; null for an image.
  @NullEncoded public var fontSize: Int?
  /// The title's colour; null for an image.
  @NullEncoded public var color: Color?
  /// When it shows on the composition: the frames whose middle lies in `[start, end)`.
  public var range: TimeRange
  /// The clip whose source time the document gave, with that time; null: composition time.
  @NullEncoded public var clip: Int?
  /// The range in the clip's source time, as the document gave it; null without `clip`.
  @NullEncoded public var sourceRange: TimeRange?
  /// The left edge (an image's box; a title's when the document gave `x`); null: `position`.
  @NullEncoded public var x: Int?
  /// The top edge; null: `position`.
  @NullEncoded public var y: Int?
  /// An image's width in render pixels; null for a title (its text decides).
  @NullEncoded public var width: Int?
  /// An image's height; null for a title.
  @NullEncoded public var height: Int?
  /// A title's corner when the document gave no `x` and `y` (an image's box is already placed);
  /// null otherwise.
  @NullEncoded public var position: OverlayPosition?
  /// Pixels in from the edges at `position`.
  public var margin: Int
  /// Clockwise degrees that turn an image upright (its EXIF orientation); 0 for a title.
  public var rotation: Int
  /// True when the image is mirrored after the rotation.
  public var mirrored: Bool
  /// 0 to 1.
  public var opacity: Rational
  /// How its colours combine with the picture.
  public var blend: OverlayBlend
  /// Seconds of its fade-in (opacity rising linearly from 0 at `range.start`).
  public var fadeIn: MediaTime
  /// Seconds of its fade-out (opacity falling linearly to 0 at `range.end`).
  public var fadeOut: MediaTime

  /// The opacity at composition time `seconds` (a frame's middle): `opacity` times the fades'
  /// linear ramps; 0 outside the range.
  public func opacity(at seconds: Double) -> Double {
    let (start, end) = (range.start.seconds, range.end.seconds)
    guard seconds >= start, seconds < end else { return 0 }
    var factor = 1.0
    if fadeIn.seconds > 0 { factor = min(factor, (seconds - start) / fadeIn.seconds) }
    if fadeOut.seconds > 0 { factor = min(factor, (end - seconds) / fadeOut.seconds) }
    return opacity.value * min(max(factor, 0), 1)
  }
}

extension CompositionResolver {
  /// The overlays of `document` on a composition `total` long whose clips start at `starts` and
  /// play their sources from `ranges` (`from`, `to`), on a `width`×`height` render.
  ///
  /// - Throws: `invalid_composition` for an image that is not a still, a clip time outside the
  ///   part of the source the clip plays, fades longer than the overlay; the probe's code for an
  ///   image it cannot read.
  func resolveOverlays(
    _ document: CompositionDocument, starts: [ExactNumber],
    ranges: [(from: ExactNumber, to: ExactNumber)], total: ExactNumber, width: Int, height: Int,
    warnings: inout [String], lookUp: (String, String) throws(CompositionError) -> SourceFacts
  ) throws(CompositionError) -> [PlannedOverlay] {
    var planned: [PlannedOverlay] = []
    for (index, overlay) in (document.overlays ?? []).enumerated() {
      let location = "overlays[\(index)]"
      func fail(_ key: String, _ message: String) -> CompositionError {
        .invalidComposition(location: "\(location).\(key)", message: message)
      }
      func exact(_ value: ExactNumber?) throws(CompositionError) -> ExactNumber {
        guard let value else {
          throw CompositionError.invalidComposition(
            location: location, message: "its time cannot be computed exactly")
        }
        return value
      }
      // 1. Its time on the composition.
      var start = overlay.from ?? .zero
      var end = overlay.to ?? total
      var sourceRange: TimeRange?
      if let clip = overlay.clip {
        let part = ranges[clip]
        let from = overlay.from ?? part.from
        let to = overlay.to ?? part.to
        guard part.from <= from, from < part.to else {
          throw fail(
            "from",
            "\(from) s lies outside the part of clips[\(clip)]'s source it plays "
              + "(\(part.from)–\(part.to) s)")
        }
        guard from < to else { throw fail("to", "\(to) s is not after from (\(from) s)") }
        sourceRange = TimeRange(start: from.time, end: to.time)
        start = try exact(starts[clip].adding(try exact(from.subtracting(part.from))))
        end = try exact(starts[clip].adding(try exact(to.subtracting(part.from))))
      }
      if end > total { end = total }
      guard start < end else {
        warnings.append(
          "\(location) starts at \(start) s, at or after the composition's end (\(total) s): "
            + "dropped")
        continue
      }
      let length = try exact(end.subtracting(start))
      let fadeIn = overlay.fadeIn ?? .zero
      let fadeOut = overlay.fadeOut ?? .zero
      if try exact(fadeIn.adding(fadeOut)) > length {
        throw fail(
          "fade_in",
          "the fades (\(fadeIn) s in, \(fadeOut) s out) last longer than the overlay (\(length) s)")
      }
      var item = PlannedOverlay(
        index: index, kind: overlay.image == nil ? .text : .image, source: overlay.image,
        path: overlay.image.map(path(of:)), text: overlay.text, font: nil, fontFile: false,
        fontSize: nil, color: nil, range: TimeRange(start: start.time, end: end.time),
        clip: overlay.clip, sourceRange: sourceRange, x: overlay.x, y: overlay.y, width: nil,
        height: nil, position: nil, margin: overlay.margin ?? 0, rotation: 0, mirrored: false,
        opacity: (overlay.opacity ?? .one).rational, blend: overlay.blend ?? .normal,
        fadeIn: fadeIn.time, fadeOut: fadeOut.time)
      // 2. What it draws, and where.
      if let image = overlay.image {
        let facts = try lookUp(image, "\(location).image")
        guard facts.kind == .image else {
          throw fail("image", "\(image) is not a still image (a JPEG, PNG or WebP file)")
        }
        item.rotation = facts.rotation
        item.mirrored = facts.mirrored
        let (w, h) = (facts.displayWidth, facts.displayHeight)
        guard w > 0, h > 0 else { throw fail("image", "\(image) has no picture size") }
        var size: (Int, Int)
        switch (overlay.width, overlay.height, overlay.scale) {
        case (let width?, let height?, _): size = (width, height)
        case (let width?, nil, _):
          size = (width, max(1, Int((Double(h) * Double(width) / Double(w)).rounded())))
        case (nil, let height?, _):
          size = (max(1, Int((Double(w) * Double(height) / Double(h)).rounded())), height)
        case (nil, nil, let scale?):
          size = (
            max(1, Int((Double(w) * scale.doubleValue).rounded())),
            max(1, Int((Double(h) * scale.doubleValue).rounded()))
          )
        case (nil, nil, nil): size = (w, h)
        }
        // At most twice the render's size each way: the image is scaled whole before the part
        // on the picture is cut out, so a box far larger would only cost memory.
        guard size.0 <= 2 * width, size.1 <= 2 * height else {
          let key = overlay.scale != nil ? "scale" : (overlay.width != nil ? "width" : "height")
          throw fail(
            overlay.width == nil && overlay.height == nil && overlay.scale == nil ? "image" : key,
            "the image would be \(size.0)x\(size.1), more than twice the \(width)x\(height) "
              + "picture's size")
        }
        item.width = size.0
        item.height = size.1
        if overlay.x == nil {
          let origin = (overlay.position ?? .topLeft).origin(
            width: size.0, height: size.1, canvasWidth: width, canvasHeight: height,
            margin: item.margin)
          item.x = origin.x
          item.y = origin.y
        }
        if let x = item.x, let y = item.y,
          x >= width || y >= height || x + size.0 <= 0 || y + size.1 <= 0
        {
          warnings.append(
            "\(location) (\(image)) lies outside the \(width)x\(height) picture: nothing shows")
        }
      } else {
        let font = overlay.font ?? "Sans"
        item.fontFile = Overlay.isFontFile(font)
        item.font = item.fontFile ? path(of: font) : font
        item.fontSize = overlay.size ?? 48
        item.color = overlay.color ?? Color(red: 255, green: 255, blue: 255)
        if overlay.x == nil { item.position = overlay.position ?? .topLeft }
      }
      planned.append(item)
    }
    return planned
  }
}
