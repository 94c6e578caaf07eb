#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import MediaCore

/// A composition document (`mediamerge --composition DOC.json`), version 1: AVFoundation's
/// composition model in plain names. Clips play one after another (each transition overlaps two
/// of them by its duration); audio tracks lie under them at composition times. Every time is an
/// exact number of seconds (`ExactNumber`: `1.5`, or `"1001/30000"`). What the document leaves
/// out keeps its default at resolution (`CompositionResolver`), and is left out again when the
/// document is written back, so a document reads and writes to the same text.
///
/// The JSON Schema is `schemas/mediamerge-composition.schema.json`; `decode(json:)` is stricter
/// than the schema can be (unknown keys, line and column, exact numbers).
public struct CompositionDocument: Codable, Sendable, Equatable {
  /// The version of the layout this tool reads and writes.
  public static let currentVersion = 1

  /// The layout's version: 1.
  public var version: Int
  /// The render size (`"1280x720"`, even, 2 to 16384); nil: the largest upright display width
  /// by the largest upright display height of the video clips (mediamerge's rule).
  public var size: FrameSize?
  /// How a picture of another shape fills the render; nil: `contain`.
  public var fit: Fit?
  /// The output frame rate (`30`, `"30000/1001"`); nil: the highest rate of the clips.
  public var fps: ExactNumber?
  /// The colour behind contained pictures, gaps and fades (`"#rrggbb"`); nil: black.
  public var background: Color?
  /// The clips, in play order (at least one).
  public var clips: [Clip]
  /// The audio tracks under the clips (music beds, voice-over); nil or empty: none.
  public var audio: [AudioTrack]?
  /// Looks applied, in order, to the whole rendered picture (after the clips' own looks,
  /// transitions included); nil or empty: none.
  public var filters: [Look]?
  /// Images and titles drawn over the finished picture (after `filters`), in order, each for
  /// its time range; nil or empty: none.
  public var overlays: [Overlay]?

  /// A document.
  public init(
    version: Int = CompositionDocument.currentVersion, size: FrameSize? = nil, fit: Fit? = nil,
    fps: ExactNumber? = nil, background: Color? = nil, clips: [Clip], audio: [AudioTrack]? = nil,
    filters: [Look]? = nil, overlays: [Overlay]? = nil
  ) {
    self.version = version
    self.size = size
    self.fit = fit
    self.fps = fps
    self.background = background
    self.clips = clips
    self.audio = audio
    self.filters = filters
    self.overlays = overlays
  }

  enum CodingKeys: String, DocumentKeys {
    case version, size, fit, fps, background, clips, audio, filters, overlays
  }
}

/// One clip: a part of a video file, a still image, an image sequence, or a gap (the background
/// for a while). Which one is decided by the source (`SourceFacts.kind`); a clip without a
/// `source` is a gap.
public struct Clip: Codable, Sendable, Equatable {
  /// The file, relative to the document's folder (or absolute): a video, a still image (JPEG,
  /// PNG, WebP), an image-sequence pattern (`frames/%04d.jpg`) or a folder of images (played in
  /// name order). Nil for a gap.
  public var source: String?
  /// Where the clip starts in its source, in seconds; nil: 0.
  public var from: ExactNumber?
  /// Where it ends in its source (exclusive); nil: the source's end. Not for a still or a gap.
  public var to: ExactNumber?
  /// How long a still or a gap lasts (required for them, refused for a video or a sequence).
  public var duration: ExactNumber?
  /// An image sequence's frame rate (required for a sequence, refused otherwise).
  public var fps: ExactNumber?
  /// The clip's audio gain (linear: 1 as recorded, 0.5 is −6 dB, 0 mutes); nil: 1.
  public var volume: ExactNumber?
  /// The transition into this clip from the one before (not on the first clip).
  public var transition: Transition?
  /// Events on the clip, at times of its source.
  public var markers: [Marker]?
  /// Looks applied, in order, to the clip's picture once it is upright and placed in the render
  /// (before transitions); nil or empty: none.
  public var filters: [Look]?
  /// A rectangle of the source's stored picture (its decoded pixels, before the display matrix
  /// or EXIF orientation turns it upright, as AVFoundation's crop rectangle is in the track's
  /// own coordinates before its transform), kept before the picture is turned and fitted; nil:
  /// the whole picture.
  public var crop: CropRect?
  /// Clockwise quarter turns (0, 90, 180, 270) applied after the picture is turned upright;
  /// nil: 0.
  public var rotate: Int?
  /// Flip the picture left to right after it is turned upright (and after `rotate`); nil: false.
  public var mirror: Bool?
  /// The playback rate (¼ to 4: 2 plays twice as fast, so the clip lasts half as long), as
  /// AVFoundation's `scaleTimeRange`; nil: 1. Not for a still, a freeze or a gap.
  public var speed: ExactNumber?
  /// How a clip's audio follows its `speed`; nil: `keep`.
  public var pitch: Pitch?
  /// A freeze frame: the picture of the video source shown at this source time, held for
  /// `duration` (silent); nil: the clip plays.
  public var freeze: ExactNumber?

