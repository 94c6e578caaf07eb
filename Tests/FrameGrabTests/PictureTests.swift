import Testing

@testable import FrameGrab

@Suite struct PictureTests {
  @Test func placeholder() { #expect(Picture(width: 2, height: 1).pixels.count == 6) }
}
