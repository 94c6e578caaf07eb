import MediaCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// Where a WAV goes.
public enum OutputDestination: Sendable, Equatable {
  /// A file, written atomically: as an unnamed file in the same directory (`O_TMPFILE`) that is
  /// given its name when complete. An existing regular file is replaced only with `overwrite`;
  /// a character device or a named pipe (`/dev/null`) is written in place, as a stream.
  case file(path: String, overwrite: Bool)
  /// Standard output (a pipe, or whatever it is): never seeked, sizes left as "unknown".
  case standardOutput

  /// The path to report (`-` for standard output).
  public var display: String {
    switch self {
    case .file(let path, _): FileName.display(path)
    case .standardOutput: "-"
    }
  }
}

/// An output file and what becomes of it: a file appears under its name only in `commit()`;
/// without it, nothing is left behind. The one place where the tools write files (media2wav's
/// WAVs, mediamerge's merged file).
///
/// On Linux the data goes to an unnamed file (`O_TMPFILE`) in the target directory, linked into
/// place when complete (`linkat`), so not even SIGKILL or a power cut leaves a partial file. Where
/// the file system has no `O_TMPFILE`, a hidden named temporary file (`.NAME.XXXXXX.part`) is
/// used instead and renamed; it is removed on errors, SIGINT and SIGTERM, but SIGKILL leaves it.
public final class OutputFile {
  /// The descriptor to write to.
  public let fd: Int32
  /// Whether the output can be seeked (a file, not a stream).
  public let seekable: Bool
  private let kind: Kind
  private let sync: Bool
  private var finished = false

  private enum Kind {
    /// Written in place, never renamed: standard output (not ours to close), or a character
    /// device or named pipe opened by path.
    case stream(closes: Bool)
    /// An `O_TMPFILE` file in `directory`, to be linked as `path`.
    case unnamed(path: String, directory: String, overwrite: Bool)
    /// A named temporary file, to be renamed (or linked) to `path`.
    case named(temporary: String, path: String, directory: String, overwrite: Bool)
  }

  /// Set in the environment to skip `O_TMPFILE` and use a named temporary file, as on a file
  /// system without it (the tests force the fallback this way).
  static let noUnnamedFilesVariable = "MEDIATOOLS_NO_O_TMPFILE"