  /// A clip.
  public init(
    source: String?, from: ExactNumber? = nil, to: ExactNumber? = nil,
    duration: ExactNumber? = nil, fps: ExactNumber? = nil, volume: ExactNumber? = nil,
    transition: Transition? = nil, markers: [Marker]? = nil, filters: [Look]? = nil,
    crop: CropRect? = nil, rotate: Int? = nil, mirror: Bool? = nil, speed: ExactNumber? = nil,
    pitch: Pitch? = nil, freeze: ExactNumber? = nil
  ) {
    self.source = source
    self.from = from
    self.to = to
    self.duration = duration
    self.fps = fps
    self.volume = volume
    self.transition = transition
    self.markers = markers
    self.filters = filters
    self.crop = crop
    self.rotate = rotate
    self.mirror = mirror
    self.speed = speed
    self.pitch = pitch
    self.freeze = freeze
  }

  enum CodingKeys: String, DocumentKeys {
    case source, from, to, duration, fps, volume, transition, markers, filters
    case crop, rotate, mirror, speed, pitch, freeze
  }

  /// The slowest `speed` a clip takes (¼).
  public static let minimumSpeed = ExactNumber(1, 4)!
  /// The fastest `speed` a clip takes (4).
  public static let maximumSpeed = ExactNumber(4)
}

/// A rectangle of a source's stored picture, in its pixels: `x`, `y` its top-left corner from
/// the picture's top-left, `width` by `height`.
public struct CropRect: Codable, Sendable, Equatable, Hashable {
  /// The left edge, in pixels from the stored picture's left (0 or more).
  public var x: Int
  /// The top edge, in pixels from the stored picture's top (0 or more).
  public var y: Int
  /// The width in pixels (1 or more).
  public var width: Int
  /// The height in pixels (1 or more).
  public var height: Int

  /// A rectangle.
  public init(x: Int, y: Int, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  enum CodingKeys: String, DocumentKeys { case x, y, width, height }
}

/// How a clip's audio follows its speed.
public enum Pitch: String, Codable, Sendable, CaseIterable {
  /// The tempo changes and the pitch stays (libavfilter's `atempo`, WSOLA; AVFoundation's
  /// time-domain pitch algorithm).
  case keep
  /// The samples are played faster or slower, so the pitch follows the speed (2× is an octave
  /// up), as a tape would (AVFoundation's `varispeed`).
  case follow

  /// Reads the name, listing the known ones when it is not one of them.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let name = try container.decode(String.self)
    guard let pitch = Pitch(rawValue: name) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "unknown pitch \"\(name)\" (known: keep, follow)")
    }
    self = pitch
  }
}

