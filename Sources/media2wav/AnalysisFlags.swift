import ArgumentParser
import AudioExtract
import MediaCore
import AV
import OutputKit
import MediaProbe
import ToolSupport

/// The analysis and normalisation options of media2wav (issue 14).
struct AnalysisFlags: ParsableArguments {
  @Flag(
    help: """
      Add an analysis of the written samples to the --json report: integrated loudness, \
      loudness range, true peak and sample peak (EBU R128 / ITU-R BS.1770-4, libebur128), RMS \
      and DC offset per channel, clipped samples, silence spans, the exact sample count. \
      Measured in the same decode pass, on its own thread.
      """)
  var analyze = false

  @Flag(
    help: """
      Write no WAV: print the analysis report of the decoded samples (32-bit float, after \
      --start/--end/--duration, --rate, --channels, --gain and fades).
      """)
  var analyzeOnly = false

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Silence is every channel below this level, in dBFS (default -60, as silencedetect).",
      valueName: "db"))
  var silenceThreshold: Double?

  @Option(
    help: ArgumentHelp(
      "The shortest silence reported, in seconds (default 2, as silencedetect).",
      valueName: "seconds"))
  var silenceDuration: Double?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      """
      Normalize to this integrated loudness in LUFS (e.g. -23, -16): measure, then write with \
      one linear gain, lowered so the true peak stays at or below --true-peak. Reads the input \
      twice; the output is measured again while it is written.
      """, valueName: "lufs"))
  var normalize: Double?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "The true-peak ceiling for --normalize, in dBTP (default -1).", valueName: "dbtp"))
  var truePeak: Double?

  /// What to measure besides loudness.
  var analysisOptions: AnalysisOptions {
    var options = AnalysisOptions()
    if let silenceThreshold { options.silenceThreshold = silenceThreshold }
    if let silenceDuration { options.silenceMinimum = silenceDuration }
    return options
  }

  /// Sets the analysis and normalisation of `options`.
  func apply(to options: inout ExtractOptions) {
    if analyze || analyzeOnly || normalize != nil { options.analysis = analysisOptions }
    if let normalize {
      options.normalization = NormalizationOptions(
        target: normalize, truePeakCeiling: truePeak ?? -1)
    }
  }
}

extension Media2WavCommand {
  /// The usage errors of the analysis options, with the options they interact with.
  func validateAnalysis() throws {
    let flags = analysis
    if flags.analyze && !json {
      throw ValidationError("--analyze adds the analysis to the --json report; give --json too")
    }
    if flags.analyzeOnly {
      if flags.analyze { throw ValidationError("--analyze-only already analyzes; drop --analyze") }
      if output != nil || outputDir != nil {
        throw ValidationError("--analyze-only writes no file; -o and --output-dir do not apply")
      }
      if format != .s16 {
        throw ValidationError(
          "--analyze-only measures the decoded samples as float; --format applies to WAV files")
      }
      if diagnostics.quiet {
        throw ValidationError("--analyze-only prints a report; it cannot be combined with --quiet")
      }
      if flags.normalize != nil {
        throw ValidationError("--normalize writes a WAV; it cannot be combined with --analyze-only")
      }
    }
    if flags.silenceThreshold != nil || flags.silenceDuration != nil,
      !(flags.analyze || flags.analyzeOnly || flags.normalize != nil)
    {
      throw ValidationError(
        "--silence-threshold and --silence-duration apply with --analyze, --analyze-only or "
          + "--normalize")
    }
    if let threshold = flags.silenceThreshold, !(threshold.isFinite && threshold <= 0) {
      throw ValidationError("--silence-threshold must be a level in dBFS, at most 0")
    }
    if let duration = flags.silenceDuration, !(duration.isFinite && duration > 0) {
      throw ValidationError("--silence-duration must be a positive number of seconds")
    }
    if flags.truePeak != nil && flags.normalize == nil {
      throw ValidationError("--true-peak is the ceiling of --normalize; give --normalize too")
    }
    if let target = flags.normalize {
      if !(target.isFinite && (-70...0).contains(target)) {
        throw ValidationError("--normalize takes a loudness between -70 and 0 LUFS")
      }
      if let ceiling = flags.truePeak, !(ceiling.isFinite && (-60...0).contains(ceiling)) {
        throw ValidationError("--true-peak takes a level between -60 and 0 dBTP")
      }
      if gain != nil {
        throw ValidationError(
          "--normalize sets the gain itself; it cannot be combined with --gain")
      }
      if inputs.contains("-") {
        throw ValidationError(
          "--normalize reads the input twice; standard input cannot be read again")
      }
    }
  }

  /// `--analyze-only` for one input: the report, or the failure.
  func analyzeOnly(
    _ path: InputPath, sources: NetworkOptions, extractor: AudioExtractor, bar: ProgressBar
  ) -> Outcome {
    let input = path.display
    do throws(ExtractError) {
      return .analyzed(
        try extractor.analyze(
          sources.source(for: path), path: input, analysis: analysis.analysisOptions
        ) { progress in bar.update(done: progress.seconds, total: progress.total) })
    } catch {
      return .failure(input: input, error: error)
    }
  }
}
