import MediaCore

/// Reads an OpenTimelineIO timeline (`.otio`, its JSON) onto the composition model, with OTIO's
/// own timing:
///
/// - the one enabled video track's `Clip`s become clips (`source_range` → `from`/`to`,
///   `ExternalReference.target_url` → `source`, relative to the `.otio` file as the document's
///   sources are to the document), its `Gap`s gaps, a disabled clip a gap of its length;
/// - a `Transition` takes no time on its track: it borrows handles beyond its neighbours' source
///   ranges (`in_offset` from the clip after it, `out_offset` from the clip before it), as the
///   reference implementation's `Track.handles_of_child` / `range_of_child_at_index` compute
///   them; on the model the clip before plays `out_offset` longer, the clip after starts
///   `in_offset` earlier, and they overlap by `in_offset + out_offset`, so every clip lands where
///   OTIO places it. `SMPTE_Dissolve` is a crossfade;
/// - each enabled audio track's clips become audio tracks at their place (a dissolve into or out
///   of an audio clip is its fade-in or fade-out);
/// - a clip's `Marker`s keep their `marked_range.start_time` (in the clip's source time, as
///   OTIO defines it);
/// - `target_url` is a URL: a relative reference is a path relative to the `.otio` file, a
///   `file:` URL an absolute path, both with their %-escapes decoded (other schemes are refused);
/// - a media reference's `available_range.start_time` (a source timecode) is taken off the
///   clip's times, so `from` counts from the file's start.
///
/// Video clips carry no sound in OTIO (editors put it on audio tracks), so their `volume` is 0,
/// unless the clip's `metadata.mediatools` (written by `OTIOWriter`) says otherwise. What the
/// model cannot express is an `unsupported_timeline` error naming the OTIO path: effects (but a
/// clip's one `LinearTimeWarp` of ¼ to 4, its `speed`, or `FreezeFrame`; the item keeps its
/// duration on the track, as OTIO defines time_scalar), a nested stack, two video tracks, markers on a track or the stack, a media
/// reference that is not a file, a trimmed track.
public enum OTIOReader {
  /// Reads `bytes`, the JSON of an `.otio` file.
  ///
  /// - Throws: `CompositionError.invalidComposition` (not JSON, not an OTIO timeline, a value
  ///   of the wrong type) or `.unsupportedTimeline`, each naming the path.
  public static func read(_ bytes: [UInt8]) throws(CompositionError) -> CompositionDocument {
    let root: JSONValue
    do {
      root = try JSONParser.parse(bytes)
    } catch {
      throw .invalidComposition(
        location: error.position.description, message: "not JSON: \(error.message)")
    }
    return try Reader().timeline(Node(root, path: []))
  }
}

/// A JSON value with its OTIO path, and typed accessors that fail naming it.
struct Node {
  let value: JSONValue
  let path: [JSONPathComponent]

  init(_ value: JSONValue, path: [JSONPathComponent]) {
    self.value = value
    self.path = path
  }

  var location: String { describe(path) }

  func invalid(_ message: String) -> CompositionError {
    .invalidComposition(location: location, message: message)
  }

  func unsupported(_ message: String) -> CompositionError {
    .unsupportedTimeline(location: location, message: message)
  }

  var isNull: Bool {
    if case .null = value.kind { return true }
    return false
  }

  /// The member `key`, nil when missing or null.
  func optional(_ key: String) throws(CompositionError) -> Node? {
    guard case .object(let members) = value.kind else {
      throw invalid("expected an object, found \(value.typeName)")
    }
    guard let member = members.first(where: { $0.key == key }) else { return nil }
    let node = Node(member.value, path: path + [.key(key)])
    return node.isNull ? nil : node
  }

  func required(_ key: String) throws(CompositionError) -> Node {
    guard let node = try optional(key) else {
      throw Node(value, path: path + [.key(key)]).invalid("missing (required)")
    }
    return node
  }

  func array() throws(CompositionError) -> [Node] {
    guard case .array(let items) = value.kind else {
      throw invalid("expected an array, found \(value.typeName)")
    }
    return items.enumerated().map { Node($0.element, path: path + [.index($0.offset)]) }
  }

  func string() throws(CompositionError) -> String {
    guard case .string(let text) = value.kind else {
      throw invalid("expected a string, found \(value.typeName)")
    }
    return text
  }

