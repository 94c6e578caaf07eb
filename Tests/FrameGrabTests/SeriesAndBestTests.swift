import Foundation
import FrameGrab
import Testing

/// Series names and times, contact sheets, and the --best rule.
@Suite struct SeriesAndBestTests {
  @Test func seriesNames() {
    #expect(FrameJob.seriesName("out_%03d.jpg", index: 7) == "out_007.jpg")
    #expect(FrameJob.seriesName("a/%d.png", index: 12) == "a/12.png")
    #expect(FrameJob.seriesName("thumbs/t.webp", index: 3) == "thumbs/t_003.webp")
    #expect(FrameJob.seriesName("x.y/t", index: 3) == "x.y/t_003")
  }

  @Test func seriesTimes() {
    #expect(TimeSeries.every(1).times(duration: 3) == [0, 1, 2])
    #expect(TimeSeries.every(0.7).times(duration: 2.1).count == 3)
    #expect(TimeSeries.count(4).times(duration: 2) == [0.25, 0.75, 1.25, 1.75])
  }

  /// numbers.mp4 at --count 6: the middles of 6 half-second parts, frames 2, 7, 12, ... exactly.
  @Test func sheetTiles() throws {
    let source = try grabber(fixture("numbers.mp4"))
    var tiles: [Grab] = []
    for time in TimeSeries.count(6).times(duration: 3) {
      tiles.append(try source.grab(at: time, maxSize: FitSize(width: 32, height: 32)))
    }
    #expect(tiles.map { frameNumber($0.picture) } == [2, 7, 12, 17, 22, 27])
    let sheet = ContactSheet.draw(tiles, columns: 3, rows: 2, timestamps: true)
    #expect(sheet.width == 3 * 32 + 4 * ContactSheet.gap)
    #expect(sheet.height == 2 * 24 + 3 * ContactSheet.gap)
    // Tile 5 (row 1, column 1) sits at (4 + 36, 4 + 28); its centre shows frame 22.
    let (r, g, _) = sheet.pixel(4 + 36 + 16, 4 + 28 + 6)
    #expect(abs(Int(r) - (22 % 8 * 32 + 16)) < 12 && abs(Int(g) - (22 / 8 * 32 + 16)) < 12)
    // The time is drawn: white pixels in the tile's bottom-left label.
    let label = (0..<24).flatMap { x in (0..<8).map { y in sheet.pixel(4 + x, 4 + 24 - 8 + y) } }
    #expect(label.contains { $0 == (255, 255, 255) })
    #expect(ContactSheet.label(2.25) == "0:02.2")
    #expect(ContactSheet.label(3725.5) == "1:02:05")
  }

  /// Pictures made here: black (blank), a flat grey (blank), a soft gradient (blurred) and a
  /// checkerboard (sharp).
  @Test func bestRuleOnConstructedPictures() {
    let black = Picture(width: 32, height: 32)
    let grey = Picture(width: 32, height: 32, fill: (128, 128, 128))
    var soft = Picture(width: 32, height: 32)
    var sharp = Picture(width: 32, height: 32)
    for y in 0..<32 {
      for x in 0..<32 {
        let v = UInt8(x * 8)
        soft.fill(x: x, y: y, w: 1, h: 1, color: (v, v, v))
        let c: UInt8 = (x / 2 + y / 2) % 2 == 0 ? 230 : 20
        sharp.fill(x: x, y: y, w: 1, h: 1, color: (c, c, c))
      }
    }
    let measures = [black, grey, soft, sharp, soft].enumerated().map { index, picture in
      let (variance, sharpness) = BestFrame.measure(picture)
      return BestFrame.Measure(time: Double(index), variance: variance, sharpness: sharpness)
    }
    #expect(measures[0].variance == 0 && measures[1].variance == 0)
    #expect(measures[2].variance > BestFrame.blankVariance)
    #expect(BestFrame.choose(measures) == 3)
    // All blank: the most varied one.
    #expect(BestFrame.choose(Array(measures[0..<2])) == 0)
  }

  /// best.mp4: 1 s black, 1 s blurred testsrc2, 1 s sharp testsrc2 (construction): the pick
  /// lies in the sharp second, never in the black one.
  @Test func bestPicksTheSharpSegment() throws {
    let grab = try BestFrame.choose(
      try grabber(fixture("best.mp4")), window: 3, maxSize: nil)
    let time = try #require(grab.actualTime)
    #expect(time >= 2.0)
    #expect(BestFrame.measure(grab.picture).variance > BestFrame.blankVariance)
    // Over the first 1.5 s only (black, then blurred), the blurred frames win over black.
    let early = try BestFrame.choose(try grabber(fixture("best.mp4")), window: 1.5, maxSize: nil)
    #expect(try #require(early.actualTime) >= 1.0)
  }
}
