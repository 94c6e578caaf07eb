import AV
import MediaCore
import OutputKit

/// The render engine: reads an input once, and for each output stream either copies its packets
/// or decodes, filters (one libavfilter graph per stream) and encodes them, then muxes everything
/// into an `OutputFile` (sources -> graph -> encoders -> muxer, the design's render seam).
///
/// Every loop stops for an interruption (SIGINT, SIGTERM) and for the deadline (the settings'
/// `timeout`, and the input's own), and the muxer's writes do too (faststart's second pass
/// included). The output is never committed here: on success the caller checks it and commits
/// it; on any failure it is dropped, and nothing is left behind.
package enum Transcoder {
  /// Renders `input` into `output` as `settings` say.
  ///
  /// The input is read once from where it stands (open it afresh: `open`); the streams not
  /// written are discarded by its demuxer. The output is written from its start and left
  /// uncommitted.
  ///
  /// - Parameters:
  ///   - name: the output's name, for libavformat's messages and errors (never opened).
  /// - Returns: what was written, per stream.
  /// - Throws: `RenderError`; `output` is then incomplete and must not be committed.
  package static func run(
    input: InputFile, output: OutputFile, name: String, settings: RenderSettings
  ) throws(RenderError) -> RenderReport {
    let control = RenderControl(timeout: settings.timeout)
    let pipeline = try Pipeline(
      input: input, output: output, name: name, settings: settings, control: control)
    return try pipeline.run()
  }

  /// Opens `source` as every tool does (`InputOpener`: the untrusted-input policy) for a render.
  ///
  /// - Throws: `RenderError.input` with the probe's code.
  package static func open(
    _ source: InputSource, options: OpenOptions = OpenOptions()
  ) throws(RenderError) -> InputFile {
    do {
      return try InputOpener.open(source, options: options)
    } catch {
      let path: String
      switch source {
      case .file(let file): path = FileName.display(file)
      case .standardInput: path = "-"
      case .url(let url): path = url
      }
      throw .input(path: path, error)
    }
  }
}

/// Interruption and the deadline, asked in every loop.
final class RenderControl {
  let timeout: Double?
  private let deadline: Double?

  init(timeout: Double?) {
    self.timeout = timeout
    deadline = timeout.map { MonotonicClock.seconds() + $0 }
  }

  /// The reason to stop now, if there is one.
  var stopReason: RenderError? {
    if Interruption.isRequested { return .interrupted }
    if let deadline, MonotonicClock.seconds() >= deadline { return .timeout(seconds: timeout) }
    return nil
  }

  /// Throws when the render must stop.
  func check() throws(RenderError) {
    if let reason = stopReason { throw reason }
  }
}

/// One run: the input's demuxer, the muxer, and a lane per output stream.
final class Pipeline {
  let input: InputFile
  let demuxer: Demuxer
  let muxer: Muxer
  let control: RenderControl
  let name: String
  private let settings: RenderSettings
  private var lanes: [Lane] = []
  /// The lane of each input stream that is written.
  private var laneOfStream: [Int: Lane] = [:]

  init(
    input: InputFile, output: OutputFile, name: String, settings: RenderSettings,
    control: RenderControl
  ) throws(RenderError) {
    self.input = input
    self.name = name
    self.settings = settings
    self.control = control
    demuxer = Demuxer(input)
    guard !settings.streams.isEmpty else {
      throw .noStreams("the settings choose no stream")
    }
    do {
      muxer = try Muxer(
        format: settings.container, output: output, name: name,
        shouldStop: { [control] in control.stopReason != nil })
    } catch {
      throw .muxer("cannot write \(settings.container) (\(name))", error)
    }
  }

  /// The input's start (libavformat's `start_time`) in `timeBase`: what the ffmpeg CLI subtracts
  /// from every timestamp so that the output starts at 0.
  func startOffset(in timeBase: Rational) -> Int64 {
    guard let start = input.startMicroseconds, start != 0 else { return 0 }
    return Rational.rescale(start, from: Rational(1, 1_000_000)!, to: timeBase)
  }