  func bool() throws(CompositionError) -> Bool {
    guard case .bool(let flag) = value.kind else {
      throw invalid("expected true or false, found \(value.typeName)")
    }
    return flag
  }

  func number() throws(CompositionError) -> ExactNumber {
    guard case .number(let text) = value.kind, let number = ExactNumber.parse(text) else {
      throw invalid("expected a number, found \(value.typeName)")
    }
    return number
  }

  /// `OTIO_SCHEMA` without its version (`Clip` for `Clip.2`).
  func schema() throws(CompositionError) -> String {
    let name = try required("OTIO_SCHEMA").string()
    return String(name.split(separator: ".").first ?? "")
  }

  /// Decodes this value with the strict document decoder.
  func decode<T: Decodable>(_ type: T.Type) throws(CompositionError) -> T {
    do {
      return try StrictJSONDecoder(value: value, path: path, codingPath: []).decode(type)
    } catch let error as CompositionError {
      throw error
    } catch {
      throw invalid("\(error)")
    }
  }
}

/// The OTIO rates that stand for NTSC's 1000/1001 rates, as the reference implementation and
/// editors write them (23.976, 23.98, 29.97, 59.94, and the full binary fractions).
func exactRate(_ rate: ExactNumber) -> ExactNumber {
  for base: Int64 in [24, 30, 48, 60, 120] {
    let ntsc = ExactNumber(base * 1000, 1001)!
    if abs(rate.doubleValue - ntsc.doubleValue) < 0.006 && rate != ExactNumber(base) {
      return ntsc
    }
  }
  return rate
}

/// The metadata `OTIOWriter` keeps for what OTIO cannot say.
struct MediatoolsClipMetadata: Decodable {
  var kind: String?
  var volume: ExactNumber?
  var duration: ExactNumber?
  var fps: ExactNumber?
  var type: TransitionType?
  var loop: Bool?
  var fadeIn: ExactNumber?
  var fadeOut: ExactNumber?
  var ramps: [Ramp]?
  var size: FrameSize?
  var fit: Fit?
  var background: Color?
  var filters: [Look]?
  var crop: CropRect?
  var rotate: Int?
  var mirror: Bool?
  var speed: ExactNumber?
  var pitch: Pitch?
  var overlays: [Overlay]?

  enum CodingKeys: String, DocumentKeys {
    case kind, volume, duration, fps, type, loop, fadeIn, fadeOut, ramps, size, fit, background
    case filters, crop, rotate, mirror, speed, pitch, overlays
  }
}

private struct Reader {
  /// An item of a track with its timing resolved.
  struct Item {
    enum Kind {
      case clip(source: String, metadata: MediatoolsClipMetadata?)
      case gap
    }
    var kind: Kind
    var node: Node
    /// The source range (OTIO's, the reference's start taken off).
    var from: ExactNumber
    var to: ExactNumber
    /// The range on the track (without handles).
    var start: ExactNumber
    var markers: [Marker]
    /// Handles borrowed by transitions: before `from` and after `to`.
    var head: ExactNumber = .zero
    var tail: ExactNumber = .zero
    /// The clip's or gap's looks (`metadata.mediatools.filters`).
    var looks: [Look]?
    var transitionIn: (type: TransitionType, duration: ExactNumber)?
    var transitionOut: ExactNumber?
    /// A `LinearTimeWarp`'s rate (the media read `speed` times as fast; the item keeps its
    /// duration on the track).
    var speed: ExactNumber?
    /// A `FreezeFrame`: the range's first frame held.
    var freeze = false
  }

