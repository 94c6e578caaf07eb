import ArgumentParser
import AudioExtract
import MediaCore
import OutputKit
import AV
import MediaProbe
import ToolSupport

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// `media2wav mix`: several inputs summed into one WAV, each with its own options.
struct MixCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "mix",
    abstract: "Mix several inputs into one WAV with AVFoundation's semantics (AVAudioMix).",
    usage:
      "media2wav mix -o <file> [<options>] <input> [<input options>] <input> [<input options>] ...",
    discussion: """
      Each input is followed by its own options, which apply to it until the next input: \
      media2wav mix -o out.wav clip.mov --volume 1 music.mp3 --volume 0.3 --loop --fade-in 2 \
      --fade-out 3. The command's own options (-o, --length, ...) may come anywhere. Or give \
      the whole mix as JSON with --description FILE (schema: media2wav-mix.schema.json).

      PER-INPUT OPTIONS: --stream N (the N-th audio stream) or --language CODE; --volume V \
      (linear, 0 and up; AVAudioMix's setVolume at 0; default 1); --gain DB (multiplied in); \
      --volume-at V@T (setVolume(V, at: T): V from T on, until the next change); --ramp \
      FROM:TO@T+D (setVolumeRamp: linear from FROM to TO over D seconds from T, then TO); \
      --fade-in S and --fade-out S (linear, from the input's start, and to where it ends in the \
      output); --start T and --duration T (trim the source, as -ss and -t); --at T (where it \
      starts on the output timeline; silence before); --loop (repeat to fill the output, \
      sample for sample). Times are seconds or [hh:]mm:ss[.mmm], on the output timeline for \
      --at, --volume-at and --ramp.

      THE SUM: every input is decoded, resampled and remixed to the output's rate and layout \
      (the first input's unless --rate or --channels) with libswresample, multiplied by its \
      volume, and added in input order in 32-bit float: no normalisation (amix with \
      normalize=0). A mono input plays in every output channel at its own level, as a mono \
      track plays on both sides in AVFoundation and in mediamerge's compositions (not \
      libswresample's -3 dB upmix). Samples past full scale are counted (clipped_samples and the time of the \
      first in --json); --limit bends them with a soft limiter instead (unchanged below -1 dBFS, \
      a tanh curve above it that approaches full scale and never passes it).

      LENGTH: --length first (default: the first input's, as editing apps make the video's \
      sound the reference), longest or shortest (of the inputs that do not loop), or seconds.

      The output is written as media2wav writes: atomically, RF64 past 4 GiB, -o - for a pipe.
      """)

  @Option(
    name: [.short, .long],
    help: ArgumentHelp("The output file ('-' for standard output).", valueName: "file"))
  var output: String

  @Option(
    help: ArgumentHelp(
      "The output's length: first (default), longest, shortest, or seconds.", valueName: "length"))
  var length: String = "first"

  @Option(
    help: ArgumentHelp("Output sample rate in Hz (default: the first input's).", valueName: "hz"))
  var rate: Int?

  @Option(
    help: ArgumentHelp("Output channels (default: the first input's).", valueName: "n"))
  var channels: Int?

  @Option(help: ArgumentHelp("Sample encoding: u8, s16, s24, s32, f32, f64.", valueName: "format"))
  var format: SampleFormatChoice = .s16

  @Flag(help: "Bend samples past full scale with a soft limiter instead of letting them clip.")
  var limit = false

  @Option(
    help: ArgumentHelp(
      "The mix as JSON (inputs with their options, length, format); no inputs on the command line then.",
      valueName: "file"))
  var description: String?

  @Flag(help: "Print a JSON report on standard output.")
  var json = false

  @OptionGroup var outputFile: OutputFileOptions

  @OptionGroup var references: ReferenceOptions

  @OptionGroup var diagnostics: DiagnosticOptions

  @Argument(
    parsing: .allUnrecognized,
    help: ArgumentHelp(
      "Inputs, each followed by its options (see the discussion).", valueName: "input"))
  var words: [String] = []

  func validate() throws {
    if diagnostics.quiet && json {
      throw ValidationError("--quiet prints no report; it cannot be combined with --json")
    }
    if format == .auto { throw ValidationError("--format auto does not apply to a mix") }
    if description != nil && !words.isEmpty {
      throw ValidationError("give the inputs either on the command line or with --description")
    }
    if description == nil && words.isEmpty { throw ValidationError("a mix needs inputs") }
    if output == "-" && json {
      throw ValidationError("--json cannot share standard output with -o -")
    }
    _ = try mix()
  }

  /// The mix the command line (or the description file) describes.
  func mix() throws -> MixDescription {
    var mix: MixDescription
    if let description {
      let shown = FileName.display(description)
      let fd = FileName.withCString(description) { open($0, O_RDONLY | O_CLOEXEC) }
      guard fd >= 0 else {
        throw ValidationError(
          "cannot read the mix description \(shown): \(String(cString: strerror(errno)))")
      }
      defer { close(fd) }
      var data = Data()
      var chunk = [UInt8](repeating: 0, count: 64 << 10)
      while true {
        let count = SystemCall.retryingOnInterrupt {
          chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        }
        if count < 0 {
          throw ValidationError(
            "cannot read the mix description \(shown): \(String(cString: strerror(errno)))")
        }
        if count == 0 { break }
        data.append(contentsOf: chunk[..<count])
      }
      do {
        mix = try JSONDecoder().decode(MixDescription.self, from: data)
      } catch {
        throw ValidationError("cannot read the mix description \(shown): \(error)")
      }
    } else {
      mix = MixDescription(inputs: try MixArguments.parse(words))
    }
    guard let length = MixLength(argument: length) else {
      throw ValidationError("--length must be first, longest, shortest or a number of seconds")
    }
    if description == nil || self.length != "first" { mix.length = length }
    if let rate { mix.sampleRate = rate }
    if let channels { mix.channels = channels }
    if description == nil || format != .s16 { mix.format = format.encoding ?? .s16 }
    if limit { mix.limit = true }
    if let problem = mix.problem { throw ValidationError(problem) }
    return mix
  }

  func run() throws {
    installInterruptHandlers(cleanup: TemporaryFiles.removeAll)
    ignoreBrokenPipe()
    tuneMemoryAllocator()
    diagnostics.ffmpegLogLevel.apply()
    let mix = try self.mix()
    let destination: OutputDestination =
      output == "-" ? .standardOutput : .file(path: output, overwrite: outputFile.force)
    let bar = ProgressBar(label: output, quiet: diagnostics.quiet)
    let encoder = MediaToolsJSONEncoder()
    let report: MixReport
    do throws(MixError) {
      report = try Mixer().mix(
        mix, to: destination, sync: !outputFile.noSync, allowReferences: references.allowReferences,
        inputFormat: references.inputFormat
      ) { progress in bar.update(done: progress.seconds, total: progress.total) }
      bar.finish()
    } catch {
      bar.finish()
      let path = error.input.map { mix.inputs[$0].path } ?? output
      Console.error("media2wav", "\(path): \(error.error.message)")
      if json {
        let record = ErrorRecord(
          key: "input", path: path, code: error.error.code, message: error.error.message)
        Console.out(String(decoding: try encoder.encode(record), as: UTF8.self) + "\n")
      }
      if error.error == .interrupted { throw ExitCode(130) }
      throw ExitCode(ExitStatus.failure)
    }
    if !diagnostics.quiet {
      for input in report.inputs {
        for warning in input.warnings {
          Console.error("media2wav", "\(input.input): warning: \(warning)")
        }
      }
      if report.clippedSamples > 0 && !mix.limit {
        let time = report.firstClipTime.map { fixed($0, places: 3) } ?? "?"
        Console.error(
          "media2wav",
          "\(report.clippedSamples) samples clipped (the first at \(time) s); lower the volumes or use --limit"
        )
      }
      let bytes = WroteLine.bytes(path: output, format: report.format, samples: report.samples)
      Console.errorText(
        WroteLine.text(
          output: report.output, format: report.format, samples: report.samples,
          rf64: report.rf64, bytes: bytes) + "\n")
    }
    if json { Console.out(String(decoding: try encoder.encode(report), as: UTF8.self) + "\n") }
  }
}

