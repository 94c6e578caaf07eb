import Foundation
import Testing

/// Hostile inputs under `strace`: without `--allow-references`, no tool opens anything but its
/// input (and media2wav its output), and none creates a socket. The inputs are built by
/// Tests/Hostile/make-inputs.py, each beside the files it names; the oracle is the kernel's view
/// of the system calls.
@Suite struct SecurityTests {
  /// The hostile inputs and the files each one names, built in `directory`.
  static func makeInputs(in directory: TemporaryDirectory) throws -> [(
    name: String, refs: [String]
  )] {
    let made = try run(
      "python3",
      [
        "Tests/Hostile/make-inputs.py", directory.path(""),
        "\(packageRoot.path)/\(fixturesDirectory)",
      ])
    try #require(made.status == 0, "make-inputs.py: \(made.stderr)")
    return made.text.split(separator: "\n").map { line in
      let fields = line.split(separator: "\t").map(String.init)
      return (fields[0], Array(fields.dropFirst()))
    }
  }

  /// What one traced run touched.
  struct Trace {
    /// Every path a file system call named after the first call that named the input (before
    /// it, the dynamic loader and the runtime start up, which no input can influence).
    var pathsAfterInput: [String] = []
    /// Whether the input was touched at all (else the check above would prove nothing).
    var touchedInput = false
    /// Socket calls anywhere in the run.
    var socketCalls: [String] = []
    /// Every path named, for the positive controls.
    var allPaths: Set<String> = []
  }

