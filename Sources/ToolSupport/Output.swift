import MediaCore
import AV
import MediaProbe
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// Exit codes shared by the tools (documented in each man page).
public enum ExitStatus {
  /// Every input succeeded.
  public static let success: Int32 = 0
  /// Some input failed (or, for mediacompat, did not pass).
  public static let failure: Int32 = 1
  /// An input could not be checked at all (mediacompat).
  public static let unchecked: Int32 = 2
  /// Every input was probed, but some is damaged, truncated or undecodable
  /// (`mediaprobe --verify`).
  public static let damaged: Int32 = 2
  /// The command line was wrong (ArgumentParser's validation code).
  public static let usage: Int32 = 64
}

/// Why `--output-dir DIR` cannot take outputs (it does not exist, or is not a directory), nil
/// when it can: each tool checks it before reading any input, so a mistyped directory is a usage
/// error at once rather than a write error after every input was decoded. Whether it can be
/// written stays each output's own error (`write_error`: a read-only directory, a full disk).
public func outputDirectoryProblem(_ path: String) -> String? {
  var info = stat()
  guard FileName.withCString(path, { stat($0, &info) }) == 0 else {
    return "--output-dir \(FileName.display(path)): \(String(cString: strerror(errno)))"
  }
  guard info.st_mode & S_IFMT == S_IFDIR else {
    return "--output-dir \(FileName.display(path)) is not a directory"
  }
  return nil
}

/// Writes to standard output and standard error without Foundation's buffering surprises.
public enum Console {
  /// Writes `text` to standard output.
  public static func out(_ text: String) { write(text, to: STDOUT_FILENO) }

  /// Writes text to standard error as it is (progress bars).
  public static func errorText(_ text: String) { write(text, to: STDERR_FILENO) }

  /// Writes a message for humans to standard error, prefixed with the tool's name.
  public static func error(_ tool: String, _ message: String) {
    write("\(tool): \(message)\n", to: STDERR_FILENO)
  }

  private static func write(_ text: String, to fd: Int32) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let written = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
      if written < 0 {
        if errno == EINTR { continue }
        // The reader went away (EPIPE, e.g. `| head`): stop quietly, as Unix tools do.
        exit(errno == EPIPE ? ExitStatus.success : ExitStatus.failure)
      }
      bytes = bytes.dropFirst(written)
    }
  }
}

/// Writes a sequence of values as JSON: one object (single input), an array, or NDJSON lines,
/// streaming each as it comes so memory does not grow with the number of inputs. The layout
/// decides the encoding: compact lines, or pretty-printed (array elements indented one level as
/// they are encoded).
public struct JSONStreamWriter {
  /// How values are laid out.
  public enum Layout {
    /// One pretty-printed object (exactly one value expected).
    case single
    /// A pretty-printed array.
    case array
    /// One compact object per line.
    case lines
  }

  private let layout: Layout
  private let encoder: MediaToolsJSONEncoder
  private var count = 0

  /// A writer for `layout`.
  public init(layout: Layout) {
    self.layout = layout
    encoder = MediaToolsJSONEncoder(
      compact: layout == .lines, indentLevel: layout == .array ? 1 : 0)
  }

  /// Writes one value (nothing if it does not encode).
  public mutating func write(_ value: some Encodable) {
    guard let json = try? encoder.encode(value) else { return }
    let text = String(decoding: json, as: UTF8.self)
    switch layout {
    case .single, .lines: Console.out(text + "\n")
    case .array: Console.out((count == 0 ? "[\n  " : ",\n  ") + text)
    }
    count += 1
  }

  /// Closes the array, if any.
  public func finish() {
    if layout == .array { Console.out(count == 0 ? "[]\n" : "\n]\n") }
  }
}

/// Ignores SIGPIPE so a closed reader shows up as EPIPE, handled by `Console`.
public func ignoreBrokenPipe() { signal(SIGPIPE, SIG_IGN) }

/// The C library's `write`, under a name that does not clash with our own methods.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
  write(fd, buffer, count)
}

/// Lays out rows as left-aligned columns separated by two spaces.
public func formatTable(_ rows: [[String]]) -> String {
  guard let width = rows.map(\.count).max() else { return "" }
  var widths = [Int](repeating: 0, count: width)
  for row in rows {
    for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
  }
  return rows.map { row in
    row.enumerated().map { column, cell in
      column == row.count - 1
        ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
    }.joined(separator: "  ")
  }.joined(separator: "\n") + "\n"
}
