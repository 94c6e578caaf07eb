import AV
import MediaCore

/// The representative frame of a video's opening (`--best`), never a black, blank or blurred
/// one when a better one exists. The rule:
///
/// 1. The window is the first `window` seconds (default: 10 % of the duration; 10 s when the
///    duration is unknown).
/// 2. 24 candidates: the frames presented at the middles of 24 equal parts of the window.
/// 3. Each candidate is measured on its luma (BT.601 weights) at a size fitting 256×256:
///    a candidate whose luma standard deviation is under 10 levels (variance under 100) is
///    blank (black, white, a flat colour, a fade's darkest frames) and is skipped.
/// 4. Among the others, the sharpest wins: the largest variance of the 4-neighbour Laplacian
///    of the luma (the usual focus measure: a blurred frame has weak second derivatives); the
///    earlier candidate wins a tie.
/// 5. When every candidate of the default window is blank (a clip opening on black longer than
///    its first 10 %), 24 more are taken over the whole video, and the rule applies to all.
/// 6. When every candidate is blank, the one with the largest luma variance is taken.
public enum BestFrame {
  /// Candidates measured in the window.
  public static let candidates = 24
  /// The luma variance under which a frame is blank.
  public static let blankVariance = 100.0
  /// The box candidates are measured at.
  public static let measureSize = FitSize(width: 256, height: 256)

  /// A candidate's measures.
  public struct Measure: Sendable, Equatable {
    /// The frame's time.
    public var time: Double
    /// The luma's variance.
    public var variance: Double
    /// The variance of the luma's Laplacian.
    public var sharpness: Double

    /// A measure from its parts.
    public init(time: Double, variance: Double, sharpness: Double) {
      self.time = time
      self.variance = variance
      self.sharpness = sharpness
    }
  }

  /// The luma variance and the Laplacian variance of `picture`.
  public static func measure(_ picture: Picture) -> (variance: Double, sharpness: Double) {
    let luma = picture.luma
    let count = Double(luma.count)
    let mean = luma.reduce(0, +) / count
    let variance = luma.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / count
    let (w, h) = (picture.width, picture.height)
    guard w >= 3, h >= 3 else { return (variance, 0) }
    var sum = 0.0
    var squares = 0.0
    for y in 1..<(h - 1) {
      for x in 1..<(w - 1) {
        let at = y * w + x
        let value = luma[at - 1] + luma[at + 1] + luma[at - w] + luma[at + w] - 4 * luma[at]
        sum += value
        squares += value * value
      }
    }
    let n = Double((w - 2) * (h - 2))
    return (variance, squares / n - (sum / n) * (sum / n))
  }

  /// The index of the winner among `measures` (the rule above).
  public static func choose(_ measures: [Measure]) -> Int {
    let lit = measures.indices.filter { measures[$0].variance >= blankVariance }
    if let sharpest = lit.max(by: { measures[$0].sharpness < measures[$1].sharpness }) {
      // max(by:) returns the last of equals; the rule takes the earliest.
      return lit.first { measures[$0].sharpness == measures[sharpest].sharpness } ?? sharpest
    }
    return measures.indices.max { measures[$0].variance < measures[$1].variance } ?? 0
  }

  /// The window's representative frame, fitted inside `maxSize`.
  ///
  /// - Throws: what `FrameGrabber.grab` throws.
  public static func choose(
    _ grabber: FrameGrabber, window: Double?, maxSize: FitSize?,
    progress: (@Sendable (Double, Double) -> Void)? = nil
  ) throws(FrameError) -> Grab {
    if grabber.isStill { return try grabber.grab(at: 0, maxSize: maxSize) }
    // Unknown (a WebM recorded live): measured from the packets, else 10 % of it is 10 s.
    let duration = try grabber.measuredDuration() ?? 100
    let span = min(window ?? duration / 10, duration)
    var measures: [Measure] = []
    var seen = Set<Double>()
    // The default window, then (when all its candidates are blank: a 2 s clip's first 0.2 s
    // of black gave a black poster) the whole video, when its length is known.
    var spans = [span]
    if window == nil, let whole = grabber.duration, whole > span { spans.append(whole) }
    for (pass, span) in spans.enumerated() {
      if pass > 0 && measures.contains(where: { $0.variance >= blankVariance }) { break }
      for index in 0..<candidates {
        let time = (Double(index) + 0.5) * span / Double(candidates)
        progress?(time, span)
        let frame: Frame
        let actual: Double
        do {
          (frame, actual) = try grabber.frame(at: time)
        } catch .noFrame, .pastEnd, .pastLastFrame {
          continue  // a candidate that does not decode is not a candidate
        }
        guard seen.insert(actual).inserted else { continue }
        let (variance, sharpness) = measure(
          try grabber.picture(of: frame, maxSize: measureSize))
        measures.append(Measure(time: actual, variance: variance, sharpness: sharpness))
      }
    }
    guard !measures.isEmpty else {
      throw .noFrame("no frame decoded in the first \(fixed(span, places: 3)) s")
    }
    let winner = measures[choose(measures)]
    var grab = try grabber.grab(at: winner.time, maxSize: maxSize)
    grab.requestedTime = nil
    return grab
  }
}
