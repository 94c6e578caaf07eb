import AV
import MediaCore

/// What happens to one input stream in a render.
package enum StreamAction: Sendable, Hashable {
  /// Its packets are copied as they are (stream copy): no decoding, byte for byte.
  case copy
  /// Decoded, filtered and encoded again as video.
  case encodeVideo(VideoEncoding)
  /// Decoded, filtered and encoded again as audio.
  case encodeAudio(AudioEncoding)
}

/// One output stream: the input stream it comes from and what happens to it.
package struct StreamChoice: Sendable, Hashable {
  /// The input stream's index.
  package var input: Int
  /// Copy or encode.
  package var action: StreamAction
  /// For a copied stream: the codec tag (sample entry) to write instead of the one the input
  /// has or the muxer picks (`hvc1` for HEVC in MP4, which FFmpeg writes as `hev1`); nil keeps
  /// it. A retag.
  package var codecTag: String?

  /// A choice stated.
  package init(input: Int, action: StreamAction, codecTag: String? = nil) {
    self.input = input
    self.action = action
    self.codecTag = codecTag
  }
}

/// How a video stream is encoded: decode -> `filter` -> encoder.
package struct VideoEncoding: Sendable, Hashable {
  /// The libavfilter chain between the decoder and the encoder (`null` passes frames through;
  /// `scale=1280:720,fps=30`); the graph delivers the encoder's pixel format.
  package var filter: String
  /// The encoder's settings. Its size, pixel aspect ratio and frame rate are replaced by what
  /// the graph delivers (the rate: the graph's, else the stream's); its time base by
  /// `timing`'s.
  package var encoder: EncoderSettings.Video
  /// Write the source's colour tags (matrix, range, primaries, transfer: what the input states,
  /// unspecified where it states nothing) instead of `encoder.color`: right when neither the
  /// filter nor the conversion to the encoder's pixel format changes colours, so the output
  /// claims nothing the input did not. (A full-range `yuvj420p` source converted to `yuv420p`
  /// becomes limited range: state `encoder.color` and set this false.)
  package var keepSourceColor: Bool
  /// Keep the input stream's display matrix (rotation, mirroring): right when the filter does
  /// not turn the pictures.
  package var keepDisplayMatrix: Bool
  /// How frame times reach the encoder.
  package var timing: VideoTiming

  /// An encoding with `filter` and `encoder`; the source's colour tags and display matrix kept,
  /// constant frame rate.
  package init(
    filter: String = "null", encoder: EncoderSettings.Video = Self.defaultEncoder,
    keepSourceColor: Bool = true, keepDisplayMatrix: Bool = true,
    timing: VideoTiming = .constantFrameRate
  ) {
    self.filter = filter
    self.encoder = encoder
    self.keepSourceColor = keepSourceColor
    self.keepDisplayMatrix = keepDisplayMatrix
    self.timing = timing
  }

  /// libx264 at CRF 23 with its default preset (size and rate come from the graph).
  package static let defaultEncoder = EncoderSettings.Video(
    width: 0, height: 0, frameRate: Rational(25, 1)!)
}

/// How video frame times reach the encoder.
package enum VideoTiming: Sendable, Hashable {
  /// The encoder counts in frames (time base 1/frame rate, unless `encoder.timeBase` says
  /// otherwise), as the ffmpeg CLI does for MP4: each frame's time is rounded to its tick, and a
  /// frame that lands on a tick already taken is dropped (`StreamReport.droppedFrames`).
  case constantFrameRate
  /// The encoder keeps the graph's time base: every frame's own time (variable frame rate
  /// kept, as the ffmpeg CLI does for Matroska).
  case sourceTimestamps
}

/// How an audio stream is encoded: decode -> `filter` -> (resampling to the encoder's format)
/// -> encoder.
package struct AudioEncoding: Sendable, Hashable {
  /// The libavfilter chain between the decoder and the encoder (`anull` passes samples
  /// through); the graph converts to the encoder's sample format, rate and layout.
  package var filter: String
  /// The encoder's settings (its rate and layout are what the graph delivers).
  package var encoder: EncoderSettings.Audio
  /// Regroup samples into the encoder's frame size in the graph's sink
  /// (`av_buffersink_set_frame_size`) rather than with `AudioFrameAdapter` (the default, which
  /// also reports timestamp gaps).
  package var regroupInGraph: Bool

  /// An encoding with `filter` and `encoder`.
  package init(
    filter: String = "anull", encoder: EncoderSettings.Audio = EncoderSettings.Audio(),
    regroupInGraph: Bool = false
  ) {
    self.filter = filter
    self.encoder = encoder
    self.regroupInGraph = regroupInGraph
  }
}

