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

  /// The path to report: `-` for standard input.
  public var display: String {
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
  return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
}

private func collectFiles(below directory: String, into files: inout [String]) {
  guard let handle = opendir(directory) else { return }
  defer { closedir(handle) }
  while let entry = readdir(handle) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
      String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
    if name.hasPrefix(".") { continue }
    let path = directory + "/" + name
    var info = stat()
    guard lstat(path, &info) == 0 else { continue }
    switch info.st_mode & S_IFMT {
    case S_IFREG: files.append(path)
    case S_IFDIR: collectFiles(below: path, into: &files)
    default: continue
    }
  }
}
