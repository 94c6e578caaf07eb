import AV
import MediaCore

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
  /// MPEG-TS: the program map tables, read only when some stream has no FFmpeg decoder.
  let transportMap: TransportStreamMap?

  init(input: InputFile, layout: BoxLayout?, mp3: MP3Info?) {
    self.input = input
    self.layout = layout
    self.mp3 = mp3
    transportMap =
      input.formatName == "mpegts" && input.streams.contains { !$0.hasDecoder }
      ? TransportStreamMap.read(input.source) : nil
  }

  /// The stream at `index`.
  mutating func stream(at index: Int) -> MediaStream {
    let view = input.view(index)
    let timeBase = view.rationalTimeBase
    let disposition = view.disposition
    var result = MediaStream(
      index: index, type: view.streamType, codec: view.codec, bitRate: view.bitRate,
      duration: duration(view, timeBase: timeBase), frameCount: nil, frameCountSource: nil,
      timeBase: timeBase, language: view.tag("language").flatMap { $0 == "und" ? nil : $0 },
      title: view.tag("title"), disposition: disposition)

    if let (count, source) = frameCount(view) {
      result.frameCount = count
      result.frameCountSource = source
    }
    applyCodecSupport(view, to: &result)
    switch result.type {
    case .video:
      result.video = view.videoInfo(isCoverArt: disposition["attached_pic"] == true)
      if result.frameCount == 0 {
        // No frames, no rate (libavformat guesses r_frame_rate from the time base: 90000/1).
        result.video?.frameRate = FrameRate(nominal: nil, average: nil)
      }
      if disposition["attached_pic"] == true {
        result.duration = nil
        result.frameCount = nil
        result.frameCountSource = nil
      }
    case .audio:
      result.audio = view.audioInfo
      if result.audio?.channels == nil, let channels = unsupported?.channels {
        result.audio?.channels = channels
      }
    default: break
    }
    unsupported = nil
    return result
  }

  /// The codec named by the container for the stream being read, when FFmpeg cannot decode it.
  private var unsupported: UnsupportedCodec?

  /// Sets `codec_supported` (audio and video: FFmpeg has a decoder) and, for a codec FFmpeg
  /// cannot decode or parse, the codec and stream type the container states (issue 26, class 7).
  private mutating func applyCodecSupport(_ view: StreamView, to result: inout MediaStream) {
    unsupported = UnsupportedCodec.identify(view, map: transportMap)
    if let unsupported {
      result.type = unsupported.type
      result.codec = Codec(
        name: unsupported.name, longName: unsupported.longName, tag: result.codec.tag,
        profile: nil, level: nil)
    }
    guard result.type == .audio || result.type == .video else { return }
    result.codecSupported = view.hasDecoder
    if !view.hasDecoder { warnings.insert(.codecUnsupported) }
  }

  /// The MP4 track behind a stream (libavformat's `AVStream.id` is the track ID).
  private func track(_ view: StreamView) -> BoxLayout.Track? {
    layout?.tracks[Int64(view.containerID)]
  }

  private mutating func duration(_ view: StreamView, timeBase: Rational) -> MediaDuration? {
    let raw = view.rawDuration
    let estimatedFromBitrate = input.durationFromBitrate
    if let layout, let track = track(view) {
      // A fragmented MP4's own header durations are zero or the "unknown" sentinel: the movie
      // samples plus the fragments' sample durations are the truth.
      if layout.isFragmented || layout.unknownDurationSentinel {
        if layout.unknownDurationSentinel || raw == Int64(UInt32.max) {
          warnings.insert(.durationSentinel)
        }
        let ticks = (track.mediaDuration ?? 0) + track.fragmentTicks
        guard ticks > 0, track.timescale > 0 else { return nil }
        return MediaDuration(value: ticks, timescale: track.timescale, source: .fragments)
      }
      if raw == Int64(UInt32.max) && track.mediaDuration == nil {
        warnings.insert(.durationSentinel)
        return nil
      }
      // An edit list presents the part of its media range the samples cover: not the priming
      // before `media_time`, nor the padding after the edit, nor an edit's length past the last
      // sample (libavformat reports the edit's length there).
      if let presented = track.presentation(movieTimescale: layout.movieTimescale),
        presented.ticks > 0,
        raw.map({ Rational.rescale($0, from: timeBase, to: Rational(1, track.timescale)!) })
          != presented.ticks
      {
        return MediaDuration(value: presented.ticks, timescale: track.timescale, source: .index)
      }
    }
    // The gapless length, unless the LAME tag leaves nothing (its delay and padding exceed the
    // frames' samples): then the header's is no better than the stream's.
    if let mp3, mp3.delay != nil, mp3.presentedSamples > 0, view.isMP3 {
      return MediaDuration(
        value: mp3.presentedSamples, timescale: mp3.sampleRate, source: .header)
    }
    // AVI: a header (`dwLength`) claiming frames its index does not hold (a recording cut
    // short whose header was written first, a patched header) describes no stored frame: a
    // video stream lasts to its last indexed frame (one tick per frame in AVI's time base).
    if input.formatName == "avi", view.streamType == .video, let raw, raw > 0,
      let last = view.indexLastTimestamp(), case let (entries, _) = view.indexCounts(),
      entries > 0, raw > entries + 1, last + 1 < raw
    {
      warnings.insert(.containerDurationDiffers)
      return MediaDuration(ticks: last + 1, timeBase: timeBase, source: .index)
    }
    // Ogg Opus: libavformat's length runs to the last granule position, which counts the
    // encoder's pre-skip; the decoder drops those samples (RFC 7845 §4: the PCM sample position
    // is the granule position minus pre-skip), so the stream presents that much less.
    if input.formatName == "ogg", view.codecName == "opus", view.initialPadding > 0, let raw,
      raw > 0, let rate = Rational(1, 48_000)
    {
      let skipped = Rational.rescale(Int64(view.initialPadding), from: rate, to: timeBase)
      return MediaDuration(ticks: max(0, raw - skipped), timeBase: timeBase, source: .stream)
    }
    if let raw, raw > 0 {
      return MediaDuration(
        ticks: raw, timeBase: timeBase, estimated: estimatedFromBitrate,
        source: estimatedFromBitrate ? .bitrate : .stream)
    }
    // Matroska: muxers write a DURATION tag per track.
    return view.tag("DURATION").flatMap(MediaDuration.fromTag)
  }

  /// The presented frame count and where it came from, when it can be trusted: the MP4 sample
  /// index as the demuxer applies the edit list (or the sample table plus the fragments), the
  /// AVI index, the MP3 Xing count, Matroska's `NUMBER_OF_FRAMES` tag. Otherwise nil: a header
  /// count that disagrees with what is stored (AVI's `dwLength`, an AVI audio stream's sample
  /// count) is worse than none.
  private mutating func frameCount(_ view: StreamView) -> (Int64, FrameCountSource)? {
    let demuxer = input.formatName
    if demuxer.hasPrefix("mov,") {
      if let layout, let track = track(view), layout.isFragmented {
        let total = track.tableSamples + track.fragmentSamples
        return total > 0 ? (total, .fragments) : nil
      }
      let (entries, presented) = view.indexCounts()
      // An edit list presents the samples whose display interval overlaps its range of the
      // sample table (the demuxer drops a frame the edit starts inside).
      if let layout, !layout.isFragmented, let track = track(view),
        let shown = track.presentedSamples,
        track.presentation(movieTimescale: layout.movieTimescale)?.ticks ?? 0 > 0, presented > 0
      {
        return (presented + Prober.shownBeyondTheDemuxer(view, presented: shown), .index)
      }
      if entries == 0, let track = track(view), track.tableSamples == 0 {
        return (0, .index)  // a track whose sample table holds no sample
      }
      return presented > 0 ? (presented, .index) : nil
    }
    if demuxer == "avi" {
      let (entries, _) = view.indexCounts()
      return entries > 0 ? (entries, .index) : nil
    }
    if demuxer == "mp3", let mp3, view.isMP3 {
      return (mp3.frames, .header)
    }
    if let tag = view.tag("NUMBER_OF_FRAMES").flatMap({ Int64($0) }), tag > 0 {
      return (tag, .tag)
    }
    // AIFF's COMM chunk counts PCM sample frames, not packets: a count in another unit, not an
    // untrusted one (libavformat's duration is made of it).
    let pcmSampleFrames = demuxer == "aiff" && view.codecName.hasPrefix("pcm_")
    if view.headerFrameCount > 0, !pcmSampleFrames { warnings.insert(.indexCountUntrusted) }
    return nil
  }
}
