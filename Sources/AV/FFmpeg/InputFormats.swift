import OutputKit
import MediaCore
import CFFmpeg

/// FFmpeg's demuxers by name: what `--input-format` accepts, and which ones a file's extension
/// names.
public enum InputFormats {
  /// Every demuxer name FFmpeg knows, sorted; a demuxer with several names
  /// (`mov,mp4,m4a,3gp,3g2,mj2`) gives each.
  public static var names: [String] {
    var names: Set<String> = []
    var opaque: UnsafeMutableRawPointer? = nil
    while let format = av_demuxer_iterate(&opaque) {
      for name in String(cString: format.pointee.name).split(separator: ",") {
        names.insert(String(name))
      }
    }
    return names.sorted()
  }

  /// Whether FFmpeg has a demuxer of this name (one of a demuxer's names: `mp4` names `mov`'s).
  public static func exists(_ name: String) -> Bool { find(name) != nil }

  /// Whether the demuxer of this name opens other files or URLs (`hls`, `concat`, `image2`, ...:
  /// `referencingDemuxers`), so it is refused unless references are allowed.
  public static func opensOtherResources(_ name: String) -> Bool {
    guard let format = find(name) else { return false }
    return isReferencing(String(cString: format.pointee.name))
  }

  /// Up to five known names that look like `name`: the demuxers that list it as an extension
  /// (`mkv` → `matroska`), and names that share its start, contain it, or differ by a letter or
  /// two. For a usage error.
  public static func suggestions(for name: String) -> [String] {
    let wanted = name.lowercased()
    guard !wanted.isEmpty, !wanted.contains(","), !wanted.contains(".") else { return [] }
    var scored: [String: Int] = [:]
    for format in named(byExtensionOf: "x." + wanted, excluding: "") {
      let first = String(cString: format.pointee.name).split(separator: ",").first.map(String.init)
      if let first { scored[first] = 0 }
    }
    for candidate in names {
      if candidate.hasPrefix(wanted) || wanted.hasPrefix(candidate) {
        scored[candidate] = min(scored[candidate] ?? 1, 1)
      } else if candidate.contains(wanted) {
        scored[candidate] = min(scored[candidate] ?? 2, 2)
      } else {
        let distance = editDistance(Array(wanted.utf8), Array(candidate.utf8))
        if distance <= max(1, wanted.count / 3) {
          scored[candidate] = min(scored[candidate] ?? 2 + distance, 2 + distance)
        }
      }
    }
    return scored.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.prefix(5).map(\.key)
  }

  /// The demuxer named `name`, as `av_find_input_format` finds it.
  static func find(_ name: String) -> UnsafePointer<AVInputFormat>? {
    guard !name.isEmpty, !name.contains(",") else { return nil }
    return av_find_input_format(name)
  }

  /// A demuxer (by its full name, `a,b,c`) opens other resources.
  package static func isReferencing(_ demuxer: String) -> Bool {
    !Set(demuxer.split(separator: ",").map(String.init)).isDisjoint(with: referencingDemuxers)
  }

  /// FFmpeg's single-image demuxers (`jpeg_pipe`, `png_pipe`, `webp_pipe`, ...: img2dec.c's
  /// `IMAGEAUTO_DEMUXER`s), which read pictures from their input only, unlike `image2`.
  package static func isImagePipe(_ demuxer: String) -> Bool {
    demuxer.hasSuffix("_pipe") && demuxer != "image2pipe"
  }

  /// The demuxers whose extension list holds the extension of `name` (none for a name without
  /// one), leaving out `excluded` and the demuxers that open other resources.
  package static func named(byExtensionOf name: String, excluding excluded: String)
    -> [UnsafePointer<AVInputFormat>]
  {
    guard let dot = name.lastIndex(of: "."), !name[dot...].contains("/"),
      name.index(after: dot) < name.endIndex
    else { return [] }
    var found: [UnsafePointer<AVInputFormat>] = []
    var opaque: UnsafeMutableRawPointer? = nil
    while let format = av_demuxer_iterate(&opaque) {
      guard let extensions = format.pointee.extensions, av_match_ext(name, extensions) > 0 else {
        continue
      }
      let demuxer = String(cString: format.pointee.name)
      if demuxer != excluded && !isReferencing(demuxer) && !isImagePipe(demuxer) {
        found.append(format)
      }
    }
    return found
  }

  /// Levenshtein distance.
  private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
    var previous = Array(0...b.count)
    for (i, x) in a.enumerated() {
      var current = [i + 1]
      for (j, y) in b.enumerated() {
        current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
      }
      previous = current
    }
    return previous[b.count]
  }
}
