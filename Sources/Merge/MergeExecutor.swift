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
  /// Seconds ffmpeg ran.
  public var ffmpegSeconds: Double
  /// Seconds the check of the output took (probe, scan, decode).
  public var checkSeconds: Double
  /// What ffmpeg printed on standard error (its warnings with `--verbose`).
  public var ffmpegLog: String
}

/// Runs a plan: ffmpeg writes a temporary file beside the output, the file is probed, scanned
/// and decoded, compared with the plan, and only then moved into place.
public struct MergeExecutor: Sendable {
  /// Replace an existing output (`--force`).
  public var overwrite: Bool
  /// fsync the file before it gets its name, and its directory after (`--no-sync` turns it off).
  public var sync: Bool
  /// Threads the output check's decoders may use.
  public var decoderThreads: Int32

  /// An executor.
  public init(overwrite: Bool = false, sync: Bool = true, decoderThreads: Int32 = 2) {
    self.overwrite = overwrite
    self.sync = sync
    self.decoderThreads = decoderThreads
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

  /// Runs `plan`; `progress` receives the seconds of the timeline written so far.
  ///
  /// The render is supervised (every 100 ms and whenever ffmpeg reports progress): it is stopped
  /// (SIGKILL) at `deadline` (a `MonotonicClock.seconds()` time: `--timeout` counted from the start of the merge),
  /// when ffmpeg reports writing more than one frame past the planned end, and when the file
  /// grows past `expected.maxBytes`.
  ///
  /// - Throws: `MergeError.ffmpegNotFound`, `.ffmpegFailed`, `.outputMismatch` (also for a render
  ///   stopped past the planned end), `.implausiblePlan` (stopped past the size limit),
  ///   `.timeout`, `.interrupted`, `.output` or `.writeError`. Nothing is left behind: ffmpeg
  ///   writes an unnamed file (`OutputFile`) that gets its name only after the check.
  public func run(
    _ plan: MergePlan, deadline: Double? = nil, progress: (Double) -> Void = { _ in }
  ) throws(MergeError) -> MergeResult {
    guard access(plan.ffmpeg.executable, X_OK) == 0 else { throw .ffmpegNotFound }
    let staged: OutputFile
    let stagedPath: String
    do {
      staged = try OutputFile(forChildWriting: plan.output, overwrite: overwrite, sync: sync)
      stagedPath = staged.childPath!  // a file, never a stream (forChildWriting)
    } catch {
      throw .output(path: plan.output, error)
    }
    var arguments = plan.ffmpeg.arguments
    arguments[arguments.count - 1] = stagedPath

    let started = MonotonicClock.seconds()
    let timeout = deadline.map { $0 - started }
    // Past this much timeline written, ffmpeg has left the plan (one frame of slack).
    let endLimit = plan.expected.duration.seconds + plan.expected.videoTolerance.seconds + 1e-3
    var written = 0.0
    var reason: MergeError?
    var pending: [UInt8] = []
    let (status, errorOutput, stopped) = try ChildProcess.run(
      executable: plan.ffmpeg.executable, arguments: arguments, input: plan.ffmpeg.stdin
    ) { chunk in
      pending += chunk
      while let newline = pending.firstIndex(of: 0x0A) {
        let line = String(decoding: pending[..<newline], as: UTF8.self)
        pending.removeFirst(newline + 1)
        if line.hasPrefix("out_time_us="), let micros = Int64(line.dropFirst(12)), micros >= 0 {
          written = Double(micros) / 1e6
          progress(written)
        }
      }
    } stop: {
      if let deadline, MonotonicClock.seconds() >= deadline {
        reason = .timeout(seconds: timeout ?? 0)
      } else if written > endLimit {
        reason = .outputMismatch(
          path: plan.output,
          problems: [
            "ffmpeg wrote \(fixed(written, places: 3)) s, more than one frame past the "
              + "planned \(plan.expected.duration) s: stopped"
          ])
      } else if let size = Self.size(of: stagedPath), size > plan.expected.maxBytes {
        reason = .implausiblePlan(reasons: [
          "the output grew past \(plan.expected.maxBytes) bytes, the most its clips allow "
            + "(\(size) bytes written): stopped"
        ])
      }
      return reason != nil
    }
    let ffmpegSeconds = MonotonicClock.seconds() - started
    if Interruption.isRequested { throw .interrupted }
    if stopped, let reason { throw reason }
    guard status == .exited(0) else {
      let detail = Self.lastLines(errorOutput)
      if errorOutput.contains("No space left on device") {
        throw .writeError(path: plan.output, detail: detail)
      }
      throw .ffmpegFailed(status: status.description, detail: detail)
    }

    let checkStarted = MonotonicClock.seconds()
    let remaining = deadline.map { max(1e-3, $0 - MonotonicClock.seconds()) }
    let options = ProbeOptions(
      scan: true, timeout: remaining, verify: .all, decoderThreads: decoderThreads)
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
    let problems =
      OutputCheck.problems(info, against: plan, platform: platform)
      + OutputCheck.chapterProblems(chapters, against: plan.chapters)
    guard problems.isEmpty else { throw .outputMismatch(path: plan.output, problems: problems) }
    do {
      try staged.commit()
    } catch {
      throw .output(path: plan.output, error)
    }
    return MergeResult(
      output: info, ffmpegSeconds: ffmpegSeconds,
      checkSeconds: MonotonicClock.seconds() - checkStarted,
      ffmpegLog: errorOutput)
  }

  /// Seconds on the monotonic clock: what `run`'s `deadline` counts in.
  public static func clock() -> Double { MonotonicClock.seconds() }

  /// The size of the file at `path` (the staged output, through `/proc/PID/fd/N`), if known.
  static func size(of path: String) -> Int64? {
    var info = stat()
    return stat(path, &info) == 0 ? Int64(info.st_size) : nil
  }

  /// The last few non-empty lines of what ffmpeg said.
  static func lastLines(_ text: String, count: Int = 6) -> String {
    text.split(separator: "\n").map { line in
      String(line.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }.filter { !$0.isEmpty }.suffix(count).joined(separator: " | ")
  }
}
