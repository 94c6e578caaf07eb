import Foundation
import Testing

/// Field by field against `ffprobe -show_format -show_streams -of json` on the same fixtures,
/// for everything ffprobe gets right. (Where it is wrong — rotation sign, mirroring, interlacing
/// in Matroska, estimated durations, VFR — MediaProbeConstructionTests checks the true values.)
@Suite struct MediaProbeVersusFFprobeTests {
  /// Fixtures where ffprobe's field order is wrong by construction (x264 MBAFF in Matroska).
  static let ffprobeFieldOrderWrong: Set<String> = ["interlaced_tff.mkv", "interlaced_bff.mkv"]

  /// Fixtures whose duration ffprobe gets wrong, checked against other oracles in
  /// MediaProbeTruthTests: an MP3 with a LAME tag (ffprobe counts the encoder delay and padding
  /// that decoders drop), a fragmented MP4 whose header holds the "unknown" sentinel, an Ogg
  /// Opus file (ffprobe counts the pre-skip the decoder drops: PresentedSamplesTests, class 9).
  static let ffprobeDurationWrong: Set<String> = [
    "tone_cover.mp3", "fragmented_unknown_duration.mp4", "tone.opus",
  ]

  /// Each stream's packets that are presented: `ffprobe -show_entries packet` without the ones
  /// flagged `D` (discarded: outside an MP4 edit list, such as AAC priming).
  static func presentedPackets(_ fixture: String) throws -> [Int: Int] {
    let result = try run(
      "ffprobe",
      [
        "-v", "error", "-show_entries", "packet=stream_index,flags", "-of", "csv=p=0",
        "\(fixturesDirectory)/\(fixture)",
      ])
    var counts: [Int: Int] = [:]
    for line in result.text.split(separator: "\n") {
      let fields = line.split(separator: ",")
      guard fields.count >= 2, let index = Int(fields[0]), !fields[1].contains("D") else {
        continue
      }
      counts[index, default: 0] += 1
    }
    return counts
  }

  static func ffprobe(_ fixture: String) throws -> [String: Any] {
    let result = try run(
      "ffprobe",
      [
        "-v", "error", "-show_format", "-show_streams", "-of", "json",
        "\(fixturesDirectory)/\(fixture)",
      ])
    return try #require(try result.json() as? [String: Any])
  }

  /// ffprobe prints numbers as strings and "unknown"/"N/A" for missing values.
  static func known(_ text: Any?) -> String? {
    guard let text = text as? String, !["unknown", "N/A", "0/0"].contains(text) else { return nil }
    return text
  }

  /// ffprobe writes a tag that is not a FourCC as bytes in brackets ("[27][0][0][0]", an MPEG-TS
  /// stream type, or "U[0][0][0]" for MP3 in AVI); mediaprobe reports only printable FourCCs.
  static func fourCC(_ text: Any?) -> String? {
    known(text).flatMap { $0.contains("[") ? nil : $0 }
  }

  static func seconds(_ text: Any?) -> Double? { known(text).flatMap(Double.init) }

