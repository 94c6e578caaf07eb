import AV
import MediaCore
import OutputKit

/// How to probe.
public struct ProbeOptions: Sendable {
  /// Demux every packet (no decoding) for exact frame counts, durations and a CFR/VFR verdict.
  public var scan: Bool
  /// Let playlist-like demuxers (HLS, DASH, concat, image patterns) open other local files.
  public var allowReferences: Bool
  /// Seconds one input may take (nil: no limit); past it the input fails with `timeout`.
  public var timeout: Double?
  /// Bytes one input may read (nil: no limit).
  public var maxBytes: Int64?
  /// Decode every audio and video stream to the end (`--verify`), or only video keyframes
  /// (`--verify-fast`); nil: no decoding beyond first frames.
  public var verify: VerifyScope?
  /// With `verify`: hash the decoded content as ffmpeg's `streamhash` muxer (MD5).
  public var hash: Bool
  /// Threads each decoder may use when verifying (frame threads where the codec has them).
  public var decoderThreads: Int32
  /// Read every input with this FFmpeg demuxer (`--input-format`) instead of probing its bytes.
  public var inputFormat: String?
  /// Request headers for remote inputs (`--header`).
  public var headers: [HTTPHeader] = []
  /// With `verify`: called now and then, on the probing thread, with the media time decoded so
  /// far and the file's duration when known (seconds), for a progress bar.
  public var progress: (@Sendable (_ done: Double, _ total: Double?) -> Void)? = nil

  /// What opening an input needs of these options.
  public var opening: OpenOptions {
    OpenOptions(
      allowReferences: allowReferences, timeout: timeout, maxBytes: maxBytes,
      inputFormat: inputFormat, headers: headers)
  }

  /// Options; the defaults read only the headers, refuse references and set no limits.
  public init(
    scan: Bool = false, allowReferences: Bool = false, timeout: Double? = nil,
    maxBytes: Int64? = nil, verify: VerifyScope? = nil, hash: Bool = false,
    decoderThreads: Int32 = 1, inputFormat: String? = nil
  ) {
    self.scan = scan
    self.allowReferences = allowReferences
    self.timeout = timeout
    self.maxBytes = maxBytes
    self.verify = verify
    self.hash = hash
    self.decoderThreads = decoderThreads
    self.inputFormat = inputFormat
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
    try probeWithDetails(source, path: path).info
  }

  /// What the same read tells besides the report, for tools that build on a probe (mediamerge
  /// plans a stream copy from it) instead of opening the file again.
  package struct Details: Sendable {
    /// Per stream, by index: its codec configuration (`avcC`, `hvcC`, ...) and the container's
    /// id for it (the MP4 track ID).
    package var extradata: [Int: [UInt8]] = [:]
    package var containerIDs: [Int: Int32] = [:]
    /// With `scan`: the packets of each stream that the demuxer marked as not presented
    /// (outside an MP4 edit list), which a stream copy still takes.
    package var discardedPackets: [Int: Int] = [:]
    /// The chapters, on the file's own timeline.
    package var chapters: [InputChapter] = []
    /// Where the file's presentation starts, in microseconds (chapters count from it).
    package var startMicroseconds: Int64?
  }

  /// Probes one input and returns, with the report, the `Details` read on the way.
  ///
  /// - Throws: `ProbeError` with a stable code.
  package func probeWithDetails(_ source: InputSource, path: String) throws(ProbeError) -> (
    info: MediaInfo, details: Details
  ) {
    let input = try InputOpener.open(source, options: options.opening)
    var warnings: Set<ProbeWarning> = []

    var layout: BoxLayout?
    var indexPastEnd = false
    if input.formatName.hasPrefix("mov,") {
      layout = BoxLayout.read(input.source)
      let samples = Self.samplesInside(input)
      if let box = layout?.boxPastEnd {
        if box == "mdat" && samples?.allInside == true {
          warnings.insert(.mdatSizePastEOF)
        } else if options.verify != nil && box == "mdat" {
          indexPastEnd = true  // --verify decodes what is there and says "truncated"
        } else {
          throw .truncated(
            detail: "\(layout?.boxPastEndDescription ?? box) extends past the end of the file")
        }
      } else if let samples, !samples.allInside {
        // Every box ends inside the file (an `mdat` of size 0 runs "to the end of the file"),
        // but the sample index points past its end: the file was cut after its index.
        if options.verify != nil {
          indexPastEnd = true
        } else {
          throw .truncated(detail: samples.description)
        }
      }
    }
    let (mp3, mp3TagTrimmed) =
      input.formatName == "mp3" ? MP3Info.inspect(input.source) : (nil, false)
    if input.formatMismatch != nil { warnings.insert(.formatMismatch) }
    if input.skippedBytes > 0 { warnings.insert(.leadingJunk) }

    var reader = StreamReader(input: input, layout: layout, mp3: mp3)
    var streams = (0..<input.streamCount).map { reader.stream(at: $0) }
    warnings.formUnion(reader.warnings)
    // An MP3 whose header libavformat misreads: its frames, walked. With --scan only where
    // the demuxer loses a frame (a trimmed tag frame); its packets are the frames otherwise.
    let walked =
      input.formatName == "mp3"
        && (mp3TagTrimmed || (!options.scan && Self.implausibleMP3Duration(input, mp3: mp3)))
      ? MPEGAudioFrames.read(input.source) : nil
    if !options.scan, let walked {
      Self.applyFrameWalk(walked, mp3: mp3, to: &streams, warnings: &warnings)
    }
    let verification = options.verify.map {
      Verification(
        input: input, scope: $0, hashing: options.hash, threads: options.decoderThreads,
        indexPastEnd: indexPastEnd, unsupported: streams.filter { $0.codecSupported == false })
    }
    var measured = try measure(
      input, streams: streams, layout: layout, verification: verification)
    if options.scan, let walked {
      Self.applyFrameWalk(walked, mp3: mp3, streams: streams, to: &measured, warnings: &warnings)
    }
    for (index, report) in verification?.reports() ?? [:] { streams[index].decode = report }
    var details = Details(chapters: input.chapters, startMicroseconds: input.startMicroseconds)
    for stream in input.streams {
      details.extradata[stream.index] = stream.extradata
      details.containerIDs[stream.index] = stream.containerID
    }
    for (index, measurement) in measured {
      details.discardedPackets[index] = measurement.discardedPackets
      streams[index].apply(measurement, timeBase: streams[index].timeBase)
      if streams[index].codecSupported == false, streams[index].frameCountSource == .scan {
        streams[index].frameCountSource = .transport  // no parser: the container's framing
      }
      if measurement.ratesFromTimestamps { warnings.insert(.frameRateFromTimestamps) }
      if measurement.endsWithFragment { warnings.insert(.trailingData) }
      if measurement.scan?.discontinuities ?? 0 > 0 { warnings.insert(.timestampDiscontinuity) }
    }
    if verification?.endsWithFragment == true { warnings.insert(.trailingData) }
    if input.source.timedOut || input.source.isExpired {
      throw .timeout(seconds: options.timeout ?? ByteSource.fifoFirstBytesWait)
    }
    // A remote read that failed (the file changed, the retries ran out) is the error: what
    // libavformat made of the missing bytes is not the file.
    if let error = input.source.remoteError { throw error }

    let container = Container(
      formatName: input.formatName, formatLongName: input.formatLongName,
      majorBrand: input.tag("major_brand"), bitRate: input.bitRate,
      startTime: input.startSeconds, fastStart: layout.map(\.movieBeforeData), tags: input.tags)

    let still = Self.stillImage(input, layout: layout)
    if let still {
      for index in streams.indices where streams[index].type == .video {
        streams[index].markStill(transform: still)
      }
    }
    let span =
      still != nil || !options.scan ? nil : Self.union(streams: streams, measured: measured)
    let duration =
      still != nil
      ? nil
      : fileDuration(input, streams: streams, measured: measured, layout: layout, span: span)
    if let span, let duration, duration.source != .scan,
      abs(duration.seconds - span.seconds) > Self.oneFrame(streams: streams, measured: measured)
    {
      warnings.insert(.containerDurationDiffers)
    }
    if duration?.source == .bitrate { warnings.insert(.durationFromBitrate) }
    let expected = duration.flatMap { $0.estimated || $0.source == .scan ? nil : $0.seconds }
    let integrity = verification?.integrity(expected: expected)
    if input.source.hitByteCap { warnings.insert(.byteLimitReached) }
    if input.source.remoteIgnoresRanges { warnings.insert(.remoteWithoutRanges) }
    let info = MediaInfo(
      path: path,
      sizeBytes: input.source.fileSize.flatMap { source == .standardInput ? nil : $0 },
      bytesRead: input.source.transferred, container: container, duration: duration,
      streams: streams, scanned: options.scan, warnings: warnings.sorted(), integrity: integrity,
      span: span)
    return (info, details)
  }

