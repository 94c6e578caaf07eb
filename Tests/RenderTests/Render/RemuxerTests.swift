import AV
import Foundation
import MediaCore
import OutputKit
import Render
import Testing

/// Stream copy, against the ffmpeg CLI's `-c copy` of the same input.
@Suite struct RemuxerTests {
  /// Matroska and MPEG-TS (which starts at 1.4 s) into MP4: every packet's payload as the CLI's
  /// own remux (`-c copy`) writes it (by its streamhash), which for Matroska is the input's
  /// unchanged (MPEG-TS carries H.264 as Annex B and AAC with ADTS headers, which the MP4 muxer
  /// rewrites for both), and every packet's timestamps, duration, size and flags as the CLI
  /// writes them (its start at 0), in the output's time bases; the index first (faststart).
  @Test(arguments: ["in.mkv", "in.ts"])
  func packetsAsTheCLIWritesThem(fixture: String) throws {
    let input = fixture == "in.ts" ? Fixtures.transportStream : Fixtures.matroska
    var report: RenderReport?
    let path = try writeOutput("remuxed-\(fixture).mp4") { file, name in
      report = try Remuxer.run(input: open(input), output: file, name: name)
    }
    let oracle = Fixtures.output("cli-remuxed-\(fixture).mp4")
    try ffmpeg([
      "-i", input, "-map", "0:v", "-map", "0:a", "-c", "copy", "-movflags", "+faststart", oracle,
    ])
    let hash = try streamHash(path)
    #expect(hash.split(separator: "\n").count == 2)
    #expect(try hash == streamHash(oracle))
    if fixture == "in.mkv" { #expect(try hash == streamHash(input)) }
    #expect(report?.streams.map(\.encoder) == [nil, nil])
    #expect(report?.streams.first?.packets == 75)
    #expect(try isFaststart(path))
    func packets(_ path: String) throws -> [[String: String]] {
      let probe = try ffprobe(
        path, ["-show_entries", "packet=stream_index,pts,dts,duration,size,flags"])
      let list = try #require(probe["packets"] as? [[String: Any]])
      return list.map { $0.mapValues { "\($0)" } }
    }
    let ours = try packets(path)
    let theirs = try packets(oracle)
    #expect(ours.count == theirs.count && !ours.isEmpty)
    let first = zip(ours, theirs).enumerated().first { $0.element.0 != $0.element.1 }
    #expect(first == nil, "packet \(first?.offset ?? -1): \(String(describing: first?.element))")
    let start = try #require(ffprobe(path, ["-show_format"])["format"] as? [String: Any])
    #expect(Double(start["start_time"] as? String ?? "") == 0)
  }

  /// The container's tags and chapters, and the streams' tags and dispositions, are kept: the
  /// construction's title, two chapters (0-1.2 s "Opening", 1.2-3 s "Ending"), a French audio
  /// stream that is not the default one (Matroska to Matroska: MP4 has no "not default" for a
  /// lone track).
  @Test func keepsTagsChaptersAndDispositions() throws {
    let source = try ffprobe(Fixtures.matroska, ["-show_streams"])
    let sourceAudio = try #require(
      (source["streams"] as? [[String: Any]])?.first { $0["codec_type"] as? String == "audio" })
    #expect((sourceAudio["disposition"] as? [String: Int])?["default"] == 0)

    let path = try writeOutput("tags.mkv") { file, name in
      _ = try Remuxer.run(
        input: open(Fixtures.matroska), output: file, name: name, container: "matroska",
        muxerOptions: [:])
    }
    let probe = try ffprobe(path, ["-show_streams", "-show_chapters", "-show_format"])
    let tags = (probe["format"] as? [String: Any])?["tags"] as? [String: String]
    #expect(tags?["title"] == "Render tests")
    let chapters = try #require(probe["chapters"] as? [[String: Any]])
    #expect(chapters.map { ($0["tags"] as? [String: String])?["title"] } == ["Opening", "Ending"])
    #expect(chapters.map { Double($0["start_time"] as? String ?? "") } == [0, 1.2])
    #expect(chapters.map { Double($0["end_time"] as? String ?? "") } == [1.2, 3])
    let audio = try #require(
      (probe["streams"] as? [[String: Any]])?.first { $0["codec_type"] as? String == "audio" })
    #expect((audio["tags"] as? [String: String])?["language"] == "fra")
    #expect((audio["disposition"] as? [String: Int])?["default"] == 0)
  }

  /// Chapters given instead of the input's are written (MP4), in their own time base.
  @Test func chaptersGiven() throws {
    let chapters = [
      InputChapter(start: 0, end: 1500, timeBase: Rational(1, 1000)!, title: "First"),
      InputChapter(start: 1500, end: 3000, timeBase: Rational(1, 1000)!, title: "Second"),
    ]
    let path = try writeOutput("chapters.mp4") { file, name in
      _ = try Remuxer.run(input: open(Fixtures.clip), output: file, name: name, chapters: chapters)
    }
    let written = try #require(ffprobe(path, ["-show_chapters"])["chapters"] as? [[String: Any]])
    #expect(written.map { ($0["tags"] as? [String: String])?["title"] } == ["First", "Second"])
    #expect(written.map { Double($0["start_time"] as? String ?? "") } == [0, 1.5])
    #expect(written.map { Double($0["end_time"] as? String ?? "") } == [1.5, 3])
  }
}

