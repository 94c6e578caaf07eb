/// Everything `mediaprobe` reports about one media file.
///
/// Encoded to JSON with snake_case keys (`MediaToolsJSONEncoder`); unknown values are `null`.
public struct MediaInfo: Codable, Sendable, Equatable {
  /// The path as given (`-` for standard input).
  public var path: String
  /// The file's size in bytes; null for standard input and FIFOs.
  @NullEncoded public var sizeBytes: Int64?
  /// Bytes the probe read from the input (for a URL, what came over the network).
  public var bytesRead: Int64 = 0
  /// The container: demuxer, brand, bit rate, fast start, tags.
  public var container: Container
  /// The file's duration as a player presents it: the container's declared presentation
  /// duration (MP4 movie header with its edit lists, Matroska Segment Duration, FLV's declared
  /// duration, Ogg's last granule, the MP3 Xing header), from the streams only when the container
  /// declares none, holds a sentinel, or is estimated (then `source` says so). Null when nothing
  /// knows it.
  @NullEncoded public var duration: MediaDuration?
  /// With `--scan`: the interval the audio and video samples cover, earliest start to latest end,
  /// exact. It never replaces `duration`; when the two differ by more than one frame the warning
  /// `container_duration_differs` says so. Null without `--scan`.
  @NullEncoded public var span: SampleSpan? = nil
  /// Every stream, in container order.
  public var streams: [MediaStream]
  /// True when `--scan` demuxed every packet, so counts and durations are exact.
  public var scanned: Bool
  /// Things a script should know that did not stop the probe, as stable codes (see
  /// `ProbeWarning`), e.g. `duration_from_bitrate` or `mdat_size_past_eof`.
  public var warnings: [ProbeWarning] = []
  /// With `--verify`: `ok`, `damaged`, `truncated` or `undecodable`; null otherwise.
  @NullEncoded public var integrity: Integrity? = nil

  /// A value with every field given.
  package init(
    path: String, sizeBytes: Int64? = nil, bytesRead: Int64 = 0, container: Container,
    duration: MediaDuration? = nil, streams: [MediaStream], scanned: Bool,
    warnings: [ProbeWarning] = [], integrity: Integrity? = nil, span: SampleSpan? = nil
  ) {
    self.path = path
    self.sizeBytes = sizeBytes
    self.bytesRead = bytesRead
    self.container = container
    self.duration = duration
    self.streams = streams
    self.scanned = scanned
    self.warnings = warnings
    self.integrity = integrity
    self.span = span
  }
}

/// The interval a file's audio and video samples cover (`--scan`): from the earliest presented
/// time of any audio or video stream to the latest end of any, exact (`value / timescale`
/// seconds long, in the least common multiple of the streams' time bases when it fits).
public struct SampleSpan: Codable, Sendable, Equatable {
  /// The earliest presented time, in seconds on the file's timeline.
  public var start: Double
  /// The latest end, in seconds on the file's timeline.
  public var end: Double
  /// The length in seconds (`value / timescale`).
  public var seconds: Double
  /// The numerator of the exact length.
  public var value: Int64
  /// The denominator of the exact length (units per second).
  public var timescale: Int64

  /// The span from `start` to `end`.
  public init(start: MediaTime, end: MediaTime) {
    let length = end - start
    self.start = start.seconds
    self.end = end.seconds
    self.seconds = length.seconds
    self.value = length.value
    self.timescale = length.timescale
  }
}

