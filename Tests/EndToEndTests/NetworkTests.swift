import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking  // Data(contentsOf:) for http URLs on Linux
#endif

/// Inputs read over HTTP with `--allow-network`, from a loopback server with Range support that
/// counts the bytes it sends (Scripts/range-server.py). Nothing leaves 127.0.0.1.
@Suite(.serialized) struct NetworkTests {
  /// A running server over a folder; stopped when released.
  final class Server {
    let process = Process()
    let port: Int
    let folder: TemporaryDirectory

    init(files: [String]) throws {
      folder = try TemporaryDirectory()
      for file in files {
        try FileManager.default.copyItem(
          atPath: packageRoot.appendingPathComponent(file).path,
          toPath: folder.path((file as NSString).lastPathComponent))
      }
      let portFile = folder.path("port")
      process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      process.arguments = [
        "python3", packageRoot.appendingPathComponent("Scripts/range-server.py").path,
        folder.url.path, portFile,
      ]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      let deadline = Date().addingTimeInterval(10)
      var port: Int?
      while port == nil && Date() < deadline {
        port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
        if port == nil { usleep(20_000) }
      }
      self.port = try #require(port, "the test server did not start")
    }

    deinit {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }

    func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

    /// Bytes the server sent since the last reset.
    func stats() throws -> (bytes: Int, requests: Int) {
      let json = try details()
      return (json.bytes, json.requests)
    }

    /// What the server saw since the last reset: body bytes sent, requests, connections (the
    /// tools', without the one asking), each request's Range header and headers.
    func details() throws -> (
      bytes: Int, requests: Int, connections: Int, ranges: [String?], headers: [[String: String]]
    ) {
      let json =
        try JSONSerialization.jsonObject(
          with: try Data(contentsOf: URL(string: url("__stats"))!)) as? [String: Any] ?? [:]
      let headers = (json["headers"] as? [[[String]]] ?? []).map { pairs in
        Dictionary(pairs.map { ($0[0].lowercased(), $0[1]) }, uniquingKeysWith: { a, _ in a })
      }
      return (
        json["bytes"] as? Int ?? -1, json["requests"] as? Int ?? -1,
        (json["connections"] as? Int ?? 0) - 1,
        (json["ranges"] as? [Any] ?? []).map { $0 as? String },
        headers
      )
    }

    func reset() throws { _ = try Data(contentsOf: URL(string: url("__reset"))!) }
  }

  static let files = [
    "Tests/Fixtures/h264_25fps.mp4", "Tests/Fixtures/h264_23.976fps.mov",
    "Tests/Fixtures/tone.ogg", "Tests/Fixtures/hostile_playlist.m3u8",
  ]

  /// A record without the fields that name where the bytes came from.
  static func content(_ json: Any, dropping more: [String] = []) -> String {
    var object = json as? [String: Any] ?? [:]
    for key in ["path", "size_bytes", "bytes_read"] + more { object[key] = nil }
    return String(
      decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        ?? Data(),
      as: UTF8.self)
  }