/// Writing fails (a full disk, a file size limit) as the output file's `write_error`, with the
/// `errno` as cause; nothing is left behind.
@Suite struct WriteErrorTests {
  /// A lossless transcode (far more than 200 kB) into a 200 kB tmpfs: ENOSPC. Mounting needs
  /// root; elsewhere the same check runs under a file size limit (EFBIG) in a child process.
  @Test(
    .enabled(
      if: DiskFull.method != nil,
      "neither a tmpfs (needs root) nor a child process under RLIMIT_FSIZE is possible here"))
  func fullDisk() throws {
    switch DiskFull.method {
    case .tmpfs:
      let mountPoint = Fixtures.directory + "/small-tmpfs"
      try FileManager.default.createDirectory(
        atPath: mountPoint, withIntermediateDirectories: true)
      let mount = try run("mount", ["-t", "tmpfs", "-o", "size=200k", "tmpfs", mountPoint])
      try #require(mount.status == 0, "\(mount.stderr)")
      defer { _ = try? run("umount", [mountPoint]) }
      let error = try losslessTranscode(into: mountPoint + "/out.mp4")
      #expect(error?.code == "write_error")
      #expect(
        error?.cause?.domain == .posix && error?.cause?.code == ENOSPC,
        "\(String(describing: error))")
      #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint).isEmpty)
    case .fileSizeLimit:
      try fileSizeLimit()
    case nil:
      Issue.record("unreachable: the test is disabled")
    }
  }

  /// Past RLIMIT_FSIZE (100 kB, SIGXFSZ ignored), in a child process so no other test is
  /// limited: EFBIG, as `write_error`; the output is not named.
  @Test func fileSizeLimit() throws {
    let name = "file-size-limit"
    let output = Fixtures.directory + "/limited.mp4"
    if ChildProcess.isChild(name) {
      signal(SIGXFSZ, SIG_IGN)
      var limit = rlimit()
      try #require(getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0)
      limit.rlim_cur = min(100_000, limit.rlim_max)
      try #require(setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0)
      let error = try losslessTranscode(into: output)
      #expect(error?.code == "write_error")
      #expect(
        error?.cause?.domain == .posix && error?.cause?.code == EFBIG,
        "\(String(describing: error))")
      #expect(!FileManager.default.fileExists(atPath: output))
      ChildProcess.ran(name)
      return
    }
    _ = Fixtures.clip
    let child = try ChildProcess.run(name, testID: "WriteErrorTests/fileSizeLimit()")
    #expect(child.status == 0, "\(child.text)\(child.stderr)")
    #expect(child.text.contains(ChildProcess.marker(name)), "\(child.text)")
    #expect(!FileManager.default.fileExists(atPath: output))
  }

  /// How `fullDisk` can fill a disk here.
  enum DiskFull {
    case tmpfs
    case fileSizeLimit

    /// A tmpfs when root can mount one, else a file size limit in a child process (this
    /// binary, run again), else nothing.
    static let method: DiskFull? = {
      if geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/bin/mount") {
        let probe = NSTemporaryDirectory() + "render-tests-mount-\(getpid())"
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        if let mounted = try? run("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe]),
          mounted.status == 0
        {
          _ = try? run("umount", [probe])
          return .tmpfs
        }
      }
      return FileManager.default.isExecutableFile(atPath: "/proc/self/exe") ? .fileSizeLimit : nil
    }()
  }

  /// Transcodes the clip losslessly (CRF 0: megabytes) into `path`; the error it fails with.
  func losslessTranscode(into path: String) throws -> RenderError? {
    let input = try open(Fixtures.clip)
    var video = VideoEncoding()
    video.encoder.rateControl = .constantQuality(0)
    video.encoder.preset = "ultrafast"
    let settings = RenderSettings(
      streams: RenderSettings.firstStreams(
        of: input, video: .encodeVideo(video), audio: .encodeAudio(AudioEncoding())))
    let file = try OutputFile(.file(path: path, overwrite: false), sync: false)
    return #expect(throws: RenderError.self) {
      _ = try Transcoder.run(input: input, output: file, name: path, settings: settings)
    }
  }
}