  /// Opens the destination: checks what exists at the path and creates the unnamed (or
  /// temporary) file next to it, so that naming it stays on one file system.
  ///
  /// - Parameter sync: `fsync` the file before it gets its name, and the directory after.
  /// - Throws: `OutputFileError.exists`, `.notReplaceable`, `.isDirectory` or
  ///   `.output`.
  /// - Parameter forChild: the file will be written by another process through `childPath`
  ///   (mediamerge's ffmpeg): a character device or named pipe is refused as not replaceable
  ///   (the child needs a file it can seek), and an unnamed file is used only where
  ///   `/proc/PID/fd` can name it.
  public init(_ destination: OutputDestination, sync: Bool = true, forChild: Bool = false)
    throws(OutputFileError)
  {
    self.sync = sync
    guard case .file(let path, let overwrite) = destination else {
      fd = STDOUT_FILENO
      seekable = false
      kind = .stream(closes: false)
      return
    }
    if try Self.check(path, overwrite: overwrite, streams: !forChild) == .stream {
      fd = try Self.openStream(path)
      seekable = false
      kind = .stream(closes: true)
      return
    }
    let slash = path.lastIndex(of: "/")
    let directory = slash.map { String(path[...$0]) } ?? ""
    seekable = true
    let unnamedAllowed =
      forChild ? access("/proc/self/fd", X_OK) == 0 : Self.canNameUnnamedFiles
    if getenv(Self.noUnnamedFilesVariable) == nil && unnamedAllowed {
      let opened = FileName.withCString(directory.isEmpty ? "." : directory) {
        open($0, O_TMPFILE | O_RDWR | O_CLOEXEC, 0o666)
      }
      if opened >= 0 {
        fd = opened
        kind = .unnamed(path: path, directory: directory, overwrite: overwrite)
        return
      }
      // EOPNOTSUPP (no O_TMPFILE on this file system), EISDIR (an old kernel), or a real error,
      // which creating the named file reports in the usual words.
    }
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    var template =
      FileName.bytes(directory + "." + name + ".XXXXXX.part").map { CChar(bitPattern: $0) } + [0]
    var opened: Int32 = -1
    var failure = EINTR  // what is reported when an interruption came first
    let made = TemporaryFiles.creating {
      opened = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 5) }
      guard opened >= 0 else {
        failure = errno
        return nil
      }
      return FileName.string(fromBytes: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
    }
    guard let temporary = made else {
      throw .write(OutputError(code: failure, action: "creating \(path)"))
    }
    fd = opened
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    kind = .named(temporary: temporary, path: path, directory: directory, overwrite: overwrite)
    fchmod(fd, 0o666 & ~processUmask)
  }

  /// Opens `path` to be written by another process (mediamerge's ffmpeg), which gets
  /// `childPath`; the file appears under `path` only in `commit()`.
  ///
  /// - Throws: `OutputFileError.exists`, `.notReplaceable` (also for a character device
  ///   or a named pipe), `.isDirectory` or `.write`.
  public convenience init(forChildWriting path: String, overwrite: Bool, sync: Bool = true)
    throws(OutputFileError)
  {
    try self.init(.file(path: path, overwrite: overwrite), sync: sync, forChild: true)
  }

  /// The path another process can open to write this file, and this one to read it back:
  /// `/proc/PID/fd/N` for an unnamed file, the temporary file's name otherwise; nil for a stream.
  public var childPath: String? {
    switch kind {
    case .stream: nil
    case .unnamed: "/proc/\(getpid())/fd/\(fd)"
    case .named(let temporary, _, _, _): temporary
    }
  }

  /// What the path holds, checked before any work: `.stream` for a character device or a named
  /// pipe that may be written in place (when `streams`), `.file` for nothing or a regular file
  /// that may be replaced.
  ///
  /// - Throws: `OutputFileError.exists` (a regular file without `overwrite`),
  ///   `.notReplaceable` (a symbolic link, socket, block device; a character device or
  ///   named pipe when not `streams`), `.isDirectory`.
  public static func check(_ path: String, overwrite: Bool, streams: Bool = true)
    throws(OutputFileError) -> Target
  {
    var info = stat()
    guard FileName.withCString(path, { lstat($0, &info) }) == 0 else { return .file }
    let type = info.st_mode & S_IFMT
    var target = info
    if type == S_IFLNK && FileName.withCString(path, { stat($0, &target) }) != 0 { target = info }
    let targetType = target.st_mode & S_IFMT
    switch targetType {
    case S_IFDIR: throw .isDirectory(path)
    case S_IFCHR, S_IFIFO:
      if streams { return .stream }
      throw .notReplaceable(path: path, kind: Self.kindName(targetType))
    default: break
    }
    if type != S_IFREG { throw .notReplaceable(path: path, kind: Self.kindName(type)) }
    if !overwrite { throw .exists(path) }
    return .file
  }

  /// What an output path leads to.
  public enum Target: Sendable {
    /// A file written whole and given its name when complete.
    case file
    /// A character device or named pipe, written in place as a stream.
    case stream
  }

  /// An unnamed file can be given a name: with `linkat(AT_EMPTY_PATH)` by root (or anyone since
  /// Linux 6.10), else through `/proc/self/fd`, which a chroot or container may lack.
  private static let canNameUnnamedFiles =
    geteuid() == 0 || access("/proc/self/fd", X_OK) == 0

  /// Opens a character device or named pipe for writing, as it is (no truncation, no rename).
  private static func openStream(_ path: String) throws(OutputFileError) -> Int32 {
    let fd = FileName.withCString(path) { open($0, O_WRONLY | O_NOCTTY | O_CLOEXEC) }
    guard fd >= 0 else { throw .write(OutputError(code: errno, action: "opening \(path)")) }
    var info = stat()
    let type = fstat(fd, &info) == 0 ? info.st_mode & S_IFMT : 0
    if type != S_IFCHR && type != S_IFIFO {
      // Replaced by something else since we looked: never write into a file in place.
      close(fd)
      throw .exists(path)
    }
    if isatty(fd) == 1 {
      close(fd)
      throw .write(
        OutputError(code: EINVAL, action: "refusing to write WAV data to the terminal \(path)"))
    }
    return fd
  }

  private static func kindName(_ type: mode_t) -> String {
    switch type {
    case S_IFLNK: "symbolic link"
    case S_IFBLK: "block device"
    case S_IFSOCK: "socket"
    case S_IFCHR: "character device"
    case S_IFIFO: "named pipe"
    default: "special file"
    }
  }

  /// Gives the finished file its name (syncing it first unless told not to).
  ///
  /// - Throws: `OutputFileError.exists` when a file appeared meanwhile (without overwrite),
  ///   `.notReplaceable` when something other than a regular file did, `.write` for other
  ///   failures.
  public func commit() throws(OutputFileError) {
    guard !finished else { return }
    switch kind {
    case .stream(let closes):
      finished = true
      if closes, close(fd) != 0 {
        throw .write(OutputError(code: errno, action: "closing the output"))
      }
    case .unnamed(let path, let directory, let overwrite):
      try syncFile(path)
      if overwrite {
        // linkat() cannot replace a file: link under a temporary name, then rename over it.
        let temporary = try linkUnderTemporaryName(path: path, directory: directory)
        try replace(path, with: temporary)
      } else {
        // linkat() refuses to replace an existing file: no window in which one is overwritten.
        if let error = link(fd, to: path) {
          throw error == EEXIST
            ? .exists(path) : .write(OutputError(code: error, action: "creating \(path)"))
        }
      }
      finished = true
      if close(fd) != 0 {
        let error = errno
        FileName.withCString(path) { _ = unlink($0) }
        throw .write(OutputError(code: error, action: "closing \(path)"))
      }
      try syncDirectory(directory, of: path)
    case .named(let temporary, let path, let directory, let overwrite):
      try syncFile(path)
      finished = true
      guard close(fd) == 0 else {
        let error = errno
        removeTemporary(temporary)
        throw .write(OutputError(code: error, action: "closing \(path)"))
      }
      if overwrite {
        try replace(path, with: temporary)
      } else {
        guard Glibc.link(temporary, path) == 0 else {
          let error = errno
          removeTemporary(temporary)
          throw error == EEXIST
            ? .exists(path) : .write(OutputError(code: error, action: "creating \(path)"))
        }
        removeTemporary(temporary)
      }
      try syncDirectory(directory, of: path)
    }
  }

  private func syncFile(_ path: String) throws(OutputFileError) {
    guard sync else { return }
    if fsync(fd) != 0 { throw .write(OutputError(code: errno, action: "syncing \(path)")) }
  }

  /// Makes the new name durable: `fsync` on the directory that holds it.
  private func syncDirectory(_ directory: String, of path: String) throws(OutputFileError) {
    guard sync else { return }
    let descriptor = FileName.withCString(directory.isEmpty ? "." : directory) {
      open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    }
    guard descriptor >= 0 else {
      throw .write(OutputError(code: errno, action: "syncing the directory of \(path)"))
    }
    defer { close(descriptor) }
    // Some file systems cannot sync a directory (EINVAL): nothing more to do there.
    if fsync(descriptor) != 0 && errno != EINVAL {
      throw .write(OutputError(code: errno, action: "syncing the directory of \(path)"))
    }
  }

  /// Renames `temporary` over `path` if `path` is (still) absent or a regular file.
  private func replace(_ path: String, with temporary: String) throws(OutputFileError) {
    var info = stat()
    if FileName.withCString(path, { lstat($0, &info) }) == 0 && info.st_mode & S_IFMT != S_IFREG {
      removeTemporary(temporary)
      throw .notReplaceable(path: path, kind: Self.kindName(info.st_mode & S_IFMT))
    }
    let renamed = FileName.withCString(temporary) { from in
      FileName.withCString(path) { to in rename(from, to) }
    }
    guard renamed == 0 else {
      let error = errno
      removeTemporary(temporary)
      throw .write(OutputError(code: error, action: "renaming to \(path)"))
    }
    TemporaryFiles.unregister(temporary)
  }

  /// Links the unnamed file as `.NAME.XXXXXX.part` next to `path` and returns that name
  /// (registered for removal if the process is interrupted before the rename).
  private func linkUnderTemporaryName(path: String, directory: String) throws(OutputFileError)
    -> String
  {
    let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    for _ in 0..<100 {
      let random = String((0..<6).map { _ in letters.randomElement()! })
      let temporary = directory + "." + name + "." + random + ".part"
      var error: Int32? = EINTR  // what is reported when an interruption came first
      if TemporaryFiles.creating({
        error = link(fd, to: temporary)
        return error == nil ? temporary : nil
      }) != nil {
        return temporary
      }
      if let error, error != EEXIST {
        throw .write(OutputError(code: error, action: "creating \(path)"))
      }
    }
    throw .write(OutputError(code: EEXIST, action: "creating \(path)"))
  }

  /// Gives the unnamed file a name: `linkat(fd, "", AT_EMPTY_PATH)`, which needs
  /// CAP_DAC_READ_SEARCH before Linux 6.10, else through `/proc/self/fd/N`, which any user may do.
  ///
  /// - Returns: nil on success, else the `errno`.
  private func link(_ fd: Int32, to path: String) -> Int32? {
    if FileName.withCString(path, { linkat(fd, "", AT_FDCWD, $0, AT_EMPTY_PATH) }) == 0 {
      return nil
    }
    let first = errno
    guard first == ENOENT || first == EPERM || first == EACCES else { return first }
    let linked = FileName.withCString(path) {
      linkat(AT_FDCWD, "/proc/self/fd/\(fd)", AT_FDCWD, $0, AT_SYMLINK_FOLLOW)
    }
    if linked == 0 {
      return nil
    }
    return errno
  }

  private func removeTemporary(_ temporary: String) {
    FileName.withCString(temporary) { _ = unlink($0) }
    TemporaryFiles.unregister(temporary)
  }

  deinit {
    guard !finished else { return }
    switch kind {
    case .stream(let closes):
      if closes { close(fd) }
    case .unnamed:
      close(fd)  // an unnamed file disappears with its last descriptor
    case .named(let temporary, _, _, _):
      close(fd)
      removeTemporary(temporary)
    }
  }
}

