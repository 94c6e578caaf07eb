import Foundation
import AV
import FrameGrab
import Testing

/// `--at T` returns the frame presented at T: the last whose presentation time is at or before
/// T. numbers.mp4 is 10 fps (frame N from N/10 s), 30 frames, keyframes every 10 frames,
/// B-frames; numbers_open.mkv is 25 fps with open GOPs. Frame N's colour names N
/// (construction), and the picture equals the ffmpeg CLI's decode of frame N
/// (`select=eq(n\,N)`).
@Suite struct ExactTimeTests {
  static let cases: [(Double, Int)] = [
    (0, 0), (0.0999, 0), (0.1, 1), (0.25, 2), (0.9999, 9), (1.0, 10), (1.05, 10), (1.9, 19),
    (2.95, 29), (3.0, 29),
  ]

  @Test(arguments: cases)
  func frameAtTime(time: Double, expected: Int) throws {
    let grab = try grabber(fixture("numbers.mp4")).grab(at: time, maxSize: nil)
    #expect(frameNumber(grab.picture) == expected)
    #expect(grab.actualTime == Double(expected) / 10)
    #expect(grab.requestedTime == time)
    let oracle = try ffmpegPicture(
      fixture("numbers.mp4"), filters: "select=eq(n\\,\(expected))", width: 64)
    #expect(psnr(grab.picture, oracle) > 40)
  }

  /// Toward a time, the packets whose frames come before a later one still at or before it
  /// are sent with non-reference frames skipped (numbers.mp4 has B-frames); the frame that
  /// comes out is still the exact one, as the construction and ffmpeg's decode say.
  @Test(arguments: [(0.9999, 9), (1.9, 19), (2.95, 29)])
  func skipsFramesThatCannotBeTheAnswer(time: Double, expected: Int) throws {
    let source = try grabber(fixture("numbers.mp4"))
    let grab = try source.grab(at: time, maxSize: nil)
    #expect(source.packetsSentSkippable > 0)
    #expect(frameNumber(grab.picture) == expected)
    let oracle = try ffmpegPicture(
      fixture("numbers.mp4"), filters: "select=eq(n\\,\(expected))", width: 64)
    #expect(psnr(grab.picture, oracle) > 40)
  }

