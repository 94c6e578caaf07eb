import MediaCore

/// Writes a resolved composition as an OpenTimelineIO timeline (`.otio` JSON), the way editors
/// exchange it: one video track of clips, gaps and transitions, one audio track per audio track
/// of the document.
///
/// Each transition is written as the CMX 3600 adapter writes a dissolve: it starts at the cut
/// (`in_offset` 0) and the clip before it plays `out_offset` = the duration into its handle, so
/// OTIO places every clip where the plan does; `crossfade` is `SMPTE_Dissolve`, the other types
/// `Custom_Transition` with their name in the metadata. Times are exact `RationalTime`s (at the
/// render's rate when they fall on its frames, else at their own denominator).
///
/// What OTIO cannot say is kept in `metadata.mediatools`, which `OTIOReader` reads back: the
/// document's size, fit, fps and background (on the timeline), a clip's volume (its presence
/// says the clip's own audio plays: OTIO's video clips carry none), a still's kind, a sequence's
/// fps, an audio track's volume, loop, fades and ramps. Reading the written file gives a
/// document whose plan equals this one.
public enum OTIOWriter {
  /// The OTIO JSON of `document`, resolved as `plan`.
  public static func write(_ document: CompositionDocument, plan: CompositionPlan) -> [UInt8] {
    var writer = Writer(rate: plan.render.frameRate)
    let root = writer.timeline(document, plan)
    var text = ""
    root.write(into: &text, indent: 0)
    text += "\n"
    return Array(text.utf8)
  }
}