  /// The display transform of an input that is one still picture: a file a single-image demuxer
  /// read (its EXIF orientation: a JPEG's, a PNG's eXIf, a WebP's EXIF), or an AVIF still FFmpeg
  /// 5.1 reads as a one-frame
  /// MP4 (its `irot` rotation). Nil for anything else.
  static func stillImage(_ input: InputFile, layout: BoxLayout?) -> AffineTransform? {
    // image2 (only with --allow-references) reads one picture too: on our own I/O context it
    // follows no pattern (img2dec.c: PT_NONE when the context has a pb).
    if InputFormats.isImagePipe(input.formatName) || input.formatName == "image2" {
      let orientation = StillOrientation.read(input.source)  // nil without EXIF
      let video = input.streams.first(where: \.isVideoType)
      return JPEGOrientation.transform(
        orientation ?? 1, width: video?.width ?? 0, height: video?.height ?? 0)
    }
    if input.formatName.hasPrefix("mov,"), layout?.hasMovie != true,
      let image = HEIFImage.read(input.source)
    {
      return image.transform
    }
    return nil
  }

  /// An MP3 file's frames as its headers chain them (`MPEGAudioFrames`) replace the demuxer's
  /// packets where they differ: a Xing/Info frame cut short makes libavformat skip the first
  /// audio frame with it, and bytes after the last frame that are no frame are no packet. The
  /// stream presents its frames' samples less the LAME tag's encoder delay and padding (the
  /// LAME tag specification: a gapless decoder removes both; FFmpeg's decoder does, through skip
  /// samples), or every sample without a LAME tag.
  static func applyFrameWalk(
    _ frames: MPEGAudioFrames, mp3: MP3Info?, streams: [MediaStream],
    to measured: inout [Int: Measurement], warnings: inout Set<ProbeWarning>
  ) {
    guard frames.frames > 0,
      let stream = streams.first(where: {
        $0.type == .audio && ["mp1", "mp2", "mp3"].contains($0.codec.name)
      }),
      Int64(stream.audio?.sampleRate ?? 0) == frames.sampleRate,
      let scan = measured[stream.index]?.scan
    else { return }
    if frames.trailingBytes > 0 { warnings.insert(.trailingData) }
    let trimmed = mp3.map { ($0.delay ?? 0) + ($0.padding ?? 0) } ?? 0
    let samples = Swift.max(0, frames.samples - trimmed)
    let start = scan.start ?? 0
    let ticks = Rational.rescale(
      samples, from: Rational(1, frames.sampleRate)!, to: stream.timeBase)
    measured[stream.index]?.presented = (start, start + ticks, frames.frames)
    if ticks > 0 { measured[stream.index]?.scan?.setPresentation(start: start, end: start + ticks) }
  }

  /// An MP3 file without a Xing header whose duration is longer than its bytes last at 8 kbit/s,
  /// the lowest MPEG audio bit rate (ISO/IEC 13818-3): libavformat read a header that is not
  /// one (a tag frame cut inside its fields, read as a frame count, made a 6 KB file last
  /// 438,232 s).
  static func implausibleMP3Duration(_ input: InputFile, mp3: MP3Info?) -> Bool {
    guard mp3 == nil, let size = input.source.size, let duration = input.durationMicroseconds else {
      return false
    }
    return Double(duration) / 1e6 * 8_000 / 8 > Double(size)
  }

  /// Plain mode's use of an MP3's walked frames: the audio stream's frame count and duration
  /// (its frames' samples less the LAME tag's delay and padding), `source: index`.
  static func applyFrameWalk(
    _ frames: MPEGAudioFrames, mp3: MP3Info?, to streams: inout [MediaStream],
    warnings: inout Set<ProbeWarning>
  ) {
    guard frames.frames > 0,
      let index = streams.firstIndex(where: {
        $0.type == .audio && ["mp1", "mp2", "mp3"].contains($0.codec.name)
      }),
      Int64(streams[index].audio?.sampleRate ?? 0) == frames.sampleRate
    else { return }
    if frames.trailingBytes > 0 { warnings.insert(.trailingData) }
    let trimmed = mp3.map { ($0.delay ?? 0) + ($0.padding ?? 0) } ?? 0
    streams[index].duration = MediaDuration(
      value: Swift.max(0, frames.samples - trimmed), timescale: frames.sampleRate, source: .index)
    streams[index].frameCount = frames.frames
    streams[index].frameCountSource = .index
    warnings.remove(.durationFromBitrate)
  }

  /// Where the samples the demuxer indexed lie against the end of the file.
  struct SamplesInside {
    /// Every indexed sample ends inside the file.
    var allInside: Bool
    /// The decoding time, in seconds, of the first sample (of any stream) whose bytes pass the
    /// end of the file: every stream plays up to it (nil when every sample is inside).
    var playableEnd: Double?
    /// The decoding time of the index's last sample, in seconds.
    var indexedEnd: Double

    /// For a truncation error: how far the index and the file's samples reach.
    var description: String {
      let playable = playableEnd.map { fixed(max($0, 0), places: 3) } ?? "?"
      return "the sample index runs past the end of the file: it covers "
        + "\(fixed(indexedEnd, places: 3)) s, the samples inside the file play to \(playable) s"
    }
  }

