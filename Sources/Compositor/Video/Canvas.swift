import AV
import Composition
import MediaCore
import Render

/// The picture every segment is rendered onto: the render's size and rate, its background, its
/// colours. Builds the graphs that put a source picture there (filter strings exist only here
/// and in `Blend`).
struct Canvas {
  var width: Int
  var height: Int
  var frameRate: Rational
  var background: Color
  var colors: ColorPlan
  var filterThreads: Int

  /// `#rrggbb` as libavfilter's colour syntax.
  var backgroundOption: String {
    let hex = String(background.description.dropFirst())
    return "0x\(hex)"
  }

  /// The parameters of a canvas picture pushed into a graph whose timestamps count `timeBase`.
  func parameters(timeBase: Rational) -> VideoParameters {
    VideoParameters(
      width: width, height: height, pixelFormat: .yuv420p, timeBase: timeBase,
      sampleAspectRatio: Rational(1, 1)!, frameRate: frameRate)
  }

  /// The filters that turn a picture upright from its display matrix or EXIF orientation: the
  /// rotation, then the flip when mirrored, folded into one filter where FFmpeg has one.
  static func uprightFilters(rotation: Int, mirrored: Bool) -> [String] {
    switch (rotation, mirrored) {
    case (90, false): ["transpose=clock"]
    case (180, false): ["hflip", "vflip"]
    case (270, false): ["transpose=cclock"]
    case (0, true): ["hflip"]
    case (90, true): ["transpose=cclock_flip"]
    case (180, true): ["vflip"]
    case (270, true): ["transpose=clock_flip"]
    default: []
    }
  }

  /// The chain that puts a picture (`format`, tagged `tags`) where `transform` says: upright,
  /// scaled to the placed rectangle (its pixel aspect ratio folded in: the rectangle is the
  /// display size's), converted to the output's matrix and limited-range 4:2:0, cropped and
  /// padded with the background, square pixels.
  func transformFilter(_ transform: SegmentTransform, tags: ColorTags, format: PixelFormat)
    -> String
  {
    var filters: [String] = []
    if let crop = transform.crop {
      // In stored pixels, before the turn; exact: an odd corner is not rounded to the chroma
      // grid.
      filters.append("crop=\(crop.width):\(crop.height):\(crop.x):\(crop.y):exact=1")
    }
    filters += Self.uprightFilters(rotation: transform.rotation, mirrored: transform.mirrored)
    filters.append(
      "scale=\(transform.width):\(transform.height):\(colors.scaleOptions(for: tags, format: format))"
    )
    filters.append("format=yuv420p")
    let cropWidth = min(transform.width, width)
    let cropHeight = min(transform.height, height)
    if cropWidth < transform.width || cropHeight < transform.height {
      filters.append(
        "crop=\(cropWidth):\(cropHeight):\(max(0, -transform.x)):\(max(0, -transform.y))")
    }
    if cropWidth < width || cropHeight < height {
      filters.append(
        "pad=\(width):\(height):\(max(0, transform.x)):\(max(0, transform.y))"
          + ":color=\(backgroundOption)")
    }
    filters.append("setsar=1")
    return filters.joined(separator: ",")
  }

  /// A picture of the background alone.
  func backgroundPicture() throws(CompositorError) -> Frame {
    do throws(FFmpegError) {
      let graph = try FilterGraph(threads: 1)
      let sink = try graph.addVideoSink(name: "out", pixelFormats: [.yuv420p])
      try graph.configure(
        "color=c=\(backgroundOption):s=\(width)x\(height):r=\(frameRate.num)/\(frameRate.den)"
          + ",format=yuv420p[out]")
      let frame = Frame()
      guard try graph.pull(from: sink, into: frame) == .frame else {
        throw FFmpegError(code: -1, message: "the colour source gave no picture")
      }
      return frame
    } catch {
      throw .render(.filter("cannot make the background picture", error))
    }
  }
}

