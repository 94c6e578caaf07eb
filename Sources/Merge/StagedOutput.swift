#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// The merged file while it is written: a temporary file in the output's directory (so the
/// final move stays on one file system), moved into place only by `commit()`, removed otherwise
/// (and by `RunningMerge.abort()` when interrupted).
///
/// This is a small copy of what `AudioExtract`'s `OutputFile` does for WAV files (mkstemps,
/// then `link` without `--force` so an existing file is never replaced, `rename` with it); the
/// two should become one helper once that one's rewrite lands.
final class StagedOutput {
  /// The final path.
  let path: String
  /// The temporary file ffmpeg writes.
  let temporary: String
  private let overwrite: Bool
  private var committed = false

  /// Checks that `path` may be written (an existing file only with `overwrite`) and creates the
  /// temporary file beside it.
  ///
  /// - Throws: `MergeError.outputExists`, `.outputIsDirectory` or `.writeError`.
  init(path: String, overwrite: Bool) throws(MergeError) {
    try Self.checkWritable(path, overwrite: overwrite)
    let slash = path.lastIndex(of: "/")
    let directory = slash.map { String(path[...$0]) } ?? ""
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    var template = Array((directory + "." + name + ".XXXXXX.part").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 5) }
    guard fd >= 0 else {
      throw .writeError(path: path, detail: "creating a temporary file: \(Self.reason(errno))")
    }
    fchmod(fd, 0o666 & ~processUmask)
    close(fd)
    self.path = path
    self.overwrite = overwrite
    temporary = String(
      decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    RunningMerge.register(temporary: temporary)
  }

  /// Fails early when the output cannot be written: it exists (without `overwrite`) or is a
  /// directory.
  ///
  /// - Throws: `MergeError.outputExists` or `.outputIsDirectory`.
  static func checkWritable(_ path: String, overwrite: Bool) throws(MergeError) {
    var info = stat()
    guard stat(path, &info) == 0 else { return }
    if info.st_mode & S_IFMT == S_IFDIR { throw .outputIsDirectory(path) }
    if !overwrite { throw .outputExists(path) }
  }

  /// Flushes the finished file to disk and moves it into place: `link` (which never replaces a
  /// file that appeared meanwhile) without `overwrite`, `rename` with it.
  ///
  /// - Throws: `MergeError.outputExists` or `.writeError`.
  func commit() throws(MergeError) {
    let fd = open(temporary, O_RDONLY | O_CLOEXEC)
    if fd >= 0 {
      let synced = fsync(fd)
      let code = errno
      close(fd)
      if synced != 0 { throw .writeError(path: path, detail: "fsync: \(Self.reason(code))") }
    }
    if overwrite {
      guard rename(temporary, path) == 0 else {
        throw .writeError(path: path, detail: "renaming into place: \(Self.reason(errno))")
      }
    } else {
      guard link(temporary, path) == 0 else {
        if errno == EEXIST { throw .outputExists(path) }
        throw .writeError(path: path, detail: "linking into place: \(Self.reason(errno))")
      }
      unlink(temporary)
    }
    committed = true
    RunningMerge.unregister(temporary: temporary)
  }

  deinit {
    if !committed {
      unlink(temporary)
      RunningMerge.unregister(temporary: temporary)
    }
  }

  private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// The process's umask, read once (reading it means setting it, which is not thread-safe).
private let processUmask: mode_t = {
  let mask = umask(0o022)
  umask(mask)
  return mask
}()