  @Test(arguments: mediaFixtures)
  func format(_ fixture: String) throws {
    let ours = try probe(fixture)
    let theirs = try #require(Self.ffprobe(fixture)["format"] as? [String: Any])
    #expect(value(ours, "container", "format_name") as? String == theirs["format_name"] as? String)
    #expect(
      value(ours, "container", "format_long_name") as? String == theirs["format_long_name"]
        as? String)
    #expect(
      value(ours, "container", "bit_rate") as? Int
        == Self.known(theirs["bit_rate"]).flatMap { Int($0) })
    #expect(value(ours, "size_bytes") as? Int == Self.known(theirs["size"]).flatMap { Int($0) })
    if let start = Self.seconds(theirs["start_time"]) {
      let ourStart = try #require(value(ours, "container", "start_time") as? Double)
      #expect(abs(ourStart - start) < 1e-6)
    }
    if let duration = Self.seconds(theirs["duration"]), !Self.ffprobeDurationWrong.contains(fixture)
    {
      let ourDuration = try #require(value(ours, "duration", "seconds") as? Double)
      #expect(abs(ourDuration - duration) < 1e-6, "\(fixture): \(ourDuration) vs \(duration)")
    }
    let tags = (theirs["tags"] as? [String: String]) ?? [:]
    #expect(value(ours, "container", "tags") as? [String: String] == tags)
  }

  @Test(arguments: mediaFixtures)
  func streams(_ fixture: String) throws {
    let ours = try #require(try probe(fixture)["streams"] as? [[String: Any]])
    let theirs = try #require(Self.ffprobe(fixture)["streams"] as? [[String: Any]])
    let presented = try Self.presentedPackets(fixture)
    #expect(ours.count == theirs.count)
    for (stream, reference) in zip(ours, theirs) {
      let label = "\(fixture) #\(reference["index"] ?? "?")"
      #expect(stream["type"] as? String == reference["codec_type"] as? String, "\(label)")
      #expect(
        value(stream, "codec", "name") as? String == reference["codec_name"] as? String, "\(label)")
      #expect(
        value(stream, "codec", "long_name") as? String == reference["codec_long_name"] as? String,
        "\(label)")
      #expect(
        value(stream, "codec", "profile") as? String == Self.known(reference["profile"]), "\(label)"
      )
      #expect(
        value(stream, "codec", "tag") as? String == Self.fourCC(reference["codec_tag_string"]),
        "\(label)")
      // In MPEG-TS ffprobe prints the bit rate its opened decoder guessed; we print the stream's.
      if !fixture.hasSuffix(".ts") {
        #expect(
          value(stream, "bit_rate") as? Int
            == Self.known(reference["bit_rate"]).flatMap { Int($0) }, "\(label)")
      }
      #expect(ratio(stream["time_base"]) == reference["time_base"] as? String, "\(label)")
      // A count, when given, is the presented packets' (ffprobe's nb_frames also counts the
      // ones an edit list discards).
      if let frames = value(stream, "frame_count") as? Int {
        let index = stream["index"] as? Int ?? -1
        let shown = Self.shownFromInsideTheEdit[fixture]?[index] ?? 0
        #expect(frames == presented[index].map { $0 + shown }, "\(label)")
        #expect(value(stream, "frame_count_source") is String, "\(label)")
      }
      // Cover art has no duration of its own (ffprobe copies the file's).
      if let duration = Self.seconds(reference["duration"]),
        value(stream, "disposition", "attached_pic") as? Bool != true,
        !Self.ffprobeDurationWrong.contains(fixture)
      {
        let ourDuration = try #require(value(stream, "duration", "seconds") as? Double, "\(label)")
        #expect(abs(ourDuration - duration) < 1e-6, "\(label)")
      }
      let language = Self.known((reference["tags"] as? [String: String])?["language"]).flatMap {
        $0 == "und" ? nil : $0
      }
      #expect(value(stream, "language") as? String == language, "\(label)")
      let disposition = (reference["disposition"] as? [String: Int])?.mapValues { $0 != 0 }
      #expect(value(stream, "disposition") as? [String: Bool] == disposition, "\(label)")

      if let video = stream["video"] as? [String: Any] {
        #expect(video["width"] as? Int == reference["width"] as? Int, "\(label)")
        #expect(video["height"] as? Int == reference["height"] as? Int, "\(label)")
        #expect(video["pixel_format"] as? String == Self.known(reference["pix_fmt"]), "\(label)")
        if value(stream, "disposition", "attached_pic") as? Bool != true {
          #expect(
            ratio(value(video, "frame_rate", "nominal")) == Self.known(reference["r_frame_rate"]),
            "\(label)")
          #expect(
            ratio(value(video, "frame_rate", "average")) == Self.known(reference["avg_frame_rate"]),
            "\(label)")
        }
        let sar = Self.known(reference["sample_aspect_ratio"]).flatMap { $0 == "0:1" ? nil : $0 }
        #expect(
          ratio(video["sample_aspect_ratio"])?.replacingOccurrences(of: "/", with: ":") == sar,
          "\(label)")
        if sar != nil {
          let dar = Self.known(reference["display_aspect_ratio"])
          #expect(
            ratio(video["display_aspect_ratio"])?.replacingOccurrences(of: "/", with: ":") == dar,
            "\(label)")
        }
        if !Self.ffprobeFieldOrderWrong.contains(fixture) {
          #expect(
            video["field_order"] as? String == Self.known(reference["field_order"]), "\(label)")
        }
        #expect(
          value(video, "color", "range") as? String == Self.known(reference["color_range"]),
          "\(label)")
        #expect(
          value(video, "color", "primaries") as? String == Self.known(reference["color_primaries"]),
          "\(label)")
        #expect(
          value(video, "color", "transfer") as? String == Self.known(reference["color_transfer"]),
          "\(label)")
        #expect(
          value(video, "color", "matrix") as? String == Self.known(reference["color_space"]),
          "\(label)")
      }
      if let audio = stream["audio"] as? [String: Any] {
        #expect(
          audio["sample_rate"] as? Int == Self.known(reference["sample_rate"]).flatMap { Int($0) },
          "\(label)")
        #expect(audio["channels"] as? Int == reference["channels"] as? Int, "\(label)")
        #expect(
          audio["channel_layout"] as? String == Self.known(reference["channel_layout"]), "\(label)")
        #expect(
          audio["sample_format"] as? String == Self.known(reference["sample_fmt"]), "\(label)")
        let raw = Self.known(reference["bits_per_raw_sample"]).flatMap { Int($0) } ?? 0
        let bits = raw > 0 ? raw : (reference["bits_per_sample"] as? Int ?? 0)
        #expect(audio["bits_per_sample"] as? Int == (bits > 0 ? bits : nil), "\(label)")
      }
    }
  }

  /// Streams whose MP4 edit starts inside a frame: the edit shows that frame from its start
  /// (ISO/IEC 14496-12 8.6.6), which libavformat flags discarded. Per stream index, the frames
  /// presented beyond ffprobe's undiscarded packets (Tests/PresentedFixtures/mp4_presented.py
  /// reads the boxes: 77 of editlist_trim.mp4's video frames against 76 packets; issue 26).
  static let shownFromInsideTheEdit: [String: [Int: Int]] = ["editlist_trim.mp4": [0: 1]]

  /// `--scan` frame counts equal ffprobe's packets less those flagged discarded.
  @Test(arguments: mediaFixtures)
  func scanCountsPackets(_ fixture: String) throws {
    let ours = try #require(try probe(fixture, ["--scan"])["streams"] as? [[String: Any]])
    let presented = try Self.presentedPackets(fixture)
    for stream in ours {
      let index = try #require(stream["index"] as? Int)
      let shown = Self.shownFromInsideTheEdit[fixture]?[index] ?? 0
      #expect(
        stream["frame_count"] as? Int == presented[index].map { $0 + shown }, "\(fixture) #\(index)"
      )
    }
  }
}