/// Something a probe noticed that did not stop it. Encoded as its stable code.
public enum ProbeWarning: String, Codable, Sendable, Comparable {
  /// The file's duration was estimated from the bit rate and the file size (not exact).
  case durationFromBitrate = "duration_from_bitrate"
  /// The container's declared duration and what its samples cover differ: with `--scan`, by
  /// more than one frame (a subtitle track lasting longer, audio past the movie header's end, a
  /// header that is simply wrong; `duration` keeps the declared value, `span` has the samples');
  /// in an AVI, a header claiming frames its index does not hold (the duration is the stored
  /// frames', `source: index`).
  case containerDurationDiffers = "container_duration_differs"
  /// The container's duration holds the "unknown" sentinel (0xFFFFFFFF); the duration reported
  /// comes from elsewhere (the movie fragments, a scan) or is null.
  case durationSentinel = "duration_sentinel"
  /// The MP4 `mdat` box claims to extend past the end of the file, but every sample lies inside.
  case mdatSizePastEOF = "mdat_size_past_eof"
  /// A container's frame count was left out (null) because it disagrees with what the file
  /// stores or presents (an AVI header, an edit-listed MP4).
  case indexCountUntrusted = "index_count_untrusted"
  /// The frame rate in the headers was implausible or self-contradictory; `best` comes from the
  /// timestamps of the first packets.
  case frameRateFromTimestamps = "frame_rate_from_timestamps"
  /// The byte limit (`--max-bytes`) stopped reading before the end of the input.
  case byteLimitReached = "byte_limit_reached"
  /// A stream ends with bytes that hold no frame (a fragment after the last MPEG audio frame,
  /// shorter than a frame header): the demuxer presents it as a packet (it counts in
  /// `frame_count`), but it is left out of the span and is not damage. Seen with `--scan` and
  /// `--verify`, which read the packets.
  case trailingData = "trailing_data"
  /// FFmpeg's probe named, with a low score, a format the file's extension contradicts (an MP3
  /// behind junk probes as AMR); the extension's format was tried and kept if its stream
  /// decodes (`container.format_name` says which was kept).
  case formatMismatch = "format_mismatch"
  /// Bytes of junk come before the first frame of an MPEG audio file; they were skipped
  /// (the durations and the decoding start at the first frame).
  case leadingJunk = "leading_junk"
  /// `--scan`: a stream's timestamps jump further than the file's packets can fill (a mutated
  /// or spliced timestamp); the span leaves the jump out (see `TimestampScan`).
  case timestampDiscontinuity = "timestamp_discontinuity"
  /// A remote input's server answered a range request with the whole body (no ranges): the
  /// input was read once, in order, as a pipe is (a file whose index is at the end cannot be
  /// read that way, and the server may have sent more than was read).
  case remoteWithoutRanges = "remote_without_ranges"
  /// An audio or video stream's codec has no decoder in FFmpeg (5.1): its codec is named from
  /// the container (`codec_supported: false`), its sample rate and channels are the
  /// container's, and its `--scan` count is the container's framing (`transport`).
  case codecUnsupported = "codec_unsupported"

  /// Sorted by code.
  public static func < (a: ProbeWarning, b: ProbeWarning) -> Bool { a.rawValue < b.rawValue }
}

/// Where a frame count came from.
public enum FrameCountSource: String, Codable, Sendable {
  /// The container's sample index, as the demuxer applies it (MP4 `stsz` with its edit list,
  /// AVI `idx1`): the presented frames.
  case index
  /// The movie's sample table plus its movie fragments (`trun`), read from the boxes.
  case fragments
  /// A header field (an MP3 Xing frame count).
  case header
  /// A tag written by the muxer (Matroska `NUMBER_OF_FRAMES`).
  case tag
  /// `--scan` counted every presented packet.
  case scan
  /// `--scan` counted the access units the container frames, for a codec FFmpeg cannot parse
  /// (`codec_supported: false`): MPEG-TS PES packets (each starts a TS packet with
  /// payload_unit_start_indicator), MP4 samples.
  case transport
}

