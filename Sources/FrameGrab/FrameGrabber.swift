import AV
import MediaCore
import OutputKit

/// A size a picture must fit inside (`--max-size WxH`): it is only ever made smaller, keeping
/// its shape, as `AVAssetImageGenerator.maximumSize`.
public struct FitSize: Sendable, Equatable {
  /// The widest the picture may be.
  public var width: Int
  /// The tallest the picture may be.
  public var height: Int

  /// A bounding box of `width`×`height` pixels.
  public init(width: Int, height: Int) {
    self.width = width
    self.height = height
  }

  /// The size a `width`×`height` picture takes when fitted inside (never enlarged; at least
  /// 1×1).
  public func fit(width w: Int, height h: Int) -> (width: Int, height: Int) {
    let scale = min(1, Double(width) / Double(w), Double(height) / Double(h))
    guard scale < 1 else { return (w, h) }
    return (max(1, Int((Double(w) * scale).rounded())), max(1, Int((Double(h) * scale).rounded())))
  }
}

/// One picture taken from an input.
public struct Grab: Sendable {
  /// The picture, upright, square pixels, fitted.
  public var picture: Picture
  /// The time asked for, in seconds from the input's start (nil for cover art and stills).
  public var requestedTime: Double?
  /// The presentation time of the frame returned, in seconds from the input's start (what
  /// `AVAssetImageGenerator` calls `actualTime`); 0 for a still, nil for cover art.
  public var actualTime: Double?
}

/// Takes pictures out of one input: opens it the one way every tool does (`InputOpener`), picks
/// the video stream (or the cover art), seeks to the keyframe before the time asked for and
/// decodes up to the frame presented then, and turns it into an upright `Picture` with square
/// pixels. One grabber reads one input; times asked for in increasing order reuse the decode
/// when no seek is needed.
public final class FrameGrabber {
  private(set) var input: InputFile
  private(set) var demuxer: Demuxer
  private(set) var decoder: CodecDecoder
  /// What `reopen()` opens again.
  private let source: InputSource
  private let openOptions: OpenOptions
  /// The decoder's thread count as opened (0: FFmpeg's choice).
  package let threads: Int
  /// One frame's duration in the stream's time base, for frames without timestamps (raw
  /// elementary streams): their times are counted from the start.
  private let frameTicks: Int64
  /// The time stamped on the last frame decoded, in the stream's time base.
  private var lastStamp: Int64?
  let timeBase: Rational
  let timeout: Double?
  /// The input's start (`start_time`): times are counted from it, as the ffmpeg CLI's `-ss`.
  let start: Double
  /// Frames decoded and not handed out yet (the one after the time last asked for).
  private var pending: Frame?
  /// The input ended: the decoder is drained, and no frame comes after its last before the
  /// next seek.
  private var ended = false
  /// The packet read last (or the end, when `ended`) is still to be sent to the decoder.
  private var unsent = false
  /// The packet to send (nil: the end, to drain the decoder).
  private var outgoing: Packet?
  /// The stream's packets read ahead of the decoder, in decoding order.
  private var queue: [Packet] = []
  /// The demuxer reached the end (packets may still wait in `queue`).
  private var demuxed = false
  /// While decoding toward a time: the last stamp (stream ticks) presented at it. A packet
  /// whose frame comes before a later packet's frame that is still at or before it is sent
  /// with `skipsNonReferenceFrames`: a frame no other frame needs that cannot be the answer is
  /// not decoded.
  private var skipLimit: Int64?
  /// Packets sent so far with `skipsNonReferenceFrames` (their frame not decoded when no
  /// other frame refers to it).
  package private(set) var packetsSentSkippable = 0
  /// Packets sent to the decoder so far (the end not counted).
  package private(set) var packetsSent = 0
  /// The next time asked for is the last (`stopsAtTarget`): while decoding toward it, the
  /// packet of the frame presented then was sent, and the decoder is drained instead of being
  /// sent the packets after it. Holds that frame's presentation stamp.
  private var stopTarget: Int64?
  /// The decoder was drained after the target's packet: packets after it in decoding order
  /// were never sent, so the next time asked for seeks.
  private var drainedEarly = false
  /// The next time asked for is the last one (a poster, `--at`): decoding toward it stops at
  /// the packet of the frame presented then — the packets after it in decoding order (frames
  /// shown before it, which it cannot refer to) are not sent, and the decoder is drained. When
  /// the frame that comes out is not that packet's (it failed to decode), the time is decoded
  /// again without stopping. A later time asked for seeks. Off by default.
  public var stopsAtTarget = false
  /// Nothing was read yet: the first frame can be decoded without seeking.
  private var fresh = true
  /// The frame last returned (presented at the time last asked for), with its time.
  private var current: (Frame, time: Double)?
  /// The longest distance seen between two keyframes (2 s until two were seen): decoding
  /// forward less than this is cheaper than a seek.
  private var keyframeInterval = 2.0
  private var lastKeyframe: Double?
  /// The decoder stands where exact decoding may go on (false after a tolerance's seeks).
  private var positionValid = true
  private var scalers: [ScalerKey: Scaler] = [:]
  private var toneMapper: ToneMapper?

