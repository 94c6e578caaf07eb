import AV
import Composition
import MediaCore
import OutputKit
import Render

#if canImport(Glibc)
  import Glibc
#endif

/// How a composition is encoded: by default H.264 (libx264) and AAC in MP4 with `+faststart`;
/// `videoCodec`/`audioCodec` choose HEVC, VP9 or AV1 and Opus, `container` MP4, QuickTime,
/// WebM, Matroska or audio-only M4A (`OutputContainer.refusal` says which pairs a container
/// takes).
public struct CompositorSettings: Sendable, Equatable {
  /// The video codec (and with it the encoder: `VideoCodecChoice.encoder`).
  public var videoCodec: VideoCodecChoice = .h264
  /// The audio codec.
  public var audioCodec: AudioCodecChoice = .aac
  /// Write a video stream; false writes the audio only (AppleM4A).
  public var video: Bool = true
  /// The constant quality (`crf`); nil: the codec's default (`VideoCodecChoice.defaultCRF`).
  public var crf: Double?
  /// The encoder's speed: libx264's and libx265's preset (`veryfast`), libvpx-vp9's
  /// `cpu-used` (`5`), SVT-AV1's preset number (`10`); nil: those defaults.
  public var speed: String?
  /// The profile (a ceiling for x264; `main` for x265); nil: the encoder's choice. Used for
  /// H.264 and HEVC only.
  public var profile: String? = "high"
  /// The H.264 level to write (`3.1`), when a platform caps it; nil: x264's own choice.
  public var level: String?
  /// A video bit rate in bits per second instead of `crf` (a platform's rate, `--bitrate`,
  /// `--bits-per-pixel`, `--max-size`).
  public var videoBitRate: Int?
  /// With `videoBitRate`: the peak rate (bits per second) of the rate control (VBV); nil: the
  /// bit rate itself.
  public var videoMaxRate: Int?
  /// With `videoBitRate`: the rate control's buffer (VBV) in bits; nil: one second of the rate.
  public var videoBufferSize: Int?
  /// With `videoBitRate`: cap the rate with the VBV (`videoMaxRate`, `videoBufferSize`); false
  /// lets the encoder average the rate over the whole output (`--max-size`: a static picture
  /// then saves bits a busy one spends, as two-pass does).
  public var constrainedRate: Bool = true
  /// The audio bit rate in bits per second.
  public var audioBitRate: Int = 160_000
  /// The audio sample rate.
  public var sampleRate: Int = 48_000
  /// Audio channels (1 or 2).
  public var channels: Int = 2
  /// Encoder, decoder and filter threads (0: one per core, as the ffmpeg CLI).
  public var threads: Int = 0
  /// Run the video self-check before the output gets its name.
  public var check: Bool = true
  /// The self-check's least PSNR (dB) of each segment's middle picture against its source: 30,
  /// the encoder's loss at a quality setting; lower when a bit rate starves the pictures
  /// (`--max-size`, `--bitrate`: `ExportRequest.apply`), where a right picture can measure less.
  public var checkMinimumPSNR: Double = 30
  /// Stop after this many seconds (`timeout`); nil: no limit.
  public var timeout: Double?
  /// The container written (`OutputContainer.muxer`: `mp4`, `mov`, `ipod`, `webm`,
  /// `matroska`).
  public var container: String = "mp4"
  /// The chapters to write instead of the plan's markers (a whole-clip merge moves its clips'
  /// own chapters); nil: the markers.
  public var chapters: [CompositorChapter]?
  /// With `videoBitRate` and H.264: a pass of libx264's two-pass rate control and its
  /// statistics file (`--max-size`); nil: one pass. Ignored for the other codecs.
  package var ratePass: EncoderSettings.RatePass?

  /// The speed setting in force: `speed`, or libx264's and libx265's `veryfast`, libvpx-vp9's
  /// `cpu-used` 5, SVT-AV1's preset 10.
  public var preset: String {
    get {
      speed
        ?? {
          switch videoCodec {
          case .h264, .hevc: "veryfast"
          case .vp9: "5"
          case .av1: "10"
          }
        }()
    }
    set { speed = newValue }
  }

  /// The muxer's options for `container`: `movflags +faststart` for the ISO BMFF muxers.
  var muxerOptions: [String: String] {
    ["mp4", "mov", "ipod"].contains(container) ? ["movflags": "+faststart"] : [:]
  }

  /// The defaults: libx264 veryfast CRF 20 High, AAC 160 kbit/s 48 kHz stereo, MP4, checked.
  public init() {}
}

