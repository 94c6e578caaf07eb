import OutputKit
import CFFmpeg
import CFFmpeg.Resample
import MediaCore

/// A channel layout in FFmpeg's native order, kept as its channel count and mask.
package struct ChannelLayout: Hashable, Sendable {
  package var channels: Int32
  package var mask: UInt64

  /// The layout of decoded audio; an unspecified or custom order becomes the default layout for
  /// that many channels (the ffmpeg CLI's `guess_layout_max`).
  init(_ layout: AVChannelLayout) {
    if layout.order == AV_CHANNEL_ORDER_NATIVE {
      self.init(channels: layout.nb_channels, mask: layout.u.mask)
    } else {
      self.init(defaultFor: layout.nb_channels)
    }
  }

  package init(channels: Int32, mask: UInt64) {
    self.channels = channels
    self.mask = mask
  }

  /// FFmpeg's default layout for `channels` (`av_channel_layout_default`): mono, stereo, 5.1, ...
  package init(defaultFor channels: Int32) {
    var layout = AVChannelLayout()
    av_channel_layout_default(&layout, channels)
    self.init(channels: channels, mask: layout.order == AV_CHANNEL_ORDER_NATIVE ? layout.u.mask : 0)
  }

  /// The layout as FFmpeg's struct (native order; unspecified order when the mask is unknown).
  var ffmpeg: AVChannelLayout {
    var layout = AVChannelLayout()
    if mask == 0 || av_channel_layout_from_mask(&layout, mask) < 0 {
      layout.order = AV_CHANNEL_ORDER_UNSPEC
      layout.nb_channels = channels
    }
    return layout
  }
}

/// The format of decoded frames: what a resampler is built for.
package struct FrameFormat: Equatable {
  var sampleFormat: AVSampleFormat
  package var sampleRate: Int32
  package var layout: ChannelLayout

  init(_ frame: UnsafePointer<AVFrame>) {
    sampleFormat = AVSampleFormat(rawValue: frame.pointee.format)
    sampleRate = frame.pointee.sample_rate
    layout = ChannelLayout(frame.pointee.ch_layout)
  }

  init(sampleFormat: AVSampleFormat, sampleRate: Int32, layout: ChannelLayout) {
    self.sampleFormat = sampleFormat
    self.sampleRate = sampleRate
    self.layout = layout
  }

  package var isPlanar: Bool { av_sample_fmt_is_planar(sampleFormat) != 0 }
  package var bytesPerSample: Int { Int(av_get_bytes_per_sample(sampleFormat)) }
}

extension FrameFormat: CustomStringConvertible {
  /// "42 channels (no layout), fltp, 48000 Hz", "stereo, s16, 44100 Hz".
  package var description: String {
    var layout = self.layout.ffmpeg
    var text = [CChar](repeating: 0, count: 128)
    let known = layout.order == AV_CHANNEL_ORDER_NATIVE
    if known { av_channel_layout_describe(&layout, &text, text.count) }
    let channels =
      known && text[0] != 0
      ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      : "\(self.layout.channels) channels (no layout)"
    let name = av_get_sample_fmt_name(sampleFormat).map { String(cString: $0) } ?? "unknown"
    return "\(channels), \(name), \(sampleRate) Hz"
  }
}