/// The command line's inputs and their options: each input, then the options that apply to it.
enum MixArguments {
  /// Parses `words` (`clip.mov --volume 1 music.mp3 --volume 0.3 --loop ...`).
  ///
  /// - Throws: `ValidationError` for an option before any input, an unknown option or a bad value.
  static func parse(_ words: [String]) throws -> [MixInput] {
    var inputs: [MixInput] = []
    var index = 0
    func value(_ option: String) throws -> String {
      index += 1
      guard index < words.count else { throw ValidationError("\(option) needs a value") }
      return words[index]
    }
    func seconds(_ option: String) throws -> Double {
      let text = try value(option)
      guard let time = TimeArgument(argument: text) else {
        throw ValidationError("\(option): '\(text)' is not a time (seconds or [hh:]mm:ss[.mmm])")
      }
      return time.seconds
    }
    func number(_ option: String) throws -> Double {
      let text = try value(option)
      guard let number = Double(text), number.isFinite else {
        throw ValidationError("\(option): '\(text)' is not a number")
      }
      return number
    }
    while index < words.count {
      let word = words[index]
      if !word.hasPrefix("--") || word == "-" {
        inputs.append(MixInput(path: word))
        index += 1
        continue
      }
      guard !inputs.isEmpty else {
        throw ValidationError(
          "\(word) comes before any input: per-input options follow their input")
      }
      var input = inputs.removeLast()
      switch word {
      case "--stream":
        guard let n = Int(try value(word)), n >= 0 else {
          throw ValidationError("--stream counts from 0")
        }
        input.stream = .audioIndex(n)
      case "--language": input.stream = .language(try value(word))
      case "--volume": input.volume = try number(word)
      case "--gain": input.gainDB = try number(word)
      case "--start": input.start = try seconds(word)
      case "--duration": input.duration = try seconds(word)
      case "--at": input.at = try seconds(word)
      case "--loop": input.loop = true
      case "--fade-in": input.fadeIn = try seconds(word)
      case "--fade-out": input.fadeOut = try seconds(word)
      case "--volume-at":
        let text = try value(word)
        let parts = text.split(separator: "@").map(String.init)
        guard parts.count == 2, let volume = Double(parts[0]),
          let time = TimeArgument(argument: parts[1])
        else { throw ValidationError("--volume-at takes VOLUME@TIME (0.2@1:30), not '\(text)'") }
        input.envelope.append(.step(time: time.seconds, volume: volume))
      case "--ramp":
        let text = try value(word)
        let change = text.split(separator: "@").map(String.init)
        let volumes = change.first?.split(separator: ":").map { Double($0) } ?? []
        let span = change.count == 2 ? change[1].split(separator: "+").map(String.init) : []
        guard volumes.count == 2, let from = volumes[0], let to = volumes[1], span.count == 2,
          let time = TimeArgument(argument: span[0]), let length = TimeArgument(argument: span[1])
        else {
          throw ValidationError("--ramp takes FROM:TO@TIME+DURATION (1:0.2@10+3), not '\(text)'")
        }
        input.envelope.append(
          .ramp(time: time.seconds, duration: length.seconds, from: from, to: to))
      default:
        throw ValidationError(
          "unknown option '\(word)' for an input (see media2wav mix --help)")
      }
      inputs.append(input)
      index += 1
    }
    return inputs
  }
}
