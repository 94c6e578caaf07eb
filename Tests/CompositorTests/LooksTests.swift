import AV
import Composition
@testable import Compositor
import MediaCore
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Looks through libavfilter against GPUImage's published shader formulas: pictures made by
/// construction in `rgb24` (a solid colour, gradients), pushed through `LookFilters.rgbChain`
/// in a `FilterGraph` (lossless: R'G'B' in and out, no codec), every output pixel compared with
/// the shader's formula computed here in floating point on v/255, clamped to 0–1 and written as
/// the nearest level, within ±2 levels. The oracle follows each shader's text
/// (`GPUImage<Name>Filter.m`), not the graph: the hue look, a matrix in the builder, is computed
/// here with the shader's atan/length/sin/cos; pixellate and vignette from texture coordinates.
@Suite struct LooksTests {
  typealias RGB = (Double, Double, Double)

  /// An rgb24 picture of `width`×`height` whose pixel (x, y) is `color(x, y)`.
  struct Picture {
    var width: Int
    var height: Int
    var pixels: [UInt8]

    init(width: Int, height: Int, _ color: (Int, Int) -> (UInt8, UInt8, UInt8)) {
      self.width = width
      self.height = height
      pixels = []
      for y in 0..<height {
        for x in 0..<width {
          let (r, g, b) = color(x, y)
          pixels += [r, g, b]
        }
      }
    }

    init(width: Int, height: Int, pixels: [UInt8]) {
      self.width = width
      self.height = height
      self.pixels = pixels
    }

    subscript(x: Int, y: Int) -> [Int] {
      let i = (y * width + x) * 3
      return [Int(pixels[i]), Int(pixels[i + 1]), Int(pixels[i + 2])]
    }
  }

  /// Levels spread over every value: r runs 0–255 along x, g and b cycle at other rates, so a
  /// 256×24 picture holds 6144 distinct colours including black, white and the primaries' ends.
  static let gradient = Picture(width: 256, height: 24) { x, y in
    (UInt8(x), UInt8((x * 7 + y * 29) & 255), UInt8((255 - x + y * 11) & 255))
  }

  /// `picture` through `description` (gbrp in the middle), back as rgb24.
  static func apply(_ description: String, to picture: Picture) throws -> Picture {
    let graph = try FilterGraph(threads: 1)
    let source = try graph.addVideoSource(
      name: "in",
      VideoParameters(
        width: picture.width, height: picture.height, pixelFormat: .rgb24,
        timeBase: Rational(1, 25)!, sampleAspectRatio: Rational(1, 1)!,
        frameRate: Rational(25, 1)!))
    let sink = try graph.addVideoSink(name: "out", pixelFormats: [.rgb24])
    try graph.configure(description)
    let frame = try Frame.video(width: picture.width, height: picture.height, pixelFormat: .rgb24)
    for y in 0..<picture.height {
      frame.withRow(y) { row in
        for i in 0..<(picture.width * 3) { row[i] = picture.pixels[y * picture.width * 3 + i] }
      }
    }
    frame.pts = 0
    try graph.push(frame, to: source)
    try graph.push(nil, to: source)
    let output = Frame()
    #expect(try graph.pull(from: sink, into: output) == .frame)
    #expect(output.width == picture.width && output.height == picture.height)
    var pixels: [UInt8] = []
    for y in 0..<picture.height {
      output.withRow(y) { row in pixels += row.prefix(picture.width * 3) }
    }
    return Picture(width: picture.width, height: picture.height, pixels: pixels)
  }

  /// Applies `looks` and compares every pixel (or those `where` selects) with `formula` (on
  /// 0–1 values; the result is clamped and rounded here), within `tolerance` levels. Returns the
  /// largest difference.
  @discardableResult
  static func check(
    _ looks: [Look], on picture: Picture = gradient, tolerance: Int = 2, sized: Bool = true,
    where include: (Int, Int) -> Bool = { _, _ in true },
    sourceLocation: SourceLocation = #_sourceLocation,
    _ formula: (_ x: Int, _ y: Int, _ c: RGB) -> RGB
  ) throws -> Int {
    let description = try LookFilters.rgbChain(
      looks, width: sized ? picture.width : nil, height: sized ? picture.height : nil)
    let output = try apply(description, to: picture)
    var worst = 0
    var failures = 0
    for y in 0..<picture.height {
      for x in 0..<picture.width where include(x, y) {
        let input = picture[x, y].map { Double($0) / 255 }
        let (r, g, b) = formula(x, y, (input[0], input[1], input[2]))
        let expected = [r, g, b].map { Int((min(max($0, 0), 1) * 255).rounded()) }
        let got = output[x, y]
        let difference = zip(expected, got).map { abs($0 - $1) }.max()!
        worst = max(worst, difference)
        if difference > tolerance && failures < 5 {
          failures += 1
          let names = looks.map(\.name.rawValue).joined(separator: ",")
          let message: Comment =
            "\(names) at (\(x), \(y)) from \(picture[x, y]): \(got), formula \(expected)"
          Issue.record(message, sourceLocation: sourceLocation)
        }
      }
    }
    print("looks \(looks.map(\.name.rawValue)): largest difference \(worst) levels")
    return worst
  }

