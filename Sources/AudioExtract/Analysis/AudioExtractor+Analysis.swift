import MediaCore
import OutputKit
import AV

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

extension AudioExtractor {
  /// Measures the audio of `source` without writing anything: the decoded samples as 32-bit
  /// float, after trimming, `sampleRate`/`channels` and the effects (gain, fades), before any
  /// WAV encoding. `options.encoding` does not apply.
  ///
  /// - Parameters:
  ///   - analysis: what to measure besides loudness (silence threshold and length).
  ///   - progress: called now and then with how far decoding has come.
  /// - Throws: `ExtractError` with a stable code (as `extract`, without the output errors).
  public func analyze(
    _ source: InputSource, path: String, analysis: AnalysisOptions = AnalysisOptions(),
    progress: ((ExtractionProgress) -> Void)? = nil
  ) throws(ExtractError) -> AnalysisReport {
    let source = try AudioSource(
      opening: source, open: options.openOptions, choice: options.stream, start: options.start,
      duration: options.duration,
      target: SourceTarget(
        encoding: .f32, float: true, sampleRate: options.sampleRate, channels: options.channels),
      timeout: options.timeout)
    let streamIndex = source.stream.index
    var thread: AnalysisThread?
    var effects: Effects?
    let scratch = ByteBuffer()
    let total = source.expectedSeconds
    var steps = 0
    /// The analysis thread, made when the source knows its format.
    func ready() -> AnalysisThread {
      if let thread { return thread }
      guard let format = source.format else { preconditionFailure("a conversion has a format") }
      var measuredFormat = format
      measuredFormat.encoding = .f32
      let made = AnalysisThread(format: measuredFormat, options: analysis, measured: "decoded")
      effects = Effects(
        channels: format.channels, sampleRate: format.sampleRate, gainDB: options.gainDB,
        fadeIn: options.fadeIn, fadeOut: options.fadeOut)
      thread = made
      return made
    }
    // Conversions come a frame (about 1024 samples) at a time; the analysis takes them in
    // chunks of 256 KiB, as the WAV writer does, so its hand-over costs little.
    let pending = ByteBuffer(capacity: 320 << 10)
    func flush(_ thread: AnalysisThread, whenAbove limit: Int = 256 << 10) {
      guard pending.count >= limit else { return }
      thread.submit(pending.contents)
      pending.removeAll()
    }
    do {
      while try source.step({ (conversion) throws(ExtractError) in
        let thread = ready()
        scratch.removeAll()
        do throws(FFmpegError) {
          try conversion(effects == nil ? pending : scratch)
        } catch {
          throw ExtractError.conversion("converting the samples to float for the analysis", error)
        }
        if effects != nil {
          let processed = effects!.process(Array(scratch.contents.bindMemory(to: Float.self)))
          processed.withUnsafeBytes { pending.append($0) }
        }
        flush(thread)
      }) {
        steps += 1
        if let progress, steps % 64 == 0 {
          progress(ExtractionProgress(seconds: source.position, total: total))
        }
      }
    } catch {
      thread?.abandon()
      throw error
    }
    let measuring = ready()
    if let tail = effects?.finish() { tail.withUnsafeBytes { pending.append($0) } }
    flush(measuring, whenAbove: 0)
    let result = measuring.finish()
    guard let format = source.format else { preconditionFailure("the source has a format") }
    return AnalysisReport(
      input: path, streamIndex: streamIndex, codec: source.stream.codecName, format: format,
      samples: result.samples, duration: result.duration, warnings: source.reportedWarnings,
      analysis: result)
  }

  /// `extract` with `options.normalization`: measures the input as it would be written (trim,
  /// rate, channels, fades; no gain), then extracts it with the linear gain that brings its
  /// integrated loudness to the target, lowered so the true peak stays at or below the ceiling,
  /// and measures the output while writing it.
  func extractNormalized(
    _ source: InputSource, path: String, to destination: OutputDestination,
    normalization: NormalizationOptions, progress: ((ExtractionProgress) -> Void)?
  ) throws(ExtractError) -> ExtractionReport {
    if source == .standardInput {
      throw .invalidOption("--normalize reads the input twice; standard input cannot be read again")
    }
    var first = options
    first.normalization = nil
    first.gainDB = nil
    let measured = try AudioExtractor(options: first).analyze(
      source, path: path, progress: progress
    )
    .analysis
    let (gain, limitedBy) = Self.normalizingGain(
      loudness: measured.integratedLoudness, truePeak: measured.truePeak, to: normalization)
    var second = options
    second.normalization = nil
    second.gainDB = gain
    second.analysis = options.analysis ?? AnalysisOptions()
    var report = try AudioExtractor(options: second).extract(
      source, path: path, to: destination, progress: progress)
    report.normalization = Normalization(
      target: normalization.target, truePeakCeiling: normalization.truePeakCeiling,
      inputIntegratedLoudness: measured.integratedLoudness, inputTruePeak: measured.truePeak,
      gain: gain, limitedBy: limitedBy,
      outputIntegratedLoudness: report.analysis?.integratedLoudness,
      outputTruePeak: report.analysis?.truePeak)
    return report
  }

  /// The gain in dB that moves `loudness` to the target without the true peak passing the
  /// ceiling, and what limited it (`loudness`, `true_peak` or `no_loudness`).
  static func normalizingGain(
    loudness: Double?, truePeak: Double?, to normalization: NormalizationOptions
  ) -> (gain: Double, limitedBy: String) {
    guard let loudness else { return (0, "no_loudness") }
    let gain = normalization.target - loudness
    if let truePeak, truePeak + gain > normalization.truePeakCeiling {
      return (rounded(normalization.truePeakCeiling - truePeak), "true_peak")
    }
    return (rounded(gain), "loudness")
  }
}
