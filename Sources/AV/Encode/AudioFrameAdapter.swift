import CFFmpeg
import MediaCore

/// Regroups audio frames of any size into frames of exactly `frameSize` samples (the last one
/// shorter), what an encoder without variable frame sizes needs (`CodecEncoder.frameSize`: 1024 for
/// `aac`), through libavutil's `AVAudioFifo`, freed with `av_audio_fifo_free`.
///
/// Timestamps stay sample-exact: the first frame's `pts` (converted to 1/`sampleRate`) starts
/// the count, and each frame out is stamped with it plus the samples before it. The input is
/// taken as continuous (as a filter graph delivers it); `largestGap` reports how far an input
/// frame's own timestamp strayed from that count.
package final class AudioFrameAdapter {
  private let fifo: OpaquePointer
  /// Samples per frame out.
  package let frameSize: Int
  /// The format in and out.
  package let parameters: AudioParameters
  /// The timestamp (in samples) of the first sample pushed.
  private var origin: Int64?
  private var samplesIn: Int64 = 0
  private var samplesOut: Int64 = 0
  /// The largest difference, in samples, between an input frame's timestamp and the sample
  /// count (0 for continuous input).
  package private(set) var largestGap: Int64 = 0

  /// An adapter for frames described by `parameters` (their time base is ignored: output
  /// timestamps are in 1/`sampleRate`).
  ///
  /// - Throws: `FFmpegError` (`ENOMEM`).
  package init(frameSize: Int, parameters: AudioParameters) throws(FFmpegError) {
    guard
      let fifo = av_audio_fifo_alloc(
        parameters.sampleFormat.av, Int32(parameters.channelLayout.channelCount),
        Int32(frameSize))
    else { throw .posix(ENOMEM) }
    self.fifo = fifo
    self.frameSize = frameSize
    self.parameters = parameters
  }

  deinit { av_audio_fifo_free(fifo) }

  /// The time base of the frames out: 1/`sampleRate`.
  package var timeBase: Rational { Rational.timeBase(parameters.sampleRate) }

  /// Samples waiting for a full frame.
  package var bufferedSamples: Int { Int(av_audio_fifo_size(fifo)) }

  /// Adds `frame`'s samples; its `pts` is in `timeBase`.
  ///
  /// - Throws: `FFmpegError` when the frame's format differs from `parameters` or memory runs
  ///   out.
  package func push(_ frame: Frame, timeBase: Rational) throws(FFmpegError) {
    guard frame.sampleFormat == parameters.sampleFormat,
      frame.channelLayout.channels == parameters.channelLayout.channels
    else {
      throw FFmpegError(
        code: mt_averror(EINVAL), message: "the frame's format differs from the adapter's")
    }
    if let pts = frame.pts {
      let samples = av_rescale_q(pts, timeBase.av, self.timeBase.av)
      if origin == nil { origin = samples - samplesIn }
      if let origin { largestGap = max(largestGap, abs(samples - (origin + samplesIn))) }
    }
    let written = frame.pointer.pointee.extended_data.withMemoryRebound(
      to: UnsafeMutableRawPointer?.self, capacity: parameters.channelLayout.channelCount
    ) { av_audio_fifo_write(fifo, $0, Int32(frame.sampleCount)) }
    try check(written)
    samplesIn += Int64(frame.sampleCount)
  }

  /// Takes the next frame of `frameSize` samples into `frame`; at the end (`flush`) also the
  /// shorter rest.
  ///
  /// - Returns: false when not enough samples are waiting.
  /// - Throws: `FFmpegError` when memory runs out.
  package func pull(into frame: Frame, flush: Bool = false) throws(FFmpegError) -> Bool {
    let available = bufferedSamples
    guard available >= frameSize || (flush && available > 0) else { return false }
    let count = min(available, frameSize)
    try frame.allocateAudio(
      sampleCount: count, format: parameters.sampleFormat, layout: parameters.channelLayout,
      sampleRate: parameters.sampleRate)
    let read = frame.pointer.pointee.extended_data.withMemoryRebound(
      to: UnsafeMutableRawPointer?.self, capacity: parameters.channelLayout.channelCount
    ) { av_audio_fifo_read(fifo, $0, Int32(count)) }
    try check(read)
    frame.pts = (origin ?? 0) + samplesOut
    frame.duration = Int64(count)
    samplesOut += Int64(count)
    return true
  }
}
