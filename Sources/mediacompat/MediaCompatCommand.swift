import ArgumentParser
import CompatFix
import Compatibility
import OutputKit
import MediaCore
import AV
import MediaProbe
import Synchronization
import ToolSupport

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

@main
struct MediaCompatCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "mediacompat",
    abstract:
      "Tell whether media files play natively on a platform, which rules fail, and how to fix them.",
    discussion: """
      Probes each file (as mediaprobe) and checks it against a platform database embedded in the \
      tool: historical tables (iphone-2012, android-2.3.3, android-3.0, android-4.0, \
      iphone-browser-2012, ipad-browser-2012, android-browser-2012, mobile-low, mobile-medium, \
      mobile-high) and modern data (ios-17, android-14, chrome, safari, firefox, apple-hls); \
      aliases: ios and iphone = ios-17, android = android-14, web = chrome, safari and firefox. \
      Every rule cites its source (--explain shows them). ios-17 is what the device plays from a \
      file (a file an iPhone records passes: 4K at 60 fps, H.264 up to level 5.2, 240 fps \
      slo-mo); apple-hls is Apple's stricter HLS authoring limits (H.264 up to level 4.2, HEVC up \
      to 5.0, at most 60 fps). A frame-rate limit is compared with the nominal rate: a \
      variable-rate clip within 1% of a standard rate (60.06 fps) counts as that rate (60).

      For each file and platform the verdict is PASS, WARN (may not play everywhere: not \
      guaranteed, hardware-dependent, or a value is unknown) or FAIL, with every failing rule: \
      the field, the file's value, the limit, the reason, the source, and the fix it needs: \
      remux (container or codec tag only, e.g. hev1 to hvc1), transcode-audio or transcode-video. \
      --suggest prints an ffmpeg command that would make the file pass (copying what already \
      plays; the output's container and audio codec are checked against the platform's rules \
      before they are suggested, and an H.264 re-encode is labelled with the lowest level that \
      allows its size and frame rate, from H.264 Table A-1). Without --platform, a table across \
      the modern platforms (--all-platforms adds the 2012 ones). A file that cannot be probed is \
      one error line on standard error, not a row of the table.

      How the verdicts are verified: the chrome and firefox data are checked against real \
      players: the test suite plays a generated corpus of the web's containers and codecs in \
      headless Chromium and Firefox ESR and fails on any PASS that does not play or FAIL that \
      plays. The other platforms rest on the documents their rules cite (Apple, Android, MDN, \
      caniuse, the 2012 tables); where a document is silent the verdict is WARN with the reason. \
      --explain P says which applies to P.

      --delivery stream adds the streaming advisories: MP4 without fast start (moov after mdat) \
      on Android, and Apple's rule that video streamed over cellular for more than 10 minutes \
      needs HTTP Live Streaming (with the historical 10 MB note on iphone-2012).

      --fix makes each file play on every named --platform with the least work that does it: \
      nothing (it already passes; no output unless --always-write), a retag (the same container, \
      packets copied, the video's sample entry hev1 -> hvc1), a remux (another container, every \
      packet copied; MP4 with +faststart), an audio-only transcode (video copied; AAC or Opus, \
      channels kept unless a platform caps them), or a video transcode (libx264 CRF 23, preset \
      medium, at the platform's profile and the lowest H.264 level that allows the size and rate; \
      the size and frame rate kept unless a platform's limit needs them lowered). The step comes \
      from the failing rules, and the report says why each cheaper step could not do it. The \
      work is done in-process (no ffmpeg executable); the output is written atomically and \
      re-checked before it gets its name: every platform must pass it and it must decode without \
      an error (the --verify path; --fast-recheck: video keyframes only); a video transcode \
      reports SSIM and PSNR against the input. \
      A fix that fails its re-check is an error (fix_check_failed) and nothing is written. \
      --dry-run prints the plan and its exact settings; --suggest adds the equivalent ffmpeg \
      command of the same plan. One JSON record per file with --ndjson (schema: \
      schemas/mediacompat-fix.schema.json). Errors per file (the others go on): \
      no_playable_stream, drm_protected, not_fixable, output_is_input, output_exists, \
      write_error (a full disk, a read-only directory), fix_check_failed, unsupported_input \
      (standard input, a URL, or a stream FFmpeg cannot read, such as 32-bit FLAC), \
      interrupted. With --fix, EXIT STATUS is 0 when every file was fixed, already passed or was \
      planned, 1 when some file could not be fixed.

      EXIT STATUS: 0 every file passes every requested platform (warnings allowed), 1 some file \
      fails (with --strict, warnings fail too), 2 a file could not be probed, 64 usage errors \
      (an unknown option or platform name). \(CommonHelp.dashes)

      EXAMPLES:
        mediacompat --platform ios-17 upload.mp4 || echo "needs work"
        mediacompat --platform ios,android --suggest clip.mkv
        mediacompat clip.mov                     # a table across the modern platforms
        mediacompat --all-platforms clip.mov     # and the 2012 ones
        mediacompat --json --platform web *.mp4 | jq '.[] | select(.results[].verdict=="fail") | .path'
        if mediacompat -q --strict --platform safari "$f"; then publish "$f"; fi
        mediacompat --explain iphone-2012
        mediacompat --fix --platform ios-17 --platform android-14 --platform chrome \\
          --platform firefox --output-dir fixed/ --ndjson uploads/*
        mediacompat --fix --platform ios clip.mkv -o clip.mp4
        mediacompat --fix --dry-run --suggest --platform chrome clip.mkv
      """,
    version: "0.1.0")

  @Argument(help: "Media files to check ('-' for standard input).")
  var paths: [String] = []

  @Option(
    name: [.short, .long],
    help: ArgumentHelp(
      "Platforms or aliases, comma-separated or repeated (default: the modern platforms).",
      valueName: "platform"),
    completion: .list(PlatformDatabase.names))
  var platform: [String] = []

  @Flag(help: "Without --platform: every platform, the 2012 ones too (default: the modern ones).")
  var allPlatforms = false

  @Flag(help: "Print an ffmpeg command that would make each failing file pass.")
  var suggest = false

  @Flag(help: "Print JSON (an object for one file, an array for several).")
  var json = false

  @Flag(help: "Print one compact JSON object per line.")
  var ndjson = false

  @Flag(help: "Warnings fail too (exit 1).")
  var strict = false

  @Option(
    help: ArgumentHelp(
      "How the file is delivered: file (default) or stream (adds streaming advisories).",
      valueName: "kind"))
  var delivery: Delivery = .file

  @Flag(help: "List the platforms (with --json: as JSON).")
  var listPlatforms = false

  @Option(
    help: ArgumentHelp(
      "Print a platform's rules in words, with their sources.", valueName: "platform"),
    completion: .list(PlatformDatabase.names))
  var explain: String?

  @Flag(help: "Make each file play on every --platform with the least work (see below).")
  var fix = false

  @Option(
    name: [.short, .long],
    help: ArgumentHelp("With --fix and one file: the output file.", valueName: "file"),
    completion: .file())
  var output: String?

  @Option(
    help: ArgumentHelp(
      "With --fix: write each output into this directory (NAME.EXT; it must exist).",
      valueName: "dir"),
    completion: .directory)
  var outputDir: String?

  @Flag(help: "With --fix: write an output also for a file that already passes (a copy).")
  var alwaysWrite = false

  @Flag(help: "With --fix: print the plan and its settings, write nothing.")
  var dryRun = false

  @Flag(
    help:
      "With --fix: the re-check decodes only video keyframes (and all audio), as mediaprobe --verify-fast."
  )
  var fastRecheck = false

  @OptionGroup var outputFile: OutputFileOptions

  @OptionGroup var parallel: ParallelOptions

  @OptionGroup var diagnostics: DiagnosticOptions

  @OptionGroup var input: InputOptions

  @OptionGroup var network: NetworkOptions

  @OptionGroup var limits: TimeLimitOptions

  static func main() { mainAsTool() }

  func validate() throws {
    if !listPlatforms && explain == nil && paths.isEmpty && input.filesFrom == nil {
      throw ValidationError("give files to check, --list-platforms or --explain")
    }
    if json && ndjson { throw ValidationError("--json and --ndjson cannot be combined") }
    if allPlatforms && !platform.isEmpty {
      throw ValidationError("--all-platforms and --platform cannot be combined")
    }
    if diagnostics.quiet && (json || ndjson) {
      throw ValidationError(
        "--quiet prints no report; it cannot be combined with --json or --ndjson")
    }
    if fix {
      if platform.isEmpty { throw ValidationError("--fix needs --platform") }
      if output != nil && outputDir != nil {
        throw ValidationError("-o/--output and --output-dir cannot be combined")
      }
      if output == nil && outputDir == nil && !dryRun && !suggest {
        throw ValidationError("--fix needs -o FILE or --output-dir DIR (or --dry-run)")
      }
      if !dryRun, let outputDir, let problem = outputDirectoryProblem(outputDir) {
        throw ValidationError(problem)
      }
      if output != nil && (paths.count != 1 || input.filesFrom != nil) {
        throw ValidationError("-o/--output takes one input; use --output-dir for several")
      }
      if json { throw ValidationError("--fix reports with --ndjson (one record per file)") }
    } else if output != nil || outputDir != nil || alwaysWrite || dryRun || outputFile.force
      || fastRecheck
    {
      throw ValidationError(
        "-o, --output-dir, --always-write, --dry-run, --fast-recheck and --force need --fix")
    }
    do {
      _ = try PlatformDatabase.resolve(list: platform + (explain.map { [$0] } ?? []))
    } catch {
      throw ValidationError("\(error) (see --list-platforms)")
    }
  }

  func run() throws {
    ignoreBrokenPipe()
    tuneMemoryAllocator()
    diagnostics.ffmpegLogLevel.apply()
    if listPlatforms { return try printPlatforms() }
    if let explain { return try printExplanation(explain) }

    let selected = (try? PlatformDatabase.resolve(list: platform)) ?? []
    if fix { return try runFix(platforms: selected) }
    let platforms =
      !selected.isEmpty
      ? selected
      : allPlatforms ? PlatformDatabase.all : PlatformDatabase.all.filter { $0.era == "modern" }
    let checker = CompatibilityChecker(delivery: delivery)
    var probeOptions = ProbeOptions(
      allowReferences: input.allowReferences, timeout: limits.timeout, maxBytes: network.maxBytes,
      inputFormat: input.inputFormat)
    probeOptions.headers = network.headers
    let prober = Prober(options: probeOptions)
    let options = network
    let suggest = self.suggest
    let inputs = try input.inputs(arguments: paths)
    let layout: JSONStreamWriter.Layout =
      ndjson ? .lines : inputs.isSingleArgument ? .single : .array
    let output = Mutex(
      CompatReport(
        writer: json || ndjson ? JSONStreamWriter(layout: layout) : nil,
        quiet: diagnostics.quiet,
        table: selected.isEmpty,
        platforms: platforms, strict: strict))
    let workers = workerCount(items: inputs.knownCount, jobs: parallel.jobs)
    orderedParallel(workers: workers, next: inputs.next) { _, input in
      let path = input.display
      let source = options.source(for: input)
      switch prober.outcome(for: source, path: path) {
      case .failure(let path, let error): return FileResult.failure(path: path, error: error)
      case .success(let info):
        let verdicts = platforms.map { platform in
          var verdict = checker.check(info, on: platform)
          if suggest {
            verdict.suggestion = Suggestion(for: info, verdict: verdict, platform: platform)
          }
          return verdict
        }
        return .checked(path: path, verdicts: verdicts)
      }
    } emit: { _, result in
      output.withLock { $0.add(result) }
    }
    let status = output.withLock { $0.finish() }
    if status != ExitStatus.success { throw ExitCode(status) }
  }

  /// `--fix`: each file planned, rendered, re-checked and committed on a worker; the reports
  /// in input order.
  func runFix(platforms: [Platform]) throws {
    installInterruptHandlers(cleanup: TemporaryFiles.removeAll)
    let destination: FixDestination =
      dryRun ? .none : output.map { .file($0) } ?? outputDir.map { .directory($0) } ?? .none
    let fixer = Fixer(
      options: FixOptions(
        platforms: platforms, delivery: delivery, alwaysWrite: alwaysWrite, dryRun: dryRun,
        suggest: suggest, overwrite: outputFile.force, sync: !outputFile.noSync,
        timeout: limits.timeout, strict: strict, recheckScope: fastRecheck ? .keyframes : .all))
    let inputs = try input.inputs(arguments: paths)
    let writer = Mutex(ndjson ? JSONStreamWriter(layout: .lines) : nil)
    let failed = Atomic(false)
    let quiet = diagnostics.quiet
    let workers = workerCount(items: inputs.knownCount, jobs: parallel.jobs)
    orderedParallel(workers: workers, next: inputs.next) { _, input in
      fixer.fix(path: input.display, destination: destination)
    } emit: { _, report in
      if report.status == "failed" { failed.store(true, ordering: .relaxed) }
      writer.withLock { writer in
        if writer != nil {
          writer!.write(report)
        } else if !quiet && report.error == nil {
          Console.out(FixText.render(report))
        }
        if let error = report.error {
          Console.error("mediacompat", "\(report.path): \(error.code): \(error.message)")
        }
      }
    }
    writer.withLock { $0?.finish() }
    if failed.load(ordering: .relaxed) { throw ExitCode(ExitStatus.failure) }
  }

  func printPlatforms() throws {
    if json {
      struct Entry: Encodable {
        var id, name, era: String
        var aliases: [String]
      }
      let entries = PlatformDatabase.all.map {
        Entry(id: $0.id, name: $0.name, era: $0.era, aliases: $0.aliases)
      }
      Console.out(
        String(decoding: try MediaToolsJSONEncoder().encode(entries), as: UTF8.self) + "\n")
    } else {
      let rows =
        [["ID", "ERA", "ALIASES", "NAME"]]
        + PlatformDatabase.all.map { [$0.id, $0.era, $0.aliases.joined(separator: ","), $0.name] }
      Console.out(formatTable(rows))
    }
  }

  func printExplanation(_ name: String) throws {
    let platforms = PlatformDatabase.resolve(name) ?? []  // checked in validate()
    Console.out(platforms.map(PlatformExplanation.text).joined(separator: "\n"))
  }
}