/// A JSON value written in a given key order (OTIO writes `OTIO_SCHEMA` first).
indirect enum OrderedJSON {
  case null
  case bool(Bool)
  case number(String)
  case string(String)
  case array([OrderedJSON])
  case object([(String, OrderedJSON)])

  func write(into text: inout String, indent: Int) {
    let pad = String(repeating: " ", count: indent + 4)
    let close = String(repeating: " ", count: indent)
    switch self {
    case .null: text += "null"
    case .bool(let flag): text += flag ? "true" : "false"
    case .number(let digits): text += digits
    case .string(let string): text += Self.quoted(string)
    case .array(let items):
      guard !items.isEmpty else {
        text += "[]"
        return
      }
      text += "[\n"
      for (index, item) in items.enumerated() {
        text += pad
        item.write(into: &text, indent: indent + 4)
        text += index + 1 < items.count ? ",\n" : "\n"
      }
      text += close + "]"
    case .object(let members):
      guard !members.isEmpty else {
        text += "{}"
        return
      }
      text += "{\n"
      for (index, (key, value)) in members.enumerated() {
        text += pad + Self.quoted(key) + ": "
        value.write(into: &text, indent: indent + 4)
        text += index + 1 < members.count ? ",\n" : "\n"
      }
      text += close + "}"
    }
  }

  static func quoted(_ string: String) -> String {
    var result = "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case let s where s.value < 0x20:
        let hex = String(s.value, radix: 16)
        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}

private struct Writer {
  /// The render's rate: times on its frame grid are written at it.
  let rate: Rational

  func number(_ value: ExactNumber) -> OrderedJSON {
    .number(value.denominator == 1 ? "\(value.numerator)" : "\(value.doubleValue)")
  }

  /// A `RationalTime.1` holding `time` exactly.
  func rationalTime(_ time: ExactNumber) -> OrderedJSON {
    var value = ExactNumber(time.numerator)
    var rate = ExactNumber(time.denominator)
    // The render's rate when it reads back exactly: whole, or NTSC's n·1000/1001.
    if self.rate.den == 1 || self.rate.den == 1001,
      let frameRate = ExactNumber(self.rate.num, self.rate.den),
      let frames = time.multiplied(by: frameRate), frames.denominator == 1
    {
      (value, rate) = (frames, frameRate)
    }
    return .object([
      ("OTIO_SCHEMA", .string("RationalTime.1")), ("rate", number(rate)),
      ("value", number(value)),
    ])
  }

  func timeRange(start: ExactNumber, duration: ExactNumber) -> OrderedJSON {
    .object([
      ("OTIO_SCHEMA", .string("TimeRange.1")), ("duration", rationalTime(duration)),
      ("start_time", rationalTime(start)),
    ])
  }

  func json<T: Encodable>(_ value: T) -> OrderedJSON {
    // Our own values (exact numbers, ramps) through the tools' encoder, then re-read.
    guard let data = try? MediaToolsJSONEncoder(compact: true).encode(value),
      let parsed = try? JSONParser.parse(Array(data))
    else { return .null }
    return Self.ordered(parsed)
  }

  static func ordered(_ value: JSONValue) -> OrderedJSON {
    switch value.kind {
    case .null: .null
    case .bool(let flag): .bool(flag)
    case .number(let text): .number(text)
    case .string(let text): .string(text)
    case .array(let items): .array(items.map(ordered))
    case .object(let members): .object(members.map { ($0.key, ordered($0.value)) })
    }
  }

  func metadata(_ members: [(String, OrderedJSON)]) -> OrderedJSON {
    members.isEmpty ? .object([]) : .object([("mediatools", .object(members))])
  }

  func marker(_ marker: Marker) -> OrderedJSON {
    .object([
      ("OTIO_SCHEMA", .string("Marker.2")), ("metadata", .object([])),
      ("name", .string(marker.name)),
      ("color", .string("RED")),
      ("marked_range", timeRange(start: marker.at, duration: .zero)), ("comment", .string("")),
    ])
  }

  func item(
    schema: String, name: String, metadata: OrderedJSON, range: OrderedJSON,
    markers: [Marker], reference: OrderedJSON?, effects: [OrderedJSON] = []
  ) -> OrderedJSON {
    var members: [(String, OrderedJSON)] = [
      ("OTIO_SCHEMA", .string(schema)), ("metadata", metadata), ("name", .string(name)),
      ("source_range", range), ("effects", .array(effects)),
      ("markers", .array(markers.map(marker))),
      ("enabled", .bool(true)), ("color", .null),
    ]
    if let reference {
      members += [
        ("media_references", .object([("DEFAULT_MEDIA", reference)])),
        ("active_media_reference_key", .string("DEFAULT_MEDIA")),
      ]
    }
    return .object(members)
  }

  func externalReference(_ source: String) -> OrderedJSON {
    .object([
      ("OTIO_SCHEMA", .string("ExternalReference.1")), ("metadata", .object([])),
      ("name", .string("")), ("available_range", .null), ("available_image_bounds", .null),
      ("target_url", .string(Self.urlReference(source))),
    ])
  }

  /// A path as a URL reference: relative stays relative, absolute becomes a `file:` URL; `%`,
  /// spaces, `#`, `?`, controls and non-ASCII bytes %-escaped (an image-sequence pattern's
  /// `%04d` is `%2504d`).
  static func urlReference(_ path: String) -> String {
    var text = path.hasPrefix("/") ? "file://" : ""
    for byte in path.utf8 {
      if byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "#")
        || byte == UInt8(ascii: "?")
      {
        let hex = String(byte, radix: 16, uppercase: true)
        text += "%" + (hex.count == 1 ? "0" : "") + hex
      } else {
        text.unicodeScalars.append(Unicode.Scalar(byte))
      }
    }
    return text
  }

  func track(name: String, kind: String, children: [OrderedJSON]) -> OrderedJSON {
    .object([
      ("OTIO_SCHEMA", .string("Track.1")), ("metadata", .object([])), ("name", .string(name)),
      ("source_range", .null), ("effects", .array([])), ("markers", .array([])),
      ("enabled", .bool(true)), ("color", .null), ("children", .array(children)),
      ("kind", .string(kind)),
    ])
  }

  func fileName(_ source: String) -> String {
    source.split(separator: "/").last.map(String.init) ?? source
  }

  mutating func timeline(_ document: CompositionDocument, _ plan: CompositionPlan) -> OrderedJSON {
    // The video track.
    var video: [OrderedJSON] = []
    for (index, segment) in plan.segments.enumerated() {
      let clip = document.clips[segment.index]
      let from = ExactNumber(segment.sourceRange.start)
      var to = ExactNumber(segment.sourceRange.end)
      // The transition out of it is written into its handle.
      if index + 1 < plan.segments.count,
        let out = document.clips[plan.segments[index + 1].index].transition
      {
        to = to.subtracting(out.duration) ?? to
      }
      if let transition = clip.transition {
        let type = transition.type
        video.append(
          .object([
            ("OTIO_SCHEMA", .string("Transition.1")),
            (
              "metadata",
              type == .crossfade ? .object([]) : metadata([("type", .string(type.rawValue))])
            ),
            ("name", .string(type.rawValue)),
            ("in_offset", rationalTime(.zero)), ("out_offset", rationalTime(transition.duration)),
            (
              "transition_type",
              .string(type == .crossfade ? "SMPTE_Dissolve" : "Custom_Transition")
            ),
          ]))
      }
      var length = to.subtracting(from) ?? .zero
      // A time warp leaves the item's duration as it is on the track (OTIO: time_scalar "does
      // not affect the duration of the item this effect is attached to"): the range starts
      // where the clip reads and lasts as long as it plays; a freeze frame holds the range's
      // first frame ("Hold the first frame of the clip for the duration of the clip").
      var effects: [OrderedJSON] = []
      if segment.speed != nil || segment.freeze != nil {
        var out = ExactNumber.zero
        if index + 1 < plan.segments.count,
          let transition = document.clips[plan.segments[index + 1].index].transition
        {
          out = transition.duration
        }
        length =
          ExactNumber(segment.compositionRange.duration).subtracting(out) ?? length
        let scalar = segment.speed.flatMap { ExactNumber($0.num, $0.den) } ?? .zero
        effects.append(
          .object([
            (
              "OTIO_SCHEMA",
              .string(segment.freeze != nil ? "FreezeFrame.1" : "LinearTimeWarp.1")
            ),
            ("metadata", .object([])), ("name", .string("")),
            ("effect_name", .string(segment.freeze != nil ? "FreezeFrame" : "LinearTimeWarp")),
            ("time_scalar", number(scalar)),
          ]))
      }
      let range = timeRange(start: from, duration: length)
      // Looks have no OTIO form (its effects are by name only), nor do crops, turns and the
      // pitch rule: kept in our metadata.
      var looks: [(String, OrderedJSON)] =
        clip.filters.map { $0.isEmpty ? [] : [("filters", json($0))] } ?? []
      if let crop = clip.crop { looks.append(("crop", json(crop))) }
      if let rotate = clip.rotate { looks.append(("rotate", .number("\(rotate)"))) }
      if let mirror = clip.mirror { looks.append(("mirror", .bool(mirror))) }
      if let speed = clip.speed { looks.append(("speed", json(speed))) }
      if let pitch = clip.pitch { looks.append(("pitch", .string(pitch.rawValue))) }
      switch segment.kind {
      case .gap:
        video.append(
          item(
            schema: "Gap.1", name: "", metadata: metadata(looks), range: range,
            markers: clip.markers ?? [], reference: nil))
      case .still:
        video.append(
          item(
            schema: "Clip.2", name: fileName(segment.source ?? ""),
            metadata: metadata([("kind", .string("still"))] + looks), range: range,
            markers: clip.markers ?? [], reference: externalReference(segment.source ?? "")))
      case .video, .sequence:
        var members: [(String, OrderedJSON)] = looks
        if let volume = clip.volume { members.append(("volume", json(volume))) }
        if let fps = clip.fps { members.append(("fps", json(fps))) }
        if segment.kind == .sequence { members.append(("kind", .string("sequence"))) }
        if segment.freeze != nil { members.append(("kind", .string("freeze"))) }
        if members.isEmpty { members.append(("volume", json(ExactNumber.one))) }
        // A freeze frame's markers count from its start; OTIO's from its range's start.
        let markers = (clip.markers ?? []).map { marker in
          segment.freeze == nil
            ? marker : Marker(at: from.adding(marker.at) ?? marker.at, name: marker.name)
        }
        video.append(
          item(
            schema: "Clip.2", name: fileName(segment.source ?? ""), metadata: metadata(members),
            range: range, markers: markers,
            reference: externalReference(segment.source ?? ""), effects: effects))
      }
    }
    var tracks = [track(name: "V1", kind: "Video", children: video)]

    // One audio track per audio track of the document.
    for planned in plan.audio {
      let audio = document.audio![planned.index]
      var children: [OrderedJSON] = []
      let at = ExactNumber(planned.compositionRange.start)
      if at > .zero {
        children.append(
          item(
            schema: "Gap.1", name: "", metadata: .object([]),
            range: timeRange(start: .zero, duration: at), markers: [], reference: nil))
      }
      var members: [(String, OrderedJSON)] = []
      if let volume = audio.volume { members.append(("volume", json(volume))) }
      if let loop = audio.loop { members.append(("loop", .bool(loop))) }
      if let fadeIn = audio.fadeIn { members.append(("fade_in", json(fadeIn))) }
      if let fadeOut = audio.fadeOut { members.append(("fade_out", json(fadeOut))) }
      if let ramps = audio.ramps { members.append(("ramps", json(ramps))) }
      if members.isEmpty { members.append(("volume", json(ExactNumber.one))) }
      children.append(
        item(
          schema: "Clip.2", name: fileName(audio.source), metadata: metadata(members),
          range: timeRange(
            start: ExactNumber(planned.sourceRange.start),
            duration: ExactNumber(planned.sourceRange.duration)),
          markers: [], reference: externalReference(audio.source)))
      tracks.append(track(name: "A\(tracks.count)", kind: "Audio", children: children))
    }

    var settings: [(String, OrderedJSON)] = []
    if let size = document.size { settings.append(("size", .string(size.description))) }
    if let fit = document.fit { settings.append(("fit", .string(fit.rawValue))) }
    if let fps = document.fps { settings.append(("fps", json(fps))) }
    if let background = document.background {
      settings.append(("background", .string(background.description)))
    }
    if let filters = document.filters, !filters.isEmpty {
      settings.append(("filters", json(filters)))
    }
    if let overlays = document.overlays, !overlays.isEmpty {
      settings.append(("overlays", json(overlays)))
    }
    return .object([
      ("OTIO_SCHEMA", .string("Timeline.1")), ("metadata", metadata(settings)),
      ("name", .string("")), ("global_start_time", .null),
      (
        "tracks",
        .object([
          ("OTIO_SCHEMA", .string("Stack.1")), ("metadata", .object([])),
          ("name", .string("tracks")),
          ("source_range", .null), ("effects", .array([])), ("markers", .array([])),
          ("enabled", .bool(true)), ("color", .null), ("children", .array(tracks)),
        ])
      ),
    ])
  }
}
