import AV
import MediaCore

/// Turns HDR pictures (SMPTE 2084 PQ, ARIB STD-B67 HLG; BT.2020) into SDR BT.709 ones with
/// libavfilter: `zscale` (libzimg, in Debian's FFmpeg 5.1) linearizes the light with a nominal
/// peak of 100 cd/m², converts the primaries to BT.709 in 32-bit float R'G'B', `tonemap`
/// compresses the highlights with Hable's filmic curve (no desaturation), and `zscale` applies
/// the BT.709 transfer and matrix, limited range, 8-bit 4:2:0: the recipe FFmpeg's
/// documentation and most guides give for HDR10 to SDR.
final class ToneMapper {
  /// The graph's description.
  static let description = ToneMapping.libavfilterChain

  private var graph: FilterGraph?
  private var source: FilterGraph.Source?
  private var sink: FilterGraph.Sink?
  private var shape: (width: Int, height: Int, format: PixelFormat)?

  /// The frame tone-mapped (a new frame, tagged BT.709 limited range).
  ///
  /// - Throws: `FrameError.filter` when the graph cannot be built or fails.
  func map(_ frame: Frame) throws(FrameError) -> Frame {
    guard let format = frame.pixelFormat else { throw .noFrame("the frame has no picture") }
    do throws(FFmpegError) {
      if shape == nil || shape! != (frame.width, frame.height, format) {
        let graph = try FilterGraph(threads: 1)
        let source = try graph.addVideoSource(
          name: "in",
          VideoParameters(
            width: frame.width, height: frame.height, pixelFormat: format,
            timeBase: Rational(1, 1000)!,
            sampleAspectRatio: frame.sampleAspectRatio
              ?? Rational(1, 1)!))
        let sink = try graph.addVideoSink(name: "out")
        try graph.configure(Self.description)
        (self.graph, self.source, self.sink) = (graph, source, sink)
        shape = (frame.width, frame.height, format)
      }
      let input = Frame()
      try input.reference(frame)
      input.pts = 0
      try graph!.push(input, to: source!)
      let output = Frame()
      guard try graph!.pull(from: sink!, into: output) == .frame else {
        throw FFmpegError(code: -11, message: "the tone-mapping graph gave no frame")
      }
      return output
    } catch {
      shape = nil
      throw .filter("cannot tone-map the HDR picture to SDR", error)
    }
  }
}
