import Foundation
import Testing

/// Classes of real-world files that gave wrong answers (issue 20), each reproduced by a fixture
/// made by construction (Scripts/make-fixtures.sh `wild`, Tests/WildFixtures) and checked against
/// ffmpeg's decoder, ffprobe or the construction.
@Suite struct FilesFromTheWildTests {
  static let directory = "Tests/WildFixtures"

  static func path(_ name: String) -> String { "\(directory)/\(name)" }

  /// A healthy Ogg Vorbis file with block switching is not damaged: ffmpeg -xerror decodes it
  /// without a word, the demuxer's packet durations only disagree with the decoded frame sizes
  /// around each switch. The samples are ffmpeg's.
  @Test func vorbisBlockSwitchingIsNotDamage() throws {
    let file = Self.path("vorbis_block_switching.ogg")
    let ffmpeg = try run(
      "ffmpeg", ["-nostdin", "-v", "warning", "-xerror", "-i", file, "-f", "s16le", "-"])
    #expect(ffmpeg.status == 0)
    #expect(ffmpeg.stderr.isEmpty, "\(ffmpeg.stderr)")
    let result = try run("mediaprobe", ["--verify", file])
    #expect(result.status == 0, "\(result.stderr)")
    let json = try result.json()
    #expect(value(json, "integrity") as? String == "ok")
    #expect(value(json, "streams", 0, "decode", "errors", "count") as? Int == 0)
    #expect(value(json, "streams", 0, "decode", "samples") as? Int == ffmpeg.stdout.count / 2)
    // The packet times really do step back around a switch (the old rule's trigger).
    let frames = try run(
      "ffprobe",
      [
        "-v", "error", "-show_entries", "frame=pts,nb_samples", "-of", "csv=p=0", file,
      ]
    ).text.split(separator: "\n").compactMap { line -> (Int, Int)? in
      let parts = line.split(separator: ",").compactMap { Int($0) }
      return parts.count == 2 ? (parts[0], parts[1]) : nil
    }
    let backwards = zip(frames, frames.dropFirst()).filter { $1.0 < $0.0 + $0.1 - $1.1 }
    #expect(!backwards.isEmpty, "the fixture no longer switches blocks")
  }

  /// Whether the first frame ffmpeg decodes is interlaced (`interlaced_frame`).
  static func firstFrameInterlaced(_ file: String) throws -> Bool {
    let text = try run(
      "ffprobe",
      [
        "-v", "error", "-read_intervals", "%+#1", "-show_entries", "frame=interlaced_frame",
        "-of", "csv=p=0", file,
      ]
    ).text
    return text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("1")
  }

  /// HEVC, VP9 and AV1 streams whose container says nothing about fields are not "unknown":
  /// VP9 and AV1 have no field coding, HEVC's SPS says it (field_seq_flag, the profile's source
  /// flags). A field-coded HEVC stream is interlaced even when its `fiel` box says progressive.
  /// Oracle: the construction (x265 with and without interlace=tff) and ffmpeg's decoded frames.
  @Test(arguments: [
    ("hevc_progressive.hevc", false), ("hevc_no_field_order.mp4", false),
    ("hevc_fields.mp4", true), ("vp9.ivf", false), ("av1.ivf", false),
  ])
  func interlacingIsKnown(_ file: String, _ interlaced: Bool) throws {
    let path = Self.path(file)
    let json = try run("mediaprobe", [path]).json()
    #expect(value(json, "streams", 0, "video", "interlaced") as? Bool == interlaced, "\(file)")
    #expect(try Self.firstFrameInterlaced(path) == interlaced, "\(file): ffmpeg's frames")
    if interlaced {
      // The container claims otherwise; the first decoded field is the top one (tff).
      let container = try run(
        "ffprobe", ["-v", "error", "-show_entries", "stream=field_order", "-of", "csv=p=0", path]
      ).text.trimmingCharacters(in: .whitespacesAndNewlines)
      #expect(container == "progressive")
      #expect(value(json, "streams", 0, "video", "field_order") as? String == "tt")
    } else {
      let field = value(json, "streams", 0, "video", "field_order") as? String
      #expect(field == nil || field == "progressive")
    }
  }

