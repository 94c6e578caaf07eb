import CFFmpeg
import MediaCore

/// A frame's properties and data as Swift values: what decoders, graphs and scalers fill in, and
/// what encoders and graphs read.
extension Frame {
  /// A picture with its own (uninitialized) buffers.
  ///
  /// - Throws: `FFmpegError` when the size or format is invalid or memory runs out.
  package static func video(
    width: Int, height: Int, pixelFormat: PixelFormat, color: ColorTags = .unspecified
  ) throws(FFmpegError) -> Frame {
    let frame = Frame()
    frame.pointer.pointee.width = Int32(width)
    frame.pointer.pointee.height = Int32(height)
    frame.pointer.pointee.format = pixelFormat.rawValue
    frame.color = color
    try check(av_frame_get_buffer(frame.pointer, 0))
    return frame
  }

  /// A run of `sampleCount` audio samples with its own (uninitialized) buffers.
  ///
  /// - Throws: `FFmpegError` when the format or layout is invalid or memory runs out.
  package static func audio(
    sampleCount: Int, format: SampleFormat, layout: ChannelLayout, sampleRate: Int
  ) throws(FFmpegError) -> Frame {
    let frame = Frame()
    try frame.allocateAudio(
      sampleCount: sampleCount, format: format, layout: layout, sampleRate: sampleRate)
    return frame
  }

  /// Drops what the frame held and gives it new audio buffers.
  func allocateAudio(
    sampleCount: Int, format: SampleFormat, layout: ChannelLayout, sampleRate: Int
  ) throws(FFmpegError) {
    av_frame_unref(pointer)
    pointer.pointee.nb_samples = Int32(sampleCount)
    pointer.pointee.format = format.rawValue
    pointer.pointee.sample_rate = Int32(sampleRate)
    var channels = layout.ffmpeg
    defer { av_channel_layout_uninit(&channels) }
    try check(av_channel_layout_copy(&pointer.pointee.ch_layout, &channels))
    try check(av_frame_get_buffer(pointer, 0))
  }

  /// Makes this frame hold a new reference to `other`'s buffers and properties.
  ///
  /// - Throws: `FFmpegError` when memory runs out.
  package func reference(_ other: Frame) throws(FFmpegError) {
    av_frame_unref(pointer)
    try check(av_frame_ref(pointer, other.pointer))
  }

  /// Makes the buffers writable (copies them if another reference shares them).
  ///
  /// - Throws: `FFmpegError` when memory runs out.
  package func makeWritable() throws(FFmpegError) { try check(av_frame_make_writable(pointer)) }

  /// The frame holds data (a decoder, graph or scaler filled it).
  package var hasData: Bool { pointer.pointee.buf.0 != nil || pointer.pointee.data.0 != nil }

  /// Presentation time in the time base of whoever made or takes the frame; nil when unknown.
  package var pts: Int64? {
    get { pointer.pointee.pts == mt_nopts_value ? nil : pointer.pointee.pts }
    set { pointer.pointee.pts = newValue ?? mt_nopts_value }
  }

  /// The decoder's best guess of the presentation time (`best_effort_timestamp`, what the ffmpeg
  /// CLI uses), in the decoder's time base; nil when unknown.
  package var bestEffortTimestamp: Int64? {
    let value = pointer.pointee.best_effort_timestamp
    return value == mt_nopts_value ? nil : value
  }

  /// The value of a frame metadata entry filters set (`lavfi.ssim.All`, `lavfi.psnr.psnr_avg`);
  /// nil when absent.
  package func metadata(_ key: String) -> String? {
    metadataValue(pointer.pointee.metadata, key)
  }

  /// The decoder made the picture a keyframe (`key_frame`).
  package var isKeyFrame: Bool { pointer.pointee.key_frame != 0 }

  /// Duration in the same time base as `pts` (0 when unknown).
  package var duration: Int64 {
    get { pointer.pointee.pkt_duration }
    set { pointer.pointee.pkt_duration = newValue }
  }

