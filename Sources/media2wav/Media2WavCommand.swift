import ArgumentParser
import AudioExtract
import MediaCore
import OutputKit
import AV
import MediaProbe
import Synchronization
import ToolSupport

#if canImport(Glibc)
  import Glibc
#endif
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

@main
struct Media2WavCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "media2wav",
    abstract: "Decode the audio of media files and write WAV (our own RIFF/RF64 writer).",
    discussion: """
      Decodes one audio stream of each input with FFmpeg's libraries and writes it as WAV. The \
      samples equal `ffmpeg -i IN -map 0:a:N -f s16le -` byte for byte (same libraries), and \
      with --start/--duration they equal `ffmpeg -ss S -t T -i IN ...`.

      OUTPUT: by default next to each input, with a .wav extension; --output-dir puts them in a \
      directory; -o names the one output, and -o - writes to standard output. A file is written \
      as an unnamed file in its directory (O_TMPFILE) and linked under its name when complete: \
      an error, SIGINT, SIGTERM, even SIGKILL or a power cut leaves no partial file (on a file \
      system without O_TMPFILE a hidden .NAME.XXXXXX.part file is used, which only SIGKILL \
      leaves behind). The finished file is synced to disk (fsync) before it gets its name, and \
      its directory after; --no-sync skips both. An existing regular file is replaced \
      (atomically) only with --force; anything else is never replaced, but a character device \
      or a named pipe (-o /dev/null) is written into as a stream, like standard output. When the \
      reader of standard output goes away (media2wav -o - IN | head -c 44), media2wav stops \
      quietly with status 0. Each WAV written ends with one line on standard error, whether or \
      not it is a terminal (wrote out.wav: 2:03.4, 48000 Hz, 2 ch, s16, 23.7 MB; a progress bar \
      shows on a terminal until then); --quiet drops it, standard output keeps only the WAV \
      data or the --json report.

      HEADER: a plain 44-byte PCM header for mono/stereo audio of at most 16 bits and 48 kHz; \
      WAVE_FORMAT_EXTENSIBLE with the real channel mask (5.1 = 0x3F, 5.1(side) = 0x60F) for more \
      channels, more bits or higher rates; float as format 3 with a fact chunk. When the data may \
      pass 4 GiB, a JUNK chunk is reserved and becomes ds64 (RF64) if it does. On standard output \
      the sizes are 0xFFFFFFFF ("read to the end") and there is no fact chunk.

      STREAM: the default audio stream is the ffmpeg CLI's choice: a stream that has packets near \
      the start of the file, then one marked default, then the one with the most channels, then \
      the first (--verbose prints it). --stream N picks the \
      N-th audio stream from 0 (as -map 0:a:N); --language picks by language tag.

      FORMAT: --format s16 by default (as -acodec pcm_s16le); auto keeps the source's depth \
      (24-bit FLAC to s24, float codecs such as AAC, MP3, Opus to f32). --rate and --channels \
      resample and down/upmix with libswresample; by default the source's rate and channels \
      are kept. Corrupt packets are skipped with a warning, as ffmpeg does; if the format \
      changes mid-stream, the rest is converted to the first frame's format. Audio FFmpeg \
      cannot read (no packet found in a stream that holds audio, as in 32-bit FLAC, or none \
      that decodes) fails with no_decodable_audio and writes nothing. Uncompressed PCM in MP4 \
      (ipcm, fpcm) is read as its pcmC box says (24-bit, 32-bit, float), which FFmpeg 5.1 \
      does not do.

      ANALYSIS: --json --analyze adds an "analysis" object to the report, measured on the \
      samples as written, in the same decode pass: integrated loudness (LUFS), loudness range \
      (LU), true peak (dBTP) and sample peak (dBFS) per EBU R128 / ITU-R BS.1770-4 with \
      libebur128, RMS and DC offset per channel, clipped samples (runs at full scale), silence \
      spans (--silence-threshold, --silence-duration, as silencedetect) and all_silent. \
      --analyze-only writes no file and prints the report of the decoded samples as 32-bit \
      float. --normalize LUFS measures first, then writes with one linear gain to that \
      integrated loudness, lowered so the true peak stays at or below --true-peak (default -1 \
      dBTP); the report's "normalization" gives the gain, what limited it, and the output's \
      loudness measured again. Levels that are minus infinity (silence) are null.

      EXIT STATUS: 0 when every input was converted (or the reader of standard output went away), \
      1 when any failed (no audio stream, no decodable audio, unreadable input, output exists, \
      disk full ...), 64 for usage errors, 130/143 when interrupted by SIGINT/SIGTERM. \
      \(CommonHelp.dashes)

      EXAMPLES:
        media2wav interview.mp4                       # interview.wav, s16
        media2wav --format auto --output-dir wav/ *.flac
        media2wav -o - --rate 16000 --channels 1 talk.m4a | sox -t wav - -n stat
        media2wav --start 1:30 --duration 10 --fade-out 2 song.mp3 -o clip.wav
        media2wav --json --jobs 4 --output-dir out/ *.mkv | jq '.[] | .samples'
        media2wav --analyze-only *.mp3 | jq '.[] | {input, lufs: .analysis.integrated_loudness}'
        media2wav --json --normalize -16 talk.m4a | jq .normalization
      """,
    version: "0.1.0",
    subcommands: [MixCommand.self])

  @Argument(help: "Media files ('-' for standard input, which needs -o).")
  var inputs: [String] = []

  @Option(
    name: [.short, .long],
    help: ArgumentHelp(
      "The output file ('-' for standard output); one input only.", valueName: "file"))
  var output: String?

  @Option(
    help: ArgumentHelp("Write the outputs in this directory (it must exist).", valueName: "dir"))
  var outputDir: String?

  @OptionGroup var outputFile: OutputFileOptions

  @Option(
    help: ArgumentHelp(
      "Decode the N-th audio stream, counting from 0 (as -map 0:a:N).", valueName: "n"))
  var stream: Int?

  @Option(
    help: ArgumentHelp(
      "Decode the first audio stream in this language (e.g. eng).", valueName: "code"))
  var language: String?

  @Option(
    help: ArgumentHelp(
      "Sample encoding: u8, s16, s24, s32, f32, f64, or auto (keep the source's depth).",
      valueName: "format"))
  var format: SampleFormatChoice = .s16

  @Option(help: ArgumentHelp("Output sample rate in Hz (default: the source's).", valueName: "hz"))
  var rate: Int?

  @Option(
    help: ArgumentHelp("Output channels, down- or upmixed (default: the source's).", valueName: "n")
  )
  var channels: Int?

  @Option(help: ArgumentHelp("Start here: seconds or [hh:]mm:ss[.mmm].", valueName: "time"))
  var start: TimeArgument?

  @Option(help: ArgumentHelp("Stop here (a time in the input, like --start).", valueName: "time"))
  var end: TimeArgument?

  @Option(
    help: ArgumentHelp("Write at most this long (seconds or [hh:]mm:ss[.mmm]).", valueName: "time"))
  var duration: TimeArgument?

  @Option(help: ArgumentHelp("Fade in linearly over this many seconds.", valueName: "seconds"))
  var fadeIn: Double?

  @Option(
    help: ArgumentHelp(
      "Fade out linearly over the last seconds of the output.", valueName: "seconds"))
  var fadeOut: Double?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Change the volume by this many decibels (e.g. -6).", valueName: "db"))
  var gain: Double?

  @OptionGroup(title: "Analysis and normalization") var analysis: AnalysisFlags

  @OptionGroup var parallel: ParallelOptions

  @Flag(
    help: "Print a JSON report per file on standard output (an object, or an array for several).")
  var json = false

  @OptionGroup var diagnostics: DiagnosticOptions

  @OptionGroup var input: InputOptions

  @OptionGroup var network: NetworkOptions

  @OptionGroup var limits: TimeLimitOptions

  /// `media2wav mix ...` goes to `MixCommand` before the extraction's own options are parsed
  /// (both have `-o`, and a mix's per-input options are not the extraction's). A file named
  /// `mix` or `help` is converted as `./mix` or `./help`.
  static func main() {
    let arguments = commandLineArguments
    if arguments.first == "mix" {
      MixCommand.mainAsTool(Array(arguments.dropFirst()))
    } else if arguments == ["help", "mix"] {
      MixCommand.mainAsTool(["--help"])
    } else {
      mainAsTool()
    }
  }

  func validate() throws {
    if inputs.isEmpty && input.filesFrom == nil {
      throw ValidationError("give the files to convert, or --files-from")
    }
    if output != nil && input.filesFrom != nil {
      throw ValidationError("-o takes one input; use --output-dir with --files-from")
    }
    if diagnostics.quiet && json {
      throw ValidationError("--quiet prints no report; it cannot be combined with --json")
    }
    if output != nil && outputDir != nil {
      throw ValidationError("-o and --output-dir cannot be combined")
    }
    if let outputDir, let problem = outputDirectoryProblem(outputDir) {
      throw ValidationError(problem)
    }
    if output != nil && inputs.count > 1 {
      throw ValidationError("-o takes one input; use --output-dir for several")
    }
    if inputs.contains("-") && output == nil {
      throw ValidationError("reading standard input needs -o")
    }
    if inputs.filter({ $0 == "-" }).count > 1 {
      throw ValidationError("'-' can be given only once")
    }
    if output == "-" && isatty(STDOUT_FILENO) == 1 {
      throw ValidationError(
        "refusing to write WAV data to a terminal; redirect or pipe standard output")
    }
    if output == "-" && json {
      throw ValidationError("--json cannot share standard output with -o -")
    }
    if stream != nil && language != nil {
      throw ValidationError("--stream and --language cannot be combined")
    }
    if let stream, stream < 0 { throw ValidationError("--stream counts from 0") }
    if let rate, !(1...768_000).contains(rate) {
      throw ValidationError("--rate must be between 1 and 768000 Hz")
    }
    if let channels, !(1...64).contains(channels) {
      throw ValidationError("--channels must be between 1 and 64")
    }
    if end != nil && duration != nil {
      throw ValidationError("--end and --duration cannot be combined")
    }
    if let end, end.seconds <= (start?.seconds ?? 0) {
      throw ValidationError("--end must come after --start")
    }
    for (name, value) in [("--fade-in", fadeIn), ("--fade-out", fadeOut)] {
      if let value, !(value >= 0 && value.isFinite) {
        throw ValidationError("\(name) must be a positive number of seconds")
      }
    }
    if let gain, !gain.isFinite { throw ValidationError("--gain must be a number of decibels") }
    try validateAnalysis()
    // --analyze-only writes nothing: inputs that share a name (tone.m4a, tone.wav) may both be
    // analysed.
    let targets = analysis.analyzeOnly ? [] : inputs.compactMap(outputPath)
    if Set(targets).count != targets.count {
      throw ValidationError("two inputs would write the same output file")
    }
  }

  /// Where the WAV for `input` goes (nil: a URL with nowhere to put its WAV).
  func outputPath(for input: String) -> String? {
    if let output { return output }
    let remote = network.allowNetwork && InputSource.isRemote(input)
    // A URL's name is its last path component, without a query.
    let path = remote ? String(input.split(separator: "?").first ?? "") : input
    let name = path.split(separator: "/").last.map(String.init) ?? path
    let stem = name.lastIndex(of: ".").map { name[..<$0] }.map(String.init) ?? name
    if let outputDir {
      return (outputDir.hasSuffix("/") ? outputDir : outputDir + "/") + stem + ".wav"
    }
    if remote { return nil }
    let directory = input.lastIndex(of: "/").map { String(input[...$0]) } ?? ""
    return directory + stem + ".wav"
  }

  var options: ExtractOptions {
    var options = ExtractOptions()
    options.stream =
      stream.map(StreamChoice.audioIndex) ?? language.map(StreamChoice.language) ?? .automatic
    options.encoding = format.encoding
    options.sampleRate = rate
    options.channels = channels
    options.start = start?.seconds
    options.duration = duration?.seconds ?? end.map { $0.seconds - (start?.seconds ?? 0) }
    options.fadeIn = fadeIn
    options.fadeOut = fadeOut
    options.gainDB = gain
    options.allowReferences = input.allowReferences
    options.inputFormat = input.inputFormat
    options.sync = !outputFile.noSync
    options.timeout = limits.timeout
    options.maxBytes = network.maxBytes
    options.headers = network.headers
    analysis.apply(to: &options)
    return options
  }

  func run() throws {
    installInterruptHandlers(cleanup: TemporaryFiles.removeAll)
    ignoreBrokenPipe()
    diagnostics.ffmpegLogLevel.apply()
    tuneMemoryAllocator()
    let extractor = AudioExtractor(options: options)
    let inputs = try input.inputs(arguments: self.inputs)
    let workers = workerCount(items: inputs.knownCount, jobs: parallel.jobs)
    let showBar = workers == 1
    let (quiet, verbose, force) = (diagnostics.quiet, diagnostics.verbose, outputFile.force)
    let report = Mutex(
      ReportWriter(
        writer: json || analysis.analyzeOnly
          ? JSONStreamWriter(layout: inputs.isSingleArgument ? .single : .array) : nil,
        verbose: verbose, quiet: quiet))
    let (command, sources) = (self, network)

    orderedParallel(workers: workers, next: inputs.next) { _, path in
      let input = path.display
      let bar = ProgressBar(label: input, quiet: quiet || !showBar)
      defer { bar.finish() }
      if command.analysis.analyzeOnly {
        return command.analyzeOnly(path, sources: sources, extractor: extractor, bar: bar)
      }
      guard let target = command.outputPath(for: path.name) else {
        return .failure(
          input: input,
          error: .invalidOption(
            "a URL input needs --output-dir or -o: there is no folder beside it"))
      }
      let destination: OutputDestination =
        target == "-" ? .standardOutput : .file(path: target, overwrite: force)
      do throws(ExtractError) {
        let report = try extractor.extract(
          sources.source(for: path), path: input, to: destination
        ) { progress in bar.update(done: progress.seconds, total: progress.total) }
        return .success(
          report,
          bytes: WroteLine.bytes(path: target, format: report.format, samples: report.samples))
      } catch {
        // The reader of standard output went away (`| head -c 44`): it has what it wanted.
        if error.isBrokenPipe && destination == .standardOutput { return .readerGone }
        return .failure(input: input, error: error)
      }
    } emit: { _, outcome in
      report.withLock { $0.add(outcome) }
    }
    let failures = report.withLock { $0.finish() }
    if failures > 0 { throw ExitCode(1) }
  }
}