/// A transition into a clip from the one before: the two overlap by `duration`, so the
/// composition is that much shorter than the sum of its clips; their audio cross-fades over the
/// same overlap (linear in gain).
public struct Transition: Codable, Sendable, Equatable {
  /// How the picture changes.
  public var type: TransitionType
  /// How long the clips overlap, in seconds (more than 0).
  public var duration: ExactNumber

  /// A transition.
  public init(type: TransitionType, duration: ExactNumber) {
    self.type = type
    self.duration = duration
  }

  enum CodingKeys: String, DocumentKeys { case type, duration }
}

/// How a transition changes the picture. The wipes and slides carry libavfilter `xfade`'s names.
public enum TransitionType: String, Codable, Sendable, CaseIterable {
  /// The next clip dissolves over the previous one (xfade `fade`; OTIO `SMPTE_Dissolve`).
  case crossfade
  /// The previous clip fades to the background colour, then the next fades in from it.
  case fade
  /// The next clip is uncovered by an edge moving left.
  case wipeleft
  /// ... moving right.
  case wiperight
  /// ... moving up.
  case wipeup
  /// ... moving down.
  case wipedown
  /// The next clip pushes in from the right, moving left.
  case slideleft
  /// ... from the left, moving right.
  case slideright
  /// ... from below, moving up.
  case slideup
  /// ... from above, moving down.
  case slidedown

  /// Reads the name, listing the known ones when it is not one of them.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let name = try container.decode(String.self)
    guard let type = TransitionType(rawValue: name) else {
      throw DecodingError.dataCorruptedError(
        in: container,
        debugDescription: "unknown transition \"\(name)\" (known: "
          + TransitionType.allCases.map(\.rawValue).joined(separator: ", ") + ")")
    }
    self = type
  }
}

/// An event on a clip: `at` is a time of the clip's source; on the composition it lands at the
/// clip's start + (`at` − `from`), exactly.
public struct Marker: Codable, Sendable, Equatable {
  /// The time in the clip's source, in seconds.
  public var at: ExactNumber
  /// Its name (becomes the chapter's title).
  public var name: String

  /// A marker.
  public init(at: ExactNumber, name: String) {
    self.at = at
    self.name = name
  }

  enum CodingKeys: String, DocumentKeys { case at, name }
}

/// An audio track under the clips (a music bed, a voice-over): a part of a file placed at a
/// composition time, with its own gain, fades and ramps, cut at the composition's end.
public struct AudioTrack: Codable, Sendable, Equatable {
  /// The file (relative to the document's folder, or absolute); its first audio stream plays.
  public var source: String
  /// Where it starts on the composition, in seconds; nil: 0.
  public var at: ExactNumber?
  /// Where it starts in its source; nil: 0.
  public var from: ExactNumber?
  /// Where it ends in its source (exclusive); nil: the source's end.
  public var to: ExactNumber?
  /// Its gain before any ramp (linear); nil: 1.
  public var volume: ExactNumber?
  /// Play `from`–`to` again and again until the composition ends; nil: false.
  public var loop: Bool?
  /// Seconds over which it rises from silence to its gain at its start; nil: 0.
  public var fadeIn: ExactNumber?
  /// Seconds over which it falls to silence, ending where it ends (the composition's end when
  /// looped or cut there); nil: 0.
  public var fadeOut: ExactNumber?
  /// Changes of gain over time, in order, not overlapping each other or the fades.
  public var ramps: [Ramp]?

  /// An audio track.
  public init(
    source: String, at: ExactNumber? = nil, from: ExactNumber? = nil, to: ExactNumber? = nil,
    volume: ExactNumber? = nil, loop: Bool? = nil, fadeIn: ExactNumber? = nil,
    fadeOut: ExactNumber? = nil, ramps: [Ramp]? = nil
  ) {
    self.source = source
    self.at = at
    self.from = from
    self.to = to
    self.volume = volume
    self.loop = loop
    self.fadeIn = fadeIn
    self.fadeOut = fadeOut
    self.ramps = ramps
  }

