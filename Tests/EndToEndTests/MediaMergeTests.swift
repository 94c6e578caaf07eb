import Foundation
import Testing

/// `mediamerge` against oracles that do not share its code: ffprobe's durations and packet
/// hashes, the pixels and samples ffmpeg decodes, mediacompat's verdicts. The clips
/// (Tests/MergeFixtures, Scripts/make-fixtures.sh) are flat colours with a red square in the
/// corner that displays top-left and a blue one in the corner that displays top-right; what
/// they are is written below from the script, not from the tool.
@Suite struct MediaMergeTests {
  static let folder = "Tests/MergeFixtures"

  /// A clip as made: its display size, colour and duration by construction.
  struct Clip: Sendable {
    var name: String
    var display: (width: Int, height: Int)
    var colour: (Int, Int, Int)
    var seconds: Double
    var path: String { "\(MediaMergeTests.folder)/\(name)" }
  }

  static let landscape = Clip(
    name: "landscape.mp4", display: (160, 90), colour: (128, 128, 128), seconds: 1)
  static let portrait = Clip(
    name: "portrait.mp4", display: (90, 160), colour: (192, 192, 0), seconds: 2.002)
  static let mirrored = Clip(
    name: "mirrored.mp4", display: (90, 160), colour: (0, 160, 0), seconds: 1)
  static let mono = Clip(
    name: "mono44k.mp4", display: (120, 90), colour: (224, 224, 224), seconds: 1.2)
  static let pairA = Clip(
    name: "pair_a.mp4", display: (90, 160), colour: (128, 128, 128), seconds: 1)
  static let pairB = Clip(
    name: "pair_b.mp4", display: (90, 160), colour: (224, 224, 224), seconds: 1.5)

  // MARK: - Oracles

  /// The video as a player shows it: every frame decoded by ffmpeg (display matrix applied) as
  /// RGB, with its presentation time from ffprobe.
  struct Frames {
    var width: Int
    var height: Int
    var times: [Double]
    var rgb: Data

    func pixel(_ frame: Int, _ x: Int, _ y: Int) -> (Int, Int, Int) {
      let offset = ((frame * height + y) * width + x) * 3
      return (Int(rgb[offset]), Int(rgb[offset + 1]), Int(rgb[offset + 2]))
    }
  }