  /// The stream reorders frames (B-frames): seeks start earlier, as the ffmpeg CLI's.
  let hasDelay: Bool
  /// The container stores each packet's decoding time (MP4/MOV), not libavformat's guess.
  private let storesDecodeTimes: Bool
  /// The index of the stream pictures come from.
  public let streamIndex: Int
  /// The pictures are the input's cover art (an attached picture).
  public let isCover: Bool
  /// The input is one still picture (a JPEG, PNG, WebP ... file): every time gives it.
  public let isStill: Bool
  /// How the stored pictures are shown: the display matrix (or a JPEG's EXIF orientation).
  public let orientation: Orientation
  /// The pixel aspect ratio (nil: square).
  public let sampleAspectRatio: Rational?
  /// The video's length in seconds from the input's start (nil: unknown, or a still).
  public private(set) var duration: Double?
  /// The stream is HDR by its headers (HDR10, HLG, Dolby Vision).
  public let isHDR: Bool
  /// A picture was tone-mapped to SDR BT.709 (its frame's transfer was SMPTE 2084 PQ or ARIB
  /// STD-B67 HLG).
  public private(set) var toneMapped = false

  /// Opens `source` and picks the stream: the first video stream that is not cover art (the
  /// default one first), or the cover art when `cover` is set.
  ///
  /// - Parameters:
  ///   - threads: decoder threads (0: FFmpeg's choice).
  ///   - oneThreadUpTo: with `threads` 0, a picture of at most this many pixels is decoded on
  ///     one thread (0: none): for the few frames of a poster, starting frame threads and
  ///     copying the decoder's context to each costs more than they give.
  /// - Throws: `FrameError.input` (the probe's code), `.noVideo`, `.noCover`, `.decoder`.
  public init(
    source: InputSource, options: OpenOptions, cover: Bool, threads: Int = 0,
    oneThreadUpTo: Int = 0
  ) throws(FrameError) {
    let input: InputFile
    do { input = try InputOpener.open(source, options: options) } catch { throw .input(error) }
    let streams = input.streams
    let covers = streams.filter { $0.isVideoType && $0.isAttachedPicture }
    let videos = streams.filter(\.isVideo)
    let chosen: StreamView
    if cover {
      guard let first = covers.first else { throw .noCover }
      chosen = first
    } else {
      guard let first = videos.first(where: \.isDefault) ?? videos.first else {
        // Streams FFmpeg knows no codec for (an MPEG-TS stream_type 0x33, VVC): say so rather
        // than that there is no video.
        let unknown = streams.filter { !$0.isAudio && !$0.isVideoType && $0.codecName == "none" }
        if covers.isEmpty, !unknown.isEmpty {
          throw .noKnownVideo(
            unknown: unknown.map { "stream \($0.index) (tag 0x\(String($0.codecTag, radix: 16)))" }
              .joined(separator: ", ") + (unknown.count == 1 ? " is" : " are"))
        }
        throw .noVideo(hasCover: !covers.isEmpty)
      }
      chosen = first
    }
    let threads = threads == 0 && chosen.width * chosen.height <= oneThreadUpTo ? 1 : threads
    let decoder: CodecDecoder
    do { decoder = try chosen.openDecoder(threads: Int32(threads), oneFrameAtATime: true) } catch {
      throw .decoder(error)
    }
    input.discardAll(except: chosen.index)
    self.input = input
    self.decoder = decoder
    demuxer = Demuxer(input)
    self.source = source
    openOptions = options
    self.threads = threads
    let rate = chosen.guessedFrameRate ?? Rational(25, 1)!
    frameTicks = max(1, (rate.den * chosen.timeBase.den) / max(1, rate.num * chosen.timeBase.num))
    timeBase = chosen.timeBase
    timeout = options.timeout
    streamIndex = chosen.index
    hasDelay = chosen.videoDelay > 0
    storesDecodeTimes = input.formatName.hasPrefix("mov,")
    isCover = cover
    isStill =
      cover || InputFormats.isImagePipe(input.formatName) || input.formatName == "image2"
    start = isStill ? 0 : Self.exactStart(of: input)
    let info = chosen.videoInfo(isCoverArt: cover)
    sampleAspectRatio = info.sampleAspectRatio
    if isStill && !cover,
      let exif = StillOrientation.read(input.source)
    {
      orientation = Orientation(
        transform: JPEGOrientation.transform(exif, width: chosen.width, height: chosen.height),
        width: chosen.width, height: chosen.height, sampleAspectRatio: info.sampleAspectRatio)
    } else {
      orientation = info.orientation
    }
    if isStill {
      duration = nil
    } else if let length = chosen.duration, let first = chosen.startTime {
      duration = Double((first + length) * timeBase.num) / Double(timeBase.den) - start
    } else if input.formatName.hasPrefix("matroska") {
      // Matroska: the track's DURATION tag (FFmpeg's muxer writes one) and the segment's
      // duration (libavformat's `duration` here) are where the track and the segment end,
      // counted from the segment's time 0, not lengths from the input's start (`start_time`).
      // Taken as lengths, a file whose video starts at 2.5 s (copied from MPEG-TS,
      // `-output_ts_offset`) ran 2.5 s past its last frame: series repeated the last frame and
      // times past the end gave it instead of `time_past_end`.
      let end = chosen.tag("DURATION").flatMap(MediaDuration.fromTag)?.seconds
      let origin = start
      duration = (end ?? input.durationSeconds).map { $0 - origin }
    } else {
      duration = input.durationSeconds
    }
    isHDR = info.hdr != nil
  }

