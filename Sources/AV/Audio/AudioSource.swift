import CFFmpeg
import CFFmpeg.Resample
import MediaCore
import OutputKit

/// What an `AudioSource` delivers: a sample format and, when given, a rate and a channel count
/// (otherwise the first decoded frame's).
package struct SourceTarget {
  /// The PCM encoding the output is written in (nil: keep the source's depth, `--format auto`).
  package var encoding: PCMEncoding?
  /// Deliver 32-bit float instead of the encoding (for effects, mixing and analysis); the
  /// encoding still names the format the samples are finally written in.
  package var float = false
  /// The output rate (nil: the source's).
  package var sampleRate: Int?
  /// The output channel count (nil: the source's).
  package var channels: Int?
  /// The output's channel mask, with `channels` (nil: FFmpeg's default layout for the count).
  package var channelMask: UInt64?

  /// A value with every field given.
  package init(
    encoding: PCMEncoding?, float: Bool = false, sampleRate: Int? = nil, channels: Int? = nil,
    channelMask: UInt64? = nil
  ) {
    self.encoding = encoding
    self.float = float
    self.sampleRate = sampleRate
    self.channels = channels
    self.channelMask = channelMask
  }
}

/// One audio stream of one input, decoded, trimmed and converted, pulled a packet at a time:
/// libavformat demux → libavcodec decode (`CodecDecoder.decode`, the one decode loop) →
/// trimming as the ffmpeg CLI's `-ss`/`-t` → libswresample to the target format.
///
/// The first decoded frame fixes the output format; later frames are converted to it (a format
/// change mid-stream is converted, with a warning). Memory stays the same whatever the length.
package final class AudioSource {
  /// A libswresample call that appends converted samples to a buffer.
  package typealias Conversion = (ByteBuffer) throws(FFmpegError) -> Void

  package let input: InputFile
  package let stream: StreamView
  private let target: SourceTarget
  private let decoder: CodecDecoder
  private let timeBase: AVRational
  package private(set) var warnings: [String] = []
  package private(set) var warningCount = 0
  /// The input's time limit, for the error.
  private let timeout: Double?

  // Trimming, as the ffmpeg CLI's input `atrim` after `-ss`/`-t` (pts in 1/sample_rate).
  private let startMicroseconds: Int64?
  private let durationMicroseconds: Int64?
  private let timestampOffset: Int64  // added to packet timestamps, in the stream's time base
  private var rescaleLast = mt_nopts_value
  private var previousPacketPTS = mt_nopts_value
  private var nextPTS: Int64 = 0
  private var firstPTS: Int64?
  package private(set) var trimmedToEnd = false
  private var ended = false

  /// The output's format, fixed by the first decoded frame (nil until then).
  package private(set) var format: PCMFormat?
  /// The interleaved format the conversions produce (float, or the encoding's converter format).
  package private(set) var deliveredFormat: FrameFormat?
  private var converter: Resampler?

  private let demuxer: Demuxer
  private var packet: Packet { demuxer.packet }
  private let frame = Frame()
  private var packetsSent = 0
  private var framesDecoded = 0
  /// The first decoded frame's format (kept even when trimming drops the frame).
  private var firstFrameFormat: FrameFormat?
  /// Conversions handed out so far.
  private var conversions = 0
  /// Seconds of input decoded so far (for progress).
  package private(set) var position: Double = 0

  /// Opens `source` with the probe's checks and refusals (`InputOpener.open`), picks the audio stream
  /// `choice` names and opens its decoder (see the other initializer): the first step of an
  /// extraction, an analysis and each input of a mix.
  ///
  /// - Throws: `ExtractError.input` with the probe's code, `.noAudioStream`, `.streamNotFound`
  ///   or `.decoder`.
  package convenience init(
    opening source: InputSource, open: OpenOptions, choice: StreamChoice, start: Double?,
    duration: Double?, target: SourceTarget, timeout: Double? = nil
  ) throws(ExtractError) {
    let input: InputFile
    do {
      input = try InputOpener.open(source, options: open)
    } catch {
      throw .input(error)
    }
    try self.init(
      input: input, streamIndex: try choice.select(in: input), start: start, duration: duration,
      target: target, timeout: timeout)
  }

  /// Opens the decoder for `streamIndex` of `input`, seeking to `start` seconds (as `-ss`) and
  /// keeping at most `duration` seconds (as `-t`).
  ///
  /// - Throws: `ExtractError.decoder` when the stream has no decoder.
  package init(
    input: InputFile, streamIndex: Int, start: Double?, duration: Double?, target: SourceTarget,
    timeout: Double? = nil
  ) throws(ExtractError) {
    self.input = input
    self.demuxer = Demuxer(input)
    self.timeout = timeout
    self.stream = input.view(streamIndex)
    self.target = target
    timeBase = stream.avTimeBase
    startMicroseconds = start.map { Int64(($0 * 1e6).rounded()) }
    durationMicroseconds = duration.map { Int64(($0 * 1e6).rounded()) }

    // ffmpeg_opt.c: the input's timestamps are shifted by -(start + the file's start time), and
    // with -ss the file is seeked there first (earlier by 3/23 s when a stream has B-frames and
    // the demuxer seeks by DTS).
    let context = input.pointer.pointee
    let fileStart = context.start_time == mt_nopts_value ? 0 : context.start_time
    let seekTo = (startMicroseconds ?? 0) + fileStart
    timestampOffset = av_rescale_q(-seekTo, AVRational(num: 1, den: mt_time_base), timeBase)
    var seekFailure: String?
    if startMicroseconds != nil {
      var seekTarget = seekTo
      let seeksByPTS = context.iformat.pointee.flags & AVFMT_SEEK_TO_PTS != 0
      let hasDelay = input.streams.contains { $0.videoDelay > 0 }
      if !seeksByPTS && hasDelay { seekTarget -= 3 * Int64(mt_time_base) / 23 }
      do {
        try input.seek(toMicroseconds: seekTarget)
      } catch {
        seekFailure = "could not seek (\(error.message)); decoding from the start"
      }
    }
    // After seeking: discarding first changes which stream mov seeks on.
    input.discardAll(except: streamIndex)
    do {
      decoder = try stream.openDecoder(threads: 1)
    } catch {
      throw .decoder(error.message, error)
    }
    if let mismatch = input.formatMismatch {
      warn(
        "format_mismatch: FFmpeg's probe named \(mismatch.detected) (score \(mismatch.score)) "
          + "where the extension names \(mismatch.expected); read as \(mismatch.kept)")
    }
    if input.skippedBytes > 0 {
      warn("leading_junk: \(input.skippedBytes) bytes before the first frame were skipped")
    }
    if let seekFailure { warn(seekFailure) }
    if input.source.remoteIgnoresRanges {
      warn(
        "remote_without_ranges: the server does not answer range requests; read once, in order")
    }
  }

  package func warn(_ message: String) {
    warningCount += 1
    if warnings.count < 20 {
      warnings.append(message)
    } else if warnings.count == 20 {
      warnings.append("more warnings were left out")
    }
  }

  /// The warnings, with the count of those left out.
  package var reportedWarnings: [String] {
    guard warningCount > 20 else { return warnings }
    var all = warnings
    all[20] = "\(warningCount - 20) more warnings were left out"
    return all
  }

  // MARK: - Pulling

  /// Reads and decodes packets until some samples are converted (handed to `deliver`) or the
  /// stream ends. At the end, the converter's last samples are delivered too.
  ///
  /// - Returns: false once the stream is exhausted (nothing more will come).
  /// - Throws: `ExtractError` (`.interrupted`, `.input(.timeout)`, conversion failures) and what
  ///   `deliver` throws.
  package func step(_ deliver: (Conversion) throws(ExtractError) -> Void) throws(ExtractError)
    -> Bool
  {
    if ended { return false }
    while !trimmedToEnd {
      let next: Demuxer.Next
      do {
        next = try demuxer.next()
      } catch {
        switch error {
        case .interrupted: throw .interrupted
        case .timedOut: throw .input(.timeout(seconds: timeout ?? 0))
        }
      }
      if case .end = next {
        if let remote = input.source.remoteError { throw .input(remote) }
        break
      }
      if case .failed(let error) = next {
        // A remote read whose retries ran out, or a file that changed: an error, not an end.
        if let remote = input.source.remoteError { throw .input(remote) }
        warn("read error: \(error.message); the input ends here")
        break
      }
      guard packet.streamIndex == stream.index else { continue }
      if packet.isCorrupt { warn("corrupt packet at \(seconds(packet.pts)) s") }
      shiftTimestamps(packet)
      packetsSent += 1
      if let pts = packet.pts { position = Double(pts) * av_q2d(timeBase) }
      let before = conversions
      try decode(packet, deliver)
      if conversions > before { return true }
    }
    if Interruption.isRequested { throw .interrupted }
    if !trimmedToEnd { try decode(nil, deliver) }
    if format == nil { try prepare(for: try formatOfEmptyOutput()) }
    if !continuesAfterEnd, let converter {
      try deliver { (buffer) throws(FFmpegError) in try converter.flush(into: buffer) }
      self.converter = nil
    }
    ended = true
    return false
  }

  /// Decodes every remaining packet, handing each conversion to `deliver`.
  package func drain(_ deliver: (Conversion) throws(ExtractError) -> Void) throws(ExtractError) {
    while try step(deliver) {}
  }

  /// Set for a source that will be rewound at its end (a looping mix input): the converter keeps
  /// its last samples for the next play, so the plays join without a seam even when resampled.
  package var continuesAfterEnd = false

  /// Plays the source again from its start (trimmed as at first), through the same converter:
  /// the decoder is flushed, the input seeked back.
  ///
  /// - Throws: `ExtractError.invalidOption` when the input cannot seek (standard input, a pipe).
  package func rewind() throws(ExtractError) {
    let context = input.pointer.pointee
    let fileStart = context.start_time == mt_nopts_value ? 0 : context.start_time
    var target = (startMicroseconds ?? 0) + fileStart
    let seeksByPTS = context.iformat.pointee.flags & AVFMT_SEEK_TO_PTS != 0
    if startMicroseconds != nil && !seeksByPTS
      && input.streams.contains(where: { $0.videoDelay > 0 })
    {
      target -= 3 * Int64(mt_time_base) / 23
    }
    do {
      try input.seek(toMicroseconds: target)
    } catch {
      throw .invalidOption("a looping input must be seekable (\(error.message))")
    }
    avcodec_flush_buffers(decoder.pointer)
    rescaleLast = mt_nopts_value
    previousPacketPTS = mt_nopts_value
    nextPTS = 0
    firstPTS = nil
    trimmedToEnd = false
    ended = false
  }

  /// The expected length of the output in seconds (from the container), when known.
  package var expectedSeconds: Double? {
    let context = input.pointer.pointee
    var total: Double?
    if let duration = stream.duration {
      total = Double(duration) * av_q2d(timeBase)
    } else if context.duration != mt_nopts_value, context.duration > 0 {
      total = Double(context.duration) / Double(mt_time_base)
    }
    let requested = durationMicroseconds.map { Double($0) / 1e6 }
    guard var seconds = total else { return requested }
    seconds -= startMicroseconds.map { Double($0) / 1e6 } ?? 0
    if let requested { seconds = min(seconds, requested) }
    return max(0, seconds)
  }

  // MARK: - Decoding

  /// A timestamp of the input as seconds with milliseconds ("12.005").
  private func seconds(_ pts: Int64?) -> String {
    guard let pts else { return "?" }
    return fixed(Double(pts) * av_q2d(timeBase), places: 3)
  }

  private func shiftTimestamps(_ packet: Packet) {
    let p = packet.pointer
    if p.pointee.pts != mt_nopts_value { p.pointee.pts += timestampOffset }
    if p.pointee.dts != mt_nopts_value { p.pointee.dts += timestampOffset }
  }

  /// Sends one packet (nil: drain) and handles every frame it yields.
  private func decode(_ packet: Packet?, _ deliver: (Conversion) throws(ExtractError) -> Void)
    throws(ExtractError)
  {
    try decoder.decode(packet, into: frame) { failure in
      warn(
        failure.whileSending
          ? "error decoding a packet (\(failure.error.message)); skipped"
          : "error decoding a frame (\(failure.error.message)); skipped")
    } body: { (frame) throws(ExtractError) in
      try handle(frame.pointer, packet: packet, deliver)
      return !trimmedToEnd
    }
  }

  private func handle(
    _ frame: UnsafeMutablePointer<AVFrame>, packet: Packet?,
    _ deliver: (Conversion) throws(ExtractError) -> Void
  ) throws(ExtractError) {
    let count = Int64(frame.pointee.nb_samples)
    guard count > 0 else { return }
    framesDecoded += 1
    if firstFrameFormat == nil { firstFrameFormat = FrameFormat(frame) }
    let rate = frame.pointee.sample_rate
    guard rate > 0 else {
      throw .noDecodableAudio("the decoder delivered a frame without a sample rate")
    }
    let sampleTimeBase = AVRational(num: 1, den: rate)

    // ffmpeg.c decode_audio: frame pts (else the packet's) rescaled to 1/sample_rate, keeping
    // continuity across rounding (av_rescale_delta), reset after a gap between packets.
    var pts: Int64?
    var sourcePTS = frame.pointee.pts
    if sourcePTS == mt_nopts_value, let packetPTS = packet?.pts { sourcePTS = packetPTS }
    if let packet, packet.duration != 0, previousPacketPTS != mt_nopts_value,
      let packetPTS = packet.pts,
      packetPTS - previousPacketPTS > packet.duration
    {
      rescaleLast = mt_nopts_value
    }
    if let packet { previousPacketPTS = packet.pts ?? mt_nopts_value }
    if sourcePTS != mt_nopts_value {
      pts = av_rescale_delta(
        timeBase, sourcePTS, sampleTimeBase, Int32(count), &rescaleLast, sampleTimeBase)
    }

    // atrim: keep samples from pts 0 (with a start) for `duration` samples.
    let framePTS = pts ?? nextPTS
    nextPTS = framePTS + count
    var first: Int64 = 0
    if startMicroseconds != nil {
      if framePTS + count <= 0 { return }
      first = max(0, -framePTS)
    }
    if firstPTS == nil { firstPTS = framePTS + first }
    var end = count
    if let durationMicroseconds {
      let limit = av_rescale_q(
        durationMicroseconds, AVRational(num: 1, den: mt_time_base), sampleTimeBase)
      if framePTS - firstPTS! >= limit {
        trimmedToEnd = true
        return
      }
      end = min(count, firstPTS! + limit - framePTS)
    }
    guard first < end else { return }
    try convert(frame, offset: Int(first), count: Int(end - first), deliver)
  }

  private func convert(
    _ frame: UnsafeMutablePointer<AVFrame>, offset: Int, count: Int,
    _ deliver: (Conversion) throws(ExtractError) -> Void
  ) throws(ExtractError) {
    let incoming = FrameFormat(frame)
    let goal = try prepare(for: incoming)
    if let converter, converter.input != incoming {
      warn("the audio format changed mid-stream; converting to the first frame's format")
      try deliver { (buffer) throws(FFmpegError) in try converter.flush(into: buffer) }
      self.converter = nil
    }
    if converter == nil {
      do {
        converter = try Resampler(from: incoming, to: goal)
      } catch {
        let what = framesDecoded > 1 ? "the audio format changed mid-stream to " : ""
        throw .conversion(
          "\(what)\(incoming.description), which cannot be converted to \(goal.description)",
          error)
      }
    }
    let converter = self.converter!
    conversions += 1
    try deliver { (buffer) throws(FFmpegError) in
      try converter.convert(frame, offset: offset, count: count, into: buffer)
    }
  }

  /// Fixes the output format from the first frame (or the decoder, for an empty stream).
  ///
  /// - Returns: the interleaved format the conversions produce.
  @discardableResult
  private func prepare(for incoming: FrameFormat) throws(ExtractError) -> FrameFormat {
    if let deliveredFormat { return deliveredFormat }
    // The depth to keep for --format auto: what the decoder says (it read the stream's own
    // header, e.g. FLAC's STREAMINFO), else what the container said.
    let decoderBits = decoder.pointer.pointee.bits_per_raw_sample
    let bits = decoderBits > 0 ? decoderBits : stream.bitsPerRawSample
    let encoding =
      target.encoding ?? PCMEncoding.keeping(incoming.sampleFormat, bitsPerRawSample: bits)
    let layout =
      target.channels.map { channels in
        target.channelMask.map { ChannelLayout(channels: Int32(channels), mask: $0) }
          ?? ChannelLayout(defaultFor: Int32(channels))
      } ?? incoming.layout
    let chosen = PCMFormat(
      encoding: encoding, channels: Int(layout.channels),
      sampleRate: target.sampleRate ?? Int(incoming.sampleRate), channelMask: layout.mask)
    guard chosen.channels > 0, chosen.sampleRate > 0 else {
      throw .noDecodableAudio("the decoder announced no channels or no sample rate")
    }
    format = chosen
    let delivered = FrameFormat(
      sampleFormat: target.float ? AV_SAMPLE_FMT_FLT : chosen.encoding.converterFormat,
      sampleRate: Int32(chosen.sampleRate), layout: layout)
    deliveredFormat = delivered
    return delivered
  }

  /// The format of an output that no frame reached: the first decoded frame's (every frame was
  /// trimmed away), or for a stream without packets what the decoder was opened with (the
  /// stream's parameters as libavformat found them, which the ffmpeg CLI uses too). A stream
  /// whose packets all failed to decode is an error, as it is for the ffmpeg CLI; so is one
  /// whose packets the demuxer could not find although the stream holds audio.
  private func formatOfEmptyOutput() throws(ExtractError) -> FrameFormat {
    if let firstFrameFormat { return firstFrameFormat }
    if packetsSent > 0 {
      throw .noDecodableAudio(
        "none of the audio stream's \(packetsSent) packet\(packetsSent == 1 ? "" : "s") decoded")
    }
    if let missed = audioWithoutPackets() { throw .noDecodableAudio(missed) }
    let context = decoder.pointer.pointee
    let announced = FrameFormat(
      sampleFormat: context.sample_fmt, sampleRate: context.sample_rate,
      layout: ChannelLayout(context.ch_layout))
    guard announced.sampleFormat != AV_SAMPLE_FMT_NONE, announced.sampleRate > 0,
      announced.layout.channels > 0
    else {
      throw .noDecodableAudio("the audio stream has no packets and no known format")
    }
    return announced
  }

  /// Why a stream that yielded no packet is not simply empty, nil when it may be: it declares a
  /// length (its own, or the file's when it is the file's only stream) that the start does not
  /// pass, or, the only stream of a file read from the start, bytes followed its header that the
  /// demuxer found no packet in. Either way the demuxer could not read its frames (FFmpeg 5.1's
  /// FLAC parser finds none in 32-bit FLAC), and an empty WAV would be a wrong answer.
  private func audioWithoutPackets() -> String? {
    let context = input.pointer.pointee
    let start = Double(startMicroseconds ?? 0) / 1e6
    var declared = stream.duration.map { Double($0) * av_q2d(timeBase) }
    if declared == nil, input.streamCount == 1, context.duration > 0 {
      declared = Double(context.duration) / Double(mt_time_base)
    }
    if let declared, declared > 0, start < declared {
      return "the stream declares \(fixed(declared, places: 3)) s of audio, but the demuxer found "
        + "no packet of it (FFmpeg cannot read its frames)"
    }
    let unread = input.readPosition - input.headerEnd
    if input.streamCount == 1, startMicroseconds == nil, unread > 0 {
      return "the demuxer read \(unread) bytes after the header and found no packet of audio "
        + "in them (FFmpeg cannot read its frames)"
    }
    return nil
  }
}