  enum CodingKeys: String, DocumentKeys {
    case source, at, from, to, volume, loop, fadeIn, fadeOut, ramps
  }
}

/// A change of an audio track's gain, linear in gain over `duration` from what it was at `at`
/// to `to` (AVFoundation's `setVolumeRamp(fromStartVolume:toEndVolume:timeRange:)`); the gain
/// stays at `to` afterwards.
public struct Ramp: Codable, Sendable, Equatable {
  /// When it starts, in composition seconds.
  public var at: ExactNumber
  /// How long it lasts (0: a step).
  public var duration: ExactNumber
  /// The gain it reaches (linear).
  public var to: ExactNumber

  /// A ramp.
  public init(at: ExactNumber, duration: ExactNumber, to: ExactNumber) {
    self.at = at
    self.duration = duration
    self.to = to
  }

  enum CodingKeys: String, DocumentKeys { case at, duration, to }
}

/// How a picture of another shape fills the render.
public enum Fit: String, Codable, Sendable, CaseIterable {
  /// Scaled to fit inside, centred, the background around it (AVFoundation's resize-aspect).
  case contain
  /// Scaled to cover, centred, the overflow cropped (resize-aspect-fill).
  case cover
  /// Scaled to the render's size, the shape changed (resize).
  case stretch

  /// Reads the name, listing the known ones when it is not one of them.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let name = try container.decode(String.self)
    guard let fit = Fit(rawValue: name) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "unknown fit \"\(name)\" (known: contain, cover, stretch)")
    }
    self = fit
  }
}

/// A render size, `WIDTHxHEIGHT`: both even (4:2:0 chroma), from 2 to 16384.
public struct FrameSize: Codable, Sendable, Equatable, Hashable, CustomStringConvertible {
  /// Width in pixels.
  public var width: Int
  /// Height in pixels.
  public var height: Int

  /// A size (not checked).
  public init(width: Int, height: Int) {
    self.width = width
    self.height = height
  }

  /// Parses `1280x720`; nil unless both are even numbers from 2 to 16384 (H.264 with 4:2:0
  /// chroma needs even sizes). `mediamerge --size` reads sizes with the same rule.
  public init?(parsing text: String) {
    let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
    guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
      (2...16384).contains(width), (2...16384).contains(height), width % 2 == 0,
      height % 2 == 0
    else { return nil }
    self.init(width: width, height: height)
  }

  /// `1280x720`.
  public var description: String { "\(width)x\(height)" }

  /// Reads `"1280x720"`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let size = FrameSize(parsing: text) else {
      throw DecodingError.dataCorruptedError(
        in: container,
        debugDescription: "\"\(text)\" is not a size WIDTHxHEIGHT with even numbers from 2 "
          + "to 16384")
    }
    self = size
  }

  /// Writes `"1280x720"`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}

/// An sRGB colour, `#rrggbb`.
public struct Color: Codable, Sendable, Equatable, Hashable, CustomStringConvertible {
  /// Red, 0–255.
  public var red: UInt8
  /// Green, 0–255.
  public var green: UInt8
  /// Blue, 0–255.
  public var blue: UInt8

  /// Black, the default background.
  public static let black = Color(red: 0, green: 0, blue: 0)

  /// A colour.
  public init(red: UInt8, green: UInt8, blue: UInt8) {
    self.red = red
    self.green = green
    self.blue = blue
  }

  /// Parses `#rrggbb` (either case); nil otherwise.
  public init?(parsing text: String) {
    let digits = Array(text.utf8)
    guard digits.count == 7, digits[0] == UInt8(ascii: "#"),
      let value = UInt32(String(decoding: digits[1...], as: UTF8.self), radix: 16),
      digits[1...].allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) })
    else { return nil }
    self.init(
      red: UInt8(value >> 16), green: UInt8((value >> 8) & 0xFF), blue: UInt8(value & 0xFF))
  }

  /// `#rrggbb`, lower case.
  public var description: String {
    "#"
      + [red, green, blue].map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
      .joined()
  }

  /// Reads `"#rrggbb"`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let color = Color(parsing: text) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "\"\(text)\" is not a colour #rrggbb")
    }
    self = color
  }

  /// Writes `"#rrggbb"`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}