  /// The frame presented at `seconds` (from the input's start): the last frame whose
  /// presentation time is at or before it, decoded from the keyframe before it (the first frame
  /// when `seconds` comes before it). With a `tolerance`, the keyframe nearest `seconds` within
  /// that many seconds either way is taken when there is one (no decoding past it), as
  /// `AVAssetImageGenerator`'s `requestedTimeToleranceBefore/After`. Times asked for in
  /// increasing order decode forward instead of seeking while the next time is less than a
  /// keyframe interval ahead.
  ///
  /// - Throws: `FrameError.pastEnd` when `seconds` lies past the video's end, `.noFrame` when
  ///   nothing decodes, `.interrupted`, `.timeout`.
  package func frame(at seconds: Double, tolerance: Double? = nil) throws(FrameError) -> (
    Frame, time: Double
  ) {
    if isStill {
      if current == nil {
        guard let frame = try nextFrame() else {
          if Self.isAnimatedWebP(input.source.bytes(at: 0, count: 21)) {
            // FFmpeg 5.1's WebP decoder skips the ANIM and ANMF chunks: no picture at all.
            throw .decoder(
              FFmpegError(
                code: -38,
                message: "an animated WebP, which FFmpeg 5.1's WebP decoder cannot read (it "
                  + "reads still WebP only)"))
          }
          throw .noFrame("the picture did not decode")
        }
        current = (frame, 0)
      }
      return current!
    }
    if let stated = duration, seconds > stated + 1e-9 {
      // libavformat's duration of an MP4 track with an edit list can fall short of what the
      // edit presents (a VFR clip with B-frames: 10.52 s where the edit, the track header and
      // the frames say 10.84 s): the edit list, read from the file, has the last word.
      if let edited = editListEnd, edited > stated { duration = edited }
      if let duration, seconds > duration + 1e-9 {
        throw .pastEnd(requested: seconds, duration: duration)
      }
    }
    let found = try presented(at: seconds, tolerance: tolerance)
    // A file cut short (its header's duration lies past its last frame: a recording stopped
    // before its header was rewritten, a partial download): the decode reached the end of the
    // stream, and `seconds` lies past the last frame's end. Before, the last frame came out for
    // any later time, and series repeated it to the header's end.
    if pending == nil, ended, demuxed, queue.isEmpty,
      let last = current, last.time == found.time
    {
      let length = last.0.duration > 0 ? last.0.duration : frameTicks
      let end = last.time + Double(length * timeBase.num) / Double(timeBase.den)
      if seconds > end + 1e-6 {
        throw .pastLastFrame(requested: seconds, end: end, stated: duration)
      }
    }
    return found
  }

