#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// An affine transform in AVFoundation's `CGAffineTransform` layout (also ISO BMFF `tkhd`'s):
/// x' = a·x + c·y + tx, y' = b·x + d·y + ty.
public struct AffineTransform: Codable, Sendable, Equatable {
  /// Horizontal scale / rotation (x from x).
  public var a: Double
  /// Rotation (y from x).
  public var b: Double
  /// Rotation (x from y).
  public var c: Double
  /// Vertical scale / rotation (y from y).
  public var d: Double
  /// Horizontal translation in points.
  public var tx: Double
  /// Vertical translation in points.
  public var ty: Double

  /// The identity transform.
  public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

  /// A transform from its six coefficients.
  public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
    (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
  }

  /// Reads FFmpeg's display matrix: 9 int32 `a b u / c d v / x y w`, 16.16 fixed point
  /// (w is 2.30), as stored in `AV_PKT_DATA_DISPLAYMATRIX` side data.
  public init(displayMatrix m: [Int32]) {
    precondition(m.count == 9, "a display matrix has 9 elements")
    let scale = 65536.0
    self.init(
      a: Double(m[0]) / scale, b: Double(m[1]) / scale,
      c: Double(m[3]) / scale, d: Double(m[4]) / scale,
      tx: Double(m[6]) / scale, ty: Double(m[7]) / scale)
  }
}

/// The display orientation of a video track, as AVFoundation and UIKit describe it.
///
/// `rotation` is in **clockwise** degrees (what MediaInfo and ExoPlayer report, and the opposite
/// sign of `av_display_rotation_get`), and `mirrored` comes from the determinant, which
/// `av_display_rotation_get` ignores.
public struct Orientation: Codable, Sendable, Equatable {
  /// Clockwise rotation to apply for display: 0, 90, 180 or 270.
  public var rotation: Int
  /// True when the transform flips the image (negative determinant).
  public var mirrored: Bool
  /// The `UIImageOrientation` name: up, down, left, right, and their `_mirrored` forms.
  public var name: String
  /// The track's transform, as `preferredTransform` would give it.
  public var transform: AffineTransform
  /// True when the clip displays taller than wide.
  public var portrait: Bool
  /// The width the clip displays at: natural size, sample aspect ratio applied, then rotated.
  public var displayWidth: Int
  /// The height the clip displays at.
  public var displayHeight: Int

  /// Works out the orientation of a `width`×`height` picture shown through `transform`, with a
  /// sample aspect ratio (nil or 1:1 for square pixels).
  ///
  /// Only a, b, c, d decide: translations are often 0 or wrong in real files.
  public init(transform: AffineTransform, width: Int, height: Int, sampleAspectRatio: Rational?) {
    let determinant = transform.a * transform.d - transform.b * transform.c
    mirrored = determinant < 0
    // A mirrored transform is a horizontal flip (x -> -x) applied after a rotation; undo the flip
    // (negate a and c) to find the rotation. For a rotation by θ (y down), a = cos θ, b = sin θ.
    let degrees = atan2Degrees(y: transform.b, x: mirrored ? -transform.a : transform.a)
    let quarterTurns = Int((degrees / 90).rounded())
    rotation = ((quarterTurns % 4) + 4) % 4 * 90
    let base = ["up", "right", "down", "left"][rotation / 90]
    if mirrored {
      name = ["up_mirrored", "left_mirrored", "down_mirrored", "right_mirrored"][rotation / 90]
    } else {
      name = base
    }
    self.transform = transform

    var naturalWidth = Double(width)
    if let sar = sampleAspectRatio, sar.num > 0 { naturalWidth *= sar.value }
    let stored = (Int(naturalWidth.rounded()), height)
    (displayWidth, displayHeight) = rotation % 180 == 0 ? stored : (stored.1, stored.0)
    portrait = displayHeight > displayWidth
  }
}

/// atan2 in degrees, exact for the axis-aligned cases a track matrix nearly always has.
private func atan2Degrees(y: Double, x: Double) -> Double {
  switch (x, y) {
  case (let x, 0) where x >= 0: return 0
  case (0, let y) where y > 0: return 90
  case (let x, 0) where x < 0: return 180
  case (0, let y) where y < 0: return -90
  default: return atan2(y, x) * 180 / .pi
  }
}
