/// The `expression` look's expressions: libavutil's expression syntax (`av_expr_parse`: numbers,
/// `+ - * / ^`, comparisons as functions, `sin`, `pow`, `clip`, `if`, `st`/`ld`, ...) over the
/// pixel's variables. The reader checks the names here (without FFmpeg); the renderer's loader
/// then parses each expression with libavfilter itself (`geq`) before anything renders.
public enum LookExpression {
  /// The variables: the pixel's r, g, b (0–1), its place x, y (0–1, at the pixel's centre, as a
  /// shader's texture coordinate), the picture's w, h (pixels), the time t (seconds).
  public static let variables: Set<String> = ["r", "g", "b", "x", "y", "w", "h", "t"]

  /// libavutil's named constants.
  public static let constants: Set<String> = ["PI", "E", "PHI", "QP2LAMBDA"]

  /// The longest expression read (characters).
  public static let maxLength = 2000

  /// A piece of an expression: an identifier (with whether a `(` follows it, a function) or any
  /// other text, kept as written.
  public enum Token: Equatable, Sendable {
    /// A name: a variable, a constant or (when `call`) a function.
    case name(String, call: Bool)
    /// Numbers, operators, brackets, spaces: as written.
    case other(String)
  }

  /// `text` split into names and the rest. A number's letters (an exponent, an SI suffix:
  /// `1e3`, `2k`) belong to the number.
  public static func tokens(_ text: String) -> [Token] {
    let characters = Array(text)
    var tokens: [Token] = []
    var other = ""
    var i = 0
    func isLetter(_ c: Character) -> Bool { c.isASCII && (c.isLetter || c == "_") }
    func isDigit(_ c: Character) -> Bool { c.isASCII && c.isNumber }
    while i < characters.count {
      let c = characters[i]
      if isDigit(c) || (c == "." && i + 1 < characters.count && isDigit(characters[i + 1])) {
        // A number with its exponent and suffix letters.
        while i < characters.count,
          isDigit(characters[i]) || characters[i] == "." || isLetter(characters[i])
            || ((characters[i] == "+" || characters[i] == "-")
              && (characters[i - 1] == "e" || characters[i - 1] == "E"))
        {
          other.append(characters[i])
          i += 1
        }
        continue
      }
      if isLetter(c) {
        var name = ""
        while i < characters.count, isLetter(characters[i]) || isDigit(characters[i]) {
          name.append(characters[i])
          i += 1
        }
        var j = i
        while j < characters.count, characters[j] == " " { j += 1 }
        if !other.isEmpty {
          tokens.append(.other(other))
          other = ""
        }
        tokens.append(.name(name, call: j < characters.count && characters[j] == "("))
        continue
      }
      other.append(c)
      i += 1
    }
    if !other.isEmpty { tokens.append(.other(other)) }
    return tokens
  }

  /// What is wrong with `text` that can be told without parsing it (nil: nothing): empty, too
  /// long, a name that is neither a variable nor a constant, a variable used as a function,
  /// quotes or filter-graph punctuation, or `t` when `allowsTime` is false.
  public static func problem(in text: String, allowsTime: Bool = true) -> String? {
    if text.allSatisfy({ $0 == " " }) { return "an empty expression" }
    if text.count > maxLength { return "longer than \(maxLength) characters" }
    if let bad = text.first(where: { "'\"\\;[]:".contains($0) || $0.isNewline }) {
      return "\"\(bad)\" has no place in an expression"
    }
    for token in tokens(text) {
      guard case .name(let name, let call) = token else { continue }
      if call {
        if variables.contains(name) || constants.contains(name) {
          return "\(name) is a value, not a function"
        }
      } else if name == "t" && !allowsTime {
        return "t (the composition's time) is for the composition's filters: a clip's looks "
          + "apply once to each of its source pictures"
      } else if !variables.contains(name) && !constants.contains(name) {
        return "unknown name \"\(name)\" (variables: r, g, b, x, y, w, h, t; constants: PI, E, "
          + "PHI)"
      }
    }
    return nil
  }

  /// `text` with each variable replaced by `replacements[name]` (functions and constants kept).
  public static func rewrite(_ text: String, _ replacements: [String: String]) -> String {
    tokens(text).map { token in
      switch token {
      case .name(let name, let call): (call ? nil : replacements[name]) ?? name
      case .other(let other): other
      }
    }.joined()
  }
}