  /// `frame(at:tolerance:)` once the time is known to be within the stated duration.
  private func presented(at seconds: Double, tolerance: Double?) throws(FrameError) -> (
    Frame, time: Double
  ) {
    let limit = seconds + 1e-9
    if let tolerance, tolerance > 0 {
      if let current, abs(current.time - seconds) <= tolerance + 1e-9 { return current }
      if let found = try keyframe(near: seconds, within: tolerance) { return found }
    }
    var sought: Double? = nil
    if !positionValid {
      sought = seconds
    } else if let current, current.time <= limit {
      let next = pending.map(time(of:))
      if next.map({ $0 > limit }) ?? ended { return current }  // still presented at `seconds`
      let position = next ?? current.time
      // Seek when a keyframe lies between where the decode stands and `seconds` (the index
      // says; without one, when `seconds` is a keyframe interval or more ahead): decoding
      // forward from here costs more than from that keyframe.
      let seekGains =
        keyframes.isEmpty
        ? seconds - position >= keyframeInterval
        : (keyframes.last { $0.time <= limit }.map { $0.time > position + 1e-6 } ?? false)
      if seekGains { sought = seconds }
    } else if !(fresh && seconds <= 0) {
      sought = seconds
    }
    // A demuxer that seeks by searching timestamps (MPEG-TS, MPEG-PS) can land after the
    // keyframe before `seconds`: when the first frame decoded comes after `seconds` (or none
    // does), it seeks again 1, 2, 4 ... seconds earlier, down to the start; when even that
    // does not reach it, the input is opened again and decoded from its first byte.
    var backoff = 0.0
    while true {
      if let target = sought {
        do {
          try seek(toSeconds: target - backoff)
        } catch .noFrame {
          // The demuxer refuses the seek (FLV before its first keyframe: EPERM): from the
          // first byte.
          try reopen()
          try decodeForward(to: limit)
          break
        }
      }
      let landed = sought == nil ? nil : try decodeForward(to: limit)
      if sought == nil { try decodeForward(to: limit) }
      if let target = sought, landed == false {
        if target - backoff > 0 {
          backoff = max(1, backoff * 2)
          continue
        }
        // Sought before the start and still nothing at or before `seconds` (FLV lands past the
        // end when asked for a time before its start; a raw stream has no times): from the
        // first byte, which also gives the first frame when `seconds` precedes it.
        try reopen()
        sought = nil
        try decodeForward(to: limit)
      }
      break
    }
    if drainedEarly {
      // Packets after the target's were not sent: a later time seeks.
      positionValid = false
      if let target = stopTarget, current.flatMap({ stamp(of: $0.0) }) != target {
        // The target's frame did not come out (it failed to decode): decode the time again
        // as without stopping, so the answer is the one a whole decode gives.
        stopTarget = nil
        stopsAtTarget = false
        defer { stopsAtTarget = true }
        return try presented(at: seconds, tolerance: tolerance)
      }
    }
    guard let current else {
      throw .noFrame("no frame at or before \(fixed(seconds, places: 3)) s")
    }
    return current
  }

  /// The input's start (`start_time`) in seconds, exactly: libavformat keeps it in
  /// microseconds, rounded, and an MPEG-TS whose first timestamp is not a multiple of 9 ticks
  /// of its 90 kHz clock (most captures) starts up to 0.5 µs off, so a frame exactly at T was
  /// reckoned just after T and the one before it came out (`--every 1` gave the frame before
  /// each second). The stream whose first timestamp is that start gives it in its own ticks.
  static func exactStart(of input: InputFile) -> Double {
    guard let rounded = input.startSeconds else { return 0 }
    for stream in input.streams {
      guard let first = stream.startTime else { continue }
      let base = stream.timeBase
      let exact = Double(first * base.num) / Double(base.den)
      if abs(exact - rounded) <= 0.5e-6 + 1e-12 { return exact }
    }
    return rounded
  }

  /// Whether `header` (a file's first 21 bytes) opens an animated WebP: RIFF, WEBP, a VP8X
  /// chunk whose flags have the animation bit (0x02).
  static func isAnimatedWebP(_ header: [UInt8]) -> Bool {
    header.count == 21 && header[0..<4].elementsEqual("RIFF".utf8)
      && header[8..<12].elementsEqual("WEBP".utf8) && header[12..<16].elementsEqual("VP8X".utf8)
      && header[20] & 0x02 != 0
  }

  /// The video's length when its headers state none (a WebM recorded live, as browsers'
  /// MediaRecorder writes it, has no duration and no cues): every packet of the stream is read
  /// (nothing is decoded) and the last one's end taken (its presentation time plus its
  /// duration, else one frame at the stream's rate); the input is then opened again at its
  /// start. Series, sheets and `--best` need it; a stated duration is returned as it is.
  ///
  /// - Throws: `FrameError.interrupted`, `.timeout`, and what opening the input again throws.
  public func measuredDuration() throws(FrameError) -> Double? {
    if let stated = duration, let edited = editListEnd, edited > stated { duration = edited }
    if isStill || duration != nil { return duration }
    var end: Int64?
    while let packet = try readPacket() {
      guard let pts = packet.pts else { continue }
      end = max(end ?? .min, pts + (packet.duration > 0 ? packet.duration : frameTicks))
    }
    try reopen()
    duration = end.map { Double($0 * timeBase.num) / Double(timeBase.den) - start }
    return duration
  }

