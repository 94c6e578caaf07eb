#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// An unnamed scratch file for data a tool puts aside while it works and reads back later (the
/// compositor's self-check references), so that memory does not grow with the work's length.
///
/// On Linux it is an `O_TMPFILE` file in `$TMPDIR` (or `/tmp`): it has no name, so nothing is
/// left behind however the process ends. Where the system has no `O_TMPFILE` it is a named file
/// unlinked at once. Writes that fail (a full disk) are reported, never fatal: the caller keeps
/// what it can and does without the rest.
public final class ScratchFile {
  private let fd: Int32
  private var end: Int64 = 0

  /// Opens a scratch file in `directory` (default: `$TMPDIR`, else `/tmp`); nil when none can
  /// be made (an unwritable or missing directory).
  public init?(directory: String? = nil) {
    let base = directory ?? getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var fd = base.withCString { open($0, O_TMPFILE | O_RDWR | O_CLOEXEC, 0o600) }
    if fd < 0 {
      var template = Array((base + "/.mediatools-scratch.XXXXXX").utf8CString)
      fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
      if fd >= 0 {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
      }
    }
    guard fd >= 0 else { return nil }
    self.fd = fd
  }

  deinit { close(fd) }

  /// Bytes written so far.
  public var size: Int64 { end }

  /// Appends `bytes`; returns where they start, or nil when they could not all be written (the
  /// file is then as it was before).
  public func append(_ bytes: UnsafeRawBufferPointer) -> Int64? {
    let start = end
    var done = 0
    while done < bytes.count {
      let result = pwrite(
        fd, bytes.baseAddress! + done, bytes.count - done, off_t(start) + off_t(done))
      if result < 0 && errno == EINTR { continue }
      guard result > 0 else {
        _ = ftruncate(fd, off_t(start))
        return nil
      }
      done += result
    }
    end = start + Int64(bytes.count)
    return start
  }

  /// Reads `count` bytes at `offset` into `buffer` (which holds at least `count`); false when
  /// they cannot all be read.
  public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
    var done = 0
    while done < buffer.count {
      let result = pread(
        fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
      if result < 0 && errno == EINTR { continue }
      guard result > 0 else { return false }
      done += result
    }
    return true
  }
}