/// An owned libswresample context (`swr_free` on deinit) converting one input format to one
/// interleaved output format, with default options (as the ffmpeg CLI's `aresample`).
///
/// When the input is already the output (interleaved, the same sample format, rate and layout)
/// the samples are copied as they are, with no context: what libswresample does for such a
/// pair, but also past its 64 channels (SWR_CH_MAX), where it refuses even to copy while the
/// ffmpeg CLI, which inserts no conversion there, decodes the stream (a 300-channel WAV).
package final class Resampler {
  private var context: OpaquePointer?
  package let input: FrameFormat
  package let output: FrameFormat
  private var outputPointers: [UnsafeMutablePointer<UInt8>?] = [nil]

  /// - Throws: `FFmpegError` when libswresample rejects the conversion.
  package init(from input: FrameFormat, to output: FrameFormat) throws(FFmpegError) {
    self.input = input
    self.output = output
    if input == output && !input.isPlanar { return }
    var inLayout = input.layout.ffmpeg
    var outLayout = output.layout.ffmpeg
    var swr: OpaquePointer?
    try check(
      swr_alloc_set_opts2(
        &swr, &outLayout, output.sampleFormat, output.sampleRate, &inLayout, input.sampleFormat,
        input.sampleRate, 0, nil))
    context = swr
    try check(swr_init(swr))
  }

  deinit { swr_free(&context) }

  /// Converts `count` input samples starting `offset` samples into `frame`, appending the
  /// interleaved output bytes to `out`.
  ///
  /// - Throws: `FFmpegError`.
  package func convert(
    _ frame: UnsafePointer<AVFrame>, offset: Int, count: Int, into out: ByteBuffer
  )
    throws(FFmpegError)
  {
    let planes = input.isPlanar ? Int(input.layout.channels) : 1
    let step = offset * input.bytesPerSample * (input.isPlanar ? 1 : Int(input.layout.channels))
    var inputs: [UnsafePointer<UInt8>?] = (0..<planes).map { plane in
      UnsafePointer<UInt8>(frame.pointee.extended_data[plane]!.advanced(by: step))
    }
    try inputs.withUnsafeMutableBufferPointer { pointers throws(FFmpegError) in
      try run(pointers.baseAddress, count: count, into: out)
    }
  }

  /// Drains the samples still buffered (resampling delay) at the end of the input.
  package func flush(into out: ByteBuffer) throws(FFmpegError) {
    try run(nil, count: 0, into: out)
  }

  fileprivate func run(
    _ inputs: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int, into out: ByteBuffer
  ) throws(FFmpegError) {
    let frameBytes = output.bytesPerSample * Int(output.layout.channels)
    if context == nil {
      // The same format in and out: a copy (nothing is ever buffered to drain).
      guard let source = inputs?.pointee, count > 0 else { return }
      out.reserve(count * frameBytes).copyMemory(from: source, byteCount: count * frameBytes)
      out.commit(count * frameBytes)
      return
    }
    while true {
      let capacity = Int(swr_get_out_samples(context, Int32(count))) + 32
      var target: UnsafeMutablePointer<UInt8>? = out.reserve(capacity * frameBytes)
        .assumingMemoryBound(to: UInt8.self)
      let produced = swr_convert(context, &target, Int32(capacity), inputs, Int32(count))
      guard produced >= 0 else { throw FFmpegError(code: produced) }
      out.commit(Int(produced) * frameBytes)
      // With input, one call converts everything; when draining, repeat until nothing is left.
      if inputs != nil || produced == 0 { return }
    }
  }
}

extension Resampler {
  /// Converts `count` interleaved samples (in this resampler's input format) at `samples`.
  package func convert(interleaved samples: UnsafeRawPointer, count: Int, into out: ByteBuffer)
    throws(FFmpegError)
  {
    var inputs: [UnsafePointer<UInt8>?] = [samples.assumingMemoryBound(to: UInt8.self)]
    try inputs.withUnsafeMutableBufferPointer { pointers throws(FFmpegError) in
      try run(pointers.baseAddress, count: count, into: out)
    }
  }
}

extension Resampler {
  /// The converter from interleaved float at `format`'s rate and layout to its encoding: the
  /// last step of a stage that works in float (the effects, the mixer).
  ///
  /// - Parameter stage: what comes before, for the error message ("after the effects").
  /// - Throws: `ExtractError.conversion` when libswresample cannot build it.
  package static func fromFloat(to format: PCMFormat, after stage: String) throws(ExtractError)
    -> Resampler
  {
    let layout = ChannelLayout(channels: Int32(format.channels), mask: format.channelMask)
    let rate = Int32(format.sampleRate)
    let from = FrameFormat(sampleFormat: AV_SAMPLE_FMT_FLT, sampleRate: rate, layout: layout)
    let to = FrameFormat(
      sampleFormat: format.encoding.converterFormat, sampleRate: rate, layout: layout)
    do {
      return try Resampler(from: from, to: to)
    } catch {
      throw .conversion("\(from.description) to \(to.description) \(stage)", error)
    }
  }
}