  static func look(_ name: LookName, _ parameters: [String: Double] = [:]) -> Look {
    Look(
      name: name,
      parameters: parameters.mapValues { .number(ExactNumber.parse("\($0)")!) })
  }

  static let w = (0.2125, 0.7154, 0.0721)
  static func luminance(_ c: RGB) -> Double { c.0 * w.0 + c.1 * w.1 + c.2 * w.2 }

  // MARK: - Colour looks

  @Test(arguments: [-1.0, -0.3, 0.25, 0.5])
  func brightness(_ b: Double) throws {
    // GPUImageBrightnessFilter: vec4(textureColor.rgb + brightness, textureColor.w)
    try Self.check([Self.look(.brightness, ["brightness": b])]) { _, _, c in
      (c.0 + b, c.1 + b, c.2 + b)
    }
  }

  @Test(arguments: [0.0, 0.5, 1.5, 4.0])
  func contrast(_ k: Double) throws {
    // GPUImageContrastFilter: vec4(((textureColor.rgb - vec3(0.5)) * contrast + vec3(0.5)), w)
    try Self.check([Self.look(.contrast, ["contrast": k])]) { _, _, c in
      ((c.0 - 0.5) * k + 0.5, (c.1 - 0.5) * k + 0.5, (c.2 - 0.5) * k + 0.5)
    }
  }

  @Test(arguments: [0.0, 0.5, 1.0, 2.0])
  func saturation(_ s: Double) throws {
    // GPUImageSaturationFilter: mix(vec3(dot(rgb, W)), rgb, saturation)
    try Self.check([Self.look(.saturation, ["saturation": s])]) { _, _, c in
      let l = Self.luminance(c)
      return (l + (c.0 - l) * s, l + (c.1 - l) * s, l + (c.2 - l) * s)
    }
  }

  @Test(arguments: [0.5, 1.0, 2.0, 3.0])
  func gamma(_ g: Double) throws {
    // GPUImageGammaFilter: pow(textureColor.rgb, vec3(gamma))
    try Self.check([Self.look(.gamma, ["gamma": g])]) { _, _, c in
      (pow(c.0, g), pow(c.1, g), pow(c.2, g))
    }
  }

  @Test(arguments: [-2.0, -0.5, 1.0, 2.5])
  func exposure(_ e: Double) throws {
    // GPUImageExposureFilter: textureColor.rgb * pow(2.0, exposure)
    try Self.check([Self.look(.exposure, ["exposure": e])]) { _, _, c in
      let k = pow(2, e)
      return (c.0 * k, c.1 * k, c.2 * k)
    }
  }

  @Test(arguments: [90.0, -45.0, 180.0, 400.0])
  func hue(_ degrees: Double) throws {
    // GPUImageHueFilter, step by step: YIQ, hue = atan(Q, I) - hueAdjust, chroma kept.
    try Self.check([Self.look(.hue, ["hue": degrees])]) { _, _, c in
      let adjust = fmod(degrees, 360) * Double.pi / 180
      let y = c.0 * 0.299 + c.1 * 0.587 + c.2 * 0.114
      let i = c.0 * 0.595716 - c.1 * 0.274453 - c.2 * 0.321263
      let q = c.0 * 0.211456 - c.1 * 0.522591 + c.2 * 0.31135
      let hue = atan2(q, i) - adjust
      let chroma = (i * i + q * q).squareRoot()
      let (i2, q2) = (chroma * cos(hue), chroma * sin(hue))
      return (
        y + 0.9563 * i2 + 0.6210 * q2, y - 0.2721 * i2 - 0.6474 * q2,
        y - 1.1070 * i2 + 1.7046 * q2
      )
    }
  }

