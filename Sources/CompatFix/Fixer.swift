import AV
import Compatibility
import MediaCore
import MediaProbe
import OutputKit
import Render

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// Why a file could not be fixed, with a stable code through every layer.
public enum FixError: ToolError, Equatable {
  /// The input could not be probed (the probe's code: `not_found`, `truncated`, ...).
  case input(ProbeError)
  /// Only local files are fixed (they are read more than once) (`unsupported_input`).
  case unsupportedInput(String)
  /// No plan passes every platform, or the file cannot be made to play (the planner's code).
  case plan(FixPlanError)
  /// The output would replace the input (`output_is_input`).
  case outputIsInput(String)
  /// The output cannot be created or written (the output file's code).
  case output(OutputFileError)
  /// The remux or transcode failed (the render's code: `write_error`, `interrupted`, ...).
  case render(RenderError)
  /// The output was written but does not pass its re-check; it was not committed
  /// (`fix_check_failed`).
  case checkFailed(String)
  /// FFmpeg read no packet of a stream the input declares a length for (32-bit FLAC in FFmpeg
  /// 5.1: its parser finds no frame): code `unsupported_input`, as for an input that cannot be
  /// fixed at all.
  case unreadableStream(index: Int, codec: String, seconds: Double)

  /// The stable machine-readable code.
  public var code: String {
    switch self {
    case .input(let error): error.code
    case .unsupportedInput, .unreadableStream: "unsupported_input"
    case .plan(let error): error.code
    case .outputIsInput: "output_is_input"
    case .output(let error): error.code
    case .render(let error): error.code
    case .checkFailed: "fix_check_failed"
    }
  }

  /// A sentence for humans.
  public var message: String {
    switch self {
    case .input(let error): error.message
    case .unsupportedInput(let what): "only local files can be fixed, not \(what)"
    case .plan(let error): error.message
    case .outputIsInput(let path): "the output \(path) is the input; choose another name"
    case .output(let error): error.message
    case .render(let error): error.message
    case .checkFailed(let detail):
      "the fixed output does not pass its re-check (\(detail)); nothing was written"
    case .unreadableStream(let index, let codec, let seconds):
      "FFmpeg cannot read the frames of stream \(index) (\(codec), which declares "
        + "\(fixed(seconds, places: 3)) s): the demuxer gave no packet of it; nothing was written"
    }
  }

  /// The failure underneath.
  public var cause: ErrorCause? {
    switch self {
    case .input(let error): error.cause
    case .plan(let error): error.cause
    case .output(let error): error.cause
    case .render(let error): error.cause
    case .unsupportedInput, .outputIsInput, .checkFailed, .unreadableStream: nil
    }
  }
}

/// Where fixed files go.
public enum FixDestination: Sendable, Equatable {
  /// This path (one input).
  case file(String)
  /// This directory, as `NAME.EXT` with the plan's extension.
  case directory(String)
  /// Nowhere (`--dry-run`, `--suggest` alone).
  case none
}

/// How `Fixer` works.
public struct FixOptions: Sendable {
  /// The platforms every output must pass.
  public var platforms: [Platform]
  /// Which advisories apply.
  public var delivery: Delivery
  /// Write an output also when the file already passes (a packet copy into its container).
  public var alwaysWrite: Bool
  /// Plan only: nothing is written.
  public var dryRun: Bool
  /// Put the equivalent ffmpeg command into the report.
  public var suggest: Bool
  /// Replace an existing output file.
  public var overwrite: Bool
  /// `fsync` outputs before naming them.
  public var sync: Bool
  /// Seconds each file's render may take.
  public var timeout: Double?
  /// Measure SSIM and PSNR after a video re-encode.
  public var measureQuality: Bool
  /// Warnings count as failures, in the plan and in the re-check.
  public var strict: Bool
  /// What the re-check decodes: every packet (`all`, the default), or, as `mediaprobe
  /// --verify-fast`, only the video's keyframes and the whole audio (`keyframes`: for a long
  /// remux, whose packets are the input's, the full decode costs far more than the copy).
  public var recheckScope: VerifyScope

