import CFFmpeg
import MediaCore

extension ChannelLayout: CustomStringConvertible {
  /// The layout FFmpeg describes as `name` (`mono`, `stereo`, `5.1(side)`, `3 channels`); nil
  /// when it cannot parse it or the order is neither native nor unspecified.
  package init?(name: String) {
    var layout = AVChannelLayout()
    defer { av_channel_layout_uninit(&layout) }
    guard av_channel_layout_from_string(&layout, name) == 0, layout.nb_channels > 0 else {
      return nil
    }
    switch layout.order {
    case AV_CHANNEL_ORDER_NATIVE: self.init(channels: layout.nb_channels, mask: layout.u.mask)
    case AV_CHANNEL_ORDER_UNSPEC: self.init(channels: layout.nb_channels, mask: 0)
    default: return nil
    }
  }

  /// One channel.
  package static let mono = ChannelLayout(defaultFor: 1)
  /// Two channels, left and right.
  package static let stereo = ChannelLayout(defaultFor: 2)

  /// The number of channels.
  package var channelCount: Int { Int(channels) }

  /// FFmpeg's description (`av_channel_layout_describe`: `stereo`, `5.1(side)`, `3 channels`),
  /// which `init(name:)` reads back.
  package var name: String {
    var layout = ffmpeg
    defer { av_channel_layout_uninit(&layout) }
    var buffer = [CChar](repeating: 0, count: 128)
    guard av_channel_layout_describe(&layout, &buffer, buffer.count) > 0 else {
      return "\(channels) channels"
    }
    return String(cBuffer: buffer)
  }

  /// FFmpeg's description.
  package var description: String { name }
}

/// What a run of pictures looks like: a filter graph's source or sink, a decoder's output, what
/// an encoder takes.
package struct VideoParameters: Sendable, Hashable {
  /// Width in pixels.
  package var width: Int
  /// Height in pixels.
  package var height: Int
  /// The pixel format.
  package var pixelFormat: PixelFormat
  /// The time base of the frames' timestamps.
  package var timeBase: Rational
  /// The pixel aspect ratio (1:1 for square pixels).
  package var sampleAspectRatio: Rational
  /// The constant frame rate, when there is one (libavfilter's `xfade` and `fps` need it).
  package var frameRate: Rational?

  /// Parameters stated one by one.
  package init(
    width: Int, height: Int, pixelFormat: PixelFormat, timeBase: Rational,
    sampleAspectRatio: Rational = Rational(1, 1)!, frameRate: Rational? = nil
  ) {
    self.width = width
    self.height = height
    self.pixelFormat = pixelFormat
    self.timeBase = timeBase
    self.sampleAspectRatio = sampleAspectRatio
    self.frameRate = frameRate
  }
}

/// What a run of audio samples looks like: a filter graph's source or sink, a decoder's output,
/// what an encoder takes. (The resampler's `FrameFormat` without a time base.)
package struct AudioParameters: Sendable, Hashable {
  /// Samples per second.
  package var sampleRate: Int
  /// The sample format.
  package var sampleFormat: SampleFormat
  /// The channel layout.
  package var channelLayout: ChannelLayout
  /// The time base of the frames' timestamps (usually 1/`sampleRate`).
  package var timeBase: Rational

  /// Parameters stated one by one; the time base defaults to 1/`sampleRate`.
  package init(
    sampleRate: Int, sampleFormat: SampleFormat, channelLayout: ChannelLayout,
    timeBase: Rational? = nil
  ) {
    self.sampleRate = sampleRate
    self.sampleFormat = sampleFormat
    self.channelLayout = channelLayout
    self.timeBase = timeBase ?? Rational.timeBase(sampleRate)
  }
}

extension CodecDecoder {
  /// The decoder's time base for frames: the packets' (`pkt_timebase`, the stream's), in which
  /// `Frame.bestEffortTimestamp` counts.
  package var timeBase: Rational {
    Rational.nonZero(pointer.pointee.pkt_timebase) ?? Rational(1, 1)!
  }

