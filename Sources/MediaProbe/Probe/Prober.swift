import CFFmpeg

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// How to probe.
public struct ProbeOptions: Sendable {
  /// Demux every packet (no decoding) for exact frame counts, durations and a CFR/VFR verdict.
  public var scan: Bool
  /// Let playlist-like demuxers (HLS, DASH, concat, image patterns) open other local files.
  public var allowReferences: Bool

  /// Options; the defaults read only the headers and refuse references.
  public init(scan: Bool = false, allowReferences: Bool = false) {
    self.scan = scan
    self.allowReferences = allowReferences
  }
}

/// Probes media files with libavformat into `MediaInfo`.
///
/// Safe to use from several threads at once: each call opens its own FFmpeg contexts.
public struct Prober: Sendable {
  /// The options every probe uses.
  public let options: ProbeOptions

  /// A prober with `options`.
  public init(options: ProbeOptions = ProbeOptions()) {
    self.options = options
  }

  /// Probes one input, turning a failure into `.failure` so a batch can go on.
  public func outcome(for source: InputSource, path: String) -> ProbeOutcome {
    do {
      return .success(try probe(source, path: path))
    } catch {
      return .failure(path: path, error: error)
    }
  }

  /// Probes one input.
  ///
  /// - Parameters:
  ///   - source: a file path or standard input.
  ///   - path: the path to report (as the user gave it).
  /// - Throws: `ProbeError` with a stable code.
  public func probe(_ source: InputSource, path: String) throws(ProbeError) -> MediaInfo {
    let (input, sizeBytes) = try Self.open(source, allowReferences: options.allowReferences)

    var layout: BoxLayout?
    if case .file(let filePath) = source, input.formatName.hasPrefix("mov,") {
      layout = BoxLayout.read(path: filePath)
      if layout?.truncated == true {
        throw .truncated(detail: "a box extends past the end of the file")
      }
    }

    let reader = StreamReader(input: input)
    var streams = (0..<input.streamCount).map { reader.stream(at: $0, sentinel: layout) }
    let measured = try measure(input, streams: streams)
    for (index, measurement) in measured {
      streams[index].apply(measurement, timeBase: streams[index].timeBase)
    }

    let context = input.pointer.pointee
    let container = Container(
      formatName: input.formatName,
      formatLongName: context.iformat.pointee.long_name.map { String(cString: $0) },
      majorBrand: metadataValue(context.metadata, "major_brand"),
      bitRate: context.bit_rate > 0 ? context.bit_rate : nil,
      startTime: context.start_time == mt_nopts_value
        ? nil : Double(context.start_time) / Double(mt_time_base),
      fastStart: layout.map(\.movieBeforeData),
      tags: metadataDictionary(context.metadata))

    return MediaInfo(
      path: path, sizeBytes: sizeBytes, container: container,
      duration: fileDuration(
        input, streams: streams, unknownSentinel: layout?.unknownDurationSentinel == true),
      streams: streams, scanned: options.scan)
  }

  // MARK: - Opening untrusted inputs

  /// Opens an untrusted input the one way every tool does: checks the path, probes the format on
  /// our own I/O context, refuses referencing demuxers unless allowed, reads stream information.
  ///
  /// - Returns: the open input and the file's size (nil for a pipe or standard input).
  /// - Throws: `ProbeError` with a stable code.
  package static func open(_ source: InputSource, allowReferences: Bool) throws(ProbeError)
    -> (InputFile, sizeBytes: Int64?)
  {
    var sizeBytes: Int64?
    if case .file(let filePath) = source {
      sizeBytes = try checkReadable(filePath)
    }
    let input: InputFile
    do {
      input = try InputFile(source: source, allowReferences: allowReferences)
    } catch {
      throw probeError(for: error, source: source)
    }
    if input.formatName == "tty" { throw .unrecognizedFormat }  // any text file probes as ANSI art
    return (input, sizeBytes)
  }

