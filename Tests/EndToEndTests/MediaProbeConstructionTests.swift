import Foundation
import Testing

/// Values known by construction (Scripts/make-fixtures.sh chose them), including the cases where
/// ffprobe is wrong: rotation sign, mirroring, interlaced Matroska, estimated durations, VFR.
@Suite struct MediaProbeConstructionTests {
  struct OrientationCase: Sendable, CustomTestStringConvertible {
    var name: String, rotation: Int, mirrored: Bool, width: Int, height: Int
    var testDescription: String { name }
  }

  /// reference/probe.md's table for a 160×120 clip.
  static let orientations = [
    OrientationCase(name: "up", rotation: 0, mirrored: false, width: 160, height: 120),
    OrientationCase(name: "right", rotation: 90, mirrored: false, width: 120, height: 160),
    OrientationCase(name: "down", rotation: 180, mirrored: false, width: 160, height: 120),
    OrientationCase(name: "left", rotation: 270, mirrored: false, width: 120, height: 160),
    OrientationCase(name: "up_mirrored", rotation: 0, mirrored: true, width: 160, height: 120),
    OrientationCase(name: "down_mirrored", rotation: 180, mirrored: true, width: 160, height: 120),
    OrientationCase(name: "left_mirrored", rotation: 90, mirrored: true, width: 120, height: 160),
    OrientationCase(name: "right_mirrored", rotation: 270, mirrored: true, width: 120, height: 160),
  ]