// MARK: - Reading and writing

extension CompositionDocument {
  /// Reads a composition document from its JSON text, strictly: not JSON (line and column), an
  /// unknown key, a value of the wrong type, a missing required value or one the model refuses
  /// (see `validate()`) is an `invalid_composition` error naming its path.
  ///
  /// - Throws: `CompositionError.invalidComposition`.
  public static func decode(json bytes: [UInt8]) throws(CompositionError) -> CompositionDocument {
    let value: JSONValue
    do {
      value = try JSONParser.parse(bytes)
    } catch {
      throw .invalidComposition(
        location: error.position.description, message: "not JSON: \(error.message)")
    }
    let decoder = StrictJSONDecoder(value: value, path: [], codingPath: [])
    let document: CompositionDocument
    do {
      if case .object(let members) = value.kind,
        let version = members.first(where: { $0.key == "version" })?.value,
        case .number(let text) = version.kind, text != "\(currentVersion)"
      {
        throw CompositionError.invalidComposition(
          location: "version (\(version.position))",
          message: "version \(text) is not one this tool reads (\(currentVersion))")
      }
      document = try decoder.decode(CompositionDocument.self)
    } catch let error as CompositionError {
      throw error
    } catch {
      throw .invalidComposition(location: "(document)", message: "\(error)")
    }
    try document.validate()
    return document
  }

  /// The document as JSON (the tools' encoder: snake_case keys, sorted, pretty-printed), with
  /// exactly what it holds: a value it leaves out stays out.
  public func encodedJSON() -> [UInt8] {
    // The model holds only strings, booleans, whole numbers and exact numbers: it always encodes.
    Array((try? MediaToolsJSONEncoder().encode(self)) ?? Data())
  }

