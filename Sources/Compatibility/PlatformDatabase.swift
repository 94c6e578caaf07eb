import MediaCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The platform database: every platform file, embedded in the binary at build time
/// (`.embedInCode` in Package.swift, one line per file).
public enum PlatformDatabase {
  /// The embedded files, by platform id (keep in step with Package.swift's resources).
  static let files: [(id: String, bytes: [UInt8])] = [
    ("android-14", PackageResources.android_14_json),
    ("android-2.3.3", PackageResources.android_2_3_3_json),
    ("android-3.0", PackageResources.android_3_0_json),
    ("android-4.0", PackageResources.android_4_0_json),
    ("android-browser-2012", PackageResources.android_browser_2012_json),
    ("apple-hls", PackageResources.apple_hls_json),
    ("chrome", PackageResources.chrome_json),
    ("firefox", PackageResources.firefox_json),
    ("ios-17", PackageResources.ios_17_json),
    ("ipad-browser-2012", PackageResources.ipad_browser_2012_json),
    ("iphone-2012", PackageResources.iphone_2012_json),
    ("iphone-browser-2012", PackageResources.iphone_browser_2012_json),
    ("mobile-high", PackageResources.mobile_high_json),
    ("mobile-low", PackageResources.mobile_low_json),
    ("mobile-medium", PackageResources.mobile_medium_json),
    ("safari", PackageResources.safari_json),
  ]

  /// Every platform, in the database's order (historical first, then modern).
  ///
  /// A file that does not decode is a build defect caught by the tests, so this traps.
  public static let all: [Platform] = decodeFiles(as: Platform.self)

  /// Every platform file decoded as `T` (a `Platform`, or only the fields a smaller type names),
  /// in the database's order: historical platforms first, then by id. A file that does not
  /// decode traps (a build defect the tests catch).
  private static func decodeFiles<T: PlatformEntry>(as type: T.Type) -> [T] {
    let decoder = JSONDecoder()
    return files.map { file in
      do {
        return try decoder.decode(T.self, from: Data(file.bytes))
      } catch {
        fatalError("platform file \(file.id).json does not decode: \(error)")
      }
    }.sorted { ($0.era == "historical" ? 0 : 1, $0.id) < ($1.era == "historical" ? 0 : 1, $1.id) }
  }

  /// The raw JSON of a platform file (for schema validation and `--list-platforms --json`).
  public static func json(for id: String) -> [UInt8]? { files.first { $0.id == id }?.bytes }

  /// Every name a command line may use: the ids, in the database's order, then the aliases
  /// (for shell completion and help). Read from the files without decoding the platforms' rules:
  /// the tools' options list these names every time they start, and decoding every platform cost
  /// each `mediaprobe` run ~2 ms of its ~38.
  public static let names: [String] = {
    let entries = decodeFiles(as: PlatformNames.self)
    return entries.map(\.id) + Set(entries.flatMap(\.aliases)).sorted()
  }()

  /// The platforms a name selects: an id, or an alias (`iphone`, `android`, `web`).
  ///
  /// - Returns: nil when nothing has that name.
  public static func resolve(_ name: String) -> [Platform]? {
    let key = name.lowercased()
    if let platform = all.first(where: { $0.id == key }) { return [platform] }
    let aliased = all.filter { $0.aliases.contains(key) }
    return aliased.isEmpty ? nil : aliased
  }

  /// The platforms named by command-line values: ids or aliases, comma-separated or repeated,
  /// each platform once, in the order named.
  ///
  /// - Throws: `UnknownPlatform` for a name that selects nothing.
  public static func resolve(list names: [String]) throws(UnknownPlatform) -> [Platform] {
    var platforms: [Platform] = []
    for name in names.flatMap({ $0.split(separator: ",").map(String.init) }) {
      guard let resolved = resolve(name) else { throw UnknownPlatform(name: name) }
      platforms += resolved.filter { platform in !platforms.contains { $0.id == platform.id } }
    }
    return platforms
  }
}

/// A platform name that is neither an id nor an alias.
public struct UnknownPlatform: Error, Sendable, CustomStringConvertible {
  /// The name as given.
  public var name: String
  /// "unknown platform 'x'".
  public var description: String { "unknown platform '\(name)'" }
}

/// What the database orders its files by.
private protocol PlatformEntry: Decodable {
  var id: String { get }
  var era: String { get }
}

extension Platform: PlatformEntry {}

/// A platform file's names, without its rules.
private struct PlatformNames: PlatformEntry {
  var id: String
  var era: String
  var aliases: [String]
}
