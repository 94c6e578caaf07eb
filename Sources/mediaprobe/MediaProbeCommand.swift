import ArgumentParser
import Compatibility
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
      not_found, not_a_file, permission_denied, empty, unrecognized_format, unsupported_format \
      (a HEIF image, which FFmpeg 5.1 cannot read), truncated, corrupt, refused_reference, \
      read_error, timeout; for a URL also remote_not_found (404, 410), remote_forbidden (401, \
      403), remote_range_not_satisfiable (416), remote_http_error (another status, or 5xx after \
      the retries), remote_changed (the file changed between requests or the server answered \
      another range; none of its bytes is used) and remote_redirect (to another scheme, or more \
      than 5). The warning remote_without_ranges says the server ignored range requests and \
      the URL was read once, in order.

      Warnings (the "warnings" list) include format_mismatch (FFmpeg's probe guessed, with a \
      low score, a format the file's extension contradicts; the extension's was tried and kept \
      if its stream decodes), leading_junk (bytes before an MP3's first frame were skipped) and \
      codec_unsupported (an audio or video codec FFmpeg cannot decode: that stream's \
      codec_supported is false, its codec is named from the container's own identification, \
      and --scan counts the container's framing, frame_count_source "transport"). \
      A single picture (JPEG, PNG, WebP, AVIF) is one video stream with disposition \
      still_image and no duration or frame rate; a JPEG's EXIF orientation is its orientation.

      VERIFY: --verify decodes every audio and video stream to the end and adds to each a \
      "decode" object (frames or samples output, first and end time, errors: the count of \
      damaged packets and the first 20 as {time, pts, kind, message}, with kind one of \
      invalid_data, concealed, missing_reference, truncated_packet, timestamp_jump, \
      decoder_failed, container), and to the file an "integrity" verdict: ok, damaged, \
      truncated or undecodable. What a decoder only logs is counted for the packet it is about, \
      also on frame threads, so results are the same on every run. Without --hash the in-loop \
      deblocking filters are skipped (they change pixels, not whether the bitstream decodes). \
      --hash md5 adds the MD5 of \
      the decoded content, equal to ffmpeg's streamhash muxer (stored pictures: ffmpeg's \
      -noautorotate). --verify-fast (or --verify=fast) decodes only the video's keyframes (it \
      misses damage in other frames, and the frame count is the keyframes') and the audio whole. \
      While it decodes, a progress bar shows on standard error when that is a terminal (one \
      file at a time; not with --quiet).

      Inputs are treated as untrusted: only local files and standard input are read, and \
      playlists or lists that open other resources (HLS, DASH, concat, image patterns, IMF) are \
      refused unless --allow-references is given.

      EXIT STATUS: 0 when every input was probed (and, with --verify, is ok), 1 when any input \
      could not be probed, 2 when all were probed but some verified input is damaged, \
      truncated or undecodable, 64 for usage errors (an unknown option or platform name). \
      \(CommonHelp.dashes)

      EXAMPLES:
        mediaprobe clip.mp4 | jq '.streams[0].video.orientation'
        mediaprobe --ndjson --recursive uploads/ | jq -c 'select(.error) | .path'
        mediaprobe --scan phone.mov | jq '.streams[] | .video.frame_rate.mode'
        mediaprobe --verify -q upload.mp4 || echo "damaged or unreadable"
        mediaprobe --verify --ndjson *.mkv | jq -r 'select(.integrity != "ok") | .path'
        cat clip.mkv | mediaprobe -
      """,
    version: "0.1.0")

  @Argument(help: "Media files to probe; '-' reads standard input; directories need --recursive.")
  var paths: [String] = []

  @Flag(
    help:
      "Demux every packet (no decoding): exact frame counts and durations, CFR/VFR verdict, min/max frame rate, and `span`, the interval the samples cover (beside `duration`, what the container declares)."
  )
  var scan = false

  @Flag(
    help: ArgumentHelp(
      "Decode every audio and video stream to the end (--verify), or only the video keyframes (--verify-fast; also --verify=full|fast): counts, damage, an integrity verdict.",
      discussion: ""))
  var verification: Verification?

  @Option(
    help: ArgumentHelp(
      "With --verify: hash the decoded content as ffmpeg's streamhash muxer does (implies --verify).",
      valueName: "algorithm"))
  var hash: HashAlgorithm?

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

  @OptionGroup var network: NetworkOptions

  @OptionGroup var limits: TimeLimitOptions

  @Option(
    help: ArgumentHelp(
      "Add mediacompat's verdicts for these platforms (comma-separated ids or aliases) as \"compat\".",
      valueName: "platform"),
    completion: .list(PlatformDatabase.names))
  var compat: [String] = []

  @OptionGroup var diagnostics: DiagnosticOptions

  static func main() {
    mainAsTool(rewriting: ["--verify=full": "--verify", "--verify=fast": "--verify-fast"])
  }

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
    if paths.isEmpty && input.filesFrom == nil {
      throw ValidationError("give the files to probe, or --files-from")
    }
  }

  func run() throws {
    ignoreBrokenPipe()
    let scope: VerifyScope? =
      switch verification {
      case .verify: .all
      case .verifyFast: .keyframes
      case nil: hash == nil ? nil : .all
      }
    let inputs = try input.inputs(arguments: paths, recursive: recursive)
    // Decoded pictures freed by one file are reused by the next only from the heap.
    let decodesManyFiles = scope != nil && !inputs.isSingleArgument
    tuneMemoryAllocator(heapBlocksUpTo: decodesManyFiles ? 32 << 20 : 1 << 20)
    diagnostics.ffmpegLogLevel.apply()
    if scope != nil { DecodeLogRegistry.install() }  // before any decoder thread starts
    // Decoder threads share the cores with the files probed at once.
    let workers = workerCount(items: inputs.knownCount, jobs: parallel.jobs)
    var probeOptions = ProbeOptions(
      scan: scan, allowReferences: input.allowReferences, timeout: limits.timeout,
      maxBytes: network.maxBytes, verify: scope, hash: hash != nil,
      decoderThreads: Int32(max(1, coreCount / workers)), inputFormat: input.inputFormat)
    probeOptions.headers = network.headers
    let prober = Prober(options: probeOptions)
    let selected = (try? PlatformDatabase.resolve(list: compat)) ?? []
    let checker = CompatibilityChecker()
    let single = inputs.isSingleArgument
    let report = Mutex(
      Report(
        writer: JSONStreamWriter(layout: ndjson ? .lines : single ? .single : .array),
        summary: summary,
        quiet: diagnostics.quiet))

    let options = network
    // --verify decodes whole files: a progress bar on standard error when it is a terminal,
    // for one file at a time (several bars would overwrite each other).
    let showsProgress = scope != nil && workers == 1 && !diagnostics.quiet
    orderedParallel(workers: workers, next: inputs.next) { _, path in
      var prober = prober
      let bar = ProgressBar(label: path.display, quiet: !showsProgress)
      defer { bar.finish() }
      if showsProgress {
        var withProgress = prober.options
        withProgress.progress = { done, total in bar.update(done: done, total: total) }
        prober = Prober(options: withProgress)
      }
      let outcome = prober.outcome(for: options.source(for: path), path: path.display)
      var compat: [PlatformVerdict]?
      if case .success(let info) = outcome, !selected.isEmpty {
        compat = selected.map { checker.check(info, on: $0) }
      }
      return ProbeRecord(outcome: outcome, compat: compat)
    } emit: { _, outcome in
      report.withLock { $0.add(outcome) }
    }
    let (failures, damaged) = report.withLock { $0.finish() }
    if failures > 0 { throw ExitCode(ExitStatus.failure) }
    if damaged > 0 { throw ExitCode(ExitStatus.damaged) }
  }
}

/// Collects the outcomes in input order and writes them: JSON as they come, or the summary table
/// at the end.
struct Report: ~Copyable {
  var writer: JSONStreamWriter
  let summary: Bool
  /// `--quiet`: no report, only the error messages.
  let quiet: Bool
  var rows: [[String]] = []
  var failures = 0
  /// Verified inputs that are not `ok`.
  var damaged = 0

  mutating func add(_ record: ProbeRecord) {
    let outcome = record.outcome
    switch outcome {
    case .failure(let path, let error):
      failures += 1
      Console.error("mediaprobe", "\(path): \(error.message)")
    case .success(let info):
      if let integrity = info.integrity, integrity != .ok {
        damaged += 1
        Console.error("mediaprobe", "\(info.path): \(integrity.rawValue)")
      }
    }
    if quiet { return }
    if summary {
      switch outcome {
      case .success(let info): rows.append(info.summaryColumns)
      case .failure(let path, let error): rows.append([path, "error", error.code, error.message])
      }
    } else {
      writer.write(record)
    }
  }

  /// Writes what is still pending and returns the number of failed inputs and of damaged ones.
  func finish() -> (failures: Int, damaged: Int) {
    if !quiet {
      if summary { Console.out(formatTable(rows)) } else { writer.finish() }
    }
    return (failures, damaged)
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

/// `--verify` or `--verify-fast`.
enum Verification: String, EnumerableFlag {
  case verify, verifyFast

  static func name(for value: Verification) -> NameSpecification {
    switch value {
    case .verify: .customLong("verify")
    case .verifyFast: .customLong("verify-fast")
    }
  }
}

/// `--hash`: the content hash to compute while verifying.
enum HashAlgorithm: String, CaseIterable, ExpressibleByArgument {
  case md5
}