/// The container of a media file.
public struct Container: Codable, Sendable, Equatable {
  /// The demuxer's short name, e.g. `mov,mp4,m4a,3gp,3g2,mj2` or `matroska,webm`.
  public var formatName: String
  /// The demuxer's long name.
  @NullEncoded public var formatLongName: String?
  /// The ISO BMFF major brand (`isom`, `qt  `, `M4A `, ...), for MP4/MOV/3GP.
  @NullEncoded public var majorBrand: String?
  /// The overall bit rate in bits per second.
  @NullEncoded public var bitRate: Int64?
  /// The first timestamp, in seconds.
  @NullEncoded public var startTime: Double?
  /// For MP4/MOV: whether the `moov` box comes before `mdat` (progressive playback can start
  /// before the whole file arrives). Null for other containers and for pipes.
  @NullEncoded public var fastStart: Bool?
  /// The container's metadata tags (title, artist, creation_time, encoder, ...).
  public var tags: [String: String]

  /// A value with every field given.
  package init(
    formatName: String, formatLongName: String? = nil, majorBrand: String? = nil,
    bitRate: Int64? = nil, startTime: Double? = nil, fastStart: Bool? = nil, tags: [String: String]
  ) {
    self.formatName = formatName
    self.formatLongName = formatLongName
    self.majorBrand = majorBrand
    self.bitRate = bitRate
    self.startTime = startTime
    self.fastStart = fastStart
    self.tags = tags
  }
}

/// The kind of a stream.
public enum StreamType: String, Codable, Sendable {
  case video, audio, subtitle, data, attachment, unknown
}

/// One stream (track) of a media file.
public struct MediaStream: Codable, Sendable, Equatable {
  /// The stream's index in the container.
  public var index: Int
  /// video, audio, subtitle, data or attachment.
  public var type: StreamType
  /// The codec: name, tag, profile, level.
  public var codec: Codec
  /// Audio and video: whether FFmpeg has a decoder for the codec. When false the codec is named
  /// from the container's own identification (an MPEG-TS `stream_type` or descriptor, an MP4
  /// sample entry), and counts come from the container's framing (`frame_count_source`
  /// `transport` under `--scan`). Null for other stream types.
  @NullEncoded public var codecSupported: Bool? = nil
  /// The stream's bit rate in bits per second.
  @NullEncoded public var bitRate: Int64?
  /// The stream's duration; null when the container does not give one.
  @NullEncoded public var duration: MediaDuration?
  /// Number of presented frames (packets): from the container's index or headers when they can be
  /// trusted, exact after `--scan`; null rather than a wrong count.
  @NullEncoded public var frameCount: Int64?
  /// Where `frame_count` came from; null when it is null.
  @NullEncoded public var frameCountSource: FrameCountSource? = nil
  /// The stream's time base: timestamps count in units of this many seconds.
  public var timeBase: Rational
  /// The language tag (ISO 639-2, e.g. `eng`).
  @NullEncoded public var language: String?
  /// The stream's title tag.
  @NullEncoded public var title: String?
  /// Disposition flags (`default`, `forced`, `attached_pic`, ...), every known flag present.
  public var disposition: [String: Bool]
  /// Video properties; null for other stream types.
  @NullEncoded public var video: VideoInfo?
  /// Audio properties; null for other stream types.
  @NullEncoded public var audio: AudioInfo?
  /// With `--verify`, what decoding the stream to the end found (audio and video streams);
  /// null otherwise.
  @NullEncoded public var decode: DecodeReport? = nil

  /// A value with every field given.
  package init(
    index: Int, type: StreamType, codec: Codec, bitRate: Int64? = nil,
    duration: MediaDuration? = nil, frameCount: Int64? = nil,
    frameCountSource: FrameCountSource? = nil, timeBase: Rational, language: String? = nil,
    title: String? = nil, disposition: [String: Bool], video: VideoInfo? = nil,
    audio: AudioInfo? = nil, decode: DecodeReport? = nil
  ) {
    self.index = index
    self.type = type
    self.codec = codec
    self.bitRate = bitRate
    self.duration = duration
    self.frameCount = frameCount
    self.frameCountSource = frameCountSource
    self.timeBase = timeBase
    self.language = language
    self.title = title
    self.disposition = disposition
    self.video = video
    self.audio = audio
    self.decode = decode
  }
}

