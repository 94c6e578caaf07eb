import AV
import Composition
import MediaCore

#if canImport(Glibc)
  import Glibc
#endif

/// The composition's overlays (`CompositionPlan.overlays`) drawn on each finished picture of the
/// canvas, after the composition's looks, in the document's order; an overlay shows on the
/// frames whose middle lies in its range (as a segment does).
///
/// Each overlay becomes, once, a patch: a `gbrap` picture of the part of the canvas it covers,
/// widened to even pixels (4:2:0 chroma) and cut to the canvas, transparent where the overlay
/// is not. An image is decoded as stills are (the single-image demuxers), turned upright and
/// scaled to its box; a title is drawn once by libavfilter `drawtext` (freetype, fontconfig) on
/// a transparent picture, its colour then set on every pixel and only drawtext's coverage kept
/// as alpha (so anti-aliased edges are the colour, not darkened). Per frame, the patch's alpha
/// is multiplied by the opacity (and the fades' linear ramp at the frame's middle); the
/// canvas's part under it is converted to R'G'B' with the canvas's matrix (limited range), the
/// patch laid over it (`overlay`: c·a + b·(1 − a), or first combined with the picture by the
/// blend mode's formula, libavfilter `blend`), converted back and put in place. The rest of the
/// picture is copied untouched.
final class OverlayStage {
  private let canvas: Canvas
  private let items: [Item]
  private let doubleRate: Rational

  /// One overlay's patch and its graph (built at its first frame, freed after its last).
  final class Item {
    let planned: PlannedOverlay
    /// The even-aligned part of the canvas the patch covers.
    let region: (x: Int, y: Int, width: Int, height: Int)
    /// The overlay on that part, `gbrap`, transparent where it does not reach.
    let patch: Frame
    var graph: FilterGraph?
    var main: FilterGraph.Source?
    var layer: FilterGraph.Source?
    var sink: FilterGraph.Sink?
    /// The last timestamp pushed (the graph's overlay filters need them increasing).
    var lastPTS: Int64?

    init(planned: PlannedOverlay, region: (Int, Int, Int, Int), patch: Frame) {
      self.planned = planned
      self.region = region
      self.patch = patch
    }
  }

  /// The stage for `overlays` on `canvas`'s pictures: every patch made now (an image that does
  /// not decode or a font that does not load fails here, before the first frame).
  init(overlays: [PlannedOverlay], canvas: Canvas) throws(CompositorError) {
    self.canvas = canvas
    doubleRate = Rational(canvas.frameRate.num * 2, canvas.frameRate.den)!
    var items: [Item] = []
    for overlay in overlays {
      if let item = try Self.prepare(overlay, canvas: canvas) { items.append(item) }
    }
    self.items = items
  }

  /// `picture` (output frame `index`) with the overlays that show on it drawn: a new frame, or
  /// `picture` itself when none shows.
  func apply(_ picture: Frame, frame index: Int64) throws(CompositorError) -> Frame {
    let middle = MediaTime(units: 2 * index + 1, rate: doubleRate)
    var current = picture
    for item in items {
      if item.planned.range.end <= middle {
        item.graph = nil  // its last frame is past: free the graph
        item.lastPTS = nil
        continue
      }
      guard item.planned.range.contains(middle) else { continue }
      let opacity = item.planned.opacity(at: middle.seconds)
      guard opacity > 0 else { continue }
      current = try draw(item, on: current, opacity: opacity, pts: index)
    }
    if current !== picture { current.color = picture.color }
    return current
  }

  // MARK: - Drawing

  private func draw(_ item: Item, on picture: Frame, opacity: Double, pts: Int64)
    throws(CompositorError) -> Frame
  {
    // Timestamps must increase through the graph's frame syncs: a picture asked for again or
    // out of order (the self-check) gets a fresh graph.
    if let last = item.lastPTS, pts <= last { item.graph = nil }
    if item.graph == nil { try build(item) }
    item.lastPTS = pts
    let layer: Frame
    do {
      layer = try Self.scaledAlpha(item.patch, by: opacity)
    } catch {
      throw .render(.filter("cannot make an overlay's picture", error))
    }
    let output = Frame()
    do throws(FFmpegError) {
      let saved = picture.pts
      defer { picture.pts = saved }
      picture.pts = pts
      layer.pts = pts
      try item.graph!.push(picture, to: item.main!)
      try item.graph!.push(layer, to: item.layer!)
      guard try item.graph!.pull(from: item.sink!, into: output) == .frame else {
        throw FFmpegError(code: -11, message: "the overlay gave no picture")
      }
    } catch {
      throw .render(.filter("cannot draw overlays[\(item.planned.index)]", error))
    }
    return output
  }