  func timeline(_ root: Node) throws(CompositionError) -> CompositionDocument {
    guard try root.schema() == "Timeline" else {
      throw root.unsupported("expected an OTIO Timeline, found \(try root.schema())")
    }
    let stack = try root.required("tracks")
    guard try stack.schema() == "Stack" else {
      throw stack.invalid("expected a Stack, found \(try stack.schema())")
    }
    try refuseExtras(stack, what: "the stack")
    var settings: MediatoolsClipMetadata?
    if let metadata = try root.optional("metadata"), let ours = try metadata.optional("mediatools")
    {
      settings = try ours.decode(MediatoolsClipMetadata.self)
    }

    var video: [Item]?
    var videoNode: Node?
    var audio: [AudioTrack] = []
    for track in try stack.required("children").array() {
      let schema = try track.schema()
      guard schema == "Track" else {
        throw track.unsupported(
          schema == "Stack"
            ? "a nested stack (a compound clip) is not supported: flatten it in the editor"
            : "expected a Track, found \(schema)")
      }
      if let enabled = try track.optional("enabled"), try !enabled.bool() { continue }
      try refuseExtras(track, what: "a track")
      let items = try self.items(of: track)
      let kind = try track.optional("kind")?.string() ?? "Video"
      switch kind {
      case "Video":
        guard !items.isEmpty else { continue }
        if let videoNode {
          throw track.unsupported(
            "a second video track (layered video) is not supported; the first is "
              + videoNode.location)
        }
        video = items
        videoNode = track
      case "Audio":
        audio += try audioTracks(items)
      default:
        throw (try track.required("kind")).unsupported("unknown track kind \"\(kind)\"")
      }
    }
    guard let video else {
      throw stack.unsupported("no enabled video track with clips")
    }
    var clips: [Clip] = []
    for item in video {
      clips.append(try clip(item))
    }
    return CompositionDocument(
      size: settings?.size, fit: settings?.fit, fps: settings?.fps,
      background: settings?.background, clips: clips, audio: audio.isEmpty ? nil : audio,
      filters: settings?.filters, overlays: settings?.overlays)
  }

  /// Effects, markers on a container, a trimmed container: errors.
  func refuseExtras(_ node: Node, what: String) throws(CompositionError) {
    if let effects = try node.optional("effects"), let first = try effects.array().first {
      throw first.unsupported(
        "effects on \(what) are not supported (\(try first.optional("OTIO_SCHEMA")?.string() ?? "an effect"))"
      )
    }
    if let markers = try node.optional("markers"), let first = try markers.array().first {
      throw first.unsupported(
        "markers on \(what) are not supported: put them on the clips")
    }
  }

  /// The track's items with OTIO's timing: each clip or gap at the sum of the durations before
  /// it (`range_of_child_at_index`), transitions folded into their neighbours' handles
  /// (`handles_of_child`).
  func items(of track: Node) throws(CompositionError) -> [Item] {
    var items: [Item] = []
    var cursor = ExactNumber.zero
    var pending: (node: Node, type: TransitionType, inOffset: ExactNumber, outOffset: ExactNumber)?
    let children = try track.required("children").array()
    for child in children {
      let schema = try child.schema()
      switch schema {
      case "Transition":
        guard let previous = items.last, pending == nil else {
          throw child.unsupported(
            items.isEmpty
              ? "a transition at the start of a track has no clip before it"
              : "two transitions in a row")
        }
        let inOffset = try time(try child.required("in_offset"))
        let outOffset = try time(try child.required("out_offset"))
        guard inOffset >= .zero, outOffset >= .zero,
          try exact(inOffset.adding(outOffset), child.location) > .zero
        else { throw child.invalid("a transition needs positive offsets") }
        pending = (child, try transitionType(child), inOffset, outOffset)
        _ = previous
      case "Clip", "Gap":
        let warp = try timeEffect(child, schema: schema)
        var item = try self.item(child, schema: schema, start: cursor)
        switch warp {
        case .speed(let speed): item.speed = speed
        case .freeze: item.freeze = true
        case nil: break
        }
        cursor = try exact(
          cursor.adding(try exact(item.to.subtracting(item.from), child.location)), child.location)
        if let transition = pending {
          item.head = transition.inOffset
          item.transitionIn = (
            transition.type,
            try exact(transition.inOffset.adding(transition.outOffset), transition.node.location)
          )
          items[items.count - 1].tail = transition.outOffset
          items[items.count - 1].transitionOut = item.transitionIn?.duration
          pending = nil
        }
        items.append(item)
      case "Stack":
        throw child.unsupported(
          "a nested stack (a compound clip) is not supported: flatten it in the editor")
      case "Track":
        throw child.unsupported("a track inside a track is not supported")
      default:
        throw child.unsupported("\(schema) is not supported in a track")
      }
    }
    if let pending {
      throw pending.node.unsupported("a transition at the end of a track has no clip after it")
    }
    try checkTrimmed(track, length: cursor, items: items)
    return items
  }