  /// Where an MP4 track's single media edit ends on libavformat's timeline, in seconds from the
  /// input's start (the edit's length, or the last sample's end when that comes first: the
  /// sample tables read by `BoxLayout`, as mediaprobe reads them); nil for other inputs.
  private lazy var editListEnd: Double? = {
    guard input.formatName.hasPrefix("mov,"), let layout = BoxLayout.read(input.source),
      let track = layout.tracks[Int64(input.view(streamIndex).containerID)], track.timescale > 0,
      let presentation = track.presentation(movieTimescale: layout.movieTimescale)
    else { return nil }
    return Double(presentation.endOnTimeline) / Double(track.timescale) - start
  }()

  /// The stamp `frame` carries (`best_effort_timestamp`, else its pts), in stream ticks.
  private func stamp(of frame: Frame) -> Int64? { frame.bestEffortTimestamp ?? frame.pts }

  /// Opens the input again and stands at its start, as when the grabber was made.
  private func reopen() throws(FrameError) {
    let input: InputFile
    do { input = try InputOpener.open(source, options: openOptions) } catch { throw .input(error) }
    guard streamIndex < input.streamCount else { throw .noFrame("the input changed") }
    let decoder: CodecDecoder
    do {
      decoder = try input.view(streamIndex).openDecoder(
        threads: Int32(threads), oneFrameAtATime: true)
    } catch {
      throw .decoder(error)
    }
    input.discardAll(except: streamIndex)
    self.input = input
    self.decoder = decoder
    demuxer = Demuxer(input)
    (pending, current, lastKeyframe, lastStamp) = (nil, nil, nil, nil)
    (ended, unsent, fresh, positionValid) = (false, false, true, true)
    (queue, demuxed, outgoing) = ([], false, nil)
    (stopTarget, drainedEarly) = (nil, false)
  }

  /// Decodes forward, keeping in `current` the last frame at or before `limit` (the first frame
  /// when none is), and in `pending` the one after it.
  ///
  /// - Returns: whether a frame at or before `limit` was decoded since the call began.
  @discardableResult
  private func decodeForward(to limit: Double) throws(FrameError) -> Bool {
    var reached = false
    skipLimit = Int64(
      ((limit + start) * Double(timeBase.den) / Double(timeBase.num)).rounded(.down))
    defer { skipLimit = nil }
    while true {
      let frame: Frame
      if let waiting = pending {
        frame = waiting
        pending = nil
      } else if let decoded = try nextFrame() {
        frame = decoded
      } else {
        break  // the end: the last frame stays presented
      }
      let time = self.time(of: frame)
      if time > limit && current != nil {
        pending = frame
        break
      }
      current = (frame, time)
      if time > limit { break }  // the first frame comes after `seconds`: it shows until then
      reached = true
    }
    return reached || current.map { $0.time <= limit } == true
  }

  /// The stream's keyframes from the demuxer's index (MP4's sync samples), in seconds from the
  /// input's start; empty for other containers (whose index is partial or absent). MP4
  /// indexes decoding times, which precede the presentation times by the keyframes'
  /// composition offset (x264's keyframes keep the same one): until a keyframe was decoded, it
  /// is taken as the difference between the stream's first presentation time and the first
  /// indexed keyframe, which is too large when an edit list starts after the first keyframe
  /// (a cut with `-ss T -c copy`: presentation starts at a frame after it); the first keyframe
  /// decoded tells the offset (`learnedShift`).
  private var keyframes: [(time: Double, seekTime: Double)] {
    let shift = learnedShift ?? keyframeIndex.shift
    return keyframeIndex.seekTimes.map { ($0 + shift, $0) }
  }

  /// The composition offset of the keyframes, in seconds, once one was decoded from the index.
  private var learnedShift: Double?

  /// The indexed keyframes' decoding times in seconds from the input's start, and the offset
  /// to their presentation times guessed from the index (at least the true one: the first
  /// keyframe is presented at or before the stream's first presentation time).
  private lazy var keyframeIndex: (seekTimes: [Double], shift: Double) = {
    // Only MP4/MOV's index is whole once the header is read: Matroska reads its cues on the
    // first seek, and MPEG-TS, AVI without idx1 and the rest add entries as they read.
    guard input.formatName.hasPrefix("mov,") else { return ([], 0) }
    let stream = input.view(streamIndex)
    var stamps: [Int64] = []
    stream.forEachIndexEntry { entry in
      if entry.isKeyframe { stamps.append(entry.timestamp) }
    }
    stamps.sort()
    guard let first = stamps.first else { return ([], 0) }
    let shift = max(0, (stream.startTime ?? first) - first)
    let (base, origin) = (timeBase, start)
    let seconds = { (stamp: Int64) in Double(stamp * base.num) / Double(base.den) - origin }
    return (stamps.map(seconds), Double(shift * base.num) / Double(base.den))
  }()

