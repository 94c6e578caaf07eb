import MediaCore

/// The name of a look: a GPUImage filter in snake_case (`GPUImageSepiaFilter` → `sepia`,
/// `GPUImageColorInvertFilter` → `invert`).
public enum LookName: String, Codable, Sendable, CaseIterable {
  /// GPUImageBrightnessFilter: rgb + brightness.
  case brightness
  /// GPUImageContrastFilter: (rgb − 0.5)·contrast + 0.5.
  case contrast
  /// GPUImageSaturationFilter: mix(luminance, rgb, saturation).
  case saturation
  /// GPUImageGammaFilter: rgb^gamma.
  case gamma
  /// GPUImageExposureFilter: rgb·2^exposure.
  case exposure
  /// GPUImageHueFilter: the hue turned in YIQ.
  case hue
  /// GPUImageSepiaFilter: its colour matrix mixed in by intensity.
  case sepia
  /// GPUImageGrayscaleFilter: the luminance in every channel.
  case grayscale
  /// GPUImageColorInvertFilter: 1 − rgb.
  case invert
  /// GPUImageColorMatrixFilter: a 3×3 or 4×4 matrix (and an offset) mixed in by intensity.
  case colorMatrix = "color_matrix"
  /// GPUImagePixellateFilter: square blocks showing the colour at their centre.
  case pixellate
  /// GPUImageVignetteFilter: the edges faded to a colour (smoothstep of the distance).
  case vignette
  /// GPUImageSharpenFilter: the centre against its four neighbours.
  case sharpen
  /// GPUImageSobelEdgeDetectionFilter: the luminance's gradient length.
  case sobel
  /// GPUImageSketchFilter: 1 − the Sobel value.
  case sketch
  /// GPUImageGaussianBlurFilter: a separable Gaussian of σ pixels.
  case gaussianBlur = "gaussian_blur"
  /// GPUImageToonFilter: posterised, black where R's gradient reaches the threshold.
  case toon
  /// GPUImageSwirlFilter: the picture turned around a centre, more near it.
  case swirl
  /// GPUImageKuwaharaFilter: the mean of the least-varied quadrant.
  case kuwahara
  /// A custom look, as a custom shader: each of R, G, B given by an expression of the pixel's
  /// r, g, b (0–1), its place x, y (0–1, at pixel centres), the picture's w, h and the time t.
  case expression

  /// Reads the name, listing the known ones when it is not one of them.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let name = try container.decode(String.self)
    guard let look = LookName(rawValue: name) else {
      throw DecodingError.dataCorruptedError(
        in: container,
        debugDescription: "unknown look \"\(name)\" (known: "
          + LookName.allCases.map(\.rawValue).joined(separator: ", ") + ")")
    }
    self = look
  }
}

/// A parameter's value as the document writes it.
public enum LookValue: Codable, Sendable, Equatable {
  /// A number (exact, as every number of a composition document).
  case number(ExactNumber)
  /// A list of numbers: a point `[x, y]` or a colour matrix's offset.
  case vector([ExactNumber])
  /// Rows of numbers: a colour matrix.
  case matrix([[ExactNumber]])
  /// A colour `#rrggbb`.
  case color(Color)
  /// Text: an expression (`"r*0.5 + x/4"`).
  case text(String)

  /// Reads a number, a list of numbers, a list of lists of numbers, a colour or a text (a
  /// string that is neither a colour nor an exact number).
  public init(from decoder: any Decoder) throws {
    if let strict = decoder as? StrictJSONDecoder {
      switch strict.value.kind {
      case .number: self = .number(try strict.decode(ExactNumber.self))
      case .string(let text):
        if let color = Color(parsing: text) {
          self = .color(color)
        } else if ExactNumber.parse(text) != nil {
          self = .number(try strict.decode(ExactNumber.self))
        } else {
          self = .text(text)
        }
      case .array(let items):
        if items.contains(where: { if case .array = $0.kind { true } else { false } }) {
          self = .matrix(try strict.decode([[ExactNumber]].self))
        } else {
          self = .vector(try strict.decode([ExactNumber].self))
        }
      default:
        throw strict.typeError(expected: "a number, a list of numbers, rows of numbers or a colour")
      }
      return
    }
    let container = try decoder.singleValueContainer()
    if let text = try? container.decode(String.self), let color = Color(parsing: text) {
      self = .color(color)
    } else if let text = try? container.decode(String.self), ExactNumber.parse(text) == nil {
      self = .text(text)
    } else if let number = try? container.decode(ExactNumber.self) {
      self = .number(number)
    } else if let vector = try? container.decode([ExactNumber].self) {
      self = .vector(vector)
    } else {
      self = .matrix(try container.decode([[ExactNumber]].self))
    }
  }