  static func decodeFrames(_ path: String) throws -> Frames {
    let info = try run(
      "ffprobe",
      [
        "-v", "error", "-select_streams", "v:0", "-show_entries",
        "stream=width,height:stream_side_data=rotation", "-of", "json", path,
      ])
    let stream = try #require(value(try info.json(), "streams", 0) as? [String: Any])
    var width = try #require(stream["width"] as? Int)
    var height = try #require(stream["height"] as? Int)
    let rotation = (value(stream, "side_data_list", 0, "rotation") as? Int) ?? 0
    if abs(rotation) % 180 == 90 { (width, height) = (height, width) }
    let times = try run(
      "ffprobe",
      [
        "-v", "error", "-select_streams", "v:0", "-show_entries",
        "frame=best_effort_timestamp_time", "-of", "csv=p=0", path,
      ]
    ).text.split(separator: "\n").compactMap { Double($0.split(separator: ",")[0]) }
    let decoded = try run(
      "ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
    #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded.stderr)")
    #expect(decoded.stdout.count == times.count * width * height * 3)
    return Frames(width: width, height: height, times: times, rgb: decoded.stdout)
  }

  static func near(_ a: (Int, Int, Int), _ b: (Int, Int, Int), _ tolerance: Int = 48) -> Bool {
    abs(a.0 - b.0) <= tolerance && abs(a.1 - b.1) <= tolerance && abs(a.2 - b.2) <= tolerance
  }

  /// Checks every frame: it shows the clip whose span holds its middle, fitted and centred in
  /// the render, with red top-left and blue top-right (upright, not mirrored). Returns the time
  /// of each clip's first frame.
  static func checkUpright(_ frames: Frames, _ clips: [Clip], rate: Double) -> [Double] {
    var ends: [Double] = []
    var total = 0.0
    for clip in clips {
      total += clip.seconds
      ends.append(total)
    }
    var firstFrames = [Double?](repeating: nil, count: clips.count)
    var wrong = 0
    for (frame, time) in frames.times.enumerated() {
      let middle = time + 0.5 / rate
      let index = ends.firstIndex { middle < $0 } ?? clips.count - 1
      let clip = clips[index]
      let (w, h) = (Double(frames.width), Double(frames.height))
      let scale = min(w / Double(clip.display.width), h / Double(clip.display.height))
      let (shown, tall) = (Double(clip.display.width) * scale, Double(clip.display.height) * scale)
      let (left, top) = ((w - shown) / 2, (h - tall) / 2)
      let inset = 12 * scale  // the middle of a 24-pixel square
      let red = frames.pixel(frame, Int(left + inset), Int(top + inset))
      let blue = frames.pixel(frame, Int(left + shown - inset), Int(top + inset))
      let middlePixel = frames.pixel(frame, Int(left + shown / 2), Int(top + tall / 2))
      let upright =
        near(red, (255, 0, 0), 80) && near(blue, (0, 0, 255), 80)
        && near(middlePixel, clip.colour)
      if !upright {
        wrong += 1
        if wrong <= 3 {
          Issue.record(
            "frame \(frame) at \(time) s (\(clip.name)): red \(red), blue \(blue), middle \(middlePixel)"
          )
        }
      }
      if firstFrames[index] == nil { firstFrames[index] = time }
    }
    #expect(wrong == 0, "\(wrong) of \(frames.times.count) frames not upright")
    return firstFrames.map { $0 ?? -1 }
  }

  /// Where the audio changes from one clip's tone to the next near `time`: decoded by ffmpeg
  /// (mono, 48 kHz), the first 10 ms window where the next tone's power passes the previous
  /// one's (a mono clip is as loud as the stereo clip beside it, so levels alone cannot tell).
  static func audioJoin(
    _ samples: [Float], near time: Double, from before: Double?, to after: Double?
  ) -> Double? {
    // The power of `frequency` (Goertzel) in 10 ms from `start`; 0 for silence (nil).
    func power(_ frequency: Double?, _ start: Int) -> Double {
      guard let frequency, start >= 0, start + 480 <= samples.count else { return 0 }
      let coefficient = 2 * cos(2 * Double.pi * frequency / 48000)
      var (s1, s2) = (0.0, 0.0)
      for index in start..<start + 480 {
        let s0 = Double(samples[index]) + coefficient * s1 - s2
        (s2, s1) = (s1, s0)
      }
      return (s1 * s1 + s2 * s2 - coefficient * s1 * s2) / (480 * 480)
    }
    // The first 10 ms window (2.5 ms steps) where the next clip's tone outweighs the previous
    // one's (against silence: where the tone ends or begins), reported at its middle.
    let centre = Int(time * 48000)
    let floor = 1e-5
    for start in stride(from: centre - 4800, to: centre + 4800, by: 120) {
      let (old, new) = (power(before, start), power(after, start))
      let switched = after == nil ? old < floor : before == nil ? new > floor : new > old
      if switched { return Double(start + 240) / 48000 }
    }
    return nil
  }

  static func decodeAudio(_ path: String) throws -> [Float] {
    let result = try run(
      "ffmpeg",
      ["-nostdin", "-v", "error", "-i", path, "-ac", "1", "-ar", "48000", "-f", "f32le", "-"])
    #expect(result.status == 0)
    return result.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
  }

  static func ffprobeDuration(_ path: String) throws -> Double {
    let result = try run(
      "ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
    return try #require(Double(result.text.trimmingCharacters(in: .whitespacesAndNewlines)))
  }

  static func plan(_ arguments: [String]) throws -> [String: Any] {
    let result = try run("mediamerge", ["--plan"] + arguments)
    #expect(result.status == 0, "\(result.stderr)")
    return try #require(try result.json() as? [String: Any])
  }

  static func plannedSum(_ plan: [String: Any]) throws -> Double {
    let clips = try #require(plan["clips"] as? [[String: Any]])
    return clips.compactMap { value($0, "duration", "seconds") as? Double }.reduce(0, +)
  }

  // MARK: - Tests

  /// The four clips of the issue, encoded: the duration is the sum of the planned clip
  /// durations within one frame; every frame shows the right clip upright (the portrait clip
  /// turned, the front-camera clip turned and unmirrored); at each join the audio changes
  /// within one AAC frame (1024 samples) of the picture; the file decodes without an error.
  @Test func encodedMergeIsUprightExactAndInSync() throws {
    let directory = try TemporaryDirectory()
    let output = directory.path("merged.mp4")
    let clips = [Self.landscape, Self.portrait, Self.mirrored, Self.mono]
    let arguments = clips.map(\.path) + ["-o", output]
    let plan = try Self.plan(arguments)
    #expect(plan["method"] as? String == "encode")
    let result = try run("mediamerge", arguments)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(directory.contents == ["merged.mp4"])  // no temporary file left

    let planned = try Self.plannedSum(plan)
    #expect(abs(planned - 5.202) < 1e-9)
    #expect(abs(try Self.ffprobeDuration(output) - planned) <= 1.0 / 30)

    let frames = try Self.decodeFrames(output)
    #expect(frames.width == 160 && frames.height == 160)  // 160 wide (landscape), 160 tall
    let firsts = Self.checkUpright(frames, clips, rate: 30)

    let audio = try Self.decodeAudio(output)
    // The clips' tones by construction (Scripts/make-fixtures.sh merge-clips): 440 Hz, none
    // (the portrait clip has no audio: silence), 660 Hz, 880 Hz.
    let tones: [Double?] = [440, nil, 660, 880]
    for join in 1..<clips.count {
      let picture = firsts[join]
      let sound = try #require(
        Self.audioJoin(audio, near: picture, from: tones[join - 1], to: tones[join]),
        "no audio join near \(picture)")
      #expect(
        abs(sound - picture) <= 1024.0 / 48000, "join \(join): audio \(sound), video \(picture)")
    }

    // mediaprobe --scan: the two streams end within one AAC frame of each other.
    let scan = try run("mediaprobe", ["--scan", output])
    let streams = try #require(value(try scan.json(), "streams") as? [[String: Any]])
    let durations = streams.compactMap { value($0, "duration", "seconds") as? Double }
    #expect(durations.count == 2)
    #expect(abs(durations[0] - durations[1]) <= 1024.0 / 48000)
    let rotation = try run(
      "ffprobe",
      ["-v", "error", "-show_entries", "stream_side_data=rotation", "-of", "csv=p=0", output])
    #expect(rotation.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)  // no matrix
  }

