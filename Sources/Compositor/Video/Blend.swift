import AV
import Composition
import MediaCore
import Render

/// One transition's pictures: libavfilter's `xfade` between the two segments' canvas pictures,
/// with its progress counted from the transition's start on the composition (not from the first
/// output frame inside it): every picture's timestamp is its time since the start in
/// microseconds, and when the start is not on the output's frame grid a first pair at 0 primes
/// the filter and its picture is dropped. `fade` (through the background) is two halves: the
/// clip before dissolves into the background, then the background into the clip after.
final class Blend {
  let transition: PlannedTransition
  private let canvas: Canvas
  private let background: Frame
  private var halves: [Half] = []

  /// One `xfade` graph over `[start, start + duration)`.
  final class Half {
    let start: MediaTime
    let duration: MediaTime
    let graph: FilterGraph
    let first: FilterGraph.Source
    let second: FilterGraph.Source
    let sink: FilterGraph.Sink
    var primed = false

    init(canvas: Canvas, transition: String, start: MediaTime, duration: MediaTime)
      throws(CompositorError)
    {
      self.start = start
      self.duration = duration
      let microseconds = Rational(1, 1_000_000)!
      let seconds = String(format: "%.6f", duration.seconds)
      let description =
        "[a][b]xfade=transition=\(transition):duration=\(seconds):offset=0,format=yuv420p[out]"
      do {
        graph = try FilterGraph(threads: canvas.filterThreads)
        first = try graph.addVideoSource(name: "a", canvas.parameters(timeBase: microseconds))
        second = try graph.addVideoSource(name: "b", canvas.parameters(timeBase: microseconds))
        sink = try graph.addVideoSink(name: "out", pixelFormats: [.yuv420p])
        try graph.configure(description)
      } catch {
        throw .render(.filter("cannot build the transition \(description)", error))
      }
    }

    /// The blend of `a` and `b` at composition time `time`.
    func blend(_ a: Frame, _ b: Frame, at time: MediaTime) throws(CompositorError) -> Frame {
      let elapsed = (time - start).units(atRate: Rational(1_000_000, 1)!)
      if !primed && elapsed > 0 {
        _ = try push(a, b, pts: 0)
      }
      primed = true
      return try push(a, b, pts: elapsed)
    }

    private func push(_ a: Frame, _ b: Frame, pts: Int64) throws(CompositorError) -> Frame {
      let (savedA, savedB) = (a.pts, b.pts)
      defer {
        a.pts = savedA
        b.pts = savedB
      }
      let output = Frame()
      do throws(FFmpegError) {
        a.pts = pts
        try graph.push(a, to: first)
        b.pts = pts
        try graph.push(b, to: second)
        guard try graph.pull(from: sink, into: output) == .frame else {
          throw FFmpegError(code: -11, message: "xfade gave no picture")
        }
      } catch {
        throw .render(.filter("the transition failed", error))
      }
      return output
    }
  }

  init(transition: PlannedTransition, canvas: Canvas, background: Frame) {
    self.transition = transition
    self.canvas = canvas
    self.background = background
  }

  /// The libavfilter `xfade` transition for a planned type.
  static func xfadeName(_ type: TransitionType) -> String {
    switch type {
    case .crossfade, .fade: "fade"
    default: type.rawValue
    }
  }

  /// The picture at composition time `time` (inside the transition) from the leaving segment's
  /// picture `a` and the entering one's `b`.
  func picture(_ a: Frame, _ b: Frame, at time: MediaTime) throws(CompositorError) -> Frame {
    let range = transition.range
    // A frame whose middle lies in the transition but whose start does not (the transition
    // starts between two frames): the leaving picture, as at progress 0.
    if time < range.start { return a }
    if transition.type == .fade {
      let half = MediaTime(value: range.duration.value, timescale: range.duration.timescale * 2)
      let middle = range.start + half
      if halves.isEmpty {
        halves = [
          try Half(canvas: canvas, transition: "fade", start: range.start, duration: half),
          try Half(canvas: canvas, transition: "fade", start: middle, duration: half),
        ]
      }
      return time < middle
        ? try halves[0].blend(a, background, at: time)
        : try halves[1].blend(background, b, at: time)
    }
    if halves.isEmpty {
      halves = [
        try Half(
          canvas: canvas, transition: Self.xfadeName(transition.type), start: range.start,
          duration: range.duration)
      ]
    }
    return try halves[0].blend(a, b, at: time)
  }
}