/// A graph that puts one source's pictures on the canvas; rebuilt when the pictures change
/// size or format (a stream that changes mid-way, a sequence of images of different sizes).
final class PictureTransformer {
  private let canvas: Canvas
  private let transform: SegmentTransform
  /// The clip's looks, applied after placing (`LookFilters.chain`, on the canvas's matrix).
  private let looks: [Look]
  private var graph: FilterGraph?
  private var source: FilterGraph.Source?
  private var sink: FilterGraph.Sink?
  private var input: (width: Int, height: Int, format: PixelFormat)?
  private var tags = ColorTags.unspecified
  private let timeBase = Rational(1, 1_000_000)!
  /// The looks when they hold a Kuwahara (run after the graph instead of inside it).
  private var after: LookStage?

  init(canvas: Canvas, transform: SegmentTransform, looks: [Look] = []) {
    self.canvas = canvas
    self.transform = transform
    self.looks = looks
  }

  /// `picture` on the canvas (a new frame; `picture` is left as it was).
  func apply(_ picture: Frame, tags known: ColorTags? = nil) throws(CompositorError) -> Frame {
    guard let format = picture.pixelFormat else {
      throw .render(
        .filter(
          "a decoded picture has no pixel format",
          FFmpegError(code: -22, message: "no pixel format")))
    }
    let frameTags = known ?? picture.color
    if isIdentity(picture, format: format, tags: frameTags) {
      // Already the canvas: upright, its size, 4:2:0, limited range, the output's matrix.
      let output = Frame()
      do { try output.reference(picture) } catch {
        throw .render(.filter("cannot reference a picture", error))
      }
      output.sampleAspectRatio = Rational(1, 1)!
      return output
    }
    if input == nil || input! != (picture.width, picture.height, format) || frameTags != tags {
      try build(width: picture.width, height: picture.height, format: format, tags: frameTags)
    }
    let output = Frame()
    do throws(FFmpegError) {
      let saved = picture.pts
      picture.pts = 0
      defer { picture.pts = saved }
      try graph!.push(picture, to: source!)
      guard try graph!.pull(from: sink!, into: output) == .frame else {
        throw FFmpegError(code: -11, message: "the transform gave no picture")
      }
    } catch {
      throw .render(.filter("cannot place a picture on the canvas", error))
    }
    if let after { return try after.apply(output) }
    return output
  }

  /// True when the graph would change nothing: no turn, the picture fills the canvas at its
  /// own size with square pixels, in 4:2:0 limited range, in the output's matrix.
  private func isIdentity(_ picture: Frame, format: PixelFormat, tags: ColorTags) -> Bool {
    looks.isEmpty && transform.crop == nil && transform.rotation == 0 && !transform.mirrored
      && transform.x == 0
      && transform.y == 0
      && transform.width == picture.width && transform.height == picture.height
      && transform.width == canvas.width && transform.height == canvas.height
      && format == .yuv420p && tags.range != .full
      && (picture.sampleAspectRatio.map { $0.num == $0.den } ?? true)
      && (ColorPlan.scaleName(tags.matrix) ?? canvas.colors.matrix) == canvas.colors.matrix
  }

  private func build(width: Int, height: Int, format: PixelFormat, tags: ColorTags)
    throws(CompositorError)
  {
    var description = canvas.transformFilter(transform, tags: tags, format: format)
    if looks.contains(where: { $0.name == .kuwahara }) {
      // Kuwahara is not a libavfilter filter: the looks run after the graph (`LookStage`).
      if after == nil { after = try LookStage(looks: looks, canvas: canvas) }
    } else if !looks.isEmpty {
      description += "," + (try canvas.lookChain(looks))
    }
    do {
      let graph = try FilterGraph(threads: canvas.filterThreads)
      source = try graph.addVideoSource(
        name: "in",
        VideoParameters(
          width: width, height: height, pixelFormat: format, timeBase: timeBase,
          sampleAspectRatio: Rational(1, 1)!, frameRate: canvas.frameRate))
      sink = try graph.addVideoSink(name: "out", pixelFormats: [.yuv420p])
      try graph.configure(description)
      self.graph = graph
    } catch {
      throw .render(.filter("cannot build the transform \(description)", error))
    }
    input = (width, height, format)
    self.tags = tags
  }
}