  /// Checks what the types alone cannot: the version, at least one clip, no transition into the
  /// first clip, positive durations and rates, gains and times not negative, a gap (a clip
  /// without a source) with a duration and nothing a gap cannot have, an audio track's ramps in
  /// order and not overlapping each other, every look known, renderable and within its
  /// parameters' ranges (`Look.validate(path:)`), a clip's crop, rotate, speed, pitch and freeze
  /// (`validatePicture`). What needs the sources (a still needs a duration, `to` within the
  /// source, transitions shorter than their clips, a crop inside the stored picture, a freeze
  /// inside a video) is checked at resolution.
  ///
  /// - Throws: `CompositionError.invalidComposition` naming the path.
  public func validate() throws(CompositionError) {
    func fail(_ path: String, _ message: String) -> CompositionError {
      .invalidComposition(location: path, message: message)
    }
    guard version == Self.currentVersion else {
      throw fail(
        "version", "version \(version) is not one this tool reads (\(Self.currentVersion))")
    }
    guard !clips.isEmpty else { throw fail("clips", "a composition needs at least one clip") }
    if let fps, fps <= .zero || fps > ExactNumber(1000) {
      throw fail("fps", "\(fps) is not a frame rate (more than 0, at most 1000)")
    }
    for (index, clip) in clips.enumerated() {
      let path = "clips[\(index)]"
      for (name, value) in [("from", clip.from), ("to", clip.to)] {
        if let value, value < .zero { throw fail("\(path).\(name)", "\(value) s is negative") }
      }
      if let duration = clip.duration, duration <= .zero {
        throw fail("\(path).duration", "\(duration) s is not a duration (more than 0)")
      }
      if let fps = clip.fps, fps <= .zero || fps > ExactNumber(1000) {
        throw fail("\(path).fps", "\(fps) is not a frame rate (more than 0, at most 1000)")
      }
      if let volume = clip.volume, volume < .zero {
        throw fail("\(path).volume", "\(volume) is negative (a gain is 0 or more)")
      }
      if let transition = clip.transition {
        if index == 0 {
          throw fail("\(path).transition", "the first clip has no clip before it to come from")
        }
        if transition.duration <= .zero {
          throw fail(
            "\(path).transition.duration",
            "\(transition.duration) s is not a duration (more than 0)")
        }
      }
      for (number, marker) in (clip.markers ?? []).enumerated() where marker.at < .zero {
        throw fail("\(path).markers[\(number)].at", "\(marker.at) s is negative")
      }
      for (number, look) in (clip.filters ?? []).enumerated() {
        try look.validate(path: "\(path).filters[\(number)]", allowsTime: false)
      }
      try validatePicture(clip, path: path)
      if clip.source == nil {
        guard clip.duration != nil else {
          throw fail("\(path)", "a clip without a source (a gap) needs a duration")
        }
        for (name, present) in [
          ("from", clip.from != nil), ("to", clip.to != nil), ("fps", clip.fps != nil),
          ("volume", clip.volume != nil), ("crop", clip.crop != nil),
          ("rotate", clip.rotate != nil), ("mirror", clip.mirror != nil),
          ("speed", clip.speed != nil), ("pitch", clip.pitch != nil),
          ("freeze", clip.freeze != nil),
        ] where present {
          throw fail("\(path).\(name)", "a gap (a clip without a source) has no \(name)")
        }
      } else if clip.source?.isEmpty == true {
        throw fail("\(path).source", "an empty path")
      }
    }
    for (number, look) in (filters ?? []).enumerated() {
      try look.validate(path: "filters[\(number)]")
    }
    if let overlays, overlays.count > Overlay.maxCount {
      throw fail(
        "overlays", "\(overlays.count) overlays; at most \(Overlay.maxCount) are drawn")
    }
    for (number, overlay) in (overlays ?? []).enumerated() {
      try overlay.validate(path: "overlays[\(number)]", clipCount: clips.count)
    }
    for (index, track) in (audio ?? []).enumerated() {
      let path = "audio[\(index)]"
      guard !track.source.isEmpty else { throw fail("\(path).source", "an empty path") }
      for (name, value) in [
        ("at", track.at), ("from", track.from), ("to", track.to), ("fade_in", track.fadeIn),
        ("fade_out", track.fadeOut),
      ] {
        if let value, value < .zero { throw fail("\(path).\(name)", "\(value) s is negative") }
      }
      if let volume = track.volume, volume < .zero {
        throw fail("\(path).volume", "\(volume) is negative (a gain is 0 or more)")
      }
      var previousEnd: ExactNumber?
      for (number, ramp) in (track.ramps ?? []).enumerated() {
        let rampPath = "\(path).ramps[\(number)]"
        if ramp.at < .zero { throw fail("\(rampPath).at", "\(ramp.at) s is negative") }
        if ramp.duration < .zero {
          throw fail("\(rampPath).duration", "\(ramp.duration) s is negative")
        }
        if ramp.to < .zero { throw fail("\(rampPath).to", "\(ramp.to) is negative") }
        if let previousEnd, ramp.at < previousEnd {
          throw fail(
            "\(rampPath).at",
            "starts at \(ramp.at) s, before the ramp before it ends (\(previousEnd) s): ramps go "
              + "in order and do not overlap")
        }
        guard let end = ramp.at.adding(ramp.duration) else {
          throw fail(rampPath, "its end cannot be computed exactly")
        }
        previousEnd = end
      }
    }
  }
}