/// A stream's codec.
public struct Codec: Codable, Sendable, Equatable {
  /// FFmpeg's short codec name (`h264`, `hevc`, `aac`, ...).
  public var name: String
  /// FFmpeg's long codec name.
  @NullEncoded public var longName: String?
  /// The FourCC sample entry / codec tag (`avc1`, `hvc1`, `hev1`, `mp4a`), when it has one.
  @NullEncoded public var tag: String?
  /// The profile name (`High`, `Main 10`, `LC`, ...).
  @NullEncoded public var profile: String?
  /// The level in human form (`4.1` for H.264 level_idc 41, `5.1` for HEVC 153).
  @NullEncoded public var level: String?

  /// A value with every field given.
  package init(
    name: String, longName: String? = nil, tag: String? = nil, profile: String? = nil,
    level: String? = nil
  ) {
    self.name = name
    self.longName = longName
    self.tag = tag
    self.profile = profile
    self.level = level
  }
}

/// Properties of a video stream.
public struct VideoInfo: Codable, Sendable, Equatable {
  /// The natural (stored) width in pixels.
  public var width: Int
  /// The natural (stored) height in pixels.
  public var height: Int
  /// The coded width (macroblock-aligned), when a decoder reports it.
  @NullEncoded public var codedWidth: Int?
  /// The coded height (macroblock-aligned), when a decoder reports it.
  @NullEncoded public var codedHeight: Int?
  /// The pixel format (`yuv420p`, `yuv420p10le`, ...).
  @NullEncoded public var pixelFormat: String?
  /// Bits per colour component.
  @NullEncoded public var bitDepth: Int?
  /// Chroma subsampling (`4:2:0`, `4:2:2`, `4:4:4`).
  @NullEncoded public var chromaSubsampling: String?
  /// The sample (pixel) aspect ratio; null when unknown (0:1).
  @NullEncoded public var sampleAspectRatio: Rational?
  /// The display aspect ratio of the natural size with the sample aspect ratio applied.
  @NullEncoded public var displayAspectRatio: Rational?
  /// True when the sample aspect ratio is known and not 1:1.
  public var anamorphic: Bool
  /// `progressive`, `tt`, `bb`, `tb` or `bt` (field order), null when unknown.
  @NullEncoded public var fieldOrder: String?
  /// Whether the content is interlaced (from the first decoded frame where possible).
  @NullEncoded public var interlaced: Bool?
  /// Colour description.
  public var color: ColorInfo
  /// `hdr10`, `hlg`, `dolby_vision`, or null for SDR/unknown.
  @NullEncoded public var hdr: String?
  /// The Dolby Vision configuration record (`dvcC`/`dvvC`), null when the stream has none.
  @NullEncoded public var dolbyVision: DolbyVision? = nil
  /// Nominal and average frame rates (and the scan's verdict with `--scan`).
  public var frameRate: FrameRate
  /// The display orientation (the track matrix), as AVFoundation's `preferredTransform`.
  public var orientation: Orientation

  /// A value with every field given.
  package init(
    width: Int, height: Int, codedWidth: Int? = nil, codedHeight: Int? = nil,
    pixelFormat: String? = nil, bitDepth: Int? = nil, chromaSubsampling: String? = nil,
    sampleAspectRatio: Rational? = nil, displayAspectRatio: Rational? = nil, anamorphic: Bool,
    fieldOrder: String? = nil, interlaced: Bool? = nil, color: ColorInfo, hdr: String? = nil,
    dolbyVision: DolbyVision? = nil, frameRate: FrameRate, orientation: Orientation
  ) {
    self.width = width
    self.height = height
    self.codedWidth = codedWidth
    self.codedHeight = codedHeight
    self.pixelFormat = pixelFormat
    self.bitDepth = bitDepth
    self.chromaSubsampling = chromaSubsampling
    self.sampleAspectRatio = sampleAspectRatio
    self.displayAspectRatio = displayAspectRatio
    self.anamorphic = anamorphic
    self.fieldOrder = fieldOrder
    self.interlaced = interlaced
    self.color = color
    self.hdr = hdr
    self.dolbyVision = dolbyVision
    self.frameRate = frameRate
    self.orientation = orientation
  }
}