/// A chapter of the output, on the composition's timeline.
public struct CompositorChapter: Sendable, Equatable {
  /// Where it starts.
  public var start: MediaTime
  /// Where it ends.
  public var end: MediaTime
  /// Its title.
  public var title: String

  /// A chapter from `start` to `end`.
  public init(start: MediaTime, end: MediaTime, title: String) {
    self.start = start
    self.end = end
    self.title = title
  }
}

/// What a render wrote, for the JSON report.
public struct CompositionRenderReport: Codable, Sendable, Equatable {
  /// The planned length.
  public var duration: MediaTime
  /// Video frames encoded.
  public var frames: Int64
  /// Audio samples encoded (per channel).
  public var samples: Int64
  /// The video encoding.
  public var video: VideoSettingsReport
  /// The audio encoding.
  public var audio: AudioSettingsReport
  /// Audio samples that left [-1, 1] after summing (counted, never hidden).
  public var clippedSamples: Int64
  /// The most sources open at once (video pictures; the audio mixer opens its own).
  public var maxOpenSources: Int
  /// Pictures the decoders could not decode.
  public var decodeErrors: Int
  /// Bytes written.
  public var bytes: Int64
  /// Seconds spent rendering (decoding, compositing, encoding, muxing).
  public var renderSeconds: Double
  /// The self-check; nil when it was not run.
  @NullEncoded public var check: VideoCheckReport?
  /// Seconds of the render's own thread in each stage (decoding, placing, blending, video
  /// encoding and muxing, audio); the codecs' worker threads are not in them. A pass that
  /// replays a `PassMemory` counts reading the pictures back as decoding and muxing the kept
  /// audio packets as audio.
  public var stages: Stages

  /// Seconds per stage.
  public struct Stages: Codable, Sendable, Equatable {
    /// Demuxing and decoding the sources.
    public var decode: Double
    /// Putting pictures on the canvas.
    public var place: Double
    /// Transitions.
    public var blend: Double
    /// Video encoding (the frames handed to libx264, its packets muxed).
    public var encodeVideo: Double
    /// The mixed audio pulled and encoded.
    public var audio: Double
  }

  /// The video settings as written.
  public struct VideoSettingsReport: Codable, Sendable, Equatable {
    /// The encoder (FFmpeg's name).
    public var encoder: String
    /// The encoder's speed setting (libx264's preset, `cpu-used 5`, SVT-AV1's preset).
    public var preset: String
    /// libx264's constant quality (null when a bit rate is set).
    @NullEncoded public var crf: Double?
    /// The bit rate aimed for, bits per second (null: constant quality).
    @NullEncoded public var bitRate: Int?
    /// The profile asked for (a ceiling for x264; null for VP9 and AV1).
    @NullEncoded public var profile: String?
    /// The H.264 level written (null: x264's choice).
    @NullEncoded public var level: String?
    /// The pixel format.
    public var pixelFormat: String
    /// The picture width.
    public var width: Int
    /// The picture height.
    public var height: Int
    /// The frame rate.
    public var frameRate: Rational
    /// The matrix, primaries, transfer and range the output states (null: not stated).
    @NullEncoded public var colorMatrix: String?
    /// The primaries stated (null: none).
    @NullEncoded public var colorPrimaries: String?
    /// The transfer stated (null: none).
    @NullEncoded public var colorTransfer: String?
    /// The range stated (`tv`; null: none).
    @NullEncoded public var colorRange: String?
  }

  /// The audio settings as written.
  public struct AudioSettingsReport: Codable, Sendable, Equatable {
    /// The encoder (FFmpeg's name).
    public var encoder: String
    /// The sample rate.
    public var sampleRate: Int
    /// The channel count.
    public var channels: Int
    /// The bit rate asked for, in bits per second.
    public var bitRate: Int
  }
}