  @Test func remoteRecordEqualsTheLocalOne() throws {
    let server = try Server(files: Self.files)
    for file in Self.files.dropLast() {
      let name = (file as NSString).lastPathComponent
      let remote = try run("mediaprobe", ["--allow-network", "--scan", server.url(name)])
      #expect(remote.status == 0, "\(name): \(remote.stderr)")
      let local = try run("mediaprobe", ["--scan", file])
      #expect(Self.content(try remote.json()) == Self.content(try local.json()), "\(name)")
      #expect(
        value(try remote.json(), "size_bytes") as? Int == value(try local.json(), "size_bytes")
          as? Int)
      #expect((value(try remote.json(), "bytes_read") as? Int ?? 0) > 0)
    }
    // A small file crosses the network once, in one request: going back to its head (after the
    // format probe, for the box walk) is served from what already came.
    for name in ["tone.ogg", "h264_25fps.mp4"] {
      try server.reset()
      let once = try run("mediaprobe", ["--allow-network", server.url(name)])
      let served = try server.stats()
      let size = try #require(value(try once.json(), "size_bytes") as? Int)
      #expect(served.requests == 1 && served.bytes == size, "\(name): \(served), size \(size)")
      #expect(value(try once.json(), "bytes_read") as? Int == size)
    }
    // mediacompat reads URLs the same way.
    let compat = try run(
      "mediacompat", ["--allow-network", "--platform", "chrome", "--json", server.url("tone.ogg")])
    #expect(value(try compat.json(), "results", 0, "verdict") as? String == "pass")
  }

  /// media2wav reads a URL the same way: the WAV equals the local file's, byte for byte; a URL
  /// needs a folder for its WAV.
  @Test func media2wavReadsURLs() throws {
    let server = try Server(files: Self.files)
    let directory = try TemporaryDirectory()
    for folder in ["r", "l"] {
      try FileManager.default.createDirectory(
        atPath: directory.path(folder), withIntermediateDirectories: true)
    }
    let remote = try run(
      "media2wav", ["--allow-network", "--output-dir", directory.path("r"), server.url("tone.ogg")])
    #expect(remote.status == 0, "\(remote.stderr)")
    let local = try run(
      "media2wav", ["--output-dir", directory.path("l"), "\(fixturesDirectory)/tone.ogg"])
    #expect(local.status == 0)
    let a = try Data(contentsOf: URL(fileURLWithPath: directory.path("r/tone.wav")))
    let b = try Data(contentsOf: URL(fileURLWithPath: directory.path("l/tone.wav")))
    #expect(a == b && !a.isEmpty)
    let nowhere = try run("media2wav", ["--allow-network", "--json", server.url("tone.ogg")])
    #expect(value(try nowhere.json(), "error", "code") as? String == "invalid_option")
  }

  /// A fast-start MP4 is probed from its head: a small fraction of it crosses the network.
  @Test func fastStartIsProbedFromItsHead() throws {
    let directory = try TemporaryDirectory()
    let big = directory.path("big.mp4")
    let made = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x480:rate=25", "-t", "20",
        "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "2M", "-movflags", "+faststart", big,
      ])
    #expect(made.status == 0)
    let server = try Server(files: [])
    try FileManager.default.copyItem(atPath: big, toPath: server.folder.path("big.mp4"))
    let result = try run("mediaprobe", ["--allow-network", server.url("big.mp4")])
    let json = try result.json()
    let size = try #require(value(json, "size_bytes") as? Int)
    let read = try #require(value(json, "bytes_read") as? Int)
    #expect(value(json, "duration", "seconds") as? Double == 20)
    // The client's reads: what a paying user is charged for over a metered link.
    #expect(Double(read) / Double(size) < 0.1, "read \(read) of \(size) bytes")
    print("fast-start MP4 over HTTP: read \(read) of \(size) bytes (\(100 * read / size)%)")
  }

  @Test func onlyWhatIsAllowedIsOpened() throws {
    let server = try Server(files: Self.files)
    // Without --allow-network a URL is a local file name.
    let local = try run("mediaprobe", [server.url("h264_25fps.mp4")])
    #expect(value(try local.json(), "error", "code") as? String == "not_found")
    // A redirect to another scheme is refused; to the same server it is followed.
    let file = try run("mediaprobe", ["--allow-network", server.url("redirect-file")])
    #expect(file.status == 1)
    #expect(value(try file.json(), "error") != nil)
    let redirected = try run("mediaprobe", ["--allow-network", server.url("redirect/tone.ogg")])
    #expect(value(try redirected.json(), "container", "format_name") as? String == "ogg")
    // Playlists stay refused, over the network too.
    let playlist = try run("mediaprobe", ["--allow-network", server.url("hostile_playlist.m3u8")])
    #expect(value(try playlist.json(), "error", "code") as? String == "refused_reference")
    let missing = try run("mediaprobe", ["--allow-network", server.url("nothing.mp4")])
    #expect(value(try missing.json(), "error", "code") as? String == "remote_not_found")
  }

  @Test func limits() throws {
    let server = try Server(files: Self.files)
    let started = Date()
    let stalled = try run(
      "mediaprobe", ["--allow-network", "--timeout", "1", server.url("stall/h264_25fps.mp4")])
    #expect(value(try stalled.json(), "error", "code") as? String == "timeout")
    #expect(Date().timeIntervalSince(started) < 3)
    // A cap: the probe stops reading there (FFmpeg's client reads 32 KiB at a time).
    let capped = try run(
      "mediaprobe", ["--allow-network", "--max-bytes", "4096", server.url("h264_23.976fps.mov")])
    let json = try capped.json()
    let read = value(json, "bytes_read") as? Int ?? 0
    #expect(value(json, "error") != nil || (json as? [String: Any])?["warnings"] != nil)
    #expect(read <= 4096 + 65536, "\(read)")
  }

  /// Makes `name` in `folder` with the ffmpeg CLI: a 10 s 320x240 H.264 MP4 with its `moov`
  /// box last (about 1 MB: a probe needs two requests, the head and the index).
  static func makeMoovLast(_ path: String) throws {
    let made = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25",
        "-t", "10", "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "800k", path,
      ])
    #expect(made.status == 0, "\(made.stderr)")
  }

  /// Servers that fail, change the file, ignore ranges or redirect badly: each failure has its
  /// own code, retries resume at the exact byte, nothing of a wrong answer is used.
  @Test func misbehavingServers() throws {
    let server = try Server(files: Self.files)
    let big = server.folder.path("big.mp4")
    try Self.makeMoovLast(big)
    let size = try #require(try FileManager.default.attributesOfItem(atPath: big)[.size] as? Int)
    let local = try run("mediaprobe", ["--scan", big]).json()
    func probe(_ path: String) throws -> Any {
      try run("mediaprobe", ["--allow-network", "--scan", server.url(path)]).json()
    }
    // Two 503 answers, then the file: retried after a backoff; the record is the local one.
    try server.reset()
    #expect(Self.content(try probe("fail/2/503/big.mp4")) == Self.content(local))
    #expect(
      try server.details().ranges.prefix(3) == ["bytes=0-65535", "bytes=0-65535", "bytes=0-65535"])
    // A connection reset mid-body: the next request starts at the very byte the reset cut.
    try server.reset()
    let cut = size / 2
    #expect(Self.content(try probe("reset-at/\(cut)/big.mp4")) == Self.content(local))
    let resumed = try server.details()
    #expect(resumed.ranges.contains { $0?.hasPrefix("bytes=\(cut)-") == true }, "\(resumed.ranges)")
    #expect(resumed.bytes == size, "each byte sent once: \(resumed.bytes) of \(size)")
    // A body that stalls after 1000 bytes: the attempt is given up after a third of --timeout
    // (at most 15 s) and retried from byte 1000, within the time limit.
    try server.reset()
    let started = Date()
    let stalled = try run(
      "mediaprobe",
      ["--allow-network", "--scan", "--timeout", "6", server.url("stall-once/big.mp4")])
    #expect(Self.content(try stalled.json()) == Self.content(local), "\(stalled.text)")
    #expect(Date().timeIntervalSince(started) < 6)
    #expect(try server.details().ranges.prefix(2) == ["bytes=0-65535", "bytes=1000-65535"])
    // Errors with their own codes.
    let failures: [(String, String)] = [
      ("fail/9/503/big.mp4", "remote_http_error"), ("status/500/big.mp4", "remote_http_error"),
      ("status/400/big.mp4", "remote_http_error"), ("status/403/big.mp4", "remote_forbidden"),
      ("status/401/big.mp4", "remote_forbidden"), ("status/404/big.mp4", "remote_not_found"),
      ("status/410/big.mp4", "remote_not_found"),
      ("status/416/big.mp4", "remote_range_not_satisfiable"),
      // The file changes after the first request (same size, other bytes and ETag), grows, or
      // the server answers another range than asked for.
      ("change/big.mp4", "remote_changed"), ("grow/big.mp4", "remote_changed"),
      ("badrange/big.mp4", "remote_changed"),
      ("redirect-loop", "remote_redirect"), ("redirect-file", "remote_redirect"),
    ]
    for (path, code) in failures {
      let result = try run("mediaprobe", ["--allow-network", server.url(path)])
      #expect(result.status == 1, "\(path)")
      #expect(
        value(try result.json(), "error", "code") as? String == code, "\(path): \(result.text)")
    }
    // A server that ignores ranges: read once, in order, with a warning, as the same bytes
    // through a pipe are (an index at the end is reached by reading through the data).
    let streamed = try run("mediaprobe", ["--allow-network", server.url("norange/big.mp4")]).json()
    let piped = try run("mediaprobe", ["-"], stdin: try Data(contentsOf: URL(fileURLWithPath: big)))
    var warnings = value(streamed, "warnings") as? [String] ?? []
    #expect(warnings.contains("remote_without_ranges"))
    warnings.removeAll { $0 == "remote_without_ranges" }
    #expect(warnings == value(try piped.json(), "warnings") as? [String] ?? [])
    #expect(
      Self.content(streamed, dropping: ["warnings"])
        == Self.content(try piped.json(), dropping: ["warnings"]))
    #expect(value(streamed, "duration", "seconds") as? Double == 10)
    // A small file that fits the first answer is simply read whole, without a warning.
    let small = try probe("norange/tone.ogg")
    #expect(value(small, "warnings") as? [String] ?? [] == [])
    #expect(
      Self.content(small)
        == Self.content(try run("mediaprobe", ["--scan", "Tests/Fixtures/tone.ogg"]).json()))
  }

  /// media2wav over HTTP through a connection reset mid-body: the WAV equals the local one byte
  /// for byte, the server sends each byte of the file once (bounded requests, resumed at the
  /// cut), on two connections (the first one reset).
  @Test func media2wavSurvivesAReset() throws {
    let server = try Server(files: [])
    let file = server.folder.path("long.m4a")
    // Three minutes of stereo AAC (about 2.9 MB; `make test-large` reads 30 minutes).
    let made = try run(
      "ffmpeg",
      [
        "-nostdin", "-v", "error", "-f", "lavfi", "-i",
        "sine=frequency=440:sample_rate=48000:duration=180",
        "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=48000:duration=180",
        "-filter_complex", "amerge", "-c:a", "aac", "-b:a", "128k", file,
      ])
    #expect(made.status == 0, "\(made.stderr)")
    let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
    let directory = try TemporaryDirectory()
    for folder in ["r", "l"] {
      try FileManager.default.createDirectory(
        atPath: directory.path(folder), withIntermediateDirectories: true)
    }
    let cut = size * 2 / 3
    try server.reset()
    let remote = try run(
      "media2wav",
      [
        "--allow-network", "--output-dir", directory.path("r"),
        server.url("reset-at/\(cut)/long.m4a"),
      ])
    #expect(remote.status == 0, "\(remote.stderr)")
    let served = try server.details()
    let local = try run("media2wav", ["--output-dir", directory.path("l"), file])
    #expect(local.status == 0)
    let a = try Data(contentsOf: URL(fileURLWithPath: directory.path("r/long.wav")))
    let b = try Data(contentsOf: URL(fileURLWithPath: directory.path("l/long.wav")))
    #expect(a == b && a.count > 30_000_000)
    #expect(served.ranges.contains { $0?.hasPrefix("bytes=\(cut)-") == true }, "\(served.ranges)")
    #expect(Double(served.bytes) <= 1.02 * Double(size), "\(served.bytes) bytes for \(size)")
    #expect(served.connections == 2, "\(served.connections) connections")
    #expect(served.ranges.allSatisfy { $0?.wholeMatch(of: /bytes=\d+-\d+/) != nil })
    print(
      "media2wav over HTTP through a reset: \(served.bytes) bytes sent for \(size) (\(served.requests) requests)"
    )
  }

  /// `--header`: sent with every request to the URL's origin (a redirect elsewhere drops it),
  /// from the command line or a file; its value appears nowhere in what the tools print.
  @Test func requestHeaders() throws {
    let server = try Server(files: Self.files)
    let directory = try TemporaryDirectory()
    let file = directory.path("headers")
    try "# a comment\nX-Api-Key: key-9f2c7e\n\nAuthorization: Bearer token-51aa\n".write(
      toFile: file, atomically: true, encoding: .utf8)
    let secrets = ["secret-0d41", "key-9f2c7e", "token-51aa"]
    func leaks(_ result: Run) -> Bool {
      secrets.contains { result.text.contains($0) || result.stderr.contains($0) }
    }
    for tool in ["mediaprobe", "mediacompat"] {
      try server.reset()
      let result = try run(
        tool,
        ["--allow-network", "--header", "X-Secret: secret-0d41", "--header", "@" + file]
          + (tool == "mediacompat" ? ["--json"] : []) + [server.url("h264_25fps.mp4")])
      #expect(result.status == 0, "\(tool): \(result.stderr)")
      #expect(!leaks(result))
      let seen = try server.details().headers
      #expect(!seen.isEmpty)
      for headers in seen {
        #expect(headers["x-secret"] == "secret-0d41")
        #expect(headers["x-api-key"] == "key-9f2c7e")
        #expect(headers["authorization"] == "Bearer token-51aa")
      }
    }
    // An error record does not carry them either; neither does --verbose.
    let refused = try run(
      "mediaprobe",
      [
        "--allow-network", "--verbose", "--header", "X-Secret: secret-0d41",
        server.url("status/403/tone.ogg"),
      ])
    #expect(value(try refused.json(), "error", "code") as? String == "remote_forbidden")
    #expect(!leaks(refused))
    // A redirect to another origin (localhost, not 127.0.0.1) does not take them along.
    try server.reset()
    let moved = try run(
      "mediaprobe",
      [
        "--allow-network", "--header", "X-Secret: secret-0d41",
        server.url("redirect-host/tone.ogg"),
      ])
    #expect(value(try moved.json(), "container", "format_name") as? String == "ogg")
    let hops = try server.details().headers
    #expect(hops.count == 2)
    #expect(hops.first?["x-secret"] == "secret-0d41")
    #expect(hops.last?["x-secret"] == nil && hops.last?["host"]?.hasPrefix("localhost:") == true)
    // Malformed or reserved headers are usage errors that do not repeat the value.
    for bad in [
      "X-Secret secret-0d41", "Range: bytes=0-secret-0d41", "X-Secret: a\rsecret-0d41",
      "Bad Name: secret-0d41",
    ] {
      let result = try run(
        "mediaprobe", ["--allow-network", "--header", bad, server.url("tone.ogg")])
      #expect(result.status == 64, "\(bad)")
      #expect(!leaks(result), "\(bad): \(result.stderr)")
    }
  }

  /// libcurl is loaded by the first URL only: no tool links it (it and the libraries it brings
  /// would load at every start), and a run on local files never maps it (the dynamic loader's
  /// own trace, `LD_DEBUG=files`, names every library it opens).
  @Test func libcurlIsLoadedByTheFirstURLOnly() throws {
    for tool in ["mediaprobe", "media2wav", "mediacompat"] {
      let linked = try run("ldd", [productsDirectory.appendingPathComponent(tool).path])
      #expect(linked.status == 0 && !linked.text.contains("libcurl"), "\(tool): \(linked.text)")
    }
    let server = try Server(files: Self.files)
    func loads(_ arguments: [String]) throws -> String {
      let process = Process()
      process.executableURL = productsDirectory.appendingPathComponent("mediaprobe")
      process.arguments = arguments
      process.currentDirectoryURL = packageRoot
      process.environment = ProcessInfo.processInfo.environment.merging(["LD_DEBUG": "files"]) {
        $1
      }
      let err = Pipe()
      process.standardError = err
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      let trace = err.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return String(decoding: trace, as: UTF8.self)
    }
    #expect(!(try loads(["Tests/Fixtures/tone.ogg"])).contains("libcurl.so"))
    #expect(try loads(["--allow-network", server.url("tone.ogg")]).contains("libcurl.so.4"))
  }

  /// `--files-from` may mix local paths and URLs; media2wav and mediacompat take URLs too.
  @Test func listsMixPathsAndURLs() throws {
    let server = try Server(files: Self.files)
    let directory = try TemporaryDirectory()
    let list = directory.path("list")
    try "Tests/Fixtures/tone.ogg\n\(server.url("tone.ogg"))\nTests/Fixtures/h264_25fps.mp4\n".write(
      toFile: list, atomically: true, encoding: .utf8)
    let probed = try run("mediaprobe", ["--allow-network", "--files-from", list])
    #expect(probed.status == 0, "\(probed.stderr)")
    let records = try #require(try probed.json() as? [Any])
    #expect(records.count == 3)
    #expect(Self.content(records[0]) == Self.content(records[1]))
    #expect(value(records[1], "path") as? String == server.url("tone.ogg"))
    let compat = try run(
      "mediacompat", ["--allow-network", "--platform", "chrome", "--json", "--files-from", list])
    #expect(compat.status == 0, "\(compat.stderr)")
    try FileManager.default.createDirectory(
      atPath: directory.path("out"), withIntermediateDirectories: true)
    let wav = try run(
      "media2wav",
      ["--allow-network", "--output-dir", directory.path("out"), "--json", server.url("tone.ogg")])
    #expect(wav.status == 0, "\(wav.stderr)")
    #expect(FileManager.default.fileExists(atPath: directory.path("out/tone.wav")))
  }
}

