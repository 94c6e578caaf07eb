import Composition
import Compositor
import OutputKit
import Compatibility
import MediaCore
import AV
import MediaProbe

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// What a finished merge measured.
public struct MergeResult: Sendable {
  /// The probe of the written file (scanned and decoded).
  public var output: MediaInfo
  /// Seconds the in-process render took (the compositor's own check included).
  public var renderSeconds: Double
  /// Seconds the check of the output against the plan took (probe, scan, decode).
  public var checkSeconds: Double
  /// Samples the audio mix put outside [-1, 1] (counted, not clamped).
  public var clippedSamples: Int64
  /// What `--max-size` did (nil without it).
  public var size: SizeReport?
}

/// Runs a plan in-process: the plan as a composition of whole clips, rendered by the
/// compositor (encoded, or the video packets copied) into an unnamed file; the file is probed,
/// scanned and decoded, compared with the plan, and only then given its name. No ffmpeg
/// executable runs.
public struct MergeExecutor: Sendable {
  /// Replace an existing output (`--force`).
  public var overwrite: Bool
  /// fsync the file before it gets its name, and its directory after (`--no-sync` turns it off).
  public var sync: Bool
  /// Threads the output check's decoders may use.
  public var decoderThreads: Int32
  /// The encoding asked (`--preset`, codecs, quality or rate, `--max-size`).
  public var export: ExportRequest

  /// An executor.
  public init(
    overwrite: Bool = false, sync: Bool = true, decoderThreads: Int32 = 2,
    export: ExportRequest = ExportRequest()
  ) {
    self.overwrite = overwrite
    self.sync = sync
    self.decoderThreads = decoderThreads
    self.export = export
  }

  /// Fails early, before any work, when the output may not be written.
  ///
  /// - Throws: `MergeError.output` (it exists without `overwrite`, is a directory or not a
  ///   regular file).
  public func checkOutput(_ plan: MergePlan) throws(MergeError) {
    do {
      _ = try OutputFile.check(plan.output, overwrite: overwrite, streams: false)
    } catch {
      throw .output(path: plan.output, error)
    }
  }

  /// The composition of whole clips that carries out `plan`: its clips one after another at
  /// the plan's size, fit and frame rate.
  public static func composition(of plan: MergePlan) -> CompositionDocument {
    var document = CompositionDocument.wholeClips(plan.clips.map(\.path))
    document.size = FrameSize(width: plan.render.width, height: plan.render.height)
    document.fit = plan.render.fit == .fill ? .cover : .contain
    if let rate = plan.render.frameRate {
      document.fps = ExactNumber(rate.num, rate.den)
    }
    return document
  }

  /// The compositor's settings for `plan`: its encodings (a platform's profile, level and bit
  /// rates; the audio's rate and channels), chapters, and then what `export` asks (codecs,
  /// preset, quality or rate; `ExportRequest.apply`).
  public static func settings(
    for plan: MergePlan, timeout: Double?, export: ExportRequest = ExportRequest()
  ) -> CompositorSettings {
    var settings = CompositorSettings()
    settings.timeout = timeout
    settings.container = plan.container
    settings.chapters = plan.chapters.map {
      CompositorChapter(start: $0.start, end: $0.end, title: $0.title)
    }
    if let encoder = plan.video.encoder {
      if let profile = encoder.profile { settings.profile = profile }
      settings.level = encoder.level
    }
    if let preset = plan.video.preset { settings.preset = preset }
    if let crf = plan.video.crf { settings.crf = Double(crf) }
    settings.videoBitRate = plan.video.bitRate
    settings.videoMaxRate = plan.video.rateLimits?.maxRate
    settings.videoBufferSize = plan.video.rateLimits?.bufferSize
    if let audio = plan.audio {
      settings.sampleRate = audio.sampleRate
      settings.channels = min(2, max(1, audio.channels))
      if let rate = audio.encoder.bitRate { settings.audioBitRate = rate }
    }
    if let container = OutputContainer(path: plan.output) {
      export.apply(
        to: &settings, container: container, width: plan.render.width,
        height: plan.render.height, frameRate: plan.render.frameRate ?? Rational(30, 1)!)
    }
    return settings
  }

