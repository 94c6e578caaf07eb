#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// A growable byte buffer that C code (libswresample) writes into directly, without zero-filling
/// or copying through Swift arrays: the hot path of an extraction moves gigabytes through it.
///
/// Unchecked `Sendable`: a buffer has one owner at a time. The decoding thread fills it, hands
/// it to `WriterThread`, and touches it again only after the writer gave it back.
package final class ByteBuffer: @unchecked Sendable {
  package private(set) var base: UnsafeMutableRawPointer
  package private(set) var count = 0
  private var capacity: Int

  package init(capacity: Int = 64 << 10) {
    self.capacity = max(capacity, 64)
    base = malloc(self.capacity)!
  }

  deinit { free(base) }

  /// Room for `extra` more bytes at the end; write there, then `commit` what was written.
  package func reserve(_ extra: Int) -> UnsafeMutableRawPointer {
    if count + extra > capacity {
      while count + extra > capacity { capacity *= 2 }
      base = realloc(base, capacity)!
    }
    return base + count
  }

  /// Counts `written` bytes written after `reserve`.
  package func commit(_ written: Int) { count += written }

  /// Appends bytes.
  package func append(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count > 0 else { return }
    reserve(bytes.count).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
    count += bytes.count
  }

  /// The bytes, for reading.
  package var contents: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

  /// Forgets the bytes, keeping the storage.
  package func removeAll() { count = 0 }
}