  /// Options for `platforms`.
  public init(
    platforms: [Platform], delivery: Delivery = .file, alwaysWrite: Bool = false,
    dryRun: Bool = false, suggest: Bool = false, overwrite: Bool = false, sync: Bool = true,
    timeout: Double? = nil, measureQuality: Bool = true, strict: Bool = false,
    recheckScope: VerifyScope = .all
  ) {
    self.strict = strict
    self.recheckScope = recheckScope
    self.platforms = platforms
    self.delivery = delivery
    self.alwaysWrite = alwaysWrite
    self.dryRun = dryRun
    self.suggest = suggest
    self.overwrite = overwrite
    self.sync = sync
    self.timeout = timeout
    self.measureQuality = measureQuality
  }
}

/// `mediacompat --fix` for one file: probe, plan (`FixPlanner`), render in-process (Render's
/// `Remuxer`/`Transcoder` into an atomic `OutputFile`), re-check the uncommitted output (the
/// verdict of every platform and the verify path's decode), measure a re-encode's quality, and
/// only then give the output its name.
public struct Fixer: Sendable {
  /// The options.
  public var options: FixOptions

  /// A fixer with `options`.
  public init(options: FixOptions) {
    self.options = options
  }

  /// Fixes `path` into `destination`; the report says what happened (a failure is a report
  /// with `status` `failed` and its error, never a thrown error: the other files go on).
  public func fix(path: String, destination: FixDestination) -> FixReport {
    let started = MonotonicClock.seconds()
    var report = FixReport(path: path, platforms: options.platforms.map(\.id))
    do {
      try run(path: path, destination: destination, report: &report)
    } catch {
      report.status = "failed"
      report.error = FixFailure(
        code: error.code, message: error.message, cause: error.cause?.description)
    }
    report.seconds = MonotonicClock.seconds() - started
    return report
  }

  private func run(path: String, destination: FixDestination, report: inout FixReport)
    throws(FixError)
  {
    let started = MonotonicClock.seconds()
    guard path != "-", !path.contains("://") else { throw .unsupportedInput(path) }
    let prober = Prober(options: ProbeOptions(timeout: options.timeout))
    let info: MediaInfo
    do { info = try prober.probe(.file(path), path: path) } catch { throw .input(error) }
    report.bytesIn = info.sizeBytes
    do {
      let input = try Transcoder.open(.file(path))
      if let index = input.firstEncryptedStream() {
        throw FixError.plan(
          .drmProtected(
            "stream \(index) (\(input.view(index).codecName)) is encrypted (Common Encryption)"))
      }
    } catch let error as FixError {
      throw error
    } catch {
      throw .render(error as! RenderError)
    }
    report.timings["probe"] = MonotonicClock.seconds() - started
    let checker = CompatibilityChecker(delivery: options.delivery)
    let planner = FixPlanner(platforms: options.platforms, checker: checker, strict: options.strict)
    var atLeast = FixAction.none
    var refused: [FixAction: String] = [:]
    while true {
      let plan: FixPlan
      do { plan = try planner.plan(for: info, atLeast: atLeast, refused: refused) } catch {
        throw .plan(error)
      }
      report.plan = plan
      report.action = plan.action
      report.reason = plan.reason
      let output = Self.outputPath(for: path, plan: plan, destination: destination)
      report.output = output
      if options.suggest && (plan.action != .none || options.alwaysWrite) {
        report.command = plan.ffmpegCommand(
          input: path, output: output ?? "OUT.\(plan.fileExtension)")
      }
      if options.dryRun || output == nil {
        report.status = "planned"
        return
      }
      if plan.action == .none && !options.alwaysWrite {
        report.status = "fine"
        report.output = nil
        return
      }
      guard let output else { return }
      try Self.checkDistinct(input: path, output: output)
      do {
        try render(plan: plan, info: info, input: path, output: output, report: &report)
      } catch .render(.muxer(let what, let error))
        where plan.action > .none && plan.action < .transcodeVideo
      {
        // A copied stream the container's muxer refused (Opus from CAF has no OpusHead for
        // MP4): the next step re-encodes it. Nothing was written.
        refused[plan.action] = "the muxer refused the copied streams (\(what): \(error.message))"
        atLeast = FixAction.allCases[FixAction.allCases.firstIndex(of: plan.action)! + 1]
        report.streams = []
        continue
      } catch .checkFailed(let why)
        where plan.action > .none && plan.action < .transcodeVideo && plan.video?.copy == true
        && report.recheck?.integrity == .damaged && inputDecodesCleanly(path)
      {
        // The input decodes cleanly but its copied video does not in the new container: H.264
        // with B-frames from AVI, whose index gives no presentation times, has them out of
        // order in MP4 (the ffmpeg CLI's own remux decodes damaged too). The video is re-encoded
        // instead. Nothing was written.
        for action in FixAction.allCases where action >= plan.action && action < .transcodeVideo {
          refused[action] = "the copied video decodes damaged in \(plan.container) (\(why))"
        }
        atLeast = .transcodeVideo
        report.streams = []
        report.recheck = nil
        report.bytesOut = nil
        continue
      }
      report.status = "fixed"
      return
    }
  }

