import AV
import Compatibility
import Composition
import Compositor
import MediaCore
import MediaProbe
import OutputKit
import Render

/// What the user asked of the output's encoding (`--preset`, `--video-codec`, `--audio-codec`,
/// `--crf`, `--bitrate`, `--bits-per-pixel`, `--max-size`), for whole-clip merges and
/// composition documents alike. Explicit options override the preset's values; a platform's
/// recipe (`--platform`) supplies profile, level and rates that nothing else set.
public struct ExportRequest: Sendable, Equatable {
  /// `--preset`: an AVAssetExportSession preset (`ExportPreset`).
  package var preset: ExportPreset?
  /// `--video-codec`.
  public var videoCodec: VideoCodecChoice?
  /// `--audio-codec`.
  public var audioCodec: AudioCodecChoice?
  /// `--crf`: constant quality on the encoder's scale.
  public var crf: Int?
  /// `--bitrate`: the video's bit rate in bits per second.
  public var bitRate: Int?
  /// `--bits-per-pixel`: the video's bit rate as bits per pixel per frame (the recording
  /// post's rule, `ExportSizing.bitRate`).
  public var bitsPerPixel: Double?
  /// `--max-size`: the output's cap in bytes (`SizeBudget`).
  public var maxBytes: Int64?

  /// Nothing asked: the defaults.
  public init() {}

  /// The self-check's least PSNR when the user sets the rate (dB).
  public static let starvedCheckPSNR = 12.0

  /// Sets the preset from its name (`1920x1080`, `AVAssetExportPresetHEVCHighestQuality`, ...);
  /// false when no preset has that name.
  public mutating func setPreset(named name: String) -> Bool {
    guard let preset = ExportPreset(name: name) else { return false }
    self.preset = preset
    return true
  }

  /// Every preset's short name and AVFoundation constant, for help and completions.
  public static var presetNames: [String] { ExportPreset.allCases.map(\.rawValue) }

  /// A size cap: `8MB` (10^6 bytes), `8MiB` (2^20), `500kB`/`500KiB`, `1.5GB`, or bytes; nil
  /// otherwise (`ExportSizing.parseSize`).
  public static func parseSize(_ text: String) -> Int64? { ExportSizing.parseSize(text) }

  /// `--preset passthrough`: every stream copied where the plan allows it.
  public var passthrough: Bool { preset == .passthrough }

  /// Anything asks for the video to be encoded (a copy cannot honour a codec, a quality, a
  /// rate, a size or a preset other than passthrough).
  public var asksForEncode: Bool {
    videoCodec != nil || crf != nil || bitRate != nil || bitsPerPixel != nil || maxBytes != nil
      || (preset != nil && preset != .passthrough && preset != .appleM4A)
  }

  /// The reason a copy is not made, for the plan's copy blockers (nil: none).
  public var copyBlockReason: String? {
    guard asksForEncode else { return nil }
    var asked: [String] = []
    if let preset, preset != .passthrough { asked.append("--preset \(preset.rawValue)") }
    if let videoCodec { asked.append("--video-codec \(videoCodec.rawValue)") }
    if let crf { asked.append("--crf \(crf)") }
    if let bitRate { asked.append("--bitrate \(bitRate)") }
    if let bitsPerPixel { asked.append("--bits-per-pixel \(bitsPerPixel)") }
    if let maxBytes { asked.append("--max-size \(maxBytes)") }
    return asked.joined(separator: ", ") + " asks for an encode"
  }

  /// The video codec written into `container` (nil: no video, `.m4a`).
  public func videoCodec(for container: OutputContainer) -> VideoCodecChoice? {
    guard !container.videoCodecs.isEmpty, preset != .appleM4A else { return nil }
    if let videoCodec { return videoCodec }
    if let encoder = preset?.settings.video?.encoder, encoder == "libx265" { return .hevc }
    return container.defaultCodecs.video
  }

  /// The audio codec written into `container`.
  public func audioCodec(for container: OutputContainer) -> AudioCodecChoice {
    audioCodec ?? container.defaultCodecs.audio
  }