/// Renders a `CompositionPlan` in-process into an MP4: every output frame on the render's grid
/// (`render.frameRate`) is the picture of the segment on screen at that time, or the blend of
/// the two segments of a transition; the audio comes from `CompositionAudio`; H.264 and AAC are
/// muxed into an `OutputFile` with `+faststart`; then the video self-check runs, and only then
/// may the caller commit the file.
///
/// Sources open lazily: a segment's file is opened at its first frame and closed after its last,
/// so at most the segments on screen at one time (two, in a transition) hold a file open, and
/// memory does not grow with the composition's length. Each segment's picture path is its own
/// small graph (upright, scale to the planned rectangle with the colour conversion, crop, pad on
/// the background); each transition is an `xfade` graph over its window.
public enum Compositor {
  /// Renders `plan` into `output` (not committed) and checks it.
  ///
  /// - Parameters:
  ///   - name: the output's name for messages.
  ///   - progress: called with the composition time rendered so far, in seconds.
  /// - Throws: `CompositorError`; `output` is then incomplete and must not be committed.
  public static func render(
    _ plan: CompositionPlan, into output: OutputFile, name: String,
    settings: CompositorSettings = CompositorSettings(),
    progress: (Double) -> Void = { _ in }
  ) throws(CompositorError) -> CompositionRenderReport {
    let pass = try renderPass(
      plan, into: output, name: name, settings: settings, progress: progress)
    return try check(pass, plan: plan, output: output, settings: settings)
  }

  /// Renders `plan` into `output` (not committed) without the self-check: what a pass of
  /// `--max-size` does, so that only the pass that is kept is checked (`check(_:...)`).
  ///
  /// - Parameter memory: with a `PassMemory`, the first pass keeps the pictures it hands to the
  ///   encoder and the audio packets it writes, and a later pass replays them instead of
  ///   decoding and compositing the sources again (nil: render from the sources).
  /// - Throws: `CompositorError`; `output` is then incomplete and must not be committed.
  package static func renderPass(
    _ plan: CompositionPlan, into output: OutputFile, name: String,
    settings: CompositorSettings, memory: PassMemory? = nil,
    progress: (Double) -> Void = { _ in }
  ) throws(CompositorError) -> RenderedPass {
    let started = MonotonicClock.seconds()
    let deadline = settings.timeout.map { started + $0 }
    let stopReason = Self.stopReason(deadline: deadline, timeout: settings.timeout)
    let shouldStop: @Sendable () -> Bool = {
      Interruption.isRequested || deadline.map { MonotonicClock.seconds() >= $0 } ?? false
    }
    let replay = memory?.canReplay == true ? memory : nil
    var renderer = try Renderer(
      plan: plan, output: output, name: name, settings: settings, shouldStop: shouldStop,
      replay: replay, record: replay == nil ? memory : nil)
    try renderer.run(stopReason: stopReason, progress: progress)
    let renderSeconds = MonotonicClock.seconds() - started
    let report = renderer.report(renderSeconds: renderSeconds)
    let pending: PendingCheck? =
      settings.check
      ? PendingCheck(
        canvas: renderer.canvas, frameCount: renderer.frameCount,
        references: replay?.references ?? renderer.references,
        damaged: replay?.damaged ?? renderer.damagedSegments,
        levels: replay != nil ? replay?.levels : renderer.levels)
      : nil
    return RenderedPass(
      report: report, videoBytes: renderer.counters.videoBytes, replayed: replay != nil,
      pending: pending, deadline: deadline)
  }

  /// What stops a render: an interruption, or `deadline` passing.
  static func stopReason(deadline: Double?, timeout: Double?) -> () -> CompositorError? {
    {
      if Interruption.isRequested { return .render(.interrupted) }
      if let deadline, MonotonicClock.seconds() >= deadline {
        return .render(.timeout(seconds: timeout))
      }
      return nil
    }
  }

  /// Runs the self-check on a pass `renderPass` wrote into `output` (the video's length and
  /// pictures against the ones the render put aside, the audio's levels) and returns the pass's
  /// report with it; the report as it is when `settings.check` is off.
  ///
  /// - Throws: `CompositorError.checkFailed`, or what reading the output throws.
  package static func check(
    _ pass: RenderedPass, plan: CompositionPlan, output: OutputFile,
    settings: CompositorSettings
  ) throws(CompositorError) -> CompositionRenderReport {
    var report = pass.report
    guard let pending = pass.pending else { return report }
    let stopReason = Self.stopReason(deadline: pass.deadline, timeout: settings.timeout)
    if settings.check {
      var checked: VideoCheckReport
      if settings.video {
        checked = try VideoCheck.run(
          plan: plan, output: output, canvas: pending.canvas, frames: pending.frameCount,
          references: pending.references, damaged: pending.damaged,
          decoderThreads: settings.threads, minimumPSNR: settings.checkMinimumPSNR,
          stopReason: stopReason)
      } else {
        // Audio only (AppleM4A): no pictures to compare, the sound is checked below.
        checked = VideoCheckReport(
          passed: true, frames: 0, plannedFrames: 0, durationSeconds: 0,
          plannedSeconds: plan.duration.seconds, minimumPSNR: 0, segments: [], failures: [],
          seconds: 0)
      }
      let audioStarted = MonotonicClock.seconds()
      let tolerance =
        settings.video || settings.audioCodec != .aac
        ? 1
        : AudioSelfCheck.toleranceDB(
          encodedAt: report.audio.bitRate, asked: settings.audioBitRate,
          sampleRate: settings.sampleRate, channels: settings.channels)
      let audio = try AudioSelfCheck.check(
        plan: plan, sampleRate: settings.sampleRate, channelCount: settings.channels,
        output: "/proc/self/fd/\(output.fd)", toleranceDB: tolerance, rendered: pending.levels)
      if let stop = stopReason() { throw stop }
      checked.audio = audio
      checked.seconds += MonotonicClock.seconds() - audioStarted
      for window in audio.windows where !window.ok {
        checked.failures.append(
          "audio at \(fixed(window.time, places: 3)) s (\(window.at)): "
            + "\(window.measuredDB.map { fixed($0, places: 1) } ?? "silent") dB, the plan "
            + "\(window.expectedDB.map { fixed($0, places: 1) } ?? "silent") dB")
      }
      checked.passed = checked.failures.isEmpty
      report.check = checked
      if !checked.passed { throw .checkFailed(checked.failures.joined(separator: "; ")) }
    }
    return report
  }