  /// An MP4 cut after its index (an `mdat` of size 0 "to the end of the file", so no box runs
  /// past the end) is truncated, and the message says how far the index and the samples inside
  /// the file reach. Oracle: ffprobe's packet list of the whole file before the cut, written
  /// beside the fixture when it was made (the decoding time of the first packet, of any stream,
  /// whose bytes pass the cut; the last packet's). --verify decodes what is there: truncated.
  @Test func mp4CutAfterItsIndexIsTruncated() throws {
    let file = Self.path("mp4_cut_after_index.mp4")
    let expected = try #require(
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: packageRoot.appendingPathComponent(file + ".json")))
        as? [String: Double])
    let playable = try #require(expected["playable_end"])
    let indexed = try #require(expected["indexed_end"])
    let result = try run("mediaprobe", [file])
    #expect(result.status == 1)
    let error = try #require(value(try result.json(), "error") as? [String: Any])
    #expect(error["code"] as? String == "truncated")
    let message = try #require(error["message"] as? String)
    #expect(message.contains("covers \(String(format: "%.3f", indexed)) s"), "\(message)")
    #expect(message.contains("play to \(String(format: "%.3f", playable)) s"), "\(message)")
    let verified = try run("mediaprobe", ["--verify", file])
    #expect(verified.status == 2)
    #expect(value(try verified.json(), "integrity") as? String == "truncated")
  }

  /// One MP3 (ID3v2 tag, no Xing header, one stray byte after the last frame), three modes that
  /// agree: --scan exactly what ffmpeg's decoder outputs, the plain estimate within one frame,
  /// the stray byte a `trailing_data` warning and not damage.
  @Test func mp3WithATrailingByteHasOneDuration() throws {
    let file = Self.path("mp3_trailing_byte.mp3")
    let pcm = try run("ffmpeg", ["-nostdin", "-v", "quiet", "-i", file, "-f", "s16le", "-"])
    let samples = pcm.stdout.count / 2  // mono
    let truth = Double(samples) / 48000
    let frame = 1152.0 / 48000
    let scan = try run("mediaprobe", ["--scan", file]).json()
    #expect(value(scan, "duration", "seconds") as? Double == truth)
    // The demuxer presents the stray byte as a packet; it is no frame (issue 26: trailing
    // garbage after the last frame is not a frame, a warning): the frames the decoder outputs.
    let packets = try run(
      "ffprobe",
      [
        "-v", "error", "-count_packets", "-show_entries", "stream=nb_read_packets", "-of",
        "csv=p=0", file,
      ]
    ).text.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(Int(packets) == samples / 1152 + 1)
    #expect(value(scan, "streams", 0, "frame_count") as? Int == samples / 1152)
    #expect((value(scan, "warnings") as? [String])?.contains("trailing_data") == true)
    let plain = try run("mediaprobe", [file]).json()
    let estimate = try #require(value(plain, "duration", "seconds") as? Double)
    #expect(abs(estimate - truth) <= frame, "\(estimate) vs \(truth)")
    let verify = try run("mediaprobe", ["--verify", file])
    #expect(verify.status == 0, "\(verify.stderr)")
    let verified = try verify.json()
    #expect(value(verified, "integrity") as? String == "ok")
    #expect(value(verified, "streams", 0, "decode", "samples") as? Int == samples)
    #expect(value(verified, "streams", 0, "decode", "errors", "count") as? Int == 0)
    #expect((value(verified, "warnings") as? [String])?.contains("trailing_data") == true)
    // The same stream without the stray byte has no warning.
    let directory = try TemporaryDirectory()
    let data = try Data(contentsOf: packageRoot.appendingPathComponent(file))
    let clean = directory.path("clean.mp3")
    try data.dropLast().write(to: URL(fileURLWithPath: clean))
    let cleanScan = try run("mediaprobe", ["--scan", clean]).json()
    #expect((value(cleanScan, "warnings") as? [String])?.contains("trailing_data") == false)
    #expect(value(cleanScan, "duration", "seconds") as? Double == truth)
  }

  /// A video track with no samples has no frames and no frame rate (libavformat's r_frame_rate
  /// is the 90 kHz time base). Oracle: ffprobe counts no packet for it.
  @Test func emptyTrackHasNoFrameRate() throws {
    let file = Self.path("empty_video_track.mp4")
    let counted = try run(
      "ffprobe",
      [
        "-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries",
        "stream=nb_read_packets,r_frame_rate", "-of", "csv=p=0", file,
      ]
    ).text.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(counted.hasPrefix("90000/1"))
    let packets = try run(
      "ffprobe", ["-v", "error", "-show_entries", "packet=stream_index", "-of", "csv=p=0", file]
    ).text.split(separator: "\n")
    #expect(!packets.isEmpty && !packets.contains("0"), "video packets: \(packets)")
    for mode in [[], ["--scan"]] {
      let json = try run("mediaprobe", mode + [file]).json()
      #expect(value(json, "streams", 0, "frame_count") as? Int == 0, "\(mode)")
      let rate = try #require(value(json, "streams", 0, "video", "frame_rate") as? [String: Any])
      #expect(rate["best"] is NSNull && rate["nominal"] is NSNull, "\(mode): \(rate)")
      #expect(value(json, "streams", 1, "frame_count") as? Int ?? 0 > 0)
    }
  }

  /// A file with subtitles only has nothing to decode: --verify says ok (exit 0), and lists the
  /// stream as not decoded.
  @Test func subtitlesOnlyVerifyAsOk() throws {
    let result = try run("mediaprobe", ["--verify", Self.path("subtitles_only.mkv")])
    #expect(result.status == 0, "\(result.stderr)")
    let json = try result.json()
    #expect(value(json, "integrity") as? String == "ok")
    #expect(value(json, "streams", 0, "type") as? String == "subtitle")
    #expect(value(json, "streams", 0, "decode", "scope") as? String == "none")
  }

  /// An unknown option gets a suggestion only when one is close (`--verfy` → `--verify`), not
  /// the nearest of all (`--bogus` → `--jobs`), in every tool; it is reported before a missing
  /// input or output; still a usage error (64).
  @Test(arguments: ["mediaprobe", "media2wav", "mediacompat", "mediamerge"])
  func unknownOptionsSuggestOnlyCloseNames(_ tool: String) throws {
    let far = try run(tool, ["--bogus", "x.mp4", "-o", "/nonexistent/out.mp4"])
    #expect(far.status == 64)
    #expect(far.stderr.contains("Unknown option '--bogus'"), "\(far.stderr)")
    #expect(!far.stderr.contains("Did you mean"), "\(far.stderr)")
    // The bad option is named first, before what else is missing (no input, no -o).
    let alone = try run(tool, ["--bogus"])
    #expect(alone.status == 64)
    #expect(alone.stderr.hasPrefix("Error: Unknown option '--bogus'\n"), "\(alone.stderr)")
    let near = try run(tool, ["--quite", "x.mp4", "-o", "/nonexistent/out.mp4"])
    #expect(near.status == 64)
    #expect(near.stderr.contains("Did you mean '--quiet'?"), "\(near.stderr)")
  }

  /// A message never quotes the input's bytes as text: a box type that ISO BMFF does not define
  /// is named by its offset (the construction: 16 bytes appended to an MP4, a box of type
  /// `pw:2` claiming 2 GB), a defined one by its type.
  @Test func messagesDoNotQuoteTheInput() throws {
    let directory = try TemporaryDirectory()
    let data = try Data(
      contentsOf: packageRoot.appendingPathComponent("\(fixturesDirectory)/h264_25fps.mp4"))
    for (type, name) in [("pw:2", "strange.mp4"), ("free", "known.mp4")] {
      var copy = data
      copy.append(contentsOf: [0x7F, 0xFF, 0xFF, 0xFF] + Array(type.utf8))
      copy.append(contentsOf: Array(repeating: 0x78, count: 8))
      let path = directory.path(name)
      try copy.write(to: URL(fileURLWithPath: path))
      for tool in ["mediaprobe", "mediacompat"] {
        let result = try run(tool, [path])
        #expect(result.status != 0, "\(tool)")
        let said = result.stderr + result.text
        if type == "pw:2" {
          #expect(!said.contains("pw:2"), "\(tool)")
          #expect(said.contains(String(format: "offset 0x%x", data.count)), "\(tool): \(said)")
        } else {
          #expect(said.contains("the free box"), "\(tool): \(said)")
        }
      }
    }
  }
}
