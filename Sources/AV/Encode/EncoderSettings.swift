import MediaCore

/// What an encoder is opened with: typed values, never argument strings. (Compatibility's
/// platform settings, `VideoEncoderSettings`/`AudioEncoderSettings`, name what a platform needs;
/// the layer above maps them onto these, which say everything an encoder is opened with.)
package enum EncoderSettings {
  /// How an encoder spends bits.
  package enum RateControl: Sendable, Hashable {
    /// Constant quality (libx264's `crf`, 0-51; 23 is its default).
    case constantQuality(Double)
    /// An average bit rate in bits per second, with an optional VBV ceiling (`maxrate`,
    /// `bufsize`).
    case bitRate(Int, maxRate: Int? = nil, bufferSize: Int? = nil)
    /// A fixed quantizer, as the ffmpeg CLI's `-q:v` (`flags=+qscale`, `global_quality` =
    /// q·`FF_QP2LAMBDA`): mjpeg's 2 (best) to 31, libwebp's quality 0 to 100 (best).
    case quantizer(Double)
    /// The encoder's own defaults (an encoder with no rate control, such as png).
    case encoderDefault
  }

  /// One pass of libx264's two-pass rate control (`AV_CODEC_FLAG_PASS1`/`PASS2` and its `stats`
  /// file, as libavcodec's libx264.c maps them onto x264's `b_stat_write`/`b_stat_read`).
  package enum RatePass: Sendable, Hashable {
    /// The first pass: an average bit rate encode (x264's one-pass ABR) that also writes x264's
    /// statistics to the file at `stats` (x264 writes `stats` and `stats.mbtree`, each through a
    /// `.temp` file renamed when the encoder closes). `fastfirstpass` is 0, so x264 keeps the
    /// preset's own analysis: the pictures are those of a one-pass encode and may be kept.
    case first(stats: String)
    /// The second pass: x264's two-pass rate control, planned over the whole output from the
    /// statistics at `stats` (the same frames and settings as the first pass), aiming at the
    /// bit rate asked.
    case second(stats: String)
  }

  /// A video encoder's settings.
  package struct Video: Sendable, Hashable {
    /// The encoder, by FFmpeg's name (`libx264`).
    package var encoder: String
    /// Width in pixels.
    package var width: Int
    /// Height in pixels.
    package var height: Int
    /// The pixel format the encoder takes (and writes).
    package var pixelFormat: PixelFormat
    /// The frame rate (the encoder's `framerate`; for rate control and the container's rate).
    package var frameRate: Rational
    /// The time base of the frames' timestamps; 1/`frameRate` when nil (one tick a frame).
    package var timeBase: Rational?
    /// The pixel aspect ratio.
    package var sampleAspectRatio: Rational
    /// The colour tags written into the bitstream (VUI) and the container.
    package var color: ColorTags
    /// Frames from one keyframe to the next at most (nil: the encoder's default, 250 for x264).
    package var keyframeInterval: Int?
    /// Quality or bit rate.
    package var rateControl: RateControl
    /// The encoder's speed/size trade-off (`veryfast`, `medium`, ...; nil: the default).
    package var preset: String?
    /// A tuning (`film`, `animation`, `stillimage`, ...; nil: none).
    package var tune: String?
    /// The profile (`baseline`, `main`, `high`; nil: the encoder picks). libx264's is a ceiling:
    /// with `ultrafast`'s features, `main` writes Constrained Baseline.
    package var profile: String?
    /// The level (`3.1`, `4.0`; nil: the encoder picks).
    package var level: String?
    /// Encoder threads (0: the encoder's own choice).
    package var threads: Int
    /// The encoder's private options by FFmpeg's names (`x265-params`, `cpu-used`, `row-mt`),
    /// for what the typed fields do not say; one the encoder does not take is an error.
    package var options: [String: String] = [:]
    /// A pass of libx264's two-pass rate control (nil: one pass); needs `.bitRate`.
    package var ratePass: RatePass?

    /// Settings for `encoder` at `width`x`height` and `frameRate`; the rest defaults to 8-bit
    /// 4:2:0, square pixels, BT.709, CRF 23 and the encoder's own preset, profile, level and
    /// threads.
    package init(
      encoder: String = "libx264", width: Int, height: Int, frameRate: Rational,
      pixelFormat: PixelFormat = .yuv420p, timeBase: Rational? = nil,
      sampleAspectRatio: Rational = Rational(1, 1)!, color: ColorTags = .bt709,
      keyframeInterval: Int? = nil, rateControl: RateControl = .constantQuality(23),
      preset: String? = nil, tune: String? = nil, profile: String? = nil, level: String? = nil,
      threads: Int = 0
    ) {
      self.encoder = encoder
      self.width = width
      self.height = height
      self.frameRate = frameRate
      self.pixelFormat = pixelFormat
      self.timeBase = timeBase
      self.sampleAspectRatio = sampleAspectRatio
      self.color = color
      self.keyframeInterval = keyframeInterval
      self.rateControl = rateControl
      self.preset = preset
      self.tune = tune
      self.profile = profile
      self.level = level
      self.threads = threads
    }
  }

  /// An audio encoder's settings.
  package struct Audio: Sendable, Hashable {
    /// The encoder, by FFmpeg's name (`aac`, FFmpeg's native AAC-LC encoder).
    package var encoder: String
    /// Samples per second.
    package var sampleRate: Int
    /// The channel layout.
    package var channelLayout: ChannelLayout
    /// The sample format (nil: the encoder's first supported one, `fltp` for `aac`).
    package var sampleFormat: SampleFormat?
    /// Bits per second (nil: the encoder's default; `aac` then picks by channel count and rate,
    /// ~69 kb/s for 44.1 kHz mono, as the ffmpeg CLI without `-b:a`).
    package var bitRate: Int?
    /// The profile (`aac_low`; nil: the encoder's default).
    package var profile: String?
    /// Encoder threads (0: the encoder's own choice).
    package var threads: Int

    /// Settings for `encoder`; 48 kHz stereo at the encoder's default bit rate unless stated.
    package init(
      encoder: String = "aac", sampleRate: Int = 48000, channelLayout: ChannelLayout = .stereo,
      sampleFormat: SampleFormat? = nil, bitRate: Int? = nil, profile: String? = nil,
      threads: Int = 0
    ) {
      self.encoder = encoder
      self.sampleRate = sampleRate
      self.channelLayout = channelLayout
      self.sampleFormat = sampleFormat
      self.bitRate = bitRate
      self.profile = profile
      self.threads = threads
    }
  }
}
