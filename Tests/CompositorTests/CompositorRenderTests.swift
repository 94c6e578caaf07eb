import AV
import Composition
import Foundation
import MediaCore
import OutputKit
import Testing

@testable import Compositor

/// Renders built from solid-colour clips, a still, a sequence and a rotated phone clip made by
/// construction; every expected value comes from the ffmpeg CLI decoding the sources (or the
/// construction itself), every measured one from the ffmpeg CLI decoding our output.
@Suite(.serialized) struct CompositorRenderTests {
  /// The colours at planned times: the still, the red clip, the 50/50 middle of a 1.2 s
  /// crossfade (at 2.4 s, a frame time at 25 fps), the blue clip without audio; the length;
  /// the marker as an MP4 chapter at its composition time.
  @Test func coloursAtPlannedTimesCrossfadeMiddleAndChapters() throws {
    _ = (Fixtures.red, Fixtures.blue, Fixtures.green)
    let plan = try plan(
      """
      {"version": 1, "fps": 25,
       "clips": [
         {"source": "green.png", "duration": 1},
         {"source": "red.mp4", "markers": [{"at": 0.5, "name": "goal"}]},
         {"source": "blue.mp4", "transition": {"type": "crossfade", "duration": 1.2}}]}
      """)
    #expect(plan.duration == MediaTime(value: 38, timescale: 10))  // 1 + 2 + 2 - 1.2
    let (path, report) = try render(plan, "colours.mp4")
    #expect(report.check?.passed == true)
    #expect(report.frames == 95)
    // The sources as the CLI decodes them.
    let green = centre(
      try decodedPicture(Fixtures.green, at: 0, width: 320, height: 240, filter: "scale=320:240"),
      width: 320, height: 240)
    let red = centre(
      try decodedPicture(Fixtures.red, at: 0.5, width: 320, height: 240), width: 320, height: 240)
    let blue = centre(
      try decodedPicture(Fixtures.blue, at: 0.5, width: 320, height: 240), width: 320, height: 240
    )
    func at(_ seconds: Double) throws -> [Double] {
      centre(
        try decodedPicture(path, at: seconds, width: 320, height: 240), width: 320, height: 240)
    }
    func close(_ a: [Double], _ b: [Double], _ tolerance: Double) -> Bool {
      zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
    }
    // The still is contained (64x48 -> 320x240, same aspect): its colour fills the centre.
    let still = try at(0.48)
    #expect(close(still, green, 2), "still \(still) vs \(green)")
    let onRed = try at(1.4)
    #expect(close(onRed, red, 2), "red \(onRed) vs \(red)")
    let middle = try at(2.4)
    let mean = zip(red, blue).map { ($0 + $1) / 2 }
    #expect(close(middle, mean, 3), "crossfade middle \(middle) vs \(mean)")
    let onBlue = try at(3.4)
    #expect(close(onBlue, blue, 2), "blue \(onBlue) vs \(blue)")
    // Length and chapters (ffprobe).
    let format = try ffprobe(path, ["-show_format"])["format"] as? [String: Any]
    let duration = Double(format?["duration"] as? String ?? "") ?? 0
    #expect(abs(duration - 3.8) <= 0.04)
    let chapters = try ffprobe(path, ["-show_chapters"])["chapters"] as? [[String: Any]] ?? []
    #expect(chapters.count == 2)
    #expect((chapters.last?["tags"] as? [String: String])?["title"] == "goal")
    #expect(Double(chapters.last?["start_time"] as? String ?? "") == 1.5)  // 1 + (0.5 - 0)
    #expect(Double(chapters.first?["start_time"] as? String ?? "") == 0)
    #expect((chapters.first?["tags"] as? [String: String])?["title"] == "green.png")
    // faststart: the index before the media data.
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let moov = data.range(of: Data("moov".utf8))?.lowerBound ?? Int.max
    let mdat = data.range(of: Data("mdat".utf8))?.lowerBound ?? 0
    #expect(moov < mdat)
  }

