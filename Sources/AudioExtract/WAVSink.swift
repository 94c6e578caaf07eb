import MediaCore
import OutputKit
import AV

/// Where the samples of an extraction or a mix go: the RIFF/RF64 header and data of one output,
/// written on a second thread in buffers of about 128 KiB. Conversions write straight into the
/// buffer the writer thread will take (packed 24-bit goes through a small scratch buffer).
///
/// Every run that does not reach `finish` must call `abandon` (its deinit does) before the output
/// file is closed: no queued write may touch the descriptor afterwards.
final class WAVSink {
  let format: PCMFormat
  private var writer: WriterThread?
  /// The writer thread's buffer being filled; handed over once it holds `chunkBytes`.
  private var pending: ByteBuffer?
  /// s32 samples on their way to packed s24.
  private let packed = ByteBuffer()
  private(set) var samplesWritten: Int64 = 0
  /// Sees every chunk of sample data (in the file's encoding) just before it is queued for
  /// writing: the analysis of what is written.
  var observer: ((UnsafeRawBufferPointer) -> Void)?
  private static let chunkBytes = 128 << 10

  /// A sink writing `format` to `output`; reserves room for RF64 when the data may pass 4 GiB
  /// (twice `expectedSeconds`, as durations can be estimates; always when unknown).
  ///
  /// - Throws: `ExtractError.output`.
  init(format: PCMFormat, output: OutputFile, expectedSeconds: Double?, rf64Limit: UInt64)
    throws(ExtractError)
  {
    self.format = format
    var reserve = output.seekable
    if output.seekable, let expectedSeconds {
      reserve = 2 * expectedSeconds * Double(format.byteRate) + 1024 >= Double(rf64Limit)
    }
    do {
      writer = WriterThread(
        writer: try WAVWriter(
          fd: output.fd, format: format, seekable: output.seekable, reserveRF64: reserve,
          rf64Limit: rf64Limit),
        bufferCapacity: Self.chunkBytes + Self.chunkBytes / 4)
    } catch {
      throw .output(.write(error))
    }
  }

  deinit { abandon() }

  /// Runs a conversion that produces samples in the format's converter format into the pending
  /// buffer (through `packed` for s24), and hands full chunks to the writer.
  ///
  /// - Throws: `ExtractError.conversion` or `.output`.
  func write(_ convert: AudioSource.Conversion) throws(ExtractError) {
    guard let writer else { return }
    let pending = self.pending ?? writer.takeBuffer()
    self.pending = pending
    do {
      if format.encoding == .s24 {
        packed.removeAll()
        try convert(packed)
        // s32 → packed s24: the top three bytes of each little-endian int32 (pcm_s24le's >> 8).
        let samples = packed.count / 4
        let source = packed.base.assumingMemoryBound(to: UInt8.self)
        let target = pending.reserve(samples * 3).assumingMemoryBound(to: UInt8.self)
        for index in 0..<samples {
          target[3 * index] = source[4 * index + 1]
          target[3 * index + 1] = source[4 * index + 2]
          target[3 * index + 2] = source[4 * index + 3]
        }
        pending.commit(samples * 3)
      } else {
        try convert(pending)
      }
    } catch {
      throw .conversion("converting the samples", error)
    }
    if pending.count >= Self.chunkBytes { try flushPending() }
  }

  private func flushPending() throws(ExtractError) {
    guard let pending, let writer else { return }
    self.pending = nil
    guard pending.count > 0 else { return writer.recycle(pending) }
    samplesWritten += Int64(pending.count / format.blockAlign)
    observer?(pending.contents)
    do {
      try writer.submit(pending)
    } catch {
      throw .output(.write(error))
    }
  }

  /// Writes what is pending and finishes the file (pad byte, sizes, RF64).
  ///
  /// - Returns: whether the header became RF64.
  /// - Throws: `ExtractError.output`.
  func finish(rf64Limit: UInt64) throws(ExtractError) -> Bool {
    try flushPending()
    guard let writer else { preconditionFailure("finish() after abandon()") }
    defer { self.writer = nil }
    do {
      return try writer.finish(rf64Limit: rf64Limit).rf64
    } catch {
      throw .output(.write(error))
    }
  }

  /// Hands back the buffer being filled and waits until the writer thread is idle.
  func abandon() {
    guard let writer else { return }
    if let pending {
      self.pending = nil
      writer.recycle(pending)
    }
    writer.abandon()
    self.writer = nil
  }
}
