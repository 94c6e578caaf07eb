import AV
import OutputKit
#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// Writes a WAV file to a file descriptor as samples arrive: the header first, the data as it
/// comes, and at the end (on seekable output) the real sizes, the pad byte, the `fact` count,
/// and `RF64`/`ds64` when the data passed 4 GiB.
///
/// On non-seekable output (a pipe) the sizes stay 0xFFFFFFFF ("until the end of the stream",
/// which readers accept) and there is no `fact` chunk.
public struct WAVWriter: ~Copyable {
  private let fd: Int32
  private let seekable: Bool
  private let rf64Limit: UInt64
  private var header: WAVHeader
  /// Bytes of sample data written so far.
  public private(set) var dataSize: UInt64 = 0

  /// Starts a WAV stream on `fd` (which the caller owns and closes) by writing its header.
  ///
  /// - Parameters:
  ///   - seekable: sizes can be patched at the end (a regular file).
  ///   - reserveRF64: reserve the `JUNK` chunk that becomes `ds64` past 4 GiB. Without it, a file
  ///     that passes 4 GiB is still finished correctly, by moving its data (slow, but rare).
  ///   - rf64Limit: the largest RIFF size a plain header may state (tests lower it).
  /// - Throws: `OutputError`.
  public init(
    fd: Int32, format: PCMFormat, seekable: Bool, reserveRF64: Bool,
    rf64Limit: UInt64 = UInt64(UInt32.max)
  ) throws(OutputError) {
    self.fd = fd
    self.seekable = seekable
    self.rf64Limit = rf64Limit
    self.header = WAVHeader(format: format, reservesRF64: reserveRF64, seekable: seekable)
    try Self.writeAll(fd, header.bytes(dataSize: seekable ? 0 : nil), action: "writing the header")
  }

  /// The header as it stands (its size is where the data starts).
  public var currentHeader: WAVHeader { header }

  /// Appends sample bytes.
  ///
  /// - Throws: `OutputError` (a full disk, a closed pipe).
  public mutating func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) {
    try Self.writeAll(fd, bytes, action: "writing the output")
    dataSize += UInt64(bytes.count)
  }

  /// Appends sample bytes from an array.
  public mutating func write(_ bytes: [UInt8]) throws(OutputError) {
    var failure: OutputError?
    bytes.withUnsafeBytes { raw in
      do throws(OutputError) { try write(raw) } catch { failure = error }
    }
    if let failure { throw failure }
  }

  /// Finishes the file: pad byte for an odd data size, then (seekable output) the real sizes,
  /// upgraded to RF64 when they do not fit in 32 bits.
  ///
  /// - Throws: `OutputError`.
  public mutating func finish() throws(OutputError) {
    if dataSize & 1 == 1 { try Self.writeAll(fd, [0], action: "writing the pad byte") }
    guard seekable else { return }
    let rf64 = header.needsRF64(dataSize: dataSize, limit: rf64Limit)
    if rf64 && !header.reservesRF64 {
      try moveData(by: 36)
      header = WAVHeader(format: header.format, reservesRF64: true, seekable: true)
    }
    try Self.writeAll(
      fd, header.bytes(dataSize: dataSize, rf64: rf64), at: 0, action: "updating the header")
  }

  /// Moves the sample data (and pad byte) `distance` bytes later, from the end backwards, to make
  /// room for the `ds64` chunk in a header written without the reservation.
  private func moveData(by distance: Int) throws(OutputError) {
    let start = UInt64(header.size)
    var end = start + dataSize + (dataSize & 1)
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    while end > start {
      let count = Int(min(UInt64(buffer.count), end - start))
      let from = end - UInt64(count)
      let read = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(from)) }
      guard read == count else {
        throw OutputError(code: read < 0 ? errno : EIO, action: "moving the data for RF64")
      }
      try Self.writeAll(
        fd, Array(buffer.prefix(count)), at: from + UInt64(distance),
        action: "moving the data for RF64")
      end = from
    }
  }

  private static func writeAll(
    _ fd: Int32, _ bytes: [UInt8], at offset: UInt64? = nil, action: String
  ) throws(OutputError) {
    var failure: OutputError?
    bytes.withUnsafeBytes { raw in
      do throws(OutputError) { try writeAll(fd, raw, at: offset, action: action) } catch {
        failure = error
      }
    }
    if let failure { throw failure }
  }

  private static func writeAll(
    _ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: UInt64? = nil, action: String
  ) throws(OutputError) {
    var done = 0
    while done < bytes.count {
      let pointer = bytes.baseAddress! + done
      let written = SystemCall.retryingOnInterrupt {
        if let offset {
          pwrite(fd, pointer, bytes.count - done, off_t(offset) + off_t(done))
        } else {
          Glibc.write(fd, pointer, bytes.count - done)
        }
      }
      if written < 0 { throw OutputError(code: errno, action: action) }
      done += written
    }
  }
}