  /// A poster's one time (`stopsAtTarget`): the decode stops at the packet of the frame
  /// presented then. numbers.mp4 (B-frames, keyframes at 0, 1, 2 s): the packets sent are
  /// those from the keyframe before the time to the target's packet in decoding order, as
  /// ffprobe's packet list counts them, and none after it; the frame is still the exact one
  /// (the construction and ffmpeg's decode). Without stopping, more packets are sent.
  @Test(arguments: [(0.55, 5), (0.95, 9), (1.9, 19), (2.75, 27), (3.0, 29)])
  func stopsAtTheTargetsPacket(time: Double, expected: Int) throws {
    let path = fixture("numbers.mp4")
    let listed = try run(
      "ffprobe",
      [
        "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags",
        "-of", "csv=p=0", path,
      ])
    let packets = String(decoding: listed.stdout, as: UTF8.self).split(separator: "\n").map {
      line in
      let fields = line.split(separator: ",")
      return (pts: Double(fields[0])!, key: fields[1].hasPrefix("K"))
    }
    let target = try #require(packets.firstIndex { abs($0.pts - Double(expected) / 10) < 1e-6 })
    let keyframe = try #require(packets[...target].lastIndex { $0.key })
    let source = try grabber(path)
    source.stopsAtTarget = true
    let grab = try source.grab(at: time, maxSize: nil)
    #expect(frameNumber(grab.picture) == expected)
    #expect(grab.actualTime == Double(expected) / 10)
    #expect(source.packetsSent == target - keyframe + 1)
    let oracle = try ffmpegPicture(
      path, filters: "select=eq(n\\,\(expected))", width: 64)
    #expect(psnr(grab.picture, oracle) > 40)
    let whole = try grabber(path)
    _ = try whole.grab(at: time, maxSize: nil)
    if target + 1 < packets.count { #expect(whole.packetsSent > source.packetsSent) }
    // A later time after a stop seeks and is exact too.
    if expected < 29 {
      let next = try source.grab(at: 2.95, maxSize: nil)
      #expect(frameNumber(next.picture) == 29)
    }
  }

  /// With `stopsAtTarget`, the open-GOP Matroska clip (decoding times guessed by libavformat,
  /// so the decode stops only where the end of the file was read) still gives each exact frame.
  @Test(arguments: [(0.1, 2), (0.5, 12), (1.23, 30), (1.99, 49)])
  func stopsAtTheTargetMatroska(time: Double, expected: Int) throws {
    let source = try grabber(fixture("numbers_open.mkv"))
    source.stopsAtTarget = true
    let grab = try source.grab(at: time, maxSize: nil)
    #expect(frameNumber(grab.picture) == expected)
    let oracle = try ffmpegPicture(
      fixture("numbers_open.mkv"), filters: "select=eq(n\\,\(expected))", width: 64)
    #expect(psnr(grab.picture, oracle) > 40)
  }

  /// A poster's decoder (`oneThreadUpTo` 1280x720, as FrameJob gives for `--at`) runs on one
  /// thread for a picture that size or smaller, and keeps FFmpeg's choice (0) above it or
  /// without the bound; the frame is the same either way. Sizes by construction (64x48) and
  /// ffprobe (the 1080p fixture).
  @Test func smallPosterDecodesOnOneThread() throws {
    let bound = 1280 * 720
    let small = try FrameGrabber(
      source: .file(fixture("numbers.mp4")), options: OpenOptions(), cover: false,
      oneThreadUpTo: bound)
    #expect(small.threads == 1)
    #expect(try grabber(fixture("numbers.mp4")).threads == 0)
    let large = try FrameGrabber(
      source: .file(sharedFixture("compat_03_h264_high_1080p_5M.mp4")), options: OpenOptions(),
      cover: false, oneThreadUpTo: bound)
    #expect(large.threads == 0)
    small.stopsAtTarget = true
    #expect(frameNumber(try small.grab(at: 1.9, maxSize: nil).picture) == 19)
  }

  @Test func oneGrabberForwardAndBack() throws {
    // Times in increasing order decode forward; going back seeks. Both give exact frames.
    let source = try grabber(fixture("numbers.mp4"))
    for (time, expected) in Self.cases + Self.cases.reversed() {
      let grab = try source.grab(at: time, maxSize: nil)
      #expect(frameNumber(grab.picture) == expected, "at \(time)")
    }
  }

  @Test(arguments: [(0.0, 0), (0.039, 0), (0.04, 1), (0.5, 12), (0.52, 13), (1.23, 30), (1.99, 49)])
  func openGOPMatroska(time: Double, expected: Int) throws {
    let grab = try grabber(fixture("numbers_open.mkv")).grab(at: time, maxSize: nil)
    #expect(frameNumber(grab.picture) == expected)
    let oracle = try ffmpegPicture(
      fixture("numbers_open.mkv"), filters: "select=eq(n\\,\(expected))", width: 64)
    #expect(psnr(grab.picture, oracle) > 40)
  }

  @Test func pastTheEnd() throws {
    #expect(throws: FrameError.pastEnd(requested: 3.5, duration: 3.0)) {
      try grabber(fixture("numbers.mp4")).grab(at: 3.5, maxSize: nil)
    }
    let error = FrameError.pastEnd(requested: 3.5, duration: 3.0)
    #expect(error.code == "time_past_end")
    #expect(error.message.contains("3.000 s"))
  }

  /// Keyframes at 0, 1, 2 s: the nearest one within the tolerance, else the exact frame.
  @Test(arguments: [
    (1.3, 0.5, 1.0), (1.7, 0.5, 2.0), (1.5, 0.2, 1.5), (0.4, 0.4, 0.0), (2.4, 1.0, 2.0),
  ])
  func tolerance(time: Double, tolerance: Double, expected: Double) throws {
    // MP4: the keyframes come from the index, and the nearest is taken.
    let grab = try grabber(fixture("numbers.mp4")).grab(
      at: time, tolerance: tolerance, maxSize: nil)
    #expect(grab.actualTime == expected)
    #expect(frameNumber(grab.picture) == Int((expected * 10).rounded()))
    // The same packets in MPEG-TS (no index; its seeks search timestamps and may land past a
    // keyframe): a frame within the tolerance, the one its actual time names.
    let stream = try grabber(try Self.transportStream()).grab(
      at: time, tolerance: tolerance, maxSize: nil)
    let actual = try #require(stream.actualTime)
    #expect(abs(actual - time) <= tolerance + 1e-6)
    #expect(frameNumber(stream.picture) == Int((actual * 10).rounded()))
  }

