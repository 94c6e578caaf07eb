import OutputKit
import MediaCore
import CFFmpeg

/// A typed view of one stream of an open `InputFile`: what other modules need to know about an
/// `AVStream`, read when asked, without handing out the C pointer. The view keeps its input alive.
package struct StreamView {
  /// The input the stream belongs to.
  package let input: InputFile
  /// The stream's index in the container.
  package let index: Int

  var stream: AVStream { input.stream(index).pointee }
  var parameters: AVCodecParameters { stream.codecpar.pointee }

  /// The kind of stream.
  var mediaType: AVMediaType { parameters.codec_type }
  /// True for an audio stream.
  package var isAudio: Bool { mediaType == AVMEDIA_TYPE_AUDIO }
  /// True for a video stream that is not cover art.
  package var isVideo: Bool {
    mediaType == AVMEDIA_TYPE_VIDEO && stream.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
  }
  /// FFmpeg's short codec name (`aac`, `h264`, ...).
  package var codecName: String { String(cString: avcodec_get_name(parameters.codec_id)) }
  /// Timestamps count in units of this many seconds.
  var avTimeBase: AVRational { stream.time_base }
  /// Timestamps count in units of this many seconds, as an exact rational.
  package var timeBase: Rational {
    Rational(Int64(stream.time_base.num), Int64(stream.time_base.den)) ?? Rational(1, 1)!
  }
  /// A video stream (cover art included).
  package var isVideoType: Bool { mediaType == AVMEDIA_TYPE_VIDEO }
  /// The picture's width in pixels (0 for other streams).
  package var width: Int { Int(parameters.width) }
  /// The picture's height in pixels (0 for other streams).
  package var height: Int { Int(parameters.height) }
  /// The audio sample rate (0 for other streams).
  package var sampleRate: Int { Int(parameters.sample_rate) }
  /// The time at which frames count as presented (`AVStream.start_time`) in seconds.
  package var startSeconds: Double? { startTime.map { Double($0) * timeBase.value } }

  /// One entry of the demuxer's index.
  package struct IndexEntry {
    /// The byte position of the sample in the file.
    package var position: Int64
    /// Its size in bytes.
    package var size: Int64
    /// Its decoding time, in the stream's time base.
    package var timestamp: Int64
    /// The sample is a keyframe (`AVINDEX_KEYFRAME`): decoding can start there.
    package var isKeyframe: Bool = false
  }

  /// Calls `body` with each entry of the demuxer's index, in order.
  package func forEachIndexEntry(_ body: (IndexEntry) -> Void) {
    let pointer = input.stream(index)
    for entry in 0..<avformat_index_get_entries_count(pointer) {
      guard let item = avformat_index_get_entry(pointer, entry) else { continue }
      body(
        IndexEntry(
          position: item.pointee.pos, size: Int64(item.pointee.size),
          timestamp: item.pointee.timestamp,
          isKeyframe: item.pointee.flags & AVINDEX_KEYFRAME != 0))
    }
  }
  /// The stream's first timestamp, in its time base, when known.
  package var startTime: Int64? { stream.start_time == mt_nopts_value ? nil : stream.start_time }
  /// The stream's duration in its time base, when the container gives one.
  package var duration: Int64? {
    stream.duration == mt_nopts_value || stream.duration <= 0 ? nil : stream.duration
  }
  /// Bits per sample of the source (24 for 24-bit FLAC), 0 when unknown.
  package var bitsPerRawSample: Int32 { parameters.bits_per_raw_sample }
  /// Frames of reordering delay (B-frames), 0 for audio.
  package var videoDelay: Int32 { parameters.video_delay }
  /// Samples the decoder drops at the start of an audio stream (the codec's pre-skip), 0 when none.
  package var initialPadding: Int32 { parameters.initial_padding }
  /// Audio channels, 0 when unknown.
  package var channelCount: Int32 { parameters.ch_layout.nb_channels }
  /// The `default` disposition flag.
  package var isDefault: Bool { stream.disposition & AV_DISPOSITION_DEFAULT != 0 }
  /// Packets of this stream arrived while libavformat probed the file (it starts near the start).
  package var hadPacketsWhileProbing: Bool {
    stream.event_flags & AVSTREAM_EVENT_FLAG_NEW_PACKETS != 0
  }
  /// The container's id for the stream (the MP4 track ID, the Matroska track number), as the
  /// concat demuxer's `exact_stream_id` matches it.
  package var containerID: Int32 { stream.id }
  /// The codec's out-of-band configuration (H.264 `avcC` with its SPS/PPS, HEVC `hvcC`, the AAC
  /// AudioSpecificConfig), empty when the stream has none.
  package var extradata: [UInt8] {
    guard let bytes = parameters.extradata, parameters.extradata_size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: bytes, count: Int(parameters.extradata_size)))
  }
  /// A metadata tag (`language`, `title`, ...).
  package func tag(_ key: String) -> String? { metadataValue(stream.metadata, key) }

  /// Stops the demuxer from reading this stream's packets.
  func discard() { input.stream(index).pointee.discard = AVDISCARD_ALL }

  /// Opens the default decoder for this stream.
  ///
  /// - Parameters:
  ///   - threads: decoder threads (frame threading where the codec has it); 1 decodes on the
  ///     calling thread.
  ///   - oneFrameAtATime: libdav1d without frame threads (`CodecDecoder.init`).
  /// - Throws: `FFmpegError` when no decoder exists or it fails to open.
  package func openDecoder(
    threads: Int32 = 1, errorRecognition: Int32 = 0, oneFrameAtATime: Bool = false
  ) throws(FFmpegError) -> CodecDecoder {
    try CodecDecoder(
      parameters: stream.codecpar, threads: threads, packetTimeBase: stream.time_base,
      errorRecognition: errorRecognition, oneFrameAtATime: oneFrameAtATime)
  }
}

extension InputFile {
  /// A typed view of the stream at `index`.
  package func view(_ index: Int) -> StreamView { StreamView(input: self, index: index) }

  /// Views of every stream.
  package var streams: [StreamView] { (0..<streamCount).map(view) }
}
