import CFFmpeg
import MediaCore
import OutputKit

#if canImport(Glibc)
  import Glibc
#endif

/// An audio stream decoded in parallel chunks whose samples equal one sequential decode
/// (`AudioSource` from the start, 16-bit): the plan, one reader per chunk, and the checks that
/// show the joined result is exact (else the caller decodes sequentially).
///
/// Only where exactness can be shown: a local regular file read by the `mov` demuxer (MP4, M4A,
/// MOV: the sample table gives every packet's exact time, in a time base of 1/sample rate), with
/// AAC LC (mono or stereo) or MP3. Chunk k is opened separately (the same file: device, inode,
/// size and time checked), seeked to `preroll` samples before its first sample, decoded from
/// there with a fresh decoder, and its samples before its start are dropped: AAC LC carries one
/// frame of MDCT overlap and the noise generator of perceptual noise substitution (PNS) across
/// frames; MP3 its bit reservoir (at most 511 bytes back), one granule of overlap and the
/// 512-sample synthesis window. The preroll covers the overlaps and the reservoir; the noise
/// generator is checked (`ChunkReport.noiseUnused`); each chunk decodes `seamSamples` past its
/// end, which must equal the next chunk's first samples; every frame must follow the one before
/// it without a gap (a decoding error drops a frame, which would move the sequential samples).
/// Opus and Vorbis, HE-AAC (SBR, whose envelopes are coded as differences from earlier frames)
/// and every other codec or container are not planned.
package enum AudioChunks {
  /// The codecs a plan takes.
  package enum Codec: Sendable, Equatable {
    case aacLC
    case mp3
  }

  /// How to cut one stream into chunks.
  package struct Plan: Sendable {
    /// The file.
    package let path: String
    /// Its open options.
    package let options: OpenOptions
    /// The stream decoded (the ffmpeg CLI's choice, as `AudioSource`).
    package let streamIndex: Int
    /// The codec.
    package let codec: Codec
    /// Samples per second (the stream's time base is 1/sampleRate).
    package let sampleRate: Int
    /// Channels.
    package let channels: Int
    /// The timestamp (in samples) of the first sample a sequential decode delivers.
    package let firstSample: Int64
    /// The timestamp of each chunk's first sample (the first is `firstSample`); each later
    /// one a whole number of `alignment` samples after `firstSample`.
    package let starts: [Int64]
    /// Samples decoded and dropped before a chunk's first sample.
    package let preroll: Int64
    /// Samples a chunk decodes past its end, compared with the next chunk's first ones.
    package let seamSamples: Int64
    /// The samples a decode delivers, as the container states them (`declaredSamples(of:)`).
    package let declaredSamples: Int64
    /// The file's identity when planned (device, inode, size, modification time).
    let identity: [Int64]

    /// Chunks.
    package var count: Int { starts.count }
  }

  /// What one chunk's decode shows about itself.
  package struct ChunkReport: Sendable {
    /// The timestamp of the first sample delivered (nil: none).
    package var firstSample: Int64?
    /// Samples delivered.
    package var delivered: Int64 = 0
    /// Every frame from the chunk's start followed the one before it, in the plan's format.
    package var contiguous = true
    /// The first `seamSamples` samples delivered (interleaved 16-bit).
    package var head: [Int16] = []
    /// The samples decoded after the chunk's end (`seamSamples` of them, or fewer at the end).
    package var tail: [Int16] = []
    /// AAC: the decoder's noise generator stood where a fresh decoder's does after the chunk
    /// (no PNS band was decoded). Nil when not checked (MP3, the last chunk).
    package var noiseUnused: Bool?
  }

  /// The plan for `source`, or nil when its chunks could not be shown to equal a sequential
  /// decode (or it is too short to gain: under `minimumSeconds`).
  ///
  /// - Parameters:
  ///   - chunks: how many (the cores to use).
  ///   - alignment: chunk starts fall on multiples of this many samples from the first (a
  ///     waveform's bin).
  package static func plan(
    _ source: InputSource, options: OpenOptions, chunks: Int, alignment: Int,
    minimumSeconds: Double = 20
  ) -> Plan? {
    guard chunks > 1, alignment > 0, case .file(let path) = source else { return nil }
    // Only a regular file is opened here: opening a FIFO (or a character device) to look at
    // it would consume what the sequential decode must read after it, which then waits for
    // a writer that has gone (`timeout`).
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    guard let input = try? InputOpener.open(source, options: options) else { return nil }
    guard input.source.isLocalFile, case .regular = input.source.kind,
      input.formatName.hasPrefix("mov,")
    else { return nil }
    guard let index = try? StreamChoice.automatic.select(in: input) else { return nil }
    let stream = input.stream(index).pointee
    let parameters = stream.codecpar.pointee
    let rate = Int(parameters.sample_rate)
    let channels = Int(parameters.ch_layout.nb_channels)
    guard rate > 0, channels > 0, stream.time_base.num == 1, stream.time_base.den == rate,
      stream.start_time != mt_nopts_value, stream.duration > 0
    else { return nil }
    let codec: Codec
    let preroll: Int64
    switch parameters.codec_id {
    case AV_CODEC_ID_AAC:
      guard parameters.profile == FF_PROFILE_AAC_LOW, channels <= 2 else { return nil }
      codec = .aacLC
      preroll = 4 * 1024
    case AV_CODEC_ID_MP3:
      codec = .mp3
      preroll = 48 * 1152
    default:
      return nil
    }
    guard let expected = expectedSamples(input.stream(index)),
      Double(expected) / Double(rate) >= minimumSeconds,
      let identity = identity(of: input.source.fd)
    else { return nil }
    if codec == .aacLC
      && !noiseUnused(in: input, streamIndex: index, channels: channels, seconds: 5)
    {
      return nil
    }
    let first = stream.start_time
    let bins = expected / Int64(alignment)
    let starts = (0..<chunks).map { k in first + bins * Int64(k) / Int64(chunks) * Int64(alignment)
    }
    return Plan(
      path: path, options: options, streamIndex: index, codec: codec, sampleRate: rate,
      channels: channels, firstSample: first, starts: starts, preroll: preroll,
      seamSamples: 4096, declaredSamples: expected, identity: identity)
  }

  /// The samples a decode of `audio`'s stream delivers, when the container states them: an
  /// MP4 (`mov` demuxer) track in a time base of 1/sample rate whose packets each decode to
  /// the codec's frame size (AAC, MP3): from the first sample after the edit list's start trim
  /// to the end of the sample table's last packet (FFmpeg 5.1 does not trim the end). Nil for
  /// any other input. A caller relying on it checks the count it got.
  package static func declaredSamples(of audio: AudioSource) -> Int64? {
    guard audio.input.formatName.hasPrefix("mov,") else { return nil }
    return expectedSamples(audio.input.stream(audio.stream.index))
  }

  /// See `declaredSamples(of:)`.
  static func expectedSamples(_ stream: UnsafeMutablePointer<AVStream>) -> Int64? {
    let parameters = stream.pointee.codecpar.pointee
    let rate = parameters.sample_rate
    let entries = avformat_index_get_entries_count(stream)
    guard rate > 0, parameters.frame_size > 0, stream.pointee.time_base.num == 1,
      stream.pointee.time_base.den == rate, stream.pointee.start_time != mt_nopts_value,
      entries > 0, let last = avformat_index_get_entry(stream, entries - 1)
    else { return nil }
    let end = last.pointee.timestamp + Int64(parameters.frame_size)
    return end > stream.pointee.start_time ? end - stream.pointee.start_time : nil
  }

  /// Device, inode, size and modification time of an open descriptor.
  static func identity(of fd: Int32) -> [Int64]? {
    var info = stat()
    guard fstat(fd, &info) == 0 else { return nil }
    return [
      Int64(info.st_dev), Int64(info.st_ino), Int64(info.st_size), Int64(info.st_mtim.tv_sec),
      Int64(info.st_mtim.tv_nsec),
    ]
  }

  /// True when the chunks' reports show their samples, joined, are the sequential decode's.
  package static func joined(_ reports: [ChunkReport], plan: Plan) -> Bool {
    guard reports.count == plan.count else { return false }
    for (k, report) in reports.enumerated() {
      guard report.contiguous else { return false }
      let start = plan.starts[k]
      guard report.firstSample == start || (report.delivered == 0 && k == plan.count - 1) else {
        return false
      }
      if k + 1 < plan.count {
        let next = plan.starts[k + 1]
        guard report.delivered == next - start else { return false }
        guard report.tail == reports[k + 1].head, !report.tail.isEmpty else { return false }
        if plan.codec == .aacLC, report.noiseUnused != true { return false }
      }
    }
    return true
  }

  /// Decodes chunk `index` of `plan`, handing its samples (interleaved 16-bit, the plan's
  /// channels) to `deliver` in order.
  ///
  /// - Throws: `ExtractError` (`.input` when the file cannot be opened again or changed,
  ///   `.interrupted`, decoder and conversion failures).
  package static func decode(
    _ plan: Plan, chunk index: Int, deliver: (UnsafeBufferPointer<Int16>) -> Void
  ) throws(ExtractError) -> ChunkReport {
    let input: InputFile
    do {
      input = try InputOpener.open(.file(plan.path), options: plan.options)
    } catch {
      throw .input(error)
    }
    var report = ChunkReport()
    guard identity(of: input.source.fd) == plan.identity, plan.streamIndex < input.streamCount
    else {
      report.contiguous = false
      return report
    }
    let start = plan.starts[index]
    let last = index + 1 == plan.count
    let end = last ? Int64.max : plan.starts[index + 1]
    let stop = last ? Int64.max : end + plan.seamSamples
    if index > 0 {
      let target = start - plan.preroll
      guard
        avformat_seek_file(input.pointer, Int32(plan.streamIndex), Int64.min, target, target, 0)
          >= 0
      else {
        report.contiguous = false
        return report
      }
    }
    input.discardAll(except: plan.streamIndex)
    let stream = input.view(plan.streamIndex)
    let decoder: CodecDecoder
    do {
      decoder = try stream.openDecoder(threads: 1)
    } catch {
      throw .decoder(error.message, error)
    }
    let demuxer = Demuxer(input)
    let frame = Frame()
    let scratch = ByteBuffer()
    var converter: Resampler?
    var expected: Int64?
    var firstDecoded: Int64?
    var done = false
    var failure: ExtractError?

    func handle(_ frame: Frame) -> Bool {
      let f = frame.pointer
      let count = Int64(f.pointee.nb_samples)
      guard count > 0 else { return true }
      let pts = f.pointee.pts
      guard pts != mt_nopts_value, Int(f.pointee.sample_rate) == plan.sampleRate,
        Int(f.pointee.ch_layout.nb_channels) == plan.channels
      else {
        report.contiguous = false
        done = true
        return false
      }
      if firstDecoded == nil { firstDecoded = pts }
      if pts + count <= start {
        // Preroll: dropped. Frames before the start need not follow each other (an MP3
        // frame whose reservoir is missing may fail to decode here).
        expected = pts + count
        return true
      }
      // From the frame holding the start on, each frame follows the one before it, and a
      // later chunk has decoded at least half its preroll before it.
      let followed = expected.map { $0 == pts } ?? (index == 0)
      if !followed || (index > 0 && firstDecoded! > start - plan.preroll / 2) {
        report.contiguous = false
        done = true
        return false
      }
      expected = pts + count
      let from = max(pts, start)
      let to = min(pts + count, stop)
      guard from < to else {
        done = true
        return false
      }
      if converter == nil {
        let incoming = FrameFormat(f)
        do {
          converter = try Resampler(
            from: incoming,
            to: FrameFormat(
              sampleFormat: AV_SAMPLE_FMT_S16, sampleRate: incoming.sampleRate,
              layout: incoming.layout))
        } catch {
          failure = .conversion("converting the samples to 16-bit", error)
          done = true
          return false
        }
      }
      scratch.removeAll()
      do {
        try converter!.convert(f, offset: Int(from - pts), count: Int(to - from), into: scratch)
      } catch {
        failure = .conversion("converting the samples to 16-bit", error)
        done = true
        return false
      }
      scratch.contents.withMemoryRebound(to: Int16.self) { samples in
        let channels = plan.channels
        let inside = Int(max(0, min(to, end) - from)) * channels
        if inside > 0 {
          let kept = UnsafeBufferPointer(rebasing: samples[0..<inside])
          if report.firstSample == nil { report.firstSample = from }
          let headRoom = Int(plan.seamSamples) * channels - report.head.count
          if headRoom > 0 { report.head += kept.prefix(headRoom) }
          report.delivered += Int64(inside / channels)
          deliver(kept)
        }
        if inside < samples.count {
          report.tail += samples[inside...]
        }
      }
      if to >= stop { done = true }
      return !done
    }

    while !done {
      let next: Demuxer.Next
      do {
        next = try demuxer.next()
      } catch {
        switch error {
        case .interrupted: throw .interrupted
        case .timedOut: throw .input(.timeout(seconds: plan.options.timeout ?? 0))
        }
      }
      switch next {
      case .end, .failed:
        decoder.decode(nil, into: frame, failure: { _ in }, body: handle)
        done = true
      case .packet:
        guard demuxer.packet.streamIndex == plan.streamIndex else { continue }
        decoder.decode(
          demuxer.packet, into: frame,
          failure: { _ in
            // A failure after the start drops samples the sequential decode drops too, but
            // moves what follows: not contiguous any more.
            if let expected, expected > start { report.contiguous = false }
          }, body: handle)
      }
      if let failure { throw failure }
    }
    if let failure { throw failure }
    if plan.codec == .aacLC && !last {
      report.noiseUnused = noiseGeneratorUnused(decoder, stream: stream, channels: plan.channels)
    }
    return report
  }

  // MARK: - AAC's noise generator

  /// True when the first `seconds` of the stream draw no noise (PNS): the early answer for the
  /// encoders that code noise bands throughout (FFmpeg's own AAC encoder does, even on tones),
  /// so that their files go to one pass at once; the chunks check the whole stream again.
  static func noiseUnused(
    in input: InputFile, streamIndex: Int, channels: Int, seconds: Double
  ) -> Bool {
    let stream = input.view(streamIndex)
    guard let decoder = try? stream.openDecoder(threads: 1) else { return false }
    let demuxer = Demuxer(input)
    let frame = Frame()
    let limit = Int64(seconds * Double(stream.sampleRate))
    var reached = false
    let start = input.stream(streamIndex).pointee.start_time
    while !reached, case .packet? = try? demuxer.next() {
      guard demuxer.packet.streamIndex == streamIndex else { continue }
      if let pts = demuxer.packet.pts, pts - start >= limit { reached = true }
      decoder.decode(demuxer.packet, into: frame, failure: { _ in }, body: { _ in true })
    }
    return noiseGeneratorUnused(decoder, stream: stream, channels: channels)
  }

  /// Whether decoding the whole of `source`'s audio stream (the ffmpeg CLI's choice) draws from
  /// the AAC decoder's noise generator, that is codes a band as noise (PNS) anywhere: the check
  /// the chunks make (`noiseGeneratorUnused`) after one decode of every packet. Nil when it
  /// cannot be told: not AAC LC, more than two channels (the probe frames are a single channel
  /// element or a channel pair), or the probe frames did not decode.
  package static func drawsNoise(_ source: InputSource, options: OpenOptions) -> Bool? {
    guard let input = try? InputOpener.open(source, options: options),
      let index = try? StreamChoice.automatic.select(in: input)
    else { return nil }
    let parameters = input.stream(index).pointee.codecpar.pointee
    let channels = Int(parameters.ch_layout.nb_channels)
    guard parameters.codec_id == AV_CODEC_ID_AAC, parameters.profile == FF_PROFILE_AAC_LOW,
      (1...2).contains(channels)
    else { return nil }
    input.discardAll(except: index)
    let stream = input.view(index)
    guard let decoder = try? stream.openDecoder(threads: 1),
      let fresh = try? stream.openDecoder(threads: 1)
    else { return nil }
    let demuxer = Demuxer(input)
    let frame = Frame()
    while case .packet? = try? demuxer.next() {
      guard demuxer.packet.streamIndex == index else { continue }
      decoder.decode(demuxer.packet, into: frame, failure: { _ in }, body: { _ in true })
    }
    decoder.decode(nil, into: frame, failure: { _ in }, body: { _ in true })
    avcodec_flush_buffers(decoder.pointer)
    guard let used = noiseFrame(decoder, channels: channels),
      let reference = noiseFrame(fresh, channels: channels), !used.isEmpty
    else { return nil }
    return used != reference
  }

  /// True when `decoder` draws the same noise as a fresh decoder of `stream`: after a frame
  /// of silence (no spectral bands: nothing left to overlap) both decode a frame whose upper
  /// bands are noise (PNS); their float output depends only on the generator's state (the
  /// window shape is the silent frame's in both). False when they differ or anything fails.
  static func noiseGeneratorUnused(_ decoder: CodecDecoder, stream: StreamView, channels: Int)
    -> Bool
  {
    guard let fresh = try? stream.openDecoder(threads: 1),
      let used = noiseFrame(decoder, channels: channels),
      let reference = noiseFrame(fresh, channels: channels)
    else { return false }
    return !used.isEmpty && used == reference
  }

  /// The float samples `decoder` gives for the noise frame after the silent frame.
  static func noiseFrame(_ decoder: CodecDecoder, channels: Int) -> [UInt8]? {
    let frame = Frame()
    while (try? decoder.receive(into: frame)) == true { frame.unref() }
    var output: [UInt8]?
    for (n, payload) in [silentFrame(channels: channels), noiseFrame(channels: channels)]
      .enumerated()
    {
      let packet = Packet()
      guard av_new_packet(packet.pointer, Int32(payload.count)) >= 0 else { return nil }
      payload.withUnsafeBytes {
        packet.pointer.pointee.data.update(
          from: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: payload.count)
      }
      guard (try? decoder.send(packet)) != nil, (try? decoder.receive(into: frame)) == true
      else { return nil }
      defer { frame.unref() }
      let f = frame.pointer.pointee
      guard f.format == AV_SAMPLE_FMT_FLTP.rawValue, Int(f.ch_layout.nb_channels) == channels
      else { return nil }
      if n == 1 {
        var bytes: [UInt8] = []
        let size = Int(f.nb_samples) * 4
        for plane in 0..<channels {
          bytes += UnsafeBufferPointer(start: f.extended_data[plane]!, count: size)
        }
        output = bytes
      }
    }
    return output
  }

  /// An AAC raw data block of silence: a single channel element (mono) or a channel pair
  /// (stereo, separate windows), each long window with no scale factor bands.
  static func silentFrame(channels: Int) -> [UInt8] {
    block(channels: channels) { bits in
      bits.put(100, 8)  // global_gain
      icsInfo(&bits, maxSFB: 0)
      bits.put(0, 3)  // no pulse, TNS or gain control data
    }
  }

  /// An AAC raw data block whose bands 12 to 23 are noise (codebook 13, NOISE_HCB) and the
  /// ones below zero.
  static func noiseFrame(channels: Int) -> [UInt8] {
    block(channels: channels) { bits in
      bits.put(100, 8)  // global_gain
      icsInfo(&bits, maxSFB: 24)
      bits.put(0, 4)  // section: ZERO_HCB
      bits.put(12, 5)  // 12 bands
      bits.put(13, 4)  // section: NOISE_HCB
      bits.put(12, 5)  // 12 bands
      bits.put(256, 9)  // the first noise energy: + 0 (NOISE_PRE = 256)
      for _ in 1..<12 { bits.put(0, 1) }  // the others: a difference of 0 (code "0")
      bits.put(0, 3)  // no pulse, TNS or gain control data
    }
  }

  static func icsInfo(_ bits: inout BitWriter, maxSFB: UInt32) {
    bits.put(0, 1)  // ics_reserved_bit
    bits.put(0, 2)  // ONLY_LONG_SEQUENCE
    bits.put(0, 1)  // sine window
    bits.put(maxSFB, 6)
    bits.put(0, 1)  // no prediction
  }

  static func block(channels: Int, _ ics: (inout BitWriter) -> Void) -> [UInt8] {
    var bits = BitWriter()
    if channels == 1 {
      bits.put(0, 3)  // ID_SCE
      bits.put(0, 4)  // element_instance_tag
      ics(&bits)
    } else {
      bits.put(1, 3)  // ID_CPE
      bits.put(0, 4)
      bits.put(0, 1)  // common_window = 0
      ics(&bits)
      ics(&bits)
    }
    bits.put(7, 3)  // ID_END
    return bits.bytes()
  }

  /// Bits, most significant first.
  struct BitWriter {
    var data: [UInt8] = []
    var used = 0

    mutating func put(_ value: UInt32, _ count: Int) {
      for i in stride(from: count - 1, through: 0, by: -1) {
        if used % 8 == 0 { data.append(0) }
        if (value >> UInt32(i)) & 1 == 1 { data[data.count - 1] |= UInt8(0x80 >> (used % 8)) }
        used += 1
      }
    }

    func bytes() -> [UInt8] { data }
  }
}