  func run() throws(RenderError) -> RenderReport {
    try control.check()
    for choice in settings.streams {
      guard choice.input >= 0, choice.input < input.streamCount else {
        throw .invalidSettings("the input has no stream \(choice.input)")
      }
      guard laneOfStream[choice.input] == nil else {
        throw .invalidSettings("stream \(choice.input) is chosen twice")
      }
      let stream = input.view(choice.input)
      let lane: Lane
      switch choice.action {
      case .copy:
        lane = try CopyLane(stream: stream, pipeline: self, codecTag: choice.codecTag)
      case .encodeVideo(let encoding):
        guard stream.isVideoType else {
          throw .invalidSettings("stream \(choice.input) is not video (\(stream.codecName))")
        }
        lane = try VideoLane(stream: stream, encoding: encoding, settings: settings, pipeline: self)
      case .encodeAudio(let encoding):
        guard stream.isAudio else {
          throw .invalidSettings("stream \(choice.input) is not audio (\(stream.codecName))")
        }
        lane = try AudioLane(stream: stream, encoding: encoding, settings: settings, pipeline: self)
      }
      lanes.append(lane)
      laneOfStream[choice.input] = lane
    }
    // Nothing else is read: the demuxer skips the other streams' packets.
    input.discardAll(except: Set(laneOfStream.keys))
    if settings.keepContainerTags {
      for (key, value) in input.tags.sorted(by: { $0.key < $1.key }) {
        muxer.setMetadata(key, value)
      }
    }
    for chapter in settings.chapters ?? inputChapters() {
      do { try muxer.addChapter(chapter) } catch { throw .muxer("cannot add a chapter", error) }
    }
    do {
      try muxer.writeHeader(options: settings.muxerOptions)
    } catch {
      throw mapWrite(error, doing: "cannot write the \(settings.container) header")
    }
    var readError: FFmpegError?
    reading: while true {
      let next: Demuxer.Next
      do {
        next = try demuxer.next()
      } catch {
        switch error {
        case .interrupted: throw .interrupted
        case .timedOut: throw .timeout(seconds: control.timeout)
        }
      }
      switch next {
      case .packet:
        try control.check()
        try laneOfStream[demuxer.packet.streamIndex]?.take(demuxer.packet)
      case .end:
        break reading
      case .failed(let error):
        readError = error
        break reading
      }
    }
    for lane in lanes {
      try control.check()
      try lane.finish()
    }
    do { try muxer.finish() } catch { throw mapWrite(error, doing: "cannot finish \(name)") }
    return RenderReport(
      streams: lanes.map(\.report), bytesWritten: muxer.bytesWritten, readError: readError)
  }

  /// The input's chapters, moved as its packets are (by its start), as the ffmpeg CLI copies
  /// them; a chapter that would start before 0 starts at 0.
  private func inputChapters() -> [InputChapter] {
    input.chapters.compactMap { chapter in
      let offset = startOffset(in: chapter.timeBase)
      let end = chapter.end - offset
      guard end > 0 else { return nil }
      return InputChapter(
        start: max(0, chapter.start - offset), end: end, timeBase: chapter.timeBase,
        title: chapter.title)
    }
  }

  /// Writes one packet into the output.
  func write(_ packet: Packet, stream index: Int, timeBase: Rational) throws(RenderError) {
    do {
      try muxer.write(packet, stream: index, timeBase: timeBase)
    } catch {
      throw mapWrite(error, doing: "cannot write a packet of stream \(index) into \(name)")
    }
  }

  /// A muxer's error as the render's: a stop (interruption, deadline) as such, a failed write
  /// with its `errno` as the output file's `write_error`, anything else as `muxer_error`.
  func mapWrite(_ error: FFmpegError, doing what: String) -> RenderError {
    if muxer.stopped || error.isExit, let reason = control.stopReason { return reason }
    if let code = muxer.writeFailure {
      return .output(path: name, .write(OutputError(code: code, action: "writing \(name)")))
    }
    return .muxer(what, error)
  }
}

/// One output stream's way through the pipeline.
protocol Lane: AnyObject {
  /// Takes one of its input stream's packets.
  func take(_ packet: Packet) throws(RenderError)
  /// Drains what is left at the end of the input.
  func finish() throws(RenderError)
  /// What it wrote.
  var report: StreamReport { get }
}

/// Stream copy, as the ffmpeg CLI's: packets as they are, timestamps moved by the input's start
/// and converted to the output stream's time base (audio sample-exact: `AudioTimestampRescaler`,
/// its presentation time its decoding time); a video stream starts at its first keyframe.
final class CopyLane: Lane {
  private unowned let pipeline: Pipeline
  private let stream: StreamView
  private let timeBase: Rational
  private let offset: Int64
  private let waitsForKeyframe: Bool
  private var audioTimestamps: AudioTimestampRescaler?
  private var started = false
  private(set) var report: StreamReport

