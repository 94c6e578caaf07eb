import AV
import MediaCore
import CFFmpeg

/// Turns libavformat's `AVStream`s of one open input into `MediaStream` values (header facts
/// only; packet reading happens in `Prober`). Counts and durations that headers get wrong are
/// taken from what the file really stores (the MP4 boxes, the demuxer's index, the MP3 Xing
/// frame) or left null.
struct StreamReader {
  let input: InputFile
  /// The MP4 box layout, for MP4-family files.
  let layout: BoxLayout?
  /// The Xing/LAME header, for MP3 files.
  let mp3: MP3Info?
  /// What reading the headers noticed.
  private(set) var warnings: Set<ProbeWarning> = []

  init(input: InputFile, layout: BoxLayout?, mp3: MP3Info?) {
    self.input = input
    self.layout = layout
    self.mp3 = mp3
  }

  /// The stream at `index`.
  mutating func stream(at index: Int) -> MediaStream {
    let stream = input.stream(index)
    let st = stream.pointee
    let parameters = st.codecpar.pointee
    let timeBase = Rational(Int64(st.time_base.num), Int64(st.time_base.den)) ?? Rational(1, 1)!
    let codecName = String(cString: avcodec_get_name(parameters.codec_id))
    let disposition = Self.disposition(st.disposition)

    var result = MediaStream(
      index: index, type: Self.type(parameters.codec_type),
      codec: Codec(
        name: codecName,
        longName: avcodec_descriptor_get(parameters.codec_id)?.pointee.long_name.map {
          String(cString: $0)
        },
        tag: fourCC(parameters.codec_tag),
        profile: Self.profileName(parameters.codec_id, parameters.profile),
        level: CodecLevel.name(codec: codecName, level: Int(parameters.level))),
      bitRate: parameters.bit_rate > 0 ? parameters.bit_rate : nil,
      duration: duration(stream, timeBase: timeBase),
      frameCount: nil, frameCountSource: nil,
      timeBase: timeBase,
      language: metadataValue(st.metadata, "language").flatMap { $0 == "und" ? nil : $0 },
      title: metadataValue(st.metadata, "title"),
      disposition: disposition)

    if let (count, source) = frameCount(stream) {
      result.frameCount = count
      result.frameCountSource = source
    }
    switch parameters.codec_type {
    case AVMEDIA_TYPE_VIDEO:
      result.video = video(stream, isCoverArt: disposition["attached_pic"] == true)
      if result.frameCount == 0 {
        // No frames, no rate (libavformat guesses r_frame_rate from the time base: 90000/1).
        result.video?.frameRate = FrameRate(nominal: nil, average: nil)
      }
      if disposition["attached_pic"] == true {
        result.duration = nil
        result.frameCount = nil
        result.frameCountSource = nil
      }
    case AVMEDIA_TYPE_AUDIO:
      result.audio = audio(parameters)
    default: break
    }
    return result
  }

  /// The MP4 track behind a stream (libavformat's `AVStream.id` is the track ID).
  private func track(_ stream: UnsafeMutablePointer<AVStream>) -> BoxLayout.Track? {
    layout?.tracks[Int64(stream.pointee.id)]
  }

  private mutating func duration(_ stream: UnsafeMutablePointer<AVStream>, timeBase: Rational)
    -> MediaDuration?
  {
    let st = stream.pointee
    let estimatedFromBitrate =
      input.pointer.pointee.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE
    if let layout, let track = track(stream) {
      // A fragmented MP4's own header durations are zero or the "unknown" sentinel: the movie
      // samples plus the fragments' sample durations are the truth.
      if layout.isFragmented || layout.unknownDurationSentinel {
        if layout.unknownDurationSentinel || st.duration == Int64(UInt32.max) {
          warnings.insert(.durationSentinel)
        }
        let ticks = (track.mediaDuration ?? 0) + track.fragmentTicks
        guard ticks > 0, track.timescale > 0 else { return nil }
        return MediaDuration(value: ticks, timescale: track.timescale, source: .fragments)
      }
      if st.duration == Int64(UInt32.max) && track.mediaDuration == nil {
        warnings.insert(.durationSentinel)
        return nil
      }
    }
    // The gapless length, unless the LAME tag leaves nothing (its delay and padding exceed the
    // frames' samples): then the header's is no better than the stream's.
    if let mp3, mp3.delay != nil, mp3.presentedSamples > 0,
      st.codecpar.pointee.codec_id == AV_CODEC_ID_MP3
    {
      return MediaDuration(
        value: mp3.presentedSamples, timescale: mp3.sampleRate, source: .header)
    }
    if st.duration != mt_nopts_value, st.duration > 0 {
      return MediaDuration(
        ticks: st.duration, timeBase: timeBase, estimated: estimatedFromBitrate,
        source: estimatedFromBitrate ? .bitrate : .stream)
    }
    // Matroska: muxers write a DURATION tag per track.
    return metadataValue(st.metadata, "DURATION").flatMap(MediaDuration.fromTag)
  }

