import MediaCore

/// The render rules `mediamerge` applies to whole clips and to compositions alike: where an
/// upright picture lands in the render, and the default size and rate. Pure arithmetic, shared
/// by the merge planner and the composition resolver so the two cannot drift apart.
public enum RenderRules {
  /// Where a `width`×`height` upright picture lands in a `renderWidth`×`renderHeight` render:
  /// scaled to fit inside (`contain`, the background around it) or to cover (`cover`, cropped),
  /// centred, with even sizes and offsets (4:2:0 chroma); `stretch` fills the render exactly.
  /// Offsets are negative when the picture is cropped.
  public static func place(
    width: Int, height: Int, intoWidth renderWidth: Int, height renderHeight: Int, fit: Fit
  ) -> (x: Int, y: Int, width: Int, height: Int) {
    if fit == .stretch { return (0, 0, renderWidth, renderHeight) }
    let (w, h) = (Double(width), Double(height))
    let (rw, rh) = (Double(renderWidth), Double(renderHeight))
    let fits = fit == .contain
    let scale = fits ? min(rw / w, rh / h) : max(rw / w, rh / h)
    func even(_ value: Double) -> Int { max(2, Int((value / 2).rounded()) * 2) }
    var scaledWidth = even(w * scale)
    var scaledHeight = even(h * scale)
    if fits {
      scaledWidth = min(scaledWidth, renderWidth)
      scaledHeight = min(scaledHeight, renderHeight)
    } else {
      scaledWidth = max(scaledWidth, renderWidth)
      scaledHeight = max(scaledHeight, renderHeight)
    }
    let x = (renderWidth - scaledWidth) / 2 / 2 * 2
    let y = (renderHeight - scaledHeight) / 2 / 2 * 2
    return (x, y, scaledWidth, scaledHeight)
  }

  /// The default render size (AVFoundation's editing guide): the largest display width by the
  /// largest display height among upright pictures, with which picture gave each (the first
  /// of equals). Nil when `sizes` is empty.
  public static func largestSize(_ sizes: [(width: Int, height: Int)])
    -> (width: Int, height: Int, widest: Int, tallest: Int)?
  {
    guard !sizes.isEmpty else { return nil }
    var widest = 0
    var tallest = 0
    for (index, size) in sizes.enumerated() {
      if size.width > sizes[widest].width { widest = index }
      if size.height > sizes[tallest].height { tallest = index }
    }
    return (sizes[widest].width, sizes[tallest].height, widest, tallest)
  }

  /// A size made even (4:2:0 chroma), at least 2.
  public static func even(_ value: Int) -> Int { max(2, value / 2 * 2) }

  /// The default rate: the highest known rate (AVFoundation: 1 / the greatest nominal frame
  /// rate); nil when none is known.
  public static func highestRate(_ rates: [Rational?]) -> Rational? {
    rates.compactMap { $0 }.filter { $0.num > 0 }.max { $0.value < $1.value }
  }
}
