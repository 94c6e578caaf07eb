import OutputKit
import MediaCore
import CFFmpeg

/// Where an input's bytes come from.
public enum InputSource: Sendable, Equatable {
  /// A file (or a named pipe) on the local file system.
  case file(String)
  /// The process's standard input.
  case standardInput
  /// An `http:` or `https:` URL (only when the caller allows the network).
  case url(String)

  /// The name libavformat sees (demuxers log it, and some look at its extension); the bytes
  /// always come from our own `ByteSource`, so no protocol is ever chosen from it.
  package var name: String {
    switch self {
    case .file(let path): return "file:" + path
    case .standardInput: return "pipe:0"
    case .url(let url): return url
    }
  }

  /// True for an `http:`/`https:` URL (what `.url` accepts).
  public static func isRemote(_ text: String) -> Bool {
    let lower = text.lowercased()
    return lower.hasPrefix("http://") || lower.hasPrefix("https://")
  }
}

/// Demuxers that open other resources. Untrusted inputs that probe as one of these are refused.
///
/// Every FFmpeg 5.1 demuxer that opens a file or URL besides its input (`io_open`,
/// `ffio_open_whitelist`, `ffurl_open_whitelist`, a nested `avformat_open_input` by name), from
/// the 5.1.9 sources of libavformat:
/// - `hls` (hls.c: playlists, segments, keys), `dash` (dashdec.c: manifests, segments),
///   `concat` (concatdec.c: each listed file), `imf` (imfdec.c: asset maps, track files);
/// - `image2` (img2dec.c: every file of a pattern, and `NAME.U`/`NAME.V` beside `NAME.y`);
/// - `mlv` (mlvdec.c: `NAME.M00` ... `NAME.M99` beside `NAME.MLV`);
/// - `vobsub` (mpeg.c: the `.sub` file beside an `.idx`, whatever the input is named);
/// - `sdp` (rtsp.c: the RTP sessions it describes), and the network-only `rtsp`, `rtp` and `sap`
///   (rtsp.c, rtspdec.c, sapdec.c), which libavformat never picks for an opened file but are
///   listed so the set is complete.
///
/// Not listed: `mov` opens `dref` data references only with `enable_drefs` (off by default);
/// `avi` opens embedded SRT/ASS subtitles from memory; `matroska` does not follow linked segments.
public let referencingDemuxers: Set<String> = [
  "hls", "dash", "concat", "imf", "image2", "mlv", "vobsub", "sdp", "rtsp", "rtp", "sap",
]

/// Why an input could not be opened by libavformat.
package enum OpenFailure: Error {
  /// No demuxer recognized the bytes.
  case unrecognized
  /// The bytes probe as a demuxer that opens other resources.
  case refused(demuxer: String)
  /// A demuxer recognized the input but could not read it.
  case unreadable(demuxer: String, FFmpegError)
  /// The input itself could not be read.
  case io(FFmpegError)
  /// The format asked for by name is not one of FFmpeg's demuxers.
  case unknownFormat(String)
}

/// FFmpeg's probe picked a demuxer with a low score whose extensions do not include the file's
/// (an MP3 behind 100 kB of junk probes as `amrnb`, score 26); the demuxers the extension names
/// were tried, and the first whose stream decodes was kept, else the probe's.
package struct FormatMismatch: Equatable, Sendable {
  /// The demuxer the probe picked.
  package var detected: String
  /// Its probe score (0-100; an extension alone is worth 50).
  package var score: Int32
  /// The demuxer the file's extension names (the first tried).
  package var expected: String
  /// The demuxer kept.
  package var kept: String
}

