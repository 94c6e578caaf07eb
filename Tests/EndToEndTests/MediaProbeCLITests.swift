import Foundation
import Testing

/// mediaprobe as scripts use it: errors, exit codes, many files, pipes, untrusted input.
@Suite struct MediaProbeCLITests {
  @Test(arguments: [
    ("hostile_empty.mp4", "empty"), ("hostile_random.bin", "unrecognized_format"),
    ("hostile_text.txt", "unrecognized_format"), ("hostile_truncated.mp4", "truncated"),
    ("hostile_no_moov.mp4", "truncated"), ("hostile_playlist.m3u8", "refused_reference"),
    ("hostile_list.ffconcat", "refused_reference"),
  ])
  func hostileInputs(_ fixture: String, _ code: String) throws {
    let result = try run("mediaprobe", ["\(fixturesDirectory)/\(fixture)"])
    #expect(result.status == 1)
    let json = try result.json()
    #expect(value(json, "error", "code") as? String == code)
    #expect(value(json, "path") as? String == "\(fixturesDirectory)/\(fixture)")
    #expect(result.stderr.contains(fixture))  // a message for humans on stderr
  }

  @Test func missingAndDirectory() throws {
    let result = try run("mediaprobe", ["no/such/file.mp4", fixturesDirectory])
    #expect(result.status == 1)
    let array = try #require(try result.json() as? [Any])
    #expect(value(array, 0, "error", "code") as? String == "not_found")
    #expect(value(array, 1, "error", "code") as? String == "not_a_file")
  }

  @Test func unreadableFile() throws {
    let directory = try TemporaryDirectory()
    let path = try unreadableCopy(named: "secret.wav", in: directory)
    let result = try runUnprivileged("mediaprobe", [path])
    #expect(result.status == 1, "\(result.stderr)")
    #expect(value(try result.json(), "error", "code") as? String == "permission_denied")
    #expect(result.stderr.contains("secret.wav"))
  }

  @Test func failuresDoNotStopTheOthers() throws {
    let result = try run(
      "mediaprobe", ["\(fixturesDirectory)/hostile_empty.mp4", "\(fixturesDirectory)/tone.wav"])
    #expect(result.status == 1)
    let array = try #require(try result.json() as? [Any])
    #expect(array.count == 2)
    #expect(value(array, 1, "container", "format_name") as? String == "wav")
  }

  @Test func exitCodes() throws {
    #expect(try run("mediaprobe", ["\(fixturesDirectory)/tone.wav"]).status == 0)
    #expect(try run("mediaprobe", ["--jobs", "0", "\(fixturesDirectory)/tone.wav"]).status == 64)
    #expect(try run("mediaprobe", ["--no-such-option", "x"]).status == 64)
    #expect(try run("mediaprobe", []).status == 64)
  }

  @Test func layouts() throws {
    let one = try run("mediaprobe", ["\(fixturesDirectory)/tone.wav"])
    #expect(try one.json() is [String: Any])
    let two = try run(
      "mediaprobe", ["\(fixturesDirectory)/tone.wav", "\(fixturesDirectory)/tone.ogg"])
    #expect((try two.json() as? [Any])?.count == 2)
    let lines = try run(
      "mediaprobe", ["--ndjson", "\(fixturesDirectory)/tone.wav", "\(fixturesDirectory)/tone.ogg"])
    let split = lines.text.split(separator: "\n")
    #expect(split.count == 2)
    for line in split {
      #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any])
    }
  }

  @Test func standardInput() throws {
    let data = try Data(
      contentsOf: packageRoot.appendingPathComponent("\(fixturesDirectory)/h264_30fps.mkv"))
    let result = try run("mediaprobe", ["-"], stdin: data)
    #expect(result.status == 0, "\(result.stderr)")
    let json = try result.json()
    #expect(value(json, "path") as? String == "-")
    #expect(value(json, "size_bytes") == nil)
    #expect(value(json, "container", "format_name") as? String == "matroska,webm")
    #expect(value(json, "streams", 0, "video", "width") as? Int == 320)
  }

