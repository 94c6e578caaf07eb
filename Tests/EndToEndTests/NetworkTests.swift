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
      let json =
        try JSONSerialization.jsonObject(
          with: try Data(contentsOf: URL(string: url("__stats"))!)) as? [String: Int]
      return (json?["bytes"] ?? -1, json?["requests"] ?? -1)
    }

    func reset() throws { _ = try Data(contentsOf: URL(string: url("__reset"))!) }
  }

  static let files = [
    "Tests/Fixtures/h264_25fps.mp4", "Tests/Fixtures/h264_23.976fps.mov",
    "Tests/Fixtures/tone.ogg", "Tests/Fixtures/hostile_playlist.m3u8",
  ]

  /// A record without the fields that name where the bytes came from.
  static func content(_ json: Any) -> String {
    var object = json as? [String: Any] ?? [:]
    for key in ["path", "size_bytes", "bytes_read"] { object[key] = nil }
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
}
