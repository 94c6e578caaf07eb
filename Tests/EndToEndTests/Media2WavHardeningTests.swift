import Foundation
import Testing

/// media2wav's failure paths (issue 10): an unconvertible format change, full disks and closed
/// pipes, outputs that are not regular files, signals (SIGINT, SIGTERM, SIGKILL) at random
/// moments, syncing, and audio that does not decode. The oracles: the ffmpeg CLI's own verdict
/// and output, the kernel (strace, /proc, the file system), and construction.
@Suite struct Media2WavHardeningTests {
  static let media2wav = productsDirectory.appendingPathComponent("media2wav").path
  static let regressions = "Tests/Regressions"

  /// The environment variable that makes media2wav use a named temporary file instead of
  /// O_TMPFILE (as on a file system without it).
  static let namedTemporary = ["MEDIATOOLS_NO_O_TMPFILE": "1"]

  /// A 10-minute AAC file (10 s encoded once, then repeated by stream copy): long enough that a
  /// signal sent after the output is created lands while media2wav decodes.
  static func longSource(in directory: TemporaryDirectory) throws -> String {
    let short = directory.path("short.m4a")
    let long = directory.path("long.m4a")
    let encode = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
        "-t", "10", "-ac", "2", "-c:a", "aac", "-b:a", "64k", short,
      ])
    try #require(encode.status == 0, "\(encode.stderr)")
    let loop = try run(
      "ffmpeg", ["-nostdin", "-v", "error", "-stream_loop", "59", "-i", short, "-c", "copy", long])
    try #require(loop.status == 0, "\(loop.stderr)")
    return long
  }

  /// Starts media2wav; returns once it has an output file open in `outputDirectory` (so it is
  /// past probing and decoding), or gives up after 10 s.
  func startWriting(
    _ arguments: [String], outputDirectory: String, environment: [String: String] = [:],
    standardError: Pipe? = nil
  ) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.media2wav)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = standardError ?? FileHandle.nullDevice
    try process.run()
    waitUntilWriting(process, under: outputDirectory)
    return process
  }

  // MARK: - 1. A format change the converter cannot follow

  @Test func unconvertibleFormatChangeIsACleanError() throws {
    let input = "\(Self.regressions)/channel_jump_42.ts"
    // The oracle: ffmpeg fails on the same frame (its filter graph cannot be reconfigured).
    let ffmpeg = try run(
      "ffmpeg", ["-nostdin", "-v", "error", "-i", input, "-map", "0:a:0", "-f", "s16le", "-"])
    #expect(ffmpeg.status != 0)
    #expect(ffmpeg.stderr.contains("42 channels"))
    let directory = try TemporaryDirectory()
    // Plain, through the effects (float), and through the s24 packing: three ways to the writer.
    for options in [[], ["--gain", "-3"], ["--format", "s24"]] {
      let result = try run(
        "media2wav", ["--json", input, "-o", directory.path("out.wav")] + options)
      #expect(result.status == 1, "\(options): exit \(result.status) \(result.stderr)")
      let json = try result.json()
      #expect(value(json, "error", "code") as? String == "decoder_error")
      #expect((value(json, "error", "message") as? String)?.contains("42 channels") == true)
      #expect(directory.contents.isEmpty, "\(options): \(directory.contents)")
    }
    let piped = try run("media2wav", ["-q", input, "-o", "-"])
    #expect(piped.status == 1, "\(piped.stderr)")
  }

  // MARK: - 4. Output errors keep their code

  @Test func outputErrorsAreWriteErrors() throws {
    let directory = try TemporaryDirectory()
    // The header write fails: /dev/full answers every write with ENOSPC.
    let full = try run("media2wav", ["--json", "\(fixturesDirectory)/tone.wav", "-o", "/dev/full"])
    #expect(full.status == 1)
    #expect(value(try full.json(), "error", "code") as? String == "write_error")
    #expect(full.stderr.contains("No space left on device"))
    // A write on the writer thread fails mid-stream: a 64 KiB file size limit (RLIMIT_FSIZE, with
    // SIGXFSZ ignored so the write returns EFBIG). It used to come back as decoder_error.
    for options in [[], ["--gain", "-3"], ["--format", "s24"]] {
      let limited = try run(
        "bash",
        [
          "-c", #"trap '' XFSZ; ulimit -f 64; exec "$0" --json "$@""#, Self.media2wav,
          "\(fixturesDirectory)/tone.m4a", "-o", directory.path("out.wav"),
        ] + options)
      #expect(limited.status == 1, "\(options): \(limited.stderr)")
      let json = try limited.json()
      #expect(value(json, "error", "code") as? String == "write_error", "\(options)")
      #expect((value(json, "error", "message") as? String)?.contains("File too large") == true)
      #expect(directory.contents.isEmpty, "\(options): \(directory.contents)")
    }
  }

  @Test func closedPipeEndsQuietly() throws {
    // head takes the header and goes away; media2wav stops with status 0 and says nothing, as
    // when the JSON reader goes away (128 + SIGPIPE would fail `set -o pipefail` scripts).
    let result = try run(
      "bash",
      [
        "-c", #""$0" -o - "$1" | head -c 44 | od -An -c | head -1; echo "status ${PIPESTATUS[0]}""#,
        Self.media2wav, "\(fixturesDirectory)/tone_24bit_96k.flac",
      ])
    #expect(result.text.contains("R   I   F   F"))
    #expect(result.text.contains("status 0"), "\(result.text)")
    #expect(result.stderr.isEmpty, "\(result.stderr)")
  }

  // MARK: - 5. Only regular files are replaced

  @Test func nonRegularOutputsAreNeverReplaced() throws {
    let directory = try TemporaryDirectory()
    let input = "\(fixturesDirectory)/tone.wav"
    // A symbolic link to /dev/null: written through as a stream, with or without --force; the
    // link and the device stay what they are (it used to become a regular file).
    let link = directory.path("null.wav")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/null")
    for options in [[], ["--force"]] {
      let result = try run("media2wav", ["-q", input, "-o", link] + options)
      #expect(result.status == 0, "\(options): \(result.stderr)")
      #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "/dev/null")
      var info = stat()
      #expect(lstat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
    }
    // A symbolic link to a regular file, and a socket: refused even with --force, untouched.
    let target = directory.path("target.wav")
    try "precious".write(toFile: target, atomically: false, encoding: .utf8)
    let fileLink = directory.path("link.wav")
    try FileManager.default.createSymbolicLink(atPath: fileLink, withDestinationPath: target)
    let socket = directory.path("socket.wav")
    let bound = try run(
      "python3",
      ["-c", "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", socket])
    try #require(bound.status == 0, "\(bound.stderr)")
    for (path, kind) in [(fileLink, "symbolic link"), (socket, "socket")] {
      let result = try run("media2wav", ["--json", "--force", input, "-o", path])
      #expect(result.status == 1)
      #expect(value(try result.json(), "error", "code") as? String == "output_exists")
      #expect(result.stderr.contains(kind), "\(result.stderr)")
    }
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: fileLink) == target)
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious")
    var info = stat()
    #expect(lstat(socket, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK)
    #expect(Set(directory.contents) == ["null.wav", "target.wav", "link.wav", "socket.wav"])
  }

  @Test func namedPipeIsWrittenAsAStream() throws {
    // What a reader of a FIFO gets equals ffmpeg's WAV on a pipe (sizes 0xFFFFFFFF).
    let directory = try TemporaryDirectory()
    let fifo = directory.path("pipe.wav")
    #expect(mkfifo(fifo, 0o600) == 0)
    let input = "\(fixturesDirectory)/tone.m4a"
    let result = try run(
      "bash",
      [
        "-c", #"timeout 20 cat "$1" > "$2" & "$0" -q "$3" -o "$1"; s=$?; wait; exit $s"#,
        Self.media2wav,
        fifo, directory.path("captured.wav"), input,
      ])
    #expect(result.status == 0, "\(result.stderr)")
    let reference = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-i", input, "-map", "0:a:0", "-map_metadata", "-1",
        "-fflags", "+bitexact", "-acodec", "pcm_s16le", "-f", "wav", "-",
      ])
    #expect(
      try Data(contentsOf: directory.url.appendingPathComponent("captured.wav")) == reference.stdout
    )
    var info = stat()
    #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
  }

  // MARK: - 6. Signals: always 128 + the signal, nothing left

  @Test func interruptionAlwaysExitsWithTheSignal() throws {
    let directory = try TemporaryDirectory()
    let source = try Self.longSource(in: directory)
    var statuses: [Int32] = []
    for iteration in 0..<24 {
      let signal = iteration % 4 == 3 ? SIGTERM : SIGINT
      let named = iteration % 3 == 2
      let output = directory.path("out\(iteration)")
      try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false)
      let process = try startWriting(
        ["-q", source, "-o", output + "/x.wav"], outputDirectory: output,
        environment: named ? Self.namedTemporary : [:])
      usleep(UInt32.random(in: 0...80_000))
      kill(process.processIdentifier, signal)
      process.waitUntilExit()
      statuses.append(process.terminationStatus)
      #expect(
        process.terminationReason == .exit && process.terminationStatus == 128 + signal,
        "run \(iteration) (signal \(signal), named: \(named)): \(process.terminationStatus)")
      let left = (try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []
      #expect(left.isEmpty, "run \(iteration) left \(left)")
    }
    #expect(statuses.count == 24)
  }

  /// The race of issue 10, made certain: a preloaded `_exit` makes every thread but the main one
  /// wait 300 ms before exiting, so the signal thread is always late and the main thread, which
  /// saw the interruption, reaches `exit()` first (it used to exit 1, or crash with SIGILL on the
  /// writer's semaphore). The exit status must still be 128 + the signal.
  @Test func interruptionWinsWhenTheSignalThreadIsLate() throws {
    let directory = try TemporaryDirectory()
    let source = try Self.longSource(in: directory)
    let shim = directory.path("late-exit.c")
    try #"""
    #define _GNU_SOURCE
    #include <dlfcn.h>
    #include <sys/syscall.h>
    #include <unistd.h>
    void _exit(int status) {
      if (syscall(SYS_gettid) != getpid()) usleep(300000);
      ((void (*)(int))dlsym(RTLD_NEXT, "_exit"))(status);
      for (;;) {}
    }
    """#.write(toFile: shim, atomically: false, encoding: .utf8)
    // The Swift toolchain's clang (beside swift on PATH).
    let compiled = try run(
      "clang", ["-shared", "-fPIC", "-o", directory.path("late-exit.so"), shim, "-ldl"])
    try #require(compiled.status == 0, "\(compiled.stderr)")
    for iteration in 0..<6 {
      let signal = iteration % 2 == 0 ? SIGINT : SIGTERM
      let output = directory.path("late\(iteration)")
      try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false)
      var environment = ["LD_PRELOAD": directory.path("late-exit.so")]
      if iteration >= 3 { environment.merge(Self.namedTemporary) { $1 } }
      let errors = Pipe()
      let process = try startWriting(
        ["-q", source, "-o", output + "/x.wav"], outputDirectory: output, environment: environment,
        standardError: errors)
      kill(process.processIdentifier, signal)
      let stderr = String(
        decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      #expect(
        process.terminationReason == .exit && process.terminationStatus == 128 + signal,
        "run \(iteration): \(process.terminationStatus)\n\(stderr.prefix(300))")
      #expect(!stderr.contains("crashed"), "\(stderr.prefix(300))")
      let left = (try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []
      #expect(left.isEmpty, "run \(iteration) left \(left)")
    }
  }

  @Test func sigkillLeavesNothing() throws {
    // The unnamed file (O_TMPFILE) disappears with the process: nothing to clean up.
    let directory = try TemporaryDirectory()
    let source = try Self.longSource(in: directory)
    for iteration in 0..<12 {
      let output = directory.path("kill\(iteration)")
      try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false)
      let process = try startWriting(
        ["-q", source, "-o", output + "/x.wav"], outputDirectory: output)
      usleep(UInt32.random(in: 0...80_000))
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      #expect(process.terminationReason == .uncaughtSignal)
      let left = (try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []
      #expect(left.isEmpty, "run \(iteration) left \(left)")
    }
  }

  // MARK: - 7. Unnamed files, the fallback, and syncing

  /// The system calls that create, sync and name the output, in order.
  func fileSyscalls(_ arguments: [String], environment: [String: String]) throws -> [String] {
    let directory = try TemporaryDirectory()
    let trace = directory.path("trace.txt")
    let variables = environment.map { "\($0.key)=\($0.value)" }
    let result = try run(
      "env",
      variables + [
        "strace", "-f", "-qq", "-e", "trace=openat,fsync,fdatasync,link,linkat,rename,renameat2",
        "-o", trace, Self.media2wav,
      ] + arguments)
    #expect(result.status == 0, "\(result.stderr)")
    // Without the pid, and with strace's column padding before " = " removed.
    return try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map {
      String($0.drop { $0 != " " }.drop { $0 == " " }).replacing(#/\s+=\s+/#, with: " = ")
    }
  }

  @Test(arguments: [false, true])
  func syncsTheFileBeforeNamingItAndTheDirectoryAfter(named: Bool) throws {
    let directory = try TemporaryDirectory()
    let output = directory.path("x.wav")
    let environment = named ? Self.namedTemporary : [:]
    // A new file (linked into place, never over anything), then a replacement (--force).
    for replace in [false, true] {
      let arguments =
        (replace ? ["--force"] : []) + ["-q", "\(fixturesDirectory)/tone.m4a", "-o", output]
      let calls = try fileSyscalls(arguments, environment: environment)
      // The output's descriptor: the unnamed file, or the named temporary one.
      let creation = try #require(
        calls.firstIndex {
          $0.hasPrefix("openat(")
            && (named ? $0.contains(".x.wav.") && $0.contains("O_CREAT") : $0.contains("O_TMPFILE"))
        }, "\(calls)")
      #expect(calls.contains { $0.contains("O_TMPFILE") } == !named)
      let fd = try #require(calls[creation].split(separator: "= ").last.map(String.init))
      let naming = calls.indices.filter { index in
        ["link(", "linkat(", "rename("].contains { calls[index].hasPrefix($0) }
          && calls[index].contains("x.wav")
      }
      #expect(!naming.isEmpty, "\(calls)")
      if naming.isEmpty { return }
      let fileSync = try #require(calls.firstIndex(of: "fsync(\(fd)) = 0"), "\(calls)")
      #expect(creation < fileSync && fileSync < naming.first!, "\(calls)")
      // A new file gets its name with link()/linkat(), which cannot replace anything; replacing
      // goes through a temporary name and rename(): atomic.
      #expect(calls[naming.last!].hasPrefix("rename(") == replace, "\(calls)")
      let directoryOpen = try #require(
        calls.indices.last { calls[$0].contains("O_DIRECTORY") && calls[$0].hasPrefix("openat(") })
      let directoryFD = try #require(calls[directoryOpen].split(separator: "= ").last)
      #expect(naming.last! < directoryOpen)
      #expect(calls[(directoryOpen + 1)...].contains("fsync(\(directoryFD)) = 0"), "\(calls)")
      // --no-sync: no fsync at all.
      let unsynced = try fileSyscalls(
        ["--no-sync", "--force"] + arguments.filter { $0 != "--force" }, environment: environment)
      #expect(!unsynced.contains { $0.hasPrefix("fsync(") || $0.hasPrefix("fdatasync(") })
      #expect(FileManager.default.fileExists(atPath: output))
    }
    #expect(Set(directory.contents) == ["x.wav"])
  }

  @Test func fallbackWritesTheSameFile() throws {
    let directory = try TemporaryDirectory()
    let input = "\(fixturesDirectory)/surround_5.1.ac3"
    let unnamed = directory.path("unnamed.wav")
    let named = directory.path("named.wav")
    #expect(try run("media2wav", ["-q", input, "-o", unnamed]).status == 0)
    let fallback = try run(
      "env", ["MEDIATOOLS_NO_O_TMPFILE=1", Self.media2wav, "-q", input, "-o", named])
    #expect(fallback.status == 0, "\(fallback.stderr)")
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: unnamed))
        == Data(contentsOf: URL(fileURLWithPath: named)))
    // An existing file is kept without --force in both modes.
    for environment in [[], ["MEDIATOOLS_NO_O_TMPFILE=1"]] {
      let refused = try run("env", environment + [Self.media2wav, "-q", input, "-o", named])
      #expect(refused.status == 1 && refused.stderr.contains("--force"))
    }
    #expect(Set(directory.contents) == ["unnamed.wav", "named.wav"])
  }

  // MARK: - 9. Audio that does not decode

  @Test func packetsThatDecodeToNothingAreAnError() throws {
    // 32-bit mid/side FLAC in Matroska (by construction): 12 packets, none decodable by FFmpeg
    // 5.1. ffmpeg exits non-zero; media2wav says no_decodable_audio and writes nothing.
    let input = "\(Self.regressions)/flac32_mid_side.mkv"
    let packets = try run(
      "ffprobe",
      [
        "-v", "error", "-count_packets", "-show_entries", "stream=nb_read_packets,channels",
        "-of", "csv=p=0", input,
      ])
    #expect(packets.text.trimmingCharacters(in: .whitespacesAndNewlines) == "2,12")
    let ffmpeg = try run(
      "ffmpeg", ["-nostdin", "-v", "error", "-i", input, "-map", "0:a:0", "-f", "s16le", "-"])
    #expect(ffmpeg.status != 0 && ffmpeg.stdout.isEmpty)
    let directory = try TemporaryDirectory()
    let result = try run("media2wav", ["--json", input, "-o", directory.path("out.wav")])
    #expect(result.status == 1)
    #expect(value(try result.json(), "error", "code") as? String == "no_decodable_audio")
    #expect(directory.contents.isEmpty)
  }

  @Test(arguments: ["surround_5.1.ac3", "tone_24bit_96k.flac", "tone.m4a"])
  func emptyOutputHasFFmpegsHeader(_ fixture: String) throws {
    // A start past the end: no packet reaches the decoder, the WAV is empty, and its header
    // (format, channels, mask) is the one ffmpeg writes, byte for byte.
    let directory = try TemporaryDirectory()
    let input = "\(fixturesDirectory)/\(fixture)"
    let ours = directory.path("ours.wav")
    let theirs = directory.path("ffmpeg.wav")
    let result = try run("media2wav", ["-q", "--start", "100", input, "-o", ours])
    #expect(result.status == 0, "\(result.stderr)")
    let ffmpeg = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-ss", "100", "-i", input, "-map", "0:a:0", "-map_metadata",
        "-1", "-fflags", "+bitexact", "-acodec", "pcm_s16le", theirs,
      ])
    #expect(ffmpeg.status == 0)
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: ours))
        == Data(contentsOf: URL(fileURLWithPath: theirs)))
  }
}