  /// Stream copy is chosen exactly when the clips share their codec parameters: the pair is
  /// copied (its video packets byte for byte, per ffprobe's hashes; the portrait matrix kept, so
  /// every frame still shows upright), clips that differ are not, and say why.
  @Test func copyIsChosenExactlyWhenCompatible() throws {
    let directory = try TemporaryDirectory()
    let output = directory.path("pair.mp4")
    let arguments = [Self.pairA.path, Self.pairB.path, "-o", output]
    #expect(try Self.plan(arguments)["method"] as? String == "copy")
    for mixed in [
      [Self.landscape, Self.pairA], [Self.landscape, Self.portrait], [Self.mono, Self.pairA],
    ] {
      let plan = try Self.plan(mixed.map(\.path) + ["-o", output])
      #expect(plan["method"] as? String == "encode")
      #expect((plan["copy_blockers"] as? [Any])?.isEmpty == false)
    }
    // A cut made with `-ss 0.4 -c copy` keeps 12 packets before its edit list: not copied.
    let cut = directory.path("cut.mp4")
    let cutting = try run(
      "ffmpeg", ["-nostdin", "-v", "error", "-ss", "0.4", "-i", Self.pairB.path, "-c", "copy", cut])
    #expect(cutting.status == 0)
    let cutPlan = try Self.plan([cut, cut, "-o", output])
    #expect(value(cutPlan, "copy_blockers", 0, "field") as? String == "video.edit_list")
    #expect(abs(try Self.plannedSum(cutPlan) - 2.2) < 1e-9)  // 1.1 s presented, twice
    try FileManager.default.removeItem(atPath: cut)

    let result = try run("mediamerge", ["--copy"] + arguments)
    #expect(result.status == 0, "\(result.stderr)")

    func hashes(_ path: String) throws -> [String] {
      try run(
        "ffprobe",
        [
          "-v", "error", "-select_streams", "v:0", "-show_data_hash", "MD5", "-show_entries",
          "packet=data_hash", "-of", "csv=p=0", path,
        ]
      ).text.split(separator: "\n").map(String.init)
    }
    let copied = try hashes(output)
    #expect(copied.count == 75)
    #expect(copied == (try hashes(Self.pairA.path)) + (try hashes(Self.pairB.path)))

    let decode = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", output, "-f", "null", "-"])
    #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
    let verify = try run("mediaprobe", ["--verify", output])
    #expect(value(try verify.json(), "integrity") as? String == "ok")
    #expect(abs(try Self.ffprobeDuration(output) - 2.5) <= 1.0 / 30)
    let frames = try Self.decodeFrames(output)
    #expect(frames.width == 90 && frames.height == 160)
    _ = Self.checkUpright(frames, [Self.pairA, Self.pairB], rate: 30)
  }