  /// The keyframe nearest `seconds` within `tolerance`, decoded; nil when there is none. With
  /// an index, the nearest indexed keyframe is sought directly; without, two seeks find the
  /// keyframes on either side (libavformat's `avformat_seek_file` takes the one in the seek
  /// direction, not the nearest); the earlier wins a tie. The decoded frame's own time is
  /// checked against the tolerance either way.
  private func keyframe(near seconds: Double, within tolerance: Double) throws(FrameError) -> (
    Frame, time: Double
  )? {
    if !keyframeIndex.seekTimes.isEmpty {
      for _ in 0..<2 {
        // Until a keyframe was decoded, a keyframe's presentation time lies between its
        // decoding time and that plus the guessed offset: any that may be within the
        // tolerance is a candidate, the nearest by the guess first.
        let shift = learnedShift ?? keyframeIndex.shift
        let slack = learnedShift == nil ? shift : 0
        let candidates = keyframeIndex.seekTimes.filter {
          $0 - tolerance - 1e-9 <= seconds && seconds <= $0 + slack + tolerance + 1e-9
        }
        guard
          let nearest = candidates.min(by: {
            abs($0 + shift - seconds) < abs($1 + shift - seconds)
          }),
          (try? seek(toSeconds: nearest, within: (0.001, 0.001))) != nil,
          let frame = try nextFrame()
        else { return nil }
        let time = self.time(of: frame)
        if learnedShift == nil && frame.isKeyFrame {
          learnedShift = time - nearest
          // With the offset known, another keyframe may be the nearest: seek to it.
          let again = keyframeIndex.seekTimes.min(by: {
            abs($0 + time - nearest - seconds) < abs($1 + time - nearest - seconds)
          })
          if again != nearest { continue }
        }
        guard abs(time - seconds) <= tolerance + 1e-9 else {
          pending = frame
          return nil
        }
        current = (frame, time)
        return current
      }
      return nil
    }
    var found: (Frame, time: Double)?
    if (try? seek(toSeconds: seconds, within: (tolerance, 0))) != nil, let frame = try nextFrame() {
      let time = self.time(of: frame)
      if time <= seconds + 1e-9 && seconds - time <= tolerance + 1e-9 { found = (frame, time) }
    }
    if found.map({ $0.time < seconds - 1e-9 }) ?? true,
      (try? seek(toSeconds: seconds, within: (0, tolerance))) != nil, let frame = try nextFrame()
    {
      let time = self.time(of: frame)
      if time >= seconds - 1e-9 && time - seconds <= tolerance + 1e-9
        && found.map({ time - seconds < seconds - $0.time }) ?? true
      {
        found = (frame, time)
      }
    }
    // The decode stands after the second keyframe: the next exact time seeks again.
    positionValid = false
    current = nil
    pending = nil
    return found
  }

  /// Seeks to the keyframe at or before `seconds` (as the ffmpeg CLI's -ss), or with `range`
  /// (seconds before, after) to one within it, and resets the decoder.
  private func seek(toSeconds seconds: Double, within range: (Double, Double)? = nil)
    throws(FrameError)
  {
    var target = Int64(((start + seconds) * 1_000_000).rounded(.down))
    do {
      if let range {
        let low = target - Int64((range.0 * 1_000_000).rounded(.down))
        let high = target + Int64((range.1 * 1_000_000).rounded(.down))
        try input.seek(toMicroseconds: target, within: low...high)
      } else {
        // As the ffmpeg CLI's -ss: a stream with B-frames is sought 3/23 s early, since
        // demuxers seek by decoding time, and a frame just after an open GOP's keyframe may
        // need the frames before it (x264's open-gop: an MMCO naming a picture of the previous
        // GOP makes the decoder drop the last frame of numbers_open.mkv when decoding starts
        // at its keyframe).
        if hasDelay { target -= 3 * 1_000_000 / 23 }
        try input.seek(toMicroseconds: target)
      }
    } catch {
      if range != nil { throw .decoder(error) }
      if !fresh { throw .noFrame("the input cannot seek: \(error.message)") }
      return  // a stream that cannot seek is decoded from its start
    }
    decoder.flush()
    pending = nil
    current = nil
    lastKeyframe = nil
    lastStamp = nil
    ended = false
    unsent = false
    (queue, demuxed, outgoing) = ([], false, nil)
    (stopTarget, drainedEarly) = (nil, false)
    fresh = false
    positionValid = true
  }