  /// The graph of one overlay: the canvas's part under the patch to R'G'B', the patch over it
  /// (through the blend mode), back to 4:2:0, put in place on the canvas picture.
  private func build(_ item: Item) throws(CompositorError) {
    let description = Self.description(
      region: item.region, blend: item.planned.blend, matrix: canvas.colors.matrix)
    let timeBase = Rational(canvas.frameRate.den, canvas.frameRate.num)!
    do {
      let graph = try FilterGraph(threads: canvas.filterThreads)
      item.main = try graph.addVideoSource(name: "in", canvas.parameters(timeBase: timeBase))
      item.layer = try graph.addVideoSource(
        name: "layer",
        VideoParameters(
          width: item.region.width, height: item.region.height,
          pixelFormat: PixelFormat(name: "gbrap")!, timeBase: timeBase,
          sampleAspectRatio: Rational(1, 1)!, frameRate: canvas.frameRate))
      item.sink = try graph.addVideoSink(name: "out", pixelFormats: [.yuv420p])
      try graph.configure(description)
      item.graph = graph
    } catch {
      throw .render(.filter("cannot build overlays[\(item.planned.index)]: \(description)", error))
    }
  }

  /// libavfilter's name of a blend mode (`blend`'s `all_mode`), the picture as its first
  /// (top, A) input and the overlay as its second (B): nil for `normal` (no blend).
  static func blendMode(_ blend: OverlayBlend) -> String? {
    switch blend {
    case .normal: nil
    case .multiply: "multiply"
    case .screen: "screen"
    case .overlay: "overlay"
    case .darken: "darken"
    case .lighten: "lighten"
    case .add: "addition"
    case .subtract: "subtract"
    case .difference: "difference"
    }
  }

  /// The per-frame graph's description: sources `in` (the canvas picture, 4:2:0) and `layer`
  /// (the patch, `gbrap`), sink `out`.
  static func description(
    region: (x: Int, y: Int, width: Int, height: Int), blend: OverlayBlend, matrix: String
  ) -> String {
    let flags = "flags=bicubic+accurate_rnd+full_chroma_int"
    let toRGB =
      "crop=\(region.width):\(region.height):\(region.x):\(region.y),"
      + "scale=in_color_matrix=\(matrix):in_range=limited:\(flags),format=gbrp"
    let toYUV = "scale=out_color_matrix=\(matrix):out_range=limited:\(flags),format=yuv420p"
    var over: String
    if let mode = blendMode(blend) {
      // The mode's formula per R, G, B (A = the picture, B = the overlay); the alpha plane
      // (c3) taken from the overlay (`normal` at opacity 0 gives B), then laid over.
      over =
        "[r]split[r1][r2];[r2]format=gbrap[r3];"
        + "[r3][layer]blend=all_mode=\(mode):c3_mode=normal:c3_opacity=0[b];"
        + "[r1][b]overlay=0:0:format=gbrp"
    } else {
      over = "[r][layer]overlay=0:0:format=gbrp"
    }
    return "[in]split[m][c];[c]\(toRGB)[r];\(over),\(toYUV)[q];"
      + "[m][q]overlay=\(region.x):\(region.y):format=yuv420[out]"
  }