  /// `--platform P`: the output passes `mediacompat --platform P`, also when P forces an encode
  /// of clips that could have been copied (iphone-2012 plays Baseline only).
  @Test(arguments: [("ios-17", false), ("iphone-2012", true)])
  func platformOutputPasses(_ platform: String, _ pair: Bool) throws {
    let directory = try TemporaryDirectory()
    let output = directory.path("for-\(platform).mp4")
    let clips = pair ? [Self.pairA, Self.pairB] : [Self.landscape, Self.portrait, Self.mirrored]
    let arguments = ["--platform", platform] + clips.map(\.path) + ["-o", output]
    let plan = try Self.plan(arguments)
    #expect(plan["method"] as? String == "encode")
    let result = try run("mediamerge", arguments)
    #expect(result.status == 0, "\(result.stderr)")
    let verdict = try run("mediacompat", ["--platform", platform, output])
    #expect(verdict.status == 0, "\(verdict.text)")
    let frames = try Self.decodeFrames(output)
    _ = Self.checkUpright(frames, clips, rate: 30)
  }

  /// Plans (encode, copy) and error records validate against the schema.
  @Test func plansMatchTheSchema() throws {
    let directory = try TemporaryDirectory()
    let cases = [
      [Self.landscape.path, Self.portrait.path, Self.mirrored.path, Self.mono.path],
      [Self.pairA.path, Self.pairB.path], ["--size", "320x240", "--fill", Self.portrait.path],
      ["\(Self.folder)/missing.mp4"],
    ]
    var files: [String] = []
    for (index, clips) in cases.enumerated() {
      let result = try run("mediamerge", ["--plan"] + clips + ["-o", directory.path("o.mp4")])
      let file = directory.path("plan\(index).json")
      try result.stdout.write(to: URL(fileURLWithPath: file))
      files.append(file)
    }
    let validation = try run(
      "python3", ["Scripts/validate-json.py", "schemas/mediamerge-plan.schema.json"] + files)
    #expect(validation.status == 0, "\(validation.stderr)")
  }