  /// Renders `plan` to the file at `path` atomically: written unnamed, checked, then linked
  /// into place (replacing a regular file only with `overwrite`). Nothing is left on failure.
  public static func render(
    _ plan: CompositionPlan, to path: String, overwrite: Bool = false, sync: Bool = true,
    settings: CompositorSettings = CompositorSettings(), progress: (Double) -> Void = { _ in }
  ) throws(CompositorError) -> CompositionRenderReport {
    let output: OutputFile
    do {
      output = try OutputFile(.file(path: path, overwrite: overwrite), sync: sync)
    } catch {
      throw .render(.output(path: path, error))
    }
    let report = try render(
      plan, into: output, name: path, settings: settings, progress: progress)
    do { try output.commit() } catch { throw .render(.output(path: path, error)) }
    return report
  }

  /// The colour plan of `plan`'s sources, from their tags (read from each file's headers, one
  /// at a time).
  static func colorPlan(_ plan: CompositionPlan) -> ColorPlan {
    var tags: [ColorTags] = []
    var seen: Set<String> = []
    for segment in plan.segments {
      guard let path = segment.path, segment.kind != .gap, seen.insert(path).inserted else {
        continue
      }
      var file = path
      if segment.kind == .sequence {
        guard let first = (try? ImageSequence.files(path))??.first else { continue }
        file = first
      }
      guard let input = try? openSource(file), let stream = videoStream(of: input) else {
        continue
      }
      if let decoder = try? stream.openDecoder(threads: 1) {
        let format = decoder.videoParameters(of: stream, frameRate: nil).pixelFormat
        if format.name.hasPrefix("rgb") || format.name.hasPrefix("bgr")
          || format.name.hasPrefix("gbr") || format.name.hasPrefix("pal")
        {
          continue  // R'G'B' pictures state no Y'CbCr matrix: converted into the output's
        }
        tags.append(decoder.color)
      }
    }
    return ColorPlan.decide(tags)
  }
}

/// One render's state.
struct Renderer {
  let plan: CompositionPlan
  let canvas: Canvas
  let muxer: Muxer
  let name: String
  let settings: CompositorSettings
  /// The video encoder; nil when the output is audio only.
  let videoEncoder: CodecEncoder?
  let audioEncoder: CodecEncoder
  let videoStream: Int
  let audioStream: Int
  /// The mixer (nil when a pass replays the audio packets of the one it remembers).
  let audio: CompositionAudio?
  /// The pass whose pictures and audio packets this one replays (nil: rendered from sources).
  let replay: PassMemory?
  /// Where this pass keeps its pictures and audio packets for a later one (nil: nowhere).
  let record: PassMemory?
  /// Bytes of the video packets written.
  let counters = PassCounters()
  /// The levels of the mix as it is encoded, in the audio self-check's windows (nil: no check).
  var levels: AudioLevelRecorder?
  /// The video self-check's reference pictures, put aside as they are encoded (nil: no check).
  let references: CheckReferences?
  /// The composition's own looks on every finished picture (nil: none).
  let looks: LookStage?
  /// The composition's overlays on every finished picture, after the looks (nil: none).
  let overlays: OverlayStage?
  let background: Frame
  let frameCount: Int64
  private(set) var samples: Int64 = 0
  private(set) var maxOpen = 0
  private(set) var decodeErrors = 0
  /// The segments whose source gave decoding errors (by segment index).
  private(set) var damagedSegments: Set<Int> = []
  let stages = StageTimes()

