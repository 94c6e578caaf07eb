import Composition
import Foundation
import MediaCore
import Testing

@testable import Compositor

/// The `expression` look on real media made by construction (OverlayRenderTests' solid clip,
/// lossless output): each channel equals its expression computed here on the source's decoded
/// colour (the ffmpeg CLI's), at the pixel's place and the frame's time, within ±3 levels; a
/// clip's look, then the composition's on its 8-bit result. An expression libavutil cannot
/// parse is refused by the loader (libavfilter's own parse), naming its path, before anything
/// renders.
@Suite struct ExpressionLookTests {
  @Test func expressionsFollowTheirFormulas() throws {
    let settings = OverlayRenderTests.settings()
    let plan = try plan(
      """
      {"version": 1,
       "clips": [{"source": "overlay-base.mp4", "filters": [
         {"name": "expression", "r": "1-r", "g": "g*x", "b": "max(r,b)*y + 0.1*sin(PI*x)"}]}],
       "filters": [{"name": "expression", "g": "if(lt(x,0.5), g, g/2)", "b": "b*(1-t/2)"}]}
      """)
    let (path, report) = try render(plan, "expression.mp4", settings: settings)
    #expect(report.check?.passed == true)
    let frames = try OverlayRenderTests.frames(path)
    let source = try OverlayRenderTests.baseColor().map { Double($0) / 255 }
    func level(_ v: Double) -> Double { (min(max(v, 0), 1) * 255).rounded() / 255 }
    var worst = 0
    // (Sampled 5 pixels and more from the step the composition's look makes at x = 0.5: 4:2:0
    // chroma and the conversions' bicubic chroma interpolation blur a step over 2-3 pixels.)
    for index in [0, 25, 49] {
      let t = Double(index) / 25
      for (px, py) in [(3, 5), (40, 30), (75, 60), (85, 90), (150, 115)] {
        let (x, y) = ((Double(px) + 0.5) / 160, (Double(py) + 0.5) / 120)
        let (r, g, b) = (source[0], source[1], source[2])
        // The clip's look, held in 8 bits, then the composition's.
        let first = [
          level(1 - r), level(g * x), level(max(r, b) * y + 0.1 * sin(Double.pi * x)),
        ]
        let second = [
          first[0], level(x < 0.5 ? first[1] : first[1] / 2), level(first[2] * (1 - t / 2)),
        ]
        let expected = second.map { Int(($0 * 255).rounded()) }
        let got = OverlayRenderTests.pixel(frames[index], px, py)
        let difference = OverlayRenderTests.distance(got, expected)
        worst = max(worst, difference)
        #expect(difference <= 3, "frame \(index) (\(px),\(py)): \(got), formula \(expected)")
      }
    }
    print("expression look: largest difference \(worst) levels")
  }

  @Test(arguments: [
    ("(r+", "filters[0].g"), ("foo(r)", "filters[0].g"), ("r,g", "filters[0].g"),
  ])
  func unparsableExpressionsAreNamed(_ expression: String, _ location: String) throws {
    _ = OverlayRenderTests.settings()
    let error = #expect(throws: CompositionError.self) {
      try plan(
        """
        {"version": 1, "clips": [{"source": "overlay-base.mp4"}],
         "filters": [{"name": "expression", "g": "\(expression)"}]}
        """)
    }
    #expect(error?.code == "invalid_composition")
    #expect(error?.location == location, "\(String(describing: error))")
  }
}
