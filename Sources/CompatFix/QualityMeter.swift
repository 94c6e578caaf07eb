import AV
import MediaCore
import OutputKit
import Render

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// Why a quality measurement failed.
struct QualityError: Error {
  var message: String
}

/// SSIM and PSNR of a re-encoded video against its source, with libavfilter's `ssim` and `psnr`
/// filters in one graph: the source goes through the same filters the encoder's input did
/// (deinterlacing, scaling, frame-rate capping), so what is measured is what the encoding lost.
/// The means are over every frame: SSIM the mean of each frame's `All`, PSNR from the mean of
/// each frame's weighted MSE (as the filters' own summaries compute them).
enum QualityMeter {
  static func measure(
    reference: String, referenceStream: Int, filter: String, distorted: String,
    timeout: Double?
  ) throws(QualityError) -> Quality {
    do {
      return try run(
        reference: reference, referenceStream: referenceStream, filter: filter,
        distorted: distorted, timeout: timeout)
    } catch let error as QualityError {
      throw error
    } catch let error as FFmpegError {
      throw QualityError(message: error.message)
    } catch let error as RenderError {
      throw QualityError(message: error.message)
    } catch {
      throw QualityError(message: "\(error)")
    }
  }

  private static func run(
    reference: String, referenceStream: Int, filter: String, distorted: String,
    timeout: Double?
  ) throws -> Quality {
    let options = OpenOptions()
    let referenceInput = try Transcoder.open(.file(reference), options: options)
    let distortedInput = try Transcoder.open(.file(distorted), options: options)
    guard let distortedStream = distortedInput.streams.first(where: \.isVideo)?.index else {
      throw QualityError(message: "the output has no video stream")
    }
    let graph = try FilterGraph(threads: 0)
    let main = try FrameReader(
      input: distortedInput, stream: distortedStream, name: "main", graph: graph)
    let ref = try FrameReader(
      input: referenceInput, stream: referenceStream, name: "ref", graph: graph)
    let ssimSink = try graph.addVideoSink(name: "s", pixelFormats: [.yuv420p])
    let psnrSink = try graph.addVideoSink(name: "p", pixelFormats: [.yuv420p])
    let prefix = filter == "null" ? "" : filter + ","
    try graph.configure(
      "[ref]\(prefix)setpts=PTS-STARTPTS,format=yuv420p[r];"
        + "[main]setpts=PTS-STARTPTS,format=yuv420p[m];[m]split[m1][m2];[r]split[r1][r2];"
        + "[m1][r1]ssim=shortest=1[s];[m2][r2]psnr=shortest=1[p]")
    let frame = Frame()
    var ssims: [Double] = []
    var mses: [Double] = []
    var ended = (false, false)
    let deadline = timeout.map { MonotonicClock.seconds() + $0 }
    while true {
      if Interruption.isRequested { throw RenderError.interrupted }
      if let deadline, MonotonicClock.seconds() > deadline {
        throw RenderError.timeout(seconds: timeout)
      }
      while !ended.0, try graph.pull(from: ssimSink, into: frame) != .needsInput {
        if frame.hasData, let value = frame.metadata("lavfi.ssim.All").flatMap(Double.init) {
          ssims.append(value)
        } else {
          ended.0 = true
        }
      }
      while !ended.1, try graph.pull(from: psnrSink, into: frame) != .needsInput {
        if frame.hasData, let value = frame.metadata("lavfi.psnr.mse_avg").flatMap(Double.init) {
          mses.append(value)
        } else {
          ended.1 = true
        }
      }
      if ended.0 && ended.1 { break }
      let needy = graph.neediestSource
      let reader = needy == ref.source && !ref.finished ? ref : !main.finished ? main : ref
      if reader.finished { break }
      try reader.feed(graph)
    }
    guard !ssims.isEmpty, !mses.isEmpty else {
      throw QualityError(message: "no frame was compared")
    }
    let ssim = ssims.reduce(0, +) / Double(ssims.count)
    let mse = mses.reduce(0, +) / Double(mses.count)
    let psnr: Double? = mse > 0 ? 10 * log10(255 * 255 / mse) : nil
    return Quality(ssim: ssim, psnr: psnr, frames: ssims.count)
  }
}

/// Decodes one video stream of an input into a graph source, a packet at a time.
final class FrameReader {
  let input: InputFile
  let demuxer: Demuxer
  let stream: Int
  let decoder: CodecDecoder
  let source: FilterGraph.Source
  private let frame = Frame()
  private(set) var finished = false

  init(input: InputFile, stream: Int, name: String, graph: FilterGraph) throws {
    self.input = input
    self.stream = stream
    demuxer = Demuxer(input)
    let view = input.view(stream)
    decoder = try view.openDecoder(threads: 0)
    source = try graph.addVideoSource(
      name: name, decoder.videoParameters(of: view, frameRate: view.guessedFrameRate))
    input.discardAll(except: stream)
  }

  /// Reads packets until the decoder gives at least one frame, pushing each into the graph;
  /// at the end, drains the decoder and closes the source.
  func feed(_ graph: FilterGraph) throws {
    var pushed = 0
    while pushed == 0 && !finished {
      switch try demuxer.next() {
      case .packet:
        guard demuxer.packet.streamIndex == stream else { continue }
        pushed += try decode(demuxer.packet, graph)
      case .end, .failed:
        _ = try decode(nil, graph)
        try graph.push(nil, to: source)
        finished = true
      }
    }
  }

  private func decode(_ packet: Packet?, _ graph: FilterGraph) throws -> Int {
    var pushed = 0
    _ = try decoder.decode(packet, into: frame, failure: { _ in }) {
      (frame: Frame) throws(FFmpegError) -> Bool in
      frame.pts = frame.bestEffortTimestamp
      try graph.push(frame, to: source)
      pushed += 1
      return true
    }
    return pushed
  }
}