  init(stream: StreamView, pipeline: Pipeline, codecTag: String? = nil) throws(RenderError) {
    self.pipeline = pipeline
    self.stream = stream
    timeBase = stream.timeBase
    offset = pipeline.startOffset(in: stream.timeBase)
    waitsForKeyframe = stream.isVideo
    if stream.isAudio, stream.sampleRate > 0 {
      audioTimestamps = AudioTimestampRescaler(sampleRate: stream.sampleRate)
    }
    let index: Int
    do {
      index = try pipeline.muxer.addStream(copying: stream)
      if let codecTag { try pipeline.muxer.setCodecTag(codecTag, stream: index) }
    } catch {
      throw .muxer("cannot copy stream \(stream.index) (\(stream.codecName))", error)
    }
    report = StreamReport(input: stream.index, output: index, kind: stream.streamType)
  }

  func take(_ packet: Packet) throws(RenderError) {
    report.packetsRead += 1
    if !started {
      guard !waitsForKeyframe || packet.isKeyframe else {
        report.dropped += 1
        return
      }
      started = true
    }
    packet.shiftTimestamps(by: -offset)
    report.packets += 1
    guard var rescaler = audioTimestamps, let dts = packet.dts else {
      try pipeline.write(packet, stream: report.output, timeBase: timeBase)
      return
    }
    let output = pipeline.muxer.timeBase(ofStream: report.output)
    let samples = stream.audioSamples(inPacketOf: packet.bytes.count)
    packet.rescaleTimestamps(from: timeBase, to: output)
    let rescaled = rescaler.rescale(dts, from: timeBase, samples: samples, to: output)
    audioTimestamps = rescaler
    packet.dts = rescaled
    packet.pts = rescaled
    try pipeline.write(packet, stream: report.output, timeBase: output)
  }

  func finish() throws(RenderError) {}
}

/// The stated end of `stream` in its time base, after the pipeline's start offset: where a
/// trim ends it (nil when the container does not state the streams' durations).
private func statedEnd(
  of stream: StreamView, pipeline: Pipeline, settings: RenderSettings
) -> Int64? {
  guard settings.trimToStreamDuration, pipeline.input.durationEstimation == .stream,
    let duration = stream.duration
  else { return nil }
  return (stream.startTime ?? 0) - pipeline.startOffset(in: stream.timeBase) + duration
}

/// Opens `stream`'s decoder.
private func openDecoder(_ stream: StreamView, threads: Int) throws(RenderError) -> CodecDecoder {
  do {
    return try stream.openDecoder(threads: Int32(threads))
  } catch {
    throw .decoder(stream: stream.index, error)
  }
}

/// An encoder's open error as the render's.
private func encoderError(_ error: FFmpegError, name: String) -> RenderError {
  error.isEncoderNotFound ? .encoderNotFound(name, error) : .encoder(name, error)
}

/// Decode -> graph -> encoder for a video stream.
final class VideoLane: Lane {
  private unowned let pipeline: Pipeline
  private let decoder: CodecDecoder
  private let graph: FilterGraph
  private let source: FilterGraph.Source
  private let sink: FilterGraph.Sink
  private let sinkTimeBase: Rational
  private let encoder: CodecEncoder
  private let offset: Int64
  private let constantRate: Bool
  private let decoded = Frame()
  private let filtered = Frame()
  private let encoded = Packet()
  private var lastPTS: Int64?
  private(set) var report: StreamReport

