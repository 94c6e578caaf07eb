import AV
import Composition
import MediaCore
import OutputKit
import Render

/// A decoded source picture and which one it is (so a picture held over several output frames
/// is put on the canvas once).
struct SourcePicture {
  var frame: Frame
  /// Changes when the picture does.
  var key: Int64
  /// Its colour tags (the decoder's where the frame states none).
  var tags: ColorTags
}

/// Opens a file for the compositor with the untrusted-input policy every tool uses.
func openSource(_ path: String) throws(CompositorError) -> InputFile {
  do {
    return try InputOpener.open(.file(path), options: OpenOptions())
  } catch {
    throw .source(path: path, error)
  }
}

/// The first video stream of `input` that is not cover art.
func videoStream(of input: InputFile) -> StreamView? {
  input.streams.first { $0.isVideoType && !$0.isAttachedPicture }
}

/// Tags a frame states, completed by the stream's where it states none.
func merged(_ frame: ColorTags, _ stream: ColorTags) -> ColorTags {
  ColorTags(
    matrix: frame.matrix == .unspecified ? stream.matrix : frame.matrix,
    range: frame.range == .unspecified ? stream.range : frame.range,
    primaries: frame.primaries == .unspecified ? stream.primaries : frame.primaries,
    transfer: frame.transfer == .unspecified ? stream.transfer : frame.transfer)
}

/// A video file's pictures from a source time on, in order: seeks to the keyframe at or before
/// the segment's start and decodes from there, dropping what comes before; gives the picture
/// shown at each asked time (the last one whose time is not after it).
final class VideoFileSource {
  let path: String
  private let input: InputFile
  private let demuxer: Demuxer
  private let decoder: CodecDecoder
  private let streamIndex: Int
  private let timeBase: Rational
  /// Where the file's presentation starts (its source time 0).
  private let origin: MediaTime
  private let streamTags: ColorTags
  private let scratch = Frame()
  private var pending: [(time: MediaTime, frame: Frame)] = []
  private var current: (time: MediaTime, frame: Frame)?
  private var currentKey: Int64 = -1
  private var ended = false
  private var lastTimestamp: Int64?
  /// Pictures the decoder could not decode.
  private(set) var decodeErrors = 0

  /// Opens `path` and positions it for source time `start`.
  init(path: String, start: MediaTime, decoderThreads: Int) throws(CompositorError) {
    self.path = path
    input = try openSource(path)
    guard let stream = videoStream(of: input) else {
      throw .sourceUndecodable(path: path, detail: "it has no video stream")
    }
    streamIndex = stream.index
    timeBase = stream.timeBase
    let startMicroseconds = input.startMicroseconds ?? 0
    origin = MediaTime(value: startMicroseconds, timescale: 1_000_000)
    do {
      decoder = try stream.openDecoder(threads: Int32(decoderThreads))
    } catch {
      throw .render(.decoder(stream: stream.index, error))
    }
    streamTags = decoder.color
    input.discardAll(except: stream.index)
    demuxer = Demuxer(input)
    self.start = start
    if start > .zero { seek(back: .zero) }
  }

  /// The source time the segment starts at.
  private let start: MediaTime
  /// How far before `start` the last seek aimed (nil: none, read from the file's start).
  private var seekedBack: MediaTime?

  /// Seeks to the keyframe at or before `start - back` (a format that cannot seek is read from
  /// its start) and starts decoding afresh.
  private func seek(back: MediaTime) {
    let target = start - back
    seekedBack = target > .zero ? back : nil
    let microseconds = (origin + max(target, .zero)).units(atRate: Rational(1_000_000, 1)!)
    try? input.seek(toMicroseconds: microseconds)
    decoder.flush()
    pending.removeAll()
    ended = false
    lastTimestamp = nil
  }

  /// After a seek: when the first picture decoded starts after `start` (an imprecise seek, as
  /// MPEG-TS's by timestamps), seeks again further back (1 s, 2 s, 4 s ..., then the file's
  /// start) so that the picture shown at `start` is decoded, never a later keyframe.
  private func repositionIfLate() throws(CompositorError) {
    while let back = seekedBack, current == nil {
      if pending.isEmpty && !ended { try readMore() }
      guard let first = pending.first, first.time > start else { return }
      seek(back: back == .zero ? MediaTime(value: 1, timescale: 1) : back + back)
    }
  }