extension CompositionDocument {
  /// Checks a clip's picture and time settings that need no source: a crop rectangle inside
  /// the positive quarter, a rotation in quarter turns, a speed from ¼ to 4, a pitch only with
  /// a speed, a freeze with a duration and without what a freeze cannot have.
  func validatePicture(_ clip: Clip, path: String) throws(CompositionError) {
    func fail(_ key: String, _ message: String) -> CompositionError {
      .invalidComposition(location: key.isEmpty ? path : "\(path).\(key)", message: message)
    }
    if let crop = clip.crop {
      if crop.x < 0 || crop.y < 0 {
        throw fail("crop", "x \(crop.x), y \(crop.y): a crop starts inside the picture (0 or more)")
      }
      if crop.width < 1 || crop.height < 1 || crop.width > 16384 || crop.height > 16384 {
        throw fail(
          "crop", "\(crop.width)x\(crop.height) is not a crop size (1 to 16384 pixels each way)")
      }
    }
    if let rotate = clip.rotate, ![0, 90, 180, 270].contains(rotate) {
      throw fail("rotate", "\(rotate) is not a quarter turn (0, 90, 180 or 270 degrees clockwise)")
    }
    if let speed = clip.speed,
      speed < Clip.minimumSpeed || speed > Clip.maximumSpeed
    {
      throw fail("speed", "\(speed) is not a speed this tool plays (from 0.25 to 4)")
    }
    if clip.pitch != nil, clip.speed == nil {
      throw fail("pitch", "a pitch rule needs a speed")
    }
    if let freeze = clip.freeze {
      if freeze < .zero { throw fail("freeze", "\(freeze) s is negative") }
      guard clip.duration != nil else {
        throw fail("", "a freeze frame needs a duration (how long the picture is held)")
      }
      for (name, present) in [
        ("from", clip.from != nil), ("to", clip.to != nil), ("speed", clip.speed != nil),
        ("volume", clip.volume != nil), ("fps", clip.fps != nil),
      ] where present {
        throw fail(
          name, "a freeze frame (one picture held, silent) has no \(name)")
      }
    }
  }
}

/// The two layouts a composition is read from and written as.
public enum CompositionFormat: String, Sendable, CaseIterable {
  /// This tool's JSON document (`schemas/mediamerge-composition.schema.json`).
  case json
  /// OpenTimelineIO's JSON (`.otio`).
  case otio

  /// The layout of `bytes` read from `path`: `otio` for a `.otio` file or a JSON object whose
  /// first key is `OTIO_SCHEMA` (a timeline on standard input), else `json`.
  public static func detect(path: String?, bytes: [UInt8]) -> CompositionFormat {
    if let path, path.lowercased().hasSuffix(".otio") { return .otio }
    let text = bytes.prefix(256).drop { [0x20, 0x0A, 0x0D, 0x09, 0x7B].contains($0) }
    return text.starts(with: Array("\"OTIO_SCHEMA\"".utf8)) ? .otio : .json
  }
}

extension CompositionDocument {
  /// A composition of whole clips played one after another, as `mediamerge A B C` makes (the
  /// document `--print-composition` starts from).
  public static func wholeClips(_ sources: [String]) -> CompositionDocument {
    CompositionDocument(clips: sources.map { Clip(source: $0) })
  }

  /// Reads a composition in either layout (`format` nil: `CompositionFormat.detect`).
  ///
  /// - Throws: `CompositionError` (`invalid_composition`, `unsupported_timeline`).
  public static func read(_ bytes: [UInt8], path: String? = nil, format: CompositionFormat? = nil)
    throws(CompositionError) -> CompositionDocument
  {
    switch format ?? CompositionFormat.detect(path: path, bytes: bytes) {
    case .json: try decode(json: bytes)
    case .otio: try OTIOReader.read(bytes)
    }
  }

  /// The document in `format`: this tool's JSON as it holds it, or OTIO from its resolved `plan`
  /// (OTIO needs every clip's range, which only resolution knows).
  public func written(as format: CompositionFormat, plan: CompositionPlan) -> [UInt8] {
    switch format {
    case .json: encodedJSON()
    case .otio: OTIOWriter.write(self, plan: plan)
    }
  }
}