  /// A track's `source_range` is accepted only when it shows the whole track (the CMX 3600
  /// adapter writes the record timecode of the first event as a negative start): then its start
  /// is a timecode origin, not a trim.
  func checkTrimmed(_ track: Node, length: ExactNumber, items: [Item]) throws(CompositionError) {
    guard let range = try track.optional("source_range") else { return }
    let duration = try time(try range.required("duration"))
    let available = try exact(
      length.adding(items.first?.head ?? .zero)?.adding(items.last?.tail ?? .zero),
      track.location)
    guard duration == length || duration == available else {
      throw range.unsupported(
        "a trimmed track (\(duration) s of \(length) s) is not supported")
    }
  }

  /// A clip's time effect.
  enum TimeEffect {
    case speed(ExactNumber)
    case freeze
  }

  /// The one time effect a clip may carry: a `LinearTimeWarp` whose `time_scalar` is a speed
  /// the model plays (¼ to 4; our metadata's exact `speed` when it is there), or a
  /// `FreezeFrame`. Any other effect, on a clip or a gap, is `unsupported_timeline`.
  func timeEffect(_ node: Node, schema: String) throws(CompositionError) -> TimeEffect? {
    guard schema == "Clip", let effects = try node.optional("effects"),
      let first = try effects.array().first
    else {
      try refuseExtras(node, what: "a \(schema.lowercased())", markersAllowed: true)
      return nil
    }
    let list = try effects.array()
    let name = try first.schema()
    guard list.count == 1, name == "LinearTimeWarp" || name == "FreezeFrame" else {
      try refuseExtras(node, what: "a clip", markersAllowed: true)
      return nil
    }
    if name == "FreezeFrame" { return .freeze }
    var exact: ExactNumber?
    if let meta = try node.optional("metadata"), let ours = try meta.optional("mediatools") {
      exact = try ours.decode(MediatoolsClipMetadata.self).speed
    }
    let scalarNode = try first.required("time_scalar")
    let scalar = try scalarNode.number()
    if let exact, abs(exact.doubleValue - scalar.doubleValue) > 1e-9 {
      throw scalarNode.invalid(
        "time_scalar \(scalar) disagrees with metadata.mediatools.speed \(exact)")
    }
    let speed = exact ?? scalar
    if speed == .zero { return .freeze }
    guard speed >= Clip.minimumSpeed, speed <= Clip.maximumSpeed else {
      throw scalarNode.unsupported(
        "a time warp of \(speed) is not supported (speeds from 0.25 to 4; no reverse)")
    }
    return .speed(speed)
  }

  func refuseExtras(_ node: Node, what: String, markersAllowed: Bool) throws(CompositionError) {
    if let effects = try node.optional("effects"), let first = try effects.array().first {
      let schema = try first.optional("OTIO_SCHEMA")?.string() ?? "an effect"
      var name = schema
      if let effectName = try first.optional("effect_name")?.string(), !effectName.isEmpty {
        name = "\(effectName), \(schema)"
      }
      let warp = schema.contains("TimeWarp") ? ": a time warp changes the clip's speed" : ""
      throw first.unsupported("effects on \(what) are not supported (\(name))\(warp)")
    }
  }

  func transitionType(_ node: Node) throws(CompositionError) -> TransitionType {
    let name = try node.optional("transition_type")?.string() ?? ""
    if name == "SMPTE_Dissolve" { return .crossfade }
    if let metadata = try node.optional("metadata"), let ours = try metadata.optional("mediatools"),
      let type = try ours.decode(MediatoolsClipMetadata.self).type
    {
      return type
    }
    throw (try node.optional("transition_type") ?? node).unsupported(
      "the transition type \"\(name)\" is not supported (SMPTE_Dissolve is a crossfade)")
  }