  init(
    plan: CompositionPlan, output: OutputFile, name: String, settings: CompositorSettings,
    shouldStop: @escaping @Sendable () -> Bool, replay: PassMemory? = nil,
    record: PassMemory? = nil
  ) throws(CompositorError) {
    self.plan = plan
    self.name = name
    self.settings = settings
    self.replay = replay
    self.record = record
    let render = plan.render
    canvas = Canvas(
      width: render.width, height: render.height, frameRate: render.frameRate,
      background: render.background, colors: Compositor.colorPlan(plan),
      filterThreads: settings.threads)
    frameCount = max(1, plan.duration.units(atRate: render.frameRate))
    do {
      muxer = try Muxer(
        format: settings.container, output: output, name: name, shouldStop: shouldStop)
    } catch {
      throw .render(.muxer("cannot write \(settings.container) (\(name))", error))
    }
    let video = settings.videoEncoderSettings(
      width: render.width, height: render.height, frameRate: render.frameRate,
      color: canvas.colors.output)
    let audioSettings = settings.audioEncoderSettings
    if settings.video {
      if settings.videoCodec == .av1 { VideoCodecChoice.quietEncoderLog() }
      do {
        videoEncoder = try CodecEncoder(video: video, globalHeader: muxer.needsGlobalHeader)
      } catch {
        throw .render(
          error.isEncoderNotFound
            ? .encoderNotFound(video.encoder, error) : .encoder(video.encoder, error))
      }
    } else {
      videoEncoder = nil
    }
    do {
      audioEncoder = try CodecEncoder(audio: audioSettings, globalHeader: muxer.needsGlobalHeader)
    } catch {
      throw .render(
        error.isEncoderNotFound
          ? .encoderNotFound(audioSettings.encoder, error)
          : .encoder(audioSettings.encoder, error))
    }
    do {
      if let videoEncoder {
        videoStream = try muxer.addStream(for: videoEncoder)
        // libavformat writes HEVC as `hev1`; QuickTime plays only `hvc1` (parameter sets in
        // the sample entry, which is where the global header puts them).
        if settings.videoCodec == .hevc, ["mp4", "mov"].contains(settings.container) {
          try muxer.setCodecTag("hvc1", stream: videoStream)
        }
      } else {
        videoStream = -1
      }
      audioStream = try muxer.addStream(for: audioEncoder)
      let chapters =
        settings.chapters.map { list in
          list.map { Self.chapter(from: $0.start, to: $0.end, title: $0.title) }
        } ?? Self.chapters(plan)
      for chapter in chapters { try muxer.addChapter(chapter) }
    } catch {
      throw .render(.muxer("cannot add the streams", error))
    }
    audio =
      replay == nil
      ? try CompositionAudio(
        plan: plan, sampleRate: settings.sampleRate, channelCount: settings.channels) : nil
    if settings.check, replay == nil {
      let (windows, length) = try AudioSelfCheck.windows(
        plan: plan, sampleRate: settings.sampleRate, channelCount: settings.channels)
      levels = AudioLevelRecorder(
        windows: windows, length: length, channelCount: settings.channels)
      references = settings.video ? CheckReferences(plan: plan, frames: frameCount) : nil
    } else {
      references = nil
    }
    background = try canvas.backgroundPicture()
    if let list = plan.looks, !list.isEmpty {
      looks = try LookStage(looks: list, canvas: canvas)
    } else {
      looks = nil
    }
    if let list = plan.overlays, !list.isEmpty {
      overlays = try OverlayStage(overlays: list, canvas: canvas)
    } else {
      overlays = nil
    }
  }

  /// The markers as chapters: each from its time to the next marker's (the last to the end),
  /// exact in a time base that holds both ends.
  static func chapters(_ plan: CompositionPlan) -> [InputChapter] {
    var markers = plan.markers.sorted { $0.time < $1.time }.map { (name: $0.name, time: $0.time) }
    // An MP4 chapter track covers the timeline from 0: before the first marker, a chapter named
    // after the first clip's source (as mediamerge names a clip without chapters).
    if let first = markers.first, first.time > .zero {
      let source = plan.segments.first?.source ?? "start"
      let name = source.split(separator: "/").last.map(String.init) ?? source
      markers.insert((name, .zero), at: 0)
    }
    return markers.enumerated().compactMap { index, marker in
      let end = index + 1 < markers.count ? markers[index + 1].time : plan.duration
      guard marker.time < end else { return nil }
      return chapter(from: marker.time, to: end, title: marker.name)
    }
  }