  /// Writes the value as it was read.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .number(let number): try container.encode(number)
    case .vector(let vector): try container.encode(vector)
    case .matrix(let rows): try container.encode(rows)
    case .color(let color): try container.encode(color)
    case .text(let text): try container.encode(text)
    }
  }

  /// The value as a decimal, when it is a number.
  public var doubleValue: Double? {
    if case .number(let number) = self { return number.doubleValue }
    return nil
  }
}

/// One look (a GPU filter) on a clip or on the whole composition: `{"name": "sepia",
/// "intensity": 0.8}`. The parameters carry GPUImage's names in snake_case; what a look leaves
/// out keeps GPUImage's default (filled in by `resolved()`, which the plan holds). The reader
/// refuses an unknown name, an unknown parameter, a value of the wrong shape or out of its range
/// (`LookCatalog`).
public struct Look: Codable, Sendable, Equatable {
  /// Which filter.
  public var name: LookName
  /// Its parameters by their snake_case names.
  public var parameters: [String: LookValue]

  /// A look.
  public init(name: LookName, parameters: [String: LookValue] = [:]) {
    self.name = name
    self.parameters = parameters
  }

  private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  /// Reads `{"name": …, parameter: value, …}`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Key.self)
    name = try container.decode(LookName.self, forKey: Key(stringValue: "name"))
    var parameters: [String: LookValue] = [:]
    for key in container.allKeys where key.stringValue != "name" {
      parameters[snakeCase(key.stringValue)] = try container.decode(LookValue.self, forKey: key)
    }
    self.parameters = parameters
  }

  /// Writes `{"name": …, parameter: value, …}` with exactly the parameters it holds.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Key.self)
    try container.encode(name, forKey: Key(stringValue: "name"))
    for (key, value) in parameters.sorted(by: { $0.key < $1.key }) {
      try container.encode(value, forKey: Key(stringValue: key))
    }
  }

  /// A number parameter's value (the default when left out); nil when the look has no such
  /// number.
  public func number(_ parameter: String) -> Double? {
    if let value = parameters[parameter]?.doubleValue { return value }
    return LookCatalog.parameters(of: name).first { $0.name == parameter }?.defaultValue
      .doubleValue
  }

  /// A list parameter's values (the default when left out).
  public func vector(_ parameter: String) -> [Double]? {
    let value =
      parameters[parameter]
      ?? LookCatalog.parameters(of: name).first { $0.name == parameter }?.defaultValue
    if case .vector(let numbers) = value { return numbers.map(\.doubleValue) }
    return nil
  }

  /// A matrix parameter's rows (the default when left out).
  public func matrix(_ parameter: String) -> [[Double]]? {
    let value =
      parameters[parameter]
      ?? LookCatalog.parameters(of: name).first { $0.name == parameter }?.defaultValue
    if case .matrix(let rows) = value { return rows.map { $0.map(\.doubleValue) } }
    return nil
  }

  /// An expression parameter's text (the default when left out; a number as its decimal).
  public func expression(_ parameter: String) -> String? {
    let value =
      parameters[parameter]
      ?? LookCatalog.parameters(of: name).first { $0.name == parameter }?.defaultValue
    switch value {
    case .text(let text): return text
    case .number(let number): return "(\(number.numerator)/\(number.denominator))"
    default: return nil
    }
  }

  /// A colour parameter's value (the default when left out).
  public func color(_ parameter: String) -> Color? {
    let value =
      parameters[parameter]
      ?? LookCatalog.parameters(of: name).first { $0.name == parameter }?.defaultValue
    if case .color(let color) = value { return color }
    return nil
  }

  /// The look with every parameter it leaves out set to its default (what the plan holds).
  public func resolved() -> Look {
    var all = parameters
    for parameter in LookCatalog.parameters(of: name) where all[parameter.name] == nil {
      all[parameter.name] = parameter.defaultValue
    }
    return Look(name: name, parameters: all)
  }

  /// Checks the parameters against `LookCatalog`: known names, the right shape, within range;
  /// and that the look can be rendered (`LookCatalog.available`).
  ///
  /// - Throws: `CompositionError.invalidComposition` naming `path` and the parameter.
  /// - Parameter allowsTime: false for a clip's looks: an expression there may not use `t`.
  public func validate(path: String, allowsTime: Bool = true) throws(CompositionError) {
    func fail(_ location: String, _ message: String) -> CompositionError {
      .invalidComposition(location: location, message: message)
    }
    guard LookCatalog.available.contains(name) else {
      throw fail(
        "\(path).name",
        "the look \"\(name.rawValue)\" is not available yet (available: "
          + LookName.allCases.filter { LookCatalog.available.contains($0) }.map(\.rawValue)
          .joined(separator: ", ") + ")")
    }
    let specs = LookCatalog.parameters(of: name)
    for (key, value) in parameters.sorted(by: { $0.key < $1.key }) {
      let location = "\(path).\(key)"
      guard let spec = specs.first(where: { $0.name == key }) else {
        throw fail(
          location,
          "unknown parameter of \(name.rawValue) ("
            + (specs.isEmpty
              ? "it has none" : "its parameters are: \(specs.map(\.name).joined(separator: ", "))")
            + ")")
      }
      try spec.check(value, location: location)
    }
    if name == .expression, !allowsTime {
      for channel in ["r", "g", "b"] {
        if case .text(let text) = parameters[channel],
          let problem = LookExpression.problem(in: text, allowsTime: false)
        {
          throw fail("\(path).\(channel)", problem)
        }
      }
    }
    if name == .vignette, let start = number("start"), let end = number("end"), start >= end {
      throw fail("\(path).start", "start (\(start)) must be less than end (\(end))")
    }
    if name == .colorMatrix, let rows = matrix("color_matrix") {
      // The constant each channel gets (a 4×4's fourth column, A = 1, plus the offset) rides
      // on libavfilter colorchannelmixer's alpha gain, limited to −2…2 like its other gains.
      let offset = vector("offset") ?? [0, 0, 0]
      for channel in 0..<3 {
        let constant = (rows.count == 4 ? rows[channel][3] : 0) + offset[channel]
        guard abs(constant) <= 2 else {
          throw fail(
            "\(path).offset",
            "channel \(channel)'s constant (the matrix's fourth column plus the offset) is "
              + "\(constant), out of range (-2 to 2)")
        }
      }
    }
  }
}

