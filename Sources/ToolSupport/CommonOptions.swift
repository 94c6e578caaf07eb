import ArgumentParser
import MediaCore
import OutputKit
import AV
import MediaProbe

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// What a tool says besides its output, the same in every tool: `--quiet` and `--verbose`.
public struct DiagnosticOptions: ParsableArguments, Sendable {
  /// `--quiet`: no report, no progress, no warnings.
  @Flag(
    name: [.short, .long],
    help: """
      Print no report and no progress or warnings: only errors reach standard error, and the \
      exit status tells the outcome.
      """)
  public var quiet = false

  /// `--verbose`: FFmpeg's warnings too.
  @Flag(name: [.short, .long], help: "Also print FFmpeg's warnings on standard error.")
  public var verbose = false

  /// No options given.
  public init() {}

  /// `--quiet` and `--verbose` contradict each other.
  public func validate() throws {
    if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be combined") }
  }

  /// How much FFmpeg itself may print: warnings with `--verbose`, nothing otherwise (the tools
  /// report errors themselves).
  public var ffmpegLogLevel: FFmpegLogLevel { verbose ? .warning : .quiet }
}

/// How many files a tool works on at once: `--jobs`.
public struct ParallelOptions: ParsableArguments, Sendable {
  /// `--jobs`: nil means one per core.
  @Option(
    name: [.short, .long],
    help: ArgumentHelp(
      "Work on this many files at once (default: the number of cores); the output keeps the input order.",
      valueName: "n"))
  public var jobs: Int?

  /// No options given.
  public init() {}

  /// `--jobs` counts from 1.
  public func validate() throws {
    if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
  }
}

/// Where the inputs come from and how untrusted inputs may be opened: `--files-from`, `--null`,
/// `--allow-references` (remote inputs: `NetworkOptions`).
public struct InputOptions: ParsableArguments, Sendable {
  /// `--files-from`: a list of inputs, one per line (`-`: standard input).
  @Option(
    help: ArgumentHelp(
      "Also take the inputs listed in this file, one per line ('-': standard input), read as the work goes: no argument-length limit, output before the list ends.",
      valueName: "list"))
  public var filesFrom: String?

  /// `-0`, `--null`: the list is NUL-separated.
  @Flag(
    name: [.customShort("0"), .long],
    help: "The --files-from list is separated by NUL bytes (find -print0), not newlines.")
  public var null = false

  /// `--allow-references`.
  @OptionGroup public var references: ReferenceOptions

  /// `--allow-references`: let referencing demuxers open local files.
  public var allowReferences: Bool { references.allowReferences }

  /// `--input-format`: the FFmpeg demuxer to read every input with, instead of probing.
  public var inputFormat: String? { references.inputFormat }

  /// No options given.
  public init() {}

  /// `--null` needs a list.
  public func validate() throws {
    if null && filesFrom == nil { throw ValidationError("--null needs --files-from") }
  }

  /// The inputs: `arguments`, then the list's.
  ///
  /// - Throws: `ValidationError` when `-` is both the list and an input, or the list cannot be
  ///   opened.
  public func inputs(arguments: [String], recursive: Bool = false) throws -> InputList {
    if filesFrom == "-" && arguments.contains("-") {
      throw ValidationError("standard input cannot be both the --files-from list and an input")
    }
    do {
      return try InputList(
        arguments: arguments, filesFrom: filesFrom, nulSeparated: null, recursive: recursive)
    } catch {
      throw ValidationError("\(error)")
    }
  }
}

/// How inputs are opened: whether playlists and lists may open the files they name
/// (`--allow-references`) and which demuxer reads them (`--input-format`). Part of
/// `InputOptions`; alone where there is no input list, as in `media2wav mix`.
public struct ReferenceOptions: ParsableArguments, Sendable {
  /// `--allow-references`: let referencing demuxers open local files.
  @Flag(
    help:
      "Let playlists and lists (HLS, DASH, concat, image patterns) open the local files they name."
  )
  public var allowReferences = false