  /// Checks that `path` is a readable, non-empty regular file (or named pipe).
  ///
  /// - Returns: the size in bytes (nil for a pipe).
  private static func checkReadable(_ path: String) throws(ProbeError) -> Int64? {
    var info = stat()
    guard stat(path, &info) == 0 else {
      switch errno {
      case ENOENT, ENOTDIR: throw .notFound
      case EACCES: throw .permissionDenied
      default: throw .readError(detail: String(cString: strerror(errno)))
      }
    }
    switch info.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFIFO: return nil
    case S_IFDIR: throw .notAFile(kind: "directory")
    case S_IFCHR, S_IFBLK: throw .notAFile(kind: "device")
    default: throw .notAFile(kind: "socket or special file")
    }
    guard access(path, R_OK) == 0 else { throw .permissionDenied }
    guard info.st_size > 0 else { throw .empty }
    return Int64(info.st_size)
  }

  private static func probeError(for failure: OpenFailure, source: InputSource) -> ProbeError {
    switch failure {
    case .unrecognized: return .unrecognizedFormat
    case .refused(let demuxer): return .refusedReference(demuxer: demuxer)
    case .io(let error):
      if error.code == mt_averror(EACCES) { return .permissionDenied }
      if error.code == mt_averror(ENOENT) { return .notFound }
      return .readError(detail: error.message)
    case .unreadable(let demuxer, let error):
      if case .file(let path) = source, demuxer.hasPrefix("mov,"),
        let layout = BoxLayout.read(path: path)
      {
        if layout.truncated { return .truncated(detail: "a box extends past the end of the file") }
        if !layout.hasMovie {
          return .truncated(
            detail: "no moov box: the index was never written (an interrupted recording?)")
        }
      }
      if error.isEndOfFile { return .truncated(detail: "unexpected end of file") }
      return .corrupt(demuxer: demuxer, detail: error.message)
    }
  }

  // MARK: - Reading packets

  /// What reading packets found for one stream.
  struct Measurement {
    var scan: TimestampScan?
    var firstFrame: FirstFrame?
  }

  /// Facts an opened decoder (and, for some codecs, the first decoded frame) tells.
  struct FirstFrame {
    var codedWidth: Int
    var codedHeight: Int
    /// From the first decoded frame; nil when no frame was decoded.
    var interlaced: Bool?
  }

  /// Codecs whose containers often misreport interlacing (MBAFF H.264 in Matroska is called
  /// progressive): their first frame is decoded. Other codecs are only opened, as ffprobe does,
  /// so a 4K HEVC or AV1 file costs no decoding.
  static let decodedForInterlacing: Set = ["h264", "mpeg2video", "mpeg1video", "vc1", "mpeg4"]

  /// Reads packets: all of them with `--scan` (timestamps only), otherwise just enough to decode
  /// the first frame of the video streams whose interlacing must be checked (coded size,
  /// interlacing).
  private func measure(_ input: InputFile, streams: [MediaStream]) throws(ProbeError)
    -> [Int: Measurement]
  {
    var results: [Int: Measurement] = [:]
    var decoders: [Int: CodecDecoder] = [:]
    for stream in streams where stream.type == .video && stream.disposition["attached_pic"] != true
    {
      guard let decoder = try? CodecDecoder(parameters: input.stream(stream.index).pointee.codecpar)
      else { continue }
      if Self.decodedForInterlacing.contains(stream.codec.name) {
        decoders[stream.index] = decoder
      } else {
        let context = decoder.pointer.pointee
        results[stream.index, default: Measurement()].firstFrame = FirstFrame(
          codedWidth: Int(context.coded_width), codedHeight: Int(context.coded_height),
          interlaced: nil)
      }
    }
    if options.scan {
      for stream in streams { results[stream.index, default: Measurement()].scan = TimestampScan() }
    }
    let packet = Packet()
    let frame = Frame()
    var packetsWithoutFrame = 0
    func decode(_ index: Int, _ packet: Packet?) {
      guard let decoder = decoders[index] else { return }
      do {
        try decoder.send(packet)
      } catch  where !error.isTryAgain {
        if packet == nil { decoders[index] = nil }
        return
      } catch {}
      if (try? decoder.receive(into: frame)) == true {
        let f = frame.pointer.pointee
        let context = decoder.pointer.pointee
        results[index, default: Measurement()].firstFrame = FirstFrame(
          codedWidth: Int(context.coded_width), codedHeight: Int(context.coded_height),
          interlaced: f.interlaced_frame != 0)
        frame.unref()
        decoders[index] = nil
      } else if packet == nil {
        decoders[index] = nil
      }
    }

    // Without a scan, give up on first frames after this many packets (a broken stream).
    let packetLimit = 2_000
    while options.scan || (!decoders.isEmpty && packetsWithoutFrame < packetLimit) {
      do {
        guard try input.read(into: packet) else { break }
      } catch {
        if options.scan { throw .readError(detail: error.message) }
        break
      }
      defer { packet.unref() }
      let index = packet.streamIndex
      results[index]?.scan?.add(timestamp: packet.pts ?? packet.dts, duration: packet.duration)
      if decoders[index] != nil {
        packetsWithoutFrame += 1
        decode(index, packet)
      }
    }
    for index in Array(decoders.keys) { decode(index, nil) }  // drain: frames still in flight
    for index in Array(results.keys) { results[index]?.scan?.finish() }
    return results
  }

  // MARK: - Durations

  private func fileDuration(_ input: InputFile, streams: [MediaStream], unknownSentinel: Bool)
    -> MediaDuration?
  {
    if options.scan {
      return streams.compactMap(\.duration).max { $0.seconds < $1.seconds }
    }
    let context = input.pointer.pointee
    guard context.duration != mt_nopts_value, context.duration > 0 else { return nil }
    let source: DurationSource
    switch context.duration_estimation_method {
    case AVFMT_DURATION_FROM_BITRATE: source = .bitrate
    case AVFMT_DURATION_FROM_STREAM: source = .stream
    default: source = .container
    }
    return MediaDuration(
      value: context.duration, timescale: Int64(mt_time_base),
      estimated: source == .bitrate || unknownSentinel, source: source)
  }
}

