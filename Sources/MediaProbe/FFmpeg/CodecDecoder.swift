import CFFmpeg

/// An owned, opened decoder (`AVCodecContext`) for one stream, freed with `avcodec_free_context`.
package final class CodecDecoder {
  package let pointer: UnsafeMutablePointer<AVCodecContext>

  /// Opens the default decoder for a stream's codec parameters.
  ///
  /// - Parameters:
  ///   - threads: decoder threads; 1 keeps the work on the calling thread.
  ///   - packetTimeBase: the stream's time base, so the decoder trims priming and padding
  ///     (`AV_PKT_DATA_SKIP_SAMPLES`) exactly as the ffmpeg CLI does.
  /// - Throws: `FFmpegError` when no decoder exists (`AVERROR_DECODER_NOT_FOUND`) or it fails to
  ///   open.
  package init(
    parameters: UnsafePointer<AVCodecParameters>, threads: Int32 = 1,
    packetTimeBase: AVRational? = nil
  ) throws(FFmpegError) {
    guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
      throw FFmpegError(code: -0x434544F8)  // AVERROR_DECODER_NOT_FOUND
    }
    guard let context = avcodec_alloc_context3(codec) else { throw .posix(ENOMEM) }
    pointer = context
    try check(avcodec_parameters_to_context(context, parameters))
    context.pointee.thread_count = threads
    if let packetTimeBase { context.pointee.pkt_timebase = packetTimeBase }
    try check(avcodec_open2(context, codec, nil))
  }

  deinit {
    var context: UnsafeMutablePointer<AVCodecContext>? = pointer
    avcodec_free_context(&context)
  }

  /// Sends a packet (or nil to drain at the end of the stream).
  ///
  /// - Throws: `FFmpegError`; `isTryAgain` means frames must be received first.
  package func send(_ packet: Packet?) throws(FFmpegError) {
    try check(avcodec_send_packet(pointer, packet?.pointer))
  }

  /// Receives the next decoded frame into `frame`.
  ///
  /// - Returns: false when the decoder needs more input or is fully drained.
  /// - Throws: `FFmpegError` for decoding errors.
  package func receive(into frame: Frame) throws(FFmpegError) -> Bool {
    let result = avcodec_receive_frame(pointer, frame.pointer)
    if result == mt_averror_eagain || result == mt_averror_eof { return false }
    try check(result)
    return true
  }
}