  /// Checks every sample the demuxer indexed against the file's size; nil when the input has no
  /// indexed samples or no known size. (An `mdat` whose size runs past the end of the file only
  /// overstates when every sample ends inside; one of size 0 runs to the end, whatever it is.)
  static func samplesInside(_ input: InputFile) -> SamplesInside? {
    guard let size = input.source.size else { return nil }
    var sawSamples = false
    var playableEnd: Double?
    var indexedEnd = 0.0
    for stream in input.streams {
      let timeBase = stream.timeBase.value
      // Entries are in decoding order; samples are usually laid out in order, but check each.
      var firstOutside: Int64?
      var last: Int64 = 0
      var entries = 0
      stream.forEachIndexEntry { entry in
        entries += 1
        last = max(last, entry.timestamp)
        if firstOutside == nil, entry.position + entry.size > size {
          firstOutside = entry.timestamp
        }
      }
      guard entries > 0 else { continue }
      sawSamples = true
      let end = Double(last) * timeBase
      indexedEnd = max(indexedEnd, end)
      if let firstOutside {
        let playable = Double(firstOutside) * timeBase
        playableEnd = min(playableEnd ?? playable, playable)
      }
    }
    guard sawSamples else { return nil }
    return SamplesInside(
      allInside: playableEnd == nil, playableEnd: playableEnd, indexedEnd: indexedEnd)
  }

  // MARK: - Reading packets

  /// What reading packets found for one stream.
  struct Measurement {
    var scan: TimestampScan?
    var firstFrame: FirstFrame?
    /// The rate the first packets' timestamps show (the headers disagreed).
    var rateFromTimestamps: Rational?
    /// The stream's presentation ends here (an MP4 edit list), in its time-base ticks.
    var editEnd: Int64?
    /// What an MP3's walked frames present (`applyFrameWalk`): where on the stream's timeline,
    /// in its time-base ticks, and how many frames (replacing the packets' count).
    var presented: (start: Int64, end: Int64, samples: Int64)?
    /// Where an MP4 track's one media edit starts on the stream's timeline, and how many more
    /// samples it presents than the demuxer does (`BoxLayout.Track.presentation`: the frame the
    /// edit starts inside, which libavformat marks as discarded).
    var edit: (start: Int64, firstWhole: Int64?, extraSamples: Int64)?
    /// The decoder outputs nothing for the stream's first packet: it starts at the second.
    var firstPacketYieldsNothing = false
    /// Packets the demuxer marked as not presented (outside an MP4 edit list).
    var discardedPackets = 0
    /// The stream's last packet holds no frame (`PacketCheck.mpegAudio`: trailing bytes; AC-3 or
    /// ADTS: a frame cut by the end of the file).
    var endsWithFragment = false
    /// MPEG audio packets without a frame header after the stream's last frame (trailing bytes
    /// the demuxer presents as packets): no frames.
    var trailingNonFrames: Int64 = 0
    /// MPEG audio in AVI: the frames its packets hold, by their headers.
    var mpegFrames: MPEGAudioFrameCounter?
    var ratesFromTimestamps: Bool { rateFromTimestamps != nil }
  }

  /// What a scan takes from one presented packet.
  struct ScannedPacket {
    var timestamp: Int64?
    var duration: Int64
    /// Skip samples side data, in ticks: at the start (nil: none) and at the end.
    var skip: Int64?
    var discard: Int64
    var decodingTimeOnly: Bool
    var verdict: PacketCheck.Verdict
    var isCorrupt: Bool
  }

  /// Facts an opened decoder (and, for some codecs, the first decoded frame) tells.
  struct FirstFrame {
    var codedWidth: Int
    var codedHeight: Int
    /// From the first decoded frame; nil when no frame was decoded.
    var interlaced: Bool?
    /// From the first decoded frame: the top field is displayed first.
    var topFieldFirst: Bool?

    /// Facts known without decoding.
    init(codedWidth: Int, codedHeight: Int, interlaced: Bool?, topFieldFirst: Bool?) {
      self.codedWidth = codedWidth
      self.codedHeight = codedHeight
      self.interlaced = interlaced
      self.topFieldFirst = topFieldFirst
    }

    /// What `decoder` says, and its first decoded `frame` if there is one.
    init(_ decoder: CodecDecoder, _ frame: Frame?) {
      codedWidth = decoder.codedWidth
      codedHeight = decoder.codedHeight
      interlaced = frame?.isInterlaced
      topFieldFirst = frame?.isTopFieldFirst
    }
  }

  /// Hands `progress` how far into the file `packet` lies and the file's duration (seconds).
  static func report(
    _ progress: @Sendable (Double, Double?) -> Void, _ packet: Packet, of input: InputFile
  ) {
    guard let time = packet.pts ?? packet.dts else { return }
    let timeBase = input.view(packet.streamIndex).timeBase
    let done = Double(time) * timeBase.value - (input.startSeconds ?? 0)
    progress(max(0, done), input.durationSeconds)
  }

  /// Codecs whose containers often misreport interlacing (MBAFF H.264 in Matroska is called
  /// progressive): their first frame is decoded. Other codecs are only opened, as ffprobe does,
  /// so a 4K HEVC or AV1 file costs no decoding.
  static let decodedForInterlacing: Set = ["h264", "mpeg2video", "mpeg1video", "vc1", "mpeg4"]

  /// Codecs with no field coding at all (VP8, VP9 and AV1 code frames only): progressive unless
  /// the container says otherwise. HEVC is read from its SPS (`HEVCSequenceParameters`).
  static let codecsWithoutFields: Set = ["vp8", "vp9", "av1"]

  /// The H.264 sequence parameters in a stream's extradata, when it has them.
  static func sequenceParameters(of stream: StreamView) -> H264SequenceParameters? {
    let extradata = stream.extradata
    guard !extradata.isEmpty else { return nil }
    return extradata.withUnsafeBufferPointer { H264SequenceParameters(extradata: $0) }
  }

  /// How much of a stream the bounded timestamp read looks at when the header rates disagree.
  static let timestampWindow = (seconds: 2.0, packets: 240)