  init(
    stream: StreamView, encoding: VideoEncoding, settings: RenderSettings, pipeline: Pipeline
  ) throws(RenderError) {
    self.pipeline = pipeline
    offset = pipeline.startOffset(in: stream.timeBase)
    decoder = try openDecoder(stream, threads: settings.decoderThreads)
    let index = stream.index
    do {
      graph = try FilterGraph(threads: settings.filterThreads)
      source = try graph.addVideoSource(
        name: "in", decoder.videoParameters(of: stream, frameRate: stream.guessedFrameRate))
      sink = try graph.addVideoSink(name: "out", pixelFormats: [encoding.encoder.pixelFormat])
      var description = encoding.filter
      if let end = statedEnd(of: stream, pipeline: pipeline, settings: settings) {
        description = "trim=end_pts=\(end),\(description)"
      }
      try graph.configure(description)
    } catch {
      throw .filter("cannot build the video graph of stream \(index)", error)
    }
    let delivered = graph.videoParameters(of: sink)
    sinkTimeBase = delivered.timeBase
    var video = encoding.encoder
    video.width = delivered.width
    video.height = delivered.height
    video.sampleAspectRatio = delivered.sampleAspectRatio
    if let rate = delivered.frameRate ?? stream.guessedFrameRate { video.frameRate = rate }
    if encoding.keepSourceColor { video.color = decoder.color }
    switch encoding.timing {
    case .constantFrameRate: constantRate = true
    case .sourceTimestamps:
      constantRate = false
      video.timeBase = delivered.timeBase
    }
    do {
      encoder = try CodecEncoder(video: video, globalHeader: pipeline.muxer.needsGlobalHeader)
    } catch {
      throw encoderError(error, name: video.encoder)
    }
    let output: Int
    do {
      output = try pipeline.muxer.addStream(for: encoder)
      try pipeline.muxer.copyProperties(
        of: stream, to: output, displayMatrix: encoding.keepDisplayMatrix)
    } catch {
      throw .muxer("cannot add the video stream", error)
    }
    report = StreamReport(input: index, output: output, kind: .video, encoder: video.encoder)
  }

  func take(_ packet: Packet) throws(RenderError) {
    report.packetsRead += 1
    packet.shiftTimestamps(by: -offset)
    // Packets with a decoding time but no presentation time (AVI: its index numbers frames in
    // decoding order): the frames leave the decoder in presentation order, and the n-th gets
    // the n-th packet's time, as the ffmpeg CLI's timestamps come out. The decoder's own guess
    // starts late by its reordering delay and gives the frames flushed at the end no time
    // (H.264 with B-frames from AVI: the first frame at 0.08 s, the last two lost).
    if packet.pts == nil, !packet.isEmpty, let dts = packet.dts { untimed.append(dts) }
    try decode(packet)
  }

  /// Decoding times of packets without a presentation time, in order (see `take`).
  private var untimed: [Int64] = []
  private var untimedNext = 0

  private func decode(_ packet: Packet?) throws(RenderError) {
    try decoder.decode(packet, into: decoded, failure: { _ in self.report.decodeErrors += 1 }) {
      (frame: Frame) throws(RenderError) -> Bool in
      if frame.pts == nil, untimedNext < untimed.count {
        frame.pts = untimed[untimedNext]
        untimedNext += 1
      } else {
        frame.pts = frame.bestEffortTimestamp
      }
      try push(frame)
      return true
    }
  }

  /// Pushes `frame` (nil: the end) into the graph and encodes what comes out.
  private func push(_ frame: Frame?) throws(RenderError) {
    do { try graph.push(frame, to: source) } catch {
      throw .filter("the video graph of stream \(report.input) failed", error)
    }
    try drainGraph()
  }

  func finish() throws(RenderError) {
    try decode(nil)
    try push(nil)
    try encode(nil)
  }

  private func drainGraph() throws(RenderError) {
    while true {
      let result: FilterGraph.PullResult
      do { result = try graph.pull(from: sink, into: filtered) } catch {
        throw .filter("the video graph of stream \(report.input) failed", error)
      }
      guard result == .frame else { return }
      try pipeline.control.check()
      filtered.rescaleTimestamps(from: sinkTimeBase, to: encoder.timeBase)
      let pts = filtered.pts ?? (lastPTS ?? -1) + 1
      if constantRate, let lastPTS, pts <= lastPTS {
        report.dropped += 1
        continue
      }
      filtered.pts = pts
      lastPTS = pts
      report.frames += 1
      try encode(filtered)
    }
  }

  private func encode(_ frame: Frame?) throws(RenderError) {
    let name = encoder.name
    try encoder.encode(frame, into: encoded, wrap: { RenderError.encoder(name, $0) }) {
      (packet: Packet) throws(RenderError) in
      report.packets += 1
      try pipeline.write(packet, stream: report.output, timeBase: encoder.timeBase)
    }
  }
}

/// Decode -> graph (converting to the encoder's format) -> frame regrouping -> encoder for an
/// audio stream.
final class AudioLane: Lane {
  private unowned let pipeline: Pipeline
  private let decoder: CodecDecoder
  private let graph: FilterGraph
  private let source: FilterGraph.Source
  private let sink: FilterGraph.Sink
  private let sinkTimeBase: Rational
  private let adapter: AudioFrameAdapter?
  private let encoder: CodecEncoder
  private let offset: Int64
  private let decoded = Frame()
  private let filtered = Frame()
  private let regrouped = Frame()
  private let encoded = Packet()
  private(set) var report: StreamReport

