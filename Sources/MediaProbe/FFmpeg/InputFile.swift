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
  var name: String {
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
}

/// An open, demuxed input (`AVFormatContext`), closed with `avformat_close_input`.
///
/// Its bytes come from a `ByteSource` through a custom `AVIOContext`; the format is probed on it
/// first so a demuxer that would open other resources is refused before it reads its header.
/// Nested opens (a playlist's entries, with `allowReferences`) may use the `file` protocol only.
package final class InputFile {
  package let pointer: UnsafeMutablePointer<AVFormatContext>
  /// The input's bytes (also read by the MP4 box walk, through the same descriptor).
  package let source: ByteSource
  /// Our custom I/O context: libavformat does not free it, we do.
  private var io: UnsafeMutablePointer<AVIOContext>?
  /// Where the demuxer stood when it had read the header (`avformat_open_input`), before any
  /// packet: for a raw stream (FLAC, MP3, ADTS), where its frames begin.
  package private(set) var headerEnd: Int64 = 0

  /// Probes `source`'s bytes, then reads stream information.
  ///
  /// - Parameters:
  ///   - name: the name libavformat sees (`file:path`).
  ///   - allowReferences: let playlist-like demuxers open other local files.
  /// - Throws: `OpenFailure`.
  package init(source: ByteSource, name: String, allowReferences: Bool) throws(OpenFailure) {
    self.source = source
    guard let io = source.makeIOContext() else { throw .io(.posix(ENOMEM)) }
    var owned: UnsafeMutablePointer<AVIOContext>? = io
    var format: UnsafePointer<AVInputFormat>? = nil
    let score = av_probe_input_buffer2(io, &format, name, nil, 0, 0)
    guard score >= 0, let format else {
      ByteSource.freeIOContext(&owned)
      let error = FFmpegError(code: score)
      throw error.isInvalidData || error.isEndOfFile ? .unrecognized : .io(error)
    }
    let demuxer = String(cString: format.pointee.name)
    if !allowReferences
      && !Set(demuxer.split(separator: ",").map(String.init)).isDisjoint(with: referencingDemuxers)
    {
      ByteSource.freeIOContext(&owned)
      throw .refused(demuxer: demuxer)
    }
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

  deinit {
    var context: UnsafeMutablePointer<AVFormatContext>? = pointer
    avformat_close_input(&context)
    ByteSource.freeIOContext(&io)
  }
  /// The demuxer's short name (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, ...).
  package var formatName: String { String(cString: pointer.pointee.iformat.pointee.name) }

  /// The number of streams.
  package var streamCount: Int { Int(pointer.pointee.nb_streams) }

  /// The stream at `index`, borrowed from this input (valid while `self` is alive).
  package func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> {
    pointer.pointee.streams[index]!
  }

  /// Seeks so that decoding starts at or before `microseconds` (AV_TIME_BASE units, any stream),
  /// as `avformat_seek_file(ic, -1, INT64_MIN, ts, ts, 0)`.
  ///
  /// - Throws: `FFmpegError` when the format cannot seek there.
  package func seek(toMicroseconds timestamp: Int64) throws(FFmpegError) {
    try check(avformat_seek_file(pointer, -1, Int64.min, timestamp, timestamp, 0))
  }

  /// Tells the demuxer to drop every stream but `index` (call after seeking).
  package func discardAll(except index: Int) {
    for other in 0..<streamCount where other != index {
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
