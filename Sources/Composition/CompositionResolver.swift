import MediaCore

/// Resolves a composition document into a `CompositionPlan`: each clip's source range checked
/// against its source and placed on the timeline (transitions as overlaps), stills, sequences
/// and gaps given their durations, the render size and rate chosen, every gain envelope built,
/// the audio tracks placed, looped and cut, the markers re-timed. Pure: the sources' facts come
/// from the `SourceFactsProvider` (asked once per path), so it is tested without media.
public struct CompositionResolver: Sendable {
  /// The folder relative sources resolve against (the document's); nil: as written.
  public var baseDirectory: String?
  /// Gives each source's facts.
  public var facts: SourceFactsProvider
  /// A loop may repeat at most this many times (a 1 ms loop under an hour would be millions of
  /// pieces).
  public static let maxLoopPieces = 10_000

  /// A resolver for documents in `baseDirectory`, probing with `facts`.
  public init(baseDirectory: String?, facts: @escaping SourceFactsProvider) {
    self.baseDirectory = baseDirectory
    self.facts = facts
  }

  /// `source` joined with the document's folder, unless it is absolute.
  public func path(of source: String) -> String {
    guard let base = baseDirectory, !base.isEmpty, !source.hasPrefix("/") else { return source }
    return base.hasSuffix("/") ? base + source : base + "/" + source
  }