  /// The reference's measured GPUImage value for pure red at hue 90: (33, 160, 0).
  @Test func hueOfRedAt90() throws {
    let red = Picture(width: 8, height: 8) { _, _ in (255, 0, 0) }
    let output = try Self.apply(
      try LookFilters.rgbChain([Look(name: .hue)]) + ",format=rgb24", to: red)
    let pixel = output[3, 3]
    #expect(abs(pixel[0] - 33) <= 1 && abs(pixel[1] - 160) <= 1 && pixel[2] == 0, "\(pixel)")
  }

  static let sepiaRows: [[Double]] = [
    [0.3588, 0.7044, 0.1368], [0.2990, 0.5870, 0.1140], [0.2392, 0.4696, 0.0912],
  ]

  /// GPUImageColorMatrixFilter: (intensity · (color · M)) + (1 − intensity) · color, the matrix
  /// uploaded untransposed so output channel i is row i · (r, g, b, a).
  static func colorMatrix(_ m: [[Double]], offset: [Double] = [0, 0, 0], intensity: Double)
    -> (Int, Int, RGB) -> RGB
  {
    { _, _, c in
      let input = [c.0, c.1, c.2, 1]
      let out = (0..<3).map { r in
        let mixed =
          (0..<m[r].count).reduce(0.0) { $0 + m[r][$1] * input[$1] } + offset[r]
        return intensity * mixed + (1 - intensity) * input[r]
      }
      return (out[0], out[1], out[2])
    }
  }

  @Test(arguments: [1.0, 0.5, 0.0])
  func sepia(_ intensity: Double) throws {
    try Self.check(
      [Self.look(.sepia, ["intensity": intensity])],
      Self.colorMatrix(Self.sepiaRows, intensity: intensity))
  }

  /// The reference's measured colorchannelmixer sepia of 0x806040 is (123, 101, 82); the
  /// formula gives (122, 102, 82).
  @Test func sepiaOfOneColour() throws {
    let solid = Picture(width: 4, height: 4) { _, _ in (0x80, 0x60, 0x40) }
    let output = try Self.apply(try LookFilters.rgbChain([Look(name: .sepia)]), to: solid)
    #expect(zip(output[1, 1], [122, 102, 82]).allSatisfy { abs($0 - $1) <= 1 }, "\(output[1, 1])")
  }

  @Test func grayscale() throws {
    // GPUImageGrayscaleFilter: vec4(vec3(dot(textureColor.rgb, W)), textureColor.a)
    try Self.check([Look(name: .grayscale)]) { _, _, c in
      let l = Self.luminance(c)
      return (l, l, l)
    }
  }

  @Test func invert() throws {
    // GPUImageColorInvertFilter: vec4((1.0 - textureColor.rgb), textureColor.w)
    let worst = try Self.check([Look(name: .invert)]) { _, _, c in (1 - c.0, 1 - c.1, 1 - c.2) }
    #expect(worst == 0)
  }

  static func matrixLook(_ m: [[Double]], offset: [Double]? = nil, intensity: Double) -> Look {
    func exact(_ x: Double) -> ExactNumber { ExactNumber.parse("\(x)")! }
    var parameters: [String: LookValue] = [
      "color_matrix": .matrix(m.map { $0.map(exact) }), "intensity": .number(exact(intensity)),
    ]
    if let offset { parameters["offset"] = .vector(offset.map(exact)) }
    return Look(name: .colorMatrix, parameters: parameters)
  }

  /// The source document's custom sepia (3×3), a 4×4 with a fourth column, an offset that
  /// pushes values past 1 and back (one clamp, at the end, as the shader's), and half intensity.
  @Test func colorMatrix() throws {
    let documentSepia: [[Double]] = [
      [0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131],
    ]
    try Self.check(
      [Self.matrixLook(documentSepia, intensity: 1)],
      Self.colorMatrix(documentSepia, intensity: 1))
    let four: [[Double]] = [
      [1.2, -0.1, 0.3, 0.1], [0, 0.8, 0.4, -0.2], [-0.5, 0.25, 1.5, 0], [0, 0, 0, 1],
    ]
    try Self.check(
      [Self.matrixLook(four, intensity: 0.75)], Self.colorMatrix(four, intensity: 0.75))
    let swap: [[Double]] = [[0, 2, 0], [0, 0, 1.5], [1, 0, 0]]
    try Self.check(
      [Self.matrixLook(swap, offset: [-0.6, 0.1, -0.2], intensity: 1)],
      Self.colorMatrix(swap, offset: [-0.6, 0.1, -0.2], intensity: 1))
  }