  init(
    stream: StreamView, encoding: AudioEncoding, settings: RenderSettings, pipeline: Pipeline
  ) throws(RenderError) {
    self.pipeline = pipeline
    offset = pipeline.startOffset(in: stream.timeBase)
    let index = stream.index
    decoder = try openDecoder(stream, threads: 1)
    do {
      encoder = try CodecEncoder(
        audio: encoding.encoder, globalHeader: pipeline.muxer.needsGlobalHeader)
    } catch {
      throw encoderError(error, name: encoding.encoder.encoder)
    }
    let wanted = encoder.audioParameters
    do {
      graph = try FilterGraph(threads: settings.filterThreads)
      source = try graph.addAudioSource(name: "in", decoder.audioParameters)
      sink = try graph.addAudioSink(
        name: "out", sampleFormats: [wanted.sampleFormat], sampleRates: [wanted.sampleRate],
        channelLayouts: [wanted.channelLayout],
        frameSize: encoding.regroupInGraph ? encoder.frameSize : nil)
      var description = encoding.filter
      if let end = statedEnd(of: stream, pipeline: pipeline, settings: settings) {
        description = "atrim=end_pts=\(end),\(description)"
      }
      try graph.configure(description)
    } catch {
      throw .filter("cannot build the audio graph of stream \(index)", error)
    }
    sinkTimeBase = graph.timeBase(of: sink)
    if let size = encoder.frameSize, !encoding.regroupInGraph {
      do { adapter = try AudioFrameAdapter(frameSize: size, parameters: wanted) } catch {
        throw .encoder(encoder.name, error)
      }
    } else {
      adapter = nil
    }
    let output: Int
    do {
      output = try pipeline.muxer.addStream(for: encoder)
      try pipeline.muxer.copyProperties(of: stream, to: output, displayMatrix: false)
    } catch {
      throw .muxer("cannot add the audio stream", error)
    }
    report = StreamReport(
      input: index, output: output, kind: .audio, encoder: encoding.encoder.encoder)
  }

  func take(_ packet: Packet) throws(RenderError) {
    report.packetsRead += 1
    packet.shiftTimestamps(by: -offset)
    try decode(packet)
  }

  private func decode(_ packet: Packet?) throws(RenderError) {
    try decoder.decode(packet, into: decoded, failure: { _ in self.report.decodeErrors += 1 }) {
      (frame: Frame) throws(RenderError) -> Bool in
      frame.pts = frame.bestEffortTimestamp
      try push(frame)
      return true
    }
  }

  /// Pushes `frame` (nil: the end) into the graph and encodes what comes out.
  private func push(_ frame: Frame?) throws(RenderError) {
    do { try graph.push(frame, to: source) } catch {
      throw .filter("the audio graph of stream \(report.input) failed", error)
    }
    try drainGraph()
  }

  func finish() throws(RenderError) {
    try decode(nil)
    try push(nil)
    if let adapter {
      while try pull(adapter, flush: true) { try encode(regrouped) }
      report.audioTimestampGap = adapter.largestGap
    }
    try encode(nil)
  }

  private func pull(_ adapter: AudioFrameAdapter, flush: Bool) throws(RenderError) -> Bool {
    do { return try adapter.pull(into: regrouped, flush: flush) } catch {
      throw .encoder(encoder.name, error)
    }
  }

  private func drainGraph() throws(RenderError) {
    while true {
      let result: FilterGraph.PullResult
      do { result = try graph.pull(from: sink, into: filtered) } catch {
        throw .filter("the audio graph of stream \(report.input) failed", error)
      }
      guard result == .frame else { return }
      try pipeline.control.check()
      filtered.rescaleTimestamps(from: sinkTimeBase, to: encoder.timeBase)
      if let adapter {
        do { try adapter.push(filtered, timeBase: encoder.timeBase) } catch {
          throw .encoder(encoder.name, error)
        }
        while try pull(adapter, flush: false) { try encode(regrouped) }
      } else {
        try encode(filtered)
      }
    }
  }

  private func encode(_ frame: Frame?) throws(RenderError) {
    if let frame { report.samples += frame.sampleCount }
    let name = encoder.name
    try encoder.encode(frame, into: encoded, wrap: { RenderError.encoder(name, $0) }) {
      (packet: Packet) throws(RenderError) in
      report.packets += 1
      try pipeline.write(packet, stream: report.output, timeBase: encoder.timeBase)
    }
  }
}
