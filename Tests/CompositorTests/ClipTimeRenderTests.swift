import AV
import Composition
import Foundation
import MediaCore
import OutputKit
import Testing

@testable import Compositor

/// A clip's crop, turns, speed and freeze frame rendered: sources built by construction (the
/// colours and their places, the tone's frequency, the frame rate) and the output decoded by the
/// ffmpeg CLI; every expected value is the construction's, every measured one the CLI's.
@Suite(.serialized) struct ClipTimeRenderTests {
  /// 320x240, 25 fps, 1 s: red top-left, lime top-right, blue bottom-left, yellow bottom-right
  /// (each quadrant 160x120), no audio.
  static let quadrants: String = Fixtures.make("quadrants.mp4") {
    [
      "-f", "lavfi", "-i",
      "color=c=red:s=320x240:r=25:d=1,"
        + "drawbox=x=160:y=0:w=160:h=120:color=lime:t=fill,"
        + "drawbox=x=0:y=120:w=160:h=120:color=blue:t=fill,"
        + "drawbox=x=160:y=120:w=160:h=120:color=yellow:t=fill",
      "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", $0,
    ]
  }

  /// 320x240, 25 fps, 2 s: red for the first second, blue for the second; a 1 kHz sine (mono,
  /// 48 kHz, AAC) throughout.
  static let tone: String = Fixtures.make("tone1k.mp4") {
    [
      "-f", "lavfi", "-i", "color=c=red:s=320x240:r=25:d=1", "-f", "lavfi", "-i",
      "color=c=blue:s=320x240:r=25:d=1", "-f", "lavfi", "-i", "sine=f=1000:r=48000:d=2",
      "-filter_complex", "[0][1]concat=n=2:v=1:a=0[v]", "-map", "[v]", "-map", "2",
      "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", $0,
    ]
  }

  /// 160x120, 25 fps, 2 s of `testsrc2` (every frame differs: a moving pattern and a counter)
  /// with a 1 kHz sine.
  static let moving: String = Fixtures.make("moving.mp4") {
    [
      "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=2", "-f", "lavfi", "-i",
      "sine=f=1000:r=48000:d=2", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt",
      "yuv420p", "-c:a", "aac", $0,
    ]
  }

  static let portrait = packageRoot.appendingPathComponent("Tests/MergeFixtures/portrait.mp4")
    .path

  /// The colour (R, G, B) the CLI decodes at (`x`, `y`) of `path` at `seconds`: the mean of a
  /// 4x4 block.
  func colour(_ path: String, at seconds: Double, x: Int, y: Int) throws -> [Double] {
    let raw = Array(
      try ffmpeg([
        "-ss", String(format: "%.3f", seconds), "-i", path, "-frames:v", "1", "-vf",
        "crop=4:4:\(x):\(y)", "-pix_fmt", "rgb24", "-f", "rawvideo", "-",
      ]).stdout)
    guard raw.count == 48 else { throw ToolFailure(message: "\(raw.count) bytes") }
    return (0..<3).map { channel in
      Double(stride(from: channel, to: 48, by: 3).map { Int(raw[$0]) }.reduce(0, +)) / 16
    }
  }

  /// The named colour nearest `rgb` among those the fixtures use.
  func name(_ rgb: [Double]) -> String {
    let known: [(String, [Double])] = [
      ("red", [255, 0, 0]), ("lime", [0, 255, 0]), ("blue", [0, 0, 255]),
      ("yellow", [255, 255, 0]), ("olive", [192, 192, 0]), ("black", [0, 0, 0]),
    ]
    return known.min { a, b in
      zip(a.1, rgb).map { ($0 - $1) * ($0 - $1) }.reduce(0, +)
        < zip(b.1, rgb).map { ($0 - $1) * ($0 - $1) }.reduce(0, +)
    }!.0
  }

  func size(_ path: String) throws -> (Int, Int) {
    let streams = try ffprobe(path, ["-select_streams", "v", "-show_streams"])["streams"]
    let stream = (streams as? [[String: Any]])?.first ?? [:]
    return (stream["width"] as? Int ?? 0, stream["height"] as? Int ?? 0)
  }

  // MARK: - Crop