extension MediaStream {
  /// Replaces header values with what reading packets measured.
  mutating func apply(_ measurement: Prober.Measurement, timeBase: Rational) {
    if let scan = measurement.scan {
      frameCount = scan.packetCount
      duration = scan.durationTicks.map {
        MediaDuration(ticks: $0, timeBase: timeBase, source: .scan)
      }
      if var video, disposition["attached_pic"] != true {
        video.frameRate.mode = scan.mode
        video.frameRate.min = scan.maxDelta.flatMap { Rational(timeBase.den, $0 * timeBase.num) }
        video.frameRate.max = scan.minDelta.flatMap { Rational(timeBase.den, $0 * timeBase.num) }
        video.frameRate.minFrameDuration = scan.minDelta.map {
          MediaDuration(ticks: $0, timeBase: timeBase, source: .scan)
        }
        if let ticks = scan.durationTicks {
          video.frameRate.best = Self.scannedRate(
            frames: scan.packetCount, ticks: ticks, timeBase: timeBase,
            constant: scan.mode == .cfr, nominal: video.frameRate.nominal)
        }
        self.video = video
      }
    }
    if let first = measurement.firstFrame, var video {
      if first.codedWidth > 0 {
        video.codedWidth = first.codedWidth
        video.codedHeight = first.codedHeight
      }
      if let interlaced = first.interlaced { video.interlaced = interlaced }
      if first.interlaced == true, video.fieldOrder == nil || video.fieldOrder == "progressive" {
        // The container did not say, and a frame's top_field_first is only a default when the
        // stream carries no picture timing (x264 MBAFF): the order is unknown, not "bb".
        video.fieldOrder = nil
      }
      self.video = video
    }
  }

  /// The rate a scan measured: frames / duration, or the nominal rate when the clip is CFR and
  /// the nominal rate lies within the ±1 tick rounding of a coarse time base (Matroska's 1 ms
  /// makes 24 fps measure as 24/0.999 s).
  static func scannedRate(
    frames: Int64, ticks: Int64, timeBase: Rational, constant: Bool, nominal: Rational?
  ) -> Rational? {
    let measured = Rational(frames * timeBase.den, ticks * timeBase.num)
    guard constant, let nominal, ticks > 1 else { return measured }
    let slowest = Double(frames) / (Double(ticks + 1) * timeBase.value)
    let fastest = Double(frames) / (Double(ticks - 1) * timeBase.value)
    return (slowest...fastest).contains(nominal.value) ? nominal : measured
  }
}

// MARK: - Metadata helpers

/// One value of an FFmpeg metadata dictionary.
func metadataValue(_ dictionary: OpaquePointer?, _ key: String) -> String? {
  guard let entry = av_dict_get(dictionary, key, nil, 0) else { return nil }
  return String(cString: entry.pointee.value)
}

/// A whole FFmpeg metadata dictionary.
func metadataDictionary(_ dictionary: OpaquePointer?) -> [String: String] {
  var result: [String: String] = [:]
  var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
  while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
    result[String(cString: next.pointee.key)] = String(cString: next.pointee.value)
    entry = next
  }
  return result
}