  /// Wipes and slides: the picture in the middle of the transition is the ffmpeg CLI's `xfade`
  /// of the same two clips at the same offset (PSNR >= 30 dB; the wrong direction is far off).
  @Test(arguments: ["wipeleft", "slideup"])
  func wipesAndSlidesMatchTheCLIsXfade(transition: String) throws {
    _ = (Fixtures.red, Fixtures.blue)
    let plan = try plan(
      """
      {"version": 1, "fps": 25, "clips": [{"source": "red.mp4"},
        {"source": "blue.mp4", "transition": {"type": "\(transition)", "duration": 0.8}}]}
      """)
    let (path, report) = try render(plan, "\(transition).mp4")
    #expect(report.check?.passed == true)
    let ours = try decodedPicture(path, at: 1.6, width: 320, height: 240)
    let cli = Fixtures.directory + "/cli-\(transition).mp4"
    try ffmpeg([
      "-i", Fixtures.red, "-i", Fixtures.blue, "-filter_complex",
      "[0:v][1:v]xfade=transition=\(transition):duration=0.8:offset=1.2,format=yuv420p",
      "-c:v", "libx264", "-crf", "10", cli,
    ])
    let reference = try decodedPicture(cli, at: 1.6, width: 320, height: 240)
    #expect(VideoCheck.psnr(ours, reference) >= 30, "\(VideoCheck.psnr(ours, reference)) dB")
    let opposite = transition == "wipeleft" ? "wiperight" : "slidedown"
    let other = Fixtures.directory + "/cli-\(opposite).mp4"
    try ffmpeg([
      "-i", Fixtures.red, "-i", Fixtures.blue, "-filter_complex",
      "[0:v][1:v]xfade=transition=\(opposite):duration=0.8:offset=1.2,format=yuv420p",
      "-c:v", "libx264", "-crf", "10", other,
    ])
    let wrong = try decodedPicture(other, at: 1.6, width: 320, height: 240)
    #expect(VideoCheck.psnr(ours, wrong) < 20)
  }

  /// A fade through the background: the clip before dissolves into the background, then the
  /// background into the clip after; at the middle the picture is the background (white, as the
  /// CLI's colour source makes it), at a quarter half the first clip and half the background.
  @Test func fadeGoesThroughTheBackground() throws {
    _ = (Fixtures.red, Fixtures.blue)
    let plan = try plan(
      """
      {"version": 1, "fps": 25, "background": "#ffffff", "clips": [{"source": "red.mp4"},
        {"source": "blue.mp4", "transition": {"type": "fade", "duration": 0.8}}]}
      """)
    let (path, _) = try render(plan, "fade.mp4")
    let white = centre(
      try decodedPicture(
        "color=c=white:s=320x240:d=1", at: 0, width: 320, height: 240, input: "lavfi"),
      width: 320, height: 240)
    let red = centre(
      try decodedPicture(Fixtures.red, at: 0.5, width: 320, height: 240), width: 320, height: 240)
    let middle = centre(
      try decodedPicture(path, at: 1.6, width: 320, height: 240), width: 320, height: 240)
    #expect(zip(middle, white).allSatisfy { abs($0 - $1) <= 3 }, "\(middle) vs \(white)")
    let quarter = centre(
      try decodedPicture(path, at: 1.4, width: 320, height: 240), width: 320, height: 240)
    let half = zip(red, white).map { ($0 + $1) / 2 }
    #expect(zip(quarter, half).allSatisfy { abs($0 - $1) <= 3 }, "\(quarter) vs \(half)")
  }

  /// Frame-exact trims: a source whose frame N has luma 16 + 4N (by construction; GOP of 10
  /// with B-frames), trimmed mid-GOP from MP4 and from MPEG-TS (which starts at 1.48 s), then a
  /// gap: each output frame is the source frame its plan says, never the keyframe before it.
  @Test func trimsStartAtTheirExactFrame() throws {
    let ramp = Fixtures.make("ramp.mp4") {
      [
        "-f", "lavfi", "-i", "color=black:s=64x48:r=25,geq=lum='N*4+16':cb=128:cr=128", "-t", "2",
        "-c:v", "libx264", "-preset", "veryfast", "-g", "10", "-bf", "2", "-pix_fmt", "yuv420p", $0,
      ]
    }
    _ = Fixtures.make("ramp.ts") { ["-i", ramp, "-c", "copy", $0] }
    let plan = try plan(
      """
      {"version": 1, "fps": 25, "background": "#808080", "clips": [
        {"source": "ramp.mp4", "from": 1.32, "to": 1.72},
        {"source": "ramp.ts", "from": 0.52, "to": 0.92},
        {"duration": 0.2}]}
      """)
    let (path, report) = try render(plan, "ramp.mp4")
    #expect(report.check?.passed == true)
    #expect(report.frames == 25)
    let raw = Array(try ffmpeg(["-i", path, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]).stdout)
    let size = 64 * 48 * 3 / 2
    #expect(raw.count == 25 * size)
    let grey = try decodedPicture(
      "color=c=0x808080:s=64x48:d=1", at: 0, width: 64, height: 48, input: "lavfi")
    for frame in 0..<min(25, raw.count / size) {
      let luma = Double(raw[frame * size + 24 * 64 + 32])
      let expected: Double
      switch frame {
      case 0..<10: expected = Double(16 + 4 * (33 + frame))
      case 10..<20: expected = Double(16 + 4 * (13 + frame - 10))
      default: expected = Double(grey[0][24 * 64 + 32])
      }
      #expect(abs(luma - expected) <= 1.5, "frame \(frame): luma \(luma), expected \(expected)")
    }
  }