  /// Why this request cannot be written into `container` (`unsupported_encoding`): a codec the
  /// container does not take, an audio-only preset into a movie, a video codec asked of an
  /// audio-only file; nil when it can.
  public func refusal(container: OutputContainer) -> String? {
    if preset == .appleM4A, container != .m4a {
      return "--preset m4a writes audio-only MPEG-4: name the output .m4a"
    }
    if container == .m4a, videoCodec != nil {
      return "a .m4a file holds audio only (no --video-codec)"
    }
    if let preset, preset.settings.video != nil, container == .m4a {
      return "--preset \(preset.rawValue) writes a movie: a .m4a file holds audio only"
    }
    return container.refusal(video: videoCodec(for: container), audio: audioCodec(for: container))
  }

  /// The size a `width`×`height` render gets from the preset (its box or long edge, never
  /// scaling up; `ExportSizing.outputSize`); the size itself when the preset does not size.
  public func renderSize(width: Int, height: Int) -> (width: Int, height: Int) {
    guard let sizing = preset?.settings.video?.sizing else { return (width, height) }
    return ExportSizing.outputSize(width: width, height: height, sizing: sizing)
  }

  /// Sets `settings` (already holding a platform's recipe, if any) for a `width`×`height`
  /// render at `frameRate` into `container`: codecs, muxer, the preset's speed, quality,
  /// profile and level, the explicit options over them, the audio's rate.
  public func apply(
    to settings: inout CompositorSettings, container: OutputContainer, width: Int, height: Int,
    frameRate: Rational
  ) {
    settings.container = container.muxer
    let video = videoCodec(for: container)
    settings.video = video != nil
    settings.videoCodec = video ?? .h264
    settings.audioCodec = audioCodec(for: container)
    if settings.audioCodec == .opus { settings.sampleRate = 48_000 }
    if let video, video != .h264 {
      // H.264's speed and quality (the merge's defaults) mean nothing on another scale.
      settings.speed = nil
      settings.crf = nil
    }
    if video == .vp9 || video == .av1 {
      settings.profile = nil
      settings.level = nil
    } else if video == .hevc {
      settings.profile = "main"
      settings.level = nil
    }
    if let presetSettings = preset?.settings {
      if let presetVideo = presetSettings.video, video == .h264 || video == .hevc {
        // The preset's encoder settings hold for its own codec; another codec keeps its own
        // speed and quality scale.
        let own = (presetVideo.encoder == "libx265") == (video == .hevc)
        if own {
          // The preset states no speed for most sizes: the encoder's own default (medium).
          settings.speed = presetVideo.speed ?? "medium"
          settings.crf = presetVideo.crf
          if video == .h264 {
            settings.profile = presetVideo.profile
            settings.level = presetVideo.level
          }
        }
      }
      if let rate = presetSettings.audioBitRate { settings.audioBitRate = rate }
    }
    if settings.audioCodec == .opus { settings.audioBitRate = min(settings.audioBitRate, 256_000) }
    if let crf {
      settings.crf = Double(crf)
      settings.videoBitRate = nil
    }
    if let bitRate { settings.videoBitRate = bitRate }
    if let bitsPerPixel {
      settings.videoBitRate = ExportSizing.bitRate(
        bitsPerPixel: bitsPerPixel, width: width, height: height, frameRate: frameRate)
    }
    if bitRate != nil || bitsPerPixel != nil || maxBytes != nil {
      // A rate the user set can starve the pictures: noise at 300 kB for 6 s of 320x240
      // measured 17.3 dB. The check then only catches a wrong picture or place (a different
      // picture measures under 12 dB on the fixtures), not the encoder's loss.
      settings.checkMinimumPSNR = Self.starvedCheckPSNR
    } else if let crf = settings.crf, crf > 30 {
      settings.checkMinimumPSNR = 25
    }
    if bitRate != nil || bitsPerPixel != nil {
      // An asked rate is an average over the output, as the ffmpeg CLI's -b:v: no VBV.
      settings.videoMaxRate = nil
      settings.videoBufferSize = nil
      settings.constrainedRate = false
    }
  }

  /// The size budget of a `duration`-second output at `frameRate` with `settings`' audio; nil
  /// without `--max-size`.
  package func budget(duration: Double, frameRate: Double, settings: CompositorSettings)
    -> SizeBudget?
  {
    guard let maxBytes else { return nil }
    let audioFrames =
      settings.audioCodec == .opus ? 50.0 : Double(settings.sampleRate) / 1024
    var budget = SizeBudget(
      maxBytes: maxBytes, duration: duration, audioBitRate: settings.audioBitRate,
      frameRate: settings.video ? frameRate : 0, audioFrameRate: audioFrames)
    budget.channels = settings.channels
    return budget
  }
}