/// The temporary files being written, so an interrupted process can remove them before it exits.
///
/// A file is made and registered under one lock (`creating`), and `removeAll` takes the same lock
/// and closes the register: an interruption either comes first (nothing more is made) or finds
/// the file registered; no window leaves a `.part` file or a private directory behind.
public enum TemporaryFiles {
  private struct Register {
    var files: Set<String> = []
    var directories: [String: [String]] = [:]
    var closed = false
  }
  private static let register = Mutex(Register())

  /// Runs `make`, which makes a temporary file and returns its path (nil when it made none),
  /// and registers that path before an interruption can run; nil without calling `make` once
  /// `removeAll` has run.
  static func creating(_ make: () -> String?) -> String? {
    register.withLock { register in
      guard !register.closed, let path = make() else { return nil }
      register.files.insert(path)
      return path
    }
  }

  /// As `creating`, for a private directory and the names of the files it may come to hold.
  static func creatingDirectory(files: [String], _ make: () -> String?) -> String? {
    register.withLock { register in
      guard !register.closed, let path = make() else { return nil }
      register.directories[path] = files
      return path
    }
  }

  static func unregister(_ path: String) { _ = register.withLock { $0.files.remove(path) } }
  static func unregister(directory: String) {
    register.withLock { $0.directories[directory] = nil }
  }

  /// Removes every temporary file still being written, and every `PrivateDirectory` still open
  /// with the files it may hold, and makes no more (call when interrupted).
  public static func removeAll() {
    register.withLock { register in
      register.closed = true
      for path in register.files { FileName.withCString(path) { _ = unlink($0) } }
      register.files.removeAll()
      for (directory, files) in register.directories {
        PrivateDirectory.remove(directory, files: files)
      }
      register.directories.removeAll()
    }
  }
}

// Linux's O_TMPFILE and AT_EMPTY_PATH need _GNU_SOURCE, which Swift's Glibc module does not set.
// The values are the generic ones (x86-64, arm64, riscv64): __O_TMPFILE | O_DIRECTORY, and 0x1000.
let O_TMPFILE: Int32 = 0o20_000_000 | O_DIRECTORY
private let AT_EMPTY_PATH: Int32 = 0x1000

/// The process's umask, read once (reading it means setting it, which is not thread-safe).
private let processUmask: mode_t = {
  let mask = umask(0o022)
  umask(mask)
  return mask
}()