  /// A chapter from `start` to `end`, exact in a time base that holds both.
  static func chapter(from start: MediaTime, to end: MediaTime, title: String) -> InputChapter {
    let divisor = Rational.gcd(start.timescale, end.timescale)
    let (scale, overflow) = (start.timescale / max(divisor, 1))
      .multipliedReportingOverflow(by: end.timescale)
    let timescale = overflow ? 1_000_000 : scale
    func ticks(_ time: MediaTime) -> Int64 {
      overflow
        ? time.units(atRate: Rational(1_000_000, 1)!) : time.value * (timescale / time.timescale)
    }
    return InputChapter(
      start: ticks(start), end: ticks(end), timeBase: Rational(1, timescale)!, title: title)
  }

  mutating func run(stopReason: () -> CompositorError?, progress: (Double) -> Void)
    throws(CompositorError)
  {
    do {
      try muxer.writeHeader(options: settings.muxerOptions)
    } catch {
      throw mapWrite(
        error, stopReason: stopReason, doing: "cannot write the \(settings.container) header")
    }
    if let replay {
      try runReplay(replay, stopReason: stopReason, progress: progress)
      return
    }
    record?.start(frames: frameCount, width: canvas.width, height: canvas.height)
    if videoEncoder == nil {
      // Audio only: the mix, no pictures.
      let packet = Packet()
      try encodeAudio(until: Int64.max, packet: packet, stopReason: stopReason)
      try flushAudio(packet: packet, stopReason: stopReason)
      do { try muxer.finish() } catch {
        throw mapWrite(error, stopReason: stopReason, doing: "cannot finish \(name)")
      }
      progress(plan.duration.seconds)
      return
    }
    let rate = plan.render.frameRate
    let doubleRate = Rational(rate.num * 2, rate.den)!
    let segments = plan.segments.sorted { $0.compositionRange.start < $1.compositionRange.start }
    var next = 0
    var open: [SegmentPictures] = []
    var blends: [Int: Blend] = [:]  // by the entering segment's index
    let transitionInto = Dictionary(
      plan.transitions.map { ($0.to, $0) }, uniquingKeysWith: { first, _ in first })
    let packet = Packet()
    for index in 0..<frameCount {
      if let reason = stopReason() { throw reason }
      let time = MediaTime(units: index, rate: rate)
      // A frame shows the segments on screen for most of its duration: those at the middle of
      // its interval (so a segment starts at the grid frame nearest to its start, as whole-clip
      // merges count frames at each clip's end, and rounding never accumulates).
      let middle = MediaTime(units: 2 * index + 1, rate: doubleRate)
      // Open the segments that have begun; close those that have ended.
      while next < segments.count, segments[next].compositionRange.start <= middle {
        let segment = segments[next]
        next += 1
        guard segment.compositionRange.end > middle else { continue }
        let pictures = SegmentPictures(
          segment: segment, canvas: canvas, decoderThreads: settings.threads,
          background: background)
        pictures.stages = stages
        open.append(pictures)
      }
      for finished in open where finished.segment.compositionRange.end <= middle {
        decodeErrors += finished.decodeErrors
        if finished.decodeErrors > 0 { damagedSegments.insert(finished.segment.index) }
        finished.close()
        blends[finished.segment.index + 1] = nil
      }
      open.removeAll { $0.segment.compositionRange.end <= middle }
      maxOpen = max(maxOpen, open.filter { $0.segment.kind != .gap }.count)
      var picture: Frame
      switch open.count {
      case 0:
        picture = background
      case 1:
        picture = try open[0].picture(at: time)
      default:
        let (a, b) = (open[open.count - 2], open[open.count - 1])
        let pa = try a.picture(at: time)
        let pb = try b.picture(at: time)
        if let transition = transitionInto[b.segment.index] {
          let blend =
            blends[b.segment.index]
            ?? Blend(transition: transition, canvas: canvas, background: background)
          blends[b.segment.index] = blend
          let blendStart = MonotonicClock.seconds()
          picture = try blend.picture(pa, pb, at: time)
          stages.blend += MonotonicClock.seconds() - blendStart
        } else {
          picture = pb
        }
      }
      if let looks { picture = try looks.apply(picture, time: time) }
      if let overlays { picture = try overlays.apply(picture, frame: index) }
      references?.keep(picture, frame: index)
      record?.keep(picture)
      picture.pts = index
      let encodeStart = MonotonicClock.seconds()
      try encodeVideo(picture, packet: packet, stopReason: stopReason)
      let audioStart = MonotonicClock.seconds()
      stages.encodeVideo += audioStart - encodeStart
      // The audio up to the end of this frame.
      let audioEnd = MediaTime(units: index + 1, rate: rate).units(
        atRate: Rational(Int64(settings.sampleRate), 1)!)
      try encodeAudio(until: audioEnd, packet: packet, stopReason: stopReason)
      stages.audio += MonotonicClock.seconds() - audioStart
      progress(time.seconds)
    }
    for segment in open {
      decodeErrors += segment.decodeErrors
      if segment.decodeErrors > 0 { damagedSegments.insert(segment.segment.index) }
      segment.close()
    }
    try encodeAudio(until: Int64.max, packet: packet, stopReason: stopReason)
    try encodeVideo(nil, packet: packet, stopReason: stopReason)
    try flushAudio(packet: packet, stopReason: stopReason)
    do { try muxer.finish() } catch {
      throw mapWrite(error, stopReason: stopReason, doing: "cannot finish \(name)")
    }
    record?.finish(
      references: references, levels: levels, damaged: damagedSegments,
      decodeErrors: decodeErrors, maxOpen: maxOpen, samples: samples,
      clippedSamples: audio?.clippedSamples ?? 0)
    progress(plan.duration.seconds)
  }