  /// A copy of `patch` with its alpha multiplied by `factor` (rounded); `patch` itself at 1.
  static func scaledAlpha(_ patch: Frame, by factor: Double) throws(FFmpegError) -> Frame {
    guard factor < 1 else {
      let copy = Frame()
      try copy.reference(patch)
      return copy
    }
    let (width, height) = (patch.width, patch.height)
    let frame = try Frame.video(
      width: width, height: height, pixelFormat: PixelFormat(name: "gbrap")!)
    let table = (0..<256).map { UInt8(min(255, (Double($0) * factor).rounded())) }
    for plane in 0..<4 {
      for row in 0..<height {
        patch.withRow(row, plane: plane) { source in
          frame.withRow(row, plane: plane) { target in
            if plane == 3 {
              for x in 0..<width { target[x] = table[Int(source[x])] }
            } else {
              target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<width]))
            }
          }
        }
      }
    }
    return frame
  }

  // MARK: - Patches

  /// The patch of one overlay; nil when nothing of it lies on the canvas.
  static func prepare(_ overlay: PlannedOverlay, canvas: Canvas) throws(CompositorError) -> Item? {
    switch overlay.kind {
    case .image: try prepareImage(overlay, canvas: canvas)
    case .text: try prepareText(overlay, canvas: canvas)
    }
  }

  /// The even-aligned part of the canvas that holds the visible part of a box; nil when the
  /// box lies off the canvas.
  static func region(
    box: (x: Int, y: Int, width: Int, height: Int), canvas: Canvas
  ) -> (visible: (x0: Int, y0: Int, x1: Int, y1: Int), region: (Int, Int, Int, Int))? {
    let x0 = max(box.x, 0)
    let y0 = max(box.y, 0)
    let x1 = min(box.x + box.width, canvas.width)
    let y1 = min(box.y + box.height, canvas.height)
    guard x0 < x1, y0 < y1 else { return nil }
    let rx0 = x0 & ~1
    let ry0 = y0 & ~1
    let rx1 = min(canvas.width, (x1 + 1) & ~1)
    let ry1 = min(canvas.height, (y1 + 1) & ~1)
    return ((x0, y0, x1, y1), (rx0, ry0, rx1 - rx0, ry1 - ry0))
  }

  private static func prepareImage(_ overlay: PlannedOverlay, canvas: Canvas)
    throws(CompositorError) -> Item?
  {
    guard let path = overlay.path, let width = overlay.width, let height = overlay.height,
      let x = overlay.x, let y = overlay.y
    else { return nil }
    guard let placed = region(box: (x, y, width, height), canvas: canvas) else { return nil }
    let (visible, area) = placed
    let source = try decodeImage(path)
    let picture = source.frame
    guard let format = picture.pixelFormat else {
      throw .unsupportedImage(path: path, detail: "its picture has no pixel format")
    }
    // Upright, scaled to the box (R'G'B' out: a Y'CbCr image converted with its own matrix and
    // range, BT.601 when it states none, as stills are), the visible part cut out, padded
    // transparent to the region.
    var filters = Canvas.uprightFilters(rotation: overlay.rotation, mirrored: overlay.mirrored)
    let matrix = ColorPlan.scaleName(source.tags.matrix) ?? "bt601"
    let full = source.tags.range == .full || format.name.hasPrefix("yuvj")
    filters.append(
      "scale=\(width):\(height):in_color_matrix=\(matrix):in_range=\(full ? "full" : "limited")"
        + ":flags=bicubic+accurate_rnd+full_chroma_int")
    filters.append("format=gbrap")
    filters.append(
      "crop=\(visible.x1 - visible.x0):\(visible.y1 - visible.y0):\(visible.x0 - x):\(visible.y0 - y)"
    )
    filters.append(
      "pad=\(area.2):\(area.3):\(visible.x0 - area.0):\(visible.y0 - area.1):color=black@0")
    let description = filters.joined(separator: ",")
    let patch = Frame()
    do throws(FFmpegError) {
      let graph = try FilterGraph(threads: 1)
      let input = try graph.addVideoSource(
        name: "in",
        VideoParameters(
          width: picture.width, height: picture.height, pixelFormat: format,
          timeBase: Rational(1, 1)!, sampleAspectRatio: Rational(1, 1)!, frameRate: nil))
      let sink = try graph.addVideoSink(name: "out", pixelFormats: [PixelFormat(name: "gbrap")!])
      try graph.configure(description)
      let saved = picture.pts
      picture.pts = 0
      defer { picture.pts = saved }
      try graph.push(picture, to: input)
      guard try graph.pull(from: sink, into: patch) == .frame else {
        throw FFmpegError(code: -11, message: "no picture")
      }
    } catch {
      throw .render(.filter("cannot prepare overlays[\(overlay.index)] (\(path))", error))
    }
    return Item(planned: overlay, region: area, patch: patch)
  }

  /// A value as libavfilter reads it back through both of its parsers (the graph's, then the
  /// filter's options): quoted for the options, every quote and backslash escaped for the graph.
  static func escaped(_ value: String) -> String {
    let quoted = "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
    var graph = ""
    for character in quoted {
      if "\\'[],;".contains(character) { graph.append("\\") }
      graph.append(character)
    }
    return graph
  }

  /// The `drawtext` filter of a title on the whole canvas.
  static func drawtext(_ overlay: PlannedOverlay) -> String {
    let margin = overlay.margin
    let (x, y): (String, String)
    if let left = overlay.x, let top = overlay.y {
      (x, y) = ("\(left)", "\(top)")
    } else {
      switch overlay.position ?? .topLeft {
      case .topLeft: (x, y) = ("\(margin)", "\(margin)")
      case .topRight: (x, y) = ("w-text_w-\(margin)", "\(margin)")
      case .bottomLeft: (x, y) = ("\(margin)", "h-text_h-\(margin)")
      case .bottomRight: (x, y) = ("w-text_w-\(margin)", "h-text_h-\(margin)")
      case .center: (x, y) = ("(w-text_w)/2", "(h-text_h)/2")
      }
    }
    let font = overlay.font ?? "Sans"
    return "drawtext=" + (overlay.fontFile ? "fontfile=" : "font=") + escaped(font)
      + ":text=" + escaped(overlay.text ?? "") + ":expansion=none"
      + ":fontsize=\(overlay.fontSize ?? 48):fontcolor=white:x='\(x)':y='\(y)'"
  }

  private static func prepareText(_ overlay: PlannedOverlay, canvas: Canvas)
    throws(CompositorError) -> Item?
  {
    // The title's coverage: drawtext on a transparent canvas-sized picture.
    let description =
      "color=c=black@0:s=\(canvas.width)x\(canvas.height):r=1:d=1,format=gbrap,"
      + drawtext(overlay)
    let drawn = Frame()
    do throws(FFmpegError) {
      let graph = try FilterGraph(threads: 1)
      let sink = try graph.addVideoSink(name: "out", pixelFormats: [PixelFormat(name: "gbrap")!])
      try graph.configure(description + "[out]")
      guard try graph.pull(from: sink, into: drawn) == .frame else {
        throw FFmpegError(code: -11, message: "no picture")
      }
    } catch {
      throw .render(
        .filter(
          "cannot draw overlays[\(overlay.index)]'s text with the font \(overlay.font ?? "Sans")",
          error))
    }
    // Its bounding box: where drawtext left any coverage.
    var box: (x0: Int, y0: Int, x1: Int, y1: Int)?
    for row in 0..<canvas.height {
      drawn.withRow(row, plane: 3) { alpha in
        for x in 0..<canvas.width where alpha[x] != 0 {
          box = (
            min(box?.x0 ?? x, x), min(box?.y0 ?? row, row), max(box?.x1 ?? x + 1, x + 1),
            max(box?.y1 ?? row + 1, row + 1)
          )
        }
      }
    }
    guard let box,
      let placed = region(
        box: (box.x0, box.y0, box.x1 - box.x0, box.y1 - box.y0), canvas: canvas)
    else { return nil }
    let area = placed.region
    let color = overlay.color ?? Color(red: 255, green: 255, blue: 255)
    let patch: Frame
    do {
      patch = try Frame.video(
        width: area.2, height: area.3, pixelFormat: PixelFormat(name: "gbrap")!)
    } catch {
      throw .render(.filter("cannot make overlays[\(overlay.index)]'s picture", error))
    }
    // gbrap's planes: G, B, R, A.
    let values = [color.green, color.blue, color.red]
    for row in 0..<area.3 {
      for plane in 0..<3 {
        patch.withRow(row, plane: plane) { target in
          for x in 0..<area.2 { target[x] = values[plane] }
        }
      }
      drawn.withRow(area.1 + row, plane: 3) { source in
        patch.withRow(row, plane: 3) { target in
          for x in 0..<area.2 { target[x] = source[area.0 + x] }
        }
      }
    }
    return Item(planned: overlay, region: area, patch: patch)
  }
}

extension OverlayStage {
  /// Checks that every title's font file can be read, so a missing one is named at resolution
  /// (before `--plan` prints and before anything renders).
  ///
  /// - Throws: `CompositionError.source` with the code `not_found` (or `permission_denied`)
  ///   naming `overlays[i].font`.
  static func checkFonts(_ plan: CompositionPlan) throws(CompositionError) {
    for overlay in plan.overlays ?? [] where overlay.fontFile {
      guard let font = overlay.font else { continue }
      if access(font, R_OK) != 0 {
        let missing = errno == ENOENT || errno == ENOTDIR
        throw .source(
          location: "overlays[\(overlay.index)].font", source: font,
          code: missing ? "not_found" : "permission_denied",
          message: missing ? "no such font file" : "the font file cannot be read", cause: nil)
      }
    }
  }
}
