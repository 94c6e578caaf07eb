import CFFmpeg
import MediaCore

/// The probe's model values of one stream's headers: what libavformat and libavcodec say about
/// its codec, picture and sound, read here so that no other module reads an `AVStream`.
extension StreamView {
  /// The codec: name, long name, FourCC tag, profile and level in human form.
  package var codec: Codec {
    let name = codecName
    return Codec(
      name: name,
      longName: avcodec_descriptor_get(parameters.codec_id)?.pointee.long_name.map {
        String(cString: $0)
      },
      tag: fourCC(parameters.codec_tag),
      profile: Self.profileName(parameters.codec_id, parameters.profile),
      level: CodecLevel.name(codec: name, level: Int(parameters.level)))
  }

  /// The stream's bit rate, when the headers give one.
  package var bitRate: Int64? { parameters.bit_rate > 0 ? parameters.bit_rate : nil }

  /// The time base as an exact rational.
  package var rationalTimeBase: Rational {
    Rational(Int64(timeBase.num), Int64(timeBase.den)) ?? Rational(1, 1)!
  }

  /// Every disposition flag, by name.
  package var disposition: [String: Bool] { Self.disposition(stream.disposition) }

  /// The stream's raw duration field, in its time base, whatever it holds (the 32-bit "unknown"
  /// sentinel included); nil when libavformat has none.
  package var rawDuration: Int64? { stream.duration == mt_nopts_value ? nil : stream.duration }

  /// The frame count the container's header states (`nb_frames`), 0 when none.
  package var headerFrameCount: Int64 { stream.nb_frames }

  /// The codec is MP3 (MPEG-1/2 Layer III).
  package var isMP3: Bool { parameters.codec_id == AV_CODEC_ID_MP3 }

  /// The demuxer's index entries: all of them, and those not marked to discard (outside an MP4
  /// edit list).
  /// The latest timestamp in the demuxer's index (AVI's `idx1`, an MP4 sample table), in the
  /// stream's time base; nil when the index is empty.
  package func indexLastTimestamp() -> Int64? {
    let pointer = input.stream(index)
    let count = avformat_index_get_entries_count(pointer)
    var last: Int64?
    for entry in 0..<count {
      guard let item = avformat_index_get_entry(pointer, entry) else { continue }
      last = max(last ?? item.pointee.timestamp, item.pointee.timestamp)
    }
    return last
  }

  package func indexCounts() -> (entries: Int64, presented: Int64) {
    let pointer = input.stream(index)
    let count = avformat_index_get_entries_count(pointer)
    var presented: Int64 = 0
    for entry in 0..<count {
      guard let item = avformat_index_get_entry(pointer, entry) else { continue }
      if item.pointee.flags & AVINDEX_DISCARD_FRAME == 0 { presented += 1 }
    }
    return (Int64(count), presented)
  }

  /// The video facts of the stream's headers (no decoding), as the probe reports them; for
  /// cover art, no frame rate.
  package func videoInfo(isCoverArt: Bool) -> VideoInfo {
    let stream = input.stream(index)
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

  /// The audio facts of the stream's headers.
  package var audioInfo: AudioInfo {
    let p = parameters
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

  /// The kind of stream, as the probe reports it.
  package var streamType: StreamType { StreamType(mediaType) }

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
