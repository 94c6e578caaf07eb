import Testing

@testable import MediaCore
import AV
@testable import MediaProbe

/// The 8 matrices of reference/probe.md: (a, b, c, d) → UIImageOrientation, clockwise rotation,
/// mirroring and display size of a 160×120 picture.
@Suite struct OrientationTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var a: Double, b: Double, c: Double, d: Double
    var name: String
    var rotation: Int
    var mirrored: Bool
    var display: (Int, Int)
    var testDescription: String { name }
  }

  static let table: [Case] = [
    Case(a: 1, b: 0, c: 0, d: 1, name: "up", rotation: 0, mirrored: false, display: (160, 120)),
    Case(
      a: 0, b: 1, c: -1, d: 0, name: "right", rotation: 90, mirrored: false, display: (120, 160)),
    Case(
      a: -1, b: 0, c: 0, d: -1, name: "down", rotation: 180, mirrored: false, display: (160, 120)),
    Case(
      a: 0, b: -1, c: 1, d: 0, name: "left", rotation: 270, mirrored: false, display: (120, 160)),
    Case(
      a: -1, b: 0, c: 0, d: 1, name: "up_mirrored", rotation: 0, mirrored: true, display: (160, 120)
    ),
    Case(
      a: 1, b: 0, c: 0, d: -1, name: "down_mirrored", rotation: 180, mirrored: true,
      display: (160, 120)),
    Case(
      a: 0, b: 1, c: 1, d: 0, name: "left_mirrored", rotation: 90, mirrored: true,
      display: (120, 160)),
    Case(
      a: 0, b: -1, c: -1, d: 0, name: "right_mirrored", rotation: 270, mirrored: true,
      display: (120, 160)),
  ]

  @Test(arguments: table)
  func matrix(_ expected: Case) {
    let transform = AffineTransform(
      a: expected.a, b: expected.b, c: expected.c, d: expected.d, tx: 0, ty: 0)
    let orientation = Orientation(
      transform: transform, width: 160, height: 120, sampleAspectRatio: nil)
    #expect(orientation.name == expected.name)
    #expect(orientation.rotation == expected.rotation)
    #expect(orientation.mirrored == expected.mirrored)
    #expect(orientation.displayWidth == expected.display.0)
    #expect(orientation.displayHeight == expected.display.1)
    #expect(orientation.portrait == (expected.display.1 > expected.display.0))
  }

  @Test func displayMatrixIsSixteenDotSixteen() {
    // FFmpeg's layout for a 90° clockwise iPhone clip: a b u / c d v / x y w.
    let m: [Int32] = [0, 65536, 0, -65536, 0, 0, 1080 << 16, 0, 1 << 30]
    let transform = AffineTransform(displayMatrix: m)
    #expect(transform == AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 1080, ty: 0))
  }

  @Test func sampleAspectRatioWidensBeforeRotation() {
    // 240×180 at SAR 4:3 shows as 320×180; rotated a quarter turn, 180×320.
    let sar = Rational(4, 3)
    let up = Orientation(transform: .identity, width: 240, height: 180, sampleAspectRatio: sar)
    #expect((up.displayWidth, up.displayHeight) == (320, 180))
    let right = Orientation(
      transform: AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 0, ty: 0), width: 240, height: 180,
      sampleAspectRatio: sar)
    #expect((right.displayWidth, right.displayHeight, right.portrait) == (180, 320, true))
  }

  @Test func scaledRotationRoundsToQuarterTurns() {
    // A matrix scaled by 2 still reads as a quarter turn clockwise.
    let transform = AffineTransform(a: 0, b: 2, c: -2, d: 0, tx: 0, ty: 0)
    let orientation = Orientation(
      transform: transform, width: 160, height: 120, sampleAspectRatio: nil)
    #expect(orientation.rotation == 90)
    #expect(!orientation.mirrored)
  }
}