  /// A FIFO is read once, through the descriptor opened for it (the MP4 box walk never opens
  /// the path again, which would block); one nobody writes to, or whose writer stalls, fails
  /// with `timeout` instead of hanging the batch.
  @Test(arguments: ["mediaprobe", "mediacompat"])
  func fifos(_ tool: String) throws {
    let directory = try TemporaryDirectory()
    let fifo = directory.path("clip.mp4")
    #expect(mkfifo(fifo, 0o600) == 0)
    let binary = productsDirectory.appendingPathComponent(tool).path
    let fixture = packageRoot.appendingPathComponent("\(fixturesDirectory)/h264_25fps.mp4").path
    let platform = tool == "mediacompat" ? "--platform chrome --json" : ""
    // A writer: the file probes as from a pipe (no size, no fast start), complete.
    let fed = try run(
      "bash", ["-c", "cat '\(fixture)' > '\(fifo)' & '\(binary)' \(platform) '\(fifo)'; wait"])
    #expect(fed.status == 0, "\(fed.stderr)")
    if tool == "mediaprobe" {
      #expect(value(try fed.json(), "streams", 0, "frame_count") as? Int == 25)
      #expect(value(try fed.json(), "size_bytes") == nil)
    }
    // No writer, and a writer that stalls after 1000 bytes: timeout, in about the limit.
    // (The stalled writer is this shell itself: it holds the FIFO open for writing on fd 3.)
    for writer in ["true", "exec 3<>'\(fifo)'; head -c 1000 '\(fixture)' >&3"] {
      let started = Date()
      let stalled = try run(
        "bash",
        [
          "-c",
          "\(writer)\n'\(binary)' --timeout 1 \(platform) '\(fifo)'; s=$?; exit $s",
        ])
      #expect(stalled.status == (tool == "mediacompat" ? 2 : 1), "\(writer): \(stalled.stderr)")
      #expect(stalled.text.contains("\"timeout\""), "\(writer): \(stalled.text)")
      // Without the limit it would wait for ever; the bound leaves room for a loaded machine.
      #expect(Date().timeIntervalSince(started) < 10, "\(writer)")
    }
  }

  @Test func recursiveInInputOrderWithParallelJobs() throws {
    let serial = try run(
      "mediaprobe", ["--ndjson", "--jobs", "1", "--recursive", fixturesDirectory])
    let parallel = try run(
      "mediaprobe", ["--ndjson", "--jobs", "2", "--recursive", fixturesDirectory])
    #expect(serial.stdout == parallel.stdout)
    let paths = serial.text.split(separator: "\n").compactMap {
      value(try? JSONSerialization.jsonObject(with: Data($0.utf8)), "path") as? String
    }
    #expect(paths == allFixtures.map { "\(fixturesDirectory)/\($0)" })
  }

  @Test func localFileNamedLikeAURL() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "mediaprobe-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.copyItem(
      at: packageRoot.appendingPathComponent("\(fixturesDirectory)/tone.wav"),
      to: directory.appendingPathComponent("http:example.com"))
    let result = try run("mediaprobe", ["http:example.com"], in: directory)
    #expect(result.status == 0)
    #expect(value(try result.json(), "container", "format_name") as? String == "wav")
  }

  @Test func referencesOnlyWhenAllowed() throws {
    // A playlist of a local segment: refused by default, read with --allow-references.
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "mediaprobe-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.copyItem(
      at: packageRoot.appendingPathComponent("\(fixturesDirectory)/h264_60fps.ts"),
      to: directory.appendingPathComponent("segment.ts"))
    try "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:1.0,\nsegment.ts\n#EXT-X-ENDLIST\n"
      .write(to: directory.appendingPathComponent("list.m3u8"), atomically: true, encoding: .utf8)
    let refused = try run("mediaprobe", ["list.m3u8"], in: directory)
    #expect(value(try refused.json(), "error", "code") as? String == "refused_reference")
    let allowed = try run("mediaprobe", ["--allow-references", "list.m3u8"], in: directory)
    #expect(allowed.status == 0, "\(allowed.stderr)")
    #expect(value(try allowed.json(), "container", "format_name") as? String == "hls")
    // Even when allowed, the network stays out of reach: only the file protocol is whitelisted.
    let network = try run(
      "mediaprobe",
      ["--allow-references", "\(packageRoot.path)/\(fixturesDirectory)/hostile_playlist.m3u8"],
      in: directory)
    #expect(network.status == 1)
  }

  @Test func outputValidatesAgainstTheSchema() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "mediaprobe-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    var files: [String] = []
    let runs: [(String, [String], String)] = [
      ("plain", [], fixturesDirectory), ("scan", ["--scan"], fixturesDirectory),
      ("lines", ["--ndjson"], fixturesDirectory),
      ("verified", ["--verify", "--hash", "md5"], MediaProbeVerifyTests.damagedDirectory),
    ]
    for (name, options, folder) in runs {
      let result = try run("mediaprobe", options + ["--recursive", folder])
      let file = directory.appendingPathComponent("\(name).json")
      try result.stdout.write(to: file)
      files.append(file.path)
    }
    let single = try run("mediaprobe", ["\(fixturesDirectory)/orient_right.mp4"])
    let file = directory.appendingPathComponent("single.json")
    try single.stdout.write(to: file)
    files.append(file.path)
    let validation = try run(
      "python3", ["Scripts/validate-json.py", "schemas/mediaprobe.schema.json"] + files)
    #expect(validation.status == 0, "\(validation.stderr)")
  }
}