  /// `--input-format`: read every input with this FFmpeg demuxer instead of probing its bytes.
  @Option(
    help: ArgumentHelp(
      "Read the inputs as this format instead of recognizing it from their bytes: an FFmpeg demuxer name (mp3, mov, matroska, mpegts, jpeg_pipe, ...; 'ffmpeg -demuxers' lists them). Demuxers that open other files (hls, concat, image2, ...) need --allow-references.",
      valueName: "name"))
  public var inputFormat: String?

  /// No options given.
  public init() {}

  /// `--input-format` names one of FFmpeg's demuxers, and one that opens other files only with
  /// `--allow-references`.
  public func validate() throws {
    guard let inputFormat else { return }
    guard InputFormats.exists(inputFormat) else {
      let close = InputFormats.suggestions(for: inputFormat)
      let hint = close.isEmpty ? "" : " (did you mean \(close.joined(separator: ", "))?)"
      throw ValidationError(
        "unknown input format '\(inputFormat)'\(hint): the names are FFmpeg's demuxers, listed by 'ffmpeg -demuxers'"
      )
    }
    if InputFormats.opensOtherResources(inputFormat) && !allowReferences {
      throw ValidationError(
        "--input-format \(inputFormat) opens other files or URLs: it needs --allow-references")
    }
  }
}

/// What becomes of an output file that exists, and whether it is synced: `--force`,
/// `--no-sync` (media2wav, its mix, mediamerge; all write through AudioExtract's `OutputFile`).
public struct OutputFileOptions: ParsableArguments, Sendable {
  /// `--force`: replace an existing regular file.
  @Flag(help: "Replace existing output files (regular files only; nothing else is replaced).")
  public var force = false

  /// `--no-sync`: skip the fsync of the file and its directory.
  @Flag(
    help: """
      Do not fsync each finished file and its directory (faster; a crash or power cut soon \
      after may then lose a file that was reported as written).
      """)
  public var noSync = false

  /// No options given.
  public init() {}
}

/// Remote inputs and what one input may read: `--allow-network`, `--max-bytes` (the tools that
/// read their inputs themselves; mediamerge's ffmpeg reads local files only).
public struct NetworkOptions: ParsableArguments, Sendable {
  /// `--allow-network`: inputs named `http://` or `https://` are fetched (range requests).
  @Flag(
    help:
      "Read inputs named http:// or https:// URLs over the network: bounded range requests on one connection, retried on resets, timeouts and 5xx, resumed at the exact byte. Never references inside files; redirects to other schemes fail."
  )
  public var allowNetwork = false

  /// `--max-bytes`: what one input may read at most.
  @Option(
    help: ArgumentHelp(
      "Read at most this many bytes of one input (warning byte_limit_reached).", valueName: "n"))
  public var maxBytes: Int64?

  /// `--header`: request headers for remote inputs, as given (`Name: value` or `@file`).
  @Option(
    name: .customLong("header"),
    help: ArgumentHelp(
      "Send this request header with every request of a URL (repeatable), to the URL's host only; '@FILE' reads one 'Name: value' a line from FILE (keeps a token out of the process list). Values never appear in output.",
      valueName: "'Name: value'|@file"))
  public var header: [String] = []

  /// No options given.
  public init() {}

  /// `--max-bytes` counts from 1; every `--header` is a well-formed header (the messages name
  /// the header, never its value).
  public func validate() throws {
    if let maxBytes, maxBytes < 1 { throw ValidationError("--max-bytes must be at least 1") }
    _ = try requestHeaders()
  }

  /// The request headers of `--header` (files read), checked; empty if one is malformed (which
  /// `validate` refuses first).
  public var headers: [HTTPHeader] { (try? requestHeaders()) ?? [] }

