import MediaCore

/// A decoded picture as 8-bit R'G'B' (packed, 3 bytes a pixel, rows without padding), upright
/// and with square pixels once `FrameGrabber` made it: what the writers encode, the contact
/// sheet is drawn on and `--best` measures.
public struct Picture: Sendable, Equatable {
  /// Width in pixels.
  public var width: Int
  /// Height in pixels.
  public var height: Int
  /// `width * height * 3` bytes, row by row, R G B.
  public var pixels: [UInt8]

  /// A picture of one colour.
  public init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8) = (0, 0, 0)) {
    self.width = width
    self.height = height
    var row = [UInt8]()
    row.reserveCapacity(width * 3)
    for _ in 0..<width { row += [fill.0, fill.1, fill.2] }
    pixels = Array([[UInt8]](repeating: row, count: height).joined())
  }

  /// A picture from its bytes (`width * height * 3`, R G B).
  public init(width: Int, height: Int, pixels: [UInt8]) {
    precondition(pixels.count == width * height * 3, "a picture has 3 bytes a pixel")
    self.width = width
    self.height = height
    self.pixels = pixels
  }

  /// The R, G, B values at column `x`, row `y`.
  public func pixel(_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
    let at = (y * width + x) * 3
    return (pixels[at], pixels[at + 1], pixels[at + 2])
  }

  /// The picture turned for display: rotated clockwise by `rotation` degrees (0, 90, 180, 270),
  /// then flipped left to right when `mirrored`. This is what a display matrix whose
  /// `Orientation` says (rotation, mirrored) shows: `Orientation` reads a mirrored transform as
  /// a horizontal flip applied after the rotation.
  public func oriented(rotation: Int, mirrored: Bool) -> Picture {
    let turns = ((rotation / 90) % 4 + 4) % 4
    if turns == 0 && !mirrored { return self }
    let (w, h) = turns % 2 == 0 ? (width, height) : (height, width)
    var out = [UInt8](repeating: 0, count: pixels.count)
    pixels.withUnsafeBufferPointer { source in
      out.withUnsafeMutableBufferPointer { target in
        for y in 0..<h {
          for x in 0..<w {
            // (x, y) in the output; undo the flip, then the clockwise rotation.
            let ux = mirrored ? w - 1 - x : x
            let (sx, sy): (Int, Int)
            switch turns {
            case 1: (sx, sy) = (y, height - 1 - ux)
            case 2: (sx, sy) = (width - 1 - ux, height - 1 - y)
            case 3: (sx, sy) = (width - 1 - y, ux)
            default: (sx, sy) = (ux, y)
            }
            let from = (sy * width + sx) * 3
            let to = (y * w + x) * 3
            target[to] = source[from]
            target[to + 1] = source[from + 1]
            target[to + 2] = source[from + 2]
          }
        }
      }
    }
    return Picture(width: w, height: h, pixels: out)
  }

  /// Copies `other` into this picture with its top-left corner at (`x`, `y`), clipped to this
  /// picture.
  public mutating func draw(_ other: Picture, atX x: Int, y: Int) {
    let x0 = max(0, x)
    let x1 = min(width, x + other.width)
    guard x0 < x1 else { return }
    for row in max(0, y)..<min(height, y + other.height) {
      let from = ((row - y) * other.width + (x0 - x)) * 3
      let to = (row * width + x0) * 3
      let count = (x1 - x0) * 3
      pixels.replaceSubrange(to..<(to + count), with: other.pixels[from..<(from + count)])
    }
  }

  /// Fills the rectangle at (`x`, `y`) of `w`×`h` pixels, clipped to the picture.
  public mutating func fill(x: Int, y: Int, w: Int, h: Int, color: (UInt8, UInt8, UInt8)) {
    for row in max(0, y)..<max(max(0, y), min(height, y + h)) {
      for column in max(0, x)..<max(max(0, x), min(width, x + w)) {
        let at = (row * width + column) * 3
        pixels[at] = color.0
        pixels[at + 1] = color.1
        pixels[at + 2] = color.2
      }
    }
  }

  /// The luma (BT.601 weights, 0-255) of every pixel, row by row.
  public var luma: [Double] {
    var values = [Double](repeating: 0, count: width * height)
    for index in 0..<(width * height) {
      let at = index * 3
      values[index] =
        0.299 * Double(pixels[at]) + 0.587 * Double(pixels[at + 1]) + 0.114
        * Double(pixels[at + 2])
    }
    return values
  }
}