/// What `--max-size` did: the cap, the passes and what was kept.
public struct SizeReport: Codable, Sendable, Equatable {
  /// The cap in bytes.
  public var maxBytes: Int64
  /// The kept output's bytes.
  public var bytes: Int64
  /// `bytes` / `maxBytes`.
  public var fraction: Double
  /// Render passes made.
  public var passes: Int
  /// The video bit rate of the kept pass, bits per second (null: the output has no video).
  @NullEncoded public var videoBitRate: Int?
  /// The AAC (or Opus) bit rate of the kept pass, bits per second: the rate asked, or, for an
  /// output without video, the rate the passes chose to fit the cap.
  public var audioBitRate: Int
  /// Every pass: its bit rates and the bytes it wrote.
  public var attempts: [Attempt]
  /// The kept pass's quality: the self-check's lowest PSNR against the sources, in dB (null:
  /// not checked).
  @NullEncoded public var minimumPSNR: Double?
  /// Why the output stays under 95% of the cap (null when it reaches it): the content needs
  /// fewer bits than the cap allows.
  @NullEncoded public var reason: String?

  /// One pass.
  public struct Attempt: Codable, Sendable, Equatable {
    /// The video bit rate asked, bits per second (null: no video).
    @NullEncoded public var videoBitRate: Int?
    /// The audio bit rate asked, bits per second.
    public var audioBitRate: Int
    /// The bytes written.
    public var bytes: Int64
    /// libx264's two-pass rate control: 1 for the first pass (one-pass ABR that writes x264's
    /// statistics), 2 for a pass planned from them; null for the measured one-pass loop of the
    /// other encoders (or when no statistics directory could be made).
    @NullEncoded public var x264Pass: Int?
    /// The pass encoded the pictures and audio packets the first pass kept (`PassMemory`)
    /// instead of decoding and compositing the sources again.
    public var replayed: Bool
  }
}

/// One pass `SizedRender` asks for.
struct SizedPass {
  /// The video bit rate (nil: an audio-only output).
  var videoBitRate: Int?
  /// The audio bit rate, for an audio-only output (nil: the settings' own).
  var audioBitRate: Int?
  /// libx264's two-pass rate control (nil: a one-pass encode at the rate).
  var ratePass: EncoderSettings.RatePass?
  /// The first pass's pictures and audio, kept or replayed.
  var memory: PassMemory?
}

/// Renders a plan under `--max-size`, each pass into its own unnamed output, measured, until one
/// lands within 95-100% of the cap; keeps that one (or, when the content cannot use the bits,
/// the largest under the cap). Only the kept pass is self-checked.
///
/// H.264: the first pass is libx264's one-pass ABR writing x264's statistics (`stats` in a
/// `PrivateDirectory` under `$TMPDIR`, removed at the end); when it misses, the next passes use
/// x264's two-pass rate control at the rate `SizeBudget.nextTwoPassVideoBitRate` gives. Other
/// encoders: the measured loop (`SizeBudget.nextVideoBitRate`). Every pass after the first
/// replays the first one's pictures and audio packets when they fit (`PassMemory`).
enum SizedRender {
  /// At most this many passes.
  static let maxPasses = 5
  /// The statistics file's name inside the private directory, and the files x264 makes of it.
  static let statsName = "x264.stats"
  static let statsFiles = [
    statsName, statsName + ".temp", statsName + ".mbtree", statsName + ".mbtree.temp",
  ]