  /// Reads packets, once: all of them with `--scan` (timestamps only) or `--verify` (decoding
  /// every audio and video stream), otherwise just enough to decode the first frame of the video
  /// streams whose interlacing must be checked (coded size, interlacing) and to time the first
  /// packets of streams whose header rates disagree.
  private func measure(
    _ input: InputFile, streams: [MediaStream], layout: BoxLayout?, verification: Verification?
  ) throws(ProbeError) -> [Int: Measurement] {
    var results: [Int: Measurement] = [:]
    var firstFrames: [Int: CodecDecoder] = [:]
    /// HEVC streams whose SPS says every picture is a field (`field_seq_flag`).
    var fieldsBySPS: [Int: Bool] = [:]
    var timing: [Int: [Int64]] = [:]
    for stream in streams where stream.type == .video && stream.disposition["attached_pic"] != true
    {
      if stream.codec.name == "h264",
        let sps = Self.sequenceParameters(of: input.view(stream.index)), sps.frameMacroblocksOnly
      {
        // Progressive by its SPS: nothing to decode for interlacing or the coded size.
        results[stream.index, default: Measurement()].firstFrame = FirstFrame(
          codedWidth: sps.codedWidth, codedHeight: sps.codedHeight, interlaced: false,
          topFieldFirst: nil)
      } else if let decoder = try? input.view(stream.index).openDecoder() {
        let hevc =
          stream.codec.name == "hevc"
          ? HEVCSequenceParameters(extradata: input.view(stream.index).extradata) : nil
        if Self.decodedForInterlacing.contains(stream.codec.name)
          || (hevc != nil && (hevc?.interlaced ?? true) && stream.video?.fieldOrder == nil)
          || hevc?.fieldSequence == true
        {
          // HEVC whose pictures are fields, or whose picture timing SEI says per picture: the
          // first frame tells the field order (FFmpeg reads pic_struct into it).
          firstFrames[stream.index] = decoder
          fieldsBySPS[stream.index] = hevc?.fieldSequence == true ? true : nil
        } else {
          var first = FirstFrame(decoder, nil)
          if let hevc {
            first.interlaced = hevc.interlaced
          } else if Self.codecsWithoutFields.contains(stream.codec.name),
            stream.video?.fieldOrder == nil
          {
            first.interlaced = false
          }
          results[stream.index, default: Measurement()].firstFrame = first
        }
      }
      if !options.scan, stream.video?.frameRate.headersDisagree == true {
        timing[stream.index] = []
      }
    }
    var sampleRates: [Int: Int64] = [:]
    var checks: [Int: PacketCheck] = [:]
    /// Audio streams whose frames decode alone: each presented packet is held back until the
    /// next arrives, so that the last one is known.
    var decodedAlone: Set<Int> = []
    var held: [Int: (facts: ScannedPacket, packet: Packet?)] = [:]
    if options.scan {
      for stream in streams {
        results[stream.index, default: Measurement()].scan = TimestampScan(
          timeBase: stream.timeBase)
        checks[stream.index] = PacketCheck(input.view(stream.index))
        if stream.type == .audio, Self.framesDecodeAlone(stream.codec.name) {
          decodedAlone.insert(stream.index)
        }
        if let rate = stream.audio?.sampleRate { sampleRates[stream.index] = Int64(rate) }
        if input.formatName == "avi", stream.type == .audio,
          ["mp1", "mp2", "mp3"].contains(stream.codec.name)
        {
          results[stream.index]?.mpegFrames = MPEGAudioFrameCounter()
        }
        if let end = Self.editEnd(of: input.view(stream.index), layout: layout) {
          results[stream.index]?.editEnd = end
        }
        results[stream.index]?.edit = Self.edit(of: input.view(stream.index), layout: layout)
      }
    }
    let demuxer = Demuxer(input)
    let packet = demuxer.packet
    let frame = Frame()
    /// Decodes a first frame; false once the stream has one (or cannot decode).
    func decodeFirstFrame(_ index: Int, _ packet: Packet?) {
      guard let decoder = firstFrames[index] else { return }
      let more = decoder.decode(packet, into: frame, failure: { _ in }) { frame in
        var first = FirstFrame(decoder, frame)
        if fieldsBySPS[index] == true { first.interlaced = true }
        results[index, default: Measurement()].firstFrame = first
        return false
      }
      if !more || packet == nil { firstFrames[index] = nil }
    }

    /// Adds a presented packet to its stream's scan. The last packet of a stream whose frames
    /// decode alone, and one the demuxer flagged corrupt, are decoded alone first: one the
    /// decoder outputs nothing from (a last AC-3 frame followed by stray chunk bytes) counts as
    /// a frame but is not presented.
    func addScanned(_ index: Int, _ facts: ScannedPacket, packet: Packet?, isLast: Bool) {
      var verdict = facts.verdict
      if verdict == .frame, decodedAlone.contains(index), facts.isCorrupt || isLast,
        let packet, !Self.decodesAnything(packet, of: input.view(index))
      {
        verdict = .undecodable
      }
      results[index]?.scan?.add(
        timestamp: facts.timestamp, duration: facts.duration, skip: facts.skip,
        discard: facts.discard, decodingTimeOnly: facts.decodingTimeOnly,
        presentsNothing: verdict == .undecodable)
    }
    /// Adds the packet held back for a stream, if any.
    func release(_ index: Int, isLast: Bool) {
      guard let (facts, packet) = held.removeValue(forKey: index) else { return }
      addScanned(index, facts, packet: packet, isLast: isLast)
    }

    var packetsRead = 0
    // Without a scan or a verification, give up on first frames after this many packets.
    var packetsWithoutFrame = 0
    let packetLimit = 2_000
    let readsAll = options.scan || verification != nil
    while readsAll
      || (!(firstFrames.isEmpty && timing.isEmpty) && packetsWithoutFrame < packetLimit)
    {
      let next: Demuxer.Next
      do {
        next = try demuxer.next()
      } catch {
        switch error {
        case .interrupted: throw .readError(detail: "interrupted")
        case .timedOut: throw .timeout(seconds: options.timeout ?? 0)
        }
      }
      if case .end = next { break }
      if case .failed(let error) = next {
        if let verification {
          verification.readFailed(error)
          break
        }
        if let remote = input.source.remoteError { throw remote }
        if options.scan { throw .readError(detail: error.message, cause: error.cause) }
        break
      }
      let index = packet.streamIndex
      verification?.decode(packet, stream: index)
      if verification != nil, let progress = options.progress {
        packetsRead += 1
        if packetsRead % 64 == 0 { Self.report(progress, packet, of: input) }
      }
      if let scan = results[index]?.scan {
        if scan.packetCount == 0, !packet.isDiscarded,
          Self.yieldsNothing(firstPacket: packet, of: input.view(index))
        {
          results[index]?.firstPacketYieldsNothing = true
        }
        let skipped = Self.skipTicks(
          packet, sampleRate: sampleRates[index], timeBase: input.view(index).timeBase)
        let verdict =
          packet.isEmpty ? .undecodable : checks[index]?.verdict(packet.bytes) ?? .frame
        switch checks[index] {
        case .mpegAudio where !packet.isDiscarded:
          results[index]?.endsWithFragment = verdict != .frame
          if verdict == .frame {
            results[index]?.trailingNonFrames = 0
          } else {
            results[index]?.trailingNonFrames += 1
          }
        case .ac3, .adts: results[index]?.endsWithFragment = verdict == .noFrame
        default: break
        }
        if results[index]?.mpegFrames != nil, !packet.isDiscarded {
          results[index]?.mpegFrames?.add(packet.bytes)
        }
        if packet.isDiscarded {
          release(index, isLast: false)
          results[index]?.scan?.addDiscarded(duration: packet.duration, skip: skipped?.skip)
          results[index]?.discardedPackets += 1
        } else if verdict != .noFrame {
          // Ogg packets end at their granule: their durations are already trimmed, and the
          // discard padding only tells the decoder what to drop.
          let facts = ScannedPacket(
            timestamp: packet.pts ?? packet.dts, duration: packet.duration, skip: skipped?.skip,
            discard: input.formatName == "ogg" ? 0 : skipped?.discard ?? 0,
            decodingTimeOnly: packet.pts == nil && input.view(index).videoDelay > 0,
            verdict: verdict, isCorrupt: packet.isCorrupt)
          if decodedAlone.contains(index) {
            let copy = held[index]?.packet ?? Packet()
            release(index, isLast: false)
            copy.unref()
            held[index] = (facts, copy.reference(packet) ? copy : nil)
          } else {
            addScanned(index, facts, packet: packet, isLast: false)
          }
        }
      }
      if let timestamps = timing[index], !packet.isDiscarded,
        let timestamp = packet.pts ?? packet.dts
      {
        timing[index]!.append(timestamp)
        let timeBase = input.view(index).timeBase
        let span = Double(timestamp - (timestamps.min() ?? timestamp)) * timeBase.value
        if span >= Self.timestampWindow.seconds || timestamps.count >= Self.timestampWindow.packets
        {
          results[index, default: Measurement()].rateFromTimestamps = Self.rate(
            timestamps: timing[index]!, timeBase: timeBase)
          timing[index] = nil
        }
      }
      if firstFrames[index] != nil {
        packetsWithoutFrame += 1
        decodeFirstFrame(index, packet)
        // A keyframe needs no other packet: drain it now instead of decoding the frames it
        // would be reordered with (three 1080i H.264 frames, 10 ms, for one frame's flags).
        if firstFrames[index] != nil, packet.isKeyframe {
          decodeFirstFrame(index, nil)
        }
      }
    }
    for index in Array(held.keys) { release(index, isLast: true) }
    for index in Array(firstFrames.keys) { decodeFirstFrame(index, nil) }  // frames in flight
    verification?.drain()
    for (index, timestamps) in timing {  // a stream shorter than the window
      results[index, default: Measurement()].rateFromTimestamps = Self.rate(
        timestamps: timestamps, timeBase: input.view(index).timeBase)
    }
    for index in Array(results.keys) {
      results[index]?.scan?.finish(headerEnd: Self.headerEnd(of: input.view(index)))
    }
    let allowance = Self.discontinuityAllowance(streams: streams, measured: results)
    for index in Array(results.keys) {
      let stream = input.view(index)
      if stream.isAudio || stream.isVideo {
        results[index]?.scan?.removeDiscontinuities(allowance: allowance)
      }
      if let end = results[index]?.editEnd { results[index]?.scan?.clampEnd(to: end) }
      if stream.isAudio || stream.isVideo, let layout, layout.isFragmented,
        !layout.undeclaredFragmentTracks.isEmpty,
        let track = layout.tracks[Int64(stream.containerID)], track.declared, track.timescale > 0,
        let start = results[index]?.scan?.start
      {
        // Fragments of a track the movie does not declare: libavformat files their samples
        // under another stream. Each declared track presents its own samples, the movie's and
        // its fragments', as the boxes list them.
        let ticks = Rational.rescale(
          (track.mediaDuration ?? 0) + track.fragmentTicks, from: Rational(1, track.timescale)!,
          to: stream.timeBase)
        results[index]?.presented = (
          start, start + ticks, track.tableSamples + track.fragmentSamples
        )
        results[index]?.scan?.setPresentation(start: start, end: start + ticks)
      } else if stream.isAudio, let layout, layout.isFragmented,
        let track = layout.tracks[Int64(stream.containerID)], track.edits.isEmpty,
        track.timescale > 0
      {
        // A fragmented audio track ends where its samples' durations end (the trun's own,
        // the last one too: libavformat gives every packet the default duration).
        results[index]?.scan?.clampEnd(
          to: Rational.rescale(
            track.fragmentedEnd, from: Rational(1, track.timescale)!, to: stream.timeBase))
      }
      if let counter = results[index]?.mpegFrames, counter.frames > 0, counter.sampleRate > 0,
        let start = results[index]?.scan?.start
      {
        // MPEG audio in AVI lasts its frames' samples: an AVI audio header that counts bytes
        // (dwSampleSize 1, a byte rate) times VBR frames by a rate they do not keep (1.11 s
        // for 2.04 s of frames).
        let ticks = Rational.rescale(
          counter.samples, from: Rational(1, counter.sampleRate)!, to: stream.timeBase)
        results[index]?.presented = (start, start + ticks, counter.frames)
        results[index]?.scan?.setPresentation(start: start, end: start + ticks)
      }
      if let edit = results[index]?.edit, edit.extraSamples > 0,
        let scan = results[index]?.scan, let start = scan.start, let end = scan.end
      {
        // The frame the edit starts inside is shown from the edit's start; the demuxer discards
        // it and starts its timeline at the next frame, which the edit shows later: the span
        // is the edit's, from its start, on the specification's timeline.
        let shift = (edit.firstWhole ?? start) - start
        results[index]?.scan?.setPresentation(start: edit.start, end: end + shift)
      }
      // Audio starts no earlier than libavformat's `start_time` (Ogg Vorbis's first packet, at
      // -128, yields no samples). Video does not: its `start_time` can lie after frames a decoder
      // outputs (an MPEG-TS B-frame sent after its I-frame, Matroska packets without a dts).
      if stream.isAudio, let start = stream.startTime {
        results[index]?.scan?.clampStart(to: start)
      }
      if results[index]?.firstPacketYieldsNothing == true,
        let second = results[index]?.scan?.secondTimestamp
      {
        results[index]?.scan?.clampStart(to: second)
      }
      if let scan = results[index]?.scan, !scan.skipsSamples, let first = scan.start,
        stream.isAudio, stream.initialPadding > 0, let rate = sampleRates[index], rate > 0
      {
        // The codec's own pre-skip (Opus in Matroska), when no packet carried skip samples.
        let ticks = Rational.rescale(
          Int64(stream.initialPadding), from: Rational(1, rate)!, to: stream.timeBase)
        results[index]?.scan?.clampStart(to: first + ticks)
      }
    }
    return results
  }

