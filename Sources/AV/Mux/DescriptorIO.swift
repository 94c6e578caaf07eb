import CFFmpeg

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// libavformat I/O on a file descriptor we opened ourselves (an `OutputFile`'s unnamed
/// `O_TMPFILE` file), with a position of its own: `pwrite`/`pread` never move the descriptor's
/// offset, so a writer and any number of readers (the MP4 muxer's faststart pass) share one
/// descriptor safely. A descriptor that cannot seek (a pipe) is written in order with `write`.
///
/// Before each transfer it asks `shouldStop` (an interruption, a deadline): a long write, such
/// as faststart's second pass over the whole file, stops with `AVERROR_EXIT`.
///
/// The `AVIOContext` it makes holds an unretained reference: keep `self` alive while the
/// context is in use, and free the context with `freeContext`.
final class DescriptorIO {
  /// The descriptor (not owned: whoever opened it closes it).
  let fd: Int32
  /// The descriptor can be seeked (a file, not a pipe).
  let seekable: Bool
  /// Asked before each transfer; true stops it with `AVERROR_EXIT`.
  private let shouldStop: () -> Bool
  /// A transfer was refused because `shouldStop` said so.
  private(set) var stopped = false
  /// Where the next read or write goes.
  private var position: Int64 = 0
  /// The first `errno` a write or read failed with (`ENOSPC` on a full disk, `EFBIG` past the
  /// file size limit): FFmpeg keeps only an `AVERROR`, and may replace it with a later one.
  private(set) var failure: Int32?
  /// Bytes written through this context.
  private(set) var bytesWritten: Int64 = 0

  init(fd: Int32, seekable: Bool, shouldStop: @escaping () -> Bool) {
    self.fd = fd
    self.seekable = seekable
    self.shouldStop = shouldStop
  }

  /// Whether to refuse the next transfer (and remember that it was refused).
  func stopRequested() -> Bool {
    if stopped || shouldStop() {
      stopped = true
      return true
    }
    return false
  }

  /// Writes all of `count` bytes at the position, retrying short writes and `EINTR`.
  ///
  /// - Returns: `count`, or `AVERROR(errno)`.
  func write(_ buffer: UnsafePointer<UInt8>, count: Int) -> Int32 {
    if stopRequested() { return mt_averror_exit }
    var done = 0
    while done < count {
      let result =
        seekable
        ? pwrite(fd, buffer + done, count - done, off_t(position))
        : Glibc.write(fd, buffer + done, count - done)
      if result < 0 {
        if errno == EINTR { continue }
        let code = errno
        if failure == nil { failure = code }
        return mt_averror(code)
      }
      done += result
      position += Int64(result)
      bytesWritten += Int64(result)
    }
    return Int32(count)
  }

  /// Reads up to `count` bytes at the position.
  ///
  /// - Returns: the byte count, `AVERROR_EOF` at the end of the file, or `AVERROR(errno)`.
  func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
    if stopRequested() { return mt_averror_exit }
    while true {
      let result = pread(fd, buffer, count, off_t(position))
      if result > 0 {
        position += Int64(result)
        return Int32(result)
      }
      if result == 0 { return mt_averror_eof }
      if errno == EINTR { continue }
      let code = errno
      if failure == nil { failure = code }
      return mt_averror(code)
    }
  }

  /// Moves the position (`AVSEEK_SIZE` asks for the file's size).
  func seek(offset: Int64, whence: Int32) -> Int64 {
    guard seekable else { return Int64(mt_averror(ESPIPE)) }
    var info = stat()
    if whence & AVSEEK_SIZE != 0 {
      guard fstat(fd, &info) == 0 else { return Int64(mt_averror(errno)) }
      return Int64(info.st_size)
    }
    let target: Int64
    switch whence & ~AVSEEK_FORCE {
    case SEEK_SET: target = offset
    case SEEK_CUR: target = position + offset
    case SEEK_END:
      guard fstat(fd, &info) == 0 else { return Int64(mt_averror(errno)) }
      target = Int64(info.st_size) + offset
    default: return Int64(mt_averror(EINVAL))
    }
    guard target >= 0 else { return Int64(mt_averror(EINVAL)) }
    position = target
    return target
  }

  /// A seekable `AVIOContext` writing (`writable`) or reading through this object.
  func makeContext(writable: Bool) -> UnsafeMutablePointer<AVIOContext>? {
    let bufferSize: Int32 = 1 << 16
    guard let buffer = av_malloc(Int(bufferSize))?.assumingMemoryBound(to: UInt8.self) else {
      return nil
    }
    let opaque = Unmanaged.passUnretained(self).toOpaque()
    let context = avio_alloc_context(
      buffer, bufferSize, writable ? 1 : 0, opaque,
      writable
        ? nil
        : { opaque, buffer, size in
          guard let opaque, let buffer else { return mt_averror(EINVAL) }
          let io = Unmanaged<DescriptorIO>.fromOpaque(opaque).takeUnretainedValue()
          return io.read(into: buffer, count: Int(size))
        },
      writable
        ? { opaque, buffer, size in
          guard let opaque, let buffer else { return mt_averror(EINVAL) }
          let io = Unmanaged<DescriptorIO>.fromOpaque(opaque).takeUnretainedValue()
          return io.write(buffer, count: Int(size))
        } : nil,
      { opaque, offset, whence in
        guard let opaque else { return Int64(mt_averror(EINVAL)) }
        let io = Unmanaged<DescriptorIO>.fromOpaque(opaque).takeUnretainedValue()
        return io.seek(offset: offset, whence: whence)
      })
    guard let context else {
      var owned: UnsafeMutableRawPointer? = UnsafeMutableRawPointer(buffer)
      av_freep(&owned)
      return nil
    }
    context.pointee.seekable = seekable ? AVIO_SEEKABLE_NORMAL : 0
    return context
  }

  /// Frees a context made by `makeContext` (and its current buffer, which libavformat may have
  /// replaced).
  static func freeContext(_ context: inout UnsafeMutablePointer<AVIOContext>?) {
    guard let owned = context else { return }
    withUnsafeMutablePointer(to: &owned.pointee.buffer) { av_freep($0) }
    avio_context_free(&context)
  }
}
