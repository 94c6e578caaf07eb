import ArgumentParser
import Compatibility
import MediaCore
import OutputKit
import AV
import MediaProbe
import Merge
import Synchronization
import ToolSupport

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

@main
struct MediaMergeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "mediamerge",
    abstract:
      "Join clips upright on one exact timeline (AVMutableComposition's job), copy or encode.",
    usage: "mediamerge [<options>] <clips> ... -o <file>",
    discussion: """
      Probes the clips (as mediaprobe --scan, so durations are exact), makes a plan, renders it \
      in-process (the compositor of --composition: no ffmpeg executable runs) and checks what it \
      wrote before keeping it.

      TIMELINE: each clip starts where the previous one ended (exact rationals, as CMTimeAdd) and \
      lasts the longer of its audio and video; the shorter one is padded (silence, or the last \
      frame held), so audio never runs into the next clip. A clip without audio gets silence.

      RENDER: by default the largest display width by the largest display height among the \
      clips after rotation (Apple's editing guide), or --size WxH. Each clip is turned upright \
      from its display matrix, mirroring included (transpose/flip filters, not the CLI's \
      autorotation), scaled to fit inside with black bars (--fit, default) or to cover, cropped \
      (--fill), square pixels, at the highest clip frame rate.

      METHOD: the video is stream-copied when every clip shares its codec parameters (codec, \
      tag, profile, level, coded size, pixel format, sample aspect ratio, time base, SPS/PPS, \
      display matrix, track id) and nothing asks for more (--size, --encode, a --platform the \
      clips do not play on); otherwise every clip is decoded and encoded once, H.264 (libx264 \
      veryfast, CRF 20, High, 4:2:0) and AAC 160 kbit/s 48 kHz stereo in MP4 with +faststart, or \
      with --platform P the recipe of mediacompat's database for P (its size and frame-rate \
      limits too). The plan says exactly why a copy was not possible. The audio is always \
      decoded and encoded once: copied AAC keeps every clip's priming, 21-29 ms of drift per \
      join. --copy fails (incompatible_inputs) instead of encoding; --encode never copies.

      OUTPUT: -o names the file (.mp4, .m4v, .mov; .m4a audio only; .webm; .mkv). The render writes an unnamed file in the \
      same directory; it is probed, scanned and decoded, and given its name only if it decodes \
      cleanly and matches the plan (durations within one frame, one AAC frame for audio; size; \
      upright orientation, or the clips' own matrix when copied; streams; with --platform, a pass \
      on that platform). An existing regular file is replaced only with --force; nothing else \
      is ever replaced. SIGINT or SIGTERM stop the render and leave nothing. Progress shows on a \
      terminal.

      EXPORT (whole clips and --composition alike): --video-codec h264 (libx264), hevc (libx265, \
      tagged hvc1), vp9 (libvpx-vp9) or av1 (libsvtav1); --audio-codec aac or opus (libopus, 48 \
      kHz). .mp4 takes all four with aac or opus; .mov h264 or hevc with aac; .webm vp9 or av1 \
      with opus (the default there); .mkv any video with opus (AAC in Matroska would play 21 ms \
      late); .m4a aac alone. Another pair is refused before anything is rendered \
      (unsupported_encoding). --preset NAME uses an AVAssetExportSession preset: low (long edge \
      224, x264 veryfast CRF 30 Main, 64k AAC), medium (568, medium CRF 26 Main, 96k), highest \
      (source size, slow CRF 18 High, 192k), 640x480 and 960x540 (box, CRF 23 High L3.1, \
      128k), 1280x720 and 1920x1080 (CRF 21 High L4.1, 160k), 3840x2160 (CRF 20 High L5.1, \
      192k), hevc-highest, hevc-1920x1080, hevc-3840x2160 (libx265 CRF 24, hvc1, 160k), m4a \
      (audio only, 256k, .m4a), passthrough (copy, else unsupported_encoding); boxes never \
      scale up; AVFoundation's names work too (AVAssetExportPreset1920x1080); explicit options \
      win. Rate: --crf N, --bitrate R (an average, 800k, 2.5M), --bits-per-pixel B (rate = B x \
      width x height x fps) or --max-size SIZE (8MB = 8,000,000 bytes, 8MiB): passes measured \
      until the file is within 95-100% of the cap, or under it with the reason when the content \
      needs fewer bits; never over it (max_size_unreachable when no pass fits). Without video \
      (--preset m4a) the passes choose the AAC rate instead (at most the preset's, at least 16 \
      kb/s per channel). With H.264 a \
      pass that misses is followed by x264's own two-pass (its statistics in a private \
      directory under $TMPDIR, removed afterwards) on the first pass's pictures, kept in an \
      unnamed scratch file there when they fit; only the kept pass is self-checked. Every MP4, MOV \
      and M4A has its index first (+faststart), checked on the written file (moov before \
      mdat).

      CHAPTERS: the clips' chapters are moved to where each clip starts on the timeline (clip \
      start + chapter time, exact); a clip without chapters, or the part of a clip before its \
      first, gets one named after its file; chapters starting after their clip's end are \
      dropped with a warning. MP4 keeps them as a chapter track (a text track, which ffprobe \
      lists as a data stream) and a Nero chpl box; when no clip has chapters the output has \
      neither, and no other data or subtitle stream ever appears.

      BOUNDS: a merge cannot run away. Each clip's frames are kept inside its span (a frame \
      whose timestamp lies outside it is dropped, and a stream's end is held at the span's end, \
      whatever durations its packets claim). The plan is refused (implausible_plan) when a clip \
      lasts longer than its file's bytes can carry (1 s per byte) or when the smallest output \
      it can make exceeds the size limit: 32 times the clips' bytes, at least 64 MiB. The \
      render writes exactly the plan's frames on its frame grid and stops at --timeout, which \
      counts from the start and covers probing, rendering and checking (timeout). No child \
      process runs: kill -9 of mediamerge leaves nothing running, and the unnamed output \
      vanishes with it.

      PLAN: --plan prints the plan as JSON (schemas/mediamerge-plan.schema.json: the timeline \
      with exact starts and durations, each clip's streams, padding, transform and filters, the \
      method and every copy blocker, the equivalent ffmpeg command for people who want to run it \
      by hand (never run by mediamerge), and what the output must show) and does nothing else. \
      --verbose prints that command too. --dry-run plans, checks that the output may be \
      written and prints the summary, without rendering.

      COMPOSITIONS: --composition DOC renders a composition document (JSON, or OpenTimelineIO \
      .otio; - reads standard input; sources relative to the document's folder) in-process, \
      without ffmpeg: trims, stills (EXIF orientation applied), image sequences, gaps, a \
      clip's crop (stored pixels), rotate and mirror, speed (1/4 to 4; atempo keeps the pitch, \
      or pitch follow) and freeze frames (silent), \
      transitions (crossfade, fade through the background, wipes, slides), audio tracks with \
      volumes, fades, ramps and loops, markers as chapters, overlays (images and text titles \
      with a place, size, opacity, blend mode, time range and fades, over the finished \
      picture). Every source is probed first and \
      every input error reported with its code before anything is written. The output is H.264 \
      (libx264 veryfast, CRF 20, High, 4:2:0) and AAC 160 kbit/s 48 kHz stereo in MP4 with \
      +faststart on the document's frame grid, or what the EXPORT options and --platform (its \
      size, rate and encoder limits; the written file checked against it) ask; sources are opened only while on screen. Before \
      it gets its name the file is checked: its frame count equals the plan's within one, and \
      each segment's middle picture, decoded from the file, matches the picture the render made \
      from its source through the planned transform, looks and overlays (put aside in an unnamed \
      file in $TMPDIR as it was encoded; PSNR at least 30 dB, 12 dB with a rate you set), else \
      check_failed and nothing is kept. The JSON report on \
      standard output holds the plan's summary, the encoder settings, clipped_samples and the \
      check, with --max-size the size passes (size) and with --platform its verdict (platform). \
      --plan prints the resolved plan; --print-composition prints the document (with \
      clips: the whole clips as one), as --format json or otio.

      LOOKS: "filters" on a clip, a gap or the composition apply GPUImage's published formulas \
      to 0-1 R'G'B' (converted with the picture's own matrix and range and back), in order: \
      brightness b: rgb + b; contrast c: (rgb - 0.5)c + 0.5; saturation s: mix(L, rgb, s) with \
      L = 0.2125R + 0.7154G + 0.0721B; gamma g: rgb^g; exposure e: rgb 2^e; hue h: a rotation of \
      I and Q in YIQ by h degrees; sepia i: i M + (1 - i) rgb with GPUImage's sepia matrix M; \
      grayscale: (L, L, L); invert: 1 - rgb; color_matrix M, offset, intensity i: i(M(r, g, b, \
      1) + offset) + (1 - i) rgb; pixellate f: blocks of f x width pixels, each its centre's \
      colour; vignette center, start, end, color: mix(rgb, color, smoothstep(start, end, \
      distance to center)); sharpen s: c(1 + 4s) - s(the four neighbours); gaussian_blur r: \
      sigma r, two passes; sobel k: k x the 3x3 Sobel length of L; sketch k: 1 - sobel; toon \
      threshold, levels: posterised, black on Sobel edges of R; swirl center, radius, angle: \
      the offset from the centre turned by ((radius - d)/radius)^2 x angle x 8; kuwahara r: the \
      least-variance quadrant's mean; expression r, g, b: per-pixel expressions of r, g, b, x, \
      y, w, h (and t on the composition). Ranges, defaults and each libavfilter route are in \
      docs/mediamerge.md.

      ERRORS: every failure has a stable code, printed in brackets (and in the JSON error \
      record with --plan): the probe's codes for a clip (not_found, not_a_file, truncated, ...), \
      incompatible_inputs, implausible_plan, output_mismatch, \
      output_exists, output_is_directory, write_error, timeout, interrupted, \
      unsupported_encoding, max_size_unreachable; for compositions \
      invalid_composition (with line and column, or the unknown key's path), \
      source_range_invalid, clip_past_source_end, transition_too_long, clip_without_video, \
      unsupported_timeline, unsupported_image, source_undecodable, check_failed, decoder_error, \
      encoder_error, filter_error, muxer_error.

      EXIT STATUS: 0 the output was written and checked (or the plan made), 1 it was not (any \
      error above), 64 usage errors, 130 or 143 when interrupted by SIGINT or SIGTERM. Clips \
      are local files (each is read twice: probed, then rendered); there is no --allow-network. \
      \(CommonHelp.dashes)

      EXAMPLES:
        mediamerge a.mp4 b.mov c.mp4 -o merged.mp4
        mediamerge --plan clip1.mp4 clip2.mp4 -o out.mp4 | jq '.method, .copy_blockers'
        mediamerge --platform ios-17 --size 1280x720 --fill *.mov -o reel.mp4
        mediamerge --copy part1.mp4 part2.mp4 -o whole.mp4 || echo "not copy-compatible"
        mediamerge --composition edit.json -o film.mp4 | jq .render.check
        mediamerge --preset hevc-1920x1080 a.mov b.mov -o reel.mp4
        mediamerge --video-codec vp9 clip1.mp4 clip2.mp4 -o web.webm
        mediamerge --composition edit.json --max-size 8MB -o share.mp4 | jq .size
        mediamerge --print-composition --format otio a.mp4 b.mp4 > timeline.otio
      """,
    version: "0.1.0")

  @Argument(help: "The clips, in timeline order (local files; each is read twice).")
  var clips: [String] = []

  // Optional to the parser, required by `validate()`: a bad option is reported before a missing
  // -o, and no arguments at all get the short usage, not the whole manual.
  @Option(
    name: [.short, .long],
    help: ArgumentHelp(
      "The merged file (.mp4, .m4v, .mov; .m4a audio only; .webm; .mkv).", valueName: "file"))
  var output: String?

  /// The output path (`validate()` made sure there is one).
  var outputPath: String { output ?? "" }

  @OptionGroup var outputFile: OutputFileOptions

  @Flag(help: "Print the plan as JSON and do nothing else.")
  var plan = false

  @Option(
    help: ArgumentHelp(
      "Render this composition document (JSON or OpenTimelineIO .otio; - reads standard input; its sources are relative to its folder).",
      valueName: "doc"),
    completion: .file(extensions: ["json", "otio"]))
  var composition: String?

  @Flag(
    help:
      "Print the composition document (with --composition: as read; else the whole clips as one) and do nothing else."
  )
  var printComposition = false

  @Option(
    help: ArgumentHelp(
      "The layout --print-composition writes: json (default) or otio.", valueName: "format"))
  var format: CompositionFormatChoice = .json

  @Flag(help: "Plan and check that the output may be written, print the summary, run nothing.")
  var dryRun = false

  @Flag var method: MethodChoice = .auto

  @Option(
    help: ArgumentHelp(
      "Render at this size (even numbers; default: the largest display width by the largest display height).",
      valueName: "WxH"))
  var size: RenderSize?

  @Flag var fit: FitMode = .fit

  @Option(
    name: [.short, .long],
    help: ArgumentHelp(
      "Encode with this platform's recipe (mediacompat's database) and check the output passes there.",
      valueName: "platform"),
    completion: .list(PlatformDatabase.names))
  var platform: String?

  @OptionGroup(title: "Export") var export: ExportOptions

  @OptionGroup var parallel: ParallelOptions

  @OptionGroup var diagnostics: DiagnosticOptions

  @OptionGroup var input: InputOptions

  @Option(
    help: ArgumentHelp(
      "Give up after this many seconds in all: probing, rendering and checking (error code timeout; nothing is written).",
      valueName: "seconds"))
  var timeout: Double?

  static func main() { mainAsTool() }

  /// The arguments' checks, made at the start of `run()` rather than in `validate()`: the
  /// parser checks for unknown options only after `validate()`, so a misspelt option would be
  /// hidden behind "give the output file" (issue 20). Errors are usage errors (exit 64).
  func checkArguments() throws {
    if composition != nil || printComposition {
      try checkCompositionArguments()
      return
    }
    if clips.isEmpty && input.filesFrom == nil && output == nil {
      throw ValidationError("give the clips to merge and the output file (-o FILE)")
    }
    if clips.isEmpty && input.filesFrom == nil { throw ValidationError("give the clips to merge") }
    guard let output else {
      throw ValidationError("give the output file with -o FILE (.mp4, .m4v or .mov)")
    }
    if clips.contains("-") {
      throw ValidationError("standard input cannot be a clip (each clip is read twice)")
    }
    if let timeout, !(timeout > 0 && timeout.isFinite) {
      throw ValidationError("--timeout must be a positive number of seconds")
    }
    if MergeRequest.container(for: output) == nil {
      throw ValidationError(Self.extensionsMessage)
    }
    if plan && dryRun { throw ValidationError("--plan and --dry-run cannot be combined") }
    if method == .copy && (size != nil || fit == .fill || platform != nil) {
      throw ValidationError("--copy keeps the clips as they are: no --size, --fill or --platform")
    }
    let exportRequest = try export.request()
    if method == .copy, let reason = exportRequest.copyBlockReason {
      throw ValidationError("--copy keeps the clips as they are, but \(reason)")
    }
    if let platform { _ = try Self.platform(named: platform) }
  }

  /// The usage error for an output name without a known extension.
  static let extensionsMessage = "the output must end in .mp4, .m4v, .mov, .m4a, .webm or .mkv"

  /// The one platform (or alias for platforms with the same recipe) `--platform` names.
  static func platform(named name: String) throws -> Platform {
    guard let platforms = PlatformDatabase.resolve(name), let first = platforms.first else {
      throw ValidationError("unknown platform '\(name)' (see mediacompat --list-platforms)")
    }
    if platforms.contains(where: { $0.transcode != first.transcode }) {
      throw ValidationError(
        "'\(name)' names platforms with different recipes; name one of "
          + platforms.map(\.id).joined(separator: ", "))
    }
    return first
  }

  func run() throws {
    // --timeout counts from here: probing, planning, rendering and checking all fall within it.
    let deadline = timeout.map { MergeExecutor.clock() + $0 }
    try checkArguments()
    installInterruptHandlers {
      TemporaryFiles.removeAll()
      Console.error("mediamerge", "interrupted: nothing was written [interrupted]")
    }
    ignoreBrokenPipe()
    tuneMemoryAllocator()
    diagnostics.ffmpegLogLevel.apply()
    if composition != nil || printComposition {
      try runComposition()
      return
    }

    var paths: [String] = []
    let list = try input.inputs(arguments: clips)
    while let next = list.next() {
      guard case .path(let path) = next else {
        throw ValidationError("standard input cannot be a clip (each clip is read twice)")
      }
      paths.append(path)
    }
    if paths.isEmpty { throw ValidationError("the list names no clips") }

    let (probed, errors) = probe(paths)
    if !errors.isEmpty {
      for (index, error) in errors.enumerated() { report(error, json: index == 0) }
      throw ExitCode(ExitStatus.failure)
    }
    do throws(MergeError) {
      if let deadline, let timeout, MergeExecutor.clock() >= deadline {
        throw .timeout(seconds: timeout)
      }
      var request = MergeRequest(
        output: outputPath, size: size, fit: fit, method: method,
        platform: try? platform.map(Self.platform(named:)),
        verbose: diagnostics.verbose)
      request.export = (try? export.request()) ?? ExportRequest()
      let merge = try MergePlanner(request: request).plan(probed)
      if plan {
        let json = try? MediaToolsJSONEncoder().encode(merge)
        Console.out(String(decoding: json ?? Data(), as: UTF8.self) + "\n")
        return
      }
      if !diagnostics.quiet { Console.errorText(MergeSummary.plan(merge)) }
      if diagnostics.verbose {
        Console.errorText("the equivalent ffmpeg command: \(MergeSummary.commandLine(merge))\n")
      }
      let executor = MergeExecutor(
        overwrite: outputFile.force, sync: !outputFile.noSync, export: request.export)
      try executor.checkOutput(merge)
      if dryRun {
        if !diagnostics.quiet { Console.errorText("dry run: nothing was written\n") }
        return
      }
      let bar = ProgressBar(label: outputPath, quiet: diagnostics.quiet)
      let total = merge.duration.seconds
      let result: MergeResult
      do throws(MergeError) {
        result = try executor.run(merge, deadline: deadline) { bar.update(done: $0, total: total) }
      } catch {
        bar.finish()
        throw error
      }
      bar.finish()
      if !diagnostics.quiet { Console.errorText(MergeSummary.result(merge, result)) }
    } catch {
      report(error)
      throw ExitCode(ExitStatus.failure)
    }
  }

  /// Probes every clip (`--jobs` at once), in order.
  ///
  /// - Returns: the clips, and the errors of those that could not be probed, in order.
  func probe(_ paths: [String]) -> (clips: [ProbedClip], errors: [MergeError]) {
    let prober = ClipProber(
      allowReferences: input.allowReferences, timeout: timeout, inputFormat: input.inputFormat)
    let results = Mutex<[Int: Result<ProbedClip, MergeError>]>([:])
    orderedParallel(count: paths.count, jobs: parallel.jobs) { index in
      do throws(MergeError) {
        return Result<ProbedClip, MergeError>.success(try prober.probe(paths[index]))
      } catch {
        return .failure(error)
      }
    } emit: { index, result in
      results.withLock { $0[index] = result }
    }
    var clips: [ProbedClip] = []
    var errors: [MergeError] = []
    for index in paths.indices {
      switch results.withLock({ $0[index] })! {
      case .success(let clip): clips.append(clip)
      case .failure(let error): errors.append(error)
      }
    }
    return (clips, errors)
  }

  /// The error on standard error (with its code), and as a JSON record with `--plan` (one
  /// record: the first error's).
  func report(_ error: MergeError, json: Bool = true) {
    Console.error(
      "mediamerge", (error.path.map { "\($0): " } ?? "") + error.message + " [\(error.code)]")
    if plan, json,
      let data = try? MediaToolsJSONEncoder().encode(
        ErrorRecord(path: error.path ?? outputPath, code: error.code, message: error.message))
    {
      Console.out(String(decoding: data, as: UTF8.self) + "\n")
    }
  }
}

extension MethodChoice: EnumerableFlag {
  /// The help line of each method flag.
  public static func help(for value: MethodChoice) -> ArgumentHelp? {
    switch value {
    case .auto: "Copy the video when every clip shares its codec parameters, else encode (default)."
    case .copy: "Copy the video or fail (incompatible_inputs, with every reason)."
    case .encode: "Always decode, normalise and encode."
    }
  }
}

extension FitMode: EnumerableFlag {
  /// The help line of each fitting flag.
  public static func help(for value: FitMode) -> ArgumentHelp? {
    switch value {
    case .fit: "Fit each clip inside the render size, black bars around it (default)."
    case .fill: "Fill the render size with each clip, cropping what overflows."
    }
  }
}

extension RenderSize: ExpressibleByArgument {
  /// Parses `WIDTHxHEIGHT` (even numbers).
  public init?(argument: String) { self.init(parsing: argument) }
}