/// A look's parameter: its name, shape, range and default (GPUImage's).
public struct LookParameter: Sendable {
  /// What a parameter holds.
  public enum Shape: Sendable {
    /// A number from `minimum` to `maximum` (more than `minimum` when `exclusiveMinimum`).
    case number(minimum: Double, maximum: Double, exclusiveMinimum: Bool = false)
    /// A whole number from `minimum` to `maximum`.
    case integer(minimum: Int, maximum: Int)
    /// A point `[x, y]`, each from 0 to 1 (texture coordinates: 0 is the left or top edge).
    case point
    /// A colour `#rrggbb`.
    case color
    /// A 3×3 or 4×4 matrix, each entry from `-bound` to `bound`.
    case matrix(bound: Double)
    /// 3 or 4 numbers, each from `-bound` to `bound`.
    case vector(bound: Double)
    /// An expression (libavutil's syntax) of the variables `LookExpression.variables`, or a
    /// number.
    case expression
  }

  /// The snake_case name.
  public var name: String
  /// What it holds.
  public var shape: Shape
  /// Its value when left out.
  public var defaultValue: LookValue
  /// What it means, in words (the man page's table).
  public var meaning: String

  /// The range in words: `-1 to 1`.
  public var rangeText: String {
    switch shape {
    case .number(let minimum, let maximum, let exclusive):
      "\(exclusive ? "more than " : "")\(format(minimum)) to \(format(maximum))"
    case .integer(let minimum, let maximum): "\(minimum) to \(maximum), whole"
    case .point: "[x, y], each 0 to 1"
    case .color: "#rrggbb"
    case .matrix(let bound): "3×3 or 4×4, entries -\(format(bound)) to \(format(bound))"
    case .vector(let bound): "3 or 4 numbers, -\(format(bound)) to \(format(bound))"
    case .expression: "an expression of r, g, b, x, y, w, h, t"
    }
  }

  private func format(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(value)
  }