  @Test(arguments: orientations)
  func orientation(_ expected: OrientationCase) throws {
    let video = try #require(
      firstStream(try probe("orient_\(expected.name).mp4"), "video")?["video"])
    #expect(value(video, "orientation", "name") as? String == expected.name)
    #expect(value(video, "orientation", "rotation") as? Int == expected.rotation)
    #expect(value(video, "orientation", "mirrored") as? Bool == expected.mirrored)
    #expect(value(video, "orientation", "display_width") as? Int == expected.width)
    #expect(value(video, "orientation", "display_height") as? Int == expected.height)
    #expect(value(video, "orientation", "portrait") as? Bool == (expected.height > expected.width))
    #expect(value(video, "width") as? Int == 160)
    #expect(value(video, "height") as? Int == 120)
  }

  @Test(arguments: [
    ("h264_25fps.mp4", "25/1"), ("h264_23.976fps.mov", "24000/1001"), ("h264_30fps.mkv", "30/1"),
    ("h264_60fps.ts", "60/1"), ("hevc_hvc1.mp4", "30/1"), ("vp9_opus.webm", "30/1"),
    ("av1.mp4", "30/1"),
    ("h263_qcif.3gp", "15/1"), ("mpeg4_sp.mp4", "30/1"),
  ])
  func constantFrameRates(_ fixture: String, _ rate: String) throws {
    let plain = try #require(firstStream(try probe(fixture), "video"))
    #expect(ratio(value(plain, "video", "frame_rate", "best")) == rate)
    #expect(value(plain, "video", "frame_rate", "mode") == nil)  // only a scan decides
    let scanned = try #require(firstStream(try probe(fixture, ["--scan"]), "video"))
    #expect(value(scanned, "video", "frame_rate", "mode") as? String == "cfr", "\(fixture)")
  }

  @Test func matroskaScanIsExact() throws {
    // 30 frames at 30 fps in a 1/1000 time base (33/34 ms steps): still 1.000 s, 30/1, CFR.
    let video = try #require(firstStream(try probe("h264_30fps.mkv", ["--scan"]), "video"))
    #expect(video["frame_count"] as? Int == 30)
    #expect(value(video, "duration", "seconds") as? Double == 1.0)
    #expect(ratio(value(video, "video", "frame_rate", "best")) == "30/1")
    #expect(value(video, "video", "frame_rate", "mode") as? String == "cfr")
  }

  @Test func variableFrameRate() throws {
    // 10 frames at 10 fps then 30 at 30 fps, time base 1/300.
    let json = try probe("vfr.mp4", ["--scan"])
    let stream = try #require(firstStream(json, "video"))
    #expect(stream["frame_count"] as? Int == 40)
    #expect(value(stream, "duration", "value") as? Int == 600)
    #expect(value(stream, "duration", "timescale") as? Int == 300)
    #expect(value(stream, "duration", "source") as? String == "scan")
    #expect(value(stream, "video", "frame_rate", "mode") as? String == "vfr")
    #expect(ratio(value(stream, "video", "frame_rate", "min")) == "10/1")
    #expect(ratio(value(stream, "video", "frame_rate", "max")) == "30/1")
    #expect(ratio(value(stream, "video", "frame_rate", "best")) == "20/1")
    #expect(value(stream, "video", "frame_rate", "min_frame_duration", "value") as? Int == 10)
    #expect(value(stream, "video", "frame_rate", "min_frame_duration", "timescale") as? Int == 300)
    #expect(value(json, "duration", "seconds") as? Double == 2.0)
  }

  @Test(arguments: [
    ("interlaced_tff.mp4", "tt", "TFF"), ("interlaced_tff.mkv", "tt", "TFF"),
    ("interlaced_bff.mkv", "bb", "BFF"),
  ])
  func interlaced(_ fixture: String, _ order: String, _ mediainfo: String) throws {
    // x264 MBAFF with the field order chosen by construction. The MP4 muxer wrote it ('fiel');
    // Matroska says "progressive" (so does ffprobe); the decoded frame knows (H.264 derives it
    // from the fields' picture order counts), and so does MediaInfo.
    let video = try #require(firstStream(try probe(fixture), "video")?["video"])
    #expect(value(video, "interlaced") as? Bool == true)
    #expect(value(video, "field_order") as? String == order)
    let scan = try run(
      "mediainfo", ["--Inform=Video;%ScanType% %ScanOrder%", "\(fixturesDirectory)/\(fixture)"])
    #expect(scan.text.trimmingCharacters(in: .whitespacesAndNewlines) == "MBAFF \(mediainfo)")
  }

  @Test(arguments: [
    // H.264 codes 16×16 macroblocks (MBAFF: pairs, 32 rows); HEVC and VP9 the picture size.
    ("h264_25fps.mp4", 320, 240), ("orient_up.mp4", 160, 128), ("anamorphic.mp4", 240, 192),
    ("interlaced_tff.mp4", 320, 256), ("hevc_hvc1.mp4", 320, 240), ("vp9_opus.webm", 320, 240),
  ])
  func codedSize(_ fixture: String, _ width: Int, _ height: Int) throws {
    let video = try #require(firstStream(try probe(fixture), "video")?["video"])
    #expect(value(video, "coded_width") as? Int == width)
    #expect(value(video, "coded_height") as? Int == height)
  }

  @Test func progressiveIsNotInterlaced() throws {
    let video = try #require(firstStream(try probe("h264_25fps.mp4"), "video")?["video"])
    #expect(value(video, "interlaced") as? Bool == false)
  }

  @Test func anamorphic() throws {
    let video = try #require(firstStream(try probe("anamorphic.mp4"), "video")?["video"])
    #expect(ratio(value(video, "sample_aspect_ratio")) == "4/3")
    #expect(ratio(value(video, "display_aspect_ratio")) == "16/9")
    #expect(value(video, "anamorphic") as? Bool == true)
    #expect(value(video, "orientation", "display_width") as? Int == 320)
    #expect(value(video, "orientation", "display_height") as? Int == 180)
  }

  @Test func unknownDurationSentinel() throws {
    // Headers say 0xFFFFFFFF ("unknown"); the clip is 25 frames at 25 fps. Without a scan the
    // fragments' own sample durations give it; the sentinel is never reported.
    let plain = try probe("fragmented_unknown_duration.mp4")
    #expect(value(plain, "duration", "seconds") as? Double == 1.0)
    #expect(value(plain, "duration", "estimated") as? Bool == false)
    #expect(value(plain, "duration", "source") as? String == "fragments")
    #expect((plain["warnings"] as? [String])?.contains("duration_sentinel") == true)
    #expect(firstStream(plain, "video")?["frame_count"] as? Int == 25)
    #expect(value(firstStream(plain, "video"), "duration", "seconds") as? Double == 1.0)
    let scanned = try probe("fragmented_unknown_duration.mp4", ["--scan"])
    #expect(value(scanned, "duration", "seconds") as? Double == 1.0)
    #expect(value(scanned, "duration", "estimated") as? Bool == false)
    #expect(firstStream(scanned, "video")?["frame_count"] as? Int == 25)
  }

  @Test(arguments: ["tone_adts.aac", "vbr_no_xing.mp3"])
  func bitrateEstimates(_ fixture: String) throws {
    // Both are 3.000 s by construction; without an index libavformat estimates from the bit rate.
    let plain = try probe(fixture)
    #expect(value(plain, "duration", "estimated") as? Bool == true)
    #expect(value(plain, "duration", "source") as? String == "bitrate")
    let scanned = try probe(fixture, ["--scan"])
    #expect(value(scanned, "duration", "estimated") as? Bool == false)
    let seconds = try #require(value(scanned, "duration", "seconds") as? Double)
    // Within one codec frame of encoder padding.
    #expect(abs(seconds - 3.0) < 0.06, "\(fixture): \(seconds)")
  }

  @Test func exactDurationsAreNotEstimated() throws {
    let json = try probe("h264_25fps.mp4")
    #expect(value(json, "duration", "estimated") as? Bool == false)
    let video = try #require(firstStream(json, "video"))
    #expect(value(video, "duration", "seconds") as? Double == 1.0)
    #expect(video["frame_count"] as? Int == 25)
  }

  @Test func coverArtIsNotAClip() throws {
    let json = try probe("tone_cover.mp3")
    let picture = try #require(firstStream(json, "video"))
    #expect(value(picture, "disposition", "attached_pic") as? Bool == true)
    #expect(value(picture, "duration") == nil)
    #expect(value(picture, "video", "frame_rate", "nominal") == nil)
    #expect(value(json, "container", "tags", "title") as? String == "Tone")
  }

  @Test func codecDetails() throws {
    let baseline = try #require(firstStream(try probe("h264_25fps.mp4"), "video"))
    #expect(value(baseline, "codec", "profile") as? String == "Constrained Baseline")
    #expect(value(baseline, "codec", "level") as? String == "3.0")
    #expect(value(baseline, "codec", "tag") as? String == "avc1")
    #expect(
      value(try #require(firstStream(try probe("hevc_hvc1.mp4"), "video")), "codec", "tag")
        as? String == "hvc1")
    #expect(
      value(try #require(firstStream(try probe("hevc_hev1.mp4"), "video")), "codec", "tag")
        as? String == "hev1")
    let hdr = try #require(firstStream(try probe("hevc_hdr10.mkv"), "video"))
    #expect(value(hdr, "video", "hdr") as? String == "hdr10")
    #expect(value(hdr, "video", "bit_depth") as? Int == 10)
    #expect(value(hdr, "video", "chroma_subsampling") as? String == "4:2:0")
    #expect(value(hdr, "codec", "profile") as? String == "Main 10")
  }

  @Test func fastStart() throws {
    #expect(value(try probe("h264_25fps.mp4"), "container", "fast_start") as? Bool == true)
    #expect(value(try probe("h264_23.976fps.mov"), "container", "fast_start") as? Bool == false)
    #expect(value(try probe("h264_30fps.mkv"), "container", "fast_start") == nil)
  }

  @Test func audioDetails() throws {
    let flac = try #require(firstStream(try probe("tone_24bit_96k.flac"), "audio"))
    #expect(value(flac, "audio", "bits_per_sample") as? Int == 24)
    #expect(value(flac, "audio", "sample_rate") as? Int == 96000)
    let ac3 = try #require(firstStream(try probe("surround_5.1.ac3"), "audio"))
    #expect(value(ac3, "audio", "channels") as? Int == 6)
    #expect(value(ac3, "audio", "channel_layout") as? String == "5.1(side)")
    let m4a = try #require(firstStream(try probe("tone.m4a"), "audio"))
    #expect(value(m4a, "audio", "channel_layout") as? String == "stereo")
    #expect(value(m4a, "codec", "profile") as? String == "LC")
  }
}