/// One input's result.
enum Outcome: Sendable {
  /// A WAV was written: the report, and the output's size in bytes.
  case success(ExtractionReport, bytes: Int64)
  /// `--analyze-only`: the analysis, nothing written.
  case analyzed(AnalysisReport)
  case failure(input: String, error: ExtractError)
  /// Standard output's reader closed the pipe: nothing to report, not a failure.
  case readerGone
}

/// Reports outcomes in input order: messages on stderr, JSON on stdout with --json.
struct ReportWriter: ~Copyable {
  var writer: JSONStreamWriter?
  let verbose: Bool
  /// `--quiet`: errors only, no warnings.
  let quiet: Bool
  var failures = 0

  init(writer: JSONStreamWriter?, verbose: Bool, quiet: Bool) {
    self.writer = writer
    self.verbose = verbose
    self.quiet = quiet
  }

  mutating func add(_ outcome: Outcome) {
    switch outcome {
    case .success(let report, let bytes):
      for warning in report.warnings where !quiet {
        Console.error("media2wav", "\(report.input): warning: \(warning)")
      }
      if !quiet {
        Console.errorText(
          WroteLine.text(
            output: report.output, format: report.format, samples: report.samples,
            rf64: report.rf64, bytes: bytes) + "\n")
      }
      if verbose {
        let f = report.format
        Console.error(
          "media2wav",
          "\(report.input): stream #\(report.streamIndex) (\(report.codec)) → \(report.output): "
            + "\(f.encoding.rawValue) \(f.sampleRate) Hz \(f.channels) ch, \(report.samples) samples"
            + (report.rf64 ? ", RF64" : ""))
      }
      writer?.write(report)
    case .analyzed(let report):
      for warning in report.warnings where !quiet {
        Console.error("media2wav", "\(report.input): warning: \(warning)")
      }
      writer?.write(report)
    case .readerGone:
      break
    case .failure(let input, let error):
      failures += 1
      Console.error("media2wav", "\(input): \(error.message)")
      writer?.write(
        ErrorRecord(key: "input", path: input, code: error.code, message: error.message))
    }
  }

  func finish() -> Int {
    writer?.finish()
    return failures
  }
}

/// `--format`: a PCM encoding, or `auto` to keep the source's depth.
enum SampleFormatChoice: String, CaseIterable, ExpressibleByArgument {
  case u8, s16, s24, s32, f32, f64, auto

  /// The encoding to write; nil for `auto`.
  var encoding: PCMEncoding? { PCMEncoding(rawValue: rawValue) }
}