  /// The plan of `document`.
  ///
  /// - Throws: `CompositionError`: `invalid_composition` (see `CompositionDocument.validate()`,
  ///   and a still without a duration, a sequence without fps, ramps overlapping the fades),
  ///   `source_range_invalid`, `clip_past_source_end`, `transition_too_long`,
  ///   `clip_without_video`, or the probe's own code for a source it could not read.
  public func resolve(_ document: CompositionDocument) throws(CompositionError) -> CompositionPlan {
    try document.validate()
    var cache: [String: SourceFacts] = [:]
    func lookUp(_ source: String, _ location: String) throws(CompositionError) -> SourceFacts {
      let resolved = path(of: source)
      if let known = cache[resolved] { return known }
      do {
        let found = try facts(resolved)
        cache[resolved] = found
        return found
      } catch let error as CompositionError {
        throw error
      } catch let error as any ToolError {
        throw .source(
          location: location, source: source, code: error.code, message: error.message,
          cause: error.cause)
      } catch {
        throw .source(
          location: location, source: source, code: "source_unreadable", message: "\(error)",
          cause: nil)
      }
    }

    // 1. Each clip: what it is, the part of its source it plays.
    var clips: [ResolvedClip] = []
    for (index, clip) in document.clips.enumerated() {
      clips.append(try resolveClip(clip, index: index, lookUp: lookUp))
    }

    // 2. The timeline: each clip starts where the one before ends, less the transition.
    var warnings: [String] = []
    var starts: [ExactNumber] = []
    var cursor = ExactNumber.zero
    for (index, clip) in clips.enumerated() {
      let location = "clips[\(index)].transition"
      var start = cursor
      if let transition = document.clips[index].transition {
        let previous = clips[index - 1]
        let d = transition.duration
        if d > previous.length || d > clip.length {
          let (which, length) =
            d > previous.length
            ? ("clips[\(index - 1)]", previous.length) : ("this clip", clip.length)
          throw .transitionTooLong(
            location: location,
            message: "the \(transition.type.rawValue) lasts \(d) s, longer than \(which) "
              + "(\(length) s)")
        }
        if index >= 2, let before = document.clips[index - 1].transition {
          let both = try exact(before.duration.adding(d), location)
          if both > previous.length {
            throw .transitionTooLong(
              location: location,
              message: "clips[\(index - 1)]'s transitions (\(before.duration) s in, \(d) s out) "
                + "together last longer than it (\(previous.length) s)")
          }
        }
        start = try exact(cursor.subtracting(d), location)
      }
      starts.append(start)
      cursor = try exact(start.adding(clip.length), "clips[\(index)]")
    }
    let total = cursor

    // 3. The render size and rate.
    let render = try self.render(document, clips)

    // 4. The segments: placement, transform, audio envelope.
    var segments: [PlannedSegment] = []
    var transitions: [PlannedTransition] = []
    for (index, clip) in clips.enumerated() {
      let location = "clips[\(index)]"
      let start = starts[index]
      let end = try exact(start.adding(clip.length), location)
      let fadeIn = document.clips[index].transition?.duration ?? .zero
      let fadeOut =
        index + 1 < clips.count ? (document.clips[index + 1].transition?.duration ?? .zero) : .zero
      if let transition = document.clips[index].transition {
        transitions.append(
          PlannedTransition(
            type: transition.type, from: index - 1, to: index,
            range: TimeRange(start: start.time, duration: transition.duration.time)))
      }
      var audio: SegmentAudio?
      if clip.hasAudio {
        let volume = document.clips[index].volume ?? .one
        var points: [(ExactNumber, ExactNumber)] = [(start, fadeIn > .zero ? .zero : volume)]
        if fadeIn > .zero { points.append((try exact(start.adding(fadeIn), location), volume)) }
        if fadeOut > .zero {
          points.append((try exact(end.subtracting(fadeOut), location), volume))
        }
        points.append((end, fadeOut > .zero ? .zero : volume))
        audio = SegmentAudio(volume: volume.rational, gain: Self.envelope(points))
      }
      var transform: SegmentTransform?
      if clip.kind != .gap {
        let picture = clip.picture
        let placed = RenderRules.place(
          width: picture.width, height: picture.height,
          intoWidth: render.width, height: render.height, fit: render.fit)
        transform = SegmentTransform(
          rotation: picture.rotation, mirrored: picture.mirrored,
          sourceWidth: picture.width, sourceHeight: picture.height,
          x: placed.x, y: placed.y, width: placed.width, height: placed.height)
        transform?.crop = picture.crop
      }
      let source = document.clips[index].source
      var segment = PlannedSegment(
        index: index, kind: clip.kind, source: source, path: source.map(path(of:)),
        sourceRange: TimeRange(start: clip.from.time, end: clip.to.time),
        compositionRange: TimeRange(start: start.time, end: end.time),
        frameRate: clip.frameRate, transform: transform, audio: audio,
        looks: Self.resolvedLooks(document.clips[index].filters))
      if let freeze = clip.freeze {
        segment.sourceRange = TimeRange(start: freeze.time, duration: .zero)
        segment.freeze = freeze.time
      } else if clip.speed != .one {
        segment.speed = clip.speed.rational
        if audio != nil { segment.pitch = document.clips[index].pitch ?? .keep }
      }
      segments.append(segment)
    }

    // 5. The markers.
    var markers: [PlannedMarker] = []
    for (index, clip) in clips.enumerated() {
      for (number, marker) in (document.clips[index].markers ?? []).enumerated() {
        let location = "clips[\(index)].markers[\(number)]"
        guard clip.from <= marker.at, marker.at < clip.to else {
          warnings.append(
            "\(location) (\"\(marker.name)\") at \(marker.at) s lies outside the part of the "
              + "source the clip plays (\(clip.from)–\(clip.to) s): dropped")
          continue
        }
        let offset = try exact(
          marker.at.subtracting(clip.from)?.divided(by: clip.speed), location)
        let time = try exact(starts[index].adding(offset), location)
        markers.append(
          PlannedMarker(name: marker.name, clip: index, sourceTime: marker.at.time, time: time.time)
        )
      }
    }
    markers.sort { $0.time < $1.time }

    // 6. The audio tracks.
    var audio: [PlannedAudioTrack] = []
    for (index, track) in (document.audio ?? []).enumerated() {
      let location = "audio[\(index)]"
      let facts = try lookUp(track.source, location)
      guard facts.hasAudio else {
        warnings.append("\(location) (\(track.source)) has no audio stream: it contributes silence")
        continue
      }
      if let planned = try resolveAudio(
        track, index: index, facts: facts, total: total, warnings: &warnings)
      {
        audio.append(planned)
      }
    }

    // 7. The overlays.
    let overlays = try resolveOverlays(
      document, starts: starts, ranges: clips.map { ($0.from, $0.to) }, total: total,
      width: render.width, height: render.height, warnings: &warnings, lookUp: lookUp)

    return CompositionPlan(
      schemaVersion: 1, duration: total.time, render: render, segments: segments,
      transitions: transitions, audio: audio, markers: markers, rules: CompositionPlan.rules,
      warnings: warnings, looks: Self.resolvedLooks(document.filters),
      overlays: overlays.isEmpty ? nil : overlays)
  }

