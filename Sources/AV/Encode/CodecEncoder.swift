import CFFmpeg
import MediaCore

/// An opened encoder (`AVCodecContext`), freed with `avcodec_free_context`: frames in, packets
/// out, both in the encoder's time base.
package final class CodecEncoder {
  let pointer: UnsafeMutablePointer<AVCodecContext>
  /// Video or audio.
  package let kind: StreamType
  /// The encoder's name (`libx264`, `aac`).
  package let name: String

  /// Opens a video encoder.
  ///
  /// - Parameter globalHeader: put the codec's configuration (SPS/PPS) in the stream's extradata
  ///   rather than in the bitstream: what MP4 and Matroska need (`Muxer.needsGlobalHeader`).
  /// - Throws: `FFmpegError`: `AVERROR_ENCODER_NOT_FOUND` for an unknown encoder,
  ///   `AVERROR_OPTION_NOT_FOUND` for a setting the encoder does not take (a preset on an
  ///   encoder without presets), or what `avcodec_open2` returns for invalid values.
  package init(video settings: EncoderSettings.Video, globalHeader: Bool) throws(FFmpegError) {
    kind = .video
    name = settings.encoder
    pointer = try Self.open(encoder: settings.encoder, kind: .video, globalHeader: globalHeader) {
      (context, options) throws(FFmpegError) in
      context.pointee.width = Int32(settings.width)
      context.pointee.height = Int32(settings.height)
      context.pointee.pix_fmt = settings.pixelFormat.av
      context.pointee.framerate = settings.frameRate.av
      context.pointee.time_base = (settings.timeBase ?? settings.frameRate.inverse).av
      context.pointee.sample_aspect_ratio = settings.sampleAspectRatio.av
      context.pointee.colorspace = settings.color.matrix.av
      context.pointee.color_range = settings.color.range.av
      context.pointee.color_primaries = settings.color.primaries.av
      context.pointee.color_trc = settings.color.transfer.av
      if let interval = settings.keyframeInterval { context.pointee.gop_size = Int32(interval) }
      context.pointee.thread_count = Int32(settings.threads)
      switch settings.rateControl {
      case .constantQuality(let crf):
        options["crf"] = String(crf)
        // libvpx-vp9 reads a bit rate beside `crf` as a cap (constrained quality); the
        // context's default is 200 kb/s. libx264, libx265 and SVT-AV1 ignore it with `crf`.
        context.pointee.bit_rate = 0
      case .bitRate(let rate, let maxRate, let bufferSize):
        context.pointee.bit_rate = Int64(rate)
        if let maxRate { context.pointee.rc_max_rate = Int64(maxRate) }
        if let bufferSize { context.pointee.rc_buffer_size = Int32(bufferSize) }
      case .quantizer(let q):
        context.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
        context.pointee.global_quality = Int32((q * Double(FF_QP2LAMBDA)).rounded())
      case .encoderDefault:
        break
      }
      switch settings.ratePass {
      case .first(let stats):
        context.pointee.flags |= Int32(AV_CODEC_FLAG_PASS1)
        options["fastfirstpass"] = "0"
        options["stats"] = stats
      case .second(let stats):
        context.pointee.flags |= Int32(AV_CODEC_FLAG_PASS2)
        options["stats"] = stats
      case nil:
        break
      }
      if let preset = settings.preset { options["preset"] = preset }
      if let tune = settings.tune { options["tune"] = tune }
      if let profile = settings.profile { options["profile"] = profile }
      if let level = settings.level { options["level"] = level }
      options.merge(settings.options) { _, own in own }
    }
  }

  /// Opens an audio encoder.
  ///
  /// - Parameter globalHeader: put the codec's configuration (AudioSpecificConfig) in the
  ///   stream's extradata (`Muxer.needsGlobalHeader`).
  /// - Throws: `FFmpegError`: `AVERROR_ENCODER_NOT_FOUND` for an unknown encoder, `EINVAL` for a
  ///   sample format or rate the encoder does not take, `AVERROR_OPTION_NOT_FOUND` for a
  ///   setting it does not take, or what `avcodec_open2` returns.
  package init(audio settings: EncoderSettings.Audio, globalHeader: Bool) throws(FFmpegError) {
    kind = .audio
    name = settings.encoder
    pointer = try Self.open(encoder: settings.encoder, kind: .audio, globalHeader: globalHeader) {
      (context, options) throws(FFmpegError) in
      let codec = context.pointee.codec!
      let supported = Self.list(codec.pointee.sample_fmts, end: AV_SAMPLE_FMT_NONE)
      if let format = settings.sampleFormat {
        guard supported.isEmpty || supported.contains(format.av) else {
          throw FFmpegError(
            code: mt_averror(EINVAL),
            message: "\(settings.encoder) does not take the sample format \(format)")
        }
        context.pointee.sample_fmt = format.av
      } else {
        context.pointee.sample_fmt = supported.first ?? AV_SAMPLE_FMT_FLTP
      }
      let rates = Self.list(codec.pointee.supported_samplerates, end: 0)
      guard rates.isEmpty || rates.contains(Int32(settings.sampleRate)) else {
        throw FFmpegError(
          code: mt_averror(EINVAL),
          message: "\(settings.encoder) does not take the sample rate \(settings.sampleRate)")
      }
      context.pointee.sample_rate = Int32(settings.sampleRate)
      var layout = settings.channelLayout.ffmpeg
      defer { av_channel_layout_uninit(&layout) }
      try check(av_channel_layout_copy(&context.pointee.ch_layout, &layout))
      context.pointee.time_base = Rational.timeBase(settings.sampleRate).av
      // The encoder's own default needs 0: `aac` sets `b` to 0 in its defaults and then picks.
      context.pointee.bit_rate = Int64(settings.bitRate ?? 0)
      context.pointee.thread_count = Int32(settings.threads)
      if let profile = settings.profile { options["profile"] = profile }
    }
  }

  /// Allocates a context for the encoder named `name`, lets `configure` set it up, opens it with
  /// the options `configure` added, and checks that every option was taken.
  private static func open(
    encoder name: String, kind: StreamType, globalHeader: Bool,
    configure: (UnsafeMutablePointer<AVCodecContext>, inout [String: String]) throws(FFmpegError)
      -> Void
  ) throws(FFmpegError) -> UnsafeMutablePointer<AVCodecContext> {
    guard let codec = avcodec_find_encoder_by_name(name) else {
      throw FFmpegError(code: mt_averror_encoder_not_found, message: "no encoder named \(name)")
    }
    guard StreamType(codec.pointee.type) == kind else {
      throw FFmpegError(
        code: mt_averror_encoder_not_found, message: "\(name) is not a \(kind.rawValue) encoder")
    }
    guard let context = avcodec_alloc_context3(codec) else { throw .posix(ENOMEM) }
    var owned: UnsafeMutablePointer<AVCodecContext>? = context
    do {
      var settings: [String: String] = [:]
      try configure(context, &settings)
      if globalHeader { context.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
      var options = OptionDictionary(settings)
      try check(avcodec_open2(context, codec, &options.pointer))
      try options.checkConsumed(by: name)
    } catch {
      avcodec_free_context(&owned)
      throw error
    }
    return context
  }

  /// The entries of a C list that ends with `end`.
  private static func list<T: Equatable>(_ pointer: UnsafePointer<T>?, end: T) -> [T] {
    guard var pointer else { return [] }
    var values: [T] = []
    while pointer.pointee != end {
      values.append(pointer.pointee)
      pointer += 1
    }
    return values
  }

  deinit {
    var context: UnsafeMutablePointer<AVCodecContext>? = pointer
    avcodec_free_context(&context)
  }

  /// The time base of the frames sent and the packets received.
  package var timeBase: Rational { Rational(pointer.pointee.time_base) ?? Rational(1, 1)! }

  /// Samples per channel every audio frame must hold (all but the last), or nil when any
  /// count will do (`AV_CODEC_CAP_VARIABLE_FRAME_SIZE`, or video). 1024 for `aac`.
  package var frameSize: Int? {
    guard kind == .audio, pointer.pointee.frame_size > 0,
      pointer.pointee.codec.pointee.capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE == 0
    else { return nil }
    return Int(pointer.pointee.frame_size)
  }

  /// What the encoder takes (video): a filter graph's sink is set up to deliver this.
  package var videoParameters: VideoParameters {
    let context = pointer.pointee
    return VideoParameters(
      width: Int(context.width), height: Int(context.height),
      pixelFormat: PixelFormat(context.pix_fmt), timeBase: timeBase,
      sampleAspectRatio: Rational.nonZero(context.sample_aspect_ratio) ?? Rational(1, 1)!,
      frameRate: Rational.nonZero(context.framerate))
  }

  /// What the encoder takes (audio).
  package var audioParameters: AudioParameters {
    let context = pointer.pointee
    return AudioParameters(
      sampleRate: Int(context.sample_rate), sampleFormat: SampleFormat(context.sample_fmt),
      channelLayout: ChannelLayout(context.ch_layout), timeBase: timeBase)
  }

  /// Samples of priming the encoder puts before the first real one (1024 for `aac`): the
  /// muxer's edit list hides them.
  package var initialPadding: Int { Int(pointer.pointee.initial_padding) }

  /// Sends a frame whose `pts` is in `timeBase` (nil: no more frames; drain the encoder).
  ///
  /// The frame's picture type is cleared first unless `forceKeyFrame`: a decoded frame keeps
  /// the type its source had, and libx264 would obey it (the ffmpeg CLI clears it too).
  ///
  /// - Throws: `FFmpegError`; `isTryAgain` means packets must be received first.
  package func send(_ frame: Frame?, forceKeyFrame: Bool = false) throws(FFmpegError) {
    if let frame, kind == .video {
      frame.pointer.pointee.pict_type = forceKeyFrame ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
    }
    try check(avcodec_send_frame(pointer, frame?.pointer))
  }

  /// Receives the next packet into `packet` (timestamps in `timeBase`).
  ///
  /// - Returns: false when the encoder needs more frames, or is fully drained.
  /// - Throws: `FFmpegError` for encoding errors.
  package func receive(into packet: Packet) throws(FFmpegError) -> Bool {
    let result = avcodec_receive_packet(pointer, packet.pointer)
    if result == mt_averror_eagain || result == mt_averror_eof { return false }
    try check(result)
    return true
  }

  /// Sends `frame` (nil drains the encoder) and hands every packet that comes out to `body`
  /// (which may keep the data by writing it to a muxer; the packet is unreferenced after).
  ///
  /// - Throws: `E`: the encoder's `FFmpegError` as `wrap` makes it, or what `body` throws.
  package func encode<E: Error>(
    _ frame: Frame?, into packet: Packet, forceKeyFrame: Bool = false,
    wrap: (FFmpegError) -> E, _ body: (Packet) throws(E) -> Void
  ) throws(E) {
    while true {
      do {
        try send(frame, forceKeyFrame: forceKeyFrame)
        break
      } catch  where error.isTryAgain {
        try drain(into: packet, wrap: wrap, body)
      } catch {
        throw wrap(error)
      }
    }
    try drain(into: packet, wrap: wrap, body)
  }

  /// `encode` for callers whose errors are FFmpeg's.
  ///
  /// - Throws: `FFmpegError` from the encoder or from `body`.
  package func encode(
    _ frame: Frame?, into packet: Packet, forceKeyFrame: Bool = false,
    _ body: (Packet) throws(FFmpegError) -> Void
  ) throws(FFmpegError) {
    try encode(frame, into: packet, forceKeyFrame: forceKeyFrame, wrap: { $0 }, body)
  }

  private func drain<E: Error>(
    into packet: Packet, wrap: (FFmpegError) -> E, _ body: (Packet) throws(E) -> Void
  ) throws(E) {
    while true {
      let more: Bool
      do { more = try receive(into: packet) } catch { throw wrap(error) }
      guard more else { return }
      try body(packet)
      packet.unref()
    }
  }
}