  /// The centre 160x120 of the quadrants: each quadrant's colour lands in the same quadrant of
  /// the 160x120 output (the crop rectangle is where the construction put the colours).
  @Test func cropKeepsTheRectangle() throws {
    _ = Self.quadrants
    let plan = try plan(
      #"""
      {"version": 1, "clips": [
        {"source": "quadrants.mp4", "crop": {"x": 80, "y": 60, "width": 160, "height": 120}}]}
      """#)
    let (path, report) = try render(plan, "crop.mp4")
    #expect(report.check?.passed == true)
    #expect(try size(path) == (160, 120))
    let seen = try [(20, 20), (136, 20), (20, 96), (136, 96)].map {
      name(try colour(path, at: 0.5, x: $0.0, y: $0.1))
    }
    #expect(seen == ["red", "lime", "blue", "yellow"])
    // Near the cut: 4 pixels on each side of the quadrants' meeting point (80, 60).
    #expect(name(try colour(path, at: 0.5, x: 74, y: 54)) == "red")
    #expect(name(try colour(path, at: 0.5, x: 82, y: 62)) == "yellow")
  }

  /// The phone clip (stored 160x90 turned 90° clockwise: red square at the stored bottom-left,
  /// blue at the stored top-left) cropped to the stored rows 30-89, columns 0-79: the red square
  /// is inside (stored x 0-23, y 66-89), the blue one is not (y 0-23). Turned upright the 80x60
  /// crop shows 60x80 with red at its top-left corner and no blue. (A crop in upright
  /// coordinates would hold neither square.)
  @Test func aPhoneClipIsCroppedBeforeItsTurn() throws {
    let plan = try plan(
      #"""
      {"version": 1, "clips": [{"source": "\#(Self.portrait)",
        "crop": {"x": 0, "y": 30, "width": 80, "height": 60}}]}
      """#)
    #expect(plan.render.width == 60 && plan.render.height == 80)
    let (path, report) = try render(plan, "crop-portrait.mp4")
    #expect(report.check?.passed == true)
    #expect(try size(path) == (60, 80))
    #expect(name(try colour(path, at: 1, x: 8, y: 8)) == "red")
    for (x, y) in [(50, 8), (8, 70), (50, 70), (30, 40)] {
      #expect(name(try colour(path, at: 1, x: x, y: y)) == "olive", "at \(x), \(y)")
    }
  }

  // MARK: - Turns

  /// Quarter turns and mirror on the quadrants: a clockwise turn moves bottom-left to top-left;
  /// a mirror swaps left and right.
  @Test(arguments: [
    (#""rotate": 90"#, 240, 320, ["blue", "red", "yellow", "lime"]),
    (#""rotate": 180"#, 320, 240, ["yellow", "blue", "lime", "red"]),
    (#""rotate": 270"#, 240, 320, ["lime", "yellow", "red", "blue"]),
    (#""mirror": true"#, 320, 240, ["lime", "red", "yellow", "blue"]),
    (#""rotate": 90, "mirror": true"#, 240, 320, ["red", "blue", "lime", "yellow"]),
  ])
  func quarterTurnsAndMirror(settings: String, width: Int, height: Int, corners: [String])
    throws
  {
    _ = Self.quadrants
    let plan = try plan(
      #"{"version": 1, "clips": [{"source": "quadrants.mp4", \#(settings)}]}"#)
    let (path, report) = try render(plan, "turn.mp4")
    #expect(report.check?.passed == true)
    #expect(try size(path) == (width, height))
    let seen = try [(16, 16), (width - 20, 16), (16, height - 20), (width - 20, height - 20)]
      .map { name(try colour(path, at: 0.5, x: $0.0, y: $0.1)) }
    #expect(seen == corners, "\(settings)")
  }

  /// The phone clip is upright with red top-left and blue top-right (its construction). Turned
  /// 90° further, the 160x90 output has red top-right and blue bottom-right; mirrored, red
  /// top-right and blue top-left.
  @Test func aRotatedPhoneClipTurnsFurther() throws {
    let turned = try plan(
      #"{"version": 1, "clips": [{"source": "\#(Self.portrait)", "rotate": 90}]}"#)
    let (path, report) = try render(turned, "portrait-turned.mp4")
    #expect(report.check?.passed == true)
    #expect(try size(path) == (160, 90))
    #expect(name(try colour(path, at: 1, x: 148, y: 8)) == "red")
    #expect(name(try colour(path, at: 1, x: 148, y: 78)) == "blue")
    #expect(name(try colour(path, at: 1, x: 8, y: 8)) == "olive")
    let mirrored = try plan(
      #"{"version": 1, "clips": [{"source": "\#(Self.portrait)", "mirror": true}]}"#)
    let (mirror, mirrorReport) = try render(mirrored, "portrait-mirrored.mp4")
    #expect(mirrorReport.check?.passed == true)
    #expect(try size(mirror) == (90, 160))
    #expect(name(try colour(mirror, at: 1, x: 78, y: 8)) == "red")
    #expect(name(try colour(mirror, at: 1, x: 8, y: 8)) == "blue")
  }

  // MARK: - Speed

  /// The first channel of `path`'s audio as floats (the CLI's decoder).
  func samples(_ path: String) throws -> [Float] {
    let data = try ffmpeg([
      "-i", path, "-af", "pan=mono|c0=c0", "-ar", "48000", "-f", "f32le", "-",
    ]).stdout
    return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
  }

  /// The frequency of a sine from its rising zero crossings between `from` and `to` seconds.
  func frequency(_ samples: [Float], from: Double, to: Double) -> Double {
    let first = Int(from * 48_000)
    let last = min(samples.count, Int(to * 48_000))
    var crossings: [Int] = []
    for i in (first + 1)..<last where samples[i - 1] < 0 && samples[i] >= 0 {
      crossings.append(i)
    }
    guard let a = crossings.first, let b = crossings.last, b > a else { return 0 }
    return Double(crossings.count - 1) * 48_000 / Double(b - a)
  }

  /// The RMS level of `samples` between `from` and `to` seconds, dBFS.
  func level(_ samples: [Float], from: Double, to: Double) -> Double {
    let part = samples[Int(from * 48_000)..<min(samples.count, Int(to * 48_000))]
    let square = part.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, part.count))
    return square > 0 ? 10 * log10(square) : -200
  }

  func streamDuration(_ path: String, _ type: String) throws -> Double {
    let streams = try ffprobe(path, ["-show_streams"])["streams"] as? [[String: Any]] ?? []
    let stream = streams.first { $0["codec_type"] as? String == type } ?? [:]
    return Double(stream["duration"] as? String ?? "") ?? 0
  }

  /// 2 s at 2x: the video lasts 1 s (25 frames ± 1), red before 0.5 s and blue after (the
  /// source's change at 1 s lands at 0.5 s); the 1 kHz tone stays 1 kHz (pitch kept) and its
  /// audio lasts 1 s too, at the source's level.
  @Test func twiceAsFastKeepsThePitch() throws {
    _ = Self.tone
    let plan = try plan(#"{"version": 1, "clips": [{"source": "tone1k.mp4", "speed": 2}]}"#)
    let (path, report) = try render(plan, "speed2.mp4")
    #expect(report.check?.passed == true)
    #expect(report.check?.audio?.ok == true)
    #expect(abs(report.frames - 25) <= 1)
    #expect(abs(try streamDuration(path, "video") - 1) <= 0.04)
    #expect(abs(try streamDuration(path, "audio") - 1) <= 0.03)
    #expect(name(try colour(path, at: 0.4, x: 150, y: 110)) == "red")
    #expect(name(try colour(path, at: 0.6, x: 150, y: 110)) == "blue")
    let ours = try samples(path)
    let source = try samples(Self.tone)
    let hz = frequency(ours, from: 0.1, to: 0.9)
    #expect(abs(hz - 1000) <= 5, "\(hz) Hz")
    #expect(abs(frequency(source, from: 0.1, to: 1.9) - 1000) <= 5)
    // Sound for the whole second and not after.
    #expect(level(ours, from: 0.85, to: 0.95) > level(source, from: 0.5, to: 1.5) - 1.5)
    #expect(abs(level(ours, from: 0.2, to: 0.8) - level(source, from: 0.2, to: 1.8)) <= 1)
  }

  /// With `"pitch": "follow"` the samples are played twice as fast: 1 kHz becomes 2 kHz.
  @Test func pitchFollowDoublesTheFrequency() throws {
    _ = Self.tone
    let plan = try plan(
      #"{"version": 1, "clips": [{"source": "tone1k.mp4", "speed": 2, "pitch": "follow"}]}"#)
    let (path, report) = try render(plan, "speed2-follow.mp4")
    #expect(report.check?.passed == true)
    #expect(abs(try streamDuration(path, "audio") - 1) <= 0.03)
    let hz = frequency(try samples(path), from: 0.1, to: 0.9)
    #expect(abs(hz - 2000) <= 10, "\(hz) Hz")
  }

  /// A quarter speed (atempo chained: 0.5 × 0.5): 0.5 s of the source lasts 2 s, still 1 kHz;
  /// the picture changes colour where the source's 1 s lands (at 0.25 + (1 - 0.75) × 4 = 1.25
  /// s after the first clip's 0.25 s).
  @Test func quarterSpeedChainsTheTempoFilter() throws {
    _ = Self.tone
    let plan = try plan(
      #"""
      {"version": 1, "clips": [
        {"source": "tone1k.mp4", "to": 0.25},
        {"source": "tone1k.mp4", "from": 0.75, "to": 1.25, "speed": 0.25}]}
      """#)
    #expect(plan.duration == MediaTime(value: 9, timescale: 4))
    let (path, report) = try render(plan, "speed-quarter.mp4")
    #expect(report.check?.passed == true)
    #expect(abs(try streamDuration(path, "video") - 2.25) <= 0.04)
    #expect(name(try colour(path, at: 1.1, x: 150, y: 110)) == "red")
    #expect(name(try colour(path, at: 1.4, x: 150, y: 110)) == "blue")
    let hz = frequency(try samples(path), from: 0.4, to: 2.1)
    #expect(abs(hz - 1000) <= 5, "\(hz) Hz")
  }

  // MARK: - Freeze

  /// The luma planes of every output frame from `from` for `count` frames (the CLI's decoder).
  func lumaFrames(_ path: String, from: Double, count: Int, width: Int, height: Int) throws
    -> [[UInt8]]
  {
    let raw = Array(
      try ffmpeg([
        "-ss", String(format: "%.3f", from), "-i", path, "-frames:v", String(count), "-pix_fmt",
        "gray", "-f", "rawvideo", "-",
      ]).stdout)
    let size = width * height
    return stride(from: 0, to: raw.count - size + 1, by: size).map { Array(raw[$0..<$0 + size]) }
  }

  func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double { VideoCheck.psnr([a], [b]) }

  /// 1 s of the moving picture, the picture at source 1 s held for 1 s, then the rest: the 25
  /// held frames are the same picture (pixel-wise, within the codec's error), the source's
  /// frame at 1 s as the CLI decodes it; the frames around them differ; the audio is silent
  /// while it is held and the tone plays around it.
  @Test func freezeHoldsOnePictureInSilence() throws {
    _ = Self.moving
    let plan = try plan(
      #"""
      {"version": 1, "clips": [
        {"source": "moving.mp4", "to": 1},
        {"source": "moving.mp4", "freeze": 1, "duration": 1},
        {"source": "moving.mp4", "from": 1}]}
      """#)
    #expect(plan.duration == MediaTime(value: 3, timescale: 1))
    let (path, report) = try render(plan, "freeze.mp4")
    #expect(report.check?.passed == true)
    #expect(report.frames == 75)
    let held = try lumaFrames(path, from: 1, count: 25, width: 160, height: 120)
    #expect(held.count == 25)
    let source = try lumaFrames(Self.moving, from: 1, count: 1, width: 160, height: 120)[0]
    for (index, frame) in held.enumerated() {
      #expect(psnr(frame, held[0]) >= 40, "held frame \(index): \(psnr(frame, held[0])) dB")
      #expect(psnr(frame, source) >= 30, "held frame \(index) vs source")
    }
    // The source itself moves: its frames 0.2 s apart differ, as do ours outside the freeze.
    let before = try lumaFrames(path, from: 0.8, count: 1, width: 160, height: 120)[0]
    let after = try lumaFrames(path, from: 2.2, count: 1, width: 160, height: 120)[0]
    #expect(psnr(before, held[0]) < 30 && psnr(after, held[0]) < 30)
    let sound = try samples(path)
    #expect(level(sound, from: 1.05, to: 1.95) < -70, "\(level(sound, from: 1.05, to: 1.95))")
    #expect(level(sound, from: 0.2, to: 0.9) > -25 && level(sound, from: 2.1, to: 2.9) > -25)
  }

  /// 2 s whose 1 kHz tone drops by 12 dB at 0.75 s (aevalsrc), under a red picture.
  static let step: String = Fixtures.make("step.mp4") {
    [
      "-f", "lavfi", "-i", "color=c=red:s=160x120:r=25:d=2", "-f", "lavfi", "-i",
      "aevalsrc=if(lt(t\\,0.75)\\,0.5\\,0.125)*sin(2*PI*1000*t):s=48000:d=2", "-c:v",
      "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", $0,
    ]
  }

  /// The audio self-check mixes each window afresh through the speed rule (the voice seeked to
  /// source time start + elapsed × speed): at 2x its middle window (0.45-0.55 s) is source
  /// 0.9-1.1 s, after the drop, and the rendered file passes. The same file checked against the
  /// plan without its speed (source 0.45-0.55 s, before the drop) fails there: the check sees a
  /// wrong time rule.
  @Test func theAudioCheckFollowsTheSpeed() throws {
    _ = Self.step
    let plan = try plan(#"{"version": 1, "clips": [{"source": "step.mp4", "speed": 2}]}"#)
    let (path, report) = try render(plan, "speed-step.mp4")
    #expect(report.check?.passed == true)
    let fresh = try AudioSelfCheck.check(
      plan: plan, sampleRate: 48_000, channelCount: 2, output: path)
    #expect(fresh.ok, "\(fresh.windows.filter { !$0.ok })")
    let middle = try #require(fresh.windows.first { $0.at == "clips[0] middle" })
    // 0.125 peak is -21.1 dB RMS per channel (the mono tone in both).
    #expect(abs((middle.expectedDB ?? 0) + 21.1) <= 0.5, "\(middle)")
    var unsped = plan
    unsped.segments[0].speed = nil
    let wrong = try AudioSelfCheck.check(
      plan: unsped, sampleRate: 48_000, channelCount: 2, output: path)
    let wrongMiddle = try #require(wrong.windows.first { $0.at == "clips[0] middle" })
    #expect(!wrongMiddle.ok, "\(wrongMiddle)")
  }
}