  func check(_ value: LookValue, location: String) throws(CompositionError) {
    func fail(_ message: String) -> CompositionError {
      .invalidComposition(location: location, message: message)
    }
    switch (shape, value) {
    case (.number(let minimum, let maximum, let exclusive), .number(let number)):
      let x = number.doubleValue
      guard (exclusive ? x > minimum : x >= minimum), x <= maximum else {
        throw fail("\(number) is out of range (\(rangeText))")
      }
    case (.integer(let minimum, let maximum), .number(let number)):
      guard number.denominator == 1, number.numerator >= minimum, number.numerator <= maximum
      else { throw fail("\(number) is out of range (\(rangeText))") }
    case (.point, .vector(let numbers)):
      guard numbers.count == 2, numbers.allSatisfy({ $0 >= .zero && $0 <= .one }) else {
        throw fail("expected a point [x, y], each 0 to 1")
      }
    case (.color, .color): break
    case (.expression, .number): break
    case (.expression, .text(let text)):
      if let problem = LookExpression.problem(in: text) { throw fail(problem) }
    case (.matrix(let bound), .matrix(let rows)):
      guard rows.count == 3 || rows.count == 4, rows.allSatisfy({ $0.count == rows.count })
      else { throw fail("expected a 3×3 or 4×4 matrix (rows of numbers)") }
      for (r, row) in rows.enumerated() {
        for (c, entry) in row.enumerated() where abs(entry.doubleValue) > bound {
          throw .invalidComposition(
            location: "\(location)[\(r)][\(c)]", message: "\(entry) is out of range (\(rangeText))")
        }
      }
    case (.vector(let bound), .vector(let numbers)):
      guard numbers.count == 3 || numbers.count == 4 else {
        throw fail("expected 3 or 4 numbers")
      }
      for (i, entry) in numbers.enumerated() where abs(entry.doubleValue) > bound {
        throw .invalidComposition(
          location: "\(location)[\(i)]", message: "\(entry) is out of range (\(rangeText))")
      }
    default:
      let expected =
        switch shape {
        case .number, .integer: "a number"
        case .point: "a point [x, y]"
        case .color: "a colour #rrggbb"
        case .matrix: "a matrix (rows of numbers)"
        case .vector: "a list of numbers"
        case .expression: "an expression (a string) or a number"
        }
      throw fail("expected \(expected)")
    }
  }
}

/// Every look's parameters with GPUImage's names (snake_case), ranges and defaults
/// (`BradLarson/GPUImage framework/Source/GPUImage<Name>Filter.m`: the defaults its `init`
/// sets, the ranges its headers and example app state), and which looks can be rendered.
public enum LookCatalog {
  /// The looks the renderer can apply (the others are refused by the reader, naming these).
  public static let available: Set<LookName> = [
    .brightness, .contrast, .saturation, .gamma, .exposure, .hue, .sepia, .grayscale, .invert,
    .colorMatrix, .pixellate, .vignette, .sharpen, .sobel, .sketch, .gaussianBlur, .swirl,
    .toon, .expression, .kuwahara,
  ]

  private static func n(_ value: Double) -> LookValue {
    // Every default is a short decimal: exact.
    .number(ExactNumber.parse(String(value)) ?? .zero)
  }