  /// How far apart two runs of a stream's timestamps may lie and still be one presentation, in
  /// seconds: `TimestampScan.runGapSeconds` (60 s), or longer when the file's packets can fill
  /// more: the longest `contentSeconds` of its audio and video streams (presented packets times
  /// the stream's longest ordinary step). A jump beyond it is what no packet count or frame
  /// duration in the file accounts for: a `timestamp_discontinuity`.
  static func discontinuityAllowance(streams: [MediaStream], measured: [Int: Measurement])
    -> Double
  {
    var allowance = Double(TimestampScan.runGapSeconds)
    for stream in streams
    where (stream.type == .video && stream.disposition["attached_pic"] != true)
      || stream.type == .audio
    {
      allowance = max(allowance, measured[stream.index]?.scan?.contentSeconds ?? 0)
    }
    return allowance
  }

  /// Whether the decoder outputs no samples for a stream's first packet, which the packet's
  /// timestamps do not say:
  /// - Vorbis outside Ogg: the first packet only primes the overlap of the next (in Ogg the
  ///   granules already leave it out).
  /// - AAC from libfaac: its first frame holds a fill element "libfaac <major>.<minor>", from
  ///   which FFmpeg's decoder skips 1024 samples, one frame (`decode_fill`), unless the packet
  ///   carries skip samples side data: libavcodec reads that after decoding and it replaces the
  ///   count.
  static func yieldsNothing(firstPacket packet: Packet, of stream: StreamView) -> Bool {
    switch stream.codecName {
    case "vorbis": return stream.input.formatName != "ogg"
    case "aac": return !packet.hasSkipSamples && Self.namesLibfaac(packet.bytes)
    default: return false
    }
  }