  /// What the decoder's pictures look like, as a filter graph's buffer source is told (valid
  /// once open; a stream may change it mid-way). The ffmpeg CLI's choices: the stream's pixel
  /// aspect ratio when the container states one, else the bitstream's; the stream's frame rate
  /// as `frameRate` (`StreamView.guessedFrameRate`).
  ///
  /// - Parameter stream: the stream the decoder reads (its pixel aspect ratio).
  package func videoParameters(
    of stream: StreamView, frameRate: Rational?
  ) -> VideoParameters {
    let context = pointer.pointee
    let sar =
      Rational.nonZero(stream.stream.sample_aspect_ratio)
      ?? Rational.nonZero(context.sample_aspect_ratio) ?? Rational(1, 1)!
    return VideoParameters(
      width: Int(context.width), height: Int(context.height),
      pixelFormat: PixelFormat(context.pix_fmt), timeBase: timeBase, sampleAspectRatio: sar,
      frameRate: frameRate)
  }

  /// The colour tags of the stream's pictures as its codec parameters state them (the
  /// container's or the bitstream's VUI; unspecified where neither says).
  package var color: ColorTags {
    let context = pointer.pointee
    return ColorTags(
      matrix: ColorMatrix(context.colorspace), range: ColorRange(context.color_range),
      primaries: ColorPrimaries(context.color_primaries), transfer: ColorTransfer(context.color_trc)
    )
  }

  /// What the decoder's audio looks like (valid once open), in the packets' time base; an
  /// unspecified channel order becomes the default layout for the count, as the ffmpeg CLI
  /// guesses it.
  package var audioParameters: AudioParameters {
    let context = pointer.pointee
    return AudioParameters(
      sampleRate: Int(context.sample_rate), sampleFormat: SampleFormat(context.sample_fmt),
      channelLayout: ChannelLayout(context.ch_layout), timeBase: timeBase)
  }
}

extension StreamView {
  /// The frame rate the ffmpeg CLI gives a graph's buffer source for this stream
  /// (`av_guess_frame_rate`: the container's rate, or the codec's when it is more plausible);
  /// nil when unknown.
  package var guessedFrameRate: Rational? {
    Rational.nonZero(av_guess_frame_rate(input.pointer, input.stream(index), nil))
  }

  /// The stream's average frame rate (`avg_frame_rate`), nil when unknown.
  package var averageFrameRate: Rational? { Rational.nonZero(stream.avg_frame_rate) }

  /// Samples per channel in an audio packet of `size` bytes, as the ffmpeg CLI's stream copy
  /// counts them: from the codec when its packets have a fixed duration by size
  /// (`av_get_audio_frame_duration2`), else the codec's frame size (1024 for AAC); 0 when
  /// neither is known.
  package func audioSamples(inPacketOf size: Int) -> Int {
    let samples = av_get_audio_frame_duration2(input.stream(index).pointee.codecpar, Int32(size))
    return Int(samples > 0 ? samples : max(0, parameters.frame_size))
  }

  /// The stream is a still picture attached to the file (cover art), not video.
  package var isAttachedPicture: Bool {
    stream.disposition & AV_DISPOSITION_ATTACHED_PIC != 0
  }
}

/// Sample-exact timestamps for copied audio, as the ffmpeg CLI's stream copy makes them
/// (`av_rescale_delta`): a timestamp in a coarse time base (Matroska's milliseconds) converted
/// to a finer one lands on the sample count continued from the previous packet when it is within
/// the coarse tick, instead of on the rounding of the coarse value (23 ms packets of 1024 samples
/// at 44.1 kHz come out 1024 samples apart, not 1014 and 1015).
package struct AudioTimestampRescaler {
  private let sampleTimeBase: AVRational
  private var last: Int64 = mt_nopts_value

  /// A rescaler for a stream of `sampleRate` samples per second.
  package init(sampleRate: Int) {
    sampleTimeBase = AVRational(num: 1, den: Int32(clamping: max(1, sampleRate)))
  }

  /// `timestamp` from `source` to `destination`, `samples` being the packet's length.
  package mutating func rescale(
    _ timestamp: Int64, from source: Rational, samples: Int, to destination: Rational
  ) -> Int64 {
    av_rescale_delta(
      source.av, timestamp, sampleTimeBase, Int32(clamping: samples), &last, destination.av)
  }
}