  /// The picture shown at source time `time`.
  func picture(at time: MediaTime) throws(CompositorError) -> SourcePicture {
    try repositionIfLate()
    while true {
      if let next = pending.first, next.time <= time {
        current = pending.removeFirst()
        currentKey += 1
        continue
      }
      if !pending.isEmpty || ended { break }
      try readMore()
    }
    if current == nil, !pending.isEmpty {
      current = pending.removeFirst()  // the time lies before the first picture
      currentKey += 1
    }
    guard let current else {
      throw .sourceUndecodable(
        path: path,
        detail: "no picture decodes at \(time) s"
          + (decodeErrors > 0 ? " (\(decodeErrors) decoding errors)" : ""))
    }
    return SourcePicture(
      frame: current.frame, key: currentKey, tags: merged(current.frame.color, streamTags))
  }

  private func readMore() throws(CompositorError) {
    while pending.isEmpty && !ended {
      let next: Demuxer.Next
      do { next = try demuxer.next() } catch {
        switch error {
        case .interrupted: throw .render(.interrupted)
        case .timedOut: throw .render(.timeout(seconds: nil))
        }
      }
      switch next {
      case .packet:
        // Packets the demuxer had buffered before the other streams were discarded.
        guard demuxer.packet.streamIndex == streamIndex else { continue }
        try decode(demuxer.packet)
      case .end, .failed:
        try decode(nil)
        ended = true
      }
    }
  }

  private func decode(_ packet: Packet?) throws(CompositorError) {
    var failure: CompositorError?
    decoder.decode(packet, into: scratch, failure: { _ in self.decodeErrors += 1 }) { frame in
      let timestamp = frame.bestEffortTimestamp ?? ((self.lastTimestamp ?? -1) + 1)
      self.lastTimestamp = timestamp
      let copy = Frame()
      do throws(FFmpegError) { try copy.reference(frame) } catch {
        failure = .render(.decoder(stream: self.streamIndex, error))
        return false
      }
      self.pending.append(
        (MediaTime(ticks: timestamp, timeBase: self.timeBase) - self.origin, copy))
      return true
    }
    if let failure { throw failure }
  }
}

/// One still image, decoded once.
func decodeImage(_ path: String) throws(CompositorError) -> SourcePicture {
  let input = try openSource(path)
  guard CompositionSources.imageDemuxers.contains(input.formatName),
    let stream = videoStream(of: input)
  else {
    throw .unsupportedImage(
      path: path, detail: "read as \(input.formatName), not as a JPEG, PNG or WebP image")
  }
  let decoder: CodecDecoder
  do { decoder = try stream.openDecoder(threads: 1) } catch {
    throw .unsupportedImage(path: path, detail: error.message)
  }
  let demuxer = Demuxer(input)
  let scratch = Frame()
  var picture: Frame?
  reading: while picture == nil {
    let next: Demuxer.Next
    do { next = try demuxer.next() } catch {
      throw error == .interrupted ? .render(.interrupted) : .render(.timeout(seconds: nil))
    }
    let packet: Packet?
    switch next {
    case .packet: packet = demuxer.packet.streamIndex == stream.index ? demuxer.packet : nil
    case .end, .failed: packet = nil
    }
    if case .packet = next, packet == nil { continue }
    decoder.decode(packet, into: scratch, failure: { _ in }) { frame in
      let copy = Frame()
      guard (try? copy.reference(frame)) != nil else { return false }
      picture = copy
      return false
    }
    if packet == nil { break reading }
  }
  guard let picture else {
    throw .unsupportedImage(path: path, detail: "its picture does not decode")
  }
  return SourcePicture(frame: picture, key: 0, tags: merged(picture.color, decoder.color))
}

