import CFFmpeg
import MediaCore
import OutputKit

/// An output container being written (`AVFormatContext` with our own `AVIOContext`), freed with
/// `avformat_free_context`.
///
/// The bytes go to an `OutputFile`'s descriptor (the project's atomic output: an unnamed file
/// linked into place only when the caller commits it); libavformat never opens a path. The MP4
/// muxer's faststart pass, which re-opens the output by its URL to read it back, is given a
/// second context reading the same descriptor (`io_open`, closed through `io_close2`, which
/// FFmpeg 5.1 calls); any other URL is refused. A write error keeps its `errno` (`ENOSPC`,
/// `EFBIG`), which FFmpeg alone would replace with a later code.
///
/// Order of use: add streams, chapters and metadata; `writeHeader`; `write` packets; `finish`.
/// The muxer never commits or removes the output: its owner does.
package final class Muxer {
  let pointer: UnsafeMutablePointer<AVFormatContext>
  /// The output written (kept open while the muxer writes into it).
  package let output: OutputFile
  private let io: DescriptorIO
  private var writeContext: UnsafeMutablePointer<AVIOContext>?
  /// Read-back contexts opened by the muxer through `io_open`, until it closes them.
  private var readers: [UnsafeMutablePointer<AVIOContext>: DescriptorIO] = [:]
  private var headerWritten = false
  private var finished = false

  /// Prepares a `format` container (`mp4`, `matroska`, `mov`, ...) written into `output` from
  /// its start.
  ///
  /// - Parameters:
  ///   - output: where the bytes go. A file (seekable; read back for MP4's faststart), or a
  ///     stream (a pipe: written in order, for formats that need no seeking).
  ///   - name: the output's name for libavformat's messages and its `io_open` requests; never
  ///     opened.
  ///   - shouldStop: asked before each write (and each read-back); true stops the muxer with
  ///     `AVERROR_EXIT` (`stopped`). By default an interruption (SIGINT, SIGTERM).
  /// - Throws: `FFmpegError`: `AVERROR_MUXER_NOT_FOUND` for an unknown format, `EINVAL` for a
  ///   format that writes no file of its own (`AVFMT_NOFILE`: image sequences, HLS, tee).
  package init(
    format: String, output: OutputFile, name: String,
    shouldStop: @escaping () -> Bool = { Interruption.isRequested }
  ) throws(FFmpegError) {
    guard let outputFormat = av_guess_format(format, nil, nil) else {
      throw FFmpegError(code: mt_averror_muxer_not_found, message: "no muxer named \(format)")
    }
    guard outputFormat.pointee.flags & AVFMT_NOFILE == 0 else {
      throw FFmpegError(
        code: mt_averror(EINVAL), message: "the \(format) muxer opens files of its own")
    }
    var allocated: UnsafeMutablePointer<AVFormatContext>? = nil
    try check(avformat_alloc_output_context2(&allocated, outputFormat, nil, name))
    guard let context = allocated else { throw .posix(ENOMEM) }
    let io = DescriptorIO(fd: output.fd, seekable: output.seekable, shouldStop: shouldStop)
    guard let writer = io.makeContext(writable: true) else {
      avformat_free_context(context)
      throw .posix(ENOMEM)
    }
    self.output = output
    self.io = io
    pointer = context
    writeContext = writer
    // No AVFMT_FLAG_CUSTOM_IO: libavformat never closes a muxer's `pb` (deinit frees it), 5.1's
    // muxers do not look at the flag, and old ones (2.x movenc) turned faststart off when set.
    context.pointee.pb = writer
    context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
    context.pointee.io_open = { context, pb, url, flags, _ in
      guard let context, let pb, let opaque = context.pointee.opaque else {
        return mt_averror(EINVAL)
      }
      let muxer = Unmanaged<Muxer>.fromOpaque(opaque).takeUnretainedValue()
      return muxer.open(pb, url: url, flags: flags)
    }
    context.pointee.io_close2 = { context, pb in
      guard let context, let pb, let opaque = context.pointee.opaque else { return 0 }
      let muxer = Unmanaged<Muxer>.fromOpaque(opaque).takeUnretainedValue()
      return muxer.close(pb)
    }
  }

  deinit {
    for (context, _) in readers {
      var owned: UnsafeMutablePointer<AVIOContext>? = context
      DescriptorIO.freeContext(&owned)
    }
    pointer.pointee.pb = nil
    DescriptorIO.freeContext(&writeContext)
    avformat_free_context(pointer)
  }

  /// libavformat's request to open `url`: only the output itself, for reading back.
  private func open(
    _ pb: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>,
    url: UnsafePointer<CChar>?, flags: Int32
  ) -> Int32 {
    guard io.seekable else { return mt_averror(ESPIPE) }
    guard let url, let own = pointer.pointee.url, strcmp(url, own) == 0,
      flags & AVIO_FLAG_WRITE == 0
    else { return mt_averror(EPERM) }
    // The read-back stops when the writer would (and the writer then knows it was stopped).
    let reader = DescriptorIO(
      fd: io.fd, seekable: true, shouldStop: { [io] in io.stopRequested() })
    guard let context = reader.makeContext(writable: false) else { return mt_averror(ENOMEM) }
    readers[context] = reader
    pb.pointee = context
    return 0
  }

  /// libavformat closing a context `open` gave it.
  private func close(_ pb: UnsafeMutablePointer<AVIOContext>) -> Int32 {
    guard readers.removeValue(forKey: pb) != nil else { return 0 }
    var owned: UnsafeMutablePointer<AVIOContext>? = pb
    DescriptorIO.freeContext(&owned)
    return 0
  }

  /// The format's short name (`mp4`, `matroska`).
  package var formatName: String { String(cString: pointer.pointee.oformat.pointee.name) }

  /// The format wants codec configuration in the streams' extradata (`AVFMT_GLOBALHEADER`):
  /// open encoders with `globalHeader: true`.
  package var needsGlobalHeader: Bool {
    pointer.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0
  }

  /// The number of streams added.
  package var streamCount: Int { Int(pointer.pointee.nb_streams) }

  /// Adds a stream for `encoder`'s packets (open the encoder first).
  ///
  /// - Returns: the stream's index.
  /// - Throws: `FFmpegError` when memory runs out or the header was written.
  @discardableResult
  package func addStream(for encoder: CodecEncoder) throws(FFmpegError) -> Int {
    let stream = try newStream()
    try check(avcodec_parameters_from_context(stream.pointee.codecpar, encoder.pointer))
    stream.pointee.time_base = encoder.pointer.pointee.time_base
    if encoder.kind == .video {
      stream.pointee.avg_frame_rate = encoder.pointer.pointee.framerate
      stream.pointee.sample_aspect_ratio = encoder.pointer.pointee.sample_aspect_ratio
    }
    return Int(stream.pointee.index)
  }

  /// Adds a stream whose packets are copied from `source` (remuxing), as the ffmpeg CLI's
  /// stream copy sets it up: the codec parameters, the codec tag when this format accepts it
  /// (else the muxer picks its own), frame rate, pixel aspect ratio, timing hints
  /// (`avformat_transfer_internal_stream_timing_info`), duration, side data (a display matrix,
  /// HDR metadata), disposition and tags.
  ///
  /// - Returns: the stream's index.
  /// - Throws: `FFmpegError` when memory runs out or the header was written.
  @discardableResult
  package func addStream(copying source: StreamView) throws(FFmpegError) -> Int {
    let input = source.input.stream(source.index)
    let stream = try newStream()
    let parameters = input.pointee.codecpar!
    try check(avcodec_parameters_copy(stream.pointee.codecpar, parameters))
    // MP3 has no decoder configuration in MP4 (ISO/IEC 14496-3 gives object type 0x6B none),
    // but AVI's MPEGLAYER3WAVEFORMAT leaves 12 bytes of extradata that the MP4 muxer writes as a
    // DecoderSpecificInfo, and Firefox then decodes no audio (the browser oracle; the ffmpeg
    // CLI's own -c copy writes the same box). Dropped for the MP4 family.
    if parameters.pointee.codec_id == AV_CODEC_ID_MP3,
      ["mp4", "mov", "ipod", "3gp"].contains(formatName)
    {
      av_freep(&stream.pointee.codecpar.pointee.extradata)
      stream.pointee.codecpar.pointee.extradata_size = 0
    }
    let tags = pointer.pointee.oformat.pointee.codec_tag
    var tag: UInt32 = 0
    if tags == nil
      || av_codec_get_id(tags, parameters.pointee.codec_tag) == parameters.pointee.codec_id
      || av_codec_get_tag2(tags, parameters.pointee.codec_id, &tag) == 0
    {
      stream.pointee.codecpar.pointee.codec_tag = parameters.pointee.codec_tag
    } else {
      stream.pointee.codecpar.pointee.codec_tag = 0
    }
    stream.pointee.avg_frame_rate = input.pointee.avg_frame_rate
    stream.pointee.r_frame_rate = input.pointee.r_frame_rate
    stream.pointee.sample_aspect_ratio = input.pointee.sample_aspect_ratio
    try check(
      avformat_transfer_internal_stream_timing_info(
        pointer.pointee.oformat, stream, input, AVFMT_TBCF_AUTO))
    if stream.pointee.time_base.num <= 0 || stream.pointee.time_base.den <= 0 {
      stream.pointee.time_base = input.pointee.time_base
    }
    if input.pointee.duration > 0 {
      stream.pointee.duration = av_rescale_q(
        input.pointee.duration, input.pointee.time_base, stream.pointee.time_base)
    }
    for item in 0..<Int(input.pointee.nb_side_data) {
      let data = input.pointee.side_data[item]
      guard let copy = av_stream_new_side_data(stream, data.type, data.size) else {
        throw .posix(ENOMEM)
      }
      copy.update(from: data.data, count: data.size)
    }
    stream.pointee.disposition = input.pointee.disposition
    try check(av_dict_copy(&stream.pointee.metadata, input.pointee.metadata, 0))
    return Int(stream.pointee.index)
  }

  /// Gives stream `index` (an encoder's) what the ffmpeg CLI keeps of the input stream it was
  /// made from: its tags (`language`, `title`, ...) and disposition (`default`, ...), and, when
  /// `displayMatrix`, its display matrix (the pictures were not turned, so they are shown as
  /// the input's were).
  ///
  /// - Throws: `FFmpegError` when memory runs out or the header was written.
  package func copyProperties(
    of source: StreamView, to index: Int, displayMatrix: Bool
  ) throws(FFmpegError) {
    precondition(index >= 0 && index < streamCount, "no stream \(index)")
    guard !headerWritten else {
      throw FFmpegError(code: mt_averror(EINVAL), message: "streams are set before the header")
    }
    let input = source.input.stream(source.index)
    let stream = pointer.pointee.streams[index]!
    stream.pointee.disposition = input.pointee.disposition
    try check(
      av_dict_copy(&stream.pointee.metadata, input.pointee.metadata, AV_DICT_DONT_OVERWRITE))
    guard displayMatrix else { return }
    var size = 0
    if let matrix = av_stream_get_side_data(input, AV_PKT_DATA_DISPLAYMATRIX, &size) {
      guard let copy = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, size) else {
        throw .posix(ENOMEM)
      }
      copy.update(from: matrix, count: size)
    }
  }

  private func newStream() throws(FFmpegError) -> UnsafeMutablePointer<AVStream> {
    guard !headerWritten else {
      throw FFmpegError(code: mt_averror(EINVAL), message: "streams are added before the header")
    }
    guard let stream = avformat_new_stream(pointer, nil) else { throw .posix(ENOMEM) }
    return stream
  }

  /// Sets stream `index`'s codec tag (its sample entry in MP4: `hvc1`, `avc1`) from four
  /// characters, before the header is written.
  ///
  /// - Throws: `FFmpegError` (`EINVAL`) for a tag that is not four ASCII characters or after
  ///   the header.
  package func setCodecTag(_ tag: String, stream index: Int) throws(FFmpegError) {
    precondition(index >= 0 && index < streamCount, "no stream \(index)")
    let bytes = Array(tag.utf8)
    guard !headerWritten, bytes.count == 4, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) else {
      throw FFmpegError(code: mt_averror(EINVAL), message: "cannot set the codec tag '\(tag)'")
    }
    let value = bytes.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * $1.offset) }
    pointer.pointee.streams[index]!.pointee.codecpar.pointee.codec_tag = value
  }

  /// Sets a container tag (`title`, `comment`, `creation_time`, ...); nil removes it.
  package func setMetadata(_ key: String, _ value: String?) {
    av_dict_set(&pointer.pointee.metadata, key, value, 0)
  }

  /// Sets a tag of stream `index` (`language`, `handler_name`, ...); nil removes it.
  package func setMetadata(_ key: String, _ value: String?, stream index: Int) {
    precondition(index >= 0 && index < streamCount, "no stream \(index)")
    av_dict_set(&pointer.pointee.streams[index]!.pointee.metadata, key, value, 0)
  }

  /// Adds a chapter from `start` to `end` (in `timeBase`), titled `title`.
  ///
  /// - Throws: `FFmpegError` when memory runs out or the header was written.
  package func addChapter(
    start: Int64, end: Int64, timeBase: Rational, title: String?
  ) throws(FFmpegError) {
    guard !headerWritten else {
      throw FFmpegError(code: mt_averror(EINVAL), message: "chapters are added before the header")
    }
    guard
      let chapter = av_mallocz(MemoryLayout<AVChapter>.size)?.assumingMemoryBound(
        to: AVChapter.self)
    else { throw .posix(ENOMEM) }
    let count = Int(pointer.pointee.nb_chapters)
    chapter.pointee.id = Int64(count + 1)
    chapter.pointee.time_base = timeBase.av
    chapter.pointee.start = start
    chapter.pointee.end = end
    if let title { av_dict_set(&chapter.pointee.metadata, "title", title, 0) }
    // libavformat frees the array and each chapter (avformat_free_context).
    guard
      let grown = av_realloc_array(
        pointer.pointee.chapters, count + 1, MemoryLayout<UnsafeMutablePointer<AVChapter>>.size)
    else {
      av_dict_free(&chapter.pointee.metadata)
      av_free(chapter)
      throw .posix(ENOMEM)
    }
    let chapters = grown.assumingMemoryBound(to: UnsafeMutablePointer<AVChapter>?.self)
    chapters[count] = chapter
    pointer.pointee.chapters = chapters
    pointer.pointee.nb_chapters = UInt32(count + 1)
  }

  /// Adds `chapter` (an input's, or one made for the output).
  ///
  /// - Throws: `FFmpegError` when memory runs out or the header was written.
  package func addChapter(_ chapter: InputChapter) throws(FFmpegError) {
    try addChapter(
      start: chapter.start, end: chapter.end, timeBase: chapter.timeBase, title: chapter.title)
  }

  /// Writes the container's header. `options` are the muxer's (`["movflags": "+faststart"]`
  /// puts MP4's index before the media data, in a second pass at `finish`).
  ///
  /// - Throws: `FFmpegError`: the muxer's refusal (a codec the format cannot hold), an option
  ///   it does not recognize (`AVERROR_OPTION_NOT_FOUND`), or a write error with its `errno`.
  package func writeHeader(options: [String: String] = [:]) throws(FFmpegError) {
    var dictionary = OptionDictionary(options)
    let result = avformat_write_header(pointer, &dictionary.pointer)
    try checkWrite(result)
    headerWritten = true
    try dictionary.checkConsumed(by: "the \(formatName) muxer")
  }

  /// The time base libavformat chose for stream `index` (final once the header is written).
  package func timeBase(ofStream index: Int) -> Rational {
    precondition(index >= 0 && index < streamCount, "no stream \(index)")
    return Rational(pointer.pointee.streams[index]!.pointee.time_base) ?? Rational(1, 1)!
  }

  /// Writes `packet` into stream `index`, converting its timestamps from `timeBase` (an
  /// encoder's, or the input stream's when copying) to the stream's, interleaved with the other
  /// streams by time. The packet's data is taken (the packet is empty afterwards).
  ///
  /// - Throws: `FFmpegError`: a write error (`posixErrno` is `ENOSPC` for a full disk),
  ///   `AVERROR_EXIT` when `shouldStop` stopped it, or the muxer's refusal of a timestamp
  ///   (non-monotonic DTS).
  package func write(_ packet: Packet, stream index: Int, timeBase: Rational) throws(FFmpegError) {
    precondition(index >= 0 && index < streamCount, "no stream \(index)")
    packet.streamIndex = index
    packet.rescaleTimestamps(from: timeBase, to: self.timeBase(ofStream: index))
    packet.pointer.pointee.pos = -1
    try checkWrite(av_interleaved_write_frame(pointer, packet.pointer))
  }

  /// Writes what is still queued and the trailer (MP4's index, moved to the front with
  /// faststart), and flushes. The output is complete afterwards; committing it is the owner's.
  ///
  /// - Throws: `FFmpegError` for a write error, with its `errno` (`posixErrno`).
  package func finish() throws(FFmpegError) {
    guard !finished else { return }
    finished = true
    try checkWrite(av_write_trailer(pointer))
    avio_flush(pointer.pointee.pb)
    try checkWrite(pointer.pointee.pb.pointee.error)
  }

  /// Bytes written to the descriptor so far (faststart's shift counts twice).
  package var bytesWritten: Int64 { io.bytesWritten }

  /// The `errno` the first failed write (or read-back) of the output gave (`ENOSPC`, `EFBIG`,
  /// `EIO`); nil while every transfer succeeded.
  package var writeFailure: Int32? { io.failure }

  /// A write or read was refused because `shouldStop` said so.
  package var stopped: Bool { io.stopped }

  /// `check` for calls that write: the `errno` a write failed with wins over the code FFmpeg
  /// passed on (it may have replaced it), so a full disk is always `ENOSPC`.
  private func checkWrite(_ result: Int32) throws(FFmpegError) {
    if let failure = io.failure { throw .posix(failure) }
    if io.stopped && result < 0 {
      throw FFmpegError(code: mt_averror_exit, message: "the muxer was stopped")
    }
    try check(result)
  }
}
