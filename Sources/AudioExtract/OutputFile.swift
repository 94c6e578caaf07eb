import Synchronization

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// Where a WAV goes.
public enum OutputDestination: Sendable, Equatable {
  /// A file, written atomically: to a temporary file in the same directory, renamed into place
  /// when complete. An existing file is replaced only with `overwrite`.
  case file(path: String, overwrite: Bool)
  /// Standard output (a pipe, or whatever it is): never seeked, sizes left as "unknown".
  case standardOutput

  /// The path to report (`-` for standard output).
  public var display: String {
    switch self {
    case .file(let path, _): path
    case .standardOutput: "-"
    }
  }
}

/// The output file descriptor and, for a file, its temporary file: removed unless `commit()` ran.
final class OutputFile {
  let fd: Int32
  let seekable: Bool
  private let destination: OutputDestination
  private var temporaryPath: String?

  /// Opens the destination: checks that an existing file may be replaced and creates the
  /// temporary file next to it (so the final rename stays on one file system).
  ///
  /// - Throws: `ExtractError.outputExists` or `.output`.
  init(_ destination: OutputDestination) throws(ExtractError) {
    self.destination = destination
    switch destination {
    case .standardOutput:
      fd = STDOUT_FILENO
      seekable = false
    case .file(let path, let overwrite):
      var info = stat()
      if stat(path, &info) == 0 {
        if info.st_mode & S_IFMT == S_IFDIR { throw .outputIsDirectory(path) }
        if !overwrite { throw .outputExists(path) }
      }
      let slash = path.lastIndex(of: "/")
      let directory = slash.map { String(path[...$0]) } ?? ""
      let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
      var template = Array((directory + "." + name + ".XXXXXX.part").utf8CString)
      let opened = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 5) }
      guard opened >= 0 else { throw .output(OutputError(code: errno, action: "creating \(path)")) }
      fd = opened
      seekable = true
      temporaryPath = String(cString: template)
      TemporaryFiles.register(temporaryPath!)
      fchmod(fd, 0o666 & ~processUmask)
    }
  }

  /// Moves the finished file into place.
  ///
  /// - Throws: `ExtractError.outputExists` when a file appeared meanwhile (without overwrite),
  ///   `.output` for other failures.
  func commit() throws(ExtractError) {
    guard case .file(let path, let overwrite) = destination, let temporary = temporaryPath else {
      return
    }
    guard close(fd) == 0 else { throw .output(OutputError(code: errno, action: "closing \(path)")) }
    if overwrite {
      guard rename(temporary, path) == 0 else {
        throw .output(OutputError(code: errno, action: "renaming to \(path)"))
      }
    } else {
      // link() refuses to replace an existing file: no window in which one could be overwritten.
      guard link(temporary, path) == 0 else {
        throw errno == EEXIST
          ? .outputExists(path) : .output(OutputError(code: errno, action: "creating \(path)"))
      }
      unlink(temporary)
    }
    TemporaryFiles.unregister(temporary)
    temporaryPath = nil
  }

  deinit {
    if let temporaryPath {
      close(fd)
      unlink(temporaryPath)
      TemporaryFiles.unregister(temporaryPath)
    }
  }
}

/// The temporary files being written, so an interrupted process can remove them before it exits.
public enum TemporaryFiles {
  private static let paths = Mutex<Set<String>>([])

  static func register(_ path: String) { _ = paths.withLock { $0.insert(path) } }
  static func unregister(_ path: String) { _ = paths.withLock { $0.remove(path) } }

  /// Removes every temporary file still being written (call when interrupted).
  public static func removeAll() {
    paths.withLock { paths in
      for path in paths { unlink(path) }
      paths.removeAll()
    }
  }
}

/// The process's umask, read once (reading it means setting it, which is not thread-safe).
private let processUmask: mode_t = {
  let mask = umask(0o022)
  umask(mask)
  return mask
}()
