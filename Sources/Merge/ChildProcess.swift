import OutputKit
import CSpawn
import MediaCore
import AV
import MediaProbe
import Synchronization

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// The merge in progress, for the interrupt handler: the ffmpeg child. `abort()` kills it and
/// removes a named temporary output (an unnamed one vanishes with the process), so SIGINT or
/// SIGTERM leave nothing behind.
public enum RunningMerge {
  private struct State {
    var child: pid_t?
  }
  private static let state = Mutex(State())

  /// Kills ffmpeg (SIGKILL, then waits for it, so it cannot write after its file is removed)
  /// and removes the temporary output. Safe to call from the signal-handling thread.
  public static func abort() {
    state.withLock { state in
      if let child = state.child {
        kill(child, SIGKILL)
        var status: Int32 = 0
        _ = SystemCall.retryingOnInterrupt { waitpid(child, &status, 0) }
        state.child = nil
      }
      TemporaryFiles.removeAll()
    }
  }

  /// Runs `spawn` under the lock and records the child it returns, so an interrupt either
  /// happens before the child exists or finds it recorded.
  static func start(_ spawn: () throws(MergeError) -> pid_t) throws(MergeError) -> pid_t {
    try state.withLock { (state: inout State) throws(MergeError) -> pid_t in
      let child = try spawn()
      state.child = child
      return child
    }
  }

  static func finished(_ child: pid_t) {
    state.withLock { state in
      if state.child == child { state.child = nil }
    }
  }
}

/// How a child process ended.
enum ChildStatus: Equatable, CustomStringConvertible {
  /// It exited with this status.
  case exited(Int32)
  /// A signal killed it.
  case signaled(Int32)

  var description: String {
    switch self {
    case .exited(let code): "exit status \(code)"
    case .signaled(let signal): "killed by signal \(signal)"
    }
  }
}

/// Runs a program with pipes on its standard input, output and error, in mediamerge's own
/// process group (a kill of the group, as `timeout -s KILL` or a batch scheduler sends, reaches
/// it too), with default signal handling and no blocked signals (the parent blocks SIGINT and
/// SIGTERM for its handler thread), and armed to die with mediamerge (`PR_SET_PDEATHSIG`, set by
/// `mt_spawn` between fork and exec): a `kill -9` of mediamerge leaves no ffmpeg behind.
struct ChildProcess {
  /// How often the supervision (`stop`) is asked while the child runs.
  static let pollMilliseconds: Int32 = 100

  /// Runs `arguments[0]` (`executable`) and feeds `input` to its standard input (or gives it
  /// /dev/null); `output` receives its standard output as it comes; its standard error is kept
  /// (the last 64 KiB). `stop` is asked whenever output arrives and at least every 100 ms;
  /// when it says true the child is killed (SIGKILL) and `stopped` is true.
  ///
  /// Call from a thread that outlives the child (the main thread): Linux sends the death
  /// signal when the thread that started the child ends.
  ///
  /// - Returns: how it ended, what it wrote on standard error, and whether `stop` ended it.
  /// - Throws: `MergeError.ffmpegNotFound` when it cannot be started.
  static func run(
    executable: String, arguments: [String], input: String?,
    output: (ArraySlice<UInt8>) -> Void, stop: () -> Bool = { false }
  ) throws(MergeError) -> (status: ChildStatus, errorOutput: String, stopped: Bool) {
    var inPipe: [Int32] = [-1, -1]
    var outPipe: [Int32] = [-1, -1]
    var errPipe: [Int32] = [-1, -1]
    guard makePipe(&outPipe), makePipe(&errPipe), input == nil || makePipe(&inPipe) else {
      throw .ffmpegFailed(status: "not started", detail: String(cString: strerror(errno)))
    }

    // File names that are not UTF-8 go to ffmpeg as their own bytes (see `FileName`).
    let argv = arguments.map { FileName.withCString($0) { strdup($0) } } + [nil]
    defer { for pointer in argv { free(pointer) } }
    let child = try RunningMerge.start { () throws(MergeError) -> pid_t in
      let pid = mt_spawn(executable, argv, environ, inPipe[0], outPipe[1], errPipe[1])
      guard pid > 0 else {
        for fd in inPipe + outPipe + errPipe where fd >= 0 { close(fd) }
        throw -pid == ENOENT || -pid == EACCES
          ? .ffmpegNotFound
          : .ffmpegFailed(status: "not started", detail: String(cString: strerror(-pid)))
      }
      return pid
    }
    defer { RunningMerge.finished(child) }
    close(outPipe[1])
    close(errPipe[1])
    if input != nil { close(inPipe[0]) }

    var pending = FileName.bytes(input ?? "")[...]
    var writeEnd: Int32 = input == nil ? -1 : inPipe[1]
    if writeEnd >= 0 { _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK) }
    if writeEnd >= 0 && pending.isEmpty {
      close(writeEnd)
      writeEnd = -1
    }
    var errors: [UInt8] = []
    var open = (out: true, err: true)
    var stopped = false
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while open.out || open.err {
      if !stopped && stop() {
        kill(child, SIGKILL)
        stopped = true
      }
      var fds = [
        pollfd(fd: open.out ? outPipe[0] : -1, events: Int16(POLLIN), revents: 0),
        pollfd(fd: open.err ? errPipe[0] : -1, events: Int16(POLLIN), revents: 0),
        pollfd(fd: writeEnd, events: Int16(POLLOUT), revents: 0),
      ]
      if poll(&fds, nfds_t(fds.count), Self.pollMilliseconds) < 0 {
        if errno == EINTR { continue }
        break
      }
      if writeEnd >= 0 && fds[2].revents != 0 {
        let written = pending.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
        if written > 0 { pending = pending.dropFirst(written) }
        if pending.isEmpty || (written < 0 && errno != EAGAIN && errno != EINTR) {
          close(writeEnd)
          writeEnd = -1
        }
      }
      for (index, fd) in [outPipe[0], errPipe[0]].enumerated()
      where fds[index].revents != 0 && (index == 0 ? open.out : open.err) {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        if count <= 0 {
          if index == 0 { open.out = false } else { open.err = false }
        } else if index == 0 {
          output(buffer[..<count])
        } else {
          errors += buffer[..<count]
          if errors.count > 1 << 16 { errors.removeFirst(errors.count - (1 << 16)) }
        }
      }
    }
    if writeEnd >= 0 { close(writeEnd) }
    close(outPipe[0])
    close(errPipe[0])
    var status: Int32 = 0
    _ = SystemCall.retryingOnInterrupt { waitpid(child, &status, 0) }
    let ended: ChildStatus =
      status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
    return (ended, String(decoding: errors, as: UTF8.self), stopped)
  }

  /// A pipe whose ends close on exec (the child gets only the copies put on 0, 1 and 2).
  private static func makePipe(_ ends: inout [Int32]) -> Bool {
    guard pipe(&ends) == 0 else { return false }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    return true
  }

  /// The executable `name` on `PATH` (or `name` itself when it contains a slash), if it is one.
  static func find(_ name: String) -> String? {
    if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
    let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":", omittingEmptySubsequences: false) {
      let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + name
      var info = stat()
      if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
        access(candidate, X_OK) == 0
      {
        return candidate
      }
    }
    return nil
  }
}

/// Finds ffmpeg on `PATH`.
public enum FFmpegLocator {
  /// The path of the `ffmpeg` executable on `PATH`, or nil.
  public static func find() -> String? { ChildProcess.find("ffmpeg") }
}