  /// Whether the input decodes without an error at the re-check's scope (the `--verify` path).
  private func inputDecodesCleanly(_ path: String) -> Bool {
    let prober = Prober(
      options: ProbeOptions(timeout: options.timeout, verify: options.recheckScope))
    return (try? prober.probe(.file(path), path: path))?.integrity == .ok
  }

  /// The output's path: the given file, or `DIR/NAME.EXT` (the input's name, the plan's
  /// extension).
  static func outputPath(for input: String, plan: FixPlan, destination: FixDestination)
    -> String?
  {
    switch destination {
    case .none: return nil
    case .file(let path): return path
    case .directory(let directory):
      let name = input.split(separator: "/").last.map(String.init) ?? input
      let base = name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name
      let slash = directory.hasSuffix("/") ? "" : "/"
      return "\(directory)\(slash)\(base.isEmpty ? name : base).\(plan.fileExtension)"
    }
  }

  /// Refuses an output that is the input (the same path, or the same file by device and inode).
  static func checkDistinct(input: String, output: String) throws(FixError) {
    var a = stat()
    var b = stat()
    let same =
      input == output
      || (FileName.withCString(input) { stat($0, &a) } == 0
        && FileName.withCString(output) { stat($0, &b) } == 0 && a.st_dev == b.st_dev
        && a.st_ino == b.st_ino)
    if same { throw .outputIsInput(output) }
  }

  // MARK: - Render