/// One file's result.
enum FileResult: Sendable {
  case checked(path: String, verdicts: [PlatformVerdict])
  case failure(path: String, error: ProbeError)
}

/// Writes the results in input order and works out the exit status.
struct CompatReport: ~Copyable {
  var writer: JSONStreamWriter?
  let quiet: Bool
  let table: Bool
  let platforms: [Platform]
  let strict: Bool
  var rows: [[String]] = []
  var status = ExitStatus.success

  init(
    writer: JSONStreamWriter?, quiet: Bool, table: Bool,
    platforms: [Platform], strict: Bool
  ) {
    self.writer = writer
    self.quiet = quiet
    self.table = table
    self.platforms = platforms
    self.strict = strict
  }

  struct Checked: Encodable {
    var path: String
    var results: [PlatformVerdict]
  }

  mutating func add(_ result: FileResult) {
    switch result {
    case .failure(let path, let error):
      status = ExitStatus.unchecked
      Console.error("mediacompat", "\(path): \(error.message)")
      // One line on standard error (above); the table keeps to the files it could check.
      writer?.write(ErrorRecord(path: path, code: error.code, message: error.message))
    case .checked(let path, let verdicts):
      let worst = verdicts.map(\.verdict).max() ?? .pass
      if status == ExitStatus.success, worst == .fail || (strict && worst == .warn) {
        status = ExitStatus.failure
      }
      if writer != nil {
        writer!.write(Checked(path: path, results: verdicts))
      } else if quiet {
        return
      } else if table {
        rows.append(
          [path] + verdicts.map { $0.verdict == .pass ? "pass" : $0.verdict.rawValue.uppercased() })
        for verdict in verdicts {
          if let suggestion = verdict.suggestion {
            suggestions.append("\(path) → \(verdict.platform): \(suggestion.command)")
          }
        }
      } else {
        Console.out(VerdictText.render(path: path, verdicts: verdicts))
      }
    }
  }

  var suggestions: [String] = []

  /// Writes what is left (the table) and returns the exit status.
  func finish() -> Int32 {
    writer?.finish()
    if table && writer == nil && !quiet && !rows.isEmpty {
      Console.out(formatTable([["FILE"] + platforms.map(\.id)] + rows))
      if !suggestions.isEmpty {
        Console.out("\n" + suggestions.map { "suggest: " + $0 }.joined(separator: "\n") + "\n")
      }
    }
    return status
  }
}

extension Delivery: ExpressibleByArgument {}