  /// A pass that replays `memory`: the pictures the remembered pass handed to the encoder, read
  /// back in order and encoded again (at this pass's rate), and its audio packets muxed as they
  /// were; no source is opened.
  private mutating func runReplay(
    _ memory: PassMemory, stopReason: () -> CompositorError?, progress: (Double) -> Void
  ) throws(CompositorError) {
    samples = memory.samples
    maxOpen = memory.maxOpen
    decodeErrors = memory.decodeErrors
    damagedSegments = memory.damaged
    let rate = plan.render.frameRate
    let packet = Packet()
    let picture: Frame
    do {
      picture = try Frame.video(
        width: canvas.width, height: canvas.height, pixelFormat: .yuv420p,
        color: memory.pictureColor)
    } catch {
      throw .render(.encoder(videoEncoder?.name ?? "video", error))
    }
    picture.sampleAspectRatio = memory.pictureAspect
    var nextAudio = 0
    let audioPackets = memory.audioPackets
    func writeAudio(before end: Int64?) throws(CompositorError) {
      while nextAudio < audioPackets.count {
        let kept = audioPackets[nextAudio]
        if let end, let pts = kept.pts, pts >= end { return }
        let copy = Packet()
        guard copy.reference(kept) else {
          throw .render(.encoder(audioEncoder.name, .posix(ENOMEM)))
        }
        try write(
          copy, stream: audioStream, timeBase: audioEncoder.timeBase, stopReason: stopReason)
        nextAudio += 1
      }
    }
    for index in 0..<frameCount {
      if let reason = stopReason() { throw reason }
      let readStart = MonotonicClock.seconds()
      do { try picture.makeWritable() } catch {
        throw .render(.encoder(videoEncoder?.name ?? "video", error))
      }
      if let code = memory.read(frame: index, into: picture) {
        throw .render(
          .output(
            path: name,
            .write(OutputError(code: code, action: "reading back the first pass's pictures"))))
      }
      picture.pts = index
      let encodeStart = MonotonicClock.seconds()
      stages.decode += encodeStart - readStart
      try encodeVideo(picture, packet: packet, stopReason: stopReason)
      let audioStart = MonotonicClock.seconds()
      stages.encodeVideo += audioStart - encodeStart
      try writeAudio(
        before: MediaTime(units: index + 1, rate: rate).units(
          atRate: Rational(Int64(settings.sampleRate), 1)!))
      stages.audio += MonotonicClock.seconds() - audioStart
      progress(MediaTime(units: index, rate: rate).seconds)
    }
    try encodeVideo(nil, packet: packet, stopReason: stopReason)
    try writeAudio(before: nil)
    do { try muxer.finish() } catch {
      throw mapWrite(error, stopReason: stopReason, doing: "cannot finish \(name)")
    }
    progress(plan.duration.seconds)
  }

  private func encodeVideo(
    _ frame: Frame?, packet: Packet, stopReason: () -> CompositorError?
  ) throws(CompositorError) {
    guard let encoder = videoEncoder else { return }
    try encoder.encode(
      frame, into: packet, wrap: { CompositorError.render(.encoder(encoder.name, $0)) }
    ) { (packet: Packet) throws(CompositorError) in
      try write(packet, stream: videoStream, timeBase: encoder.timeBase, stopReason: stopReason)
    }
  }

