import Foundation
import Testing

/// `mediaprobe --verify`: damage found where it was made (Tests/DamagedFixtures, made by
/// Scripts/make-fixtures.sh with Scripts/damage.py), clean files clean, counts equal to what
/// ffmpeg's decoder outputs, and content hashes equal to ffmpeg's `streamhash`.
@Suite struct MediaProbeVerifyTests {
  static let damagedDirectory = "Tests/DamagedFixtures"

  /// A damaged fixture: the verdict, and which packet of which stream was damaged (nil when the
  /// damage is a cut).
  struct Damage: Sendable, CustomTestStringConvertible {
    var file: String
    var integrity: String
    var stream: Int?
    var packet: Int?
    var testDescription: String { file }
  }

  static let damaged = [
    Damage(file: "h264_pframe_hit.mp4", integrity: "damaged", stream: 0, packet: 30),
    Damage(file: "h264_idr_zeroed.mp4", integrity: "damaged", stream: 0, packet: 25),
    Damage(file: "aac_hit.mp4", integrity: "damaged", stream: 1, packet: 40),
    Damage(file: "hevc_hit.mp4", integrity: "damaged", stream: 0, packet: 30),
    Damage(file: "mp3_bad_header.mp3", integrity: "damaged", stream: 0, packet: 40),
    Damage(file: "flac_hit.flac", integrity: "damaged", stream: 0, packet: 10),
    Damage(file: "opus_hit.webm", integrity: "damaged", stream: 0, packet: 40),
    Damage(file: "cut_faststart.mp4", integrity: "truncated", stream: nil, packet: nil),
    Damage(file: "cut.mkv", integrity: "truncated", stream: nil, packet: nil),
    Damage(file: "cut.ts", integrity: "truncated", stream: nil, packet: nil),
  ]

