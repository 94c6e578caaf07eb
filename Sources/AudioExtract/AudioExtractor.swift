import CFFmpeg
import CFFmpeg.Resample
import MediaProbe

/// Decodes the audio of a media file and writes it as WAV with our own RIFF/RF64 writer:
/// libavformat demux → libavcodec decode → libswresample convert → WAV, one packet, one frame and
/// one conversion buffer at a time, the writing on a second thread.
///
/// The PCM equals `ffmpeg -nostdin -i IN -map 0:a:N [-ac C] [-ar R] -f s16le -` byte for byte (and
/// with `-ss S -t T` before `-i` for trimming), given the same FFmpeg libraries.
public struct AudioExtractor: Sendable {
  /// The options every extraction uses.
  public let options: ExtractOptions

  /// An extractor with `options`.
  public init(options: ExtractOptions) {
    self.options = options
  }

  /// Extracts the audio of `source` into `destination`.
  ///
  /// The output appears only when complete: a failure or an interruption (`Interruption`) leaves
  /// no file and an existing file untouched.
  ///
  /// - Parameters:
  ///   - path: the input path to report.
  ///   - progress: called now and then with how far decoding has come.
  /// - Throws: `ExtractError` with a stable code.
  public func extract(
    _ source: InputSource, path: String, to destination: OutputDestination,
    progress: ((ExtractionProgress) -> Void)? = nil
  ) throws(ExtractError) -> ExtractionReport {
    let input: InputFile
    do {
      input = try Prober.open(
        source, options: ProbeOptions(allowReferences: options.allowReferences))
    } catch {
      throw .input(error)
    }
    let streamIndex = try options.stream.select(in: input)
    // Every early exit below leaves cleaning up to deinitializers: the output file closes its
    // descriptor (and removes its temporary file, if it has a name). No write can race that:
    // run() stops the writer thread before it throws, and so does the session's deinit.
    let output = try OutputFile(destination, sync: options.sync)
    let session = try ExtractionSession(
      input: input, streamIndex: streamIndex, options: options, output: output)
    let result = try session.run(progress: progress)
    try output.commit()
    let format = result.format
    return ExtractionReport(
      input: path, output: destination.display, streamIndex: streamIndex,
      codec: String(
        cString: avcodec_get_name(input.stream(streamIndex).pointee.codecpar.pointee.codec_id)),
      format: format, samples: result.samples,
      duration: Double(result.samples) / Double(format.sampleRate), rf64: result.rf64,
      warnings: session.warnings)
  }
}

/// One extraction's state: the decoder, the trimming, the converters and the writer.
final class ExtractionSession {
  private let input: InputFile
  private let streamIndex: Int
  private let options: ExtractOptions
  private let output: OutputFile
  private let decoder: CodecDecoder
  private let timeBase: AVRational
  private(set) var warnings: [String] = []
  private var warningCount = 0

  // Trimming, as the ffmpeg CLI's input `atrim` after `-ss`/`-t` (pts in 1/sample_rate).
  private let startMicroseconds: Int64?
  private let durationMicroseconds: Int64?
  private let timestampOffset: Int64  // added to packet timestamps, in the stream's time base
  private var rescaleLast = mt_nopts_value
  private var previousPacketPTS = mt_nopts_value
  private var nextPTS: Int64 = 0
  private var firstPTS: Int64?
  private var trimmedToEnd = false

  // Conversion: the first frame fixes the output format; later frames are converted to it.
  private var format: PCMFormat?
  private var converter: Resampler?
  private var effects: Effects?
  private var effectsConverter: Resampler?
  private var writer: WriterThread?
  /// The writer thread's buffer being filled; handed over once it holds `chunkBytes`.
  private var pending: ByteBuffer?
  /// Float samples on their way through the effects; s32 samples on their way to packed s24.
  private let scratch = ByteBuffer()
  private let packed = ByteBuffer()
  private var samplesWritten: Int64 = 0
  private static let chunkBytes = 128 << 10

  // What the decoder delivered, to tell an empty stream from one that does not decode.
  private var packetsSent = 0
  private var framesDecoded = 0
  /// The first decoded frame's format (kept even when trimming drops the frame).
  private var firstFrameFormat: FrameFormat?

