import Dispatch
import OutputKit
import Synchronization

/// Bins a waveform on a thread of its own while the caller decodes: the one-pass decode (AAC
/// with noise bands, any stream that is not cut into chunks) hands each batch of converted
/// 16-bit samples here and goes on decoding, so the bins (and a picture's columns) cost the
/// decode no time when a second core is free.
///
/// A fixed set of buffers cycles between the two threads (the decoder fills one, this thread
/// bins it and gives it back empty), as `WriterThread` does for media2wav: memory stays the same
/// whatever the input's length. A run that does not reach `finish` calls `abandon`. The batches are binned in the order they were submitted (one
/// serial queue), so the bins are those of one `Builder` fed the samples in order.
package final class WaveformThread: Sendable {
  /// How many buffers exist at most (being filled, queued or being binned).
  static let depth = 4
  /// A buffer is handed over once it holds this many bytes (64 Ki stereo frames: about 1.4 s
  /// of 48 kHz audio, so a 30-minute decode hands over about 1,300 batches, not 84,000 frames).
  package static let batchBytes = 256 << 10

  private let queue = DispatchQueue(label: "mediatools.waveform.bins")
  /// Free buffer slots (created at 0 and raised, as in `WriterThread`: a semaphore disposed
  /// below its initial value traps).
  private let slots: DispatchSemaphore = {
    let semaphore = DispatchSemaphore(value: 0)
    for _ in 0..<WaveformThread.depth { semaphore.signal() }
    return semaphore
  }()
  /// The builder: used on `queue` only, and by `finish` once the queue is empty.
  private let builder: Mutex<Waveform.Builder?>
  /// Binned buffers, empty, waiting to be filled again.
  private let spare = Mutex<[ByteBuffer]>([])
  /// Set by `abandon`: queued buffers are dropped unbinned.
  private let stopped = Atomic<Bool>(false)

  /// A thread binning into `builder`.
  init(_ builder: consuming sending Waveform.Builder) {
    self.builder = Mutex(builder)
  }

  /// An empty buffer to fill; waits while all of them are queued or being binned.
  func takeBuffer() -> ByteBuffer {
    slots.wait()
    return spare.withLock { $0.popLast() } ?? ByteBuffer(capacity: Self.batchBytes + (32 << 10))
  }

  /// Queues a filled buffer (interleaved 16-bit samples, whole frames, from `takeBuffer`) for
  /// binning; the caller must not touch it again.
  func submit(_ buffer: ByteBuffer) {
    queue.async {
      if !self.stopped.load(ordering: .acquiring) {
        self.builder.withLock { builder in
          buffer.contents.withMemoryRebound(to: Int16.self) { builder?.add($0) }
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

  /// Waits for the queued buffers and returns the builder that binned them, taken out (so that
  /// its bins are not copied when the caller adds to them); call once.
  func finish() -> Waveform.Builder {
    queue.sync {}
    return builder.withLock { held in
      defer { held = nil }
      return held!
    }
  }

  /// Drops what is queued and returns once the thread is idle.
  func abandon() {
    stopped.store(true, ordering: .releasing)
    queue.sync {}
  }
}