  /// Looks with their defaults filled in; nil for none (so a plan without looks is written as
  /// before they existed).
  static func resolvedLooks(_ looks: [Look]?) -> [Look]? {
    guard let looks, !looks.isEmpty else { return nil }
    return looks.map { $0.resolved() }
  }

  // MARK: - Clips

  /// A clip with what the timeline needs.
  struct ResolvedClip {
    var kind: SegmentKind
    var facts: SourceFacts
    /// The source range (a still's, a gap's and a freeze frame's: 0 to its duration, so their
    /// markers count from their start).
    var from: ExactNumber
    var to: ExactNumber
    /// How long it plays on the composition: (to − from) / speed.
    var length: ExactNumber
    var hasAudio: Bool
    var frameRate: Rational?
    /// The playback rate (1 unless the clip sets `speed`).
    var speed: ExactNumber = .one
    /// A freeze frame's source time.
    var freeze: ExactNumber?
    /// The picture after its crop and turns.
    var picture = PictureGeometry(width: 0, height: 0, rotation: 0, mirrored: false, crop: nil)
  }

  /// A clip's picture as it is placed: the crop (stored pixels), then the display matrix's turn
  /// combined with the clip's `rotate` and `mirror`, and the upright size that results.
  struct PictureGeometry {
    var width: Int
    var height: Int
    var rotation: Int
    var mirrored: Bool
    var crop: CropRect?
  }

  /// The geometry of `clip`'s picture from its source's `facts`.
  ///
  /// The turn: the upright rule is "rotate by r clockwise, then flip if mirrored" (F^m·R(r));
  /// the clip's own turn follows it (F^M·R(R)). Since a flip reverses a rotation
  /// (R(R)·F = F·R(−R)), the two make F^(m⊕M)·R(r + (m ? −R : R)): one rotation and one flip,
  /// as the placing graph applies them.
  static func geometry(_ clip: Clip, facts: SourceFacts, location: String)
    throws(CompositionError) -> PictureGeometry
  {
    let turned = facts.rotation % 180 != 0
    // The picture's natural size (sample aspect ratio applied, not turned).
    let naturalWidth = turned ? facts.displayHeight : facts.displayWidth
    let naturalHeight = turned ? facts.displayWidth : facts.displayHeight
    let storedWidth = facts.storedWidth > 0 ? facts.storedWidth : naturalWidth
    let storedHeight = facts.storedHeight > 0 ? facts.storedHeight : naturalHeight
    var width = naturalWidth
    var height = naturalHeight
    if let crop = clip.crop {
      guard crop.x + crop.width <= storedWidth, crop.y + crop.height <= storedHeight else {
        throw .invalidComposition(
          location: "\(location).crop",
          message: "the rectangle \(crop.width)x\(crop.height) at (\(crop.x), \(crop.y)) "
            + "does not lie inside the stored picture (\(storedWidth)x\(storedHeight) pixels, "
            + "before its turn)")
      }
      // Stored pixels to display width: the sample aspect ratio, naturalWidth / storedWidth.
      width = max(
        1, Int((Double(crop.width) * Double(naturalWidth) / Double(storedWidth)).rounded()))
      height = crop.height
    }
    let extra = clip.rotate ?? 0
    let rotation = ((facts.rotation + (facts.mirrored ? -extra : extra)) % 360 + 360) % 360
    let mirrored = facts.mirrored != (clip.mirror ?? false)
    if rotation % 180 != 0 { swap(&width, &height) }
    return PictureGeometry(
      width: width, height: height, rotation: rotation, mirrored: mirrored, crop: clip.crop)
  }

