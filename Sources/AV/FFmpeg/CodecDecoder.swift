import OutputKit
import MediaCore
import CFFmpeg

/// An owned, opened decoder (`AVCodecContext`) for one stream, freed with `avcodec_free_context`.
package final class CodecDecoder {
  let pointer: UnsafeMutablePointer<AVCodecContext>

  /// Opens the default decoder for a stream's codec parameters.
  ///
  /// - Parameters:
  ///   - threads: decoder threads; 1 keeps the work on the calling thread.
  ///   - packetTimeBase: the stream's time base, so the decoder trims priming and padding
  ///     (`AV_PKT_DATA_SKIP_SAMPLES`) exactly as the ffmpeg CLI does.
  ///   - errorRecognition: `AV_EF_*` flags added to the decoder's checks.
  ///   - oneFrameAtATime: libdav1d (AV1) decodes one frame at a time (`AV_CODEC_FLAG_LOW_DELAY`,
  ///     dav1d's `max_frame_delay` 1; its tile and filter threads stay): Debian's dav1d 1.0.0
  ///     deadlocked in its frame threads on a damaged AV1 file (a fuzzing mutant: the poster
  ///     hung in `dav1d_send_data` in 22 of 40 runs on a loaded machine). Other decoders are
  ///     not touched (H.264's low-delay flag would change its output).
  /// - Throws: `FFmpegError` when no decoder exists (`AVERROR_DECODER_NOT_FOUND`) or it fails to
  ///   open.
  package init(
    parameters: UnsafePointer<AVCodecParameters>, threads: Int32 = 1,
    packetTimeBase: AVRational? = nil, errorRecognition: Int32 = 0, oneFrameAtATime: Bool = false
  ) throws(FFmpegError) {
    guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
      throw FFmpegError(code: mt_averror_decoder_not_found)
    }
    guard let context = avcodec_alloc_context3(codec) else { throw .posix(ENOMEM) }
    pointer = context
    try check(avcodec_parameters_to_context(context, parameters))
    context.pointee.thread_count = threads
    if oneFrameAtATime, String(cString: codec.pointee.name) == "libdav1d" {
      context.pointee.flags |= Int32(AV_CODEC_FLAG_LOW_DELAY)
    }
    if errorRecognition != 0 { context.pointee.err_recognition |= errorRecognition }
    if let packetTimeBase { context.pointee.pkt_timebase = packetTimeBase }
    try check(avcodec_open2(context, codec, nil))
  }

  deinit {
    var context: UnsafeMutablePointer<AVCodecContext>? = pointer
    avcodec_free_context(&context)
  }

  /// True when the decoder decodes one frame at a time (`oneFrameAtATime` took effect: libdav1d
  /// with `AV_CODEC_FLAG_LOW_DELAY`).
  package var decodesOneFrameAtATime: Bool {
    pointer.pointee.flags & Int32(AV_CODEC_FLAG_LOW_DELAY) != 0
  }

  /// The coded width (macroblock-aligned) the decoder found, 0 before it knows.
  package var codedWidth: Int { Int(pointer.pointee.coded_width) }
  /// The coded height (macroblock-aligned) the decoder found, 0 before it knows.
  package var codedHeight: Int { Int(pointer.pointee.coded_height) }

  /// Where FFmpeg's messages about the packet being decoded go (`DecodeLog.token`): set before
  /// each packet is sent, and copied by libavcodec into the frame thread that decodes it.
  package var logToken: UnsafeMutableRawPointer? {
    get { pointer.pointee.opaque }
    set { pointer.pointee.opaque = newValue }
  }

  /// The one decode loop: sends `packet` (nil drains the decoder at the end of the stream), then
  /// hands every frame that comes out to `body`, until `body` returns false (enough frames) or
  /// the decoder needs more input. A packet the decoder cannot take yet (`EAGAIN`) is sent again
  /// once its frames were received. Decoding errors do not stop the loop: each goes to
  /// `failure` and the packet (or frame) is skipped, as the ffmpeg CLI does.
  ///
  /// - Returns: false when `body` asked to stop.
  /// - Throws: what `body` throws.
  @discardableResult
  package func decode<E: Error>(
    _ packet: Packet?, into frame: Frame, failure: (DecodeFailure) -> Void,
    body: (Frame) throws(E) -> Bool
  ) throws(E) -> Bool {
    var unsent = true
    var failures = 0
    while true {
      if unsent {
        let result = avcodec_send_packet(pointer, packet?.pointer)
        if result >= 0 || result == mt_averror_eof {
          unsent = false
        } else if result != mt_averror_eagain {
          failure(DecodeFailure(error: FFmpegError(code: result), whileSending: true))
          unsent = false
          if packet != nil { return true }  // the packet is lost; a drain still yields frames
        }
      }
      while true {
        let result = avcodec_receive_frame(pointer, frame.pointer)
        if result == mt_averror_eagain || result == mt_averror_eof { break }
        if result < 0 {
          failure(DecodeFailure(error: FFmpegError(code: result), whileSending: false))
          failures += 1
          if failures > 1000 { return true }  // a decoder that only fails: give up on it
          continue
        }
        let more = try body(frame)
        frame.unref()
        if !more { return false }
      }
      if !unsent { return true }
    }
  }

  /// While set, the decoder does not decode the frames no other frame refers to
  /// (`skip_frame = AVDISCARD_NONREF`): they give no picture, and every other frame comes out
  /// as it would. Read when each packet is sent.
  package var skipsNonReferenceFrames: Bool {
    get { pointer.pointee.skip_frame == AVDISCARD_NONREF }
    set { pointer.pointee.skip_frame = newValue ? AVDISCARD_NONREF : AVDISCARD_DEFAULT }
  }

  /// Drops every frame and reference the decoder holds (`avcodec_flush_buffers`): what a seek
  /// needs before the packets of the new position are sent.
  package func flush() { avcodec_flush_buffers(pointer) }

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

/// A packet or frame the decoder could not decode.
package struct DecodeFailure: Sendable {
  /// What libavcodec returned.
  package var error: FFmpegError
  /// True when sending the packet failed (the packet is lost), false when receiving a frame.
  package var whileSending: Bool
}