/// One segment's pictures on the canvas at composition times: its source opened on the first
/// request (so only the segments on screen hold a file open), each source picture placed once.
final class SegmentPictures {
  let segment: PlannedSegment
  private let canvas: Canvas
  private let decoderThreads: Int
  private let background: Frame
  private var transformer: PictureTransformer?
  private var video: VideoFileSource?
  private var still: SourcePicture?
  private var sequence: [String]?
  private var sequenceIndex = -1
  private var sequencePicture: SourcePicture?
  private var placed: (key: Int64, frame: Frame)?
  /// A gap's background with its looks (made once).
  private var gapPicture: Frame?
  /// Which source picture was placed last (for the self-check's reference): the source time
  /// asked.
  private(set) var lastSourceTime: MediaTime?

  /// Where the time goes (decoding, placing), when measured.
  var stages: StageTimes?

  init(segment: PlannedSegment, canvas: Canvas, decoderThreads: Int, background: Frame) {
    self.segment = segment
    self.canvas = canvas
    self.decoderThreads = decoderThreads
    self.background = background
    if let transform = segment.transform {
      transformer = PictureTransformer(
        canvas: canvas, transform: transform, looks: segment.looks ?? [])
    }
  }

  /// Decoding errors met in the source so far.
  var decodeErrors: Int { video?.decodeErrors ?? 0 }

  /// The source time shown at composition time `time` (the clip's speed and freeze applied).
  func sourceTime(at time: MediaTime) -> MediaTime {
    segment.sourceTime(at: time)
  }

  /// The segment's picture at composition time `time`, on the canvas.
  func picture(at time: MediaTime) throws(CompositorError) -> Frame {
    guard let path = segment.path, let transformer, segment.kind != .gap else {
      return background
    }
    let source = sourceTime(at: time)
    lastSourceTime = source
    let decodeStart = stages == nil ? 0 : MonotonicClock.seconds()
    let picture: SourcePicture
    switch segment.kind {
    case .gap:
      // A gap shows the background, with the gap's looks when it has any.
      guard let looks = segment.looks, !looks.isEmpty else { return background }
      if gapPicture == nil {
        gapPicture = try LookStage(looks: looks, canvas: canvas).apply(background)
      }
      return gapPicture!
    case .still:
      if still == nil { still = try decodeImage(path) }
      picture = still!
    case .sequence:
      if sequence == nil {
        do { sequence = try ImageSequence.files(path) ?? [path] } catch {
          throw .source(path: path, error)
        }
      }
      let rate = segment.frameRate ?? Rational(1, 1)!
      // Image n shows from n / fps: the last one that started at or before `source`.
      var index = Int(source.units(atRate: rate))
      if MediaTime(units: Int64(index), rate: rate) > source { index -= 1 }
      index = max(0, min(index, sequence!.count - 1))
      if index != sequenceIndex {
        var image = try decodeImage(sequence![index])
        image.key = Int64(index)
        sequencePicture = image
        sequenceIndex = index
      }
      picture = sequencePicture!
    case .video:
      if video == nil {
        video = try VideoFileSource(
          path: path, start: segment.sourceRange.start, decoderThreads: decoderThreads)
      }
      picture = try video!.picture(at: source)
    }
    let placeStart = stages == nil ? 0 : MonotonicClock.seconds()
    stages?.decode += placeStart - decodeStart
    if let placed, placed.key == picture.key { return placed.frame }
    let frame = try transformer.apply(picture.frame, tags: picture.tags)
    placed = (picture.key, frame)
    stages?.place += stages == nil ? 0 : MonotonicClock.seconds() - placeStart
    return frame
  }

  /// Closes the source (its file descriptor) and drops what was decoded.
  func close() {
    video = nil
    still = nil
    sequencePicture = nil
    placed = nil
  }
}

/// Seconds spent in each stage of a render on its own thread (the encoders' and decoders'
/// worker threads add CPU time of their own).
final class StageTimes {
  /// Demuxing and decoding the sources (and decoding stills and images).
  var decode = 0.0
  /// Putting pictures on the canvas (upright, scale, colour, pad).
  var place = 0.0
  /// Transitions (xfade).
  var blend = 0.0
  /// Sending pictures to libx264 and muxing its packets.
  var encodeVideo = 0.0
  /// Pulling the mixed audio and encoding it.
  var audio = 0.0
}
