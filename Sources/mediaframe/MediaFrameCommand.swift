import AV
import ArgumentParser
import FrameGrab
import MediaCore
import OutputKit
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import ToolSupport

#if canImport(Glibc)
  import Glibc
#endif

@main
struct MediaFrameCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "mediaframe",
    abstract: "Take pictures out of media files: poster frames, series, contact sheets.",
    discussion: """
      Writes the frame presented at a time (--at, default 0) as JPEG, PNG or WebP, chosen by the \
      output's extension: exactly the last frame whose presentation time is at or before the \
      time, decoded from the keyframe before it (the first frame when the time comes before \
      it), as AVAssetImageGenerator with zero tolerance. --tolerance S takes the keyframe \
      nearest the time within S seconds instead, when there is one (faster: nothing is decoded \
      past it); the record's actual_time says which frame came out. Times are seconds or \
      [hh:]mm:ss[.mmm] from the start of the input, as the ffmpeg CLI's -ss. A time past the \
      end of the video is an error (time_past_end) naming the duration, or where the frames \
      end when the file holds fewer than its header says (cut short).

      PICTURE: turned upright by the display matrix (rotation and mirroring, the 8 \
      orientations mediaprobe reports; the EXIF orientation of a JPEG, PNG or WebP), with \
      square pixels (the \
      pixel aspect ratio widens the picture: SAR 2:1 doubles the width), fitted inside \
      --max-size WxH (only made smaller, keeping the shape), converted to R'G'B' by libswscale \
      (the frame's matrix and range, bicubic). HDR video (PQ or HLG) is tone-mapped to SDR \
      BT.709 with zscale and tonemap=hable (docs/mediaframe.md). --quality 1-100 (default 90) \
      sets the JPEG quantizer (q = 2 + (100 - quality) * 29 / 99) and libwebp's quality; PNG is \
      lossless. Still images (JPEG, PNG, WebP ...) go through the same path: any time gives \
      the picture. An audio file with cover art gives the cover with --cover; without a video \
      stream the error is no_video.

      SERIES AND SHEETS: --every S writes a picture every S seconds from 0, --count N writes N \
      pictures at the middles of N equal parts of the video, each named by -o's pattern \
      (out_%03d.jpg; without a %d the number goes before the extension), numbered from 1. \
      --sheet COLSxROWS writes one contact sheet of COLS*ROWS tiles (at the --count/--every \
      times, by default COLS*ROWS equal parts), each fitted inside --max-size (default \
      320x320), with the tiles' times drawn on them with --timestamps. A sheet's tile is the \
      keyframe nearest its time within half the tiles' spacing when there is one (--tolerance \
      0: every tile exact).

      BEST: --best writes the representative frame of the first --best-window seconds \
      (default 10 % of the duration): of 24 frames spread over the window, those whose luma \
      varies less than 10 levels (standard deviation: black, white, flat) are skipped and the \
      sharpest of the rest (largest variance of the luma's Laplacian) is taken. When all of the \
      default window's are blank, 24 more over the whole video are looked at.

      OUTPUT: -o names the output of one input; --output-dir DIR writes NAME.EXT there for \
      each input (NAME_%03d.EXT for a series), with EXT from --format (jpg by default); \
      without either, beside each input. Files are written atomically (an unnamed file linked \
      under its name when complete: nothing partial is ever left) and synced (--no-sync \
      skips); an existing file is replaced only with --force. Two inputs whose pictures would \
      take the same name (a/clip.mp4 and b/clip.mp4 into one --output-dir): the first keeps \
      it, the later fail with duplicate_output. A series, a sheet and --best \
      show a progress bar on standard error when it is a terminal (one input at a time; \
      --quiet drops it). One JSON object per picture \
      written goes to standard output as a line (NDJSON): input, output, kind, index, \
      requested_time, actual_time, tile_times, width, height, stream, orientation, rotation, \
      mirrored, sample_aspect_ratio, tone_mapped, format, bytes (a waveform: sample_rate, \
      samples_per_pixel, bits, channels, length, and chunks: the audio was decoded in that \
      many parts at once, AAC LC or MP3 in MP4, checked to equal one pass; warnings, also on \
      standard error, when damaged packets were skipped); a failed input gives \
      {"input", "error": {"code", "message"}}. Error codes: the probe's input codes \
      (not_found, unrecognized_format, truncated, ...), no_video, no_cover, time_past_end, \
      no_frame, decoder_error, filter_error, encoder_error, unsupported_output, \
      invalid_option, output_exists, output_is_directory, duplicate_output (two inputs' \
      pictures would take the same name: the first keeps it), write_error, interrupted, timeout.

      EXIT STATUS: 0 when every input gave its pictures, 1 when any failed, 64 for usage \
      errors, 130/143 when interrupted by SIGINT/SIGTERM. \(CommonHelp.dashes)

      EXAMPLES:
        mediaframe clip.mp4 --at 12.5 -o poster.jpg --max-size 640x640
        mediaframe clip.mp4 --count 20 --max-size 160x160 -o thumbs/t_%03d.webp
        mediaframe clip.mp4 --sheet 4x4 --timestamps -o sheet.jpg
        mediaframe --best --output-dir posters/ --jobs 4 *.mp4 | jq -r .output
        mediaframe song.m4a --cover -o cover.png
      """,
    version: "0.1.0")

  @Argument(help: "Media files.")
  var inputs: [String] = []

  @Option(
    name: [.short, .long],
    help: ArgumentHelp(
      "The output file (a series' pattern: out_%03d.jpg); one input only.", valueName: "file"))
  var output: String?

  @Option(
    help: ArgumentHelp("Write the outputs in this directory (it must exist).", valueName: "dir"))
  var outputDir: String?

  @Option(
    help: ArgumentHelp(
      "The image format with --output-dir or beside the input: jpg, png or webp.",
      valueName: "format"))
  var format: OutputFormat = .jpg

  @Option(
    help: ArgumentHelp("The time of the frame: seconds or [hh:]mm:ss[.mmm].", valueName: "time"))
  var at: TimeArgument?

  @Option(
    help: ArgumentHelp(
      "Take the keyframe nearest the time within this many seconds, when there is one.",
      valueName: "seconds"))
  var tolerance: Double?

  @Option(
    help: ArgumentHelp(
      "Fit each picture inside this box (only made smaller).", valueName: "WxH"))
  var maxSize: SizeArgument?

  @Option(help: ArgumentHelp("JPEG and WebP quality, 1-100 (default 90).", valueName: "n"))
  var quality: Int?

  @Flag(help: "Write the cover art (the attached picture) instead of a video frame.")
  var cover = false

  @Option(help: ArgumentHelp("Write a picture every S seconds from the start.", valueName: "S"))
  var every: Double?

  @Option(help: ArgumentHelp("Write N pictures spread over the video.", valueName: "N"))
  var count: Int?

  @Option(
    help: ArgumentHelp("Write one contact sheet of COLS x ROWS tiles.", valueName: "COLSxROWS"))
  var sheet: SizeArgument?

  @Flag(help: "Draw each tile's time on a contact sheet.")
  var timestamps = false

  @Flag(help: "Write the representative frame of the opening (never blank or blurred).")
  var best = false

  @Option(
    help: ArgumentHelp(
      "The opening --best looks at, in seconds (default: 10 % of the duration).",
      valueName: "S"))
  var bestWindow: Double?

  @Option(
    help: ArgumentHelp(
      "Write the audio's waveform instead: FILE.json, FILE.dat (BBC audiowaveform's formats) or FILE.png; json, dat or png alone names it after each input. With FILE, the input may be - (standard input).",
      valueName: "file"))
  var waveform: String?

  @Option(help: ArgumentHelp("Samples per waveform bin (default 256).", valueName: "n"))
  var samplesPerPixel: Int = 256

  @Option(
    help: ArgumentHelp("Waveform data resolution: 8 or 16 bits (default 16).", valueName: "bits"))
  var bits: Int = 16

  @Flag(help: "One waveform per channel instead of the channels merged.")
  var splitChannels = false

  @Option(
    help: ArgumentHelp(
      "The waveform picture's size (default 1000x200; at most 67108864 pixels).",
      valueName: "WxH"))
  var waveformSize: SizeArgument?

  @Option(help: ArgumentHelp("The waveform's colour (default 3C78D8).", valueName: "RRGGBB"))
  var waveformColor: ColorArgument?

  @Option(
    help: ArgumentHelp("The waveform picture's ground (default FFFFFF).", valueName: "RRGGBB"))
  var backgroundColor: ColorArgument?

  @Flag(help: "Draw the waveform's heights in decibels (-48 to 0 dBFS) instead of linearly.")
  var dbScale = false

  @Flag(help: "Draw a time axis along the bottom of the waveform picture.")
  var waveformAxis = false

  @OptionGroup var outputFile: OutputFileOptions

  @OptionGroup var parallel: ParallelOptions

  @OptionGroup var diagnostics: DiagnosticOptions

  @OptionGroup var input: InputOptions

  @OptionGroup var limits: TimeLimitOptions

  static func main() { mainAsTool() }

  func validate() throws {
    if inputs.isEmpty && input.filesFrom == nil {
      throw ValidationError("give the files to take pictures of, or --files-from")
    }
    if output != nil && (input.filesFrom != nil || inputs.count > 1) {
      throw ValidationError("-o takes one input; use --output-dir for several")
    }
    if output != nil && outputDir != nil {
      throw ValidationError("-o and --output-dir cannot be combined")
    }
    if let outputDir, let problem = outputDirectoryProblem(outputDir) {
      throw ValidationError(problem)
    }
    if inputs.contains("-") && (waveform.map { WaveformJob.Kind(rawValue: $0) != nil } ?? true) {
      throw ValidationError(
        "mediaframe reads files, not standard input (but --waveform FILE reads the audio of -)")
    }
    let modes = [
      at != nil, every != nil || count != nil, sheet != nil, best, cover, waveform != nil,
    ]
    if modes.filter({ $0 }).count > 1 && !(sheet != nil && (every != nil || count != nil)) {
      throw ValidationError(
        "--at, --every/--count, --sheet, --best, --cover and --waveform are different pictures: "
          + "give one")
    }
    if every != nil && count != nil {
      throw ValidationError("--every and --count cannot be combined")
    }
    if let every, !(every > 0 && every.isFinite) {
      throw ValidationError("--every must be a positive number of seconds")
    }
    if let count, !(1...10_000).contains(count) {
      throw ValidationError("--count must be between 1 and 10000")
    }
    if let tolerance, !(tolerance >= 0 && tolerance.isFinite) {
      throw ValidationError("--tolerance must be a positive number of seconds")
    }
    if let bestWindow, !(bestWindow > 0 && bestWindow.isFinite) {
      throw ValidationError("--best-window must be a positive number of seconds")
    }
    if bestWindow != nil && !best { throw ValidationError("--best-window goes with --best") }
    if timestamps && sheet == nil { throw ValidationError("--timestamps goes with --sheet") }
    if let quality, !(1...100).contains(quality) {
      throw ValidationError("--quality must be between 1 and 100")
    }
    if let sheet, sheet.width * sheet.height > 400 {
      throw ValidationError("--sheet has at most 400 tiles")
    }
    if let waveform {
      if WaveformJob.Kind(rawValue: waveform) == nil && WaveformJob.Kind(path: waveform) == nil {
        throw ValidationError("--waveform takes FILE.json, FILE.dat, FILE.png, or json, dat, png")
      }
      if WaveformJob.Kind(rawValue: waveform) == nil && (inputs.count > 1 || input.filesFrom != nil)
      {
        throw ValidationError("--waveform FILE takes one input; give json, dat or png for several")
      }
      if output != nil { throw ValidationError("--waveform names its own output; drop -o") }
    }
    // A picture is held whole (3 bytes a pixel, about 10 with the PNG encoder's buffers):
    // 65536x65536 asked for 13 GB and was killed by the allocator (SIGABRT).
    if let size = waveformSize, size.width * size.height > 1 << 26 {
      throw ValidationError(
        "--waveform-size is at most 67108864 pixels (65536x1024, 8192x8192)")
    }
    if bits != 8 && bits != 16 { throw ValidationError("--bits must be 8 or 16") }
    if !(2...1_000_000).contains(samplesPerPixel) {
      throw ValidationError("--samples-per-pixel must be between 2 and 1000000")
    }
    if let output, FrameGrab.ImageKind(path: output) == nil {
      throw ValidationError(
        "cannot tell the image format of \(output): name it .jpg, .jpeg, .png or .webp")
    }
  }

  var mode: FrameMode {
    let series: TimeSeries? = every.map(TimeSeries.every) ?? count.map(TimeSeries.count)
    if let sheet {
      return .sheet(
        columns: sheet.width, rows: sheet.height, times: series, timestamps: timestamps)
    }
    if let series { return .series(series) }
    if best { return .best(window: bestWindow) }
    if cover { return .cover }
    return .at(at?.seconds ?? 0)
  }

  /// Where the pictures of `input` go (a pattern for a series).
  func outputPath(for input: String) -> String {
    if let output { return output }
    if let waveform, WaveformJob.Kind(rawValue: waveform) == nil { return waveform }
    let name = input.split(separator: "/").last.map(String.init) ?? input
    let stem = name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name
    var file = stem
    if case .series = mode { file += "_%03d" }
    if case .sheet = mode { file += "_sheet" }
    file += "." + (waveform.flatMap(WaveformJob.Kind.init(rawValue:))?.rawValue ?? format.rawValue)
    if let outputDir { return (outputDir.hasSuffix("/") ? outputDir : outputDir + "/") + file }
    let directory = input.lastIndex(of: "/").map { String(input[...$0]) } ?? ""
    return directory + file
  }

  func run() throws {
    installInterruptHandlers(cleanup: TemporaryFiles.removeAll)
    ignoreBrokenPipe()
    diagnostics.ffmpegLogLevel.apply()
    let inputs = try input.inputs(arguments: self.inputs)
    let workers = workerCount(items: inputs.knownCount, jobs: parallel.jobs)
    // Each input's decoder maps its pictures anew (a 2160p 10-bit one is ~25 MB): with many
    // inputs they come from the kept heap instead (mediaprobe --verify's setting), one heap
    // for every thread, keeping up to 512 MiB spare (a 2160p HEVC decoder's ~150 MB).
    let many = (inputs.knownCount ?? 2) > 1
    tuneMemoryAllocator(
      heapBlocksUpTo: many ? 32 << 20 : 1 << 20, keepingFree: many ? 512 << 20 : 64 << 20,
      oneArena: many)
    var options = FrameJobOptions()
    options.mode = mode
    options.tolerance = tolerance
    options.maxSize = maxSize.map { FitSize(width: $0.width, height: $0.height) }
    options.quality = quality
    options.overwrite = outputFile.force
    options.sync = !outputFile.noSync
    options.open = OpenOptions(
      allowReferences: input.allowReferences, timeout: limits.timeout,
      inputFormat: input.inputFormat)
    options.threads = workers == 1 ? 0 : 1
    let failures = Mutex(0)
    let command = self
    let job = options
    var style = WaveformStyle()
    if let size = waveformSize { (style.width, style.height) = (size.width, size.height) }
    if let color = waveformColor { style.color = color.rgb }
    if let color = backgroundColor { style.background = color.rgb }
    style.decibels = dbScale
    style.axis = waveformAxis
    let drawing = style
    // Two inputs whose pictures would take the same name (a/clip.mp4 and b/clip.mp4 into one
    // --output-dir, clip.mp4 and clip.mov beside each other): the first in the inputs' order
    // keeps it and the later fail with duplicate_output, before anything is decoded; with
    // --force the later one silently replaced the first's picture.
    let owners = Mutex<[String: String]>([:])
    let claim: @Sendable (InputPath) -> (InputPath, String?) = { path in
      let output = command.outputPath(for: path.name)
      let owner = owners.withLock { owners in
        if let owner = owners[output] { return owner as String? }
        owners[output] = path.display
        return nil
      }
      return (path, owner)
    }
    let work: @Sendable (Int, (InputPath, String?)) -> (String, [String], FrameError?) = {
      (_: Int, item: (InputPath, String?)) -> (String, [String], FrameError?) in
      let (path, owner) = item
      var lines: [String] = []
      let display = path.display
      if let owner {
        return (
          display, [],
          FrameError.duplicateOutput(command.outputPath(for: path.name), owner: owner)
        )
      }
      // A bar on a terminal for one input at a time (series, sheets, --best).
      let bar = ProgressBar(label: display, quiet: command.diagnostics.quiet || workers > 1)
      defer { bar.finish() }
      var job = job
      job.progress = { done, total in bar.update(done: done, total: total) }
      job.warn = { message in
        if !command.diagnostics.quiet {
          Console.error("mediaframe", "\(display): warning: \(message)")
        }
      }
      do throws(FrameError) {
        if command.waveform != nil {
          let record = try WaveformJob.run(
            path == .standardInput ? .standardInput : .file(path.name), input: display,
            output: command.outputPath(for: path.name),
            open: job.open, samplesPerPixel: command.samplesPerPixel, bits: command.bits,
            split: command.splitChannels, style: drawing, overwrite: job.overwrite,
            sync: job.sync, threads: workers == 1 ? coreCount : 1)
          for warning in record.warnings ?? [] where !command.diagnostics.quiet {
            Console.error("mediaframe", "\(display): warning: \(warning)")
          }
          return (display, [encodeLine(record)], nil as FrameError?)
        }
        try FrameJob.run(
          .file(path.name), input: display, output: command.outputPath(for: path.name),
          options: job
        ) { record in lines.append(encodeLine(record)) }
        return (display, lines, nil as FrameError?)
      } catch {
        return (display, lines, error)
      }
    }
    let emit: @Sendable (Int, (String, [String], FrameError?)) -> Void = {
      (_: Int, result: (String, [String], FrameError?)) in
      let (display, lines, error) = result
      for line in lines { Console.out(line + "\n") }
      if let error {
        failures.withLock { $0 += 1 }
        Console.error("mediaframe", "\(display): \(error.message)")
        Console.out(
          encodeLine(
            ErrorRecord(key: "input", path: display, code: error.code, message: error.message))
            + "\n")
      }
    }
    if workers > 1, inputs.knownCount != nil {
      // The inputs are all named: the largest files start first, so that the last to start
      // are short and no worker idles while another finishes a long one; records still come
      // out in the inputs' order.
      var paths: [InputPath] = []
      while let path = inputs.next() { paths.append(path) }
      orderedParallel(
        items: paths.map(claim), workers: workers, startOrder: largestFirst(paths), work: work,
        emit: emit)
    } else {
      // Claimed as they are read, in the inputs' order (one reader at a time).
      orderedParallel(
        workers: workers, next: { inputs.next().map(claim) }, work: work, emit: emit)
    }
    if failures.withLock({ $0 }) > 0 { throw ExitCode(1) }
  }
}

/// One compact JSON line.
func encodeLine(_ value: some Encodable) -> String {
  let data = (try? MediaToolsJSONEncoder(compact: true).encode(value)) ?? Data("{}".utf8)
  return String(decoding: data, as: UTF8.self)
}

/// The image format of outputs named by the tool (`--output-dir`, beside the input).
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
  case jpg, png, webp
}

/// `RRGGBB` on the command line (hexadecimal, an optional leading `#`).
struct ColorArgument: ExpressibleByArgument, Sendable {
  var rgb: (UInt8, UInt8, UInt8)

  init?(argument: String) {
    let hex = argument.hasPrefix("#") ? String(argument.dropFirst()) : argument
    guard hex.count == 6, let value = UInt32(hex, radix: 16) else { return nil }
    rgb = (UInt8(value >> 16), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
  }
}

/// `WxH` on the command line (`640x360`, `4x4`).
struct SizeArgument: ExpressibleByArgument, Sendable {
  var width: Int
  var height: Int

  init?(argument: String) {
    let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
    guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0,
      w <= 65536, h <= 65536
    else { return nil }
    width = w
    height = h
  }
}
