import MediaCore
#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// A system call on the output failed: the `errno` and what was being done. The cause that
/// `OutputFileError.write` (and the tools' `write_error`) carries.
public struct OutputError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The `errno` of the failing call.
  public let code: Int32
  /// What was being done.
  public let action: String

  /// `action` failed with `errno` `code`.
  public init(code: Int32, action: String) {
    self.code = code
    self.action = action
  }

  /// The reader of a pipe went away (EPIPE).
  public var isBrokenPipe: Bool { code == EPIPE }

  /// "writing the output: No space left on device".
  public var description: String { "\(action): \(String(cString: strerror(code)))" }
}

/// Why an output could not be written. Each case has a stable `code`, which every tool reports
/// as it is (media2wav, mediamerge, and what comes after them).
public enum OutputFileError: ToolError, Equatable {
  /// The output exists and overwriting was not asked for (`output_exists`).
  case exists(String)
  /// The output exists and is not a regular file (a block device, a socket, a symbolic link):
  /// only regular files are replaced (`output_exists`).
  case notReplaceable(path: String, kind: String)
  /// The output path is a directory (`output_is_directory`).
  case isDirectory(String)
  /// Writing failed: a full disk, an unwritable directory, a closed pipe (`write_error`).
  case write(OutputError)

  /// The stable machine-readable code.
  public var code: String {
    switch self {
    case .exists, .notReplaceable: "output_exists"
    case .isDirectory: "output_is_directory"
    case .write: "write_error"
    }
  }

  /// A sentence for humans.
  public var message: String {
    switch self {
    case .exists(let path): "\(path) exists (use --force to replace it)"
    case .notReplaceable(let path, let kind):
      "\(path) is a \(kind), not a regular file; --force replaces regular files only"
    case .isDirectory(let path): "\(path) is a directory"
    case .write(let error): error.description
    }
  }

  /// The system call's failure underneath, when there is one.
  public var failure: OutputError? {
    if case .write(let error) = self { return error }
    return nil
  }

  /// The `errno` underneath a write error.
  public var cause: ErrorCause? {
    failure.map { ErrorCause(domain: .posix, code: $0.code, description: $0.description) }
  }

  /// The reader of standard output went away (EPIPE).
  public var isBrokenPipe: Bool { failure?.isBrokenPipe ?? false }
}