  init(input: InputFile, streamIndex: Int, options: ExtractOptions, output: OutputFile)
    throws(ExtractError)
  {
    self.input = input
    self.streamIndex = streamIndex
    self.options = options
    self.output = output
    let stream = input.stream(streamIndex)
    timeBase = stream.pointee.time_base
    startMicroseconds = options.start.map { Int64(($0 * 1e6).rounded()) }
    durationMicroseconds = options.duration.map { Int64(($0 * 1e6).rounded()) }

    // ffmpeg_opt.c: the input's timestamps are shifted by -(start + the file's start time), and
    // with -ss the file is seeked there first (earlier by 3/23 s when a stream has B-frames and
    // the demuxer seeks by DTS).
    let context = input.pointer.pointee
    let fileStart = context.start_time == mt_nopts_value ? 0 : context.start_time
    let target = (startMicroseconds ?? 0) + fileStart
    timestampOffset = av_rescale_q(-target, AVRational(num: 1, den: mt_time_base), timeBase)
    var seekFailure: String?
    if startMicroseconds != nil {
      var seekTarget = target
      let seeksByPTS = context.iformat.pointee.flags & AVFMT_SEEK_TO_PTS != 0
      let hasDelay = (0..<input.streamCount).contains {
        input.stream($0).pointee.codecpar.pointee.video_delay > 0
      }
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
      decoder = try CodecDecoder(
        parameters: stream.pointee.codecpar, threads: 1, packetTimeBase: timeBase)
    } catch {
      throw .decoder(error.message)
    }
    if let seekFailure { warn(seekFailure) }
  }

  private func warn(_ message: String) {
    warningCount += 1
    if warnings.count < 20 {
      warnings.append(message)
    } else if warnings.count == 20 {
      warnings.append("more warnings were left out")
    }
  }

  // MARK: - The loop

  /// Decodes, converts and writes everything; on any error stops the writer thread before
  /// returning, so no write can reach the output's file descriptor once it is closed.
  func run(progress: ((ExtractionProgress) -> Void)?) throws(ExtractError)
    -> (format: PCMFormat, samples: Int64, rf64: Bool)
  {
    do {
      return try decodeAll(progress: progress)
    } catch {
      abandonWriter()
      throw error
    }
  }

  private func decodeAll(progress: ((ExtractionProgress) -> Void)?) throws(ExtractError)
    -> (format: PCMFormat, samples: Int64, rf64: Bool)
  {
    let packet = Packet()
    let frame = Frame()
    let total = expectedSeconds()
    var frames = 0
    while !trimmedToEnd {
      if Interruption.isRequested { throw .interrupted }
      let more: Bool
      do {
        more = try input.read(into: packet)
      } catch {
        if Interruption.isRequested { throw .interrupted }
        warn("read error: \(error.message); the input ends here")
        break
      }
      guard more else { break }
      defer { packet.unref() }
      guard packet.streamIndex == streamIndex else { continue }
      if packet.isCorrupt { warn("corrupt packet at \(seconds(packet.pts)) s") }
      shiftTimestamps(packet)
      packetsSent += 1
      try decode(packet, into: frame)
      frames += 1
      if let progress, frames % 64 == 0, let pts = packet.pts {
        progress(
          ExtractionProgress(seconds: Double(pts) * av_q2d(timeBase), total: total))
      }
    }
    if Interruption.isRequested { throw .interrupted }
    if !trimmedToEnd { try decode(nil, into: frame) }
    return try finish()
  }

  /// Hands back the buffer being filled and waits until the writer thread is idle.
  private func abandonWriter() {
    guard let writer else { return }
    if let pending {
      self.pending = nil
      writer.recycle(pending)
    }
    writer.abandon()
    self.writer = nil
  }

  deinit { abandonWriter() }

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
  private func decode(_ packet: Packet?, into frame: Frame) throws(ExtractError) {
    do {
      try decoder.send(packet)
    } catch {
      if !error.isTryAgain && !error.isEndOfFile {
        warn("error decoding a packet (\(error.message)); skipped")
        return
      }
    }
    while !trimmedToEnd {
      let received: Bool
      do {
        received = try decoder.receive(into: frame)
      } catch {
        warn("error decoding a frame (\(error.message)); skipped")
        continue
      }
      guard received else { break }
      defer { frame.unref() }
      try handle(frame.pointer, packet: packet)
    }
  }

  // MARK: - Frames

  private func handle(_ frame: UnsafeMutablePointer<AVFrame>, packet: Packet?) throws(ExtractError)
  {
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
    try convert(frame, offset: Int(first), count: Int(end - first))
  }

