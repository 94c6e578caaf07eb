import Dispatch
import Synchronization

/// Writes sample data on its own thread while the caller decodes the next packets, with a bounded
/// number of buffers in flight (memory stays constant whatever the input's length).
final class WriterThread: Sendable {
  private struct State: ~Copyable {
    var writer: WAVWriter
    var error: OutputError?
  }

  private let queue = DispatchQueue(label: "mediatools.wav-writer")
  private let slots = DispatchSemaphore(value: 8)
  private let state: Mutex<State>

  init(writer: consuming sending WAVWriter) {
    state = Mutex(State(writer: writer, error: nil))
  }

  /// The size of the header the writer wrote.
  var headerSize: Int { state.withLock { $0.writer.currentHeader.size } }

  /// Queues `bytes` for writing; waits while 8 buffers are already queued.
  ///
  /// - Throws: the first `OutputError` the writer met (a full disk, a closed pipe).
  func submit(_ bytes: [UInt8]) throws(OutputError) {
    if let error = state.withLock({ $0.error }) { throw error }
    slots.wait()
    queue.async {
      self.state.withLock { state in
        guard state.error == nil else { return }
        do throws(OutputError) { try state.writer.write(bytes) } catch { state.error = error }
      }
      self.slots.signal()
    }
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