  /// The parameters of `look`.
  public static func parameters(of look: LookName) -> [LookParameter] {
    switch look {
    case .brightness:
      [
        LookParameter(
          name: "brightness", shape: .number(minimum: -1, maximum: 1), defaultValue: n(0),
          meaning: "added to each of R, G, B")
      ]
    case .contrast:
      [
        LookParameter(
          name: "contrast", shape: .number(minimum: 0, maximum: 4), defaultValue: n(1),
          meaning: "scales each of R, G, B around 0.5")
      ]
    case .saturation:
      [
        LookParameter(
          name: "saturation", shape: .number(minimum: 0, maximum: 2), defaultValue: n(1),
          meaning: "0 is the luminance (grey), 1 the picture, 2 twice as far from grey")
      ]
    case .gamma:
      [
        LookParameter(
          name: "gamma", shape: .number(minimum: 0, maximum: 3), defaultValue: n(1),
          meaning: "each of R, G, B raised to this power (more than 1 darkens)")
      ]
    case .exposure:
      [
        LookParameter(
          name: "exposure", shape: .number(minimum: -10, maximum: 10), defaultValue: n(0),
          meaning: "stops: each of R, G, B multiplied by 2^exposure")
      ]
    case .hue:
      [
        LookParameter(
          name: "hue", shape: .number(minimum: -360, maximum: 360), defaultValue: n(90),
          meaning: "degrees the hue turns (in YIQ; GPUImage's sense, clockwise on the IQ plane)")
      ]
    case .sepia:
      [
        LookParameter(
          name: "intensity", shape: .number(minimum: 0, maximum: 1), defaultValue: n(1),
          meaning: "how much of the sepia matrix's result replaces the picture")
      ]
    case .grayscale, .invert: []
    case .colorMatrix:
      [
        LookParameter(
          name: "color_matrix", shape: .matrix(bound: 2),
          defaultValue: .matrix(
            (0..<4).map { r in (0..<4).map { c in r == c ? ExactNumber.one : .zero } }),
          meaning: "row i gives output channel i from (R, G, B[, A=1])"),
        LookParameter(
          name: "offset", shape: .vector(bound: 2), defaultValue: .vector([.zero, .zero, .zero]),
          meaning: "added to (R, G, B) after the matrix (0 to 1 scale)"),
        LookParameter(
          name: "intensity", shape: .number(minimum: 0, maximum: 1), defaultValue: n(1),
          meaning: "how much of the matrix's result replaces the picture"),
      ]
    case .pixellate:
      [
        LookParameter(
          name: "fractional_width_of_pixel",
          shape: .number(minimum: 0, maximum: 1, exclusiveMinimum: true),
          defaultValue: n(0.05),
          meaning: "square blocks this fraction of the picture's width, each showing the colour "
            + "at its centre")
      ]
    case .vignette:
      [
        LookParameter(
          name: "center", shape: .point, defaultValue: .vector([n(0.5), n(0.5)].map(exact)),
          meaning: "the centre, in texture coordinates"),
        LookParameter(
          name: "color", shape: .color, defaultValue: .color(.black),
          meaning: "the colour the edges fade to"),
        LookParameter(
          name: "start", shape: .number(minimum: 0, maximum: 2), defaultValue: n(0.3),
          meaning: "distance (per-axis normalised) where the fade starts"),
        LookParameter(
          name: "end", shape: .number(minimum: 0, maximum: 2), defaultValue: n(0.75),
          meaning: "distance where the colour is reached"),
      ]
    case .sharpen:
      [
        LookParameter(
          name: "sharpness", shape: .number(minimum: -4, maximum: 4), defaultValue: n(0),
          meaning: "c(1+4s) − s(left+right+top+bottom)")
      ]
    case .sobel, .sketch:
      [
        LookParameter(
          name: "edge_strength", shape: .number(minimum: 0, maximum: 10), defaultValue: n(1),
          meaning: "the gradient's length (3×3 Sobel on the luminance) is multiplied by this")
      ]
    case .gaussianBlur:
      [
        LookParameter(
          name: "blur_radius_in_pixels", shape: .number(minimum: 0, maximum: 12),
          defaultValue: n(2),
          meaning: "σ of the Gaussian in pixels, rounded to a whole number (12 at most: 49 taps)")
      ]
    case .toon:
      [
        LookParameter(
          name: "threshold", shape: .number(minimum: 0, maximum: 1), defaultValue: n(0.2),
          meaning: "edge magnitude above which a pixel is drawn black"),
        LookParameter(
          name: "quantization_levels", shape: .number(minimum: 1, maximum: 256),
          defaultValue: n(10), meaning: "levels each of R, G, B is posterised to"),
      ]
    case .swirl:
      [
        LookParameter(
          name: "center", shape: .point, defaultValue: .vector([n(0.5), n(0.5)].map(exact)),
          meaning: "the centre"),
        LookParameter(
          name: "radius", shape: .number(minimum: 0, maximum: 1, exclusiveMinimum: true),
          defaultValue: n(0.5),
          meaning: "the swirl's radius"),
        LookParameter(
          name: "angle", shape: .number(minimum: -10, maximum: 10), defaultValue: n(1),
          meaning: "how far it turns"),
      ]
    case .kuwahara:
      [
        LookParameter(
          name: "radius", shape: .integer(minimum: 1, maximum: 10), defaultValue: n(3),
          meaning: "the quadrants' size")
      ]
    case .expression:
      ["r", "g", "b"].map { channel in
        LookParameter(
          name: channel, shape: .expression, defaultValue: .text(channel),
          meaning: "the output's \(channel.uppercased()) (0 to 1, clamped), an expression of the "
            + "pixel's r, g, b (0 to 1), x, y (0 to 1, pixel centres), w, h (pixels) and t "
            + "(seconds)")
      }
    }
  }

  private static func exact(_ value: LookValue) -> ExactNumber {
    if case .number(let number) = value { return number }
    return .zero
  }
}
