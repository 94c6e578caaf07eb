import Composition
import Foundation
import MediaCore
import Testing

@testable import Compositor

/// Overlays rendered on real media made by construction: a solid-colour clip (0x3070B0, BT.601
/// by the CLI, untagged, so the canvas is BT.601 limited range) and solid-colour PNGs. The
/// oracle is the ffmpeg CLI's decode of the source and of the output to R'G'B' (BT.601, limited
/// range), and each formula (alpha compositing, the blend modes, the fades) computed here from
/// the colours the fixtures were made with: within ±3 levels (the Y'CbCr round trips; the
/// output is lossless, x264 CRF 0 in High 4:4:4 Predictive, so the codec adds nothing).
@Suite struct OverlayRenderTests {
  static let size = (width: 160, height: 120)
  static let base = Fixtures.solid(
    "overlay-base.mp4", colour: "0x3070B0", size: "160x120", seconds: 2, audio: false)
  /// The watermark: 40x30, opaque 0xE04020.
  static let logo: String = Fixtures.make("overlay-logo.png") {
    ["-f", "lavfi", "-i", "color=c=0xE04020:s=40x30", "-frames:v", "1", $0]
  }
  /// The same colour with alpha 0x80 on every pixel (an RGBA PNG).
  static let translucent: String = Fixtures.make("overlay-alpha.png") {
    [
      "-f", "lavfi", "-i", "color=c=0xE04020@0x80:s=40x30,format=rgba", "-frames:v", "1",
      "-pix_fmt", "rgba", $0,
    ]
  }
  static let logoColor = [0xE0, 0x40, 0x20]

  /// Every frame of `path` as R'G'B' (BT.601, limited range), by the ffmpeg CLI.
  static func frames(_ path: String) throws -> [[UInt8]] {
    let raw = Array(
      try ffmpeg([
        "-i", path, "-vf",
        "scale=in_color_matrix=bt601:in_range=tv:flags=accurate_rnd+full_chroma_int,format=rgb24",
        "-f", "rawvideo", "-",
      ]).stdout)
    let count = size.width * size.height * 3
    return stride(from: 0, to: raw.count - count + 1, by: count).map {
      Array(raw[$0..<$0 + count])
    }
  }

  /// Every frame of `path` as its decoded 4:2:0 planes (Y, Cb, Cr), by the ffmpeg CLI.
  static func planes(_ path: String) throws -> [[[UInt8]]] {
    let raw = Array(try ffmpeg(["-i", path, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]).stdout)
    let luma = size.width * size.height
    let chroma = luma / 4
    return stride(from: 0, to: raw.count - luma * 3 / 2 + 1, by: luma * 3 / 2).map {
      [
        Array(raw[$0..<$0 + luma]), Array(raw[$0 + luma..<$0 + luma + chroma]),
        Array(raw[$0 + luma + chroma..<$0 + luma + 2 * chroma]),
      ]
    }
  }

  static func pixel(_ frame: [UInt8], _ x: Int, _ y: Int) -> [Int] {
    let i = (y * size.width + x) * 3
    return (0..<3).map { Int(frame[i + $0]) }
  }

  static func distance(_ a: [Int], _ b: [Int]) -> Int {
    zip(a, b).map { abs($0 - $1) }.max()!
  }

  /// The render settings (lossless), the fixtures made first.
  static func settings() -> CompositorSettings {
    _ = (base, logo, translucent)
    var settings = CompositorSettings()
    settings.crf = 0
    settings.profile = "high444"
    return settings
  }

  /// The base colour as the source decodes (the oracle's, not the render's).
  static func baseColor() throws -> [Int] {
    pixel(try frames(base)[0], 80, 60)
  }