  /// The presented frame count and where it came from, when it can be trusted: the MP4 sample
  /// index as the demuxer applies the edit list (or the sample table plus the fragments), the
  /// AVI index, the MP3 Xing count, Matroska's `NUMBER_OF_FRAMES` tag. Otherwise nil: a header
  /// count that disagrees with what is stored (AVI's `dwLength`, an AVI audio stream's sample
  /// count) is worse than none.
  private mutating func frameCount(_ stream: UnsafeMutablePointer<AVStream>)
    -> (Int64, FrameCountSource)?
  {
    let st = stream.pointee
    let demuxer = input.formatName
    if demuxer.hasPrefix("mov,") {
      if let layout, let track = track(stream), layout.isFragmented {
        let total = track.tableSamples + track.fragmentSamples
        return total > 0 ? (total, .fragments) : nil
      }
      let (entries, presented) = indexCounts(stream)
      if entries == 0, let track = track(stream), track.tableSamples == 0 {
        return (0, .index)  // a track whose sample table holds no sample
      }
      return presented > 0 ? (presented, .index) : nil
    }
    if demuxer == "avi" {
      let (entries, _) = indexCounts(stream)
      return entries > 0 ? (entries, .index) : nil
    }
    if demuxer == "mp3", let mp3, st.codecpar.pointee.codec_id == AV_CODEC_ID_MP3 {
      return (mp3.frames, .header)
    }
    if let tag = metadataValue(st.metadata, "NUMBER_OF_FRAMES").flatMap({ Int64($0) }), tag > 0 {
      return (tag, .tag)
    }
    if st.nb_frames > 0 { warnings.insert(.indexCountUntrusted) }
    return nil
  }

  /// The demuxer's index entries for a stream: all of them, and those not marked to discard
  /// (outside an MP4 edit list).
  private func indexCounts(_ stream: UnsafeMutablePointer<AVStream>) -> (Int64, Int64) {
    let count = avformat_index_get_entries_count(stream)
    var presented: Int64 = 0
    for index in 0..<count {
      guard let entry = avformat_index_get_entry(stream, index) else { continue }
      if entry.pointee.flags & AVINDEX_DISCARD_FRAME == 0 { presented += 1 }
    }
    return (Int64(count), presented)
  }

