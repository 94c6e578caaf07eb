import Dispatch
import Synchronization

/// Runs an `AudioAnalyzer` on its own thread, so measuring overlaps decoding and writing. The
/// caller's bytes are copied into one of a few recycled buffers (the caller waits while all of
/// them are queued), so memory stays the same whatever the input's length.
final class AnalysisThread: Sendable {
  private static let depth = 4
  private let queue = DispatchQueue(label: "mediatools.analysis")
  /// Free buffer slots (created at 0 and raised, as in `WriterThread`: a semaphore disposed below
  /// its initial value traps).
  private let slots: DispatchSemaphore = {
    let semaphore = DispatchSemaphore(value: 0)
    for _ in 0..<AnalysisThread.depth { semaphore.signal() }
    return semaphore
  }()
  private let spare = Mutex<[ByteBuffer]>([])
  private let analyzer: Mutex<AudioAnalyzer>
  private let stopped = Atomic<Bool>(false)

  /// A thread measuring with `analyzer`.
  init(analyzer: consuming sending AudioAnalyzer) {
    self.analyzer = Mutex(analyzer)
  }

  deinit { abandon() }

  /// Queues a copy of `bytes` (whole frames in the analyzer's encoding) for measuring.
  func submit(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count > 0, !stopped.load(ordering: .relaxed) else { return }
    slots.wait()
    let buffer = spare.withLock { $0.popLast() } ?? ByteBuffer(capacity: max(bytes.count, 64 << 10))
    buffer.append(bytes)
    queue.async {
      if !self.stopped.load(ordering: .acquiring) {
        self.analyzer.withLock { $0.process(buffer.contents) }
      }
      buffer.removeAll()
      self.spare.withLock { $0.append(buffer) }
      self.slots.signal()
    }
  }

  /// Waits for the queued buffers and returns the measurements.
  func finish() -> AudioAnalysis {
    queue.sync {}
    return analyzer.withLock { $0.finish() }
  }

  /// Frames libebur128's true-peak interpolator saw, of all frames (for the benchmark).
  var truePeakWork: (evaluated: Int, screened: Int) {
    queue.sync {}
    return analyzer.withLock { $0.truePeakWork }
  }

  /// Drops what is queued and returns once the thread is idle.
  func abandon() {
    stopped.store(true, ordering: .releasing)
    queue.sync {}
  }
}

extension AnalysisThread {
  /// A thread measuring samples written in `format` (what an extraction's sink writes).
  convenience init(written format: PCMFormat, options: AnalysisOptions) {
    self.init(
      analyzer: AudioAnalyzer(
        encoding: format.encoding, channels: format.channels, sampleRate: format.sampleRate,
        channelMask: format.channelMask, options: options, measured: "written"))
  }
}
