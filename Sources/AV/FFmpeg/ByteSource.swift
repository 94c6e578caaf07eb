import MediaCore
import OutputKit
import CFFmpeg

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// The bytes of one input, read through one file descriptor that we opened ourselves: libavformat
/// reads them through a custom `AVIOContext` (`ByteSource.makeIOContext`), and the MP4 box walk
/// reads the same descriptor with `pread`, so a path is opened once and never again (a FIFO
/// cannot be read twice, and a path could be replaced by another file between two opens).
/// A remote input (`http`/`https`, only when the caller allows the network) is read the same
/// way through our own HTTP client (`RemoteFile`: bounded range requests on one connection, a
/// cache, retries); libavformat's `http` protocol is never used.
///
/// It counts the bytes read, stops reading at a byte cap, and gives up when its deadline passes
/// or an interruption is requested (the reads of a pipe or FIFO wait with `poll`, never longer).
package final class ByteSource {
  /// What the descriptor is.
  package enum Kind: Equatable {
    /// A regular file of this many bytes: seekable.
    case regular(size: Int64)
    /// A FIFO, a pipe or standard input: read once, in order.
    case stream
  }

  /// Why a source could not be opened.
  package enum OpenError: Error, Equatable {
    case notFound
    case permissionDenied
    case notAFile(kind: String)
    case empty
    /// Nothing arrived before the deadline (a FIFO nobody writes to).
    case timedOut
    case interrupted
    case io(String)
    /// A remote input could not be read.
    case remote(RemoteError)
  }

  package let fd: Int32
  package private(set) var kind: Kind
  /// The HTTP(S) reader of a remote input (then `fd` is -1).
  private var remote: RemoteFile?
  /// Why a read of the remote input failed (the first failure; libavformat saw an I/O error).
  package private(set) var remoteFailure: RemoteError?
  /// The time limit, in seconds, for the errors that name it.
  private let timeoutSeconds: Double?
  private let ownsDescriptor: Bool
  private let deadline: Double?
  /// A FIFO opened by path must deliver its first bytes by then: nobody may be writing to it.
  private var firstBytesDeadline: Double?
  private let maxBytes: Int64?
  /// Bytes read so far, by libavformat and by the box walk.
  package private(set) var bytesRead: Int64 = 0
  /// The byte cap stopped a read.
  package private(set) var hitByteCap = false
  /// A read stopped at the deadline.
  package private(set) var timedOut = false
  /// Where the media starts in a local regular file whose first bytes are junk (see
  /// `skipLeadingBytes`): libavformat's offsets, `bytes(at:)` and `size` count from here.
  package private(set) var origin: Int64 = 0
  /// The read position, from `origin`.
  private var position: Int64 = 0

  /// Opens `path` for reading without blocking on a FIFO: the path is checked first (devices,
  /// sockets and directories are refused before they are opened), the descriptor checked again
  /// once open, and a FIFO waits for its first bytes no longer than the deadline.
  ///
  /// - Parameters:
  ///   - timeout: seconds this input may take in all (nil: no limit).
  ///   - maxBytes: read at most this many bytes (nil: no limit).
  /// - Throws: `OpenError`.
  package init(path: String, timeout: Double?, maxBytes: Int64?) throws(OpenError) {
    // No file is named with a NUL byte; the system would read the name up to it (a
    // NUL-separated list read without --null named the first file for the whole list, with
    // exit 0, in every tool).
    guard !path.utf8.contains(0) else { throw .notFound }
    var info = stat()
    guard FileName.withCString(path, { stat($0, &info) }) == 0 else {
      throw Self.openError(errno)
    }
    try Self.checkKind(info.st_mode)
    let opened = FileName.withCString(path) {
      open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    }
    guard opened >= 0 else { throw Self.openError(errno) }
    guard fstat(opened, &info) == 0 else {
      let error = Self.openError(errno)
      close(opened)
      throw error
    }
    do {
      try Self.checkKind(info.st_mode)
    } catch {
      close(opened)
      throw error
    }
    fd = opened
    ownsDescriptor = true
    timeoutSeconds = timeout
    deadline = timeout.map { MonotonicClock.seconds() + $0 }
    self.maxBytes = maxBytes
    if info.st_mode & S_IFMT == S_IFREG {
      guard info.st_size > 0 else {
        close(opened)
        throw .empty
      }
      kind = .regular(size: Int64(info.st_size))
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    } else {
      kind = .stream
      firstBytesDeadline = min(
        deadline ?? .infinity, MonotonicClock.seconds() + Self.fifoFirstBytesWait)
    }
  }

  /// How long a FIFO named on the command line may stay silent before its first bytes when no
  /// timeout is given: a FIFO nobody writes to must not hang a batch forever.
  package static let fifoFirstBytesWait = 10.0

  /// Standard input (never closed by us).
  package init(standardInputTimeout timeout: Double?, maxBytes: Int64?) {
    fd = STDIN_FILENO
    ownsDescriptor = false
    timeoutSeconds = timeout
    deadline = timeout.map { MonotonicClock.seconds() + $0 }
    self.maxBytes = maxBytes
    var info = stat()
    if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0,
      lseek(fd, 0, SEEK_CUR) == 0
    {
      kind = .regular(size: Int64(info.st_size))  // `< file.mp4`: seekable like a file
    } else {
      kind = .stream
    }
  }

  /// Opens an `http:` or `https:` URL with our own HTTP client (`RemoteFile`) and reads its
  /// first bytes: seekable when the server answers range requests, else read as a stream.
  ///
  /// - Parameter headers: sent with every request to the URL's origin (never printed).
  /// - Throws: `OpenError` (`.remote` for the server's answers, `.timedOut`).
  package init(url: String, headers: [HTTPHeader] = [], timeout: Double?, maxBytes: Int64?)
    throws(OpenError)
  {
    fd = -1
    ownsDescriptor = false
    timeoutSeconds = timeout
    let deadline = timeout.map { MonotonicClock.seconds() + $0 }
    self.deadline = deadline
    self.maxBytes = maxBytes
    let file: RemoteFile
    do {
      file = try RemoteFile(url: url, headers: headers, deadline: deadline, maxBytes: maxBytes)
    } catch {
      switch error {
      case .timedOut: throw .timedOut
      case .interrupted: throw .interrupted
      default: throw .remote(error)
      }
    }
    remote = file
    if file.ignoresRanges {
      kind = .stream
    } else if let size = file.size, size > 0 {
      kind = .regular(size: size)
    } else {
      throw .empty
    }
  }

  /// The server of a remote input ignores range requests: it is read once, in order.
  package var remoteIgnoresRanges: Bool { remote?.ignoresRanges ?? false }

  /// Requests sent for a remote input (redirects and retries included), else 0.
  package var requests: Int { remote?.requests ?? 0 }

  /// The probe's error for a failed read of a remote input, if one failed.
  package var remoteError: ProbeError? {
    remoteFailure?.probeError(timeout: timeoutSeconds ?? 0)
  }

  deinit {
    if ownsDescriptor { close(fd) }
  }

  /// Bytes that came over the network for a remote input (every answer's body), else the
  /// bytes read from the file.
  package var transferred: Int64 {
    remote?.transferred ?? bytesRead
  }

  private static func checkKind(_ mode: mode_t) throws(OpenError) {
    switch mode & S_IFMT {
    case S_IFREG, S_IFIFO: return
    case S_IFDIR: throw .notAFile(kind: "directory")
    case S_IFCHR, S_IFBLK: throw .notAFile(kind: "device")
    default: throw .notAFile(kind: "socket or special file")
    }
  }

  private static func openError(_ code: Int32) -> OpenError {
    switch code {
    case ENOENT, ENOTDIR: .notFound
    case EACCES, EPERM: .permissionDenied
    default: .io(String(cString: strerror(code)))
    }
  }

  /// The file's size from `origin` on (the whole file unless junk was skipped), for a regular
  /// file.
  package var size: Int64? {
    if case .regular(let size) = kind { return size - origin }
    return nil
  }

  /// A regular file on the local file system (or standard input redirected from one): it can be
  /// read again from any offset, cheaply.
  package var isLocalFile: Bool { remote == nil && kind != .stream }

  /// The whole file's size, junk included, for a regular file.
  package var fileSize: Int64? {
    if case .regular(let size) = kind { return size }
    return nil
  }

  /// Makes the media start `offset` bytes into a local regular file (the bytes before it are
  /// junk): from now on libavformat, `bytes(at:)` and `size` see the file from there. Moves the
  /// read position to the new start, as `rewind` does.
  ///
  /// - Returns: false (and changes nothing) for a stream, a remote input or an offset outside
  ///   the file.
  package func skipLeadingBytes(_ offset: Int64) -> Bool {
    guard remote == nil, let size = fileSize, offset >= 0, offset < size else { return false }
    origin = offset
    return rewind()
  }

  /// Moves the read position back to the start (`origin`), so that a new I/O context reads the
  /// input again from its first byte.
  ///
  /// - Returns: false for a stream (which cannot go back).
  @discardableResult
  package func rewind() -> Bool {
    guard kind != .stream else { return false }
    if remote == nil, lseek(fd, off_t(origin), SEEK_SET) < 0 { return false }
    position = 0
    return true
  }

  /// The deadline passed.
  package var isExpired: Bool {
    guard let deadline else { return false }
    return MonotonicClock.seconds() >= deadline
  }

  /// Should a long operation on this input stop: interrupted, or past the deadline.
  package var shouldStop: Bool { Interruption.isRequested || isExpired }

  // MARK: - Reading

  /// Reads up to `count` bytes at the current position (libavformat's read callback).
  ///
  /// - Returns: the byte count, or an `AVERROR` (EOF, EXIT for a deadline or interruption, EIO).
  package func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
    var wanted = count
    if let maxBytes {
      let left = maxBytes - bytesRead
      if left <= 0 {
        hitByteCap = true
        return mt_averror_eof
      }
      wanted = min(wanted, Int(left))
    }
    if let remote {
      let result = readRemote(
        remote, at: position, into: UnsafeMutableRawBufferPointer(start: buffer, count: wanted))
      guard result > 0 else { return result == 0 ? mt_averror_eof : Int32(result) }
      bytesRead += Int64(result)
      position += Int64(result)
      return Int32(result)
    }
    while true {
      if Interruption.isRequested { return mt_averror_exit }
      if kind == .stream, !waitForData() { return mt_averror_exit }
      let result = systemRead(fd, buffer, wanted)
      if result > 0 {
        bytesRead += Int64(result)
        position += Int64(result)
        return Int32(result)
      }
      if result == 0 { return mt_averror_eof }
      if errno == EINTR || errno == EAGAIN { continue }
      return mt_averror(errno)
    }
  }

  /// A read of the remote input: the byte count, 0 at the end (or the byte cap), or an
  /// `AVERROR` after a failure (kept in `remoteFailure`; EXIT for the deadline or an
  /// interruption).
  private func readRemote(
    _ remote: RemoteFile, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer
  ) -> Int {
    if remoteFailure != nil { return Int(mt_averror(EIO)) }
    do {
      let count = try remote.read(at: offset, into: buffer)
      if remote.hitByteCap { hitByteCap = true }
      return count
    } catch {
      switch error {
      case .timedOut:
        timedOut = true
        return Int(mt_averror_exit)
      case .interrupted: return Int(mt_averror_exit)
      default:
        remoteFailure = error
        return Int(mt_averror(EIO))
      }
    }
  }

  /// Waits until the descriptor has data (or its writer closed it), at most until the deadline.
  /// Polls in short slices so an interruption is noticed.
  private func waitForData() -> Bool {
    while true {
      if Interruption.isRequested { return false }
      var remaining = 200.0
      let limit = bytesRead == 0 ? firstBytesDeadline ?? deadline : deadline
      if let limit {
        remaining = limit - MonotonicClock.seconds()
        if remaining <= 0 {
          timedOut = true
          return false
        }
      }
      var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let result = poll(&descriptor, 1, Int32(min(remaining, 0.2) * 1000) + 1)
      if result > 0 { return true }
      if result < 0 && errno != EINTR { return true }  // let read() report the error
    }
  }

  /// Moves the read position (libavformat's seek callback); `AVSEEK_SIZE` asks for the size.
  package func seek(offset: Int64, whence: Int32) -> Int64 {
    if whence & AVSEEK_SIZE != 0 { return size ?? Int64(mt_averror(ENOSYS)) }
    if origin > 0 {
      // A window on a local file: offsets count from the origin.
      let target: Int64
      switch whence & ~AVSEEK_FORCE {
      case SEEK_SET: target = offset
      case SEEK_CUR: target = position + offset
      case SEEK_END: target = (size ?? 0) + offset
      default: return Int64(mt_averror(EINVAL))
      }
      guard target >= 0 else { return Int64(mt_averror(EINVAL)) }
      guard lseek(fd, off_t(origin + target), SEEK_SET) >= 0 else {
        return Int64(mt_averror(errno))
      }
      position = target
      return target
    }
    guard kind != .stream else { return Int64(mt_averror(ESPIPE)) }
    if remote != nil {
      // The remote client seeks when it reads next (the box walk may move it meanwhile).
      let target: Int64
      switch whence & ~AVSEEK_FORCE {
      case SEEK_SET: target = offset
      case SEEK_CUR: target = position + offset
      case SEEK_END: target = (size ?? 0) + offset
      default: return Int64(mt_averror(EINVAL))
      }
      guard target >= 0 else { return Int64(mt_averror(EINVAL)) }
      position = target
      return target
    }
    let result = lseek(fd, off_t(offset), whence & ~AVSEEK_FORCE)
    if result < 0 { return Int64(mt_averror(errno)) }
    position = Int64(result)
    return Int64(result)
  }

  /// Reads `count` bytes at `offset` without moving the position (the box walk); fewer at the
  /// end of the file. Only for regular files.
  package func bytes(at offset: UInt64, count: Int) -> [UInt8] {
    guard kind != .stream, count > 0 else { return [] }
    var buffer = [UInt8](repeating: 0, count: count)
    if let remote {
      // From the cache, else with a bounded request (a box header costs one window at most).
      var filled = 0
      while filled < count {
        let read = buffer.withUnsafeMutableBytes {
          readRemote(
            remote, at: Int64(offset) + Int64(filled),
            into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...]))
        }
        guard read > 0 else { break }
        filled += read
      }
      return Array(buffer.prefix(filled))
    }
    let read = buffer.withUnsafeMutableBytes {
      pread(fd, $0.baseAddress, count, off_t(offset) + off_t(origin))
    }
    guard read > 0 else { return [] }
    bytesRead += Int64(read)
    return Array(buffer.prefix(read))
  }

  // MARK: - libavformat

  /// A custom `AVIOContext` reading this source (seekable for a regular file). The context holds
  /// an unretained reference: keep `self` alive as long as it is used, and free it with
  /// `freeIOContext`.
  func makeIOContext() -> UnsafeMutablePointer<AVIOContext>? {
    let bufferSize: Int32 = 1 << 16
    guard let buffer = av_malloc(Int(bufferSize))?.assumingMemoryBound(to: UInt8.self) else {
      return nil
    }
    let opaque = Unmanaged.passUnretained(self).toOpaque()
    let context = avio_alloc_context(
      buffer, bufferSize, 0, opaque,
      { opaque, buffer, size in
        guard let opaque, let buffer else { return mt_averror(EINVAL) }
        let source = Unmanaged<ByteSource>.fromOpaque(opaque).takeUnretainedValue()
        return source.read(into: buffer, count: Int(size))
      }, nil,
      kind == .stream
        ? nil
        : { opaque, offset, whence in
          guard let opaque else { return Int64(mt_averror(EINVAL)) }
          let source = Unmanaged<ByteSource>.fromOpaque(opaque).takeUnretainedValue()
          return source.seek(offset: offset, whence: whence)
        })
    guard let context else {
      var owned: UnsafeMutableRawPointer? = UnsafeMutableRawPointer(buffer)
      av_freep(&owned)
      return nil
    }
    context.pointee.seekable = kind == .stream ? 0 : AVIO_SEEKABLE_NORMAL
    return context
  }

  /// Frees a context made by `makeIOContext` (and its current buffer).
  static func freeIOContext(_ context: inout UnsafeMutablePointer<AVIOContext>?) {
    guard let owned = context else { return }
    withUnsafeMutablePointer(to: &owned.pointee.buffer) { av_freep($0) }
    avio_context_free(&context)
  }

  /// The callback libavformat polls during blocking work on this input: stop when interrupted
  /// or past the deadline.
  var interruptCallback: AVIOInterruptCB {
    AVIOInterruptCB(
      callback: { opaque in
        guard let opaque else { return Interruption.isRequested ? 1 : 0 }
        let source = Unmanaged<ByteSource>.fromOpaque(opaque).takeUnretainedValue()
        return source.shouldStop ? 1 : 0
      }, opaque: Unmanaged.passUnretained(self).toOpaque())
  }
}

/// The C library's `read`, under a name that does not clash with `ByteSource.read`.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
  read(fd, buffer, count)
}
