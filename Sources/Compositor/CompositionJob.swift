import AV
import Composition
import MediaCore
import OutputKit

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// A composition document read and resolved against its sources: what `mediamerge
/// --composition` prints with `--plan` and renders otherwise.
public struct LoadedComposition: Sendable {
  /// The document as read.
  public var document: CompositionDocument
  /// Its layout.
  public var format: CompositionFormat
  /// Its plan.
  public var plan: CompositionPlan
}

/// Why a composition document itself could not be read (before it is parsed).
public struct DocumentReadError: ToolError, Equatable {
  /// The probe's code for the path (`not_found`, `permission_denied`, `read_error`).
  public var error: ProbeError
  /// The document's path.
  public var path: String
  /// The stable machine-readable code.
  public var code: String { error.code }
  /// A sentence for humans.
  public var message: String { "\(path): \(error.message)" }
  /// The failure underneath.
  public var cause: ErrorCause? { error.cause }
}

/// Reads and resolves composition documents.
public enum CompositionLoader {
  /// The bytes of the document at `path` (`-`: standard input).
  ///
  /// - Throws: `DocumentReadError`.
  public static func bytes(of path: String) throws(DocumentReadError) -> [UInt8] {
    let fd: Int32
    if path == "-" {
      fd = STDIN_FILENO
    } else {
      fd = FileName.withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
      guard fd >= 0 else {
        let code = errno
        let error: ProbeError =
          code == ENOENT
          ? .notFound
          : code == EACCES
            ? .permissionDenied : .readError(detail: String(cString: strerror(code)))
        throw DocumentReadError(error: error, path: path)
      }
    }
    defer { if fd != STDIN_FILENO { close(fd) } }
    var status = stat()
    if fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
      throw DocumentReadError(error: .notAFile(kind: "directory"), path: path)
    }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw DocumentReadError(
          error: .readError(detail: String(cString: strerror(errno))), path: path)
      }
      if count == 0 { break }
      bytes += chunk[0..<count]
      if bytes.count > 64 << 20 {
        throw DocumentReadError(
          error: .readError(detail: "more than 64 MiB: not a composition document"), path: path)
      }
    }
    return bytes
  }

  /// The folder a document's relative sources resolve against: its own (the working
  /// directory for standard input).
  public static func baseDirectory(of path: String) -> String? {
    guard path != "-", let slash = path.lastIndex(of: "/") else { return nil }
    return String(path[..<slash]).isEmpty ? "/" : String(path[..<slash])
  }

  /// Reads the document at `path` (`-`: standard input) and resolves it, probing each source
  /// once.
  ///
  /// - Throws: `DocumentReadError`, or `CompositionError` (its codes, and the probe's for a
  ///   source).
  public static func load(_ path: String, format: CompositionFormat? = nil) throws
    -> LoadedComposition
  {
    let bytes = try bytes(of: path)
    let document = try CompositionDocument.read(
      bytes, path: path == "-" ? nil : path, format: format)
    return try resolve(
      document, baseDirectory: baseDirectory(of: path),
      format: format ?? CompositionFormat.detect(path: path == "-" ? nil : path, bytes: bytes))
  }

  /// Resolves `document` against its sources in `baseDirectory`.
  ///
  /// - Throws: `CompositionError`.
  public static func resolve(
    _ document: CompositionDocument, baseDirectory: String?, format: CompositionFormat = .json
  ) throws(CompositionError) -> LoadedComposition {
    let resolver = CompositionResolver(baseDirectory: baseDirectory) { path in
      try CompositionSources.facts(path)
    }
    let plan = try resolver.resolve(document)
    try OverlayStage.checkFonts(plan)
    for segment in plan.segments {
      try LookFilters.checkExpressions(segment.looks ?? [], path: "clips[\(segment.index)].filters")
    }
    try LookFilters.checkExpressions(plan.looks ?? [], path: "filters")
    return LoadedComposition(document: document, format: format, plan: plan)
  }
}