  private func render(
    plan: FixPlan, info: MediaInfo, input path: String, output: String,
    report: inout FixReport
  ) throws(FixError) {
    let file: OutputFile
    do {
      guard try OutputFile.check(output, overwrite: options.overwrite, streams: false) == .file
      else { throw FixError.unsupportedInput(output) }
      file = try OutputFile(.file(path: output, overwrite: options.overwrite), sync: options.sync)
    } catch let error as OutputFileError {
      throw .output(error)
    } catch {
      throw error as! FixError
    }
    let input: InputFile
    do { input = try Transcoder.open(.file(path)) } catch { throw .render(error) }
    let settings = Self.renderSettings(plan, timeout: options.timeout)
    let rendered: RenderReport
    var clock = MonotonicClock.seconds()
    do {
      rendered = try Transcoder.run(
        input: input, output: file, name: FileName.display(output), settings: settings)
    } catch {
      throw .render(error)
    }
    if let error = rendered.readError {
      throw .checkFailed("reading the input failed before its end: \(error.message)")
    }
    // A stream the demuxer gave no packet of, though it declares a length, is one FFmpeg cannot
    // read (not an empty one): say which, rather than that the empty output failed its check.
    for stream in rendered.streams where stream.packetsRead == 0 {
      let probed = info.streams.first { $0.index == stream.input }
      if let seconds = (probed?.duration ?? info.duration)?.seconds, seconds > 0 {
        throw .unreadableStream(
          index: stream.input, codec: probed?.codec.name ?? "unknown", seconds: seconds)
      }
    }
    report.streams = rendered.streams.map { stream in
      let video = stream.kind == .video
      let encodedSettings: [String]? =
        stream.encoder == nil
        ? nil
        : video
          ? plan.video?.encode.map { encode in
            var arguments = encode.settings.ffmpegArguments + ["-preset", encode.preset]
            if encode.bitRate == nil {
              arguments += ["-crf", RuleValue.number(encode.crf).description]
            }
            if encode.filter != "null" { arguments += ["-vf", encode.filter] }
            return arguments
          }
          : plan.audio?.encode.map {
            $0.settings.ffmpegArguments + ["-ac", "\($0.channels)", "-ar", "\($0.sampleRate)"]
          }
      // A kept further stream (a second audio track, timed text) is a copy in its own codec.
      let kept = plan.keptStreams.contains(stream.input)
      let probed = info.streams.first { $0.index == stream.input }
      return StreamOutcome(
        input: stream.input, output: stream.output,
        kind: video ? "video" : probed?.type == .subtitle ? "subtitle" : "audio",
        treatment: stream.encoder == nil ? "copied" : "re-encoded",
        codec: (kept ? probed?.codec.name : video ? plan.video?.codec : plan.audio?.codec) ?? "",
        settings: encodedSettings, packets: stream.packets)
    }
    report.timings["render"] = MonotonicClock.seconds() - clock
    clock = MonotonicClock.seconds()
    // The re-check reads the output before it has its name.
    guard let readable = file.childPath else {
      throw .checkFailed("the output cannot be read back")
    }
    let checked: MediaInfo
    do {
      checked = try Prober(
        options: ProbeOptions(timeout: options.timeout, verify: options.recheckScope)
      ).probe(
        .file(readable), path: output)
    } catch {
      throw .checkFailed("the output cannot be probed: \(error.message)")
    }
    let checker = CompatibilityChecker(delivery: options.delivery)
    let verdicts = options.platforms.map { checker.check(checked, on: $0) }
    let recheck = Recheck(
      scope: options.recheckScope,
      passed: verdicts.allSatisfy {
        $0.verdict == .pass || ($0.verdict == .warn && !options.strict)
      } && checked.integrity == .ok,
      verdicts: verdicts, integrity: checked.integrity, inputDuration: info.duration?.seconds,
      outputDuration: checked.duration?.seconds,
      syncShift: Self.syncOffset(checked).flatMap { out in
        Self.syncOffset(info).map { out - $0 }
      })
    report.recheck = recheck
    report.bytesOut = checked.sizeBytes
    report.timings["recheck"] = MonotonicClock.seconds() - clock
    clock = MonotonicClock.seconds()
    if plan.video?.encode != nil && options.measureQuality, let video = plan.video {
      do {
        report.quality = try QualityMeter.measure(
          reference: path, referenceStream: video.input, filter: video.encode?.filter ?? "null",
          distorted: readable, timeout: options.timeout)
      } catch {
        throw .checkFailed("measuring SSIM/PSNR failed: \(error.message)")
      }
      report.timings["quality"] = MonotonicClock.seconds() - clock
    }
    // Every stream written, and the output as long as the input (within a tenth and 0.1 s: a
    // stream the decoder could not decode leaves an empty or short track that players refuse,
    // though its container and codec pass every rule).
    var problems: [String] = []
    for stream in rendered.streams where stream.packets == 0 {
      problems.append(
        "stream \(stream.input) produced no packet (\(stream.decodeErrors) decode errors)")
    }
    if let before = info.duration?.seconds, before > 0 {
      let after = checked.duration?.seconds ?? 0
      if after < before * 0.9 - 0.1 {
        problems.append(
          "the output lasts \(fixed(after, places: 3)) s, the input \(fixed(before, places: 3)) s")
      }
    }
    if !problems.isEmpty {
      report.recheck?.passed = false
      throw .checkFailed(problems.joined(separator: "; "))
    }
    guard recheck.passed else {
      let failing = verdicts.flatMap { verdict in
        verdict.findings.filter { $0.severity == .fail || options.strict }.map {
          "\(verdict.platform): \($0.field) \($0.actual ?? "unknown") (\($0.limit))"
        }
      }
      let integrity = checked.integrity.map { $0 == .ok ? [] : ["decode: \($0.rawValue)"] } ?? []
      throw .checkFailed((failing + integrity).joined(separator: "; "))
    }
    do { try file.commit() } catch { throw .output(error) }
  }