  /// The payload holds "libfaac " and a version, "<digits>.<digits>" (libfaac's fill element
  /// starts on a byte boundary when it is the frame's first element).
  static func namesLibfaac(_ bytes: UnsafeRawBufferPointer) -> Bool {
    let name = Array("libfaac ".utf8)
    let isDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) }
    guard bytes.count >= name.count + 3 else { return false }
    for at in 0...(bytes.count - name.count - 3) where bytes[at] == name[0] {
      guard name.indices.allSatisfy({ bytes[at + $0] == name[$0] }) else { continue }
      var next = at + name.count
      guard isDigit(bytes[next]) else { continue }
      while next < bytes.count, isDigit(bytes[next]) { next += 1 }
      if next + 1 < bytes.count, bytes[next] == UInt8(ascii: "."), isDigit(bytes[next + 1]) {
        return true
      }
    }
    return false
  }

  /// Codecs whose every frame decodes on its own, with no state from the frames before: a fresh
  /// decoder makes of a packet what the running one would. An explicit list: FFmpeg marks every
  /// audio codec intra-only, even MP3 and Vorbis, whose frames overlap.
  static func framesDecodeAlone(_ codec: String) -> Bool {
    ["flac", "ac3", "eac3"].contains(codec) || codec.hasPrefix("pcm_")
  }

  /// Whether FFmpeg's decoder outputs anything from one packet, decoded alone. Used for a
  /// stream's last packet and for packets the demuxer flagged corrupt (`AV_PKT_FLAG_CORRUPT`),
  /// which a decoder may reject (AC-3 followed by stray bytes: invalid data) or partly decode
  /// (PCM): only a rejected one is left out of the span. One decode per stream, a few more in a
  /// damaged file.
  static func decodesAnything(_ packet: Packet, of stream: StreamView) -> Bool {
    guard let decoder = try? stream.openDecoder() else { return true }
    let frame = Frame()
    var decoded = false
    for input in [packet, nil] {
      decoder.decode(input, into: frame, failure: { _ in }) { _ in
        decoded = true
        return false
      }
    }
    return decoded
  }

  /// Where a stream ends by its own header (APE's sample count, ASF's play duration, AVI's
  /// `dwLength`), in its time-base ticks: its start plus `AVStream.duration`. Nil when
  /// libavformat estimated the durations from the bit rate.
  static func headerEnd(of stream: StreamView) -> Int64? {
    guard !stream.input.durationFromBitrate, let duration = stream.duration
    else { return nil }
    return (stream.startTime ?? 0) + duration
  }

  /// A packet's skip samples (`AV_PKT_DATA_SKIP_SAMPLES`: samples not presented at its start,
  /// and at its end), in its stream's time-base ticks; nil when the packet has none.
  static func skipTicks(_ packet: Packet, sampleRate: Int64?, timeBase: Rational)
    -> (skip: Int64, discard: Int64)?
  {
    guard let sampleRate, sampleRate > 0, let (skip, discard) = packet.skipSamples else {
      return nil
    }
    // samples / rate seconds, in ticks of num/den seconds.
    func ticks(_ samples: UInt32) -> Int64 {
      guard timeBase.num > 0 else { return 0 }
      return Rational.rescale(Int64(samples), from: Rational(1, sampleRate)!, to: timeBase)
    }
    return (ticks(skip), ticks(discard))
  }

  /// Where an MP4 track's presentation ends, in its time-base ticks: where its one media edit
  /// ends, or its last sample when the edit runs past it (`BoxLayout.Track.presentation`; the
  /// demuxer stretches the last packet to the edit's end), after the empty edits before it;
  /// without the sample table's interval, the durations of its edits (one non-empty edit only;
  /// otherwise nil).
  static func editEnd(of stream: StreamView, layout: BoxLayout?) -> Int64? {
    guard let layout, let movieScale = layout.movieTimescale, movieScale > 0,
      let track = layout.tracks[Int64(stream.containerID)], !track.edits.isEmpty,
      !layout.isFragmented
    else { return nil }
    if let presented = track.presentation(movieTimescale: movieScale) {
      return Rational.rescale(
        presented.endOnTimeline, from: Rational(1, track.timescale)!, to: stream.timeBase)
    }
    let media = track.edits.filter { $0.mediaTime >= 0 }
    guard media.count == 1 else { return nil }
    let total = track.edits.reduce(0) { $0 + $1.duration }
    return Rational.rescale(total, from: Rational(1, movieScale)!, to: stream.timeBase)
  }

  /// Where an MP4 track's one media edit starts presenting on the stream's timeline
  /// (libavformat's: the edit's `media_time` at the empty edits' delay), in its time-base ticks,
  /// and how many more samples it presents than the demuxer does; nil without one media edit
  /// or a readable sample table.
  static func edit(of stream: StreamView, layout: BoxLayout?) -> (
    start: Int64, firstWhole: Int64?, extraSamples: Int64
  )? {
    guard let layout, !layout.isFragmented,
      let track = layout.tracks[Int64(stream.containerID)],
      let presentation = track.presentation(movieTimescale: layout.movieTimescale),
      let samples = track.presentedSamples, presentation.ticks > 0
    else { return nil }
    let media = Rational(1, track.timescale)!
    func timeline(_ ticks: Int64) -> Int64 {
      Rational.rescale(
        presentation.delay + ticks - presentation.mediaTime, from: media, to: stream.timeBase)
    }
    return (
      timeline(presentation.start), track.firstWholeSample.map(timeline),
      shownBeyondTheDemuxer(stream, presented: samples)
    )
  }

  /// How many more samples an edit list presents (`presented`, from the sample table) than the
  /// demuxer does: at most those it flagged discarded (the frame an edit starts inside is one
  /// of them); never fewer than it presents. A sample the demuxer did not index at all is not
  /// counted: nothing can read it.
  static func shownBeyondTheDemuxer(_ stream: StreamView, presented: Int64) -> Int64 {
    let (entries, demuxed) = stream.indexCounts()
    return Swift.min(Swift.max(0, presented - demuxed), entries - demuxed)
  }

  /// The constant frame rate the first packets' timestamps show: the standard rate they round to
  /// (timestamps in a coarse time base, such as Matroska's milliseconds, jitter by a tick), else
  /// 1 / the mean interval. Nil when the intervals vary (VFR: the header's average stays the
  /// best guess without a scan). The latest few are left out: in decoding order, B-frames that
  /// come before them may not have arrived yet.
  static func rate(timestamps: [Int64], timeBase: Rational) -> Rational? {
    let sorted = Array(Set(timestamps)).sorted()
    let kept = sorted.count > 24 ? Array(sorted.dropLast(8)) : sorted
    guard kept.count > 2 else { return nil }
    let deltas = zip(kept.dropFirst(), kept).map { $0 - $1 }
    guard let minDelta = deltas.min(), let maxDelta = deltas.max(), minDelta > 0 else {
      return nil
    }
    let intervals = Int64(deltas.count)
    let ticks = kept.last! - kept.first!
    let tick = timeBase.value
    let measured = Double(intervals) / (Double(ticks) * tick)
    let slowest = 1 / (Double(maxDelta + 1) * tick)
    let fastest = 1 / (Double(max(minDelta - 1, 1)) * tick)
    let standard: [Rational] = [
      (24000, 1001), (24, 1), (25, 1), (30000, 1001), (30, 1), (48, 1), (50, 1), (60000, 1001),
      (60, 1), (90, 1), (100, 1), (120, 1), (15, 1), (12, 1), (10, 1), (5, 1),
    ].compactMap { Rational($0.0, $0.1) }
    guard maxDelta - minDelta <= 1 else { return nil }
    let match = standard.filter { (slowest...fastest).contains($0.value) }.min {
      abs($0.value - measured) < abs($1.value - measured)
    }
    return match ?? Rational(intervals * Int64(timeBase.den), ticks * Int64(timeBase.num))
  }

  // MARK: - Durations

  /// The duration a player presents. Without `--scan`: the container's declared duration
  /// (libavformat's, which is the MP4 movie header, the Matroska Segment Duration, FLV's
  /// declared duration, Ogg's last granule, or a stream header's), the MP4 fragments' when the
  /// header holds the "unknown" sentinel, the MP3 Xing header's gapless length. With `--scan`
  /// the same declared value is kept in the containers that declare one
  /// (`declaresPresentationDuration`; the samples' interval goes to `span`, never replacing it);
  /// elsewhere, and where the declared value is missing, zero or a bit-rate estimate, the span
  /// is the duration (`source: scan`).
  private func fileDuration(
    _ input: InputFile, streams: [MediaStream], measured: [Int: Measurement], layout: BoxLayout?,
    span: SampleSpan?
  ) -> MediaDuration? {
    let declared = declaredDuration(input, streams: streams, layout: layout)
    guard options.scan else { return declared }
    // A fragmented MP4 without mehd declares no whole duration (its movie header covers the
    // initial movie, or says "unknown"): the samples' span is the duration.
    let undeclared =
      layout.map {
        ($0.isFragmented || $0.unknownDurationSentinel) && $0.fragmentDuration == nil
      } ?? false
    if !undeclared, let declared, declared.seconds > 0, !declared.estimated,
      Self.declaresPresentationDuration(input.formatName), declared.source != .bitrate
    {
      return declared
    }
    if let span {
      return MediaDuration(value: span.value, timescale: span.timescale, source: .scan)
    }
    return streams.compactMap(\.duration).max { $0.seconds < $1.seconds } ?? declared
  }

  /// The duration the container (or a stream's header) declares, as libavformat reports it,
  /// with the sentinel and MP3 rules; nil when none is known.
  private func declaredDuration(
    _ input: InputFile, streams: [MediaStream], layout: BoxLayout?
  ) -> MediaDuration? {
    if let layout, layout.isFragmented || layout.unknownDurationSentinel {
      // The header says "unknown" (or only the initial movie's length): mehd, else the longest
      // audio or video track's samples, the movie's and the fragments' (from the boxes, so
      // --scan keeps it too).
      if let ticks = layout.fragmentDuration, let scale = layout.movieTimescale, scale > 0 {
        return MediaDuration(value: ticks, timescale: scale, source: .fragments)
      }
      let timed = streams.filter { $0.type == .audio || $0.type == .video }
      let lengths: [MediaDuration] = timed.compactMap { stream in
        guard let track = layout.tracks[Int64(input.view(stream.index).containerID)],
          track.timescale > 0, layout.isFragmented
        else { return nil }
        let ticks = (track.mediaDuration ?? 0) + track.fragmentTicks
        return ticks > 0
          ? MediaDuration(value: ticks, timescale: track.timescale, source: .fragments) : nil
      }
      return
        (lengths.isEmpty
        ? streams.compactMap(\.duration).filter { $0.source == .fragments } : lengths).max {
          $0.seconds < $1.seconds
        }
    }
    // AVI whose header claims frames the index does not hold: the stored frames' end.
    if input.formatName == "avi", streams.contains(where: { $0.duration?.source == .index }) {
      return streams.filter { $0.type == .video || $0.type == .audio }.compactMap(\.duration)
        .max { $0.seconds < $1.seconds }
    }
    if let mp3 = streams.first(where: { $0.duration?.source == .header }), streams.count <= 2 {
      return mp3.duration
    }
    // Ogg with Opus: libavformat's length counts Opus's pre-skip, which the streams' own
    // durations leave out (`StreamReader`): the longest audio or video stream.
    if input.formatName == "ogg", streams.contains(where: { $0.codec.name == "opus" }) {
      let longest = streams.filter { $0.type == .audio || $0.type == .video }
        .compactMap(\.duration).max { $0.seconds < $1.seconds }
      if let longest { return longest }
    }
    // An MP3 whose header could not be read (`headerUnreliable`): its walked frames.
    if input.formatName == "mp3",
      let walked = streams.first(where: { $0.type == .audio && $0.duration?.source == .index })
    {
      return walked.duration
    }
    guard let duration = input.durationMicroseconds else { return nil }
    // An MP4/MOV movie header's duration is libavformat's (mov.c copies it), exact in its own
    // timescale rather than rounded to microseconds.
    if let layout, let ticks = layout.movieDuration, let scale = layout.movieTimescale, scale > 0,
      input.durationEstimation == .stream,
      abs(Double(ticks) / Double(scale) * 1e6 - Double(duration)) <= 1
    {
      return MediaDuration(value: ticks, timescale: scale, source: .container)
    }
    let source: DurationSource
    switch input.durationEstimation {
    case .bitrate: source = .bitrate
    case .stream: source = .stream
    case .timestamps: source = .container
    }
    return MediaDuration(
      value: duration, timescale: 1_000_000, estimated: source == .bitrate, source: source)
  }

  /// The containers whose header states how long the presentation lasts: MP4/MOV (the movie
  /// header, after edit lists; the fragments when it holds the sentinel), Matroska/WebM (the
  /// Segment Duration, which covers subtitle tracks too) and FLV (`onMetaData`'s duration).
  /// Elsewhere libavformat's duration is its own estimate from timestamps, packet sizes or a
  /// stream header that ignores gapless trimming (MPEG-TS/PS, raw audio and video, MP3, Ogg,
  /// AVI), and a scan's span is the exact form of it.
  static func declaresPresentationDuration(_ formatName: String) -> Bool {
    formatName.hasPrefix("mov,mp4") || formatName == "matroska,webm" || formatName == "flv"
  }

  /// One frame of the file, in seconds: the longest mean frame (or audio packet) duration of
  /// its scanned audio and video streams. Two durations closer than this are the same answer.
  static func oneFrame(streams: [MediaStream], measured: [Int: Measurement]) -> Double {
    var longest = 0.001
    for stream in streams where stream.type == .video || stream.type == .audio {
      guard let scan = measured[stream.index]?.scan, let start = scan.start, let end = scan.end,
        end > start, let count = stream.frameCount, count > 0
      else { continue }
      longest = max(longest, Double(end - start) * stream.timeBase.value / Double(count))
    }
    return longest
  }

  /// The span every scanned audio and video stream covers together: from the earliest
  /// presented time of any to the latest end of any, exact (in the least common multiple of
  /// their time bases when it fits, else microseconds).
  static func union(streams: [MediaStream], measured: [Int: Measurement]) -> SampleSpan? {
    let timed = streams.filter {
      ($0.type == .video && $0.disposition["attached_pic"] != true) || $0.type == .audio
    }
    var bounds: [(start: MediaTime, end: MediaTime)] = []
    for stream in (timed.isEmpty ? streams : timed) {
      guard let scan = measured[stream.index]?.scan, let start = scan.start, let end = scan.end,
        end > start
      else { continue }
      bounds.append(
        (
          MediaTime(ticks: start, timeBase: stream.timeBase),
          MediaTime(ticks: end, timeBase: stream.timeBase)
        ))
    }
    guard let start = bounds.map(\.start).min(), let end = bounds.map(\.end).max() else {
      return nil
    }
    return SampleSpan(start: start, end: end)
  }
}

