import MediaCore
import AV
import MediaProbe
import CFFmpeg
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

/// Keeps freed memory in the process instead of handing it back to the kernel after every file:
/// glibc trims the top of the heap whenever 128 KiB are free there, and FFmpeg's contexts are
/// allocated and freed once per input, so a batch paid a page fault for every page of them again
/// and again. The heap keeps at most 64 MiB spare: memory does not grow with the number of
/// inputs.
///
/// Setting the trim threshold also freezes glibc's adaptive mmap threshold at 128 KiB, so every
/// larger block was a fresh mapping, zeroed by the kernel page by page and unmapped when freed.
/// Blocks up to `heapBlocksUpTo` come from the heap instead:
/// - 1 MiB by default: a decoder's tables and small pictures; large blocks that grow by
///   reallocation (libavformat's MP4 index) stay mappings that grow in place (in the heap, a
///   60-minute MP4's index cost +13 MiB instead of +4.5 MiB). Probing 200 files: 7,000-10,000
///   page faults and 0.05-0.08 s of system time, 56,000-92,000 and 0.15-0.21 s at 128 KiB.
/// - 32 MiB (glibc's own bound for its adaptive threshold) when decoding the pictures of many
///   files (`--verify`): a 2160p 10-bit picture is ~25 MB, and each file mapped its pictures
///   anew (200 fixture copies: 370,000 page faults and 0.65 s of system time, 235,000 and
///   0.43 s). One file gains nothing from it (a decoder pools its pictures).
///
/// The heap grows 1 MiB past each request: a 16 MiB pad made each decoder thread's arena settle
/// at ~16.6 MiB (`--verify` took 84 MB on a 10-minute 240p file, 54 MB now).
public func tuneMemoryAllocator(heapBlocksUpTo mmapThreshold: Int32 = 1 << 20) {
  mt_keep_freed_memory(64 << 20, 1 << 20, mmapThreshold)
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