/// A render stops mid-way for an interruption and for its deadline, and leaves nothing.
@Suite struct StopTests {
  /// Settings slow enough to be stopped mid-way: the clip scaled to 1280x720 and encoded.
  static func slowSettings(_ input: InputFile, timeout: Double? = nil) -> RenderSettings {
    var video = VideoEncoding(filter: "scale=1280:720")
    video.encoder.preset = "medium"
    return RenderSettings(
      streams: RenderSettings.firstStreams(
        of: input, video: .encodeVideo(video), audio: .encodeAudio(AudioEncoding())),
      timeout: timeout)
  }

  /// The deadline passes while frames are encoded: `timeout`, nothing written.
  @Test func deadlineMidway() throws {
    let path = Fixtures.output("deadline.mp4")
    let input = try open(Fixtures.clip)
    let file = try OutputFile(.file(path: path, overwrite: false), sync: false)
    let started = MonotonicClock.seconds()
    let error = #expect(throws: RenderError.self) {
      _ = try Transcoder.run(
        input: input, output: file, name: path, settings: Self.slowSettings(input, timeout: 0.3))
    }
    #expect(error == .timeout(seconds: 0.3))
    #expect(MonotonicClock.seconds() - started < 5)
    #expect(!FileManager.default.fileExists(atPath: path))
  }

  /// SIGINT's flag (`Interruption`, what the tools' signal handlers set) raised while the render
  /// runs, in a child process (the flag is process-wide): `interrupted`, nothing written.
  @Test func interruptedMidway() throws {
    let name = "interrupted"
    let path = Fixtures.directory + "/interrupted.mp4"
    if ChildProcess.isChild(name) {
      let input = try open(Fixtures.clip)
      let file = try OutputFile(.file(path: path, overwrite: false), sync: false)
      DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { Interruption.request() }
      let error = #expect(throws: RenderError.self) {
        _ = try Transcoder.run(
          input: input, output: file, name: path, settings: Self.slowSettings(input))
      }
      #expect(error == .interrupted)
      #expect(error?.code == "interrupted")
      #expect(!FileManager.default.fileExists(atPath: path))
      ChildProcess.ran(name)
      return
    }
    _ = Fixtures.clip
    let child = try ChildProcess.run(name, testID: "StopTests/interruptedMidway()")
    #expect(child.status == 0, "\(child.text)\(child.stderr)")
    #expect(child.text.contains(ChildProcess.marker(name)), "\(child.text)")
    #expect(!FileManager.default.fileExists(atPath: path))
  }
}