  /// Looks apply in order: brightness then contrast differs from contrast then brightness, and
  /// each matches its composition.
  @Test func orderHolds() throws {
    let b = Self.look(.brightness, ["brightness": 0.2])
    let k = Self.look(.contrast, ["contrast": 2])
    func bright(_ v: Double) -> Double { min(max(v + 0.2, 0), 1) }
    func contrast(_ v: Double) -> Double { min(max((v - 0.5) * 2 + 0.5, 0), 1) }
    // Each look writes 8 bits before the next reads (as GPUImage's framebuffers do).
    func level(_ v: Double) -> Double { (v * 255).rounded() / 255 }
    try Self.check([b, k]) { _, _, c in
      (contrast(level(bright(c.0))), contrast(level(bright(c.1))), contrast(level(bright(c.2))))
    }
    try Self.check([k, b]) { _, _, c in
      (bright(level(contrast(c.0))), bright(level(contrast(c.1))), bright(level(contrast(c.2))))
    }
  }

  // MARK: - Geometry looks

  /// GPUImagePixellateFilter: sampleDivisor = (f, f / aspect), aspect = height/width, so blocks
  /// are f·width pixels square; each shows the texture at its centre (GL_LINEAR).
  static func pixellateFormula(_ picture: Picture, fraction: Double) -> (Int, Int, RGB) -> RGB {
    { x, y, _ in
      let (w, h) = (Double(picture.width), Double(picture.height))
      let divisor = (fraction, fraction / (h / w))
      let u = (Double(x) + 0.5) / w
      let v = (Double(y) + 0.5) / h
      let su = u - fmod(u, divisor.0) + 0.5 * divisor.0
      let sv = v - fmod(v, divisor.1) + 0.5 * divisor.1
      return bilinear(picture, su * w - 0.5, sv * h - 0.5)
    }
  }

  /// GL_LINEAR with CLAMP_TO_EDGE at texel coordinates (tx, ty) (texel centres are whole).
  static func bilinear(_ picture: Picture, _ tx: Double, _ ty: Double) -> RGB {
    let x = min(max(tx, 0), Double(picture.width - 1))
    let y = min(max(ty, 0), Double(picture.height - 1))
    let (x0, y0) = (Int(x.rounded(.down)), Int(y.rounded(.down)))
    let (x1, y1) = (min(x0 + 1, picture.width - 1), min(y0 + 1, picture.height - 1))
    let (fx, fy) = (x - Double(x0), y - Double(y0))
    var out = [0.0, 0.0, 0.0]
    for c in 0..<3 {
      let top = Double(picture[x0, y0][c]) * (1 - fx) + Double(picture[x1, y0][c]) * fx
      let bottom = Double(picture[x0, y1][c]) * (1 - fx) + Double(picture[x1, y1][c]) * fx
      out[c] = (top * (1 - fy) + bottom * fy) / 255
    }
    return (out[0], out[1], out[2])
  }

  static let ramp = Picture(width: 160, height: 96) { x, y in
    (UInt8(x), UInt8(y * 2), UInt8((x + y) & 255))
  }

  /// A picture whose size is no multiple of the blocks (7-pixel blocks for 0.07, 97 rows): the
  /// last blocks are partial and read the clamped edge.
  static let oddRamp = Picture(width: 100, height: 97) { x, y in
    (UInt8(x * 2), UInt8((y * 2) & 255), UInt8((x * 7 + y * 13) & 255))
  }