  /// Runs `tool` under `strace -f -e trace=%file,%network` and reads the trace.
  func traced(
    _ tool: String, _ arguments: [String], input: String, in directory: TemporaryDirectory
  )
    throws -> (Run, Trace)
  {
    let traceFile = directory.path("strace-\(UUID().uuidString).txt")
    let binary = productsDirectory.appendingPathComponent(tool).path
    let result = try run(
      "strace",
      ["-f", "-qq", "-e", "trace=%file,%network", "-o", traceFile, binary] + arguments)
    let text = try String(contentsOfFile: traceFile, encoding: .utf8)
    try? FileManager.default.removeItem(atPath: traceFile)
    var trace = Trace()
    let quoted = try Regex(#""((?:[^"\\]|\\.)*)""#)
    let sockets = try Regex(#"\b(socket|socketpair|connect|bind|listen|accept4?|sendto|sendmsg)\("#)
    for line in text.split(separator: "\n") {
      if line.contains(sockets) { trace.socketCalls.append(String(line)) }
      // execve's quoted strings are the command line, which names the input.
      if line.contains("execve(") { continue }
      let paths = line.matches(of: quoted).map { String($0.output[1].substring ?? "") }
      trace.allPaths.formUnion(paths)
      if !trace.touchedInput && paths.contains(input) { trace.touchedInput = true }
      if trace.touchedInput { trace.pathsAfterInput += paths }
    }
    return (result, trace)
  }

  /// Paths a run may name once it has touched its input: the input, the descriptor-relative
  /// empty path (`fstat`, `linkat(fd, "", AT_EMPTY_PATH)`), and for media2wav its output
  /// directory and what is in it (the unnamed file, its temporary and final names), or a
  /// `/proc/self/fd/N` link source.
  func allowed(_ path: String, input: String, output: String?) -> Bool {
    if path == input || path.isEmpty { return true }
    guard let output else { return false }
    return path == output || path.hasPrefix(output + "/")
      || path.wholeMatch(of: /\/proc\/self\/fd\/[0-9]+/) != nil
  }

  @Test(arguments: ["mediaprobe", "media2wav", "mediacompat"])
  func hostileInputsOpenNothingElse(_ tool: String) throws {
    let directory = try TemporaryDirectory()
    let inputs = try Self.makeInputs(in: directory)
    #expect(inputs.count >= 14)
    let output = directory.path("out")
    try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
    for (name, refs) in inputs {
      let input = directory.path(name)
      let arguments = tool == "media2wav" ? ["--output-dir", output, input] : [input]
      let (result, trace) = try traced(tool, arguments, input: input, in: directory)
      #expect(result.status < 64, "\(tool) \(name): exit \(result.status)\n\(result.stderr)")
      #expect(trace.touchedInput, "\(tool) \(name): the trace never names the input")
      #expect(trace.socketCalls.isEmpty, "\(tool) \(name): \(trace.socketCalls)")
      let outside = Set(
        trace.pathsAfterInput.filter {
          !allowed($0, input: input, output: tool == "media2wav" ? output : nil)
        })
      #expect(outside.isEmpty, "\(tool) \(name) opened \(outside.sorted())")
      for ref in refs {
        let path = ref.hasPrefix("/") ? ref : directory.path(ref)
        #expect(!trace.allPaths.contains(path), "\(tool) \(name) touched \(path)")
      }
    }
  }

  /// Each tool opens its input once: the MP4 box walk reads the descriptor libavformat reads, so
  /// a FIFO is not opened twice and the path cannot be swapped for another file in between.
  @Test(arguments: ["mediaprobe", "media2wav", "mediacompat"])
  func theInputIsOpenedOnce(_ tool: String) throws {
    let directory = try TemporaryDirectory()
    let input = directory.path("clip.mp4")
    try FileManager.default.copyItem(
      atPath: packageRoot.appendingPathComponent("\(fixturesDirectory)/h264_25fps.mp4").path,
      toPath: input)
    let traceFile = directory.path("trace.txt")
    let binary = productsDirectory.appendingPathComponent(tool).path
    let arguments =
      switch tool {
      case "media2wav": ["-o", directory.path("out.wav"), input]
      case "mediacompat": ["--platform", "chrome", input]
      default: [input]
      }
    let result = try run(
      "strace", ["-f", "-qq", "-e", "trace=open,openat", "-o", traceFile, binary] + arguments)
    #expect(result.status == 0, "\(result.stderr)")
    let opens = try String(contentsOfFile: traceFile, encoding: .utf8).split(separator: "\n")
      .filter { $0.contains("\"\(input)\"") }
    #expect(opens.count == 1, "\(tool): \(opens)")
  }

  /// A JPEG named like a pattern is one picture: probed with the single-image demuxer, which
  /// reads only the input. With `--allow-references` FFmpeg's probe keeps image2, which on our
  /// own I/O context reads no pattern either (img2dec.c sets `PT_NONE` when the context has a
  /// `pb`): the same single picture, and still nothing else opened.
  @Test func anImageNamedLikeAPatternIsReadAlone() throws {
    let directory = try TemporaryDirectory()
    _ = try Self.makeInputs(in: directory)
    let input = directory.path("img%03d.jpg")
    for (options, demuxer) in [([String](), "jpeg_pipe"), (["--allow-references"], "image2")] {
      let (result, trace) = try traced("mediaprobe", options + [input], input: input, in: directory)
      #expect(result.status == 0, "\(result.stderr)")
      let json = try result.json()
      #expect(value(json, "container", "format_name") as? String == demuxer)
      #expect(value(json, "streams", 0, "disposition", "still_image") as? Bool == true)
      #expect(trace.touchedInput)
      let outside = Set(trace.pathsAfterInput.filter { !allowed($0, input: input, output: nil) })
      #expect(outside.isEmpty, "\(options): opened \(outside.sorted())")
      for sibling in ["img001.jpg", "img002.jpg"] {
        #expect(!trace.allPaths.contains(directory.path(sibling)), "\(options): \(sibling)")
      }
    }
  }

  /// The same inputs with `--allow-references` do open the files they name: the inputs are
  /// hostile and the trace sees it (the test above can fail).
  @Test func positiveControlWithAllowReferences() throws {
    let directory = try TemporaryDirectory()
    _ = try Self.makeInputs(in: directory)
    for (name, refs) in [
      ("clip.MLV", ["clip.M00"]), ("subs.idx", ["subs.sub"]), ("upload.mp4", ["upload.sub"]),
      ("frame.y", ["frame.U", "frame.V"]), ("manifest.mpd", ["dash-init.mp4"]),
    ] {
      let input = directory.path(name)
      let (_, trace) = try traced(
        "mediaprobe", ["--allow-references", input], input: input, in: directory)
      for ref in refs {
        #expect(trace.allPaths.contains(directory.path(ref)), "\(name) did not open \(ref)")
      }
      // Refused without the flag, with the demuxer named.
      let refused = try run("mediaprobe", [input])
      #expect(value(try refused.json(), "error", "code") as? String == "refused_reference")
    }
  }
}
