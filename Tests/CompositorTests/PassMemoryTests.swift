import AV
import Composition
import Foundation
import MediaCore
import OutputKit
import Testing

@testable import Compositor

/// `--max-size`'s passes at the compositor: x264's two-pass statistics and the replay of the
/// first pass's pictures and audio (`PassMemory`).
@Suite struct PassMemoryTests {
  /// A moving, noisy test pattern with a tone (2 s, 320x240, 25 fps), made by construction.
  static let busy = Fixtures.make("busy.mp4") {
    [
      "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25,noise=alls=40:allf=t", "-f", "lavfi", "-i",
      "sine=f=440:r=48000", "-t", "2", "-c:v", "libx264", "-preset", "veryfast", "-crf", "12",
      "-pix_fmt", "yuv420p", "-c:a", "aac", $0,
    ]
  }

  /// The packets of every stream of `path` as the ffmpeg CLI reads them (`-c copy -f
  /// framemd5`: stream, timestamps, size and MD5 of each packet).
  static func packets(_ path: String) throws -> [String] {
    try ffmpeg(["-i", path, "-map", "0", "-c", "copy", "-f", "framemd5", "-"]).text
      .split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
  }

  /// A second pass that replays the first pass's pictures and audio packets writes the same
  /// file, packet for packet, as a second pass that decodes, composites and mixes the sources
  /// again (the oracle: the render from the sources, read back by the ffmpeg CLI), with x264's
  /// two-pass rate control reading the first pass's statistics in both; the replayed pass's
  /// self-check passes against the pictures the first pass put aside; the statistics'
  /// directory is gone afterwards.
  @Test func aReplayedPassWritesWhatARenderFromTheSourcesWrites() throws {
    _ = (Self.busy, Fixtures.red)
    let plan = try plan(
      #"{"version": 1, "fps": 25, "clips": [{"source": "busy.mp4"}, "#
        + #"{"source": "red.mp4", "transition": {"type": "crossfade", "duration": 0.5}}]}"#)
    let statistics = try #require(
      PrivateDirectory(files: [
        "x264.stats", "x264.stats.temp", "x264.stats.mbtree", "x264.stats.mbtree.temp",
      ]))
    let stats = statistics.path(of: "x264.stats")
    let memory = PassMemory(limit: 1 << 30)
    func pass(
      _ name: String, rate: Int, _ ratePass: EncoderSettings.RatePass, _ memory: PassMemory?
    )
      throws -> (String, OutputFile, RenderedPass, CompositorSettings)
    {
      var settings = CompositorSettings()
      settings.videoBitRate = rate
      settings.constrainedRate = false
      settings.ratePass = ratePass
      settings.checkMinimumPSNR = 12
      let path = Fixtures.output(name)
      let output = try OutputFile(.file(path: path, overwrite: false), sync: false)
      let rendered = try Compositor.renderPass(
        plan, into: output, name: path, settings: settings, memory: memory)
      return (path, output, rendered, settings)
    }
    let first = try pass("first.mp4", rate: 300_000, .first(stats: stats), memory)
    #expect(!first.2.replayed)
    #expect(memory.canReplay)
    #expect(memory.pictureBytes == first.2.report.frames * 320 * 240 * 3 / 2)
    #expect(FileManager.default.fileExists(atPath: stats), "x264 wrote its statistics")
    let replayed = try pass("replayed.mp4", rate: 200_000, .second(stats: stats), memory)
    let rendered = try pass("rendered.mp4", rate: 200_000, .second(stats: stats), nil)
    #expect(replayed.2.replayed)
    #expect(!rendered.2.replayed)
    #expect(replayed.2.report.frames == rendered.2.report.frames)
    #expect(replayed.2.report.samples == rendered.2.report.samples)
    let checked = try Compositor.check(
      replayed.2, plan: plan, output: replayed.1, settings: replayed.3)
    #expect(checked.check?.passed == true)
    #expect(checked.check?.segments.allSatisfy { $0.psnr != nil || $0.skipped != nil } == true)
    try replayed.1.commit()
    try rendered.1.commit()
    let expected = try Self.packets(rendered.0)
    #expect(expected.count > 50)
    #expect(try Self.packets(replayed.0) == expected)
    statistics.remove()
    #expect(!FileManager.default.fileExists(atPath: statistics.path))
  }

  /// Pictures that do not fit the memory's limit are not kept: the next pass renders from the
  /// sources.
  @Test func picturesOverTheLimitAreNotKept() throws {
    _ = Fixtures.red
    let plan = try plan(#"{"version": 1, "fps": 25, "clips": [{"source": "red.mp4"}]}"#)
    let memory = PassMemory(limit: 320 * 240 * 3 / 2 * 49)  // one picture short of 2 s
    var settings = CompositorSettings()
    settings.videoBitRate = 100_000
    settings.constrainedRate = false
    let path = Fixtures.output("unkept.mp4")
    let output = try OutputFile(.file(path: path, overwrite: false), sync: false)
    _ = try Compositor.renderPass(
      plan, into: output, name: path, settings: settings, memory: memory)
    #expect(!memory.canReplay)
    let again = try OutputFile(.file(path: path, overwrite: false), sync: false)
    let second = try Compositor.renderPass(
      plan, into: again, name: path, settings: settings, memory: memory)
    #expect(!second.replayed)
    #expect(second.report.frames == 50)
  }
}

/// The statistics' directory: made with `mkdtemp` under the parent given (`$TMPDIR` by
/// default), mode 0700, named `mediatools.` and six random characters (nothing of an input's
/// name); `remove()` deletes the files it was told of (made or not), any other file in it, and
/// the directory, and an instance dropped without `remove()` does the same.
@Suite struct PrivateDirectoryTests {
  @Test func madePrivateAndRemovedWithItsFiles() throws {
    let parent = NSTemporaryDirectory() + "private-dir-test-\(getpid())"
    try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: parent) }
    let directory = try #require(PrivateDirectory(files: ["a", "a.temp"], parent: parent))
    let name = (directory.path as NSString).lastPathComponent
    #expect(name.hasPrefix("mediatools.") && name.count == "mediatools.".count + 6, "\(name)")
    let attributes = try FileManager.default.attributesOfItem(atPath: directory.path)
    #expect((attributes[.posixPermissions] as? Int) == 0o700)
    try Data("x".utf8).write(to: URL(fileURLWithPath: directory.path(of: "a")))
    // A file nobody listed (a library's own) goes too.
    try Data("z".utf8).write(to: URL(fileURLWithPath: directory.path(of: "unlisted")))
    directory.remove()
    #expect(try FileManager.default.contentsOfDirectory(atPath: parent).isEmpty)
    // Dropped without remove(): deinit removes it.
    do {
      let dropped = try #require(PrivateDirectory(files: ["b"], parent: parent))
      try Data("y".utf8).write(to: URL(fileURLWithPath: dropped.path(of: "b")))
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: parent).isEmpty)
    #expect(PrivateDirectory(files: [], parent: parent + "/missing") == nil)
  }
}
