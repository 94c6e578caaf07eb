import MediaCore
import AV
import OutputKit

/// What to extract and how to convert it.
public struct ExtractOptions: Sendable {
  /// The stream to decode.
  public var stream: StreamChoice = .automatic
  /// The output encoding; nil keeps the source's depth (`--format auto`).
  public var encoding: PCMEncoding? = .s16
  /// The output rate; nil keeps the source's.
  public var sampleRate: Int?
  /// The output channel count (down- or upmixed by libswresample); nil keeps the source's.
  public var channels: Int?
  /// Seconds from the start of the input where the output starts (seek, then drop samples).
  public var start: Double?
  /// Seconds of output at most.
  public var duration: Double?
  /// Linear fade-in length in seconds.
  public var fadeIn: Double?
  /// Linear fade-out length in seconds (ending at the end of the output).
  public var fadeOut: Double?
  /// Gain in decibels.
  public var gainDB: Double?
  /// Let playlist-like inputs open the local files they name.
  public var allowReferences = false
  /// Read the input with this FFmpeg demuxer instead of probing its bytes (`--input-format`).
  public var inputFormat: String?
  /// `fsync` the finished file before it gets its name, and its directory after, so a completed
  /// WAV survives a crash or a power cut (`--no-sync` turns it off).
  public var sync = true
  /// The RIFF size above which the header becomes RF64 (tests lower it).
  public var rf64Limit = UInt64(UInt32.max)
  /// Seconds one input may take (nil: no limit); past it the input fails with `timeout`.
  public var timeout: Double?
  /// Bytes one input may read (nil: no limit).
  public var maxBytes: Int64?
  /// Request headers for a remote input (`--header`).
  public var headers: [HTTPHeader] = []

  /// Measure what is written (loudness, peaks, clipping, silence): `ExtractionReport.analysis`.
  public var analysis: AnalysisOptions?
  /// Normalize to a loudness (two passes: measure, then extract with the gain).
  public var normalization: NormalizationOptions?

  /// Gain or fades apply (the samples go through float).
  var hasEffects: Bool { gainDB != nil || fadeIn != nil || fadeOut != nil }

  /// How the input is opened: references, the format, the time limit, the byte cap.
  var openOptions: OpenOptions {
    OpenOptions(
      allowReferences: allowReferences, timeout: timeout, maxBytes: maxBytes,
      inputFormat: inputFormat, headers: headers)
  }

  /// Defaults: the automatic stream, s16, the source's rate and channels, everything.
  public init() {}
}

/// What an extraction did, for `--json` and `--verbose`.
public struct ExtractionReport: Sendable, Codable, Equatable {
  /// The input as given.
  public var input: String
  /// The output path (`-` for standard output).
  public var output: String
  /// The container index of the decoded stream.
  public var streamIndex: Int
  /// The decoded stream's codec.
  public var codec: String
  /// The written PCM format.
  public var format: PCMFormat
  /// Sample frames written (per channel).
  public var samples: Int64
  /// `samples / sample_rate` seconds.
  public var duration: Double
  /// The header was upgraded to RF64 (the data passed 4 GiB).
  public var rf64: Bool
  /// Problems that did not stop the extraction (corrupt packets, parameter changes).
  public var warnings: [String]
  /// The measurements of the written samples (with `ExtractOptions.analysis`), else null.
  @NullEncoded public var analysis: AudioAnalysis? = nil
  /// What `--normalize` did, else null.
  @NullEncoded public var normalization: Normalization? = nil
}

/// How far an extraction has come, for a progress bar.
public struct ExtractionProgress: Sendable {
  /// Seconds of input decoded so far.
  public var seconds: Double
  /// The expected total in seconds, when known.
  public var total: Double?
}