  private func requestHeaders() throws -> [HTTPHeader] {
    var headers: [HTTPHeader] = []
    for given in header {
      var lines = [given]
      if given.hasPrefix("@") {
        let path = String(given.dropFirst())
        guard let text = readSmallFile(path) else {
          throw ValidationError("--header: cannot read \(path.debugDescription)")
        }
        lines = text.split(whereSeparator: \.isNewline).map(String.init).filter {
          !$0.allSatisfy(\.isWhitespace) && !$0.hasPrefix("#")
        }
      }
      for line in lines {
        do {
          headers.append(try HTTPHeader(line: line))
        } catch {
          throw ValidationError("--header: \(error)")
        }
      }
    }
    return headers
  }

  /// Where an input's bytes come from: standard input, a URL (with `--allow-network`), or a
  /// local file (a file named `http:x` without `--allow-network`).
  public func source(for input: InputPath) -> InputSource {
    switch input {
    case .standardInput: return .standardInput
    case .path(let path):
      return allowNetwork && InputSource.isRemote(path) ? .url(path) : .file(path)
    }
  }
}

/// The text of a small file (at most 64 KiB: a header file), or nil.
private func readSmallFile(_ path: String) -> String? {
  let descriptor = open(path, O_RDONLY | O_CLOEXEC)
  guard descriptor >= 0 else { return nil }
  defer { close(descriptor) }
  var bytes = [UInt8](repeating: 0, count: 1 << 16)
  var count = 0
  while count < bytes.count {
    let got = bytes.withUnsafeMutableBytes {
      read(descriptor, $0.baseAddress! + count, $0.count - count)
    }
    if got < 0 && errno == EINTR { continue }
    guard got >= 0 else { return nil }
    if got == 0 { break }
    count += got
  }
  return String(decoding: bytes.prefix(count), as: UTF8.self)
}

/// How long one input may take: `--timeout`.
public struct TimeLimitOptions: ParsableArguments, Sendable {
  /// `--timeout`: seconds per input; nil means no limit.
  @Option(
    help: ArgumentHelp(
      "Give up on an input after this many seconds (error code timeout); the others go on. A FIFO that nobody writes to fails after 10 s without it.",
      valueName: "seconds"))
  public var timeout: Double?

  /// No options given.
  public init() {}

  /// A time limit is a positive number of seconds.
  public func validate() throws {
    if let timeout, !(timeout > 0 && timeout.isFinite) {
      throw ValidationError("--timeout must be a positive number of seconds")
    }
  }
}

/// Text shared by every tool's manual page.
public enum CommonHelp {
  /// How to name a file that starts with `-`.
  public static let dashes = """
    A file whose name starts with '-' goes after '--' (mediaprobe -- -clip.mp4); an unknown \
    option is a usage error (exit 64).
    """
}

extension ParsableCommand {
  /// Parses the command line and runs the command, as `main()` does, except that a cluster of
  /// short options containing `-h` is refused instead of printing the help: a file named
  /// `-dash.m4a` must be an error (exit 64), not a help page and exit 0 that a script takes for
  /// success. `given` replaces the process's arguments (a subcommand dispatched by hand);
  /// `spellings` maps other spellings of an option to its own (`--verify=fast`).
  public static func mainAsTool(
    _ given: [String]? = nil, rewriting spellings: [String: String] = [:]
  ) {
    let arguments = (given ?? commandLineArguments).map { spellings[$0] ?? $0 }
    for argument in arguments.prefix(while: { $0 != "--" })
    where argument.hasPrefix("-") && !argument.hasPrefix("--") && argument.count > 2
      && argument.dropFirst().contains("h")
    {
      exit(
        withError: ValidationError(
          "unknown option '\(argument)' (put file names that start with '-' after '--')"))
    }
    do {
      var command: ParsableCommand
      do {
        command = try parseAsRoot(arguments)
      } catch {
        // ArgumentParser reports a missing argument or a failed validation before an unknown
        // option; a typo'd option is the cause, so it comes first.
        if exitCode(for: error) == .validationFailure,
          let (unknown, command) = UnknownOption.firstUnknown(in: arguments, of: Self.self)
        {
          var name = configuration.commandName ?? ""
          if command != Self.self { name += " " + (command.configuration.commandName ?? "") }
          Console.errorText(
            "Error: \(unknown)\nUsage: \(usageString(for: command))\n"
              + "  See '\(name) --help' for more information.\n")
          Glibc.exit(ExitCode.validationFailure.rawValue)
        }
        throw error
      }
      try command.run()
    } catch {
      let message = fullMessage(for: error)
      let kept = UnknownOption.withoutDistantSuggestion(message)
      guard kept != message else { exit(withError: error) }
      Console.errorText(kept + "\n")
      Glibc.exit(exitCode(for: error).rawValue)
    }
  }
}