  /// The presentation time of `frame` in seconds from the input's start.
  func time(of frame: Frame) -> Double {
    guard let stamp = frame.bestEffortTimestamp ?? frame.pts else { return current?.time ?? 0 }
    return Double(stamp * timeBase.num) / Double(timeBase.den) - start
  }

  /// The next frame the decoder gives, reading packets as needed; nil at the end. A packet (or
  /// the end) the decoder cannot take yet (`EAGAIN`: its frame threads are busy) is sent again
  /// once a frame was received.
  func nextFrame() throws(FrameError) -> Frame? {
    var failures = 0
    while true {
      let frame = Frame()
      do {
        if try decoder.receive(into: frame) {
          fresh = false
          if let stamp = frame.bestEffortTimestamp ?? frame.pts {
            lastStamp = stamp
          } else {
            // No timestamp (a raw stream): the frame after the last one.
            let stamp = lastStamp.map { $0 + frameTicks } ?? 0
            frame.pts = stamp
            lastStamp = stamp
          }
          if frame.isKeyFrame {
            let time = time(of: frame)
            if let last = lastKeyframe, time > last {
              keyframeInterval = max(keyframeInterval, time - last)
            }
            lastKeyframe = time
          }
          return frame
        }
      } catch {
        failures += 1
        if failures > 1000 { throw .decoder(error) }
        continue
      }
      if unsent {
        do {
          try decoder.send(outgoing)
          unsent = false
        } catch  where error.isTryAgain {
          continue  // receive first
        } catch {
          unsent = false  // the packet is lost, as the ffmpeg CLI skips it
          failures += 1
          if failures > 1000 { throw .decoder(error) }
        }
        continue
      }
      if ended { return nil }
      if stopTarget != nil && !drainedEarly {
        // The target's packet is in: drain instead of sending what follows it.
        drainedEarly = true
        outgoing = nil
      } else {
        outgoing = queue.isEmpty ? try readPacket() : queue.removeFirst()
      }
      if let packet = outgoing {
        let (skip, last) = try skippable(packet)
        decoder.skipsNonReferenceFrames = skip
        if skip { packetsSentSkippable += 1 }
        if last && stopsAtTarget && !drainedEarly { stopTarget = packet.pts }
        packetsSent += 1
      } else {
        decoder.skipsNonReferenceFrames = false
        ended = true
      }
      unsent = true
    }
  }

  /// The stream's next packet from the demuxer (a reference of its own), nil at the end.
  private func readPacket() throws(FrameError) -> Packet? {
    while !demuxed {
      let next: Demuxer.Next
      do { next = try demuxer.next() } catch {
        switch error {
        case .interrupted: throw .interrupted
        case .timedOut: throw .timeout(seconds: timeout)
        }
      }
      switch next {
      case .packet:
        guard demuxer.packet.streamIndex == streamIndex else { continue }
        let packet = Packet()
        guard packet.reference(demuxer.packet) else { throw .noFrame("out of memory") }
        return packet
      case .end, .failed:
        demuxed = true
      }
    }
    return nil
  }

  /// Whether `packet`'s frame cannot be the one presented at `skipLimit` (`skip`: it comes
  /// before the frame of a later packet that is still at or before the limit), or must be
  /// (`last`: it is at or before the limit and no later packet is after it and still at or
  /// before the limit). The packets are read ahead until one decodes after the limit (then no
  /// later one presents before it), at most 64; every one must carry a presentation time, else
  /// neither is said.
  private func skippable(_ packet: Packet) throws(FrameError) -> (skip: Bool, last: Bool) {
    guard let limit = skipLimit, let pts = packet.pts, pts <= limit else { return (false, false) }
    func after(_ p: Packet) -> Bool { (p.dts ?? p.pts ?? .min) > limit }
    while queue.count < 64, !(queue.last.map(after) ?? false), let more = try readPacket() {
      queue.append(more)
    }
    guard demuxed || queue.last.map(after) == true else { return (false, false) }
    var later = false
    for other in queue {
      guard let stamp = other.pts else { return (false, false) }
      if stamp > pts && stamp <= limit { later = true }
    }
    // `last` needs every later packet seen: the end was read, or the read-ahead ends at a
    // decoding time past the limit that the container stores (MP4's, shifted so that no
    // presentation time precedes its decoding time); a decoding time libavformat guessed from
    // the presentation times (Matroska's) may be later than a frame still to come.
    let complete = demuxed || (storesDecodeTimes && queue.last?.dts.map { $0 > limit } == true)
    return (later, !later && complete)
  }
}

