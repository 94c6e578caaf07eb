import AV
import Composition
import Foundation
import MediaCore
import Testing

@testable import Compositor

/// Kuwahara, our own filter, against GPUImageKuwaharaFilter's shader written out directly here
/// (its four loops over (radius + 1)² taps each, `uv + vec2(i, j)·src_size` with src_size
/// (1/768, 1/1024) read with GL_LINEAR and CLAMP_TO_EDGE, mean and |mean(c²) − m²| per channel,
/// the first quadrant of least summed variance by its strict `<` from 1e2): on pictures made by
/// construction (a diagonal gradient, an off-centre disc, deterministic noise), every output
/// level within 1 of the shader's. Then through a composition (a clip's look and the
/// composition's, with another look after it): the self-check passes and each side of a
/// two-colour clip keeps its colour.
@Suite struct KuwaharaTests {
  /// A constructed R'G'B' picture, `[channel][y][x]` levels.
  static func picture(width: Int, height: Int) -> [[[UInt8]]] {
    var seed: UInt32 = 12345
    func noise() -> Int {
      seed = seed &* 1_103_515_245 &+ 12345
      return Int((seed >> 16) % 41) - 20
    }
    return (0..<3).map { c in
      (0..<height).map { y in
        (0..<width).map { x in
          let dx = Double(x) - Double(width) * 0.37
          let dy = Double(y) - Double(height) * 0.58
          let disc = dx * dx + dy * dy < Double(height * height) / 9 ? 90 : 0
          let ramp = (x * 3 + y * 2 + c * 40) % 160
          return UInt8(min(255, max(0, 30 + ramp + disc + noise())))
        }
      }
    }
  }

  /// GPUImageKuwaharaFilter's fragment shader, pixel by pixel.
  static func shader(_ p: [[[UInt8]]], radius: Int) -> [[[UInt8]]] {
    let height = p[0].count
    let width = p[0][0].count
    func texture(_ c: Int, _ u: Double, _ v: Double) -> Double {
      // GL_LINEAR, CLAMP_TO_EDGE: the texel coordinate clamped to [0, size − 1].
      let tx = min(max(u * Double(width) - 0.5, 0), Double(width - 1))
      let ty = min(max(v * Double(height) - 0.5, 0), Double(height - 1))
      let (x0, y0) = (Int(tx.rounded(.down)), Int(ty.rounded(.down)))
      let (x1, y1) = (min(x0 + 1, width - 1), min(y0 + 1, height - 1))
      let (a, b) = (tx - Double(x0), ty - Double(y0))
      func t(_ x: Int, _ y: Int) -> Double { Double(p[c][y][x]) / 255 }
      return (1 - a) * (1 - b) * t(x0, y0) + a * (1 - b) * t(x1, y0) + (1 - a) * b * t(x0, y1)
        + a * b * t(x1, y1)
    }
    let (sx, sy) = (1.0 / 768, 1.0 / 1024)
    let n = Double((radius + 1) * (radius + 1))
    var out = p
    for y in 0..<height {
      for x in 0..<width {
        let (u, v) = ((Double(x) + 0.5) / Double(width), (Double(y) + 0.5) / Double(height))
        let ranges = [
          (-radius...0, -radius...0), (0...radius, -radius...0), (0...radius, 0...radius),
          (-radius...0, 0...radius),
        ]
        var minSigma2 = 1e2
        var color = [0.0, 0.0, 0.0]
        for (iRange, jRange) in ranges {
          var m = [0.0, 0.0, 0.0]
          var s = [0.0, 0.0, 0.0]
          for j in jRange {
            for i in iRange {
              for c in 0..<3 {
                let value = texture(c, u + Double(i) * sx, v + Double(j) * sy)
                m[c] += value
                s[c] += value * value
              }
            }
          }
          var sigma2 = 0.0
          for c in 0..<3 {
            m[c] /= n
            sigma2 += abs(s[c] / n - m[c] * m[c])
          }
          if sigma2 < minSigma2 {
            minSigma2 = sigma2
            color = m
          }
        }
        for c in 0..<3 { out[c][y][x] = UInt8((min(max(color[c], 0), 1) * 255).rounded()) }
      }
    }
    return out
  }