  /// An opaque watermark at 50 % opacity on frames 13–36 (middles 0.54–1.46 s in
  /// [0.52, 1.48)): inside its box c·0.5 + b·0.5; outside it and on frames 12 and 37 the
  /// source's colour.
  @Test func imageOverlayBlendsInsideItsBoxAndTime() throws {
    let settings = Self.settings()
    let plan = try plan(
      """
      {"version": 1, "clips": [{"source": "overlay-base.mp4"}],
       "overlays": [{"image": "overlay-logo.png", "x": 21, "y": 11, "opacity": 0.5,
                     "from": 0.52, "to": 1.48}]}
      """)
    let overlay = try #require(plan.overlays?.first)
    #expect(overlay.width == 40 && overlay.height == 30 && overlay.x == 21 && overlay.y == 11)
    let (path, report) = try render(plan, "overlay-image.mp4", settings: settings)
    #expect(report.check?.passed == true)
    let frames = try Self.frames(path)
    #expect(frames.count == 50)
    let b = try Self.baseColor()
    let expected = zip(Self.logoColor, b).map {
      Int((Double($0) * 0.5 + Double($1) * 0.5).rounded())
    }
    // Inside the box (21..<61, 11..<41), away from its edge by 2 (4:2:0 chroma).
    let inside = [(26, 16), (40, 25), (55, 35)]
    // Outside it, 2 pixels and more away.
    let outside = [(18, 25), (63, 25), (40, 8), (40, 43), (120, 90), (2, 2)]
    for index in [13, 20, 36] {
      for (x, y) in inside {
        let got = Self.pixel(frames[index], x, y)
        #expect(
          Self.distance(got, expected) <= 3,
          "frame \(index) (\(x),\(y)): \(got), expected \(expected)")
      }
      for (x, y) in outside {
        let got = Self.pixel(frames[index], x, y)
        #expect(Self.distance(got, b) <= 3, "frame \(index) (\(x),\(y)) outside: \(got), base \(b)")
      }
    }
    for index in [0, 12, 37, 49] {
      for (x, y) in inside + outside {
        let got = Self.pixel(frames[index], x, y)
        #expect(Self.distance(got, b) <= 3, "frame \(index) (\(x),\(y)) out of range: \(got)")
      }
    }
  }

  /// An RGBA PNG's own alpha (0x80) is used: c·a + b·(1 − a), a = 128/255, at opacity 1; placed
  /// at a corner with a margin and scaled by 0.5 (20x15 at the bottom right, 4 in).
  @Test func alphaPNGAtACorner() throws {
    let settings = Self.settings()
    let plan = try plan(
      """
      {"version": 1, "clips": [{"source": "overlay-base.mp4"}],
       "overlays": [{"image": "overlay-alpha.png", "position": "bottom_right", "margin": 4,
                     "scale": 0.5}]}
      """)
    let overlay = try #require(plan.overlays?.first)
    #expect(overlay.width == 20 && overlay.height == 15)
    #expect(overlay.x == 160 - 20 - 4 && overlay.y == 120 - 15 - 4)
    let (path, _) = try render(plan, "overlay-alpha.mp4", settings: settings)
    let frame = try Self.frames(path)[10]
    let b = try Self.baseColor()
    let a = 128.0 / 255
    let expected = zip(Self.logoColor, b).map {
      Int((Double($0) * a + Double($1) * (1 - a)).rounded())
    }
    for (x, y) in [(140, 105), (145, 108), (150, 111)] {
      let got = Self.pixel(frame, x, y)
      #expect(Self.distance(got, expected) <= 3, "(\(x),\(y)): \(got), expected \(expected)")
    }
    for (x, y) in [(133, 108), (145, 98), (158, 118), (10, 10)] {
      #expect(Self.distance(Self.pixel(frame, x, y), b) <= 3, "(\(x),\(y)) outside")
    }
  }

  /// Each blend mode's formula (on 0–1 values, c the overlay's colour, b the picture's) on
  /// constructed colours: one opaque 16x16 box per mode along the picture.
  @Test func blendModesFollowTheirFormulas() throws {
    let modes: [OverlayBlend] = [
      .multiply, .screen, .overlay, .darken, .lighten, .add, .subtract, .difference,
    ]
    let overlays = modes.enumerated().map { index, mode in
      "{\"image\": \"overlay-logo.png\", \"x\": \(4 + index * 19), \"y\": 20, \"width\": 16, "
        + "\"height\": 16, \"blend\": \"\(mode.rawValue)\"}"
    }
    let settings = Self.settings()
    let plan = try plan(
      """
      {"version": 1, "clips": [{"source": "overlay-base.mp4"}],
       "overlays": [\(overlays.joined(separator: ", "))]}
      """)
    let (path, report) = try render(plan, "overlay-blend.mp4", settings: settings)
    #expect(report.check?.passed == true)
    let frame = try Self.frames(path)[5]
    let b = try Self.baseColor().map { Double($0) / 255 }
    let c = Self.logoColor.map { Double($0) / 255 }
    for (index, mode) in modes.enumerated() {
      let formula: [Double] = zip(c, b).map { c, b in
        switch mode {
        case .normal: c
        case .multiply: c * b
        case .screen: 1 - (1 - c) * (1 - b)
        case .overlay: b < 0.5 ? 2 * c * b : 1 - 2 * (1 - c) * (1 - b)
        case .darken: min(c, b)
        case .lighten: max(c, b)
        case .add: min(c + b, 1)
        case .subtract: max(b - c, 0)
        case .difference: abs(b - c)
        }
      }
      let expected = formula.map { Int(($0 * 255).rounded()) }
      let got = Self.pixel(frame, 4 + index * 19 + 8, 28)
      #expect(Self.distance(got, expected) <= 3, "\(mode): \(got), formula \(expected)")
    }
    #expect(Self.distance(Self.pixel(frame, 80, 80), try Self.baseColor()) <= 3)
  }

  /// A title: drawn inside its box only, only in its time range; at the middle of its fade-in
  /// (frame 18, middle 0.74 s, in the fade 0.52–0.96 s) each fully covered pixel is half the
  /// title's colour and half the picture's.
  @Test func textTitleInsideItsBoxTimeAndFade() throws {
    let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
    let settings = Self.settings()
    let plan = try plan(
      """
      {"version": 1, "clips": [{"source": "overlay-base.mp4"}],
       "overlays": [{"text": "HI", "font": "\(font)", "size": 64, "color": "#ffff00",
                     "x": 20, "y": 20, "from": 0.52, "to": 1.48, "fade_in": 0.44,
                     "fade_out": 0.2}]}
      """)
    let (path, report) = try render(plan, "overlay-text.mp4", settings: settings)
    #expect(report.check?.passed == true)
    let frames = try Self.frames(path)
    let b = try Self.baseColor()
    let yellow = [255, 255, 0]
    // The box a 64-pixel "HI" can take from (20, 20): at most 64 wide per letter, 90 high.
    // Compared on the decoded Y'CbCr planes (the lossless output against the source: R'G'B'
    // would spread each chroma sample over its neighbours): no sample outside changed at all.
    func inBox(_ x: Int, _ y: Int) -> Bool { x >= 20 && x < 20 + 2 * 64 && y >= 20 && y < 110 }
    let planes = try Self.planes(path)
    let source = try Self.planes(Self.base)[0]
    func changed(_ frame: [[UInt8]]) -> (inside: Int, outside: Int) {
      var counts = (inside: 0, outside: 0)
      for plane in 0..<3 {
        let (w, h, f) = plane == 0 ? (Self.size.width, Self.size.height, 1) : (80, 60, 2)
        for y in 0..<h {
          for x in 0..<w where frame[plane][y * w + x] != source[plane][y * w + x] {
            // A chroma sample covers 2x2 pixels: inside when any of them is.
            let inside = (0..<f).contains { dy in
              (0..<f).contains { dx in inBox(x * f + dx, y * f + dy) }
            }
            if inside { counts.inside += 1 } else { counts.outside += 1 }
          }
        }
      }
      return counts
    }
    let shown = changed(planes[30])
    #expect(shown.inside > 200, "the title changed \(shown.inside) samples in its box")
    #expect(shown.outside == 0, "the title changed \(shown.outside) samples outside its box")
    for index in [12, 37] {
      let none = changed(planes[index])
      #expect(none.inside == 0 && none.outside == 0, "frame \(index): \(none)")
    }
    let full = frames[30]
    // Fully covered pixels (the title's colour at full opacity): half at the fade's middle.
    var covered: [(Int, Int)] = []
    // (inside the glyphs, 2 pixels from their edges: the decode's chroma interpolation mixes
    // in the picture around them, hidden at full opacity by yellow's clipped blue).
    for y in 22..<108 {
      for x in 22..<146
      where (-2...2).allSatisfy({ dy in
        (-2...2).allSatisfy { dx in Self.distance(Self.pixel(full, x + dx, y + dy), yellow) <= 3 }
      }) {
        covered.append((x, y))
      }
    }
    #expect(covered.count > 50, "\(covered.count) covered pixels")
    let half = zip(yellow, b).map { Int((Double($0 + $1) / 2).rounded()) }
    var worst = 0
    for (x, y) in covered {
      worst = max(worst, Self.distance(Self.pixel(frames[18], x, y), half))
    }
    #expect(worst <= 4, "the fade's middle is \(worst) levels from half")
  }

  /// A title's text and font reach drawtext as written, through both of libavfilter's parsers
  /// (quotes, colons, commas, semicolons, brackets, backslashes, percent signs, a newline): the
  /// coverage we draw equals, sample for sample, the ffmpeg CLI's drawtext reading the same text
  /// from a file (`textfile`, no escaping) with the same font, size and place.
  @Test func titleTextIsDrawnAsWritten() throws {
    let text = "It's 50%: a, b; [c] \\ d\n%{pts} 'q'"
    let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    let json = text.replacingOccurrences(of: "\\", with: "\\\\")
      .replacingOccurrences(of: "\n", with: "\\n")
    let plan = try plan(
      """
      {"version": 1, "size": "320x120", "clips": [{"source": "\(Self.logo)", "duration": 1}],
       "overlays": [{"text": "\(json)", "font": "\(font)", "size": 18, "x": 7, "y": 9}]}
      """)
    let overlay = try #require(plan.overlays?.first)
    #expect(overlay.text == text)
    let canvas = Canvas(
      width: 320, height: 120, frameRate: Rational(25, 1)!, background: .black,
      colors: ColorPlan(output: .unspecified, matrix: "bt601"), filterThreads: 1)
    let item = try #require(try OverlayStage.prepare(overlay, canvas: canvas))
    let file = Fixtures.directory + "/title.txt"
    try Data((overlay.text ?? "").utf8).write(to: URL(fileURLWithPath: file))
    let cli = Array(
      try ffmpeg([
        "-f", "lavfi", "-i", "color=c=black@0:s=320x120:r=1:d=1,format=gbrap", "-vf",
        "drawtext=fontfile=\(font):textfile=\(file):expansion=none:fontsize=18:fontcolor=white"
          + ":x=7:y=9,alphaextract",
        "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-",
      ]).stdout)
    #expect(cli.count == 320 * 120)
    var differences = 0
    var covered = 0
    for y in 0..<120 {
      for x in 0..<320 {
        let inside =
          x >= item.region.x && x < item.region.x + item.region.width && y >= item.region.y
          && y < item.region.y + item.region.height
        let ours =
          inside
          ? item.patch.withRow(y - item.region.y, plane: 3) { Int($0[x - item.region.x]) } : 0
        if ours != Int(cli[y * 320 + x]) { differences += 1 }
        if ours > 0 { covered += 1 }
      }
    }
    #expect(covered > 300, "\(covered) samples covered")
    #expect(differences == 0, "\(differences) samples differ from the CLI's drawtext")
  }
}
