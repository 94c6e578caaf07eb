import Foundation
import FrameGrab
import Testing

/// The frame at a time in containers and codecs of every kind (Tests/Fixtures): the expected
/// frame is the last whose time ffprobe reports at or before the time (frame times counted from
/// the input's start), and the picture equals the ffmpeg CLI's decode of that frame.
@Suite struct FixtureSweepTests {
  static let files = [
    "h264_25fps.mp4", "h264_23.976fps.mov", "h264_30fps.mkv", "h264_60fps.ts", "vfr.mp4",
    "vp8_vorbis.webm", "vp9_opus.webm", "av1.mp4", "mpeg4_sp.mp4", "avi_mp3.avi",
    "h263_qcif.3gp", "interlaced_tff.mkv", "offset_audio_late.mov", "anamorphic.mp4",
  ]

  /// ffprobe's frame times of the first video stream, from the input's start.
  static func frameTimes(_ path: String) throws -> [Double] {
    let result = try run(
      "ffprobe",
      [
        "-v", "error", "-select_streams", "v:0", "-show_entries",
        "frame=best_effort_timestamp_time:format=start_time", "-of", "json", path,
      ])
    let json = try #require(
      try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    let start = Double((json["format"] as? [String: Any])?["start_time"] as? String ?? "0") ?? 0
    let frames = json["frames"] as? [[String: Any]] ?? []
    return frames.compactMap { ($0["best_effort_timestamp_time"] as? String).flatMap(Double.init) }
      .map { $0 - start }
  }

  /// Each time also from a grabber of its own told it is the last (`stopsAtTarget`, as a
  /// poster's): the decode stops at the target's packet, and the frame is the same.
  @Test(arguments: files, [false, true])
  func frameAtTimes(name: String, stopping: Bool) throws {
    let path = sharedFixture(name)
    let times = try Self.frameTimes(path)
    try #require(times.count > 3)
    var source = try grabber(path)
    for fraction in [0.37, 0.81] {
      if stopping {
        source = try grabber(path)
        source.stopsAtTarget = true
      }
      let time = ((times[0] + (times.last! - times[0]) * fraction) * 1000).rounded() / 1000 + 0.001
      let index = times.lastIndex { $0 <= time + 1e-9 } ?? 0
      let grab = try source.grab(at: time, maxSize: nil)
      let actual = try #require(grab.actualTime)
      #expect(abs(actual - times[index]) < 0.002, "\(name) at \(time)")
      var filters = "select=eq(n\\,\(index))"
      if source.sampleAspectRatio.map({ $0.num != $0.den }) == true {
        filters += ",scale=iw*sar:ih"
      }
      let oracle = try ffmpegPicture(path, filters: filters, width: grab.picture.width)
      #expect(psnr(grab.picture, oracle) > 35, "\(name) at \(time): frame \(index)")
    }
  }
}
