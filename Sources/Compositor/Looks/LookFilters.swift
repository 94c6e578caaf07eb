import AV
import Composition
import MediaCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Looks as libavfilter graph descriptions: the one place their filter strings exist.
///
/// Each look computes GPUImage's published shader formula on 8-bit R'G'B' (`gbrp`), as GPUImage
/// does on its 8-bit textures: a value v reads as v/255, the result is clamped to 0–1 and
/// written as the nearest level. Where a libavfilter filter computes that same function it is
/// used (`colorchannelmixer` for every linear look, `convolution` for sharpen, `sobel` for the
/// edge looks); where libavfilter's own filter differs (eq's brightness, contrast, saturation
/// and gamma, hue's Cb/Cr rotation, vignette's angle, pixelize's average) the formula is written
/// directly (`lutrgb` for the per-channel curves, `geq` for the positional looks).
///
/// Colour: the looks work on R'G'B' as GPUImage does (gamma-encoded values, no linearisation).
/// `chain(_:matrix:fullRange:)` converts a Y'CbCr picture to full-range R'G'B' with the stated
/// matrix and range (libswscale, `accurate_rnd+full_chroma_int`), applies the looks, and
/// converts back with the same matrix and range, so the picture's colour tags stay true.
package enum LookFilters {
  /// GPUImage's luminance weights (GPUImageSaturationFilter, GPUImageGrayscaleFilter):
  /// 0.2125 R + 0.7154 G + 0.0721 B.
  package static let luminance: [Double] = [0.2125, 0.7154, 0.0721]

  /// GPUImageSepiaFilter's colour matrix (its `init`), rows giving R, G, B.
  package static let sepia: [[Double]] = [
    [0.3588, 0.7044, 0.1368], [0.2990, 0.5870, 0.1140], [0.2392, 0.4696, 0.0912],
  ]

  /// The looks applied in order to 8-bit R'G'B': the description starts with `format=gbrp` and
  /// delivers `gbrp`. Empty looks give `null` (a filter that passes pictures through).
  ///
  /// - Throws: `LookError` for a look this builder cannot render (the reader refuses those
  ///   first: `LookCatalog.available`).
  /// - Parameters:
  ///   - width: the pictures' width, when known (the canvas's): pixellate then takes its fast
  ///     exact route when its blocks are whole pixels (see `pixellate`).
  ///   - height: the pictures' height, when known.
  ///   - labels: the prefix of the pad labels a look that branches (toon) uses inside the
  ///     description (`<labels><n>a`…); the description may then hold `;`, and still joins
  ///     with `,` on both ends to a chain around it.
  package static func rgbChain(
    _ looks: [Look], width: Int? = nil, height: Int? = nil, labels: String = "look"
  ) throws(LookError) -> String {
    guard !looks.isEmpty else { return "null" }
    var filters = ["format=gbrp"]
    let size = width.flatMap { w in height.map { (w, $0) } }
    for (index, look) in looks.enumerated() {
      filters.append(try filter(look, size: size, label: "\(labels)\(index)"))
    }
    return filters.joined(separator: ",")
  }

  /// The looks applied to a Y'CbCr picture: converted to full-range R'G'B' with `matrix`
  /// (libswscale's name: `bt709`, `bt601`, `bt2020`, ...) and its range, the looks applied
  /// (`rgbChain`), converted back with the same matrix and range into `yuv420p`.
  ///
  /// This is the hook the compositor calls: after a segment's `transformFilter` for its
  /// `PlannedSegment.looks`, and on the blended canvas for `CompositionPlan.looks`.
  package static func chain(
    _ looks: [Look], matrix: String, fullRange: Bool, width: Int? = nil, height: Int? = nil,
    labels: String = "look"
  ) throws(LookError) -> String {
    guard !looks.isEmpty else { return "null" }
    let range = fullRange ? "full" : "limited"
    return "scale=in_color_matrix=\(matrix):in_range=\(range):\(flags),"
      + (try rgbChain(looks, width: width, height: height, labels: labels))
      + "," + fromRGB(matrix: matrix, fullRange: fullRange)
  }

  static let flags = "flags=bicubic+accurate_rnd+full_chroma_int"

  /// Y'CbCr (`matrix`, its range) to full-range R'G'B' (`gbrp`), as `chain` converts.
  package static func toRGB(matrix: String, fullRange: Bool) -> String {
    "scale=in_color_matrix=\(matrix):in_range=\(fullRange ? "full" : "limited")"
      + ":\(flags),format=gbrp"
  }

  /// R'G'B' back to Y'CbCr 4:2:0 with `matrix` and its range, as `chain` converts.
  package static func fromRGB(matrix: String, fullRange: Bool) -> String {
    "scale=out_color_matrix=\(matrix):out_range=\(fullRange ? "full" : "limited")"
      + ":\(flags),format=yuv420p"
  }

  /// One look's filters (on `gbrp`, giving `gbrp`).
  static func filter(_ look: Look, size: (width: Int, height: Int)?, label: String)
    throws(LookError) -> String
  {
    func number(_ name: String) -> Double { look.number(name) ?? 0 }
    switch look.name {
    case .brightness:
      // rgb + b
      return curve("val+\(f(255 * number("brightness")))")
    case .contrast:
      // (rgb - 0.5) * c + 0.5
      return curve("(val-127.5)*\(f(number("contrast")))+127.5")
    case .gamma:
      // pow(rgb, g)
      return curve("255*pow(val/255,\(f(number("gamma"))))")
    case .exposure:
      // rgb * 2^e
      return curve("val*\(f(pow2(number("exposure"))))")
    case .invert:
      // 1 - rgb
      return curve("255-val")
    case .saturation:
      // mix(L, rgb, s), L = rgb · W
      let s = number("saturation")
      let m = (0..<3).map { r in
        (0..<3).map { c in (1 - s) * luminance[c] + (r == c ? s : 0) }
      }
      return mixer(m, offset: [0, 0, 0])
    case .grayscale:
      return mixer([luminance, luminance, luminance], offset: [0, 0, 0])
    case .hue:
      return mixer(hueMatrix(degrees: number("hue")), offset: [0, 0, 0])
    case .sepia:
      return mixer(blend(sepia, intensity: number("intensity")), offset: [0, 0, 0])
    case .colorMatrix:
      let rows = look.matrix("color_matrix") ?? [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
      let intensity = number("intensity")
      // A 4×4 matrix's fourth column multiplies A = 1 (our pictures are opaque): an offset.
      var offset = Array((look.vector("offset") ?? [0, 0, 0]).prefix(3))
      if rows.count == 4 { offset = (0..<3).map { offset[$0] + rows[$0][3] } }
      let m = blend(rows.prefix(3).map { Array($0.prefix(3)) }, intensity: intensity)
      return mixer(m, offset: offset.map { $0 * intensity })
    case .pixellate:
      if let size,
        let fast = pixellate(
          fraction: number("fractional_width_of_pixel"), width: size.width, height: size.height)
      {
        return fast
      }
      // samplePos = coord - mod(coord, d) + d/2, d = fractional width (square blocks of
      // f·W pixels), read with GL_LINEAR at that position: texel (k + 0.5)·B - 0.5.
      let block = "(\(f(number("fractional_width_of_pixel")))*W)"
      let x = "(floor((X+0.5)/\(block))+0.5)*\(block)-0.5"
      let y = "(floor((Y+0.5)/\(block))+0.5)*\(block)-0.5"
      return "geq=interpolation=nearest:"
        + ["r", "g", "b"].map { "\($0)='\(linearRead($0, x: x, y: y))'" }.joined(separator: ":")
    case .vignette:
      // percent = smoothstep(start, end, distance(coord, center)); mix(rgb, color, percent)
      let center = look.vector("center") ?? [0.5, 0.5]
      let color = look.color("color") ?? .black
      let (start, end) = (number("start"), number("end"))
      let d = "hypot((X+0.5)/W-\(f(center[0])),(Y+0.5)/H-\(f(center[1])))"
      // t and smoothstep's t²(3 − 2t) once per expression (st/ld), not three times.
      let p =
        "st(0,clip((\(d)-\(f(start)))/\(f(end - start)),0,1));st(1,ld(0)*ld(0)*(3-2*ld(0)));"
      if let size {
        // The size known: the mix as an overlay of the colour whose alpha is the percent,
        // computed once (a one-frame `color` source; overlay repeats its last frame), then
        // per picture overlay's blend: (c·(255 − a) + C·a)/255 rounded, a = round(255·p) (at
        // most a level from the formula).
        let (main, mask) = ("\(label)m", "\(label)v")
        return "null[\(main)];color=s=\(size.width)x\(size.height):r=1:d=1,format=gbrap,"
          + "geq=r='\(color.red)':g='\(color.green)':b='\(color.blue)'"
          + ":a='\(p)clip(round(255*ld(1)),0,255)'[\(mask)];"
          + "[\(main)][\(mask)]overlay=format=gbrp:eof_action=repeat"
      }
      func channel(_ name: String, _ value: UInt8) -> String {
        "\(name)='\(p)clip(round(\(name)(X,Y)+(\(value)-\(name)(X,Y))*ld(1)),0,255)'"
      }
      // Reads at whole coordinates: nearest (5.1's bilinear reads column W−2 at W−1).
      return "geq=interpolation=nearest:"
        + [
          channel("r", color.red), channel("g", color.green), channel("b", color.blue),
        ].joined(separator: ":")
    case .sharpen:
      // c·(1+4s) − s·(l+r+t+b), each neighbour one texel away; integer taps over rdiv.
      let s = number("sharpness")
      let denominator = 1000
      let edge = Int((s * Double(denominator)).rounded())
      let centre = denominator + 4 * edge
      let matrix = "0 \(-edge) 0 \(-edge) \(centre) \(-edge) 0 \(-edge) 0"
      let rdiv = f(1 / Double(denominator))
      return "convolution="
        + (0..<3).map { "\($0)m='\(matrix)':\($0)rdiv=\(rdiv):\($0)bias=0" }.joined(
          separator: ":")
    case .sobel, .sketch:
      // Luminance pass rounded to 8 bits, as GPUImage's framebuffer holds it (geq: exact;
      // colorchannelmixer rounds each of its three terms, and the Sobel taps multiply that
      // error past 2 levels), then length(h, v)·edge_strength rounded (delta 0.5: sobel
      // truncates); sketch is 1 − that.
      let strength = number("edge_strength")
      let l = "round(\(f(luminance[0]))*r(X,Y)+\(f(luminance[1]))*g(X,Y)+\(f(luminance[2]))*b(X,Y))"
      let gray = "geq=interpolation=nearest:r='\(l)':g='\(l)':b='\(l)'"
      let edges = "\(gray),sobel=planes=7:scale=\(f(strength)):delta=0.5"
      return look.name == .sobel ? edges : edges + "," + curve("255-val")
    case .gaussianBlur:
      return gaussianBlur(sigma: number("blur_radius_in_pixels"))
    case .swirl:
      // dist = distance(center, coord); inside radius the offset from the centre turns by
      // θ = ((radius − dist)/radius)²·angle·8; read with GL_LINEAR there (clamped to the edge).
      let center = look.vector("center") ?? [0.5, 0.5]
      let (radius, angle) = (number("radius"), number("angle"))
      let (cx, cy) = (f(center[0]), f(center[1]))
      let setup =
        "st(0,(X+0.5)/W-\(cx));st(1,(Y+0.5)/H-\(cy));st(2,hypot(ld(0),ld(1)));"
        + "st(3,if(lt(ld(2),\(f(radius))),pow((\(f(radius))-ld(2))/\(f(radius)),2)*\(f(angle))*8,0));"
      let x = "(ld(0)*cos(ld(3))-ld(1)*sin(ld(3))+\(cx))*W-0.5"
      let y = "(ld(0)*sin(ld(3))+ld(1)*cos(ld(3))+\(cy))*H-0.5"
      return "geq=interpolation=nearest:"
        + ["r", "g", "b"].map { "\($0)='\(setup)\(linearRead($0, x: x, y: y))'" }
        .joined(separator: ":")
    case .toon:
      // posterized = floor(rgb·q + 0.5)/q; black where length(h, v) of the 3×3 Sobel on R
      // reaches threshold: two branches (split), the mask (R copied to every plane, sobel,
      // a threshold curve to 255 or 0) multiplied into the posterized picture (blend multiply
      // on 8 bits: a·255/255 = a, a·0 = 0).
      let q = f(number("quantization_levels"))
      // 255·threshold mapped to 128 by sobel's scale, so its whole-number output is under 128
      // exactly when length(h, v) is under the threshold (no rounding at the edge).
      let threshold = max(number("threshold") * 255, 128.0 / 65535)
      let (a, b, m, p) = ("\(label)a", "\(label)b", "\(label)m", "\(label)p")
      let mask =
        number("threshold") == 0
        ? curve("0")
        : "colorchannelmixer=rr=1:rg=0:rb=0:gr=1:gg=0:gb=0:br=1:bg=0:bb=0,"
          + "sobel=planes=7:scale=\(f(128 / threshold)):delta=0,"
          + curve("if(lt(val,128),255,0)")
      return "split[\(a)][\(b)];[\(b)]\(mask)[\(m)];"
        + "[\(a)]\(curve("255*floor(val/255*\(q)+0.5)/\(q)"))[\(p)];"
        + "[\(p)][\(m)]blend=all_mode=multiply"
    case .kuwahara:
      throw LookError(look: look.name)
    case .expression:
      return expression(look)
    }
  }

  /// The `expression` look as `geq` on R'G'B': each channel's expression with the variables
  /// written as geq's (r → r(X,Y)/255, x → (X+0.5)/W, w → W, t → T: the picture's timestamp),
  /// the result clamped to 0–1 and written as the nearest level.
  static func expression(_ look: Look) -> String {
    let replacements = [
      "r": "(r(X,Y)/255)", "g": "(g(X,Y)/255)", "b": "(b(X,Y)/255)", "x": "((X+0.5)/W)",
      "y": "((Y+0.5)/H)", "w": "W", "h": "H", "t": "T",
    ]
    return "geq=interpolation=nearest:"
      + ["r", "g", "b"].map { channel in
        let text = look.expression(channel) ?? channel
        return "\(channel)='clip(round(255*(\(LookExpression.rewrite(text, replacements)))),0,255)'"
      }.joined(separator: ":")
  }

  /// Parses each `expression` look's expressions with libavfilter (`geq` configured on a
  /// 2×2 picture), so one it cannot read is named before anything renders.
  ///
  /// - Throws: `CompositionError.invalidComposition` naming `<path>.r` (or `.g`, `.b`).
  package static func checkExpressions(_ looks: [Look], path: String) throws(CompositionError) {
    for (index, look) in looks.enumerated() where look.name == .expression {
      for channel in ["r", "g", "b"] {
        var single = Look(name: .expression)
        single.parameters[channel] = look.parameters[channel]
        let description = "color=s=2x2:d=0.04,format=gbrp," + expression(single)
        do throws(FFmpegError) {
          let graph = try FilterGraph(threads: 1)
          let sink = try graph.addVideoSink(name: "out", pixelFormats: [.gbrp])
          try graph.configure(description + "[out]")
          _ = try graph.pull(from: sink, into: Frame())
        } catch {
          throw .invalidComposition(
            location: "\(path)[\(index)].\(channel)",
            message: "\"\(look.expression(channel) ?? channel)\" is not an expression libavutil "
              + "reads (\(error.message.components(separatedBy: " in the graph").first ?? ""))")
        }
      }
    }
  }

  /// GPUImageGaussianBlurFilter: σ = blur_radius_in_pixels rounded (it does only whole σ);
  /// taps out to the radius where a weight falls under 1/256 (rounded up to even), normalised
  /// over those taps; a vertical pass then a horizontal one, the picture held in 8 bits in
  /// between (GPUImage's intermediate framebuffer). As two `convolution` passes (column, row)
  /// with integer taps over 2^16 (`rdiv`), each rounded to the nearest level.
  static func gaussianBlur(sigma value: Double) -> String {
    let taps = gaussianTaps(sigma: value)
    guard taps.count > 1 else { return "null" }
    let matrix = taps.map { String(Int(($0 * 65536).rounded())) }.joined(separator: " ")
    let rdiv = f(1 / 65536)
    func pass(_ mode: String) -> String {
      "convolution="
        + (0..<3).map { "\($0)m='\(matrix)':\($0)rdiv=\(rdiv):\($0)bias=0:\($0)mode=\(mode)" }
        .joined(separator: ":")
    }
    return pass("column") + "," + pass("row")
  }

  /// GPUImage's normalised Gaussian weights for `sigma` (rounded to a whole number), from −radius
  /// to radius; a single 1 when σ rounds to 0.
  package static func gaussianTaps(sigma value: Double) -> [Double] {
    let sigma = value.rounded()
    guard sigma >= 1 else { return [1] }
    var radius = Int(
      (-2 * sigma * sigma * log(1.0 / 256 * (2 * Double.pi * sigma * sigma).squareRoot()))
        .squareRoot().rounded(.down))
    radius += radius % 2
    let weights = (-radius...radius).map { i in
      exp(-Double(i * i) / (2 * sigma * sigma)) / (2 * Double.pi * sigma * sigma).squareRoot()
    }
    let sum = weights.reduce(0, +)
    return weights.map { $0 / sum }
  }

  /// Pixellate when its block B = fraction·width is a whole number of pixels (1 % of `geq`'s
  /// cost or less): the texel each block reads is (k + 0.5)·B − 0.5 — a pixel when B is odd, the
  /// mean of two (per axis) when even (GL_LINEAR halfway). The picture is padded to whole
  /// blocks with its last row and column repeated (GL's clamp to edge), an even B's 2×2 means
  /// stored at their right/bottom pixel (`convolution`, rounded), the centre pixel of each
  /// block picked (`scale` by 1/B, `neighbor` with full-resolution chroma positions: exact
  /// for a whole ratio, measured) and repeated over the block (`scale` by B), then cropped
  /// back. Nil when B is not whole (`geq` then).
  static func pixellate(fraction: Double, width: Int, height: Int) -> String? {
    let exact = fraction * Double(width)
    let block = Int(exact.rounded())
    guard block >= 1, abs(exact - Double(block)) < 1e-6 else { return nil }
    let paddedWidth = (width + block - 1) / block * block
    let paddedHeight = (height + block - 1) / block * block
    let flags = "flags=neighbor+full_chroma_int+full_chroma_inp+accurate_rnd"
    var filters = [
      "pad=\(paddedWidth):\(paddedHeight):0:0",
      "fillborders=right=\(paddedWidth - width):bottom=\(paddedHeight - height):mode=smear",
    ]
    if block % 2 == 0 {
      let mean = "1 1 0 1 1 0 0 0 0"
      filters.append(
        "convolution="
          + (0..<3).map { "\($0)m='\(mean)':\($0)rdiv=0.25:\($0)bias=0" }.joined(separator: ":"))
    }
    filters += [
      "scale=\(paddedWidth / block):\(paddedHeight / block):\(flags)",
      "scale=\(paddedWidth):\(paddedHeight):\(flags)",
      "crop=\(width):\(height):0:0",
    ]
    return filters.joined(separator: ",")
  }

  /// A `geq` expression reading `channel` at texel coordinates (`x`, `y`) as GL_LINEAR with
  /// CLAMP_TO_EDGE does, rounded to a level. Written out from `nearest` reads (which clamp to
  /// the picture): 5.1's own bilinear read clamps the coordinate to W−2 and H−2, so it never
  /// reaches the last column or row (measured: r(W−1, 0) gives column W−2's value). Uses
  /// `st`/`ld` slots 4–9 (libavutil's expressions have ten: 0–9).
  static func linearRead(_ channel: String, x: String, y: String) -> String {
    "st(4,clip(\(x),0,W-1));st(5,clip(\(y),0,H-1));st(6,floor(ld(4)));st(7,floor(ld(5)));"
      + "st(8,ld(4)-ld(6));st(9,ld(5)-ld(7));"
      + "clip(round((1-ld(9))*((1-ld(8))*\(channel)(ld(6),ld(7))"
      + "+ld(8)*\(channel)(ld(6)+1,ld(7)))"
      + "+ld(9)*((1-ld(8))*\(channel)(ld(6),ld(7)+1)+ld(8)*\(channel)(ld(6)+1,ld(7)+1))),0,255)"
  }

  /// The same expression of `val` on R, G and B, rounded and clamped (`lutrgb`).
  static func curve(_ expression: String) -> String {
    let e = "clip(round(\(expression)),0,255)"
    return "lutrgb=r='\(e)':g='\(e)':b='\(e)'"
  }

  /// `colorchannelmixer` with rows `m` (giving R, G, B from R, G, B) and a constant `offset`
  /// (0–1 scale) added before the one clamp: carried by an opaque alpha plane (A = 255, its
  /// gains `ra`, `ga`, `ba` = the offset) so nothing is clamped in between.
  static func mixer(_ m: [[Double]], offset: [Double]) -> String {
    let names = ["r", "g", "b"]
    var options: [String] = []
    for (r, row) in m.enumerated() {
      for (c, value) in row.enumerated() { options.append("\(names[r])\(names[c])=\(f(value))") }
    }
    guard offset.contains(where: { $0 != 0 }) else {
      return "colorchannelmixer=" + options.joined(separator: ":")
    }
    for (r, value) in offset.enumerated() { options.append("\(names[r])a=\(f(value))") }
    options.append("aa=1")
    return "format=gbrap,colorchannelmixer=" + options.joined(separator: ":") + ",format=gbrp"
  }

  /// `intensity·M + (1 − intensity)·I` (GPUImageColorMatrixFilter's mix with the input).
  static func blend(_ m: [[Double]], intensity: Double) -> [[Double]] {
    (0..<3).map { r in
      (0..<3).map { c in intensity * m[r][c] + (r == c ? 1 - intensity : 0) }
    }
  }

  /// GPUImageHueFilter as one matrix: R'G'B' → YIQ (its constants), the IQ plane turned by
  /// −hue (its `hue += -hueAdjust`, hueAdjust = fmod(hue, 360) in radians), YIQ → R'G'B'. The
  /// shader's atan/length/sin/cos round trip is this rotation, so the look is linear.
  package static func hueMatrix(degrees: Double) -> [[Double]] {
    let toYIQ: [[Double]] = [
      [0.299, 0.587, 0.114], [0.595716, -0.274453, -0.321263], [0.211456, -0.522591, 0.31135],
    ]
    let toRGB: [[Double]] = [[1, 0.9563, 0.6210], [1, -0.2721, -0.6474], [1, -1.1070, 1.7046]]
    let h = degrees.truncatingRemainder(dividingBy: 360) * Double.pi / 180
    // I' = I cos h + Q sin h, Q' = Q cos h − I sin h.
    let rotation: [[Double]] = [[1, 0, 0], [0, cos(h), sin(h)], [0, -sin(h), cos(h)]]
    return multiply(toRGB, multiply(rotation, toYIQ))
  }

  static func multiply(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
    (0..<3).map { r in (0..<3).map { c in (0..<3).reduce(0) { $0 + a[r][$1] * b[$1][c] } } }
  }

  static func pow2(_ x: Double) -> Double { pow(2, x) }

  /// A number as libavutil's expression parser and option parser read it back exactly: Swift's
  /// shortest round-tripping decimal (`0.1`, `1e-05`).
  static func f(_ value: Double) -> String {
    let text = "\(value == 0 ? 0 : value)"
    return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
  }
}

/// A look the graph builder cannot render yet.
package struct LookError: Error, Sendable, CustomStringConvertible {
  /// The look.
  package var look: LookName
  package var description: String { "the look \(look.rawValue) cannot be rendered yet" }
}
