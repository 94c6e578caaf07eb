/// A request header sent with every request of a remote input (`--header 'Name: value'`): a
/// token, a cookie, a presigned store's key. Its value is a secret: it is sent to the input's
/// origin only (a redirect to another host drops it) and never printed — `description`,
/// `debugDescription` and reflection show the name alone.
public struct HTTPHeader: Sendable, Equatable, CustomStringConvertible,
  CustomDebugStringConvertible, CustomReflectable
{
  /// The field name, as given.
  public let name: String
  /// The value (a secret).
  public let value: String

  /// Why a header line was refused (the messages never contain the value).
  public enum ParseError: Error, Equatable, CustomStringConvertible {
    /// No `:` separating a name from the value.
    case noColon
    /// The name is empty or has a character other than a token's (RFC 9110 `tchar`).
    case invalidName(String)
    /// The value has a control character (a CR or LF would start another header).
    case controlCharacter(name: String)
    /// A header the reader sets itself (`Range`, `If-Range`, `Host`, ...).
    case reserved(String)

    /// A sentence for humans, without the value.
    public var description: String {
      switch self {
      case .noColon: "a header is written 'Name: value'"
      case .invalidName(let name): "\(name.debugDescription) is not a header name"
      case .controlCharacter(let name): "the value of header \(name) has a control character"
      case .reserved(let name): "header \(name) is set by the tools themselves"
      }
    }
  }

  /// Names the reader sets itself or that would change what bytes come back.
  static let reserved: Set<String> = [
    "range", "if-range", "host", "content-length", "transfer-encoding", "connection",
    "accept-encoding", "te", "upgrade",
  ]

  /// Parses `Name: value` (spaces around the value dropped).
  ///
  /// - Throws: `ParseError`.
  public init(line: String) throws(ParseError) {
    guard let colon = line.firstIndex(of: ":") else { throw .noColon }
    let name = String(line[..<colon])
    let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    guard !name.isEmpty, name.allSatisfy({ tchar.contains($0) }) else {
      throw .invalidName(name)
    }
    guard !Self.reserved.contains(name.lowercased()) else { throw .reserved(name) }
    let value = line[line.index(after: colon)...].trimmingSpaces
    guard
      !value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F })
    else { throw .controlCharacter(name: name) }
    self.name = name
    self.value = value
  }

  /// The name alone: the value is never printed.
  public var description: String { "\(name): <hidden>" }
  /// The name alone: the value is never printed.
  public var debugDescription: String { description }
  /// The name alone: the value is never printed.
  public var customMirror: Mirror { Mirror(self, children: ["name": name]) }
}

extension Substring {
  /// Without leading and trailing spaces and tabs.
  fileprivate var trimmingSpaces: String {
    var text = self
    while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
    while let last = text.last, last == " " || last == "\t" { text.removeLast() }
    return String(text)
  }
}