  private func convert(_ frame: UnsafeMutablePointer<AVFrame>, offset: Int, count: Int)
    throws(ExtractError)
  {
    let incoming = FrameFormat(frame)
    let target = try prepare(for: incoming)
    if let converter, converter.input != incoming {
      warn("the audio format changed mid-stream; converting to the first frame's format")
      try flushConverter()
    }
    if converter == nil {
      do {
        converter = try Resampler(from: incoming, to: target)
      } catch {
        let what = framesDecoded > 1 ? "the audio format changed mid-stream to " : ""
        throw .conversion(
          "\(what)\(incoming.description), which cannot be converted to \(target.description)",
          error)
      }
    }
    let converter = self.converter!
    try stage { (buffer) throws(FFmpegError) in
      try converter.convert(frame, offset: offset, count: count, into: buffer)
    }
  }

  /// Fixes the output format from the first frame (or the decoder, for an empty stream) and
  /// starts the writer. Returns what the first converter produces: the output's interleaved
  /// format, or float when effects apply.
  private func prepare(for incoming: FrameFormat) throws(ExtractError) -> FrameFormat {
    if format == nil {
      // The depth to keep for --format auto: what the decoder says (it read the stream's own
      // header, e.g. FLAC's STREAMINFO), else what the container said.
      let decoderBits = decoder.pointer.pointee.bits_per_raw_sample
      let bits =
        decoderBits > 0
        ? decoderBits : input.stream(streamIndex).pointee.codecpar.pointee.bits_per_raw_sample
      let encoding =
        options.encoding ?? PCMEncoding.keeping(incoming.sampleFormat, bitsPerRawSample: bits)
      let layout = options.channels.map { ChannelLayout(defaultFor: Int32($0)) } ?? incoming.layout
      let chosen = PCMFormat(
        encoding: encoding, channels: Int(layout.channels),
        sampleRate: options.sampleRate ?? Int(incoming.sampleRate), channelMask: layout.mask)
      guard chosen.channels > 0, chosen.sampleRate > 0 else {
        throw .noDecodableAudio("the decoder announced no channels or no sample rate")
      }
      format = chosen
      effects = Effects(
        channels: chosen.channels, sampleRate: chosen.sampleRate, gainDB: options.gainDB,
        fadeIn: options.fadeIn, fadeOut: options.fadeOut)
      let reserve = reservesRF64(chosen)
      do {
        writer = WriterThread(
          writer: try WAVWriter(
            fd: output.fd, format: chosen, seekable: output.seekable, reserveRF64: reserve,
            rf64Limit: options.rf64Limit),
          bufferCapacity: Self.chunkBytes + Self.chunkBytes / 4)
      } catch {
        throw .output(error)
      }
    }
    let chosen = format!
    let layout = ChannelLayout(channels: Int32(chosen.channels), mask: chosen.channelMask)
    return FrameFormat(
      sampleFormat: effects == nil ? chosen.encoding.converterFormat : AV_SAMPLE_FMT_FLT,
      sampleRate: Int32(chosen.sampleRate), layout: layout)
  }

  /// Reserve room for RF64 unless the output surely stays under 4 GiB (twice the expected size,
  /// as durations can be estimates): plain 44-byte headers for ordinary files.
  private func reservesRF64(_ format: PCMFormat) -> Bool {
    guard output.seekable, let seconds = expectedSeconds() else { return output.seekable }
    let expected = seconds * Double(format.byteRate)
    return 2 * expected + 1024 >= Double(options.rf64Limit)
  }

  /// The expected length of the output in seconds (from the container), when known.
  private func expectedSeconds() -> Double? {
    let context = input.pointer.pointee
    var total: Double?
    let stream = input.stream(streamIndex).pointee
    if stream.duration != mt_nopts_value, stream.duration > 0 {
      total = Double(stream.duration) * av_q2d(stream.time_base)
    } else if context.duration != mt_nopts_value, context.duration > 0 {
      total = Double(context.duration) / Double(mt_time_base)
    }
    guard var seconds = total else { return options.duration }
    seconds -= options.start ?? 0
    if let duration = options.duration { seconds = min(seconds, duration) }
    return max(0, seconds)
  }

  /// A libswresample call that appends converted samples to a buffer.
  private typealias Conversion = (ByteBuffer) throws(FFmpegError) -> Void

  /// Runs a conversion into the buffer its output belongs in, then moves it on: through the
  /// effects (as float) when there are any, else straight to the output.
  private func stage(_ convert: Conversion) throws(ExtractError) {
    guard var effects else { return try output(convert) }
    scratch.removeAll()
    do {
      try convert(scratch)
    } catch {
      throw .conversion("converting the samples to float for the effects", error)
    }
    var samples = [Float](repeating: 0, count: scratch.count / MemoryLayout<Float>.size)
    samples.withUnsafeMutableBytes { $0.copyMemory(from: scratch.contents) }
    let processed = effects.process(samples)
    self.effects = effects
    try emitFloat(processed)
  }