/// A Dolby Vision decoder configuration record (the `dvcC`/`dvvC` box of an MP4 sample entry,
/// Matroska's `BlockAdditionMapping`), as FFmpeg exports it (`AV_PKT_DATA_DOVI_CONF`).
public struct DolbyVision: Codable, Sendable, Equatable {
  /// The record's version, `major.minor` (`1.0`).
  public var version: String
  /// The Dolby Vision profile (5, 7, 8, 9 for H.264/HEVC, 10 for AV1, ...).
  public var profile: Int
  /// The Dolby Vision level (1-13: resolution and frame rate).
  public var level: Int
  /// The stream carries the reference processing unit (RPU) metadata.
  public var rpuPresent: Bool
  /// The stream carries an enhancement layer.
  public var elPresent: Bool
  /// The stream carries a base layer.
  public var blPresent: Bool
  /// What a player without Dolby Vision gets from the base layer (0 none, 1 HDR10, 2 SDR,
  /// 4 HLG, 6 BT.2100 PQ).
  public var blCompatibilityId: Int

  /// A value with every field given.
  package init(
    version: String, profile: Int, level: Int, rpuPresent: Bool, elPresent: Bool, blPresent: Bool,
    blCompatibilityId: Int
  ) {
    self.version = version
    self.profile = profile
    self.level = level
    self.rpuPresent = rpuPresent
    self.elPresent = elPresent
    self.blPresent = blPresent
    self.blCompatibilityId = blCompatibilityId
  }
}

/// Colour description of a video stream (null fields are unspecified in the stream).
public struct ColorInfo: Codable, Sendable, Equatable {
  /// `tv` (limited) or `pc` (full).
  @NullEncoded public var range: String?
  /// Colour primaries (`bt709`, `bt2020`, ...).
  @NullEncoded public var primaries: String?
  /// Transfer characteristics (`bt709`, `smpte2084`, `arib-std-b67`, ...).
  @NullEncoded public var transfer: String?
  /// Matrix coefficients (`bt709`, `bt2020nc`, ...).
  @NullEncoded public var matrix: String?

  /// A value with every field given.
  package init(
    range: String? = nil, primaries: String? = nil, transfer: String? = nil, matrix: String? = nil
  ) {
    self.range = range
    self.primaries = primaries
    self.transfer = transfer
    self.matrix = matrix
  }
}

/// Properties of an audio stream.
public struct AudioInfo: Codable, Sendable, Equatable {
  /// Samples per second; null when the stream does not say (nothing decodable).
  @NullEncoded public var sampleRate: Int?
  /// Number of channels; null when the stream does not say.
  @NullEncoded public var channels: Int?
  /// The channel layout's name (`mono`, `stereo`, `5.1(side)`, ...), null when unspecified.
  @NullEncoded public var channelLayout: String?
  /// The decoder's sample format (`fltp`, `s16`, `s32`, ...).
  @NullEncoded public var sampleFormat: String?
  /// Bits per sample of the source (24 for 24-bit FLAC, 16 for pcm_s16le), when meaningful.
  @NullEncoded public var bitsPerSample: Int?

  /// A value with every field given.
  package init(
    sampleRate: Int? = nil, channels: Int? = nil, channelLayout: String? = nil,
    sampleFormat: String? = nil, bitsPerSample: Int? = nil
  ) {
    self.sampleRate = sampleRate
    self.channels = channels
    self.channelLayout = channelLayout
    self.sampleFormat = sampleFormat
    self.bitsPerSample = bitsPerSample
  }
}
