import AV
import OutputKit
import Dispatch
import Synchronization

/// Writes sample data on its own thread while the caller decodes the next packets. A fixed set of
/// buffers cycles between the two threads (the caller fills one, this thread writes it and hands
/// it back empty), so memory stays the same whatever the input's length: no buffer is allocated
/// or copied per chunk.
///
/// The `write(2)` calls happen outside the locks the decoding thread takes: it only ever waits
/// for a free buffer, never for a write in progress.
///
/// Every run that does not reach `finish` must call `abandon` before the file descriptor is
/// closed: it waits until no queued write can touch the descriptor any more.
final class WriterThread: Sendable {
  /// How many buffers exist at most (being filled, queued or being written).
  private static let depth = 4

  private let queue = DispatchQueue(label: "mediatools.wav-writer")
  /// Free buffer slots. libdispatch traps (SIGILL) when a semaphore is disposed while its value is
  /// below the value it was *created* with, which is what a run that stops with a buffer still
  /// taken (a conversion error, an interruption) used to do. Created at 0 and raised to `depth`,
  /// it can be disposed with any number of buffers out.
  private let slots: DispatchSemaphore = {
    let semaphore = DispatchSemaphore(value: 0)
    for _ in 0..<WriterThread.depth { semaphore.signal() }
    return semaphore
  }()
  /// The WAV writer: used on `queue` only, and by `finish` once the queue is empty.
  private let writer: Mutex<WAVWriter>
  /// The first write error; later buffers are not written.
  private let failure = Mutex<OutputError?>(nil)
  /// Set by `abandon`: queued buffers are dropped unwritten.
  private let stopped = Atomic<Bool>(false)
  /// Written buffers, empty, waiting to be filled again.
  private let spare = Mutex<[ByteBuffer]>([])
  private let bufferCapacity: Int

  /// A writer thread for `writer`, whose buffers start with room for `bufferCapacity` bytes.
  init(writer: consuming sending WAVWriter, bufferCapacity: Int) {
    self.writer = Mutex(writer)
    self.bufferCapacity = bufferCapacity
  }

  /// An empty buffer to fill; waits while all of them are queued or being written.
  func takeBuffer() -> ByteBuffer {
    slots.wait()
    return spare.withLock { $0.popLast() } ?? ByteBuffer(capacity: bufferCapacity)
  }

  /// Queues a filled buffer (from `takeBuffer`) for writing; the caller must not touch it again.
  ///
  /// - Throws: the first `OutputError` the writer met (a full disk, a closed pipe).
  func submit(_ buffer: ByteBuffer) throws(OutputError) {
    if let error = failure.withLock({ $0 }) {
      recycle(buffer)
      throw error
    }
    queue.async {
      if !self.stopped.load(ordering: .acquiring), self.failure.withLock({ $0 }) == nil {
        do throws(OutputError) {
          try self.writer.withLock { writer throws(OutputError) in
            try writer.write(buffer.contents)
          }
        } catch {
          self.failure.withLock { $0 = $0 ?? error }
        }
      }
      self.recycle(buffer)
    }
  }

  /// Gives a buffer back, empty, and frees its slot.
  func recycle(_ buffer: ByteBuffer) {
    buffer.removeAll()
    spare.withLock { $0.append(buffer) }
    slots.signal()
  }

  /// Stops without finishing the file: drops the buffers still queued and returns once no write
  /// is running, so the caller may close the file descriptor.
  func abandon() {
    stopped.store(true, ordering: .releasing)
    queue.sync {}
  }

  /// Waits for the queued buffers, then finishes the file (pad byte, sizes, RF64).
  ///
  /// - Returns: bytes of sample data written, and whether the header became RF64.
  /// - Throws: `OutputError`.
  func finish(rf64Limit: UInt64) throws(OutputError) -> (dataSize: UInt64, rf64: Bool) {
    queue.sync {}
    if let error = failure.withLock({ $0 }) { throw error }
    return try writer.withLock { writer throws(OutputError) in
      let rf64 = writer.currentHeader.needsRF64(dataSize: writer.dataSize, limit: rf64Limit)
      try writer.finish()
      return (writer.dataSize, rf64)
    }
  }
}