extension Canvas {
  /// The libavfilter chain of `looks` on this canvas's pictures (its matrix, limited range, its
  /// size), from 4:2:0 to 4:2:0.
  func lookChain(_ looks: [Look]) throws(CompositorError) -> String {
    do {
      return try LookFilters.chain(
        looks, matrix: colors.matrix, fullRange: false, width: width, height: height)
    } catch {
      throw .render(.invalidSettings(error.description))
    }
  }
}

/// The composition's looks (the document's top-level `filters`) on each finished picture of the
/// canvas, before it is encoded: one graph, one picture in and one out. Kuwahara (a filter of
/// our own, `Kuwahara`) splits the chain: the graph before it delivers R'G'B' (`gbrp`), the
/// filter runs, the graph after it takes R'G'B' on (the looks around it stay in R'G'B').
final class LookStage {
  private enum Step {
    case graph(FilterGraph, FilterGraph.Source, FilterGraph.Sink)
    case kuwahara(radius: Int)
  }
  private var steps: [Step] = []

  /// A stage for `looks` on `canvas`'s pictures.
  init(looks: [Look], canvas: Canvas) throws(CompositorError) {
    guard looks.contains(where: { $0.name == .kuwahara }) else {
      steps = [try Self.graph(try canvas.lookChain(looks), from: .yuv420p, to: .yuv420p, canvas)]
      return
    }
    // Runs of graph looks between the Kuwahara looks, in R'G'B' from the first conversion to
    // the last.
    var runs: [[Look]] = [[]]
    var radii: [Int] = []
    for look in looks {
      if look.name == .kuwahara {
        radii.append(Int(look.number("radius") ?? 3))
        runs.append([])
      } else {
        runs[runs.count - 1].append(look)
      }
    }
    let matrix = canvas.colors.matrix
    for (index, run) in runs.enumerated() {
      let first = index == 0
      let last = index == runs.count - 1
      var chain: String
      do {
        chain = try LookFilters.rgbChain(
          run, width: canvas.width, height: canvas.height, labels: "look\(index)_")
      } catch {
        throw .render(.invalidSettings(error.description))
      }
      if first { chain = LookFilters.toRGB(matrix: matrix, fullRange: false) + "," + chain }
      if last { chain += "," + LookFilters.fromRGB(matrix: matrix, fullRange: false) }
      steps.append(
        try Self.graph(
          chain, from: first ? .yuv420p : .gbrp, to: last ? .yuv420p : .gbrp, canvas))
      if !last { steps.append(.kuwahara(radius: radii[index])) }
    }
  }

  private static func graph(
    _ description: String, from input: PixelFormat, to output: PixelFormat, _ canvas: Canvas
  ) throws(CompositorError) -> Step {
    do {
      let graph = try FilterGraph(threads: canvas.filterThreads)
      let source = try graph.addVideoSource(
        name: "in",
        VideoParameters(
          width: canvas.width, height: canvas.height, pixelFormat: input,
          timeBase: Rational(1, 1_000_000)!, sampleAspectRatio: Rational(1, 1)!,
          frameRate: canvas.frameRate))
      let sink = try graph.addVideoSink(name: "out", pixelFormats: [output])
      try graph.configure(description)
      return .graph(graph, source, sink)
    } catch {
      throw .render(.filter("cannot build the looks \(description)", error))
    }
  }

  /// `picture` with the looks applied (a new frame; `picture` is left as it was); `time` is its
  /// composition time (an expression's `t`), pushed as its timestamp in microseconds.
  func apply(_ picture: Frame, time: MediaTime = .zero) throws(CompositorError) -> Frame {
    var current = picture
    do throws(FFmpegError) {
      for step in steps {
        switch step {
        case .graph(let graph, let source, let sink):
          let output = Frame()
          let input = current
          let saved = input.pts
          input.pts = time.units(atRate: Rational(1_000_000, 1)!)
          defer { input.pts = saved }
          try graph.push(input, to: source)
          guard try graph.pull(from: sink, into: output) == .frame else {
            throw FFmpegError(code: -11, message: "the looks gave no picture")
          }
          current = output
        case .kuwahara(let radius):
          current = try Kuwahara.apply(current, radius: radius)
        }
      }
    } catch {
      throw .render(.filter("cannot apply the looks", error))
    }
    current.color = picture.color
    return current
  }
}