/// ArgumentParser suggests the nearest option for an unknown one whenever their spellings are
/// fewer than 4 edits apart, so `--bogus` gets "Did you mean '--jobs'?" in every tool. A
/// suggestion is kept only when it is close for the name's length: at most 2 edits, and no more
/// than half the typed name's letters (`--verfy` → `--verify`, `--quite` → `--quiet`).
enum UnknownOption {
  /// The first `--name` among `arguments` (before `--`) that the command (or the subcommand
  /// named first) does not define, as "Unknown option '--name'" with a close suggestion, and
  /// the command it was given to; nil when every long option is known. The names come from the
  /// command's full help.
  static func firstUnknown(in arguments: [String], of root: ParsableCommand.Type)
    -> (message: String, command: ParsableCommand.Type)?
  {
    var command = root
    if let name = arguments.first(where: { !$0.hasPrefix("-") }),
      let sub = root.configuration.subcommands.first(where: {
        $0.configuration.commandName == name
      })
    {
      command = sub
    }
    let help = root.helpMessage(for: command, includeHidden: true, columns: 10_000)
    let known = Set(help.matches(of: /--[a-zA-Z0-9][a-zA-Z0-9-]*/).map { String($0.output) })
      .union(["--help", "--version", "--generate-completion-script", "--experimental-dump-help"])
    for argument in arguments.prefix(while: { $0 != "--" })
    where argument.hasPrefix("--") && !argument.hasPrefix("---") {
      let name = String(argument.prefix { $0 != "=" })
      guard !known.contains(name) else { continue }
      let nearest = known.min { editDistance($0, name) < editDistance($1, name) }
      let message = "Unknown option '\(name)'" + (nearest.map { ". Did you mean '\($0)'?" } ?? "")
      return (withoutDistantSuggestion(message), command)
    }
    return nil
  }

  /// `message` without its "Did you mean" sentence when the suggestion is not close.
  static func withoutDistantSuggestion(_ message: String) -> String {
    let pattern = /Unknown option '([^']+)'\. Did you mean '([^']+)'\?/
    guard let match = message.firstMatch(of: pattern) else { return message }
    let typed = String(match.1)
    let suggested = String(match.2)
    let distance = editDistance(typed, suggested)
    let letters = typed.drop { $0 == "-" }.count
    if distance <= 2 && 2 * distance <= letters { return message }
    var kept = message
    kept.replaceSubrange(match.range, with: "Unknown option '\(typed)'")
    return kept
  }

  /// The Levenshtein distance between two strings.
  static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    var previous = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
      var current = [i] + Array(repeating: 0, count: b.count)
      for j in stride(from: 1, through: b.count, by: 1) {
        let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
        current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
      }
      previous = current
    }
    return a.isEmpty ? b.count : previous[b.count]
  }
}

/// The process's arguments without its name, read from the raw argv so that a file name that is
/// not UTF-8 keeps its bytes (see `FileName`); `CommandLine.arguments` replaces them with U+FFFD.
public var commandLineArguments: [String] {
  (1..<Int(CommandLine.argc)).map { index in
    let argument = CommandLine.unsafeArgv[index]!
    return FileName.string(
      fromBytes: UnsafeRawBufferPointer(start: argument, count: strlen(argument)))
  }
}