  /// Blocks of 16 and 10 (0.1), 8 and 5 (0.05), 5 and 3.125 (0.03125), 11.2 and 7 (0.07)
  /// pixels, on pictures whose size is and is not a multiple of the block: the formula's pixels
  /// through both routes (the whole-pixel route when the size is known, `geq` when it is not or
  /// the block is not whole), and by position: every block uniform, a new value exactly where
  /// the formula's block starts. A pixel whose centre lies exactly on a block boundary (3.125-
  /// pixel blocks: x = 12) is left out: the shader's float arithmetic may put it either side.
  @Test(arguments: [0.1, 0.05, 0.03125, 0.07])
  func pixellate(_ fraction: Double) throws {
    let look = Self.look(.pixellate, ["fractional_width_of_pixel": fraction])
    for picture in [Self.ramp, Self.oddRamp] {
      let block = fraction * Double(picture.width)
      func onBoundary(_ i: Int) -> Bool {
        let position = (Double(i) + 0.5) / block
        return abs(position - position.rounded()) < 1e-9
      }
      let fast = try LookFilters.rgbChain([look], width: picture.width, height: picture.height)
      #expect(fast.contains("geq") == (abs(block - block.rounded()) > 1e-6), "\(fast)")
      for sized in [true, false] {
        try Self.check(
          [look], on: picture, sized: sized, where: { !onBoundary($0) && !onBoundary($1) },
          Self.pixellateFormula(picture, fraction: fraction))
      }
      let output = try Self.apply(fast, to: picture)
      func edges(_ count: Int) -> [Int] {
        (1..<count).filter {
          !onBoundary($0) && !onBoundary($0 - 1)
            && Int((Double($0) + 0.5) / block) != Int((Double($0) - 0.5) / block)
        }
      }
      var starts: [Int] = []
      for x in 1..<picture.width where output[x, 0][0] != output[x - 1, 0][0] {
        if !onBoundary(x) && !onBoundary(x - 1) { starts.append(x) }
      }
      #expect(starts == edges(picture.width), "block edges along x for \(block)-pixel blocks")
      var rows: [Int] = []
      for y in 1..<picture.height where output[0, y][1] != output[0, y - 1][1] {
        if !onBoundary(y) && !onBoundary(y - 1) { rows.append(y) }
      }
      #expect(rows == edges(picture.height), "square blocks: the same size along y")
    }
  }