extension MediaStream {
  /// Makes a video stream of a still picture say so: the `still_image` disposition, the
  /// picture's orientation, and no duration or frame rate (a picture is shown, not played).
  mutating func markStill(transform: AffineTransform) {
    disposition["still_image"] = true
    duration = nil
    if frameCountSource != .index && frameCountSource != .scan {
      frameCount = nil
      frameCountSource = nil
    }
    guard var video else { return }
    video.frameRate = FrameRate(nominal: nil, average: nil)
    video.orientation = Orientation(
      transform: transform, width: video.width, height: video.height,
      sampleAspectRatio: video.sampleAspectRatio)
    self.video = video
  }

  /// Replaces header values with what reading packets measured.
  mutating func apply(_ measurement: Prober.Measurement, timeBase: Rational) {
    if let scan = measurement.scan, scan.packetCount > 0 {
      // An MP4 edit list's presented samples, not the demuxer's non-discarded packets.
      // Trailing MPEG audio packets without a frame header are no frames.
      frameCount =
        measurement.presented?.samples
        ?? (scan.packetCount - measurement.trailingNonFrames + (measurement.edit?.extraSamples ?? 0))
      frameCountSource = .scan
      if let counter = measurement.mpegFrames, counter.frames > 0, counter.sampleRate > 0 {
        // Exactly, in samples (the AVI time base may not hold it).
        duration = MediaDuration(
          value: counter.samples, timescale: counter.sampleRate, source: .scan)
      } else if let ticks = scan.durationTicks {
        duration = MediaDuration(ticks: ticks, timeBase: timeBase, source: .scan)
      }
      if var video, disposition["attached_pic"] != true {
        video.frameRate.mode = scan.mode
        video.frameRate.min = scan.maxDelta.flatMap { Rational(timeBase.den, $0 * timeBase.num) }
        video.frameRate.max = scan.minDelta.flatMap { Rational(timeBase.den, $0 * timeBase.num) }
        video.frameRate.minFrameDuration = scan.minDelta.map {
          MediaDuration(ticks: $0, timeBase: timeBase, source: .scan)
        }
        if let rate = Self.scannedRate(scan, timeBase: timeBase, nominal: video.frameRate.nominal) {
          video.frameRate.best = rate
          video.frameRate.source = .scan
        }
        self.video = video
      }
    }
    if let scan = measurement.scan, scan.packetCount == 0, var video,
      disposition["attached_pic"] != true
    {
      // Read to the end, the demuxer gave the video stream no packet: it has no frames and no
      // rate. (Audio keeps its header values: a raw 32-bit FLAC yields no packets because
      // FFmpeg 5.1's parser cannot frame it, not because it holds no sound.)
      frameCount = 0
      frameCountSource = .scan
      video.frameRate = FrameRate(nominal: nil, average: nil)
      self.video = video
    }
    if let rate = measurement.rateFromTimestamps, var video {
      video.frameRate.best = rate
      video.frameRate.source = .timestamps
      self.video = video
    }
    if let first = measurement.firstFrame, var video {
      if first.codedWidth > 0 {
        video.codedWidth = first.codedWidth
        video.codedHeight = first.codedHeight
      }
      if let interlaced = first.interlaced { video.interlaced = interlaced }
      if first.interlaced == true, video.fieldOrder == nil || video.fieldOrder == "progressive" {
        // The container did not say (or said progressive, as Matroska does for MBAFF H.264):
        // the decoded frame's field order (H.264 derives it from the fields' picture order
        // counts), as MediaInfo reports "MBAFF TFF"; unknown when no frame was decoded.
        video.fieldOrder = first.topFieldFirst.map { $0 ? "tt" : "bb" }
      }
      self.video = video
    }
  }

  /// The rate a scan measured: for a CFR clip 1 / the frame duration, or the nominal rate when
  /// it lies within the ±1 tick rounding of a coarse time base (Matroska's 1 ms makes 30 fps
  /// frames last 33 or 34 ticks); for VFR frames / span.
  static func scannedRate(_ scan: TimestampScan, timeBase: Rational, nominal: Rational?)
    -> Rational?
  {
    guard let ticks = scan.durationTicks, ticks > 0 else { return nil }
    let frames = scan.spannedFrames
    let measured = Rational(frames * timeBase.den, ticks * timeBase.num)
    guard scan.mode == .cfr, let minDelta = scan.minDelta, let maxDelta = scan.maxDelta else {
      return measured
    }
    if minDelta == maxDelta { return Rational(timeBase.den, minDelta * timeBase.num) }
    let slowest = 1 / (Double(maxDelta + 1) * timeBase.value)
    let fastest = 1 / (Double(max(minDelta - 1, 1)) * timeBase.value)
    if let nominal, (slowest...fastest).contains(nominal.value) { return nominal }
    return measured
  }
}
