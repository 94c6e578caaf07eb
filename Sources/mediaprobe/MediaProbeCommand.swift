import ArgumentParser
import Compatibility
import MediaProbe
import Synchronization
import ToolSupport

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

@main
struct MediaProbeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "mediaprobe",
    abstract:
      "Probe media files to JSON: container, streams, codecs, exact frame rates and durations, orientation.",
    discussion: """
      Prints one JSON object for one input, an array for several, or one compact object per line \
      with --ndjson. Keys are snake_case, numbers are numbers, and a value that applies but is \
      unknown is null. Rationals are {"num", "den", "value"}; durations are {"seconds", "value", \
      "timescale", "estimated", "source"}, exact like CMTime, with "estimated": true when \
      libavformat guessed from the bit rate or the container holds its "unknown" sentinel.

      Orientation follows AVFoundation: "rotation" is clockwise degrees (0, 90, 180, 270), \
      "mirrored" comes from the matrix's determinant, "name" is the UIImageOrientation (up, \
      right, left_mirrored, ...), and "display_width"/"display_height" are the size the clip \
      shows at after the sample aspect ratio and the rotation.

      A file that cannot be probed is reported in its place as \
      {"path": ..., "error": {"code": ..., "message": ...}} and the others still run. Codes: \
      not_found, not_a_file, permission_denied, empty, unrecognized_format, truncated, corrupt, \
      refused_reference, read_error, timeout.

      Inputs are treated as untrusted: only local files and standard input are read, and \
      playlists or lists that open other resources (HLS, DASH, concat, image patterns, IMF) are \
      refused unless --allow-references is given.

      EXIT STATUS: 0 when every input was probed, 1 when any input failed, 64 for usage errors \
      (an unknown option or platform name). \(CommonHelp.dashes)

      EXAMPLES:
        mediaprobe clip.mp4 | jq '.streams[0].video.orientation'
        mediaprobe --ndjson --recursive uploads/ | jq -c 'select(.error) | .path'
        mediaprobe --scan phone.mov | jq '.streams[] | .video.frame_rate.mode'
        cat clip.mkv | mediaprobe -
      """,
    version: "0.1.0")

  @Argument(help: "Media files to probe; '-' reads standard input; directories need --recursive.")
  var paths: [String]

  @Flag(
    help:
      "Demux every packet (no decoding): exact frame counts and durations, CFR/VFR verdict, min/max frame rate."
  )
  var scan = false

  @Flag(help: "Print a short human-readable table instead of JSON.")
  var summary = false

  @Flag(
    help: "Print one compact JSON object per line, each as soon as it (and all before it) are done."
  )
  var ndjson = false

  @OptionGroup var parallel: ParallelOptions

  @Flag(name: [.short, .long], help: "Probe the files below directory arguments.")
  var recursive = false

  @OptionGroup var input: InputOptions

  @OptionGroup var limits: TimeLimitOptions

  @Option(
    help: ArgumentHelp(
      "Add mediacompat's verdicts for these platforms (comma-separated ids or aliases) as \"compat\".",
      valueName: "platform"),
    completion: .list(PlatformDatabase.names))
  var compat: [String] = []

  @OptionGroup var diagnostics: DiagnosticOptions

  static func main() { mainAsTool() }

  func validate() throws {
    if summary && ndjson { throw ValidationError("--summary and --ndjson cannot be combined") }
    if diagnostics.quiet && (summary || ndjson) {
      throw ValidationError(
        "--quiet prints no report; it cannot be combined with --summary or --ndjson")
    }
    do {
      _ = try PlatformDatabase.resolve(list: compat)
    } catch {
      throw ValidationError("\(error) (see mediacompat --list-platforms)")
    }
    if paths.filter({ $0 == "-" }).count > 1 { throw ValidationError("'-' can be given only once") }
  }

  func run() throws {
    ignoreBrokenPipe()
    diagnostics.ffmpegLogLevel.apply()
    let inputs = expandInputs(paths, recursive: recursive)
    let prober = Prober(
      options: ProbeOptions(
        scan: scan, allowReferences: input.allowReferences, timeout: limits.timeout))
    let selected = (try? PlatformDatabase.resolve(list: compat)) ?? []
    let checker = CompatibilityChecker()
    let single = paths.count == 1 && inputs.count == 1 && inputs[0].display == paths[0]
    let report = Mutex(
      Report(
        writer: JSONStreamWriter(layout: ndjson ? .lines : single ? .single : .array),
        encoder: JSONEncoder.mediaTools(compact: ndjson), summary: summary,
        quiet: diagnostics.quiet))

    orderedParallel(count: inputs.count, jobs: parallel.jobs) { index in
      let outcome =
        switch inputs[index] {
        case .standardInput: prober.outcome(for: .standardInput, path: "-")
        case .path(let path): prober.outcome(for: .file(path), path: path)
        }
      var compat: [PlatformVerdict]?
      if case .success(let info) = outcome, !selected.isEmpty {
        compat = selected.map { checker.check(info, on: $0) }
      }
      return ProbeRecord(outcome: outcome, compat: compat)
    } emit: { _, outcome in
      report.withLock { $0.add(outcome) }
    }
    let failures = report.withLock { $0.finish() }
    if failures > 0 { throw ExitCode(1) }
  }
}

/// Collects the outcomes in input order and writes them: JSON as they come, or the summary table
/// at the end.
struct Report: ~Copyable {
  var writer: JSONStreamWriter
  let encoder: JSONEncoder
  let summary: Bool
  /// `--quiet`: no report, only the error messages.
  let quiet: Bool
  var rows: [[String]] = []
  var failures = 0

  mutating func add(_ record: ProbeRecord) {
    let outcome = record.outcome
    if case .failure(let path, let error) = outcome {
      failures += 1
      Console.error("mediaprobe", "\(path): \(error.message)")
    }
    if quiet { return }
    if summary {
      switch outcome {
      case .success(let info): rows.append(info.summaryColumns)
      case .failure(let path, let error): rows.append([path, "error", error.code, error.message])
      }
    } else if let json = try? encoder.encode(record) {
      writer.write(json)
    }
  }

  /// Writes what is still pending and returns the number of failed inputs.
  func finish() -> Int {
    if quiet { return failures }
    if summary { Console.out(formatTable(rows)) } else { writer.finish() }
    return failures
  }
}

/// One input's JSON record: the probe's outcome and, for a probed file, the `compat` verdicts
/// (`--compat`; null when not asked). The verdicts belong to this command, not to the probe
/// model, so tools that only probe do not carry the platform database.
struct ProbeRecord: Encodable, Sendable {
  var outcome: ProbeOutcome
  var compat: [PlatformVerdict]?

  private enum CodingKeys: String, CodingKey { case compat }

  func encode(to encoder: any Encoder) throws {
    try outcome.encode(to: encoder)
    guard case .success = outcome else { return }
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(NullEncoded(wrappedValue: compat), forKey: .compat)
  }
}