  /// A phone clip stored 160x90 with a display matrix turning it 90° clockwise: rendered at
  /// its upright size (90x160), each picture matches the ffmpeg CLI's autorotated decoding.
  @Test func rotatedPhoneClipMatchesTheCLIsAutorotation() throws {
    let portrait = packageRoot.appendingPathComponent("Tests/MergeFixtures/portrait.mp4").path
    let plan = try plan(#"{"version": 1, "clips": [{"source": "\#(portrait)"}]}"#)
    #expect(plan.render.width == 90 && plan.render.height == 160)
    let (path, report) = try render(plan, "portrait.mp4")
    #expect(report.check?.passed == true)
    for seconds in [0.2, 1.0, 1.8] {
      let ours = try decodedPicture(path, at: seconds, width: 90, height: 160)
      let cli = try decodedPicture(portrait, at: seconds, width: 90, height: 160)
      let psnr = VideoCheck.psnr(ours, cli)
      #expect(psnr >= 30, "at \(seconds) s: \(psnr) dB")
    }
  }

  /// A JPEG still with EXIF orientation 6 (stored 160x120; 6 = turn 90° clockwise to display):
  /// shown 120x160, as the ffmpeg CLI shows it (its decoder exports the EXIF orientation and
  /// the CLI turns the picture upright by default).
  @Test func exifOrientedStillIsTurnedUpright() throws {
    let photo = packageRoot.appendingPathComponent("Tests/InputFixtures/photo_exif6.jpg").path
    let plan = try plan(#"{"version": 1, "clips": [{"source": "\#(photo)", "duration": 0.4}]}"#)
    #expect(plan.render.width == 120 && plan.render.height == 160)
    let (path, report) = try render(plan, "exif.mp4")
    #expect(report.check?.passed == true)
    let ours = try decodedPicture(path, at: 0.2, width: 120, height: 160)
    let cli = try decodedPicture(photo, at: 0, width: 120, height: 160)
    let turned = try decodedPicture(photo, at: 0, width: 120, height: 160, filter: "hflip,vflip")
    #expect(VideoCheck.psnr(ours, cli) >= 30, "\(VideoCheck.psnr(ours, cli)) dB")
    #expect(VideoCheck.psnr(ours, turned) < 25)  // the test tells a wrong turn apart
  }

  /// Colour: an untagged source goes through without a matrix conversion and the output states
  /// no matrix; a BT.709-tagged one keeps its values and the output says BT.709; with a
  /// BT.601-tagged clip beside a BT.709 one, the output says BT.709 and the BT.601 clip is
  /// converted as the ffmpeg CLI converts it. Each within ±2 levels.
  @Test func solidColoursSurviveTaggedAndUntagged() throws {
    let bt709 = ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709"]
    let tagged = Fixtures.solid(
      "tagged709.mp4", colour: "0x3C8CC8", audio: false, tags: bt709,
      filter: "scale=out_color_matrix=bt709")
    let tagged601 = Fixtures.solid(
      "tagged601.mp4", colour: "0xC8A03C", audio: false,
      tags: [
        "-colorspace", "smpte170m", "-color_primaries", "smpte170m", "-color_trc", "smpte170m",
      ])
    func centreOf(_ path: String, at seconds: Double, filter: String? = nil) throws -> [Double] {
      centre(
        try decodedPicture(path, at: seconds, width: 320, height: 240, filter: filter), width: 320,
        height: 240)
    }
    func close(_ a: [Double], _ b: [Double]) -> Bool { zip(a, b).allSatisfy { abs($0 - $1) <= 2 } }
    func colorSpace(_ path: String) throws -> String? {
      let streams = try ffprobe(path, ["-select_streams", "v:0", "-show_streams"])["streams"]
      return (streams as? [[String: Any]])?.first?["color_space"] as? String
    }
    // Untagged.
    let (untaggedOut, untaggedReport) = try render(
      try plan(#"{"version": 1, "clips": [{"source": "red.mp4"}]}"#), "untagged.mp4")
    #expect(untaggedReport.video.colorMatrix == nil)
    #expect(try colorSpace(untaggedOut) == nil || colorSpace(untaggedOut) == "unknown")
    #expect(close(try centreOf(untaggedOut, at: 1), try centreOf(Fixtures.red, at: 1)))
    // Tagged BT.709.
    let (taggedOut, _) = try render(
      try plan(#"{"version": 1, "clips": [{"source": "tagged709.mp4"}]}"#), "tagged.mp4")
    #expect(try colorSpace(taggedOut) == "bt709")
    #expect(close(try centreOf(taggedOut, at: 1), try centreOf(tagged, at: 1)))
    // BT.601 beside BT.709: converted to BT.709 (the oracle: the CLI's scale filter).
    let (mixedOut, _) = try render(
      try plan(
        #"{"version": 1, "clips": [{"source": "tagged709.mp4"}, {"source": "tagged601.mp4"}]}"#),
      "mixed.mp4")
    #expect(try colorSpace(mixedOut) == "bt709")
    #expect(close(try centreOf(mixedOut, at: 1), try centreOf(tagged, at: 1)))
    let converted = try centreOf(
      tagged601, at: 1, filter: "scale=in_color_matrix=bt601:out_color_matrix=bt709")
    let unconverted = try centreOf(tagged601, at: 1)
    let written = try centreOf(mixedOut, at: 3)
    #expect(close(written, converted), "\(written) vs \(converted) (unconverted \(unconverted))")
    #expect(!close(converted, unconverted))  // the conversion is visible
  }

  /// A numbered image sequence at 5 fps: each image shows for 0.2 s, in number order; a file
  /// beside it that the pattern does not match is not part of it.
  @Test func imageSequenceInNumberOrder() throws {
    let colours = ["0xFF0000", "0x00FF00", "0x0000FF"]
    for (index, colour) in colours.enumerated() {
      _ = Fixtures.make("frames/\(String(format: "%04d", index + 1)).png") {
        ["-f", "lavfi", "-i", "color=c=\(colour):s=64x48", "-frames:v", "1", $0]
      }
    }
    _ = Fixtures.make("frames/other.png") {
      ["-f", "lavfi", "-i", "color=c=0xFFFFFF:s=64x48", "-frames:v", "1", $0]
    }
    let plan = try plan(
      #"{"version": 1, "fps": 25, "clips": [{"source": "frames/%04d.png", "fps": 5}]}"#)
    #expect(plan.duration == MediaTime(value: 3, timescale: 5))
    let (path, report) = try render(plan, "sequence.mp4")
    #expect(report.check?.passed == true)
    #expect(report.frames == 15)
    for (index, _) in colours.enumerated() {
      let image = Fixtures.directory + "/frames/\(String(format: "%04d", index + 1)).png"
      let expected = centre(
        try decodedPicture(image, at: 0, width: 64, height: 48), width: 64, height: 48)
      let seconds = 0.2 * Double(index) + 0.08
      let got = centre(
        try decodedPicture(path, at: seconds, width: 64, height: 48), width: 64, height: 48)
      #expect(zip(got, expected).allSatisfy { abs($0 - $1) <= 3 }, "image \(index + 1): \(got)")
    }
    // The folder itself is a sequence of all its images in name order (other.png last).
    let folder = try CompositorTests.plan(
      #"{"version": 1, "fps": 25, "clips": [{"source": "frames", "fps": 5}]}"#)
    #expect(folder.duration == MediaTime(value: 4, timescale: 5))
    let (folderPath, _) = try render(folder, "folder.mp4")
    let last = centre(
      try decodedPicture(folderPath, at: 0.68, width: 64, height: 48), width: 64, height: 48)
    let white = centre(
      try decodedPicture(Fixtures.directory + "/frames/other.png", at: 0, width: 64, height: 48),
      width: 64, height: 48)
    #expect(zip(last, white).allSatisfy { abs($0 - $1) <= 3 }, "\(last) vs \(white)")
  }

  /// 500 clips (trims of one file): at most the clips on screen hold a file open, and the length
  /// is exact. The descriptors are counted in a process of their own (`mediamerge --composition`,
  /// its /proc/PID/fd polled every 2 ms while it renders): this test process's count moves with
  /// the other suites running beside it.
  @Test func fiveHundredClipsWithBoundedDescriptors() throws {
    _ = Fixtures.solid("tiny.mp4", colour: "0x808080", size: "64x48", seconds: 1)
    var clips: [String] = []
    for index in 0..<500 {
      let from = Double(index % 5) * 0.04
      let transition =
        index % 7 == 3 ? #", "transition": {"type": "crossfade", "duration": 0.04}"# : ""
      clips.append(
        #"{"source": "tiny.mp4", "from": \#(from), "to": \#(from + 0.12)\#(transition)}"#)
    }
    let document = #"{"version": 1, "clips": [\#(clips.joined(separator: ","))]}"#
    let plan = try plan(document)
    let documentPath = Fixtures.directory + "/many.json"
    let reportPath = Fixtures.directory + "/many-report.json"
    try Data(document.utf8).write(to: URL(fileURLWithPath: documentPath))
    let runner = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let tool = try #require(
      [
        runner, runner.deletingLastPathComponent(),
        packageRoot.appendingPathComponent(".build/debug"),
      ]
      .map { $0.appendingPathComponent("mediamerge").path }
      .first { FileManager.default.isExecutableFile(atPath: $0) })
    FileManager.default.createFile(atPath: reportPath, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = [
      "--composition", documentPath, "-o", Fixtures.directory + "/many.mp4", "--force", "-q",
    ]
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: reportPath))
    try process.run()
    var most = 0
    while process.isRunning {
      let open =
        (try? FileManager.default.contentsOfDirectory(
          atPath: "/proc/\(process.processIdentifier)/fd"
        ).count) ?? 0
      most = max(most, open)
      usleep(2_000)
    }
    #expect(process.terminationStatus == 0)
    // Measured: 8 at most (standard streams, the output, two sources in a transition, libraries).
    #expect(most > 0 && most <= 16, "\(most) descriptors open at most while rendering 500 clips")
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath)))
        as? [String: Any])
    let render = try #require(report["render"] as? [String: Any])
    #expect((render["max_open_sources"] as? Int ?? 99) <= 2)
    #expect((render["check"] as? [String: Any])?["passed"] as? Bool == true)
    #expect(
      (render["frames"] as? Int).map(Int64.init)
        == plan.duration.units(atRate: plan.render.frameRate))
  }

  /// Looks in the render: a clip's `invert`, then the composition's `brightness` 0.1 on every
  /// picture. The colours are the published formulas applied to the sources as the ffmpeg CLI
  /// decodes them (invert: 1 - v; brightness: v + 0.1, clamped), within 4 levels after the
  /// round trips through 4:2:0 and the encoder; the check passes (its references get the same
  /// looks).
  @Test func clipAndCompositionLooksFollowTheirFormulas() throws {
    _ = (Fixtures.red, Fixtures.blue)
    let plan = try plan(
      """
      {"version": 1, "fps": 25, "filters": [{"name": "brightness", "brightness": 0.1}],
       "clips": [{"source": "red.mp4", "to": 1, "filters": [{"name": "invert"}]},
                 {"source": "blue.mp4", "to": 1}]}
      """)
    let (path, report) = try render(plan, "looks.mp4")
    #expect(report.check?.passed == true)
    // R'G'B' at the centre as the CLI converts the untagged pictures (libswscale's BT.601
    // limited range, the matrix the compositor states none for and converts with).
    func at(_ file: String, _ seconds: Double) throws -> [Double] {
      let raw = Array(
        try ffmpeg([
          "-ss", String(format: "%.6f", seconds), "-i", file, "-frames:v", "1", "-pix_fmt",
          "rgb24", "-f", "rawvideo", "-",
        ]).stdout)
      let offset = (120 * 320 + 160) * 3
      return (0..<3).map { Double(raw[offset + $0]) }
    }
    func clamp(_ v: Double) -> Double { min(255, max(0, v)) }
    let red = try at(Fixtures.red, 0.5)
    let blue = try at(Fixtures.blue, 0.5)
    let onRed = try at(path, 0.5)
    let onBlue = try at(path, 1.5)
    let expectedRed = red.map { clamp(255 - $0 + 25.5) }
    let expectedBlue = blue.map { clamp($0 + 25.5) }
    #expect(zip(onRed, expectedRed).allSatisfy { abs($0 - $1) <= 4 }, "\(onRed) vs \(expectedRed)")
    #expect(
      zip(onBlue, expectedBlue).allSatisfy { abs($0 - $1) <= 4 }, "\(onBlue) vs \(expectedBlue)")
  }

  /// The same composition read from OpenTimelineIO renders the same frames as from our JSON
  /// (framemd5 of both outputs). The .otio file is the reference implementation's: our writer's
  /// timeline read and written again by the pinned opentimelineio package (Scripts/test-python),
  /// as an editor's export reaches us.
  @Test func otioTimelineRendersTheSameFrames() throws {
    _ = (Fixtures.red, Fixtures.blue)
    let json = """
      {"version": 1, "fps": 25, "size": "320x240",
       "clips": [{"source": "red.mp4", "from": 0.4, "to": 1.6},
                 {"source": "blue.mp4", "to": 1.2, "transition": {"type": "crossfade", "duration": 0.4}}]}
      """
    let document = try CompositionDocument.decode(json: Array(json.utf8))
    let fromJSON = try CompositionLoader.resolve(document, baseDirectory: Fixtures.directory)
    let ours = Fixtures.directory + "/ours.otio"
    let reference = Fixtures.directory + "/reference.otio"
    try Data(document.written(as: .otio, plan: fromJSON.plan)).write(
      to: URL(fileURLWithPath: ours))
    let rewritten = try run(
      packageRoot.appendingPathComponent("Scripts/test-python").path,
      [
        "-c",
        "import sys, opentimelineio as otio; "
          + "otio.adapters.write_to_file(otio.adapters.read_from_file(sys.argv[1]), sys.argv[2])",
        ours, reference,
      ])
    #expect(rewritten.status == 0, "\(rewritten.stderr)")
    let otio = Array(try Data(contentsOf: URL(fileURLWithPath: reference)))
    let read = try CompositionDocument.read(otio, format: .otio)
    let fromOTIO = try CompositionLoader.resolve(read, baseDirectory: Fixtures.directory)
    #expect(
      fromOTIO.plan.segments.map(\.compositionRange)
        == fromJSON.plan.segments.map(\.compositionRange))
    let (a, _) = try render(fromJSON.plan, "json.mp4")
    let (b, _) = try render(fromOTIO.plan, "otio.mp4")
    func frames(_ path: String) throws -> [String] {
      try ffmpeg(["-i", path, "-map", "0:v", "-f", "framemd5", "-"]).text
        .split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }
    #expect(try frames(a) == frames(b))
    #expect(try frames(a).count == 50)
  }

  /// The check fails when the written picture is not the planned one: a render of the red
  /// clip checked against a plan that says blue (same length) fails with the segment's PSNR,
  /// and against a plan one second longer fails on the length.
  @Test func theCheckCatchesAWrongPictureAndAWrongLength() throws {
    _ = (Fixtures.red, Fixtures.blue)
    let red = try plan(#"{"version": 1, "fps": 25, "clips": [{"source": "red.mp4"}]}"#)
    let blue = try plan(#"{"version": 1, "fps": 25, "clips": [{"source": "blue.mp4"}]}"#)
    let longer = try plan(
      #"{"version": 1, "fps": 25, "clips": [{"source": "red.mp4"}, {"duration": 1}]}"#)
    let path = Fixtures.output("unchecked.mp4")
    let output = try OutputFile(.file(path: path, overwrite: false), sync: false)
    var settings = CompositorSettings()
    settings.check = false
    let report = try Compositor.render(red, into: output, name: path, settings: settings)
    #expect(report.check == nil)
    let renderer = try Renderer(
      plan: red, output: try OutputFile(.file(path: path + ".x", overwrite: false), sync: false),
      name: path, settings: settings, shouldStop: { false })
    let wrongPicture = try VideoCheck.run(
      plan: blue, output: output, canvas: renderer.canvas, frames: 50, decoderThreads: 1,
      stopReason: { nil })
    #expect(!wrongPicture.passed)
    #expect((wrongPicture.segments.first?.psnr ?? 100) < 30)
    let wrongLength = try VideoCheck.run(
      plan: longer, output: output, canvas: renderer.canvas, frames: 75, decoderThreads: 1,
      stopReason: { nil })
    #expect(!wrongLength.passed)
    #expect(wrongLength.failures.contains { $0.contains("50 frames, the plan 75") })
    let right = try VideoCheck.run(
      plan: red, output: output, canvas: renderer.canvas, frames: 50, decoderThreads: 1,
      stopReason: { nil })
    #expect(right.passed)
    #expect(!FileManager.default.fileExists(atPath: path))  // never committed
  }

  /// The pictures the render puts aside for the check are what it compares with: every
  /// segment of a render is compared (none decoded afresh), and a reference that is not the
  /// written picture (a blue picture put aside for the red clip's middle frame) fails the check.
  @Test func theCheckComparesWithThePicturesTheRenderPutAside() throws {
    _ = (Fixtures.red, Fixtures.blue)
    let red = try plan(
      #"{"version": 1, "fps": 25, "clips": [{"source": "red.mp4"}, {"source": "blue.mp4"}]}"#)
    let path = Fixtures.output("aside.mp4")
    let output = try OutputFile(.file(path: path, overwrite: false), sync: false)
    let report = try Compositor.render(red, into: output, name: path)
    #expect(report.check?.passed == true)
    #expect(report.check?.segments.map { $0.psnr != nil } == [true, true])
    let references = CheckReferences(plan: red, frames: report.frames)
    #expect(references.targets.map(\.frame) == [25, 75])  // the middles of 0-2 s and 2-4 s
    let bluePlan = try plan(
      ##"{"version": 1, "fps": 25, "size": "\##(red.render.width)x\##(red.render.height)", "##
        + ##""background": "#0000ff", "clips": [{"duration": 1}]}"##)
    var unchecked = CompositorSettings()
    unchecked.check = false
    let blue = try Renderer(
      plan: bluePlan,
      output: try OutputFile(.file(path: path + ".x", overwrite: false), sync: false),
      name: path, settings: unchecked, shouldStop: { false })
    references.keep(blue.background, frame: 25)
    #expect(references.hasPicture(frame: 25) && !references.hasPicture(frame: 75))
    let renderer = try Renderer(
      plan: red, output: try OutputFile(.file(path: path + ".y", overwrite: false), sync: false),
      name: path, settings: unchecked, shouldStop: { false })
    let check = try VideoCheck.run(
      plan: red, output: output, canvas: renderer.canvas, frames: report.frames,
      references: references, decoderThreads: 1, stopReason: { nil })
    #expect(!check.passed)
    #expect((check.segments.first?.psnr ?? 100) < 30)  // against the blue picture put aside
    #expect((check.segments.last?.psnr ?? 0) >= 30)  // decoded afresh: the blue clip
  }

  /// The scratch file the references go to: what is appended reads back at its offset, it has
  /// no name in its directory, and a directory that cannot hold one gives none (the check then
  /// decodes its references afresh).
  @Test func scratchFilesReadBackAndLeaveNoName() throws {
    let directory = Fixtures.output("scratch-dir")
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let scratch = try #require(ScratchFile(directory: directory))
    let first = [UInt8](repeating: 7, count: 1000)
    let second = (0..<5000).map { UInt8($0 % 251) }
    let a = first.withUnsafeBytes { scratch.append($0) }
    let b = second.withUnsafeBytes { scratch.append($0) }
    #expect(a == 0 && b == 1000 && scratch.size == 6000)
    var back = [UInt8](repeating: 0, count: 5000)
    #expect(back.withUnsafeMutableBytes { scratch.read(at: 1000, into: $0) })
    #expect(back == second)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    #expect(ScratchFile(directory: directory + "/missing") == nil)
  }

  /// A render that cannot finish in time stops with `timeout` and leaves nothing.
  @Test func aTimeoutLeavesNothing() throws {
    let plan = try plan(#"{"version": 1, "clips": [{"source": "red.mp4"}]}"#)
    var settings = CompositorSettings()
    settings.timeout = 0.000_001
    #expect {
      _ = try render(plan, "timeout.mp4", settings: settings)
    } throws: { ($0 as? CompositorError)?.code == "timeout" }
    #expect(!FileManager.default.fileExists(atPath: Fixtures.directory + "/out-timeout.mp4"))
  }
}