  /// The filter on `p` (gbrp's planes are G, B, R: the channels are put there and read back).
  static func filter(_ p: [[[UInt8]]], radius: Int) throws -> [[[UInt8]]] {
    let (height, width) = (p[0].count, p[0][0].count)
    let frame = try Frame.video(width: width, height: height, pixelFormat: .gbrp)
    let planeOf = [2, 0, 1]  // R, G, B → gbrp planes
    for c in 0..<3 {
      for y in 0..<height {
        frame.withRow(y, plane: planeOf[c]) { row in
          for x in 0..<width { row[x] = p[c][y][x] }
        }
      }
    }
    let output = try Kuwahara.apply(frame, radius: radius)
    return (0..<3).map { c in
      (0..<height).map { y in
        output.withRow(y, plane: planeOf[c]) { row in (0..<width).map { row[$0] } }
      }
    }
  }

  @Test(arguments: [(96, 64, 3), (768, 24, 2), (200, 150, 10)])
  func matchesTheShader(_ width: Int, _ height: Int, _ radius: Int) throws {
    let input = Self.picture(width: width, height: height)
    let expected = Self.shader(input, radius: radius)
    let got = try Self.filter(input, radius: radius)
    var worst = 0
    var changed = 0
    for c in 0..<3 {
      for y in 0..<height {
        for x in 0..<width {
          worst = max(worst, abs(Int(got[c][y][x]) - Int(expected[c][y][x])))
          if got[c][y][x] != input[c][y][x] { changed += 1 }
        }
      }
    }
    #expect(worst <= 1, "\(width)x\(height) r \(radius): \(worst) levels from the shader")
    // Not the identity: the filter did something on this picture.
    #expect(changed > width * height / 4, "\(changed) samples changed")
    print(
      "kuwahara \(width)x\(height) r \(radius): largest difference \(worst), \(changed) changed")
  }

  @Test func throughAComposition() throws {
    let settings = OverlayRenderTests.settings()
    _ = Fixtures.make("kuwahara-split.mp4") {
      [
        "-f", "lavfi", "-i",
        "color=c=0xC06030:s=80x60:r=25[a];color=c=0x3070B0:s=80x60:r=25[b];[a][b]hstack",
        "-t", "0.4", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt",
        "yuv420p", $0,
      ]
    }
    let plan = try plan(
      """
      {"version": 1, "clips": [{"source": "kuwahara-split.mp4",
        "filters": [{"name": "kuwahara", "radius": 4}]}],
       "filters": [{"name": "invert"}, {"name": "kuwahara"}, {"name": "brightness", "brightness": 0.1}]}
      """)
    let (path, report) = try render(plan, "kuwahara.mp4", settings: settings)
    #expect(report.check?.passed == true)
    let raw = Array(
      try ffmpeg([
        "-i", path, "-frames:v", "1", "-vf",
        "scale=in_color_matrix=bt601:in_range=tv:flags=accurate_rnd+full_chroma_int,format=rgb24",
        "-f", "rawvideo", "-",
      ]).stdout)
    func pixel(_ x: Int, _ y: Int) -> [Int] { (0..<3).map { Int(raw[(y * 160 + x) * 3 + $0]) } }
    // Each side: inverted, then brightened by 0.1 (26 levels); flat, so Kuwahara keeps it.
    for (x, colour) in [(20, [0xC0, 0x60, 0x30]), (140, [0x30, 0x70, 0xB0])] {
      let expected = colour.map { min(255, 255 - $0 + 26) }
      let got = pixel(x, 30)
      #expect(zip(got, expected).allSatisfy { abs($0 - $1) <= 3 }, "x \(x): \(got), \(expected)")
    }
  }
}
