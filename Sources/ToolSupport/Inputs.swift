import Foundation

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
/// directory becomes the regular files below it (sorted, hidden files skipped, symbolic links to
/// directories not followed); anything else is kept as given so the tool reports its error.
public func expandInputs(_ arguments: [String], recursive: Bool) -> [InputPath] {
  var result: [InputPath] = []
  for argument in arguments {
    if argument == "-" {
      result.append(.standardInput)
      continue
    }
    var isDirectory: ObjCBool = false
    guard recursive, FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      result.append(.path(argument))
      continue
    }
    result += filesBelow(argument).map(InputPath.path)
  }
  return result
}

private func filesBelow(_ directory: String) -> [String] {
  let base = URL(fileURLWithPath: directory)
  guard
    let enumerator = FileManager.default.enumerator(
      at: base, includingPropertiesForKeys: [.isRegularFileKey],
      options: [.skipsHiddenFiles])
  else { return [] }
  var files: [String] = []
  for case let url as URL in enumerator {
    if (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
      let relative = url.path.dropFirst(base.path.count).drop { $0 == "/" }
      files.append((directory.hasSuffix("/") ? directory : directory + "/") + relative)
    }
  }
  return files.sorted()
}