extension FrameGrabber {
  /// The size a frame of `width`×`height` is shown at: the pixel aspect ratio applied to the
  /// width, turned by the orientation, fitted inside `maxSize`.
  public func displaySize(width: Int, height: Int, maxSize: FitSize?) -> (width: Int, height: Int) {
    var w = width
    if let sar = sampleAspectRatio, sar.num > 0, sar.num != sar.den {
      w = max(1, Int((Double(width) * sar.value).rounded()))
    }
    var shown = orientation.rotation % 180 == 0 ? (w, height) : (height, w)
    if let maxSize { shown = maxSize.fit(width: shown.0, height: shown.1) }
    return shown
  }

  /// The frame as an upright picture with square pixels, fitted inside `maxSize`: HDR frames
  /// tone-mapped to SDR first, then converted to R'G'B' by libswscale (the frame's matrix and
  /// range; bicubic), then turned by the orientation.
  ///
  /// - Throws: `FrameError.filter` when the conversion fails.
  package func picture(of frame: Frame, maxSize: FitSize?) throws(FrameError) -> Picture {
    var source = frame
    // By the frame's transfer: a Dolby Vision stream's base layer may state none, and zscale
    // cannot linearize an unstated transfer.
    if frame.color.transfer == .pq || frame.color.transfer == .hlg {
      if toneMapper == nil { toneMapper = ToneMapper() }
      source = try toneMapper!.map(frame)
      toneMapped = true
    }
    guard let format = source.pixelFormat else {
      throw .noFrame("the decoded frame has no picture")
    }
    let shown = displaySize(width: source.width, height: source.height, maxSize: maxSize)
    let stored = orientation.rotation % 180 == 0 ? shown : (shown.1, shown.0)
    let color = source.color
    let range: ColorRange =
      color.range == .full || format.name.hasPrefix("yuvj") || format.isRGB ? .full : .limited
    let key = ScalerKey(
      source: ImageFormat(
        width: source.width, height: source.height, pixelFormat: format, matrix: color.matrix,
        range: range),
      width: stored.0, height: stored.1)
    let scaler: Scaler
    if let cached = scalers[key] {
      scaler = cached
    } else {
      do {
        scaler = try Scaler(
          from: key.source,
          to: format.isRGB
            // R'G'B' to R'G'B': without a direct conversion (16 bits, gbrp10) libswscale goes
            // through Y'CbCr, made with the destination's matrix and range and read back with
            // the source's: both must be the same (full range), else 16-bit PNGs and TIFFs
            // came out up to 22 levels off (PSNR 31 dB against their 8-bit originals).
            ? ImageFormat(
              width: stored.0, height: stored.1, pixelFormat: .rgb24, matrix: key.source.matrix,
              range: .full)
            : ImageFormat(width: stored.0, height: stored.1, pixelFormat: .rgb24),
          interpolation: .bicubic)
      } catch {
        throw .filter("cannot convert the \(format) picture to RGB", error)
      }
      scalers[key] = scaler
    }
    let rgb: Frame
    do { rgb = try scaler.scale(source) } catch {
      throw .filter("cannot convert the \(format) picture to RGB", error)
    }
    var pixels = [UInt8](repeating: 0, count: stored.0 * stored.1 * 3)
    let rowBytes = stored.0 * 3
    pixels.withUnsafeMutableBytes { target in
      for row in 0..<stored.1 {
        rgb.withRow(row) { line in
          target.baseAddress!.advanced(by: row * rowBytes).copyMemory(
            from: line.baseAddress!, byteCount: rowBytes)
        }
      }
    }
    return Picture(width: stored.0, height: stored.1, pixels: pixels)
      .oriented(rotation: orientation.rotation, mirrored: orientation.mirrored)
  }

  /// The picture presented at `seconds`, ready to write.
  ///
  /// - Throws: what `frame(at:tolerance:)` and `picture(of:maxSize:)` throw.
  public func grab(at seconds: Double, tolerance: Double? = nil, maxSize: FitSize?)
    throws(FrameError) -> Grab
  {
    let (frame, time) = try self.frame(at: seconds, tolerance: tolerance)
    return Grab(
      picture: try picture(of: frame, maxSize: maxSize),
      requestedTime: isStill ? nil : seconds, actualTime: isCover ? nil : time)
  }
}

/// A scaler's source format and output size.
struct ScalerKey: Hashable {
  var source: ImageFormat
  var width: Int
  var height: Int
}
