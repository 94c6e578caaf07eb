import MediaCore
import OutputKit
import AV

/// Decodes the audio of a media file and writes it as WAV with our own RIFF/RF64 writer:
/// libavformat demux → libavcodec decode → libswresample convert → WAV, one packet, one frame and
/// one conversion buffer at a time, the writing on a second thread.
///
/// The PCM equals `ffmpeg -nostdin -i IN -map 0:a:N [-ac C] [-ar R] -f s16le -` byte for byte (and
/// with `-ss S -t T` before `-i` for trimming), given the same FFmpeg libraries.
public struct AudioExtractor: Sendable {
  /// The options every extraction uses.
  public let options: ExtractOptions

  /// An extractor with `options`.
  public init(options: ExtractOptions) {
    self.options = options
  }

  /// Extracts the audio of `source` into `destination`.
  ///
  /// The output appears only when complete: a failure or an interruption (`Interruption`) leaves
  /// no file and an existing file untouched.
  ///
  /// - Parameters:
  ///   - path: the input path to report.
  ///   - progress: called now and then with how far decoding has come.
  /// - Throws: `ExtractError` with a stable code.
  public func extract(
    _ source: InputSource, path: String, to destination: OutputDestination,
    progress: ((ExtractionProgress) -> Void)? = nil
  ) throws(ExtractError) -> ExtractionReport {
    if let normalization = options.normalization {
      return try extractNormalized(
        source, path: path, to: destination, normalization: normalization, progress: progress)
    }
    let source = try AudioSource(
      opening: source, open: options.openOptions, choice: options.stream, start: options.start,
      duration: options.duration,
      target: SourceTarget(
        encoding: options.encoding, float: options.hasEffects, sampleRate: options.sampleRate,
        channels: options.channels),
      timeout: options.timeout)
    let streamIndex = source.stream.index
    // Every early exit below leaves cleaning up to deinitializers: the sink stops its writer
    // thread before the output file closes its descriptor (and removes its temporary file).
    let output: OutputFile
    do {
      output = try OutputFile(destination, sync: options.sync)
    } catch {
      throw .output(error)
    }
    let (format, samples, rf64, analysis) = try Self.write(
      source, to: output, options: options, progress: progress)
    do {
      try output.commit()
    } catch {
      throw .output(error)
    }
    return ExtractionReport(
      input: path, output: destination.display, streamIndex: streamIndex,
      codec: source.stream.codecName, format: format, samples: samples,
      duration: Double(samples) / Double(format.sampleRate), rf64: rf64,
      warnings: source.reportedWarnings, analysis: analysis)
  }

  /// Pulls `source` through the effects (gain, fades) into a WAV sink on `output`.
  private static func write(
    _ source: AudioSource, to output: OutputFile, options: ExtractOptions,
    progress: ((ExtractionProgress) -> Void)?
  ) throws(ExtractError) -> (PCMFormat, Int64, Bool, AudioAnalysis?) {
    var sink: WAVSink?
    var effects: EffectsStage?
    var analysis: AnalysisThread?
    let total = source.expectedSeconds
    var steps = 0
    /// The sink, made when the source knows its format (at its first conversion).
    func ready() throws(ExtractError) -> WAVSink {
      if let sink { return sink }
      guard let format = source.format else { preconditionFailure("a conversion has a format") }
      let made = try WAVSink(
        format: format, output: output, expectedSeconds: total, rf64Limit: options.rf64Limit)
      sink = made
      if let analysisOptions = options.analysis {
        let thread = AnalysisThread(written: format, options: analysisOptions)
        made.observer = { thread.submit($0) }
        analysis = thread
      }
      if options.hasEffects {
        effects = try EffectsStage(
          format: format, gainDB: options.gainDB, fadeIn: options.fadeIn, fadeOut: options.fadeOut)
      }
      return made
    }
    do {
      while try source.step({ (conversion) throws(ExtractError) in
        let sink = try ready()
        if let effects {
          try effects.process(conversion, into: sink)
        } else {
          try sink.write(conversion)
        }
      }) {
        steps += 1
        if let progress, steps % 64 == 0 {
          progress(ExtractionProgress(seconds: source.position, total: total))
        }
      }
      let sink = try ready()
      try effects?.finish(into: sink)
      let rf64 = try sink.finish(rf64Limit: options.rf64Limit)
      return (sink.format, sink.samplesWritten, rf64, analysis?.finish())
    } catch {
      analysis?.abandon()
      sink?.abandon()
      throw error
    }
  }
}