  func resolveClip(
    _ clip: Clip, index: Int,
    lookUp: (String, String) throws(CompositionError) -> SourceFacts
  ) throws(CompositionError) -> ResolvedClip {
    let location = "clips[\(index)]"
    guard let source = clip.source else {
      let duration = clip.duration!  // validate() requires it
      return ResolvedClip(
        kind: .gap, facts: SourceFacts(kind: .media, hasVideo: false, hasAudio: false),
        from: .zero, to: duration, length: duration, hasAudio: false, frameRate: nil)
    }
    let facts = try lookUp(source, location)
    guard facts.hasVideo, facts.displayWidth > 0, facts.displayHeight > 0 else {
      throw .clipWithoutVideo(location: "\(location).source", source: source)
    }
    var resolved = try resolveTime(clip, facts: facts, source: source, location: location)
    resolved.picture = try Self.geometry(clip, facts: facts, location: location)
    return resolved
  }

  /// A clip's kind and source range, with its speed or freeze.
  func resolveTime(_ clip: Clip, facts: SourceFacts, source: String, location: String)
    throws(CompositionError) -> ResolvedClip
  {
    func refuse(_ key: String, _ what: String) -> CompositionError {
      .invalidComposition(location: "\(location).\(key)", message: "\(what) has no \(key)")
    }
    if let freeze = clip.freeze {
      guard facts.kind == .media else {
        throw .invalidComposition(
          location: "\(location).freeze",
          message: "a freeze frame holds a picture of a video; \(source) is "
            + (facts.kind == .image ? "a still (give it a duration)" : "an image sequence"))
      }
      guard let end = facts.duration.map(ExactNumber.init) else {
        throw .invalidComposition(
          location: "\(location).source", message: "\(source) has no known duration")
      }
      if freeze >= end {
        throw .clipPastSourceEnd(
          location: "\(location).freeze", source: source, to: freeze.time, duration: end.time)
      }
      let duration = clip.duration!  // validate() requires it
      return ResolvedClip(
        kind: .video, facts: facts, from: .zero, to: duration, length: duration,
        hasAudio: false, frameRate: facts.frameRate, freeze: freeze)
    }
    if clip.speed != nil, facts.kind == .image {
      throw refuse("speed", "a still image (\(source))")
    }
    var kind: SegmentKind
    var sourceEnd: ExactNumber
    var frameRate: Rational?
    switch facts.kind {
    case .image:
      kind = .still
      if clip.from != nil { throw refuse("from", "a still image (\(source))") }
      if clip.to != nil { throw refuse("to", "a still image (\(source))") }
      if clip.fps != nil { throw refuse("fps", "a still image (\(source))") }
      guard let duration = clip.duration else {
        throw .invalidComposition(
          location: location, message: "a still image (\(source)) needs a duration")
      }
      return ResolvedClip(
        kind: kind, facts: facts, from: .zero, to: duration, length: duration, hasAudio: false,
        frameRate: nil)
    case .imageSequence:
      kind = .sequence
      if clip.duration != nil {
        throw .invalidComposition(
          location: "\(location).duration",
          message: "an image sequence (\(source)) lasts its images / fps: use from and to")
      }
      guard let fps = clip.fps else {
        throw .invalidComposition(
          location: location, message: "an image sequence (\(source)) needs an fps")
      }
      let count = ExactNumber(Int64(facts.frameCount ?? 0))
      guard count > .zero else {
        throw .invalidComposition(
          location: "\(location).source", message: "the image sequence \(source) has no images")
      }
      sourceEnd = try exact(count.divided(by: fps), location)
      frameRate = fps.rational
    case .media:
      kind = .video
      if clip.duration != nil {
        throw .invalidComposition(
          location: "\(location).duration",
          message: "a video (\(source)) plays from/to of its source; duration is for stills "
            + "and gaps")
      }
      if clip.fps != nil { throw refuse("fps", "a video (\(source))") }
      guard let duration = facts.duration else {
        throw .invalidComposition(
          location: "\(location).source", message: "\(source) has no known duration")
      }
      sourceEnd = ExactNumber(duration)
      frameRate = facts.frameRate
    }
    let from = clip.from ?? .zero
    let to = clip.to ?? sourceEnd
    guard from < to else {
      throw .sourceRangeInvalid(location: location, from: from.time, to: to.time)
    }
    if to > sourceEnd {
      throw .clipPastSourceEnd(
        location: "\(location).to", source: source, to: to.time, duration: sourceEnd.time)
    }
    let speed = clip.speed ?? .one
    return ResolvedClip(
      kind: kind, facts: facts, from: from, to: to,
      length: try exact(to.subtracting(from)?.divided(by: speed), location),
      hasAudio: kind == .video && facts.hasAudio, frameRate: frameRate, speed: speed)
  }