  private func video(_ stream: UnsafeMutablePointer<AVStream>, isCoverArt: Bool) -> VideoInfo {
    let st = stream.pointee
    let p = st.codecpar.pointee
    let width = Int(p.width)
    let height = Int(p.height)
    let pixelFormat = AVPixelFormat(rawValue: p.format)
    let descriptor = av_pix_fmt_desc_get(pixelFormat)?.pointee

    let guessed = av_guess_sample_aspect_ratio(input.pointer, stream, nil)
    let sar = Rational.nonZero(Int64(guessed.num), Int64(guessed.den))
    let dar =
      width > 0 && height > 0
      ? Rational(Int64(width) * (sar?.num ?? 1), Int64(height) * (sar?.den ?? 1)) : nil

    let fieldOrder: String? =
      switch p.field_order {
      case AV_FIELD_PROGRESSIVE: "progressive"
      case AV_FIELD_TT: "tt"
      case AV_FIELD_BB: "bb"
      case AV_FIELD_TB: "tb"
      case AV_FIELD_BT: "bt"
      default: nil
      }

    var transform = AffineTransform.identity
    var size = 0
    if let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 {
      let matrix = UnsafeRawPointer(data).withMemoryRebound(to: Int32.self, capacity: 9) {
        Array(UnsafeBufferPointer(start: $0, count: 9))
      }
      transform = AffineTransform(displayMatrix: matrix)
    }

    var hdr: String?
    var dolbyVision: DolbyVision?
    if let data = av_stream_get_side_data(stream, AV_PKT_DATA_DOVI_CONF, &size) {
      hdr = "dolby_vision"
      if size >= MemoryLayout<AVDOVIDecoderConfigurationRecord>.size {
        let record = UnsafeRawPointer(data).loadUnaligned(
          as: AVDOVIDecoderConfigurationRecord.self)
        dolbyVision = DolbyVision(
          version: "\(record.dv_version_major).\(record.dv_version_minor)",
          profile: Int(record.dv_profile), level: Int(record.dv_level),
          rpuPresent: record.rpu_present_flag != 0, elPresent: record.el_present_flag != 0,
          blPresent: record.bl_present_flag != 0,
          blCompatibilityId: Int(record.dv_bl_signal_compatibility_id))
      }
    } else if p.color_trc == AVCOL_TRC_SMPTE2084 {
      hdr = "hdr10"
    } else if p.color_trc == AVCOL_TRC_ARIB_STD_B67 {
      hdr = "hlg"
    }

    let isRGB = descriptor.map { $0.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 } ?? true
    let chroma: String? =
      descriptor.flatMap { d in
        guard !isRGB, d.nb_components >= 3 else { return nil }
        return [
          "0,0": "4:4:4", "1,0": "4:2:2", "1,1": "4:2:0", "2,0": "4:1:1", "2,2": "4:1:0",
        ]["\(d.log2_chroma_w),\(d.log2_chroma_h)"]
      }

    return VideoInfo(
      width: width, height: height, codedWidth: nil, codedHeight: nil,
      pixelFormat: av_get_pix_fmt_name(pixelFormat).map { String(cString: $0) },
      bitDepth: descriptor.map { Int($0.comp.0.depth) }
        ?? (p.bits_per_raw_sample > 0 ? Int(p.bits_per_raw_sample) : nil),
      chromaSubsampling: chroma,
      sampleAspectRatio: sar, displayAspectRatio: dar,
      anamorphic: sar.map { $0.num != $0.den } ?? false,
      fieldOrder: fieldOrder,
      interlaced: fieldOrder.map { $0 != "progressive" },
      color: ColorInfo(
        range: p.color_range == AVCOL_RANGE_UNSPECIFIED
          ? nil : av_color_range_name(p.color_range).map { String(cString: $0) },
        primaries: p.color_primaries == AVCOL_PRI_UNSPECIFIED
          ? nil : av_color_primaries_name(p.color_primaries).map { String(cString: $0) },
        transfer: p.color_trc == AVCOL_TRC_UNSPECIFIED
          ? nil : av_color_transfer_name(p.color_trc).map { String(cString: $0) },
        matrix: p.color_space == AVCOL_SPC_UNSPECIFIED
          ? nil : av_color_space_name(p.color_space).map { String(cString: $0) }),
      hdr: hdr, dolbyVision: dolbyVision,
      frameRate: isCoverArt
        ? FrameRate(nominal: nil, average: nil)
        : FrameRate(
          nominal: Rational.nonZero(Int64(st.r_frame_rate.num), Int64(st.r_frame_rate.den)),
          average: Rational.nonZero(Int64(st.avg_frame_rate.num), Int64(st.avg_frame_rate.den))),
      orientation: Orientation(
        transform: transform, width: width, height: height, sampleAspectRatio: sar))
  }

  private func audio(_ p: AVCodecParameters) -> AudioInfo {
    var layout = p.ch_layout
    var name: String?
    if layout.order != AV_CHANNEL_ORDER_UNSPEC {
      var buffer = [CChar](repeating: 0, count: 128)
      if av_channel_layout_describe(&layout, &buffer, buffer.count) > 0 {
        name = String(cBuffer: buffer)
      }
    }
    let bits =
      p.bits_per_raw_sample > 0
      ? Int(p.bits_per_raw_sample) : Int(av_get_bits_per_sample(p.codec_id))
    return AudioInfo(
      sampleRate: p.sample_rate > 0 ? Int(p.sample_rate) : nil,
      channels: layout.nb_channels > 0 ? Int(layout.nb_channels) : nil, channelLayout: name,
      sampleFormat: av_get_sample_fmt_name(AVSampleFormat(rawValue: p.format)).map {
        String(cString: $0)
      },
      bitsPerSample: bits > 0 ? bits : nil)
  }

  private static func type(_ type: AVMediaType) -> StreamType {
    switch type {
    case AVMEDIA_TYPE_VIDEO: .video
    case AVMEDIA_TYPE_AUDIO: .audio
    case AVMEDIA_TYPE_SUBTITLE: .subtitle
    case AVMEDIA_TYPE_DATA: .data
    case AVMEDIA_TYPE_ATTACHMENT: .attachment
    default: .unknown
    }
  }

  /// FFmpeg's profile name, or the profile number when FFmpeg has no name for it (VP8's "0").
  static func profileName(_ codec: AVCodecID, _ profile: Int32) -> String? {
    if let name = avcodec_profile_name(codec, profile) { return String(cString: name) }
    return profile >= 0 ? String(profile) : nil  // FF_PROFILE_UNKNOWN is -99
  }

  /// Every disposition flag FFmpeg knows, by its `av_disposition_to_string` name.
  static func disposition(_ flags: Int32) -> [String: Bool] {
    var result: [String: Bool] = [:]
    for bit in 0..<32 {
      let flag = Int32(bitPattern: UInt32(1) << UInt32(bit))
      if let name = av_disposition_to_string(flag) {
        result[String(cString: name)] = flags & flag != 0
      }
    }
    return result
  }
}