  /// GPUImageVignetteFilter: percent = smoothstep(start, end, distance(textureCoordinate,
  /// center)); mix(color, vignetteColor, percent). Checked on every pixel and by radius: along
  /// the centre row the picture is untouched inside start·width and the colour beyond end·width.
  @Test func vignette() throws {
    let white = Picture(width: 200, height: 100) { _, _ in (255, 255, 255) }
    let cases: [(center: [Double], start: Double, end: Double, color: Color)] = [
      ([0.5, 0.5], 0.3, 0.75, .black),
      ([0.25, 0.6], 0.1, 0.4, Color(red: 0, green: 64, blue: 255)),
    ]
    for item in cases {
      func exact(_ x: Double) -> ExactNumber { ExactNumber.parse("\(x)")! }
      let look = Look(
        name: .vignette,
        parameters: [
          "center": .vector(item.center.map(exact)), "start": .number(exact(item.start)),
          "end": .number(exact(item.end)), "color": .color(item.color),
        ])
      let color = [item.color.red, item.color.green, item.color.blue].map { Double($0) / 255 }
      for picture in [white, Self.ramp] {
        for sized in [true, false] {
          try Self.check([look], on: picture, sized: sized) { x, y, c in
            let u = (Double(x) + 0.5) / Double(picture.width) - item.center[0]
            let v = (Double(y) + 0.5) / Double(picture.height) - item.center[1]
            let d = (u * u + v * v).squareRoot()
            let t = min(max((d - item.start) / (item.end - item.start), 0), 1)
            let p = t * t * (3 - 2 * t)
            return (
              c.0 * (1 - p) + color[0] * p, c.1 * (1 - p) + color[1] * p,
              c.2 * (1 - p) + color[2] * p
            )
          }
        }
      }
      let output = try Self.apply(
        try LookFilters.rgbChain([look], width: white.width, height: white.height), to: white)
      let row = Int(item.center[1] * 100)
      let centreX = item.center[0] * 200
      for x in 0..<200 {
        let u = abs((Double(x) + 0.5) - centreX) / 200
        let v = ((Double(row) + 0.5) / 100 - item.center[1])
        let d = (u * u + v * v).squareRoot()
        if d <= item.start {
          #expect(output[x, row] == [255, 255, 255], "inside the start radius at x \(x)")
        } else if d >= item.end {
          #expect(
            output[x, row] == [item.color.red, item.color.green, item.color.blue].map { Int($0) },
            "beyond the end radius at x \(x)")
        }
      }
    }
  }

  // MARK: - Neighbourhood looks

  /// A picture with edges in every direction: a disc, a diagonal and noise-like texture.
  static let texture = Picture(width: 64, height: 48) { x, y in
    let dx = Double(x - 30)
    let dy = Double(y - 22)
    let inside = dx * dx + dy * dy < 225
    return (
      inside ? 220 : 30, UInt8((x * 37 + y * 91) % 256), x > y ? 200 : UInt8(x * 3)
    )
  }

  static func interior(_ x: Int, _ y: Int) -> Bool { x > 0 && y > 0 && x < 63 && y < 47 }

  /// GPUImageSharpenFilter: textureColor · (1 + 4s) − s · (left + right + top + bottom), each
  /// neighbour one texel away. Interior pixels (GPUImage clamps at the edges; convolution
  /// reflects).
  @Test(arguments: [0.5, 1.0, -0.5, 2.3])
  func sharpen(_ s: Double) throws {
    let picture = Self.texture
    try Self.check(
      [Self.look(.sharpen, ["sharpness": s])], on: picture, where: Self.interior
    ) { x, y, c in
      func at(_ dx: Int, _ dy: Int) -> [Double] { picture[x + dx, y + dy].map { Double($0) / 255 } }
      let around = [at(-1, 0), at(1, 0), at(0, -1), at(0, 1)]
      let out = (0..<3).map { i in
        [c.0, c.1, c.2][i] * (1 + 4 * s) - s * around.reduce(0) { $0 + $1[i] }
      }
      return (out[0], out[1], out[2])
    }
  }

  /// GPUImageSobelEdgeDetectionFilter: a luminance pass (8 bits), then h and v from the 3×3
  /// neighbourhood, length(h, v) · edgeStrength in every channel; sketch is 1 − that.
  static func sobelFormula(_ picture: Picture, strength: Double, sketch: Bool)
    -> (Int, Int, RGB) -> RGB
  {
    { x, y, _ in
      func l(_ dx: Int, _ dy: Int) -> Double {
        let p = picture[x + dx, y + dy].map { Double($0) / 255 }
        return ((p[0] * 0.2125 + p[1] * 0.7154 + p[2] * 0.0721) * 255).rounded() / 255
      }
      let h = -l(-1, -1) - 2 * l(0, -1) - l(1, -1) + l(-1, 1) + 2 * l(0, 1) + l(1, 1)
      let v = -l(-1, 1) - 2 * l(-1, 0) - l(-1, -1) + l(1, 1) + 2 * l(1, 0) + l(1, -1)
      let magnitude = (h * h + v * v).squareRoot() * strength
      let value = sketch ? 1 - magnitude : magnitude
      return (value, value, value)
    }
  }

  @Test(arguments: [1.0, 0.4])
  func sobel(_ strength: Double) throws {
    try Self.check(
      [Self.look(.sobel, ["edge_strength": strength])], on: Self.texture, where: Self.interior,
      Self.sobelFormula(Self.texture, strength: strength, sketch: false))
  }

  @Test(arguments: [1.0, 0.4])
  func sketch(_ strength: Double) throws {
    try Self.check(
      [Self.look(.sketch, ["edge_strength": strength])], on: Self.texture, where: Self.interior,
      Self.sobelFormula(Self.texture, strength: strength, sketch: true))
  }

  /// GPUImageGaussianBlurFilter, computed here from its source's text: σ = round(radius);
  /// radius = floor(sqrt(−2σ²·ln(1/256·sqrt(2πσ²)))) made even; weights
  /// exp(−i²/2σ²)/sqrt(2πσ²) normalised over −radius…radius; vertical pass, 8 bits, horizontal
  /// pass. Pixels at least radius + 1 from every edge (GPUImage clamps, convolution reflects).
  @Test(arguments: [1.0, 2.0, 3.4])
  func gaussianBlur(_ radiusInPixels: Double) throws {
    let picture = Self.texture
    let sigma = radiusInPixels.rounded()
    var radius = Int(
      (-2 * sigma * sigma * log(1.0 / 256.0 * (2 * Double.pi * sigma * sigma).squareRoot()))
        .squareRoot())
    radius += radius % 2
    var weights = (0...radius).map { i in
      (1 / (2 * Double.pi * sigma * sigma).squareRoot()) * exp(-Double(i * i) / (2 * sigma * sigma))
    }
    let total = weights[0] + 2 * weights.dropFirst().reduce(0, +)
    weights = weights.map { $0 / total }
    // The vertical pass, held in 8 bits.
    var vertical = [[Double]](repeating: [0, 0, 0], count: picture.width * picture.height)
    for y in radius..<(picture.height - radius) {
      for x in 0..<picture.width {
        for c in 0..<3 {
          let sum = (-radius...radius).reduce(0.0) {
            $0 + weights[abs($1)] * Double(picture[x, y + $1][c])
          }
          vertical[y * picture.width + x][c] = min(max(sum.rounded(), 0), 255)
        }
      }
    }
    let margin = 2 * radius + 1
    try Self.check(
      [Self.look(.gaussianBlur, ["blur_radius_in_pixels": radiusInPixels])], on: picture,
      where: { x, y in
        x >= margin && y >= margin && x < picture.width - margin && y < picture.height - margin
      }
    ) { x, y, _ in
      let out = (0..<3).map { c in
        (-radius...radius).reduce(0.0) {
          $0 + weights[abs($1)] * vertical[y * picture.width + x + $1][c]
        } / 255
      }
      return (out[0], out[1], out[2])
    }
    #expect(LookFilters.gaussianTaps(sigma: radiusInPixels).count == 2 * radius + 1)
  }

  /// GPUImageSwirlFilter: inside `radius` of `center` (texture coordinates) the offset turns by
  /// θ = ((radius − dist)/radius)²·angle·8; the texture read there with GL_LINEAR.
  @Test(arguments: [(0.5, 0.5, 0.5, 1.0), (0.3, 0.6, 0.4, -2.5)])
  func swirl(_ cx: Double, _ cy: Double, _ radius: Double, _ angle: Double) throws {
    let picture = Self.ramp
    func exact(_ x: Double) -> ExactNumber { ExactNumber.parse("\(x)")! }
    let look = Look(
      name: .swirl,
      parameters: [
        "center": .vector([exact(cx), exact(cy)]), "radius": .number(exact(radius)),
        "angle": .number(exact(angle)),
      ])
    try Self.check([look], on: picture) { x, y, c in
      let (w, h) = (Double(picture.width), Double(picture.height))
      var u = (Double(x) + 0.5) / w
      var v = (Double(y) + 0.5) / h
      let dist = ((u - cx) * (u - cx) + (v - cy) * (v - cy)).squareRoot()
      guard dist < radius else { return c }
      let percent = (radius - dist) / radius
      let theta = percent * percent * angle * 8
      let (du, dv) = (u - cx, v - cy)
      u = du * cos(theta) - dv * sin(theta) + cx
      v = du * sin(theta) + dv * cos(theta) + cy
      return Self.bilinear(picture, u * w - 0.5, v * h - 0.5)
    }
  }

  /// GPUImageToonFilter: 3×3 Sobel on the red channel, posterized = floor(rgb·q + 0.5)/q,
  /// black where length(h, v) ≥ threshold. Interior pixels.
  @Test(arguments: [(0.2, 10.0), (0.5, 4.0), (0.35, 7.0)])
  func toon(_ threshold: Double, _ levels: Double) throws {
    let picture = Self.texture
    try Self.check(
      [Self.look(.toon, ["threshold": threshold, "quantization_levels": levels])], on: picture,
      where: Self.interior
    ) { x, y, c in
      func r(_ dx: Int, _ dy: Int) -> Double { Double(picture[x + dx, y + dy][0]) / 255 }
      let h = -r(-1, -1) - 2 * r(0, -1) - r(1, -1) + r(-1, 1) + 2 * r(0, 1) + r(1, 1)
      let v = -r(-1, 1) - 2 * r(-1, 0) - r(-1, -1) + r(1, 1) + 2 * r(1, 0) + r(1, -1)
      let magnitude = (h * h + v * v).squareRoot()
      let keep: Double = magnitude >= threshold ? 0 : 1
      func posterize(_ value: Double) -> Double { ((value * levels) + 0.5).rounded(.down) / levels }
      return (posterize(c.0) * keep, posterize(c.1) * keep, posterize(c.2) * keep)
    }
  }

  /// Two branching looks in one chain: their pad labels do not collide, and the chain joins a
  /// chain around it with commas.
  @Test func branchingLooksCompose() throws {
    let looks = [Look(name: .toon), Look(name: .invert), Look(name: .toon)]
    let description = "null," + (try LookFilters.rgbChain(looks)) + ",null"
    _ = try Self.apply(description, to: Self.texture)
  }

  // MARK: - The hook

  /// Every look the reader accepts renders, and those it refuses do not. (Kuwahara is a filter
  /// of our own, not a graph description: `LookStage` runs it, `KuwaharaTests` test it.)
  @Test func availableLooksRender() throws {
    for name in LookName.allCases where name != .kuwahara {
      let description = try? LookFilters.rgbChain([Look(name: name)])
      #expect((description != nil) == LookCatalog.available.contains(name), "\(name)")
      if let description {
        _ = try Self.apply(description, to: Self.texture)
      }
    }
  }

  /// The Y'CbCr hook: a limited-range BT.709 picture through `chain` with a look that changes
  /// nothing (brightness 0) comes back within a level of itself, and with invert every R'G'B'
  /// value (converted with the same matrix) is inverted within ±2 levels after both conversions.
  @Test func yuvChainStatesItsMatrix() throws {
    let identity = try LookFilters.chain(
      [Self.look(.brightness, ["brightness": 0])], matrix: "bt709", fullRange: false)
    #expect(identity.hasPrefix("scale=in_color_matrix=bt709:in_range=limited"))
    #expect(identity.hasSuffix("format=yuv420p"))
    let toYUV =
      "scale=out_color_matrix=bt709:out_range=limited:flags=accurate_rnd+full_chroma_int,"
      + "format=yuv444p,"
    let toRGB =
      ",scale=in_color_matrix=bt709:in_range=limited:flags=accurate_rnd+full_chroma_int,"
      + "format=rgb24"
    let solid = Picture(width: 32, height: 16) { x, _ in x < 16 ? (200, 60, 30) : (40, 120, 220) }
    let through = try Self.apply(
      toYUV + identity.replacingOccurrences(of: "yuv420p", with: "yuv444p") + toRGB, to: solid)
    let plain = try Self.apply(toYUV + "null" + toRGB, to: solid)
    for x in [2, 29] { #expect(zip(through[x, 4], plain[x, 4]).allSatisfy { abs($0 - $1) <= 1 }) }
    let inverted = try LookFilters.chain([Look(name: .invert)], matrix: "bt709", fullRange: false)
    let output = try Self.apply(
      toYUV + inverted.replacingOccurrences(of: "yuv420p", with: "yuv444p") + toRGB, to: solid)
    for x in [2, 29] {
      let expected = plain[x, 4].map { 255 - $0 }
      #expect(zip(output[x, 4], expected).allSatisfy { abs($0 - $1) <= 2 }, "\(output[x, 4])")
    }
  }
}

