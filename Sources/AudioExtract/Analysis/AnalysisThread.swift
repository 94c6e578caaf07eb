import AV
import OutputKit
import Dispatch
import Synchronization

/// Runs the analysis beside the decoding, on two threads of its own: libebur128's loudness
/// measurement on one, the `AudioAnalyzer` (true peak, levels, clipping, silence) on the other,
/// each about as costly (measured: 9 and 8 ns per sample), so measuring overlaps decoding and
/// writing. The caller's bytes are copied once into one of a few recycled buffers that both
/// threads read (the caller waits while all of them are queued), so memory stays the same
/// whatever the input's length.
///
/// Nothing of a measurement outlives `finish` or `abandon`: a buffer goes back to the spares on
/// the analysis queue that reads it last (not in a block queued elsewhere), so once both queues
/// are drained no block holds the meters, the analyzer or the buffers. (A recycling block on a
/// global queue kept them alive until a busy thread pool got to it: over 10,000 inputs, up to
/// eight inputs' libebur128 states at once, 71 MB of live heap instead of 23.)
final class AnalysisThread: Sendable {
  private static let depth = 4
  private let queue = DispatchQueue(label: "mediatools.analysis")
  private let loudnessQueue = DispatchQueue(label: "mediatools.analysis.loudness")
  /// What the blocks on the two queues use: never `self`, so the last reference to an
  /// `AnalysisThread` (whose `deinit` waits for both queues) is never dropped on one of them.
  private let work: Work
  private let encoding: PCMEncoding

  /// The state both queues share.
  private final class Work: Sendable {
    /// Free buffer slots (created at 0 and raised, as in `WriterThread`: a semaphore disposed
    /// below its initial value traps).
    let slots: DispatchSemaphore = {
      let semaphore = DispatchSemaphore(value: 0)
      for _ in 0..<AnalysisThread.depth { semaphore.signal() }
      return semaphore
    }()
    let spare = Mutex<[ByteBuffer]>([])
    let analyzer: Mutex<AudioAnalyzer>
    let meter: Mutex<LoudnessMeter?>
    let stopped = Atomic<Bool>(false)

    init(analyzer: consuming sending AudioAnalyzer, meter: consuming sending LoudnessMeter?) {
      self.analyzer = Mutex(analyzer)
      self.meter = Mutex(meter)
    }

    /// One reader is done with `lease`'s buffer; the second one gives it back.
    func release(_ lease: Lease) {
      guard lease.readers.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else {
        return
      }
      lease.buffer.removeAll()
      spare.withLock { $0.append(lease.buffer) }
      slots.signal()
    }
  }

  /// A queued buffer and how many of the two queues still have to read it.
  private final class Lease: Sendable {
    let buffer: ByteBuffer
    let readers = Atomic<Int>(2)
    init(_ buffer: ByteBuffer) { self.buffer = buffer }
  }

  /// Threads measuring `format` (whose `encoding` is the bytes' layout).
  init(format: PCMFormat, options: AnalysisOptions, measured: String) {
    encoding = format.encoding
    work = Work(
      analyzer: AudioAnalyzer(
        encoding: format.encoding, channels: format.channels, sampleRate: format.sampleRate,
        channelMask: format.channelMask, options: options, measured: measured,
        feedsLoudness: false),
      meter: LoudnessMeter(
        channels: format.channels, sampleRate: format.sampleRate, channelMask: format.channelMask))
  }

  deinit { abandon() }

  /// Queues a copy of `bytes` (whole frames in the analyzer's encoding) for measuring.
  func submit(_ bytes: UnsafeRawBufferPointer) {
    let work = self.work
    guard bytes.count > 0, !work.stopped.load(ordering: .relaxed) else { return }
    work.slots.wait()
    let buffer =
      work.spare.withLock { $0.popLast() } ?? ByteBuffer(capacity: max(bytes.count, 64 << 10))
    buffer.append(bytes)
    let lease = Lease(buffer)
    queue.async {
      if !work.stopped.load(ordering: .acquiring) {
        work.analyzer.withLock { $0.process(buffer.contents) }
      }
      work.release(lease)
    }
    let encoding = self.encoding
    loudnessQueue.async {
      if !work.stopped.load(ordering: .acquiring) {
        work.meter.withLock { $0?.add(buffer.contents, encoding: encoding) }
      }
      work.release(lease)
    }
  }

  /// Waits for the queued buffers and returns the measurements.
  func finish() -> AudioAnalysis {
    queue.sync {}
    loudnessQueue.sync {}
    let loudness = work.meter.withLock { $0?.result }
    return work.analyzer.withLock { $0.finish(loudness: loudness) }
  }

  /// Frames libebur128's true-peak interpolator saw, of all frames (for the benchmark).
  var truePeakWork: (evaluated: Int, screened: Int) {
    queue.sync {}
    return work.analyzer.withLock { $0.truePeakWork }
  }

  /// Drops what is queued and returns once the thread is idle.
  func abandon() {
    work.stopped.store(true, ordering: .releasing)
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