  /// Packet `index` of `stream` as ffprobe lists it: its time and duration in seconds.
  static func packet(_ path: String, stream: Int, index: Int) throws -> (
    time: Double, length: Double
  ) {
    let result = try run(
      "ffprobe",
      [
        "-v", "error", "-select_streams", "\(stream)", "-show_entries",
        "packet=pts_time,duration_time", "-of", "csv=p=0", path,
      ])
    let line = result.text.split(separator: "\n")[index].split(separator: ",")
    return (try #require(Double(line[0])), Double(line.count > 1 ? line[1] : "") ?? 0)
  }

  @Test(arguments: damaged)
  func damageIsFoundWhereItWasMade(_ damage: Damage) throws {
    let path = "\(Self.damagedDirectory)/\(damage.file)"
    let result = try run("mediaprobe", ["--verify", path])
    #expect(result.status == 2, "\(result.stderr)")
    let json = try result.json()
    #expect(value(json, "integrity") as? String == damage.integrity)
    // ffmpeg's own complaints (if any) are among ours: it saw damage, so must we.
    let ffmpeg = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "null", "-"])
    let streams = try #require(value(json, "streams") as? [[String: Any]])
    let ours = streams.map { value($0, "decode", "errors", "count") as? Int ?? 0 }.reduce(0, +)
    if !ffmpeg.stderr.isEmpty && damage.integrity == "damaged" { #expect(ours > 0) }
    guard let stream = damage.stream, let index = damage.packet else { return }
    let first = try #require(
      value(streams[stream], "decode", "errors", "first", 0) as? [String: Any])
    let time = try #require(first["time"] as? Double)
    let damaged = try Self.packet(path, stream: stream, index: index)
    // Within one frame of the damaged packet.
    #expect(abs(time - damaged.time) <= damaged.length + 1e-6, "\(time) vs \(damaged.time)")
    #expect(["invalid_data", "missing_reference", "concealed"].contains(first["kind"] as? String))
  }

  /// The count and first error are the same on every run, with frame threads (--jobs 1 gives
  /// each decoder both cores) or without (--jobs 2): one file 10 times, and every damaged file.
  /// And the same, with the frame counts, whether the in-loop filters run (--hash decodes every
  /// picture exactly) or are skipped (--verify alone).
  @Test func errorsAreDeterministic() throws {
    let repeated = Array(repeating: "\(Self.damagedDirectory)/h264_pframe_hit.mp4", count: 10)
    let all =
      Self.damaged.map { "\(Self.damagedDirectory)/\($0.file)" } + [
        "\(fixturesDirectory)/hostile_truncated.mp4"
      ]
    for files in [repeated, all] {
      var seen: [String: Set<String>] = [:]
      for jobs in ["1", "2"] {
        for hash in [[], ["--hash", "md5"]] {
          let result = try run(
            "mediaprobe", ["--verify", "--ndjson", "--jobs", jobs] + hash + files)
          for line in result.text.split(separator: "\n") {
            let json = try JSONSerialization.jsonObject(with: Data(line.utf8))
            let path = try #require(value(json, "path") as? String)
            let errors = (value(json, "streams") as? [[String: Any]] ?? []).map {
              [
                value($0, "decode", "errors") ?? NSNull(),
                value($0, "decode", "frames") ?? NSNull(),
                value($0, "decode", "samples") ?? NSNull(),
              ]
            }
            let text = String(
              decoding: try JSONSerialization.data(withJSONObject: errors, options: [.sortedKeys]),
              as: UTF8.self)
            seen[path, default: []].insert(text)
          }
        }
      }
      for (path, variants) in seen { #expect(variants.count == 1, "\(path): \(variants)") }
    }
  }

  /// Fixtures that are not clean on purpose: FFmpeg 5.1 cannot decode 32-bit FLAC; the joined
  /// MP3 has a frame whose header ffmpeg rejects too ("Header missing").
  static let notClean = ["flac_32bit.flac": "undecodable", "format_switch.mp3": "damaged"]

  /// Every clean fixture: ok, no errors, and each stream's MD5 equal to ffmpeg's streamhash of
  /// the stored pictures and sound (-noautorotate: the CLI would otherwise rotate the pictures by
  /// the display matrix, which is a tag, not content).
  @Test(arguments: mediaFixtures)
  func cleanFilesAreCleanAndHashLikeFFmpeg(_ fixture: String) throws {
    let path = "\(fixturesDirectory)/\(fixture)"
    let result = try run("mediaprobe", ["--verify", "--hash", "md5", path])
    let json = try result.json()
    let integrity = value(json, "integrity") as? String
    #expect(integrity == (Self.notClean[fixture] ?? "ok"), "\(fixture)")
    #expect(result.status == (Self.notClean[fixture] == nil ? 0 : 2))
    guard Self.notClean[fixture] == nil else { return }
    for stream in try #require(value(json, "streams") as? [[String: Any]]) {
      guard let decode = stream["decode"] as? [String: Any] else { continue }
      let index = try #require(stream["index"] as? Int)
      if decode["scope"] as? String == "none" {  // cover art, subtitles: listed, not decoded
        #expect(
          value(stream, "disposition", "attached_pic") as? Bool == true
            || stream["type"] as? String != "video")
        continue
      }
      #expect(value(decode, "errors", "count") as? Int == 0, "\(fixture) #\(index)")
      let hash = try run(
        "ffmpeg",
        [
          "-nostdin", "-v", "error", "-noautorotate", "-i", path, "-map", "0:\(index)",
          "-fps_mode", "passthrough", "-f", "streamhash", "-hash", "md5", "-",
        ])
      let expected = hash.text.split(separator: "=").last.map {
        $0.trimmingCharacters(in: .whitespacesAndNewlines)
      }
      #expect(decode["md5"] as? String == expected, "\(fixture) #\(index)")
    }
  }

  /// Frames and samples are what ffmpeg's decoder outputs for the stream.
  @Test(arguments: [
    "h264_25fps.mp4", "vp9_opus.webm", "tone.m4a", "tone_cover.mp3", "h264_60fps.ts",
    "editlist_trim.mp4", "surround_5.1.ac3", "tone_24bit_96k.flac", "vfr.mp4",
  ])
  func countsAreWhatTheDecoderOutputs(_ fixture: String) throws {
    let path = "\(fixturesDirectory)/\(fixture)"
    let json = try run("mediaprobe", ["--verify", path]).json()
    for stream in try #require(value(json, "streams") as? [[String: Any]]) {
      guard let decode = stream["decode"] as? [String: Any], decode["scope"] as? String != "none"
      else { continue }
      let index = try #require(stream["index"] as? Int)
      if stream["type"] as? String == "audio" {
        let channels = try #require(value(stream, "audio", "channels") as? Int)
        let pcm = try run(
          "ffmpeg",
          ["-nostdin", "-v", "error", "-i", path, "-map", "0:\(index)", "-f", "s32le", "-"])
        #expect(decode["samples"] as? Int == pcm.stdout.count / 4 / channels, "\(fixture)")
      } else {
        let frames = try run(
          "ffmpeg",
          [
            "-nostdin", "-v", "error", "-i", path, "-map", "0:\(index)", "-fps_mode", "passthrough",
            "-f", "framecrc", "-",
          ])
        let count = frames.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
        #expect(decode["frames"] as? Int == count, "\(fixture)")
      }
    }
  }

  /// The same pictures and sound in another container hash the same.
  @Test func remuxedContentHashesTheSame() throws {
    let directory = try TemporaryDirectory()
    for (fixture, copy) in [("h264_30fps.mkv", "copy.mp4"), ("tone.wav", "copy.mkv")] {
      let remux = try run(
        "ffmpeg",
        [
          "-nostdin", "-v", "error", "-i", "\(fixturesDirectory)/\(fixture)", "-c", "copy",
          directory.path(copy),
        ])
      #expect(remux.status == 0, "\(remux.stderr)")
      let hashes = try ["\(fixturesDirectory)/\(fixture)", directory.path(copy)].map { path in
        let json = try run("mediaprobe", ["--hash", "md5", path]).json()
        return (value(json, "streams") as? [[String: Any]] ?? []).compactMap {
          value($0, "decode", "md5") as? String
        }
      }
      #expect(!hashes[0].isEmpty)
      #expect(hashes[0] == hashes[1], "\(fixture)")
    }
  }

  /// Exit status: 0 all ok, 2 some verified input damaged, 1 some input could not be probed.
  @Test func exitStatusTellsDamageFromFailure() throws {
    let clean = "\(fixturesDirectory)/h264_25fps.mp4"
    let hit = "\(Self.damagedDirectory)/h264_pframe_hit.mp4"
    let unreadable = "\(Self.damagedDirectory)/moov_deleted.mp4"
    #expect(try run("mediaprobe", ["--verify", clean]).status == 0)
    #expect(try run("mediaprobe", ["--verify", clean, hit]).status == 2)
    let failed = try run("mediaprobe", ["--verify", clean, hit, unreadable])
    #expect(failed.status == 1)
    #expect(value(try failed.json(), 2, "error", "code") as? String == "truncated")
    // Without --verify, the same files are not judged.
    #expect(try run("mediaprobe", [clean, hit]).status == 0)
    #expect(value(try run("mediaprobe", [hit]).json(), "integrity") == nil)
  }

  /// --verify-fast decodes the video's keyframes only (1 per second here) and the audio whole.
  @Test func fastVerificationDecodesKeyframes() throws {
    for spelling in ["--verify-fast", "--verify=fast"] {
      let json = try run(
        "mediaprobe", [spelling, "\(Self.damagedDirectory)/h264_idr_zeroed.mp4"]
      ).json()
      #expect(value(json, "streams", 0, "decode", "scope") as? String == "keyframes")
      #expect(value(json, "streams", 0, "decode", "frames") as? Int == 1)  // the IDR at 1 s is lost
      #expect(value(json, "streams", 1, "decode", "scope") as? String == "all")
      #expect(value(json, "integrity") as? String == "damaged")
    }
  }
}
