import AV
import Composition
import MediaCore

/// GPUImageKuwaharaFilter, a filter of our own (FFmpeg 5.1 has none), on 8-bit R'G'B' (`gbrp`):
/// for each pixel, four quadrants of (radius + 1)² taps — up-left, up-right, down-right,
/// down-left, each including the centre row and column — the mean m and the variance
/// |mean(c²) − m²| of each channel over each; the output is the mean of the quadrant whose
/// variance summed over R, G, B is least (the first of them on a tie, the shader's strict `<`).
///
/// The shader's taps are `uv + (i, j)·src_size` with `src_size` fixed at (1/768, 1/1024) of the
/// texture, read with GL_LINEAR and CLAMP_TO_EDGE: in pixels, tap (i, j) of pixel (X, Y) reads
/// (X + i·W/768, Y + j·H/1024), bilinear, the coordinate clamped to the picture. So the taps are a
/// pixel apart only on a 768×1024 picture; on others they are that fraction of the picture
/// apart (GPUImage's behaviour, kept). Values are v/255; the result is written as the nearest
/// level.
///
/// Cost: per pixel 4(r + 1)² bilinear taps on 3 channels; each output row first interpolates the
/// 2r + 1 source rows it needs (vertically), then each tap horizontally.
enum Kuwahara {
  /// Applies the filter with `radius` to a `gbrp` picture, into a new `gbrp` picture.
  static func apply(_ picture: Frame, radius: Int) throws(FFmpegError) -> Frame {
    let (width, height) = (picture.width, picture.height)
    let output = try Frame.video(width: width, height: height, pixelFormat: .gbrp)
    output.color = picture.color
    output.sampleAspectRatio = picture.sampleAspectRatio
    // The source planes as 0–1 values.
    var planes: [[Double]] = []
    for plane in 0..<3 {
      var values = [Double](repeating: 0, count: width * height)
      for row in 0..<height {
        picture.withRow(row, plane: plane) { bytes in
          for x in 0..<width { values[row * width + x] = Double(bytes[x]) / 255 }
        }
      }
      planes.append(values)
    }
    let offsets = Array(-radius...radius)
    // Per horizontal offset i: each column's two texels and weight (clamped to the picture).
    func taps(_ step: Double, _ count: Int) -> [[(Int, Int, Double)]] {
      offsets.map { i in
        (0..<count).map { p in
          let coordinate = min(max(Double(p) + Double(i) * step, 0), Double(count - 1))
          let low = Int(coordinate.rounded(.down))
          return (low, min(low + 1, count - 1), coordinate - Double(low))
        }
      }
    }
    let columns = taps(Double(width) / 768, width)
    let rows = taps(Double(height) / 1024, height)
    let n = Double((radius + 1) * (radius + 1))
    let span = offsets.count
    // For one output row: the 2r + 1 vertically interpolated rows (by j), per channel.
    var vertical = [Double](repeating: 0, count: 3 * span * width)
    var result = [[UInt8]](repeating: [UInt8](repeating: 0, count: width), count: 3)
    // Quadrants as ranges of offset indices (i, j): up-left, up-right, down-right, down-left.
    let low = 0...radius
    let high = radius...(2 * radius)
    let quadrants = [(low, low), (high, low), (high, high), (low, high)]
    var sample = [Double](repeating: 0, count: 3 * span * span)
    let plane = span * span
    for y in 0..<height {
      for (jIndex, _) in offsets.enumerated() {
        let (r0, r1, fy) = rows[jIndex][y]
        for c in 0..<3 {
          let base = (c * span + jIndex) * width
          planes[c].withUnsafeBufferPointer { p in
            vertical.withUnsafeMutableBufferPointer { v in
              for x in 0..<width {
                v[base + x] = (1 - fy) * p[r0 * width + x] + fy * p[r1 * width + x]
              }
            }
          }
        }
      }
      vertical.withUnsafeBufferPointer { v in
        sample.withUnsafeMutableBufferPointer { t in
          for x in 0..<width {
            // Every tap's value once: t[c·span² + j·span + i].
            for iIndex in 0..<span {
              let (c0, c1, fx) = columns[iIndex][x]
              for c in 0..<3 {
                for jIndex in 0..<span {
                  let base = (c * span + jIndex) * width
                  t[c * plane + jIndex * span + iIndex] =
                    (1 - fx) * v[base + c0] + fx * v[base + c1]
                }
              }
            }
            var best = (0.0, 0.0, 0.0)
            var least = 1e2
            for (iRange, jRange) in quadrants {
              var (m0, m1, m2) = (0.0, 0.0, 0.0)
              var (s0, s1, s2) = (0.0, 0.0, 0.0)
              for jIndex in jRange {
                for iIndex in iRange {
                  let k = jIndex * span + iIndex
                  let (a, b, c) = (t[k], t[plane + k], t[2 * plane + k])
                  m0 += a
                  m1 += b
                  m2 += c
                  s0 += a * a
                  s1 += b * b
                  s2 += c * c
                }
              }
              m0 /= n
              m1 /= n
              m2 /= n
              let sigma = abs(s0 / n - m0 * m0) + abs(s1 / n - m1 * m1) + abs(s2 / n - m2 * m2)
              if sigma < least {
                least = sigma
                best = (m0, m1, m2)
              }
            }
            func level(_ value: Double) -> UInt8 { UInt8((min(max(value, 0), 1) * 255).rounded()) }
            result[0][x] = level(best.0)
            result[1][x] = level(best.1)
            result[2][x] = level(best.2)
          }
        }
      }
      for c in 0..<3 {
        output.withRow(y, plane: c) { target in
          for x in 0..<width { target[x] = result[c][x] }
        }
      }
    }
    return output
  }
}