/// The compositor pushes one picture at a time into a graph and pulls its result at once, each
/// with the timestamp 0 (`PictureTransformer`): a branching look (toon: split, blend) must give
/// every picture back that way too, and one graph serves many pictures.
@Suite struct LooksOnePictureAtATimeTests {
  @Test(arguments: [0, 1])
  func everyPictureComesBack(_ step: Int64) throws {
    let description = try LookFilters.rgbChain(
      [Look(name: .toon), Look(name: .pixellate), Look(name: .vignette), Look(name: .sepia)],
      width: 64, height: 48)
    let graph = try FilterGraph(threads: 1)
    let source = try graph.addVideoSource(
      name: "in",
      VideoParameters(
        width: 64, height: 48, pixelFormat: .rgb24, timeBase: Rational(1, 25)!,
        sampleAspectRatio: Rational(1, 1)!, frameRate: Rational(25, 1)!))
    let sink = try graph.addVideoSink(name: "out", pixelFormats: [.rgb24])
    try graph.configure(description)
    for index in 0..<5 {
      let level = UInt8(40 * index)
      let frame = try Frame.video(width: 64, height: 48, pixelFormat: .rgb24)
      for y in 0..<48 {
        frame.withRow(y) { row in for i in 0..<(64 * 3) { row[i] = i < 96 ? level : 200 } }
      }
      frame.pts = Int64(index) * step
      try graph.push(frame, to: source)
      let output = Frame()
      #expect(try graph.pull(from: sink, into: output) == .frame, "picture \(index), step \(step)")
      // The same picture through a graph of its own: the same pixels (this picture's, not a
      // previous one's).
      let picture = LooksTests.Picture(width: 64, height: 48) { x, _ in
        x < 32 ? (level, level, level) : (200, 200, 200)
      }
      let alone = try LooksTests.apply(description, to: picture)
      var pixels: [UInt8] = []
      for y in 0..<48 { output.withRow(y) { pixels += $0.prefix(64 * 3) } }
      #expect(pixels == alone.pixels, "picture \(index), step \(step)")
    }
  }
}