  /// A clip or gap at `start` on its track.
  func item(_ node: Node, schema: String, start: ExactNumber) throws(CompositionError) -> Item {
    var origin = ExactNumber.zero
    var kind = Item.Kind.gap
    var rangeNode = try node.optional("source_range")
    let enabled = try node.optional("enabled")?.bool() ?? true
    if schema == "Clip" {
      let reference = try mediaReference(node)
      if let available = try reference.optional("available_range") {
        origin = try time(try available.required("start_time"))
        if rangeNode == nil { rangeNode = available }
      }
      var metadata: MediatoolsClipMetadata?
      if let meta = try node.optional("metadata"), let ours = try meta.optional("mediatools") {
        metadata = try ours.decode(MediatoolsClipMetadata.self)
      }
      if enabled {
        kind = .clip(source: try source(of: reference), metadata: metadata)
      }
    }
    guard let range = rangeNode else {
      throw node.invalid("no source_range (and no available_range on its media reference)")
    }
    let rangeStart = try time(try range.required("start_time"))
    let duration = try time(try range.required("duration"))
    guard duration > .zero else { throw range.invalid("a duration of \(duration) s") }
    let from = try exact(rangeStart.subtracting(origin), range.location)
    let to = try exact(from.adding(duration), range.location)
    var markers: [Marker] = []
    if let list = try node.optional("markers") {
      for marker in try list.array() {
        let markedRange = try marker.required("marked_range")
        let at = try exact(
          try time(try markedRange.required("start_time")).subtracting(origin), marker.location)
        markers.append(Marker(at: at, name: try marker.optional("name")?.string() ?? ""))
      }
    }
    var item = Item(kind: kind, node: node, from: from, to: to, start: start, markers: markers)
    if let meta = try node.optional("metadata"), let ours = try meta.optional("mediatools") {
      item.looks = try ours.decode(MediatoolsClipMetadata.self).filters
    }
    return item
  }

  func mediaReference(_ clip: Node) throws(CompositionError) -> Node {
    if let references = try clip.optional("media_references") {
      let key = try clip.optional("active_media_reference_key")?.string() ?? "DEFAULT_MEDIA"
      guard let reference = try references.optional(key) else {
        throw references.invalid("no media reference \"\(key)\"")
      }
      return reference
    }
    guard let reference = try clip.optional("media_reference") else {
      throw clip.unsupported("a clip without a media reference")
    }
    return reference
  }

