import AV
import MediaCore
import OutputKit

/// Stream copy into another container: every packet byte for byte, timestamps moved by the
/// input's start and converted to the output's time bases, the container's tags, the streams'
/// tags, dispositions and side data (a display matrix) and the chapters kept; MP4 with
/// `+faststart` by default. The same engine as `Transcoder`, with every stream copied: what
/// `mediacompat --fix`'s retag and remux steps are.
package enum Remuxer {
  /// The streams a remux copies by default: every audio and video stream (cover art
  /// included), in the input's order; subtitles and data are left out (most do not fit another
  /// container as they are).
  package static func defaultStreams(of input: InputFile) -> [Int] {
    input.streams.filter { $0.isAudio || $0.isVideoType }.map(\.index)
  }

  /// Copies `streams` of `input` (nil: `defaultStreams`) into `output` as `container`.
  ///
  /// - Parameters:
  ///   - name: the output's name, for libavformat's messages and errors (never opened).
  ///   - chapters: the chapters to write; nil: the input's.
  ///   - timeout: seconds the remux may take.
  /// - Returns: the packets written per output stream.
  /// - Throws: `RenderError` (`muxer_error` for a codec the container cannot hold,
  ///   `write_error` with its `errno`, `interrupted`, `timeout`); `output` must then not be
  ///   committed.
  package static func run(
    input: InputFile, output: OutputFile, name: String, streams: [Int]? = nil,
    container: String = "mp4", muxerOptions: [String: String] = ["movflags": "+faststart"],
    chapters: [InputChapter]? = nil, timeout: Double? = nil
  ) throws(RenderError) -> RenderReport {
    let chosen = streams ?? defaultStreams(of: input)
    guard !chosen.isEmpty else { throw .noStreams("the input has no audio or video stream") }
    let settings = RenderSettings(
      streams: chosen.map { StreamChoice(input: $0, action: .copy) }, container: container,
      muxerOptions: muxerOptions, chapters: chapters, timeout: timeout)
    return try Transcoder.run(input: input, output: output, name: name, settings: settings)
  }
}