  /// Every failure has a stable code and exit status 1 (64 for usage errors), and leaves no
  /// file behind; an existing output is kept unless --force.
  @Test func failuresHaveStableCodes() throws {
    let directory = try TemporaryDirectory()
    let output = directory.path("out.mp4")
    func expectFailure(_ arguments: [String], code: String) throws {
      let result = try run("mediamerge", arguments + ["-o", output])
      #expect(result.status == 1, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains("[\(code)]"), "\(arguments): \(result.stderr)")
    }
    try expectFailure([Self.landscape.path, "\(Self.folder)/missing.mp4"], code: "not_found")
    try expectFailure(
      [Self.landscape.path, "Tests/CompatFixtures/aac.m4a"], code: "incompatible_inputs")
    try expectFailure(
      ["--copy", Self.landscape.path, Self.portrait.path], code: "incompatible_inputs")
    try expectFailure([Self.landscape.path, "Tests/Fixtures"], code: "not_a_file")
    #expect(directory.contents.isEmpty)

    let missing = try run("mediamerge", ["--plan", "\(Self.folder)/missing.mp4", "-o", output])
    #expect(value(try missing.json(), "error", "code") as? String == "not_found")

    try Data("keep".utf8).write(to: URL(fileURLWithPath: output))
    try expectFailure([Self.pairA.path], code: "output_exists")
    let dry = try run("mediamerge", ["--dry-run", Self.pairA.path, "-o", output])
    #expect(dry.status == 1 && dry.stderr.contains("[output_exists]"))
    #expect(try String(contentsOfFile: output, encoding: .utf8) == "keep")
    let forced = try run("mediamerge", ["--force", "--no-sync", Self.pairA.path, "-o", output])
    #expect(forced.status == 0, "\(forced.stderr)")
    #expect(directory.contents == ["out.mp4"])
    #expect(try Self.ffprobeDuration(output) == 1)

    // What is not a regular file is never replaced, even with --force (the output file is
    // media2wav's): a symbolic link, and a named pipe (ffmpeg needs a file it can seek, and a
    // rename would replace the pipe; as root, a device).
    let link = directory.path("link.mp4")
    let pipe = directory.path("pipe.mp4")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: output)
    #expect(mkfifo(pipe, 0o600) == 0)
    for target in [link, pipe] {
      let refused = try run("mediamerge", ["--force", Self.pairA.path, "-o", target])
      #expect(
        refused.status == 1 && refused.stderr.contains("[output_exists]"), "\(refused.stderr)")
      #expect(refused.stderr.contains("not a regular file"), "\(refused.stderr)")
    }
    var info = stat()
    #expect(lstat(pipe, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
    try FileManager.default.removeItem(atPath: link)
    try FileManager.default.removeItem(atPath: pipe)

    let nowhere = try run("mediamerge", [Self.pairA.path, "-o", directory.path("no/such/dir.mp4")])
    #expect(nowhere.status == 1 && nowhere.stderr.contains("[write_error]"), "\(nowhere.stderr)")

    // Without ffmpeg on PATH: the render is in-process, so it is not needed.
    let process = Process()
    process.executableURL = productsDirectory.appendingPathComponent("mediamerge")
    process.currentDirectoryURL = packageRoot
    process.arguments = [Self.pairA.path, "-o", directory.path("no-ffmpeg.mp4")]
    process.environment = ["PATH": directory.path("empty")]
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(said)")
    #expect(directory.contents.sorted() == ["no-ffmpeg.mp4", "out.mp4"])

    for usage in [
      ["--size", "161x90", Self.pairA.path, "-o", output],
      ["--platform", "windows-phone", Self.pairA.path, "-o", output],
      [Self.pairA.path, "-o", directory.path("out.avi")], ["-o", output], ["-", "-o", output],
      ["--copy", "--size", "320x240", Self.pairA.path, "-o", output],
    ] {
      #expect(try run("mediamerge", usage).status == 64, "\(usage)")
    }
  }

  /// Starts a merge long enough to be interrupted (four clips at 1920x1080) into `directory`.
  static func startLongMerge(
    into directory: TemporaryDirectory, environment: [String: String] = [:]
  )
    throws -> Process
  {
    let process = Process()
    process.executableURL = productsDirectory.appendingPathComponent("mediamerge")
    process.currentDirectoryURL = packageRoot
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.arguments =
      ["-q", "--size", "1920x1080"]
      + [Self.landscape, Self.portrait, Self.mirrored, Self.mono].map(\.path)
      + ["-o", directory.path("big.mp4")]
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
  }

  /// Waits until `process` holds a file open in `directory` (the unnamed output, or its hidden
  /// `.part` file): the render is writing.
  static func waitForOutput(of process: Process, in directory: TemporaryDirectory) -> Bool {
    let fds = "/proc/\(process.processIdentifier)/fd"
    for _ in 0..<400 {
      let entries = (try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? []
      for entry in entries {
        if let target = try? FileManager.default.destinationOfSymbolicLink(
          atPath: "\(fds)/\(entry)"),
          target.hasPrefix(directory.url.path + "/")
        {
          return true
        }
      }
      usleep(25_000)
    }
    return false
  }

  /// The processes `process` started (none: the render is in-process).
  static func children(of process: Process) -> String {
    let pid = process.processIdentifier
    return
      ((try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8))
      ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// SIGINT and SIGTERM during a merge: exit 130 and 143, no file left, no child ever started.
  @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
  func interruptionLeavesNothing(_ signal: Int32, _ status: Int32) throws {
    let directory = try TemporaryDirectory()
    let process = try Self.startLongMerge(into: directory)
    #expect(Self.waitForOutput(of: process, in: directory), "the render did not start writing")
    #expect(directory.contents.isEmpty, "\(directory.contents)")
    #expect(Self.children(of: process).isEmpty)
    kill(process.processIdentifier, signal)
    process.waitUntilExit()
    #expect(process.terminationStatus == status)
    #expect(directory.contents.isEmpty, "\(directory.contents)")
  }

  /// SIGKILL, which mediamerge cannot catch: the unnamed file never had a name, so nothing is
  /// left, and nothing runs on (the render is in-process: no child exists).
  @Test func killLeavesNothing() throws {
    let directory = try TemporaryDirectory()
    let process = try Self.startLongMerge(into: directory)
    #expect(Self.waitForOutput(of: process, in: directory), "the render did not start writing")
    #expect(Self.children(of: process).isEmpty)
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    #expect(directory.contents.isEmpty, "\(directory.contents)")
  }

  /// Where the file system cannot hold unnamed files (forced here), the render writes a hidden
  /// `.NAME.XXXXXX.part` file, and SIGINT removes it too.
  @Test func interruptionLeavesNothingWithNamedTemporaryFiles() throws {
    let directory = try TemporaryDirectory()
    let process = try Self.startLongMerge(
      into: directory, environment: ["MEDIATOOLS_NO_O_TMPFILE": "1"])
    var temporary: String?
    for _ in 0..<200 where temporary == nil {
      temporary = directory.contents.first { $0.hasSuffix(".part") }
      if temporary == nil { usleep(25_000) }
    }
    _ = try #require(temporary, "no temporary file appeared")
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    #expect(process.terminationStatus == 130)
    #expect(directory.contents.isEmpty, "\(directory.contents)")
  }

  /// How many processes have `text` in their command line (/proc).
  static func processes(naming text: String) -> Int {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.filter { Int($0) != nil }.filter { pid in
      guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else {
        return false
      }
      return String(decoding: data, as: UTF8.self).contains(text)
    }.count
  }
}