  // MARK: - Render

  func render(_ document: CompositionDocument, _ clips: [ResolvedClip]) throws(CompositionError)
    -> CompositionRender
  {
    let moving = clips.enumerated().filter {
      $0.element.kind == .video || $0.element.kind == .sequence
    }
    let stills = clips.enumerated().filter { $0.element.kind == .still }
    let deciding = moving.isEmpty ? stills : moving
    // Each clip's picture as it is placed: cropped and turned.
    var width: Int
    var height: Int
    var sizeRule: String
    if let size = document.size {
      (width, height, sizeRule) = (size.width, size.height, "the document's size")
    } else if let largest = RenderRules.largestSize(
      deciding.map { ($0.element.picture.width, $0.element.picture.height) })
    {
      width = RenderRules.even(largest.width)
      height = RenderRules.even(largest.height)
      let what = moving.isEmpty ? "still" : "video"
      sizeRule =
        "the largest upright display width (clips[\(deciding[largest.widest].offset)]) by the "
        + "largest upright display height (clips[\(deciding[largest.tallest].offset)]) of the "
        + "\(what) clips"
    } else {
      throw .invalidComposition(
        location: "size", message: "no clip has a picture to take the size from: give a size")
    }
    let frameRate: Rational
    let frameRateRule: String
    if let fps = document.fps {
      (frameRate, frameRateRule) = (fps.rational, "the document's fps")
    } else if let highest = RenderRules.highestRate(moving.map(\.element.frameRate)) {
      (frameRate, frameRateRule) = (highest, "the highest frame rate of the video clips")
    } else {
      (frameRate, frameRateRule) = (
        Rational(30, 1)!, "30 fps: no clip has a frame rate (stills and gaps only)"
      )
    }
    return CompositionRender(
      width: width, height: height, sizeRule: sizeRule, fit: document.fit ?? .contain,
      frameRate: frameRate, frameRateRule: frameRateRule,
      background: document.background ?? .black)
  }

  // MARK: - Audio tracks

  func resolveAudio(
    _ track: AudioTrack, index: Int, facts: SourceFacts, total: ExactNumber,
    warnings: inout [String]
  ) throws(CompositionError) -> PlannedAudioTrack? {
    let location = "audio[\(index)]"
    guard let duration = facts.duration.map(ExactNumber.init) else {
      throw .invalidComposition(
        location: "\(location).source", message: "\(track.source) has no known duration")
    }
    let from = track.from ?? .zero
    let to = track.to ?? duration
    guard from < to else {
      throw .sourceRangeInvalid(location: location, from: from.time, to: to.time)
    }
    if to > duration {
      throw .clipPastSourceEnd(
        location: "\(location).to", source: track.source, to: to.time, duration: duration.time)
    }
    let at = track.at ?? .zero
    guard at < total else {
      warnings.append(
        "\(location) (\(track.source)) starts at \(at) s, at or after the composition's end "
          + "(\(total) s): left out")
      return nil
    }
    let period = try exact(to.subtracting(from), location)
    let loop = track.loop ?? false
    let naturalEnd = try exact(at.adding(period), location)
    let end = loop ? total : min(naturalEnd, total)

    // The passes of the source range.
    var pieces: [AudioPiece] = []
    var pieceStart = at
    while pieceStart < end {
      if pieces.count == Self.maxLoopPieces {
        throw .invalidComposition(
          location: "\(location).loop",
          message: "its \(period) s range repeats more than \(Self.maxLoopPieces) times")
      }
      let pieceEnd = min(try exact(pieceStart.adding(period), location), end)
      let played = try exact(pieceEnd.subtracting(pieceStart), location)
      pieces.append(
        AudioPiece(
          sourceRange: TimeRange(start: from.time, duration: played.time),
          compositionRange: TimeRange(start: pieceStart.time, end: pieceEnd.time)))
      pieceStart = pieceEnd
      if !loop { break }
    }

    let gain = try Self.trackEnvelope(
      track, location: location, start: at, end: end, warnings: &warnings)
    return PlannedAudioTrack(
      index: index, source: track.source, path: path(of: track.source),
      sourceRange: TimeRange(start: from.time, end: to.time),
      compositionRange: TimeRange(start: at.time, end: end.time), loop: loop, pieces: pieces,
      gain: gain)
  }