  /// Converts `pts` and `duration` from one time base to another (rounding to the nearest).
  package func rescaleTimestamps(from source: Rational, to destination: Rational) {
    guard source != destination else { return }
    if pointer.pointee.pts != mt_nopts_value {
      pointer.pointee.pts = av_rescale_q(pointer.pointee.pts, source.av, destination.av)
    }
    pointer.pointee.pkt_duration = av_rescale_q(
      pointer.pointee.pkt_duration, source.av, destination.av)
  }

  /// Picture width in pixels.
  package var width: Int { Int(pointer.pointee.width) }
  /// Picture height in pixels.
  package var height: Int { Int(pointer.pointee.height) }
  /// The picture's pixel format (nil for audio or an empty frame).
  package var pixelFormat: PixelFormat? {
    pointer.pointee.width > 0 && pointer.pointee.format >= 0
      ? PixelFormat(AVPixelFormat(rawValue: pointer.pointee.format)) : nil
  }
  /// The pixel aspect ratio (nil when unknown).
  package var sampleAspectRatio: Rational? {
    get { Rational.nonZero(pointer.pointee.sample_aspect_ratio) }
    set { pointer.pointee.sample_aspect_ratio = newValue?.av ?? AVRational(num: 0, den: 1) }
  }
  /// How the picture's colours are to be read.
  package var color: ColorTags {
    get {
      ColorTags(
        matrix: ColorMatrix(pointer.pointee.colorspace),
        range: ColorRange(pointer.pointee.color_range),
        primaries: ColorPrimaries(pointer.pointee.color_primaries),
        transfer: ColorTransfer(pointer.pointee.color_trc))
    }
    set {
      pointer.pointee.colorspace = newValue.matrix.av
      pointer.pointee.color_range = newValue.range.av
      pointer.pointee.color_primaries = newValue.primaries.av
      pointer.pointee.color_trc = newValue.transfer.av
    }
  }

  /// Audio samples per channel.
  package var sampleCount: Int { Int(pointer.pointee.nb_samples) }
  /// Audio sample rate.
  package var sampleRate: Int { Int(pointer.pointee.sample_rate) }
  /// The audio sample format (nil for video or an empty frame).
  package var sampleFormat: SampleFormat? {
    pointer.pointee.nb_samples > 0 && pointer.pointee.format >= 0
      ? SampleFormat(AVSampleFormat(rawValue: pointer.pointee.format)) : nil
  }
  /// The audio channel layout.
  package var channelLayout: ChannelLayout { ChannelLayout(pointer.pointee.ch_layout) }

  /// Bytes from one row's start to the next in `plane` (may exceed the visible width).
  package func lineSize(plane: Int = 0) -> Int {
    withUnsafeBytes(of: pointer.pointee.linesize) {
      Int($0.load(fromByteOffset: plane * MemoryLayout<Int32>.size, as: Int32.self))
    }
  }

  /// Calls `body` with row `row` of `plane` (`lineSize(plane:)` bytes; only the visible width's
  /// bytes are meaningful).
  package func withRow<R>(
    _ row: Int, plane: Int = 0, _ body: (UnsafeMutableRawBufferPointer) throws -> R
  ) rethrows -> R {
    precondition(plane < 8 && row >= 0, "no such plane or row")
    let base = pointer.pointee.extended_data[plane]!
    let stride = lineSize(plane: plane)
    return try body(UnsafeMutableRawBufferPointer(start: base + row * stride, count: stride))
  }

  /// Calls `body` with the samples of `channel` (planar formats) or of all channels interleaved
  /// (`channel` 0 of an interleaved format): `sampleCount` samples' bytes.
  package func withSamples<R>(
    channel: Int = 0, _ body: (UnsafeMutableRawBufferPointer) throws -> R
  ) rethrows -> R {
    let format = AVSampleFormat(rawValue: pointer.pointee.format)
    let planar = av_sample_fmt_is_planar(format) != 0
    let channels = Int(pointer.pointee.ch_layout.nb_channels)
    precondition(channel >= 0 && channel < (planar ? channels : 1), "no such channel")
    let bytes =
      Int(av_get_bytes_per_sample(format)) * sampleCount * (planar ? 1 : channels)
    let base = pointer.pointee.extended_data[channel]!
    return try body(UnsafeMutableRawBufferPointer(start: base, count: bytes))
  }
}
