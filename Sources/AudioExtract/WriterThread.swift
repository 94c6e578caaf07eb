import Dispatch
import Synchronization

/// Writes sample data on its own thread while the caller decodes the next packets. A fixed set of
/// buffers cycles between the two threads (the caller fills one, this thread writes it and hands
/// it back empty), so memory stays the same whatever the input's length: no buffer is allocated
/// or copied per chunk.
final class WriterThread: Sendable {
  private struct State: ~Copyable {
    var writer: WAVWriter
    var error: OutputError?
    /// Written buffers, empty, waiting to be filled again.
    var spare: [ByteBuffer] = []
  }

  /// How many buffers exist at most (being filled, queued or being written).
  private static let depth = 4

  private let queue = DispatchQueue(label: "mediatools.wav-writer")
  private let slots = DispatchSemaphore(value: WriterThread.depth)
  private let state: Mutex<State>
  private let bufferCapacity: Int

  /// A writer thread for `writer`, whose buffers start with room for `bufferCapacity` bytes.
  init(writer: consuming sending WAVWriter, bufferCapacity: Int) {
    state = Mutex(State(writer: writer, error: nil))
    self.bufferCapacity = bufferCapacity
  }

  /// An empty buffer to fill; waits while all of them are queued or being written.
  func takeBuffer() -> ByteBuffer {
    slots.wait()
    return state.withLock { $0.spare.popLast() } ?? ByteBuffer(capacity: bufferCapacity)
  }

  /// Queues a filled buffer (from `takeBuffer`) for writing; the caller must not touch it again.
  ///
  /// - Throws: the first `OutputError` the writer met (a full disk, a closed pipe).
  func submit(_ buffer: ByteBuffer) throws(OutputError) {
    if let error = state.withLock({ $0.error }) {
      recycle(buffer)
      throw error
    }
    queue.async {
      self.state.withLock { state in
        guard state.error == nil else { return }
        do throws(OutputError) { try state.writer.write(buffer.contents) } catch {
          state.error = error
        }
      }
      self.recycle(buffer)
    }
  }

  /// Gives a buffer back, empty, and frees its slot.
  func recycle(_ buffer: ByteBuffer) {
    buffer.removeAll()
    state.withLock { $0.spare.append(buffer) }
    slots.signal()
  }

  /// Waits for the queued buffers, then finishes the file (pad byte, sizes, RF64).
  ///
  /// - Returns: bytes of sample data written, and whether the header became RF64.
  /// - Throws: `OutputError`.
  func finish(rf64Limit: UInt64) throws(OutputError) -> (dataSize: UInt64, rf64: Bool) {
    queue.sync {}
    return try state.withLock { state throws(OutputError) in
      if let error = state.error { throw error }
      let rf64 = state.writer.currentHeader.needsRF64(
        dataSize: state.writer.dataSize, limit: rf64Limit)
      try state.writer.finish()
      return (state.writer.dataSize, rf64)
    }
  }
}
