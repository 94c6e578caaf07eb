import AV
import Composition
import MediaCore

/// A clip's audio played at another speed with its pitch kept: interleaved 32-bit float samples
/// through libavfilter's `atempo` (WSOLA), chained where one filter cannot reach the speed
/// (FFmpeg 5.1's `atempo` takes 0.5 to 100: ¼ is `atempo=0.5,atempo=0.5`).
final class TempoStage {
  private let graph: FilterGraph
  private let source: FilterGraph.Source
  private let sink: FilterGraph.Sink
  private let channels: Int
  private let sampleRate: Int
  private let layout: ChannelLayout
  private let output = Frame()
  private var pts: Int64 = 0
  private var finished = false

  /// The `atempo` chain for `speed` (¼ to 4): factors each within 0.5 to 100 whose product is
  /// `speed`.
  static func chain(speed: Double) -> String {
    var factors: [Double] = []
    var rest = speed
    while rest < 0.5 {
      factors.append(0.5)
      rest /= 0.5
    }
    factors.append(rest)
    return factors.map { "atempo=\($0)" }.joined(separator: ",")
  }

  /// A stage changing the tempo of `channels` channels at `sampleRate` by `speed`.
  init(speed: Double, sampleRate: Int, channels: Int) throws(CompositorError) {
    self.channels = channels
    self.sampleRate = sampleRate
    layout = ChannelLayout(defaultFor: Int32(channels))
    let description = Self.chain(speed: speed)
    do {
      graph = try FilterGraph(threads: 1)
      source = try graph.addAudioSource(
        name: "in",
        AudioParameters(sampleRate: sampleRate, sampleFormat: .flt, channelLayout: layout))
      sink = try graph.addAudioSink(
        name: "out", sampleFormats: [.flt], sampleRates: [sampleRate], channelLayouts: [layout])
      try graph.configure(description)
    } catch {
      throw .render(.filter("cannot build the tempo change \(description)", error))
    }
  }

  /// Sends `samples` (interleaved) through the tempo change and appends what comes out to
  /// `out`; an empty `samples` ends the input and drains the filter.
  func process(_ samples: UnsafeBufferPointer<Float>, into out: inout [Float])
    throws(CompositorError)
  {
    guard !finished else { return }
    do throws(FFmpegError) {
      if samples.isEmpty {
        try graph.push(nil, to: source)
        finished = true
      } else {
        let count = samples.count / channels
        let frame = try Frame.audio(
          sampleCount: count, format: .flt, layout: layout, sampleRate: sampleRate)
        frame.withSamples { bytes in
          bytes.copyMemory(from: UnsafeRawBufferPointer(samples))
        }
        frame.pts = pts
        pts += Int64(count)
        try graph.push(frame, to: source)
      }
      while try graph.pull(from: sink, into: output) == .frame {
        let values = output.sampleCount * channels
        output.withSamples { bytes in
          let floats = bytes.bindMemory(to: Float.self)
          out.append(contentsOf: floats.prefix(values))
        }
      }
    } catch {
      throw .render(.filter("cannot change the tempo of a clip's audio", error))
    }
  }
}