  /// Runs `render` (a pass into a new unnamed output) until the budget is met, then `check` on
  /// the kept pass; returns the kept output, its checked report and the size report.
  ///
  /// - Parameter twoPass: the video encoder is libx264 (its two-pass rate control is used).
  /// - Throws: `MergeError.maxSizeUnreachable` when the cap cannot hold the audio and the
  ///   container, or every pass is over it; what `render` and `check` throw.
  static func run(
    budget: SizeBudget, path: String, twoPass: Bool, memoryLimit: Int64 = PassMemory.limit(),
    render: (SizedPass) throws(MergeError) -> (output: OutputFile, pass: RenderedPass),
    check: (OutputFile, RenderedPass) throws(MergeError) -> CompositionRenderReport
  ) throws(MergeError) -> (output: OutputFile, report: CompositionRenderReport, size: SizeReport) {
    if budget.audioOnly {
      return try runAudioOnly(budget: budget, path: path, render: render, check: check)
    }
    var attempts: [SizeBudget.MeasuredPass] = []
    var kinds: [(x264Pass: Int?, replayed: Bool)] = []
    var kept: (output: OutputFile, pass: RenderedPass, index: Int)?
    guard var rate = budget.firstVideoBitRate else {
      throw .maxSizeUnreachable(
        path: path,
        reason: "\(budget.maxBytes) bytes cannot hold the audio (\(budget.audioBytes) bytes at "
          + "\(budget.audioBitRate) b/s) and the container (\(budget.containerOverhead) bytes) "
          + "over \(fixed(budget.duration, places: 3)) s")
    }
    // x264 needs a named statistics file: a directory of our own, removed however this ends.
    let statistics = twoPass ? PrivateDirectory(files: statsFiles) : nil
    defer { statistics?.remove() }
    let memory = PassMemory(limit: memoryLimit)
    defer { memory.forget() }
    var reason: String?
    while attempts.count < maxPasses {
      var pass = SizedPass(videoBitRate: rate, memory: memory)
      if let statistics {
        let stats = statistics.path(of: statsName)
        pass.ratePass = attempts.isEmpty ? .first(stats: stats) : .second(stats: stats)
      }
      let result = try render(pass)
      let bytes = fileSize(result.output.fd) ?? result.pass.report.bytes
      attempts.append((rate, bytes, result.pass.videoBytes))
      kinds.append((statistics == nil ? nil : attempts.count == 1 ? 1 : 2, result.pass.replayed))
      // Keep the best pass so far (what `choice` would pick), drop the others at once.
      let measured = attempts.map { (videoBitRate: $0.videoBitRate, bytes: $0.bytes) }
      if let best = budget.choice(among: measured), best == attempts.count - 1 {
        kept = (result.output, result.pass, best)
      }
      if budget.accepts(bytes) { break }
      let next =
        statistics != nil
        ? budget.nextTwoPassVideoBitRate(after: attempts)
        : budget.nextVideoBitRate(after: measured)
      guard let next else {
        if bytes <= budget.maxBytes {
          reason =
            "more video bit rate bought less than 1% of the cap: the content needs fewer bits "
            + "than \(budget.maxBytes) bytes allow at the encoder's best use of them"
        }
        break
      }
      if attempts.contains(where: { $0.videoBitRate == next }) { break }
      rate = next
    }
    statistics?.remove()
    memory.forget()
    guard let kept else {
      throw everyPassOver(path: path, attempts.map { ("\($0.videoBitRate) b/s", $0.bytes) })
    }
    let report = try check(kept.output, kept.pass)
    let bytes = attempts[kept.index].bytes
    if reason == nil, !budget.accepts(bytes) {
      reason = closest(bytes, after: attempts.count, of: budget)
    }
    let size = SizeReport(
      maxBytes: budget.maxBytes, bytes: bytes,
      fraction: Double(bytes) / Double(budget.maxBytes), passes: attempts.count,
      videoBitRate: attempts[kept.index].videoBitRate, audioBitRate: budget.audioBitRate,
      attempts: zip(attempts, kinds).map {
        SizeReport.Attempt(
          videoBitRate: $0.videoBitRate, audioBitRate: budget.audioBitRate, bytes: $0.bytes,
          x264Pass: $1.x264Pass, replayed: $1.replayed)
      },
      minimumPSNR: report.check?.segments.compactMap(\.psnr).min(), reason: reason)
    return (kept.output, report, size)
  }

  /// `max_size_unreachable` when every pass (its rate, the bytes it wrote) was over the cap.
  static func everyPassOver(path: String, _ passes: [(rate: String, bytes: Int64)]) -> MergeError {
    .maxSizeUnreachable(
      path: path,
      reason: "every pass was over the cap: "
        + passes.map { "\($0.rate) wrote \($0.bytes) bytes" }.joined(separator: ", "))
  }

  /// Why the kept pass's `bytes` stay under 95% of the cap after `passes` passes.
  static func closest(_ bytes: Int64, after passes: Int, of budget: SizeBudget) -> String {
    "after \(passes) passes the closest under the cap is "
      + "\(fixed(100 * Double(bytes) / Double(budget.maxBytes), places: 1))%"
  }