  /// The track's gain from `start` to `end`: its volume, each ramp from the gain it finds to its
  /// `to` (a ramp past the end is cut there, its gain there interpolated), the fade-in from 0
  /// and the fade-out to 0 ending at `end`.
  static func trackEnvelope(
    _ track: AudioTrack, location: String, start: ExactNumber, end: ExactNumber,
    warnings: inout [String]
  ) throws(CompositionError) -> GainEnvelope {
    let volume = track.volume ?? .one
    let fadeIn = track.fadeIn ?? .zero
    let fadeOut = track.fadeOut ?? .zero
    let fadeInEnd = try exact(start.adding(fadeIn), location)
    let fadeOutStart = try exact(end.subtracting(fadeOut), location)
    if fadeInEnd > fadeOutStart {
      throw .invalidComposition(
        location: location,
        message: "fade_in (\(fadeIn) s) and fade_out (\(fadeOut) s) overlap: the track plays "
          + "\(try exact(end.subtracting(start), location)) s")
    }
    var points: [(ExactNumber, ExactNumber)] = [(start, volume)]
    var level = volume
    for (number, ramp) in (track.ramps ?? []).enumerated() {
      let rampLocation = "\(location).ramps[\(number)]"
      let rampEnd = try exact(ramp.at.adding(ramp.duration), rampLocation)
      if ramp.at >= end {
        warnings.append(
          "\(rampLocation) starts at \(ramp.at) s, at or after the track's end (\(end) s): "
            + "left out")
        continue
      }
      if ramp.at < start {
        throw .invalidComposition(
          location: "\(rampLocation).at",
          message: "\(ramp.at) s is before the track starts (\(start) s)")
      }
      if ramp.at < fadeInEnd {
        throw .invalidComposition(
          location: "\(rampLocation).at",
          message: "the ramp starts at \(ramp.at) s, inside the fade-in (until \(fadeInEnd) s)")
      }
      if min(rampEnd, end) > fadeOutStart {
        throw .invalidComposition(
          location: rampLocation,
          message: "the ramp (\(ramp.at)–\(rampEnd) s) overlaps the fade-out (from "
            + "\(fadeOutStart) s)")
      }
      points.append((ramp.at, level))
      if rampEnd <= end {
        points.append((rampEnd, ramp.to))
        level = ramp.to
      } else {
        // Cut at the end: the gain there, on the ramp's line.
        let elapsed = try exact(end.subtracting(ramp.at), rampLocation)
        let fraction = try exact(elapsed.divided(by: ramp.duration), rampLocation)
        let change = try exact(ramp.to.subtracting(level), rampLocation)
        let step = try exact(change.multiplied(by: fraction), rampLocation)
        level = try exact(level.adding(step), rampLocation)
        points.append((end, level))
      }
    }
    if fadeIn > .zero {
      points[0].1 = .zero
      points.insert((fadeInEnd, volume), at: 1)
    }
    if fadeOut > .zero {
      points.append((fadeOutStart, level))
      points.append((end, .zero))
    } else {
      points.append((end, level))
    }
    return envelope(points)
  }

  /// An envelope through `points`, repeated points dropped.
  static func envelope(_ points: [(ExactNumber, ExactNumber)]) -> GainEnvelope {
    var kept: [GainPoint] = []
    for (time, gain) in points {
      let point = GainPoint(time: time.time, gain: gain.rational)
      if kept.last == point { continue }
      kept.append(point)
    }
    return GainEnvelope(points: kept)
  }
}

/// `value`, or an `invalid_composition` error at `location` when exact arithmetic overflowed.
func exact(_ value: ExactNumber?, _ location: String) throws(CompositionError) -> ExactNumber {
  guard let value else {
    throw .invalidComposition(
      location: location,
      message: "its times cannot be computed exactly in 64 bits (use simpler fractions)")
  }
  return value
}