/// What a render writes and how: the streams, the container, the limits.
package struct RenderSettings: Sendable {
  /// The output streams in order.
  package var streams: [StreamChoice]
  /// The container (`mp4`, `matroska`, `mov`).
  package var container: String
  /// The muxer's options (`movflags` `+faststart` moves MP4's index before the media data);
  /// one the muxer does not take is an error.
  package var muxerOptions: [String: String]
  /// Decoder threads for video (0: one per core, as the ffmpeg CLI's `auto`); audio decodes on
  /// the calling thread.
  package var decoderThreads: Int
  /// Filter threads (0: one per core).
  package var filterThreads: Int
  /// End each encoded stream where the input's container says it ends (its stated duration,
  /// which for MP4 is the edit list's): FFmpeg 5.1's decoders do not drop the AAC encoder's
  /// padding at the end, so without this an MP4's audio comes out up to a frame longer than
  /// stated. Applied only when the container states the streams' durations.
  package var trimToStreamDuration: Bool
  /// Copy the input's container tags (`title`, `creation_time`, ...).
  package var keepContainerTags: Bool
  /// The chapters to write; nil: the input's, moved as its packets are.
  package var chapters: [InputChapter]?
  /// Seconds the whole render may take (nil: no limit); past it, `timeout`.
  package var timeout: Double?

  /// Settings writing `streams` into `container` (MP4 with faststart by default).
  package init(
    streams: [StreamChoice], container: String = "mp4",
    muxerOptions: [String: String] = ["movflags": "+faststart"], decoderThreads: Int = 0,
    filterThreads: Int = 0, trimToStreamDuration: Bool = true, keepContainerTags: Bool = true,
    chapters: [InputChapter]? = nil, timeout: Double? = nil
  ) {
    self.streams = streams
    self.container = container
    self.muxerOptions = muxerOptions
    self.decoderThreads = decoderThreads
    self.filterThreads = filterThreads
    self.trimToStreamDuration = trimToStreamDuration
    self.keepContainerTags = keepContainerTags
    self.chapters = chapters
    self.timeout = timeout
  }

  /// The input's first video stream (not cover art) and first audio stream, each with its
  /// action (nil: left out).
  package static func firstStreams(
    of input: InputFile, video: StreamAction?, audio: StreamAction?
  ) -> [StreamChoice] {
    var choices: [StreamChoice] = []
    if let video, let stream = input.streams.first(where: \.isVideo) {
      choices.append(StreamChoice(input: stream.index, action: video))
    }
    if let audio, let stream = input.streams.first(where: \.isAudio) {
      choices.append(StreamChoice(input: stream.index, action: audio))
    }
    return choices
  }
}

/// What a render wrote.
package struct RenderReport: Sendable, Equatable {
  /// Each output stream, in order.
  package var streams: [StreamReport]
  /// Bytes written into the output (faststart's second pass counts twice).
  package var bytesWritten: Int64
  /// Reading the input failed before its end: the output holds what came before (the ffmpeg
  /// CLI does the same); the caller's check decides whether that is enough.
  package var readError: FFmpegError?
}

/// What became of one stream.
package struct StreamReport: Sendable, Equatable {
  /// The input stream's index.
  package var input: Int
  /// The output stream's index.
  package var output: Int
  /// Video or audio (or what was copied).
  package var kind: StreamType
  /// The encoder's name; nil when the packets were copied.
  package var encoder: String?
  /// Packets written.
  package var packets = 0
  /// Packets of the input stream the demuxer gave the lane (0 when FFmpeg could read none of
  /// its frames, as with 32-bit FLAC in FFmpeg 5.1).
  package var packetsRead = 0
  /// Video frames sent to the encoder.
  package var frames = 0
  /// Audio samples (per channel) sent to the encoder.
  package var samples = 0
  /// Video frames dropped because they landed on a tick already taken
  /// (`VideoTiming.constantFrameRate`), or packets before a copied video stream's first
  /// keyframe.
  package var dropped = 0
  /// Packets or frames the decoder could not decode (skipped, as the ffmpeg CLI does).
  package var decodeErrors = 0
  /// The largest gap, in samples, between an audio frame's timestamp and the sample count (0 for
  /// continuous audio).
  package var audioTimestampGap: Int64 = 0
}