  /// The first audio stream's start minus the first video stream's, in seconds.
  static func syncOffset(_ info: MediaInfo) -> Double? {
    let facts = CompatFacts(info)
    guard let video = facts.videoIndex, let audio = facts.audioIndex else { return nil }
    func start(_ index: Int) -> Double? {
      info.streams.first { $0.index == index }?.decode?.firstTime?.seconds
    }
    guard let v = start(video), let a = start(audio) else { return nil }
    return a - v
  }

  /// Render's settings for `plan`: the same streams, copies and encodings, container and muxer
  /// options that `ffmpegArguments` states.
  static func renderSettings(_ plan: FixPlan, timeout: Double?) -> RenderSettings {
    var streams: [Render.StreamChoice] = []
    let matroska = ["mkv", "webm"].contains(plan.container)
    if let video = plan.video {
      if let encode = video.encode {
        var settings = EncoderSettings.Video(
          encoder: encode.settings.encoder, width: 0, height: 0,
          frameRate: Rational.approximating(encode.frameRate),
          pixelFormat: encode.settings.pixelFormat.flatMap { PixelFormat(name: $0) } ?? .yuv420p,
          rateControl: encode.bitRate.map {
            .bitRate($0, maxRate: $0 * 5 / 4, bufferSize: $0 * 2)
          } ?? .constantQuality(encode.crf),
          preset: encode.preset, profile: encode.settings.profile, level: encode.settings.level)
        settings.threads = 0
        streams.append(
          Render.StreamChoice(
            input: video.input,
            action: .encodeVideo(
              VideoEncoding(
                filter: encode.filter, encoder: settings,
                // Tone-mapped pictures are BT.709 (the encoder's tags), not the source's HDR.
                keepSourceColor: !encode.toneMapped,
                timing: matroska ? .sourceTimestamps : .constantFrameRate))))
      } else {
        streams.append(Render.StreamChoice(input: video.input, action: .copy, codecTag: video.tag))
      }
    }
    if let audio = plan.audio {
      if let encode = audio.encode {
        streams.append(
          Render.StreamChoice(
            input: audio.input,
            action: .encodeAudio(
              AudioEncoding(
                encoder: EncoderSettings.Audio(
                  encoder: encode.settings.encoder, sampleRate: encode.sampleRate,
                  channelLayout: Self.layout(
                    channels: encode.channels, encoder: encode.settings.encoder),
                  bitRate: encode.settings.bitRate, profile: encode.settings.profile)))))
      } else {
        streams.append(Render.StreamChoice(input: audio.input, action: .copy))
      }
    }
    for index in plan.keptStreams {
      streams.append(Render.StreamChoice(input: index, action: .copy))
    }
    return RenderSettings(
      streams: streams, container: plan.muxerName, muxerOptions: plan.muxerOptions,
      timeout: timeout)
  }

  /// The layout an encoder is opened with for `channels`: FFmpeg 5.1's `aac` takes the "back"
  /// layouts (5.1 as FL FR FC LFE BL BR), which the ffmpeg CLI picks for it too; other encoders
  /// the default layout.
  static func layout(channels: Int, encoder: String) -> ChannelLayout {
    if encoder == "aac" {
      let masks: [Int: UInt64] = [3: 0x7, 4: 0x107, 5: 0x37, 6: 0x3F, 8: 0xFF]
      if let mask = masks[channels] {
        return ChannelLayout(channels: Int32(channels), mask: mask)
      }
    }
    return ChannelLayout(defaultFor: Int32(channels))
  }
}

extension Rational {
  /// `value` as a fraction: the NTSC rates as n×1000/1001, other rates to a thousandth.
  static func approximating(_ value: Double) -> Rational {
    for base in [24, 30, 60, 120, 240] where abs(value - Double(base) * 1000 / 1001) < 1e-3 {
      return Rational(Int64(base * 1000), 1001)!
    }
    if value == value.rounded() { return Rational(Int64(value), 1)! }
    return Rational(Int64((value * 1000).rounded()), 1000)!
  }
}