  private mutating func encodeAudio(
    until end: Int64, packet: Packet, stopReason: () -> CompositorError?
  ) throws(CompositorError) {
    let frameSize = audioEncoder.frameSize ?? 1024
    while samples < end {
      guard let audio, let block = try audio.next(maxSamples: frameSize) else { return }
      let count = block.channels.first?.count ?? 0
      guard count > 0 else { return }
      levels?.record(block)
      let frame =
        settings.audioCodec == .opus
        ? try block.interleavedFrame(sampleRate: settings.sampleRate)
        : try block.frame(sampleRate: settings.sampleRate)
      samples = block.start + Int64(count)
      let encoder = audioEncoder
      try encoder.encode(
        frame, into: packet, wrap: { CompositorError.render(.encoder(encoder.name, $0)) }
      ) { (packet: Packet) throws(CompositorError) in
        try write(packet, stream: audioStream, timeBase: encoder.timeBase, stopReason: stopReason)
      }
    }
  }

  private func flushAudio(packet: Packet, stopReason: () -> CompositorError?)
    throws(CompositorError)
  {
    let encoder = audioEncoder
    try encoder.encode(
      nil, into: packet, wrap: { CompositorError.render(.encoder(encoder.name, $0)) }
    ) { (packet: Packet) throws(CompositorError) in
      try write(packet, stream: audioStream, timeBase: encoder.timeBase, stopReason: stopReason)
    }
  }

  private func write(
    _ packet: Packet, stream: Int, timeBase: Rational, stopReason: () -> CompositorError?
  ) throws(CompositorError) {
    if stream == videoStream {
      counters.videoBytes += Int64(packet.bytes.count)
    } else if let record, replay == nil {
      record.keep(audio: packet)
    }
    do {
      try muxer.write(packet, stream: stream, timeBase: timeBase)
    } catch {
      throw mapWrite(error, stopReason: stopReason, doing: "cannot write a packet into \(name)")
    }
  }

  /// A muxer's error as the render's: a stop as such, a failed write with its `errno` as the
  /// output's `write_error`, anything else as `muxer_error`.
  private func mapWrite(
    _ error: FFmpegError, stopReason: () -> CompositorError?, doing what: String
  ) -> CompositorError {
    if muxer.stopped || error.isExit, let reason = stopReason() { return reason }
    if let code = muxer.writeFailure {
      return .render(
        .output(path: name, .write(OutputError(code: code, action: "writing \(name)"))))
    }
    return .render(.muxer(what, error))
  }

  func report(renderSeconds: Double) -> CompositionRenderReport {
    let tags = canvas.colors.output
    func stated(_ name: String) -> String? { name == "unknown" ? nil : name }
    return CompositionRenderReport(
      duration: plan.duration, frames: frameCount, samples: samples,
      video: .init(
        encoder: settings.video ? settings.videoCodec.encoder : "none",
        preset: settings.speedDescription,
        crf: settings.videoBitRate == nil
          ? (settings.crf ?? settings.videoCodec.defaultCRF) : nil,
        bitRate: settings.videoBitRate,
        profile: [.h264, .hevc].contains(settings.videoCodec) ? settings.profile : nil,
        level: settings.videoCodec == .h264 ? settings.level : nil,
        pixelFormat: "yuv420p", width: canvas.width, height: canvas.height,
        frameRate: canvas.frameRate,
        colorMatrix: tags.matrix == .unspecified ? nil : tags.matrix.name,
        colorPrimaries: tags.primaries == .unspecified ? nil : tags.primaries.name,
        colorTransfer: tags.transfer == .unspecified ? nil : tags.transfer.name,
        colorRange: tags.range == .limited ? "tv" : nil),
      audio: .init(
        encoder: settings.audioCodec.encoder, sampleRate: settings.sampleRate,
        channels: settings.channels,
        bitRate: settings.audioBitRate),
      clippedSamples: replay?.clippedSamples ?? audio?.clippedSamples ?? 0, maxOpenSources: maxOpen,
      decodeErrors: decodeErrors,
      bytes: muxer.bytesWritten, renderSeconds: renderSeconds, check: nil,
      stages: .init(
        decode: stages.decode, place: stages.place, blend: stages.blend,
        encodeVideo: stages.encodeVideo, audio: stages.audio))
  }
}