  /// Converts float samples that went through the effects to the output encoding.
  private func emitFloat(_ samples: [Float]) throws(ExtractError) {
    guard !samples.isEmpty, let format else { return }
    if effectsConverter == nil {
      let layout = ChannelLayout(channels: Int32(format.channels), mask: format.channelMask)
      let rate = Int32(format.sampleRate)
      let from = FrameFormat(sampleFormat: AV_SAMPLE_FMT_FLT, sampleRate: rate, layout: layout)
      let to = FrameFormat(
        sampleFormat: format.encoding.converterFormat, sampleRate: rate, layout: layout)
      do {
        effectsConverter = try Resampler(from: from, to: to)
      } catch {
        throw .conversion("\(from.description) to \(to.description) after the effects", error)
      }
    }
    let second = effectsConverter!
    let count = samples.count / format.channels
    var failure: ExtractError?
    samples.withUnsafeBytes { raw in
      do throws(ExtractError) {
        try output { (buffer) throws(FFmpegError) in
          try second.convert(interleaved: raw.baseAddress!, count: count, into: buffer)
        }
      } catch {
        failure = error
      }
    }
    if let failure { throw failure }
  }

  /// Runs a conversion to the output encoding into the pending output (through `packed` for
  /// s24), and hands full chunks to the writer.
  private func output(_ convert: Conversion) throws(ExtractError) {
    guard let writer else { return }
    let pending = self.pending ?? writer.takeBuffer()
    self.pending = pending
    do {
      if format?.encoding == .s24 {
        packed.removeAll()
        try convert(packed)
        // s32 → packed s24: the top three bytes of each little-endian int32 (pcm_s24le's >> 8).
        let samples = packed.count / 4
        let source = packed.base.assumingMemoryBound(to: UInt8.self)
        let target = pending.reserve(samples * 3).assumingMemoryBound(to: UInt8.self)
        for index in 0..<samples {
          target[3 * index] = source[4 * index + 1]
          target[3 * index + 1] = source[4 * index + 2]
          target[3 * index + 2] = source[4 * index + 3]
        }
        pending.commit(samples * 3)
      } else {
        try convert(pending)
      }
    } catch {
      throw .conversion("converting the samples", error)
    }
    if pending.count >= Self.chunkBytes { try flushPending() }
  }

  private func flushPending() throws(ExtractError) {
    guard let pending, let writer, let format else { return }
    self.pending = nil
    guard pending.count > 0 else { return writer.recycle(pending) }
    samplesWritten += Int64(pending.count / format.blockAlign)
    do {
      try writer.submit(pending)
    } catch {
      throw .output(error)
    }
  }

  private func flushConverter() throws(ExtractError) {
    guard let converter else { return }
    try stage { (buffer) throws(FFmpegError) in try converter.flush(into: buffer) }
    self.converter = nil
  }

  // MARK: - The end

  /// The format of an output that no frame reached: the first decoded frame's (every frame was
  /// trimmed away), or for a stream without packets what the decoder was opened with (the
  /// stream's parameters as libavformat found them, which the ffmpeg CLI uses too). A stream
  /// whose packets all failed to decode is an error, as it is for the ffmpeg CLI.
  private func formatOfEmptyOutput() throws(ExtractError) -> FrameFormat {
    if let firstFrameFormat { return firstFrameFormat }
    if packetsSent > 0 {
      throw .noDecodableAudio(
        "none of the audio stream's \(packetsSent) packet\(packetsSent == 1 ? "" : "s") decoded")
    }
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

  private func finish() throws(ExtractError) -> (format: PCMFormat, samples: Int64, rf64: Bool) {
    if format == nil {
      // No samples at all: still a valid (empty) WAV, in the format the decoder gave.
      _ = try prepare(for: try formatOfEmptyOutput())
    }
    try flushConverter()
    if var effects {
      let tail = effects.finish()
      self.effects = effects
      try emitFloat(tail)
    }
    if let effectsConverter {
      try output { (buffer) throws(FFmpegError) in try effectsConverter.flush(into: buffer) }
    }
    try flushPending()
    guard let writer, let format else { preconditionFailure("prepare() starts the writer") }
    let rf64: Bool
    do {
      (_, rf64) = try writer.finish(rf64Limit: options.rf64Limit)
    } catch {
      throw .output(error)
    }
    self.writer = nil
    if warningCount > 20 { warnings[20] = "\(warningCount - 20) more warnings were left out" }
    return (format, samplesWritten, rf64)
  }
}
