import MediaCore

/// A contact sheet: tiles in rows, left to right, top to bottom, each centred in a cell of the
/// largest tile's size, 4 pixels apart on a dark grey ground (16, 16, 16), with the tile's time
/// drawn in its bottom-left corner when asked: white digits of our own 5×7 pixel font (no
/// font files needed: `drawtext` would need fontconfig and a font installed), doubled when
/// the tile is at least 160 pixels wide, on a black box.
public enum ContactSheet {
  /// The tile size when none is given (`--max-size`): each tile fits inside 320×320.
  public static let defaultTile = FitSize(width: 320, height: 320)
  /// Pixels between tiles and around them.
  public static let gap = 4

  /// The sheet of `tiles` (at most columns × rows; fewer leave cells empty).
  public static func draw(_ tiles: [Grab], columns: Int, rows: Int, timestamps: Bool) -> Picture {
    let cellWidth = tiles.map(\.picture.width).max() ?? 1
    let cellHeight = tiles.map(\.picture.height).max() ?? 1
    var sheet = Picture(
      width: columns * cellWidth + (columns + 1) * gap,
      height: rows * cellHeight + (rows + 1) * gap, fill: (16, 16, 16))
    for (index, tile) in tiles.prefix(columns * rows).enumerated() {
      let column = index % columns
      let row = index / columns
      let x = gap + column * (cellWidth + gap) + (cellWidth - tile.picture.width) / 2
      let y = gap + row * (cellHeight + gap) + (cellHeight - tile.picture.height) / 2
      sheet.draw(tile.picture, atX: x, y: y)
      if timestamps, let time = tile.actualTime {
        let scale = tile.picture.width >= 160 ? 2 : 1
        let text = label(time)
        let textWidth = text.count * 6 * scale - scale
        sheet.fill(
          x: x, y: y + tile.picture.height - 9 * scale, w: textWidth + 2 * scale, h: 9 * scale,
          color: (0, 0, 0))
        PixelFont.draw(
          text, into: &sheet, x: x + scale, y: y + tile.picture.height - 8 * scale, scale: scale)
      }
    }
    return sheet
  }

  /// A time as the sheet shows it: `m:ss.s`, or `h:mm:ss` from an hour on.
  public static func label(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10).rounded(.down))
    let totalSeconds = tenths / 10
    let (h, m, s) = (totalSeconds / 3600, totalSeconds / 60 % 60, totalSeconds % 60)
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    if h > 0 { return "\(h):\(two(m)):\(two(s))" }
    return "\(m):\(two(s)).\(tenths % 10)"
  }
}

/// A 5×7 pixel font of the digits, `:` and `.`.
enum PixelFont {
  /// Each glyph's 7 rows, 5 bits each (the high bit is the left column).
  static let glyphs: [Character: [UInt8]] = [
    "0": [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
    "1": [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
    "2": [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
    "3": [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
    "4": [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
    "5": [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
    "6": [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
    "7": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
    "8": [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
    "9": [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
    ":": [0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00],
    ".": [0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C],
  ]

  /// Draws `text` (white unless told) with its top-left corner at (`x`, `y`), each font pixel
  /// `scale` pixels wide; glyphs are 6 font pixels apart.
  static func draw(
    _ text: String, into picture: inout Picture, x: Int, y: Int, scale: Int,
    color: (UInt8, UInt8, UInt8) = (255, 255, 255)
  ) {
    for (offset, character) in text.enumerated() {
      guard let rows = glyphs[character] else { continue }
      for (row, bits) in rows.enumerated() {
        for column in 0..<5 where bits & (0x10 >> UInt8(column)) != 0 {
          picture.fill(
            x: x + (offset * 6 + column) * scale, y: y + row * scale, w: scale, h: scale,
            color: color)
        }
      }
    }
  }
}