  /// The path a reference names: a relative URL as written, a `file:` URL's path decoded.
  func source(of reference: Node) throws(CompositionError) -> String {
    let schema = try reference.schema()
    guard schema == "ExternalReference" else {
      throw reference.unsupported(
        schema == "MissingReference"
          ? "the clip's media is missing (MissingReference): relink it in the editor"
          : "\(schema) is not supported (only ExternalReference: a file)")
    }
    let urlNode = try reference.required("target_url")
    let url = try urlNode.string()
    guard !url.isEmpty else { throw urlNode.invalid("an empty target_url") }
    if let colon = url.firstIndex(of: ":"), url[..<colon].count > 1,
      url[..<colon].allSatisfy({ $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." })
    {
      let scheme = url[..<colon].lowercased()
      guard scheme == "file" else {
        throw urlNode.unsupported("\(scheme): URLs are not supported (only files)")
      }
      var rest = url[url.index(after: colon)...]
      if rest.hasPrefix("//") {
        rest = rest.dropFirst(2)
        // file://host/path: only the local host.
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let host = rest[..<slash]
        guard host.isEmpty || host == "localhost" else {
          throw urlNode.unsupported("a file on another host (\(host)) is not supported")
        }
        rest = rest[slash...]
      }
      guard let decoded = percentDecoded(String(rest)) else {
        throw urlNode.invalid("a malformed %-escape in \(url)")
      }
      return decoded
    }
    // A relative URL reference: its path, %-escapes decoded.
    guard let decoded = percentDecoded(url) else {
      throw urlNode.invalid("a malformed %-escape in \(url)")
    }
    return decoded
  }

  func percentDecoded(_ text: String) -> String? {
    var bytes: [UInt8] = []
    var iterator = Array(text.utf8).makeIterator()
    while let byte = iterator.next() {
      if byte == UInt8(ascii: "%") {
        guard let high = iterator.next(), let low = iterator.next(),
          let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
        else { return nil }
        bytes.append(value)
      } else {
        bytes.append(byte)
      }
    }
    return String(validating: bytes, as: UTF8.self)
  }

  /// A `RationalTime` in seconds, exactly (`value / rate`, NTSC rates as 1000/1001 fractions).
  func time(_ node: Node) throws(CompositionError) -> ExactNumber {
    let rate = exactRate(try node.required("rate").number())
    guard rate > .zero else { throw (try node.required("rate")).invalid("a rate of \(rate)") }
    let value = try node.required("value").number()
    return try exact(value.divided(by: rate), node.location)
  }

  // MARK: - Onto the model

  func clip(_ item: Item) throws(CompositionError) -> Clip {
    // Handles are track time; a warped clip reads them `speed` times as fast.
    let rate = item.speed ?? .one
    let from = try exact(
      item.from.subtracting(try exact(item.head.multiplied(by: rate), item.node.location)),
      item.node.location)
    let played = try exact(
      item.to.subtracting(item.from)?.adding(item.tail)?.multiplied(by: rate), item.node.location)
    let to = try exact(item.from.adding(played), item.node.location)
    let transition = item.transitionIn.map { Transition(type: $0.type, duration: $0.duration) }
    let markers: [Marker]? = item.markers.isEmpty ? nil : item.markers
    switch item.kind {
    case .gap:
      let length = try exact(to.subtracting(from), item.node.location)
      // A gap's markers count from its start.
      let shifted = item.markers.map {
        Marker(at: $0.at.subtracting(from) ?? $0.at, name: $0.name)
      }
      return Clip(
        source: nil, duration: length, transition: transition,
        markers: shifted.isEmpty ? nil : shifted, filters: item.looks)
    case .clip(let source, let metadata):
      let isStill =
        metadata?.kind == "still"
        || (metadata == nil && Self.imageExtensions.contains(Self.fileExtension(source)))
      if isStill {
        let length = try exact(to.subtracting(from), item.node.location)
        return Clip(
          source: source, duration: length, volume: nil, transition: transition,
          markers: markers, filters: item.looks, crop: metadata?.crop, rotate: metadata?.rotate,
          mirror: metadata?.mirror)
      }
      var clip = Clip(
        source: source, from: from, to: to,
        fps: metadata?.fps, volume: metadata == nil ? .zero : metadata?.volume,
        transition: transition, markers: markers, filters: item.looks)
      clip.crop = metadata?.crop
      clip.rotate = metadata?.rotate
      clip.mirror = metadata?.mirror
      if item.freeze {
        // The range's first frame held for the item's length (its handles included); markers
        // from the freeze's start.
        let length = try exact(
          item.to.subtracting(item.from)?.adding(item.head)?.adding(item.tail),
          item.node.location)
        clip.from = nil
        clip.to = nil
        clip.volume = nil
        clip.fps = nil
        clip.freeze = item.from
        clip.duration = length
        clip.markers = markers.map { list in
          list.map { Marker(at: $0.at.subtracting(item.from) ?? $0.at, name: $0.name) }
        }
      } else if let speed = item.speed {
        clip.speed = speed
        clip.pitch = metadata?.pitch
      }
      return clip
    }
  }

  static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "webp"]

  static func fileExtension(_ path: String) -> String {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    guard let dot = name.lastIndex(of: ".") else { return "" }
    return name[name.index(after: dot)...].lowercased()
  }

  /// An audio track's clips as audio tracks of the model: each at its place (less its head
  /// handle), a dissolve into or out of it its fade-in or fade-out.
  func audioTracks(_ items: [Item]) throws(CompositionError) -> [AudioTrack] {
    var tracks: [AudioTrack] = []
    for item in items {
      guard case .clip(let source, let metadata) = item.kind else { continue }
      if !item.markers.isEmpty {
        throw item.node.unsupported("markers on an audio clip are not supported")
      }
      let location = item.node.location
      var fadeIn: ExactNumber? = item.transitionIn?.duration
      var fadeOut: ExactNumber? = item.transitionOut
      if let metadata {
        fadeIn = metadata.fadeIn ?? fadeIn
        fadeOut = metadata.fadeOut ?? fadeOut
      }
      tracks.append(
        AudioTrack(
          source: source, at: try exact(item.start.subtracting(item.head), location),
          from: try exact(item.from.subtracting(item.head), location),
          to: try exact(item.to.adding(item.tail), location), volume: metadata?.volume,
          loop: metadata?.loop, fadeIn: fadeIn, fadeOut: fadeOut, ramps: metadata?.ramps))
    }
    return tracks
  }
}
