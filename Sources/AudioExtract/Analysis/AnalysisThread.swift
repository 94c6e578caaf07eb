import Dispatch
import Synchronization

/// Runs the analysis beside the decoding, on two threads of its own: libebur128's loudness
/// measurement on one, the `AudioAnalyzer` (true peak, levels, clipping, silence) on the other,
/// each about as costly (measured: 9 and 8 ns per sample), so measuring overlaps decoding and
/// writing. The caller's bytes are copied once into one of a few recycled buffers that both
/// threads read (the caller waits while all of them are queued), so memory stays the same
/// whatever the input's length.
final class AnalysisThread: Sendable {
  private static let depth = 4
  private let queue = DispatchQueue(label: "mediatools.analysis")
  private let loudnessQueue = DispatchQueue(label: "mediatools.analysis.loudness")
  /// Free buffer slots (created at 0 and raised, as in `WriterThread`: a semaphore disposed below
  /// its initial value traps).
  private let slots: DispatchSemaphore = {
    let semaphore = DispatchSemaphore(value: 0)
    for _ in 0..<AnalysisThread.depth { semaphore.signal() }
    return semaphore
  }()
  private let spare = Mutex<[ByteBuffer]>([])
  private let analyzer: Mutex<AudioAnalyzer>
  private let meter: Mutex<LoudnessMeter?>
  private let encoding: PCMEncoding
  private let stopped = Atomic<Bool>(false)

  /// Threads measuring `format` (whose `encoding` is the bytes' layout).
  init(format: PCMFormat, options: AnalysisOptions, measured: String) {
    encoding = format.encoding
    analyzer = Mutex(
      AudioAnalyzer(
        encoding: format.encoding, channels: format.channels, sampleRate: format.sampleRate,
        channelMask: format.channelMask, options: options, measured: measured,
        feedsLoudness: false))
    meter = Mutex(
      LoudnessMeter(
        channels: format.channels, sampleRate: format.sampleRate, channelMask: format.channelMask))
  }

  deinit { abandon() }

  /// Queues a copy of `bytes` (whole frames in the analyzer's encoding) for measuring.
  func submit(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count > 0, !stopped.load(ordering: .relaxed) else { return }
    slots.wait()
    let buffer = spare.withLock { $0.popLast() } ?? ByteBuffer(capacity: max(bytes.count, 64 << 10))
    buffer.append(bytes)
    let both = DispatchGroup()
    queue.async(group: both) {
      if !self.stopped.load(ordering: .acquiring) {
        self.analyzer.withLock { $0.process(buffer.contents) }
      }
    }
    let encoding = self.encoding
    loudnessQueue.async(group: both) {
      if !self.stopped.load(ordering: .acquiring) {
        self.meter.withLock { $0?.add(buffer.contents, encoding: encoding) }
      }
    }
    // Not on either analysis queue: this block may hold the last reference, and `deinit` waits
    // for both queues (a sync onto the queue running it traps).
    both.notify(queue: .global()) {
      buffer.removeAll()
      self.spare.withLock { $0.append(buffer) }
      self.slots.signal()
    }
  }

  /// Waits for the queued buffers and returns the measurements.
  func finish() -> AudioAnalysis {
    queue.sync {}
    loudnessQueue.sync {}
    let loudness = meter.withLock { $0?.result }
    return analyzer.withLock { $0.finish(loudness: loudness) }
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
    loudnessQueue.sync {}
  }
}

extension AnalysisThread {
  /// A thread measuring samples written in `format` (what an extraction's sink writes).
  convenience init(written format: PCMFormat, options: AnalysisOptions) {
    self.init(format: format, options: options, measured: "written")
  }
}