/// An open, demuxed input (`AVFormatContext`), closed with `avformat_close_input`.
///
/// Its bytes come from a `ByteSource` through a custom `AVIOContext`; the format is probed on it
/// first so a demuxer that would open other resources is refused before it reads its header.
/// Nested opens (a playlist's entries, with `allowReferences`) may use the `file` protocol only.
package final class InputFile {
  let pointer: UnsafeMutablePointer<AVFormatContext>
  /// The input's bytes (also read by the MP4 box walk, through the same descriptor).
  package let source: ByteSource
  /// Our custom I/O context: libavformat does not free it, we do.
  private var io: UnsafeMutablePointer<AVIOContext>?
  /// Set when the probe's choice contradicted the file's extension with a low score.
  package private(set) var formatMismatch: FormatMismatch?
  /// Bytes of junk skipped before the first frame (MPEG audio, local files only).
  package var skippedBytes: Int64 { source.origin }
  /// Where the demuxer stood when it had read the header (`avformat_open_input`), before any
  /// packet: for a raw stream (FLAC, MP3, ADTS), where its frames begin.
  package private(set) var headerEnd: Int64 = 0

  /// Probes `source`'s bytes, then reads stream information.
  ///
  /// - `image2` (picked from an image file's extension; refused, as it opens other files: a
  ///   pattern's, a `.y` file's `.U`/`.V` planes) becomes the single-image demuxer the bytes
  ///   probe as (`jpeg_pipe`, `png_pipe`, ...) unless `allowReferences`;
  /// - a low-score pick that the extension contradicts is checked against the extension's
  ///   demuxers (`FormatMismatch`);
  /// - MPEG audio behind junk is read from its first frame (`skippedBytes`): when the demuxer was
  ///   asked for or chosen here, and past the 64 KiB FFmpeg's mp3 demuxer searches itself.
  ///
  /// - Parameters:
  ///   - name: the name libavformat sees (`file:path`).
  ///   - allowReferences: let playlist-like demuxers open other local files.
  ///   - format: a demuxer name to use instead of probing (`--input-format`).
  /// - Throws: `OpenFailure`.
  package static func open(
    source: ByteSource, name: String, allowReferences: Bool, format requested: String? = nil
  ) throws(OpenFailure) -> InputFile {
    if let requested {
      guard let format = InputFormats.find(requested) else { throw .unknownFormat(requested) }
      let demuxer = String(cString: format.pointee.name)
      if !allowReferences && InputFormats.isReferencing(demuxer) {
        throw .refused(demuxer: demuxer)
      }
      if source.isLocalFile, let junk = LeadingJunk.length(for: demuxer, in: source), junk > 0 {
        _ = source.skipLeadingBytes(junk)
      }
      return try InputFile(source: source, name: name, format: format, io: nil)
    }
    guard let io = source.makeIOContext() else { throw .io(.posix(ENOMEM)) }
    var owned: UnsafeMutablePointer<AVIOContext>? = io
    var format: UnsafePointer<AVInputFormat>? = nil
    var score = av_probe_input_buffer2(io, &format, name, nil, 0, 0)
    guard score >= 0, var format else {
      ByteSource.freeIOContext(&owned)
      let error = FFmpegError(code: score)
      throw error.isInvalidData || error.isEndOfFile ? .unrecognized : .io(error)
    }
    var demuxer = String(cString: format.pointee.name)
    var isImage = false
    if demuxer == "image2" && !allowReferences {
      // One file is one picture, not a pattern: probe the bytes without the name's extension.
      var still: UnsafePointer<AVInputFormat>? = nil
      let stillScore = av_probe_input_buffer2(io, &still, "", nil, 0, 0)
      if stillScore >= 0, let still, InputFormats.isImagePipe(String(cString: still.pointee.name)) {
        (format, score, isImage) = (still, stillScore, true)
        demuxer = String(cString: still.pointee.name)
      }
    }
    if !allowReferences && InputFormats.isReferencing(demuxer) {
      ByteSource.freeIOContext(&owned)
      throw .refused(demuxer: demuxer)
    }
    let candidates =
      score < AVPROBE_SCORE_EXTENSION && !isImage
      ? InputFormats.named(byExtensionOf: name, excluding: demuxer) : []
    var mismatch = candidates.first.map {
      FormatMismatch(
        detected: demuxer, score: score, expected: String(cString: $0.pointee.name),
        kept: demuxer)
    }
    let local = source.isLocalFile
    if mismatch != nil && local {
      ByteSource.freeIOContext(&owned)
      for candidate in candidates {
        let expected = String(cString: candidate.pointee.name)
        if LeadingJunk.knows(expected) {
          guard let junk = LeadingJunk.length(for: expected, in: source) else { continue }
          guard source.skipLeadingBytes(junk) else { continue }
        } else {
          source.rewind()
        }
        guard decodes(source: source, name: name, format: candidate) else {
          _ = source.skipLeadingBytes(0)
          continue
        }
        source.rewind()
        let input = try InputFile(source: source, name: name, format: candidate, io: nil)
        mismatch?.kept = expected
        input.formatMismatch = mismatch
        return input
      }
      source.rewind()
    } else if local, LeadingJunk.knows(demuxer), score < AVPROBE_SCORE_EXTENSION,
      let junk = LeadingJunk.length(for: demuxer, in: source), junk >= LeadingJunk.ffmpegSearch
    {
      // More junk than FFmpeg's mp3 demuxer looks through (less it skips itself, as the ffmpeg
      // CLI does).
      ByteSource.freeIOContext(&owned)
      _ = source.skipLeadingBytes(junk)
    }
    let input = try InputFile(source: source, name: name, format: format, io: owned)
    input.formatMismatch = mismatch
    return input
  }

  /// Opens `source` with the demuxer `format`, reading through `io` (nil: a new I/O context
  /// from the source's current position, which must be its start), then reads stream
  /// information. Nested opens may use the `file` protocol only.
  ///
  /// - Throws: `OpenFailure`.
  private init(
    source: ByteSource, name: String, format: UnsafePointer<AVInputFormat>,
    io given: UnsafeMutablePointer<AVIOContext>?
  ) throws(OpenFailure) {
    self.source = source
    guard let io = given ?? source.makeIOContext() else { throw .io(.posix(ENOMEM)) }
    var owned: UnsafeMutablePointer<AVIOContext>? = io
    let demuxer = String(cString: format.pointee.name)
    guard let allocated = avformat_alloc_context() else {
      ByteSource.freeIOContext(&owned)
      throw .io(.posix(ENOMEM))
    }
    allocated.pointee.pb = io
    allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
    allocated.pointee.interrupt_callback = source.interruptCallback
    var context: UnsafeMutablePointer<AVFormatContext>? = allocated
    var options: OpaquePointer? = nil
    defer { av_dict_free(&options) }
    av_dict_set(&options, "protocol_whitelist", "file", 0)
    let result = avformat_open_input(&context, name, format, &options)
    guard result >= 0, let context else {
      // avformat_open_input freed the context on failure; the custom I/O is ours to free.
      ByteSource.freeIOContext(&owned)
      throw source.shouldStop
        ? .io(FFmpegError(code: mt_averror_exit))
        : .unreadable(demuxer: demuxer, FFmpegError(code: result))
    }
    self.pointer = context
    self.io = io
    Self.mapDolbyVisionTags(context)
    headerEnd = max(0, avio_tell(io))
    // Before any packet is read: the codec and index of ISO/IEC 23003-5 PCM as `pcmC` says.
    if demuxer.hasPrefix("mov,") { UncompressedPCM.correctStreams(of: self) }
    let info = avformat_find_stream_info(context, nil)
    if info < 0 {
      throw source.shouldStop
        ? .io(FFmpegError(code: mt_averror_exit))
        : .unreadable(demuxer: demuxer, FFmpegError(code: info))
    }
  }

  /// Dolby Vision sample entries FFmpeg 5.1's mov demuxer leaves without a codec: `dav1` (AV1
  /// with a Dolby Vision configuration). `dvh1`/`dvhe` (HEVC) and `dva1`/`dvav` (H.264) it maps
  /// itself; they are listed so that a build that does not still reads them.
  static let dolbyVisionTags: [String: AVCodecID] = [
    "dav1": AV_CODEC_ID_AV1, "dvh1": AV_CODEC_ID_HEVC, "dvhe": AV_CODEC_ID_HEVC,
    "dva1": AV_CODEC_ID_H264, "dvav": AV_CODEC_ID_H264,
  ]

  /// Gives the video streams whose sample entry is a Dolby Vision one and that libavformat left
  /// without a codec their base layer's codec, before stream information is read (so the
  /// decoder parses the `av1C`/`hvcC`/`avcC` extradata for the profile, level and format).
  private static func mapDolbyVisionTags(_ context: UnsafeMutablePointer<AVFormatContext>) {
    guard String(cString: context.pointee.iformat.pointee.name).hasPrefix("mov,") else { return }
    for index in 0..<Int(context.pointee.nb_streams) {
      guard let parameters = context.pointee.streams[index]?.pointee.codecpar,
        parameters.pointee.codec_id == AV_CODEC_ID_NONE,
        parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO,
        let tag = fourCC(parameters.pointee.codec_tag),
        let codec = dolbyVisionTags[tag]
      else { continue }
      parameters.pointee.codec_id = codec
    }
  }

  /// Whether `source`, opened with `format` from its current start, has a first stream that
  /// decodes (the trial is closed before this returns).
  private static func decodes(
    source: ByteSource, name: String, format: UnsafePointer<AVInputFormat>
  ) -> Bool {
    guard let trial = try? InputFile(source: source, name: name, format: format, io: nil) else {
      return false
    }
    return trial.firstStreamDecodes()
  }

  /// Whether the first audio or video stream decodes: its first packets (up to `limit`) give
  /// at least one frame and no decoding error. Reads packets: open the input again to use it.
  package func firstStreamDecodes(limit: Int = 16) -> Bool {
    guard let stream = streams.first(where: { $0.isAudio || $0.isVideo }),
      let decoder = try? stream.openDecoder()
    else { return false }
    let packet = Packet()
    let frame = Frame()
    var frames = 0
    var failed = false
    var sent = 0
    var reads = 0
    while sent < limit, reads < 64 * limit, (try? read(into: packet)) == true {
      reads += 1
      defer { packet.unref() }
      guard packet.streamIndex == stream.index else { continue }
      sent += 1
      decoder.decode(packet, into: frame, failure: { _ in failed = true }) { _ in
        frames += 1
        return true
      }
    }
    decoder.decode(nil, into: frame, failure: { _ in failed = true }) { _ in
      frames += 1
      return true
    }
    return frames > 0 && !failed
  }

  deinit {
    var context: UnsafeMutablePointer<AVFormatContext>? = pointer
    avformat_close_input(&context)
    ByteSource.freeIOContext(&io)
  }
  /// The demuxer's short name (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, ...).
  package var formatName: String { String(cString: pointer.pointee.iformat.pointee.name) }

  /// Where the demuxer's (and its parsers') log messages go (`DecodeLog.token`); nil: nowhere.
  package var logToken: UnsafeMutableRawPointer? {
    get { pointer.pointee.opaque }
    set { pointer.pointee.opaque = newValue }
  }

  /// The file's start time in seconds (libavformat's `start_time`), nil when unknown.
  package var startSeconds: Double? {
    let start = pointer.pointee.start_time
    return start == mt_nopts_value ? nil : Double(start) / Double(mt_time_base)
  }

  /// The container's duration in seconds (libavformat's `duration`), nil when unknown.
  package var durationSeconds: Double? {
    let duration = pointer.pointee.duration
    return duration == mt_nopts_value || duration <= 0
      ? nil : Double(duration) / Double(mt_time_base)
  }

  /// How libavformat found the file's duration.
  package enum DurationEstimation: Sendable {
    /// From the streams' timestamps.
    case timestamps
    /// From a stream's own duration.
    case stream
    /// From the bit rate and the file size (not exact).
    case bitrate
  }

  /// How libavformat found `durationMicroseconds`.
  package var durationEstimation: DurationEstimation {
    switch pointer.pointee.duration_estimation_method {
    case AVFMT_DURATION_FROM_BITRATE: .bitrate
    case AVFMT_DURATION_FROM_STREAM: .stream
    default: .timestamps
    }
  }

  /// The file's duration in microseconds (`AVFormatContext.duration`), nil when unknown.
  package var durationMicroseconds: Int64? {
    let duration = pointer.pointee.duration
    return duration == mt_nopts_value || duration <= 0 ? nil : duration
  }

  /// The demuxer's long name (`QuickTime / MOV`).
  package var formatLongName: String? {
    pointer.pointee.iformat.pointee.long_name.map { String(cString: $0) }
  }

  /// The container's bit rate, when known.
  package var bitRate: Int64? { pointer.pointee.bit_rate > 0 ? pointer.pointee.bit_rate : nil }

  /// A container metadata tag.
  package func tag(_ key: String) -> String? { metadataValue(pointer.pointee.metadata, key) }

  /// Every container metadata tag.
  package var tags: [String: String] { metadataDictionary(pointer.pointee.metadata) }

  /// libavformat estimated the durations from the bit rate and the file size (not exact).
  package var durationFromBitrate: Bool {
    pointer.pointee.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE
  }

  /// The number of streams.
  package var streamCount: Int { Int(pointer.pointee.nb_streams) }

  /// The stream at `index`, borrowed from this input (valid while `self` is alive).
  func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> {
    pointer.pointee.streams[index]!
  }

  /// Seeks so that decoding starts at or before `microseconds` (AV_TIME_BASE units, any stream),
  /// as `avformat_seek_file(ic, -1, INT64_MIN, ts, ts, 0)`.
  ///
  /// - Throws: `FFmpegError` when the format cannot seek there.
  package func seek(toMicroseconds timestamp: Int64) throws(FFmpegError) {
    try check(avformat_seek_file(pointer, -1, Int64.min, timestamp, timestamp, 0))
  }

  /// Seeks to the keyframe nearest `microseconds` whose time lies in `range` (AV_TIME_BASE
  /// units, any stream), as `avformat_seek_file(ic, -1, min, ts, max, 0)`.
  ///
  /// - Throws: `FFmpegError` when no keyframe lies in the range or the format cannot seek.
  package func seek(toMicroseconds timestamp: Int64, within range: ClosedRange<Int64>)
    throws(FFmpegError)
  {
    try check(avformat_seek_file(pointer, -1, range.lowerBound, timestamp, range.upperBound, 0))
  }

  /// Tells the demuxer to drop every stream but `index` (call after seeking).
  package func discardAll(except index: Int) {
    for other in 0..<streamCount where other != index {
      stream(other).pointee.discard = AVDISCARD_ALL
    }
  }

  /// Tells the demuxer to drop every stream not in `kept` (a render reads only what it writes).
  package func discardAll(except kept: Set<Int>) {
    for other in 0..<streamCount where !kept.contains(other) {
      stream(other).pointee.discard = AVDISCARD_ALL
    }
  }

  /// Where the demuxer stands in the input's bytes (after the end: how far it read).
  package var readPosition: Int64 {
    guard let pb = pointer.pointee.pb else { return 0 }
    return avio_tell(pb)
  }

  /// Reads the next packet into `packet`.
  ///
  /// - Returns: false at the end of the input.
  /// - Throws: `FFmpegError` for read errors other than the end of the input.
  package func read(into packet: Packet) throws(FFmpegError) -> Bool {
    let result = av_read_frame(pointer, packet.pointer)
    if result == mt_averror_eof { return false }
    try check(result)
    return true
  }
}
