import AV
import Foundation
import MediaCore
import Testing

/// libavfilter graphs with named sources and sinks, on frames made by construction.
@Suite struct FilterGraphTests {
  /// `xfade` from a red clip to a blue one (3 s each, 24 fps, so the fade's middle, 2.5 s,
  /// is a frame): before the fade red, after it blue, and each fade frame the mix xfade's
  /// progress gives (1 - (t - offset) / duration of the first), 50/50 in the middle, read back
  /// as R'G'B' through our scaler.
  @Test func crossFadeMixesBothInputs() throws {
    let (width, height, rate) = (64, 48, 24)
    let parameters = VideoParameters(
      width: width, height: height, pixelFormat: .yuv420p, timeBase: Rational(1, Int64(rate))!,
      frameRate: Rational(Int64(rate), 1)!)
    let graph = try FilterGraph(threads: 1)
    let a = try graph.addVideoSource(name: "a", parameters)
    let b = try graph.addVideoSource(name: "b", parameters)
    let sink = try graph.addVideoSink(name: "out", pixelFormats: [.yuv420p])
    try graph.configure("[a][b]xfade=transition=fade:duration=1:offset=2[out]")

    let red = try solidFrame(red: 255, green: 0, blue: 0, width: width, height: height)
    let blue = try solidFrame(red: 0, green: 0, blue: 255, width: width, height: height)
    let toRGB = try Scaler(
      from: ImageFormat(width: width, height: height, pixelFormat: .yuv420p, matrix: .bt709),
      to: ImageFormat(width: width, height: height, pixelFormat: .rgb24),
      interpolation: .nearest, accurate: true)
    var output: [(pts: Int64, rgb: [Int])] = []
    let frame = Frame()
    func drain() throws {
      while try graph.pull(from: sink, into: frame) == .frame {
        let rgb = try toRGB.scale(frame)
        output.append((frame.pts ?? -1, pixel(rgb, x: width / 2, y: height / 2)))
      }
    }
    for index in 0..<(3 * rate) {
      red.pts = Int64(index)
      blue.pts = Int64(index)
      try graph.push(red, to: a)
      try graph.push(blue, to: b)
      try drain()
    }
    try graph.push(nil, to: a)
    try graph.push(nil, to: b)
    try drain()
    #expect(try graph.pull(from: sink, into: frame) == .end)

    // 2 s of the first, 1 s of fade, the second's remaining 2 s.
    #expect(output.count == 5 * rate)
    #expect(output.map(\.pts) == (0..<Int64(5 * rate)).map { $0 })
    for (index, item) in output.enumerated() {
      let progress = min(1, max(0, 1 - Double(index - 2 * rate) / Double(rate)))
      let expected = [255 * progress, 0, 255 * (1 - progress)]
      for channel in 0..<3 {
        #expect(
          abs(Double(item.rgb[channel]) - expected[channel]) <= 3,
          "frame \(index): \(item.rgb) vs \(expected)")
      }
    }
    let middle = output[2 * rate + rate / 2].rgb
    #expect(abs(middle[0] - 128) <= 3 && middle[1] <= 3 && abs(middle[2] - 128) <= 3)
  }

  /// `amix=normalize=0` adds its inputs: a 440 Hz and a 1 kHz sine (amplitude 0.25 each)
  /// keep their own level in the mix (0 dB change), and the mix's RMS is the sum of the powers;
  /// the default (normalize on) halves each (-6.02 dB), which shows the measure can fail.
  @Test(arguments: [("amix=inputs=2:normalize=0", 0.0), ("amix=inputs=2", -6.0206)])
  func mixKeepsEachInputsLevel(filter: String, expectedChange: Double) throws {
    let rate = 48000
    let parameters = AudioParameters(sampleRate: rate, sampleFormat: .fltp, channelLayout: .mono)
    let graph = try FilterGraph(threads: 1)
    let a = try graph.addAudioSource(name: "a", parameters)
    let b = try graph.addAudioSource(name: "b", parameters)
    let sink = try graph.addAudioSink(
      name: "out", sampleFormats: [.fltp], sampleRates: [rate], channelLayouts: [.mono])
    try graph.configure("[a][b]\(filter)[out]")
    var mixed: [Float] = []
    let frame = Frame()
    func drain() throws {
      while try graph.pull(from: sink, into: frame) == .frame {
        mixed += floatSamples(frame)
      }
    }
    for start in stride(from: 0, to: rate, by: 1000) {
      let count = min(1000, rate - start)
      try graph.push(
        audioFrame(
          sine(frequency: 440, amplitude: 0.25, rate: rate, start: start, count: count),
          rate: rate, pts: Int64(start)), to: a)
      try graph.push(
        audioFrame(
          sine(frequency: 1000, amplitude: 0.25, rate: rate, start: start, count: count),
          rate: rate, pts: Int64(start)), to: b)
      try drain()
    }
    try graph.push(nil, to: a)
    try graph.push(nil, to: b)
    try drain()
    #expect(mixed.count == rate)

    // Each sine's amplitude in the mix: its projection over whole periods (1 s).
    func amplitude(_ frequency: Double) -> Double {
      var sum = 0.0
      for (n, sample) in mixed.enumerated() {
        sum += Double(sample) * Foundation.sin(2 * Double.pi * frequency * Double(n) / Double(rate))
      }
      return 2 * sum / Double(mixed.count)
    }
    for frequency in [440.0, 1000] {
      let change = 20 * log10(amplitude(frequency) / 0.25)
      #expect(abs(change - expectedChange) < 0.05, "\(frequency) Hz: \(change) dB")
    }
    let rms = (mixed.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(mixed.count))
      .squareRoot()
    let inputRMS = 0.25 / 2.0.squareRoot()
    let expectedRMS = (2 * inputRMS * inputRMS).squareRoot() * pow(10, expectedChange / 20)
    #expect(abs(20 * log10(rms / expectedRMS)) < 0.05, "rms \(rms) vs \(expectedRMS)")
  }

  /// With one source named `in` and one sink named `out`, the description needs no labels;
  /// the sink delivers the size and format the chain makes, in the source's time base.
  @Test func unlabelledChainAndSinkParameters() throws {
    let graph = try FilterGraph(threads: 1)
    let source = try graph.addVideoSource(
      name: "in",
      VideoParameters(
        width: 320, height: 240, pixelFormat: .rgb24, timeBase: Rational(1, 12800)!,
        frameRate: Rational(25, 1)!))
    let sink = try graph.addVideoSink(name: "out", pixelFormats: [.yuv420p])
    try graph.configure("scale=160:120")
    let delivered = graph.videoParameters(of: sink)
    #expect(delivered.width == 160 && delivered.height == 120)
    #expect(delivered.pixelFormat == .yuv420p)
    #expect(delivered.timeBase == Rational(1, 12800)!)
    #expect(delivered.frameRate == Rational(25, 1)!)
    let frame = Frame()
    #expect(try graph.pull(from: sink, into: frame) == .needsInput)
    #expect(graph.neediestSource == source)
    let input = try Frame.video(width: 320, height: 240, pixelFormat: .rgb24)
    input.pts = 512
    try graph.push(input, to: source)
    #expect(try graph.pull(from: sink, into: frame) == .frame)
    #expect(frame.pts == 512 && frame.width == 160 && frame.pixelFormat == .yuv420p)
  }

  /// An audio sink with a frame size delivers exactly that many samples a frame, the last
  /// shorter (set after configuration: before, libavfilter dereferences a missing link).
  @Test func audioSinkFrameSize() throws {
    let parameters = AudioParameters(
      sampleRate: 48000, sampleFormat: .fltp, channelLayout: .mono)
    let graph = try FilterGraph(threads: 1)
    let source = try graph.addAudioSource(name: "in", parameters)
    let sink = try graph.addAudioSink(name: "out", frameSize: 1024)
    try graph.configure("anull")
    var sizes: [Int] = []
    var stamps: [Int64] = []
    let frame = Frame()
    for start in stride(from: 0, to: 5000, by: 700) {
      let count = min(700, 5000 - start)
      try graph.push(
        audioFrame(
          [Float](repeating: 0, count: count), rate: 48000,
          pts: Int64(start)), to: source)
      while try graph.pull(from: sink, into: frame) == .frame {
        sizes.append(frame.sampleCount)
        stamps.append(frame.pts ?? -1)
      }
    }
    try graph.push(nil, to: source)
    while try graph.pull(from: sink, into: frame) == .frame {
      sizes.append(frame.sampleCount)
      stamps.append(frame.pts ?? -1)
    }
    #expect(sizes == [1024, 1024, 1024, 1024, 904])
    #expect(stamps == [0, 1024, 2048, 3072, 4096])
  }

  /// Mistakes are typed errors: an unknown filter, a label that names no source, a graph used
  /// before it is configured, a source of another graph.
  @Test func errors() throws {
    let parameters = VideoParameters(
      width: 16, height: 16, pixelFormat: .yuv420p, timeBase: Rational(1, 25)!)
    let unknown = try FilterGraph(threads: 1)
    _ = try unknown.addVideoSource(name: "in", parameters)
    _ = try unknown.addVideoSink(name: "out")
    #expect(throws: FFmpegError.self) { try unknown.configure("nosuchfilter") }

    let unlabelled = try FilterGraph(threads: 1)
    _ = try unlabelled.addVideoSource(name: "a", parameters)
    _ = try unlabelled.addVideoSink(name: "out")
    #expect(throws: FFmpegError.self) { try unlabelled.configure("[c]null[out]") }

    let early = try FilterGraph(threads: 1)
    let sink = try early.addVideoSink(name: "out")
    #expect(throws: FFmpegError.self) { _ = try early.pull(from: sink, into: Frame()) }

    let other = try FilterGraph(threads: 1)
    let source = try other.addVideoSource(name: "in", parameters)
    _ = try other.addVideoSink(name: "out")
    try other.configure("null")
    let another = try FilterGraph(threads: 1)
    _ = try another.addVideoSource(name: "in", parameters)
    _ = try another.addVideoSink(name: "out")
    try another.configure("null")
    let error = #expect(throws: FFmpegError.self) { try another.push(nil, to: source) }
    #expect(error?.message.contains("another graph") == true)

    // A syntax error names the description.
    let syntax = try FilterGraph(threads: 1)
    _ = try syntax.addVideoSource(name: "in", parameters)
    _ = try syntax.addVideoSink(name: "out")
    let parse = #expect(throws: FFmpegError.self) { try syntax.configure("scale=[") }
    #expect(parse?.message.contains("scale=[") == true)
  }
}