/// nginx from Debian on 127.0.0.1 (run as this user, with a temporary configuration and an
/// access log recording each request's `Range` header and `$bytes_sent`): what a real server
/// sends for a remote probe, against what the local probe of the same file reads.
final class Nginx {
  let process = Process()
  let port: Int
  /// HTTPS with a self-signed certificate (made by the openssl CLI), on this port.
  let tlsPort: Int
  let root: TemporaryDirectory
  let work: TemporaryDirectory

  /// nginx starts here (a server started and stopped once); if not, the tests are skipped.
  static let canStart: Bool = (try? Nginx()) != nil

  init() throws {
    root = try TemporaryDirectory()
    work = try TemporaryDirectory()
    port = try freePort()
    tlsPort = try freePort()
    let w = work.url.path
    let certificate = try run(
      "openssl",
      [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-days", "1",
        "-keyout", "\(w)/key.pem", "-out", "\(w)/cert.pem",
      ])
    guard certificate.status == 0 else { throw CocoaError(.executableLoad) }
    let config = """
      daemon off;
      master_process off;
      worker_processes 1;
      pid \(w)/nginx.pid;
      error_log \(w)/error.log;
      events { worker_connections 64; }
      http {
        log_format cost '$request_uri|$http_range|$status|$bytes_sent|$connection';
        access_log \(w)/access.log cost;
        client_body_temp_path \(w)/body; proxy_temp_path \(w)/proxy;
        fastcgi_temp_path \(w)/fastcgi; uwsgi_temp_path \(w)/uwsgi; scgi_temp_path \(w)/scgi;
        server { listen 127.0.0.1:\(port); root \(root.url.path); }
        server {
          listen 127.0.0.1:\(tlsPort) ssl;
          ssl_certificate \(w)/cert.pem;
          ssl_certificate_key \(w)/key.pem;
          root \(root.url.path);
        }
      }
      """
    try config.write(toFile: work.path("nginx.conf"), atomically: true, encoding: .utf8)
    let binary = ["/usr/sbin/nginx", "/usr/bin/nginx"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
    process.executableURL = URL(fileURLWithPath: try #require(binary, "no nginx"))
    process.arguments = ["-p", w, "-c", work.path("nginx.conf"), "-e", work.path("error.log")]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
      if !process.isRunning { throw CocoaError(.executableLoad) }
      if (try? Data(contentsOf: URL(string: "http://127.0.0.1:\(port)/")!)) != nil
        || FileManager.default.fileExists(atPath: work.path("access.log"))
          && (try? String(contentsOfFile: work.path("access.log"), encoding: .utf8))?.isEmpty
            == false
      {
        clearLog()
        return
      }
      usleep(50_000)
    }
    throw CocoaError(.executableLoad)
  }

  deinit {
    // SIGKILL: test runners block SIGTERM, and nginx inherits the mask.
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

  func clearLog() { truncate(work.path("access.log"), 0) }

  /// The requests logged since the last `clearLog`, once the log stops growing.
  func requests() -> [(range: String, status: Int, bytesSent: Int, connection: String)] {
    var text = ""
    for _ in 0..<20 {
      usleep(50_000)
      let now = (try? String(contentsOfFile: work.path("access.log"), encoding: .utf8)) ?? ""
      if now == text && !now.isEmpty { break }
      text = now
    }
    return text.split(separator: "\n").map { line in
      let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
      return (fields[1], Int(fields[2]) ?? 0, Int(fields[3]) ?? 0, fields[4])
    }
  }
}

/// A TCP port nobody listens on now (the kernel's pick for port 0).
private func freePort() throws -> Int {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
    }
  }
  guard bound else { throw CocoaError(.fileNoSuchFile) }
  return Int(UInt16(bigEndian: address.sin_port))
}