  /// Runs `plan`; `progress` receives the seconds of the timeline written so far.
  ///
  /// - Throws: `MergeError.render` (the compositor's code), `.composition`, `.outputMismatch`,
  ///   `.timeout`, `.interrupted`, `.output` (a full disk: `write_error`). Nothing is left
  ///   behind: the output is an unnamed file that gets its name only after the check.
  public func run(
    _ plan: MergePlan, deadline: Double? = nil, progress: (Double) -> Void = { _ in }
  ) throws(MergeError) -> MergeResult {
    let started = MonotonicClock.seconds()
    let timeout = deadline.map { max(1e-3, $0 - started) }
    let loaded: LoadedComposition
    do {
      loaded = try CompositionLoader.resolve(Self.composition(of: plan), baseDirectory: nil)
    } catch {
      throw .composition(path: plan.output, error)
    }
    var settings = Self.settings(for: plan, timeout: timeout, export: export)
    let staged: OutputFile
    let clipped: Int64
    var sizeReport: SizeReport?
    if plan.method == .encode,
      let budget = export.budget(
        duration: plan.duration.seconds, frameRate: plan.render.frameRate?.value ?? 30,
        settings: settings)
    {
      settings.constrainedRate = false
      settings.videoMaxRate = nil
      settings.videoBufferSize = nil
      let sized = try SizedRender.run(
        budget: budget, path: plan.output,
        twoPass: settings.videoCodec == .h264 && settings.video
      ) { sized throws(MergeError) in
        var pass = settings
        pass.videoBitRate = sized.videoBitRate
        if let audio = sized.audioBitRate { pass.audioBitRate = audio }
        pass.ratePass = sized.ratePass
        pass.timeout = deadline.map { max(1e-3, $0 - MonotonicClock.seconds()) }
        let output = try stage(plan.output)
        do throws(CompositorError) {
          let rendered = try Compositor.renderPass(
            loaded.plan, into: output, name: plan.output, settings: pass,
            memory: sized.memory, progress: progress)
          return (output, rendered)
        } catch {
          throw Self.mergeError(error, output: plan.output)
        }
      } check: { output, rendered throws(MergeError) in
        do throws(CompositorError) {
          return try Compositor.check(
            rendered, plan: loaded.plan, output: output, settings: settings)
        } catch {
          throw Self.mergeError(error, output: plan.output)
        }
      }
      staged = sized.output
      clipped = sized.report.clippedSamples
      sizeReport = sized.size
    } else {
      staged = try stage(plan.output)
      do throws(CompositorError) {
        if plan.method == .copy {
          clipped =
            try ClipCopier.render(
              loaded.plan, into: staged, name: plan.output, settings: settings,
              progress: progress
            ).clippedSamples
        } else {
          clipped =
            try Compositor.render(
              loaded.plan, into: staged, name: plan.output, settings: settings,
              progress: progress
            ).clippedSamples
        }
      } catch {
        throw Self.mergeError(error, output: plan.output)
      }
    }
    let renderSeconds = MonotonicClock.seconds() - started
    if Interruption.isRequested { throw .interrupted }

    let checkStarted = MonotonicClock.seconds()
    let remaining = deadline.map { max(1e-3, $0 - MonotonicClock.seconds()) }
    let options = ProbeOptions(
      scan: true, timeout: remaining, verify: .all, decoderThreads: decoderThreads)
    let stagedPath = "/proc/self/fd/\(staged.fd)"
    let info: MediaInfo
    do {
      info = try Prober(options: options).probe(.file(stagedPath), path: plan.output)
    } catch {
      if case .timeout = error { throw .timeout(seconds: timeout ?? 0) }
      throw .outputMismatch(path: plan.output, problems: ["it cannot be probed: \(error.message)"])
    }
    let chapters =
      (try? InputOpener.open(.file(stagedPath), options: options.opening))?.chapters ?? []
    let platform = plan.platform.flatMap { id in PlatformDatabase.all.first { $0.id == id } }
    var problems =
      OutputCheck.problems(info, against: plan, platform: platform)
      + OutputCheck.chapterProblems(chapters, against: plan.chapters)
    if OutputContainer(path: plan.output)?.isISOBMFF ?? true,
      let problem = ExportCheck.fastStartProblem(fd: staged.fd)
    {
      problems.append(problem)
    }
    guard problems.isEmpty else { throw .outputMismatch(path: plan.output, problems: problems) }
    do {
      try staged.commit()
    } catch {
      throw .output(path: plan.output, error)
    }
    return MergeResult(
      output: info, renderSeconds: renderSeconds,
      checkSeconds: MonotonicClock.seconds() - checkStarted, clippedSamples: clipped,
      size: sizeReport)
  }

  /// A new unnamed output beside `path`.
  func stage(_ path: String) throws(MergeError) -> OutputFile {
    do {
      return try OutputFile(.file(path: path, overwrite: overwrite), sync: sync)
    } catch {
      throw .output(path: path, error)
    }
  }

  /// The merge's error for a compositor's: interruption, timeouts and the output's own errors
  /// keep the merge's cases (and codes); the rest keep the compositor's code.
  static func mergeError(_ error: CompositorError, output: String) -> MergeError {
    switch error {
    case .render(.interrupted): .interrupted
    case .render(.timeout(let seconds)): .timeout(seconds: seconds ?? 0)
    case .render(.output(_, let failure)): .output(path: output, failure)
    default: .render(path: output, error)
    }
  }

  /// Seconds on the monotonic clock: what `run`'s `deadline` counts in.
  public static func clock() -> Double { MonotonicClock.seconds() }
}
