import AV
import Composition
import MediaCore
import MediaProbe

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// The facts of a composition's sources, read with the project's probe (`--scan`: exact
/// durations, edit lists honoured; EXIF orientation for JPEG stills): what `CompositionResolver`
/// needs (`SourceFactsProvider`). Each file is opened, read and closed before the next.
public enum CompositionSources {
  /// The still-image demuxers a still or a sequence may be read with: one file each, never a
  /// pattern (libavformat's `image2` would expand `%d` itself, anywhere).
  static let imageDemuxers: Set<String> = ["png_pipe", "jpeg_pipe", "webp_pipe", "jpegls_pipe"]

  /// The facts of the source at `path` (already joined with the document's folder): a
  /// sequence when the path holds a `%d`-style number or names a folder, else what the probe
  /// finds (a still image, a media file).
  ///
  /// - Throws: `ProbeError` with its code (`not_found`, `unrecognized_format`, ...), or
  ///   `CompositorError.unsupportedImage` for an image no single-image demuxer reads.
  public static func facts(_ path: String) throws -> SourceFacts {
    if let files = try ImageSequence.files(path) {
      guard let first = files.first else {
        return .imageSequence(frames: 0, width: 0, height: 0)
      }
      let still = try imageFacts(first)
      var facts = SourceFacts.imageSequence(
        frames: files.count, width: still.displayWidth, height: still.displayHeight)
      facts.rotation = still.rotation
      facts.mirrored = still.mirrored
      facts.storedWidth = still.storedWidth
      facts.storedHeight = still.storedHeight
      return facts
    }
    let info = try probe(path)
    if imageDemuxers.contains(info.container.formatName) || info.container.formatName == "image2" {
      return try imageFacts(path, info: info)
    }
    let video = info.streams.first {
      $0.type == .video && $0.disposition["attached_pic"] != true && $0.video != nil
    }
    let audio = info.streams.first { $0.type == .audio }
    var duration = info.duration.map(MediaTime.init)
    for stream in [video, audio].compactMap({ $0 }) {
      if let d = stream.duration.map(MediaTime.init) { duration = max(duration ?? d, d) }
    }
    guard let video, let picture = video.video else {
      return SourceFacts(kind: .media, duration: duration, hasVideo: false, hasAudio: audio != nil)
    }
    var facts = SourceFacts(
      kind: .media, duration: duration, hasVideo: true, hasAudio: audio != nil,
      displayWidth: picture.orientation.displayWidth,
      displayHeight: picture.orientation.displayHeight, rotation: picture.orientation.rotation,
      mirrored: picture.orientation.mirrored, frameRate: picture.frameRate.best)
    facts.storedWidth = picture.width
    facts.storedHeight = picture.height
    return facts
  }

  /// The facts of one still image, which must be read by a single-image demuxer.
  static func imageFacts(_ path: String, info known: MediaInfo? = nil) throws -> SourceFacts {
    let info = try known ?? probe(path)
    guard imageDemuxers.contains(info.container.formatName),
      let picture = info.streams.first(where: { $0.type == .video })?.video,
      picture.orientation.displayWidth > 0
    else {
      throw CompositorError.unsupportedImage(
        path: path,
        detail: "read as \(info.container.formatName), not as a JPEG, PNG or WebP image")
    }
    var facts = SourceFacts.image(
      width: picture.orientation.displayWidth, height: picture.orientation.displayHeight,
      rotation: picture.orientation.rotation, mirrored: picture.orientation.mirrored)
    facts.storedWidth = picture.width
    facts.storedHeight = picture.height
    return facts
  }

  /// The probe's record of `path`; a file only the pattern demuxer (`image2`, which opens other
  /// files) recognizes is no image the single-image demuxers read: `unsupported_image`.
  static func probe(_ path: String) throws -> MediaInfo {
    do {
      return try Prober(options: ProbeOptions(scan: true)).probe(.file(path), path: path)
    } catch .refusedReference(let demuxer) where demuxer == "image2" {
      throw CompositorError.unsupportedImage(
        path: path, detail: "no JPEG, PNG or WebP decoder recognizes its bytes")
    }
  }
}

/// The images of a sequence: `dir/%04d.jpg` (the files of `dir` whose names match, in number
/// order) or a folder (its JPEG, PNG and WebP files in name order). Only the named folder is
/// listed: a pattern never reaches another one.
public enum ImageSequence {
  /// The image files of the sequence `path` names; nil when `path` is neither a pattern nor a
  /// folder (a single file).
  ///
  /// - Throws: `ProbeError.notFound` when the folder does not exist.
  public static func files(_ path: String) throws(ProbeError) -> [String]? {
    var status = stat()
    let isDirectory =
      FileName.withCString(path, { stat($0, &status) }) == 0 && status.st_mode & S_IFMT == S_IFDIR
    if isDirectory {
      let names = try list(path).filter { name in
        let lower = name.lowercased()
        return [".jpg", ".jpeg", ".png", ".webp"].contains { lower.hasSuffix($0) }
      }
      let base = path.hasSuffix("/") ? path : path + "/"
      return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        .map { base + $0 }
    }
    guard let pattern = Pattern(path) else { return nil }
    let folder = pattern.directory.isEmpty ? "." : pattern.directory
    var numbered: [(Int, String)] = []
    for name in try list(folder) {
      if let number = pattern.number(in: name) { numbered.append((number, name)) }
    }
    let prefix = pattern.directory.isEmpty ? "" : pattern.directory + "/"
    return numbered.sorted { $0.0 < $1.0 }.map { prefix + $0.1 }
  }

  /// A file name pattern with one `%d` or `%0Nd`.
  struct Pattern {
    var directory: String
    var before: String
    var after: String
    var width: Int?

    init?(_ path: String) {
      let slash = path.lastIndex(of: "/")
      directory = slash.map { String(path[..<$0]) } ?? ""
      let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
      guard !directory.contains("%"), let percent = name.firstIndex(of: "%") else { return nil }
      before = String(name[..<percent])
      var rest = name[name.index(after: percent)...]
      var digits = ""
      while let c = rest.first, c.isASCII, c.isNumber {
        digits.append(c)
        rest = rest.dropFirst()
      }
      guard rest.first == "d", !rest.dropFirst().contains("%") else { return nil }
      after = String(rest.dropFirst())
      width = digits.isEmpty ? nil : Int(digits)
    }

    /// The number in `name` when it matches.
    func number(in name: String) -> Int? {
      guard name.hasPrefix(before), name.hasSuffix(after),
        name.utf8.count > before.utf8.count + after.utf8.count
      else { return nil }
      let middle = String(name.dropFirst(before.count).dropLast(after.count))
      guard middle.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(middle) else {
        return nil
      }
      if let width, width > 0 {
        // %04d writes at least `width` digits, padded with zeros.
        guard middle.count >= width, middle.count == width || !middle.hasPrefix("0") else {
          return nil
        }
      } else if middle.count > 1 && middle.hasPrefix("0") {
        return nil
      }
      return value
    }
  }

  static func list(_ folder: String) throws(ProbeError) -> [String] {
    guard let directory = FileName.withCString(folder, { opendir($0) }) else {
      throw errno == ENOENT ? .notFound : .permissionDenied
    }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }
}