/// Remote probes cost about what a local probe reads, measured on nginx's side.
@Suite(.serialized, .enabled(if: Nginx.canStart, "nginx could not start on 127.0.0.1"))
struct RemoteCostTests {
  /// The files, made with the ffmpeg CLI: 8 s of 640x480 H.264 at 2 Mb/s with AAC, faststart
  /// and not; the same in Matroska (Vorbis) and MPEG-TS (MP2); 2 minutes of MP3 with an ID3v2
  /// tag holding a cover picture (and an ID3v1 tag); 30 s of stereo 16-bit WAV.
  static let recipes: [(name: String, arguments: [String])] = {
    let video = [
      "-f", "lavfi", "-i", "testsrc2=size=640x480:rate=25", "-f", "lavfi", "-i",
      "sine=frequency=440:sample_rate=48000", "-t", "8", "-c:v", "libx264", "-preset",
      "ultrafast", "-b:v", "2M",
    ]
    return [
      ("moov-first.mp4", video + ["-c:a", "aac", "-movflags", "+faststart"]),
      ("moov-last.mp4", video + ["-c:a", "aac"]),
      ("video.mkv", video + ["-c:a", "libvorbis"]),
      ("video.ts", video + ["-c:a", "mp2"]),
      (
        "tagged.mp3",
        [
          "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-f", "lavfi", "-i",
          "testsrc2=size=300x300:rate=1", "-t", "120", "-map", "0", "-map", "1:v", "-frames:v",
          "1", "-c:a", "libmp3lame", "-b:a", "128k", "-c:v", "png", "-disposition:v",
          "attached_pic", "-id3v2_version", "3", "-write_id3v1", "1", "-metadata", "title=Tone",
        ]
      ),
      (
        "tone.wav",
        [
          "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-ac", "2", "-t", "30",
          "-c:a", "pcm_s16le",
        ]
      ),
    ]
  }()