  /// `run` for an output without video (`--preset m4a`): the passes adjust the AAC bit rate,
  /// from what the cap leaves beside the container (at most the rate asked), then by what each
  /// pass measured (`SizeBudget.nextAudioBitRate`), never below the lowest rate; the pass that
  /// lands in 95-100% of the cap is kept, else the largest under it.
  static func runAudioOnly(
    budget: SizeBudget, path: String,
    render: (SizedPass) throws(MergeError) -> (output: OutputFile, pass: RenderedPass),
    check: (OutputFile, RenderedPass) throws(MergeError) -> CompositionRenderReport
  ) throws(MergeError) -> (output: OutputFile, report: CompositionRenderReport, size: SizeReport) {
    let asked = budget.audioBitRate
    guard var rate = budget.firstAudioBitRate(highest: asked) else {
      throw .maxSizeUnreachable(
        path: path,
        reason: "\(budget.maxBytes) bytes cannot hold \(fixed(budget.duration, places: 3)) s of "
          + "audio at the lowest rate (\(budget.lowestAudioBitRate) b/s for \(budget.channels) "
          + "channels: \(SizeBudget.bytes(budget.lowestAudioBitRate, over: budget.duration)) "
          + "bytes) and the container (\(budget.containerOverhead) bytes)")
    }
    var attempts: [(audioBitRate: Int, bytes: Int64)] = []
    var kept: (output: OutputFile, pass: RenderedPass, index: Int)?
    while attempts.count < maxPasses {
      let result = try render(SizedPass(videoBitRate: nil, audioBitRate: rate))
      let bytes = fileSize(result.output.fd) ?? result.pass.report.bytes
      attempts.append((rate, bytes))
      // Keep the largest pass under the cap so far; drop the others at once.
      if bytes <= budget.maxBytes, kept.map({ bytes > attempts[$0.index].bytes }) ?? true {
        kept = (result.output, result.pass, attempts.count - 1)
      }
      guard let next = budget.nextAudioBitRate(after: rate, wrote: bytes, highest: asked),
        !attempts.contains(where: { $0.audioBitRate == next })
      else { break }
      rate = next
    }
    guard let kept else {
      throw everyPassOver(path: path, attempts.map { ("\($0.audioBitRate) b/s audio", $0.bytes) })
    }
    let report = try check(kept.output, kept.pass)
    let chosen = attempts[kept.index]
    var reason: String?
    if !budget.accepts(chosen.bytes) {
      reason =
        chosen.audioBitRate >= asked
        ? "the audio at the \(asked) b/s asked needs fewer bytes than the cap"
        : closest(chosen.bytes, after: attempts.count, of: budget)
    }
    let size = SizeReport(
      maxBytes: budget.maxBytes, bytes: chosen.bytes,
      fraction: Double(chosen.bytes) / Double(budget.maxBytes), passes: attempts.count,
      videoBitRate: nil, audioBitRate: chosen.audioBitRate,
      attempts: attempts.map {
        SizeReport.Attempt(
          videoBitRate: nil, audioBitRate: $0.audioBitRate, bytes: $0.bytes, x264Pass: nil,
          replayed: false)
      },
      minimumPSNR: nil, reason: reason)
    return (kept.output, report, size)
  }
}

