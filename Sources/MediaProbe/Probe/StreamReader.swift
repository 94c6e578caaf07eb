import CFFmpeg

/// Turns libavformat's `AVStream`s of one open input into `MediaStream` values (header facts
/// only; packet reading happens in `Prober`).
struct StreamReader {
  let input: InputFile

  /// The stream at `index`. `sentinel` is the MP4 box layout, when there is one.
  func stream(at index: Int, sentinel layout: BoxLayout?) -> MediaStream {
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
        tag: Self.fourCC(parameters.codec_tag),
        profile: Self.profileName(parameters.codec_id, parameters.profile),
        level: CodecLevel.name(codec: codecName, level: Int(parameters.level))),
      bitRate: parameters.bit_rate > 0 ? parameters.bit_rate : nil,
      duration: duration(st, timeBase: timeBase, layout: layout),
      frameCount: st.nb_frames > 0
        ? st.nb_frames : metadataValue(st.metadata, "NUMBER_OF_FRAMES").flatMap { Int64($0) },
      timeBase: timeBase,
      language: metadataValue(st.metadata, "language").flatMap { $0 == "und" ? nil : $0 },
      title: metadataValue(st.metadata, "title"),
      disposition: disposition)

    switch parameters.codec_type {
    case AVMEDIA_TYPE_VIDEO:
      result.video = video(stream, isCoverArt: disposition["attached_pic"] == true)
      if disposition["attached_pic"] == true { result.duration = nil }
    case AVMEDIA_TYPE_AUDIO:
      result.audio = audio(parameters)
    default: break
    }
    return result
  }

  private func duration(_ st: AVStream, timeBase: Rational, layout: BoxLayout?) -> MediaDuration? {
    let estimatedFromBitrate =
      input.pointer.pointee.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE
    if st.duration != mt_nopts_value, st.duration > 0 {
      // MP4's "unknown" sentinel: mdhd duration all ones (0xFFFFFFFF), as some fMP4 writers do.
      let sentinel =
        layout != nil
        && (st.duration == Int64(UInt32.max) || layout?.unknownDurationSentinel == true)
      return MediaDuration(
        ticks: st.duration, timeBase: timeBase, estimated: estimatedFromBitrate || sentinel,
        source: estimatedFromBitrate ? .bitrate : .stream)
    }
    // Matroska: muxers write a DURATION tag per track.
    return metadataValue(st.metadata, "DURATION").flatMap(MediaDuration.fromTag)
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
    if av_stream_get_side_data(stream, AV_PKT_DATA_DOVI_CONF, &size) != nil {
      hdr = "dolby_vision"
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
      hdr: hdr,
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

  /// The codec tag as four printable characters (`avc1`), or nil when there is none.
  static func fourCC(_ tag: UInt32) -> String? {
    guard tag != 0 else { return nil }
    let bytes = (0..<4).map { UInt8(truncatingIfNeeded: tag >> ($0 * 8)) }
    guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
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
