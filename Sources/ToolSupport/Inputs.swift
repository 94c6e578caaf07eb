import MediaCore
import AV
import MediaProbe
import Synchronization

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// One input named on the command line, after directories were expanded.
public enum InputPath: Sendable, Equatable {
  /// Standard input (`-`).
  case standardInput
  /// A path, as given or as found under a directory.
  case path(String)

  /// The path to report: `-` for standard input; bytes of a file name that are not UTF-8
  /// shown as U+FFFD.
  public var display: String { FileName.display(name) }

  /// The path as kept, standing for the file name's bytes (`FileName`): `-` for standard input.
  public var name: String {
    switch self {
    case .standardInput: "-"
    case .path(let path): path
    }
  }
}

/// Expands command-line arguments into inputs: `-` is standard input; with `recursive`, a
/// directory becomes the regular files below it (sorted, hidden entries skipped, symbolic links
/// not followed); anything else is kept as given so the tool reports its error.
public func expandInputs(_ arguments: [String], recursive: Bool) -> [InputPath] {
  var result: [InputPath] = []
  for argument in arguments {
    if argument == "-" {
      result.append(.standardInput)
    } else if recursive, isDirectory(argument) {
      var files: [String] = []
      collectFiles(
        below: argument.hasSuffix("/") ? String(argument.dropLast()) : argument, into: &files)
      result += files.sorted().map(InputPath.path)
    } else {
      result.append(.path(argument))
    }
  }
  return result
}

private func isDirectory(_ path: String) -> Bool {
  var info = stat()
  return FileName.withCString(path, { stat($0, &info) }) == 0 && info.st_mode & S_IFMT == S_IFDIR
}

private func collectFiles(below directory: String, into files: inout [String]) {
  guard let handle = FileName.withCString(directory, { opendir($0) }) else { return }
  defer { closedir(handle) }
  while let entry = readdir(handle) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
      FileName.string(fromBytes: raw.prefix { $0 != 0 })
    }
    if name.hasPrefix(".") { continue }
    let path = directory + "/" + name
    var info = stat()
    guard FileName.withCString(path, { lstat($0, &info) }) == 0 else { continue }
    switch info.st_mode & S_IFMT {
    case S_IFREG: files.append(path)
    case S_IFDIR: collectFiles(below: path, into: &files)
    default: continue
    }
  }
}

/// The indices of `inputs`, largest file first (by `stat`'s size; ties, standard input and
/// files that cannot be read keep their order, at the end when sizeless): the order to start
/// them in on several workers, so that the last ones to start are the shortest.
public func largestFirst(_ inputs: [InputPath]) -> [Int] {
  let sizes = inputs.map { input -> Int64 in
    guard case .path(let path) = input else { return -1 }
    var info = stat()
    guard FileName.withCString(path, { stat($0, &info) }) == 0 else { return -1 }
    return Int64(info.st_size)
  }
  return inputs.indices.sorted { sizes[$0] != sizes[$1] ? sizes[$0] > sizes[$1] : $0 < $1 }
}

/// A command's inputs: its arguments, then, with `--files-from`, the paths of a list read as the
/// work needs them (newline- or NUL-separated, from a file or standard input), so a list of
/// millions of paths is never held in memory and the first results come out before it ends.
/// Directories are expanded with `recursive` (argument or list entry alike).
public final class InputList: Sendable {
  private struct State: ~Copyable {
    var pending: [InputPath]
    var reader: ListReader?
    let recursive: Bool
  }

  private let state: Mutex<State>
  /// True when the inputs are exactly one argument naming one file (tools print one object).
  public let isSingleArgument: Bool
  /// How many inputs there are, when known in advance (no list).
  public let knownCount: Int?

  /// The inputs of `arguments` and of the list `filesFrom` (`-`: standard input).
  ///
  /// - Throws: `ListError` when the list cannot be opened.
  public init(
    arguments: [String], filesFrom: String? = nil, nulSeparated: Bool = false,
    recursive: Bool = false
  ) throws(ListError) {
    let expanded = expandInputs(arguments, recursive: recursive)
    isSingleArgument =
      filesFrom == nil && arguments.count == 1 && expanded.count == 1
      && expanded[0].name == arguments[0]
    knownCount = filesFrom == nil ? expanded.count : nil
    var reader: ListReader?
    if let filesFrom {
      reader = try ListReader(path: filesFrom, separator: nulSeparated ? 0 : 0x0A)
    }
    state = Mutex(State(pending: expanded.reversed(), reader: reader, recursive: recursive))
  }

  /// The next input, or nil when there is none left. Thread-safe.
  public func next() -> InputPath? {
    state.withLock { state in
      while true {
        if let input = state.pending.popLast() { return input }
        guard let entry = state.reader?.next() else { return nil }
        // A list names files: "-" in a list is a file named "-", never standard input (which
        // may be the list itself).
        if entry == "-" { return .path("./-") }
        let expanded = expandInputs([entry], recursive: state.recursive)
        state.pending = expanded.reversed()
      }
    }
  }
}

/// A list of paths that cannot be read.
public struct ListError: Error, Sendable, CustomStringConvertible {
  /// The list's path.
  public var path: String
  /// Why.
  public var reason: String
  /// "cannot read the list x: reason".
  public var description: String { "cannot read the list \(path): \(reason)" }
}

/// Reads separated entries from a file descriptor, a buffer at a time.
private final class ListReader {
  private let fd: Int32
  private let owns: Bool
  private let separator: UInt8
  private var buffer: [UInt8] = []
  private var start = 0
  private var finished = false

  init(path: String, separator: UInt8) throws(ListError) {
    self.separator = separator
    if path == "-" {
      fd = STDIN_FILENO
      owns = false
    } else {
      fd = FileName.withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
      guard fd >= 0 else {
        throw ListError(path: FileName.display(path), reason: String(cString: strerror(errno)))
      }
      owns = true
    }
  }

  deinit { if owns { close(fd) } }

  /// The next entry (a trailing carriage return dropped from newline-separated entries), or nil
  /// at the end. An empty entry is an entry (its record says `not_found`), so the records match
  /// the list line for line; only a last separator ends the list without one.
  func next() -> String? {
    while true {
      if let end = buffer[start...].firstIndex(of: separator) {
        let entry = entry(buffer[start..<end])
        start = end + 1
        return entry
      }
      if finished {
        defer { buffer.removeAll(); start = 0 }
        return start < buffer.count ? entry(buffer[start...]) : nil
      }
      buffer.removeFirst(start)
      start = 0
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      if count <= 0 {
        finished = true
      } else {
        buffer += chunk.prefix(count)
      }
    }
  }

  private func entry(_ bytes: ArraySlice<UInt8>) -> String {
    var bytes = bytes
    if separator == 0x0A, bytes.last == 0x0D { bytes = bytes.dropLast() }
    return FileName.string(fromBytes: bytes)
  }
}
