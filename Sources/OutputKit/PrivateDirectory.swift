#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// A directory of the process's own, for a library that needs named files of its own while it
/// works (libx264's two-pass statistics): made with `mkdtemp` (mode 0700) in `$TMPDIR` (or
/// `/tmp`) under a fixed prefix and a random suffix, never beside an output and never named
/// after an input. `remove()` deletes the files in it (those it was told of, and any other a
/// library left) and the directory; so does an interruption (`TemporaryFiles.removeAll`), and so
/// does `deinit` when `remove()` was not called.
public final class PrivateDirectory {
  /// The directory's path.
  public let path: String
  private let files: [String]
  private var removed = false

  /// Makes a directory in `parent` (default: `$TMPDIR`, else `/tmp`) that will hold the files
  /// named `files` (names inside it; they are removed with it, whether or not they were made).
  /// Nil when none can be made (a missing or unwritable parent).
  public init?(files: [String], parent: String? = nil) {
    let base = parent ?? getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array((base + "/mediatools.XXXXXX").utf8CString)
    let made = TemporaryFiles.creatingDirectory(files: files) {
      template.withUnsafeMutableBufferPointer { buffer -> String? in
        guard let result = mkdtemp(buffer.baseAddress!) else { return nil }
        return String(cString: result)
      }
    }
    guard let made else { return nil }
    path = made
    self.files = files
  }

  /// The path of `name` inside the directory.
  public func path(of name: String) -> String { path + "/" + name }

  /// Removes the files and the directory (once).
  public func remove() {
    guard !removed else { return }
    removed = true
    Self.remove(path, files: files)
    TemporaryFiles.unregister(directory: path)
  }

  deinit { remove() }

  /// Unlinks `files` in `directory`, then whatever else a library left there (the directory is
  /// ours alone), then the directory.
  static func remove(_ directory: String, files: [String]) {
    for file in files { _ = unlink(directory + "/" + file) }
    if let stream = opendir(directory) {
      var names: [String] = []
      while let entry = readdir(stream) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
          String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if name != "." && name != ".." { names.append(name) }
      }
      closedir(stream)
      for name in names { _ = unlink(directory + "/" + name) }
    }
    _ = rmdir(directory)
  }
}