  @Test func remoteProbesCostWhatTheyRead() throws {
    let nginx = try Nginx()
    var table: [String] = []
    for recipe in Self.recipes {
      let path = nginx.root.path(recipe.name)
      let made = try run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + recipe.arguments + [path])
      #expect(made.status == 0, "\(recipe.name): \(made.stderr)")
      let local = try run("mediaprobe", [path]).json()
      let read = try #require(value(local, "bytes_read") as? Int)
      nginx.clearLog()
      let remote = try run("mediaprobe", ["--allow-network", nginx.url(recipe.name)])
      #expect(remote.status == 0, "\(recipe.name): \(remote.stderr)")
      let requests = nginx.requests()
      let sent = requests.reduce(0) { $0 + $1.bytesSent }
      // The record is the local probe's (where the bytes came from aside).
      #expect(
        NetworkTests.content(try remote.json()) == NetworkTests.content(local), "\(recipe.name)")
      // Bounded ranges on one connection, and the bytes sent within 1.5x the local read plus
      // 64 KiB per request.
      #expect(!requests.isEmpty)
      #expect(
        requests.allSatisfy { $0.range.wholeMatch(of: /bytes=\d+-\d+/) != nil && $0.status == 206 },
        "\(recipe.name): \(requests)")
      #expect(Set(requests.map(\.connection)).count == 1, "\(recipe.name): \(requests)")
      #expect(
        Double(sent) <= 1.5 * Double(read) + 65536 * Double(requests.count),
        "\(recipe.name): sent \(sent) in \(requests.count) requests, local read \(read)")
      if recipe.name == "moov-last.mp4" { #expect(requests.count <= 4) }
      let size = try #require(value(local, "size_bytes") as? Int)
      #expect(value(try remote.json(), "size_bytes") as? Int == size, "\(recipe.name)")
      table.append(
        "\(recipe.name): \(size) bytes, local read \(read), sent \(sent) in \(requests.count) "
          + "requests (\(String(format: "%.2f", Double(sent) / Double(read)))x)")
    }
    print("remote probe cost on nginx:\n  " + table.joined(separator: "\n  "))
  }

  /// HTTPS goes through libcurl's TLS with the system's certificate store: a server whose
  /// certificate nobody signed is refused at once (no retry, no byte of the file read), while
  /// the same file over HTTP from the same nginx is read.
  @Test func httpsVerifiesTheCertificate() throws {
    let nginx = try Nginx()
    try FileManager.default.copyItem(
      atPath: "Tests/Fixtures/tone.ogg", toPath: nginx.root.path("tone.ogg"))
    nginx.clearLog()
    let refused = try run(
      "mediaprobe", ["--allow-network", "https://127.0.0.1:\(nginx.tlsPort)/tone.ogg"])
    #expect(refused.status == 1)
    #expect(value(try refused.json(), "error", "code") as? String == "read_error")
    let message = value(try refused.json(), "error", "message") as? String ?? ""
    #expect(message.contains("certificate"), "\(message)")
    #expect(nginx.requests().isEmpty, "a request was sent over an unverified connection")
    let plain = try run("mediaprobe", ["--allow-network", nginx.url("tone.ogg")])
    #expect(value(try plain.json(), "container", "format_name") as? String == "ogg")
  }
}