  /// numbers.mp4's packets copied into MPEG-TS (which has no index), made once.
  static func transportStream() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "mediaframe-numbers-\(getpid()).ts"
    ).path
    if !FileManager.default.fileExists(atPath: path) {
      let part = path + ".\(UUID().uuidString)"
      _ = try run(
        "ffmpeg",
        [
          "-v", "error", "-nostdin", "-y", "-i", fixture("numbers.mp4"), "-c", "copy", "-f",
          "mpegts", part,
        ])
      _ = rename(part, path)
    }
    return path
  }
}

/// An MP4 cut with `-ss 1.45 -c copy` (Tests/Fixtures/editlist_trim.mp4, 30 fps): its edit list
/// starts between keyframes, so the frames before the edit are decoded but not shown. Frame N
/// (from N/30 s; 76 frames, the last at 2.5 s) equals the ffmpeg CLI's `select=eq(n\,N)`.
@Suite struct EditListTests {
  @Test(arguments: [0, 1, 14, 45, 75])
  func frameOfEditedClip(number: Int) throws {
    let time = Double(number) / 30 + 0.01
    let grab = try grabber(sharedFixture("editlist_trim.mp4")).grab(at: time, maxSize: nil)
    let actual = try #require(grab.actualTime)
    #expect(abs(actual - Double(number) / 30) < 1e-6)
    let oracle = try ffmpegPicture(
      sharedFixture("editlist_trim.mp4"), filters: "select=eq(n\\,\(number))",
      width: grab.picture.width)
    #expect(psnr(grab.picture, oracle) > 40)
  }
}

/// MPEG-TS has no index and seeks by searching timestamps: exact frames still come out (the
/// seek is retried earlier when it lands past the keyframe before the time).
@Suite struct TransportStreamTests {
  @Test(arguments: [(0.0, 0), (0.25, 2), (1.0, 10), (1.55, 15), (2.4, 24), (2.95, 29)])
  func exactInTransportStream(time: Double, expected: Int) throws {
    let grab = try grabber(try ExactTimeTests.transportStream()).grab(at: time, maxSize: nil)
    #expect(frameNumber(grab.picture) == expected)
  }
}

/// A raw H.264 elementary stream (numbers.mp4's packets, Annex B): no container timestamps, no
/// index; frame times are counted at the stream's rate (10 fps, from the SPS's timing), and a
/// seek that finds nothing opens the input again.
@Suite struct RawStreamTests {
  static func rawStream() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "mediaframe-numbers-\(getpid()).h264"
    ).path
    if !FileManager.default.fileExists(atPath: path) {
      // Written under a name of its own and renamed: the test's cases run at once, and one
      // that found the name while ffmpeg was still writing read an empty file.
      let part = path + ".\(UUID().uuidString)"
      _ = try run(
        "ffmpeg",
        [
          "-v", "error", "-nostdin", "-y", "-i", fixture("numbers.mp4"), "-c", "copy", "-bsf:v",
          "h264_mp4toannexb", "-f", "h264", part,
        ])
      _ = rename(part, path)
    }
    return path
  }

  @Test(arguments: [(0.0, 0), (0.25, 2), (1.0, 10), (2.95, 29)])
  func exactInRawStream(time: Double, expected: Int) throws {
    let grab = try grabber(try Self.rawStream()).grab(at: time, maxSize: nil)
    #expect(frameNumber(grab.picture) == expected)
  }
}

/// FLV whose video starts at 0.3 s (Tests/Fixtures/offset_video_late.flv, 30 fps): a time
/// before the first frame gives the first frame (FLV refuses a seek before its start: the input
/// is read again from its first byte), later times their frame; the oracle is ffmpeg's
/// `select=eq(n\,N)`.
@Suite struct LateVideoTests {
  @Test(arguments: [(0.005, 0), (0.2, 0), (0.3, 0), (1.0, 21), (0.7, 12)])
  func lateVideo(time: Double, number: Int) throws {
    let source = try grabber(sharedFixture("offset_video_late.flv"))
    _ = try source.grab(at: 1.5, maxSize: nil)  // not fresh: the time is sought
    let grab = try source.grab(at: time, maxSize: nil)
    let actual = try #require(grab.actualTime)
    #expect(abs(actual - (0.3 + Double(number) / 30)) < 1e-3)  // FLV counts milliseconds
    let oracle = try ffmpegPicture(
      sharedFixture("offset_video_late.flv"), filters: "select=eq(n\\,\(number))",
      width: grab.picture.width)
    #expect(psnr(grab.picture, oracle) > 40)
  }
}