/// The checks every written file gets beside the plan's: ISO BMFF with its index first
/// (`+faststart`: `moov` before `mdat`, read from the file's top-level boxes).
public enum ExportCheck {
  /// The top-level box types of the file open at `fd`, in order (at most 64; stops at a box
  /// that runs past the end).
  public static func topLevelBoxes(fd: Int32) -> [String] {
    var boxes: [String] = []
    var offset: Int64 = 0
    var header = [UInt8](repeating: 0, count: 16)
    while boxes.count < 64 {
      let count = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 16, off_t(offset)) }
      guard count >= 8 else { break }
      var size = Int64(header[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
      let type = String(decoding: header[4..<8], as: UTF8.self)
      if size == 1 {
        guard count == 16 else { break }
        size = Int64(bitPattern: header[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
      }
      boxes.append(type)
      guard size >= 8 else { break }  // 0: to the end of the file
      offset += size
    }
    return boxes
  }

  /// Why the ISO BMFF file at `fd` is not fast-start (nil when `moov` comes before `mdat`).
  public static func fastStartProblem(fd: Int32) -> String? {
    let boxes = topLevelBoxes(fd: fd)
    guard let movie = boxes.firstIndex(of: "moov") else {
      return "no moov box (top-level boxes: \(boxes.joined(separator: ", ")))"
    }
    if let data = boxes.firstIndex(of: "mdat"), data < movie {
      return "mdat comes before moov (\(boxes.joined(separator: ", "))): not fast-start"
    }
    return nil
  }
}

/// The size of the file open at `fd` (nil when `fstat` fails).
func fileSize(_ fd: Int32) -> Int64? {
  var status = stat()
  return fstat(fd, &status) == 0 ? Int64(status.st_size) : nil
}

#if canImport(Glibc)
  import Glibc
#endif

/// `mediamerge --composition DOC -o OUT` with the export options: the document's render size
/// and rate fitted to the preset and the platform, the compositor's settings from the
/// platform's recipe and the options, the render (passes under `--max-size`), then the checks
/// every output gets before its name: fast start for ISO BMFF, and with a platform its verdict
/// on the written file.
public struct CompositionExport: Sendable {
  /// The encoding asked.
  public var export: ExportRequest
  /// `--platform`: its recipe, and its verdict on the output.
  public var platform: Platform?
  /// Replace an existing output (`--force`).
  public var overwrite: Bool
  /// fsync before naming (`--no-sync` turns it off).
  public var sync: Bool
  /// Seconds the render and checks may take.
  public var timeout: Double?

  /// An export.
  public init(
    export: ExportRequest, platform: Platform?, overwrite: Bool = false, sync: Bool = true,
    timeout: Double? = nil
  ) {
    self.export = export
    self.platform = platform
    self.overwrite = overwrite
    self.sync = sync
    self.timeout = timeout
  }

  /// What a composition export wrote.
  public struct Result: Sendable {
    /// The compositor's report of the kept pass.
    public var render: CompositionRenderReport
    /// What `--max-size` did (nil without it).
    public var size: SizeReport?
    /// The platform's verdict on the output (nil without `--platform`).
    public var platform: String?
  }

  /// The size and rate `plan`'s render gets: its own, shrunk into the platform's largest size
  /// (turned to the picture's orientation) and rate, then fitted into the preset's box (never
  /// scaled up), made even. Nil when they stay.
  public func renderChange(for plan: CompositionPlan) -> (
    width: Int, height: Int, frameRate: Rational
  )? {
    var (width, height) = (plan.render.width, plan.render.height)
    var rate = plan.render.frameRate
    if let recipe = platform?.transcode {
      (width, height, rate, _) = recipe.limit(width: width, height: height, rate: rate)
    }
    (width, height) = export.renderSize(width: width, height: height)
    (width, height) = (width - width % 2, height - height % 2)
    if width == plan.render.width, height == plan.render.height, rate == plan.render.frameRate {
      return nil
    }
    return (width, height, rate)
  }

  /// `loaded` resolved again at the size and rate `renderChange` gives (unchanged when none).
  ///
  /// - Throws: `CompositionError` from the resolver.
  public func fitted(_ loaded: LoadedComposition, baseDirectory: String?) throws(CompositionError)
    -> LoadedComposition
  {
    guard let change = renderChange(for: loaded.plan) else { return loaded }
    var document = loaded.document
    document.size = FrameSize(width: change.width, height: change.height)
    document.fps = ExactNumber(change.frameRate.num, change.frameRate.den)
    var fitted = try CompositionLoader.resolve(
      document, baseDirectory: baseDirectory, format: loaded.format)
    fitted.document = loaded.document
    return fitted
  }

  /// The compositor's settings for `plan` written to `path`: the platform's recipe (profile,
  /// level, bit rate with its peak and buffer, audio rate, channels and bit rate), then the
  /// export options (`ExportRequest.apply`).
  public func settings(for plan: CompositionPlan, path: String) -> CompositorSettings {
    var settings = CompositorSettings()
    settings.timeout = timeout
    if let recipe = platform?.transcode {
      if let profile = recipe.video.profile { settings.profile = profile }
      settings.level = recipe.video.level
      if let rate = recipe.videoBitRate {
        settings.videoBitRate = rate
        settings.videoMaxRate = rate * 5 / 4
        settings.videoBufferSize = rate * 2
      }
      settings.sampleRate = min(settings.sampleRate, recipe.audioSampleRate)
      settings.channels = min(2, max(1, recipe.audioChannels))
      if let rate = recipe.audio.bitRate { settings.audioBitRate = rate }
    }
    export.apply(
      to: &settings, container: OutputContainer(path: path) ?? .mp4, width: plan.render.width,
      height: plan.render.height, frameRate: plan.render.frameRate)
    return settings
  }

  /// Renders `plan` to `path`: unnamed, checked (the compositor's self-check, fast start, the
  /// platform's verdict), then named.
  ///
  /// - Throws: `MergeError`: `.unsupportedEncoding` before anything is written, the render's
  ///   codes, `.maxSizeUnreachable`, `.outputMismatch` (fast start, the platform), `.output`.
  public func run(_ plan: CompositionPlan, to path: String, progress: (Double) -> Void)
    throws(MergeError) -> Result
  {
    let container = OutputContainer(path: path) ?? .mp4
    if export.passthrough {
      throw .unsupportedEncoding(
        reason: "--preset passthrough copies whole clips; a composition is rendered (use it "
          + "without --composition)")
    }
    if let refusal = export.refusal(container: container) {
      throw .unsupportedEncoding(reason: refusal)
    }
    let started = MonotonicClock.seconds()
    let deadline = timeout.map { started + $0 }
    var settings = self.settings(for: plan, path: path)
    func stage() throws(MergeError) -> OutputFile {
      do {
        return try OutputFile(.file(path: path, overwrite: overwrite), sync: sync)
      } catch {
        throw .output(path: path, error)
      }
    }
    let output: OutputFile
    let report: CompositionRenderReport
    var size: SizeReport?
    if let budget = export.budget(
      duration: plan.duration.seconds, frameRate: plan.render.frameRate.value, settings: settings)
    {
      settings.constrainedRate = false
      settings.videoMaxRate = nil
      settings.videoBufferSize = nil
      let sized = try SizedRender.run(
        budget: budget, path: path, twoPass: settings.videoCodec == .h264 && settings.video
      ) { sized throws(MergeError) in
        var pass = settings
        pass.videoBitRate = sized.videoBitRate
        if let audio = sized.audioBitRate { pass.audioBitRate = audio }
        pass.ratePass = sized.ratePass
        pass.timeout = deadline.map { max(1e-3, $0 - MonotonicClock.seconds()) }
        let output = try stage()
        do throws(CompositorError) {
          let rendered = try Compositor.renderPass(
            plan, into: output, name: path, settings: pass, memory: sized.memory,
            progress: progress)
          return (output, rendered)
        } catch {
          throw MergeExecutor.mergeError(error, output: path)
        }
      } check: { output, rendered throws(MergeError) in
        do throws(CompositorError) {
          return try Compositor.check(rendered, plan: plan, output: output, settings: settings)
        } catch {
          throw MergeExecutor.mergeError(error, output: path)
        }
      }
      (output, report, size) = (sized.output, sized.report, sized.size)
    } else {
      output = try stage()
      do throws(CompositorError) {
        report = try Compositor.render(
          plan, into: output, name: path, settings: settings, progress: progress)
      } catch {
        throw MergeExecutor.mergeError(error, output: path)
      }
    }
    var problems: [String] = []
    if container.isISOBMFF, let problem = ExportCheck.fastStartProblem(fd: output.fd) {
      problems.append(problem)
    }
    var verdict: String?
    if let platform {
      let options = ProbeOptions(
        scan: true, timeout: deadline.map { max(1e-3, $0 - MonotonicClock.seconds()) })
      do {
        let info = try Prober(options: options).probe(
          .file("/proc/self/fd/\(output.fd)"), path: path)
        let result = CompatibilityChecker().check(info, on: platform)
        verdict = result.verdict.rawValue
        if result.verdict == .fail {
          problems.append(
            "it does not pass on \(platform.id): "
              + result.findings.filter { $0.severity == .fail }.map(\.reason).joined(
                separator: "; "))
        }
      } catch {
        problems.append("it cannot be probed: \(error.message)")
      }
    }
    guard problems.isEmpty else { throw .outputMismatch(path: path, problems: problems) }
    do { try output.commit() } catch { throw .output(path: path, error) }
    return Result(render: report, size: size, platform: verdict)
  }
}
