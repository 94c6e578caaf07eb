import Foundation
import Testing

/// Streams whose codec FFmpeg 5.1 can neither decode nor parse (issue 26, class 7): named from
/// the container's own identification, `codec_supported: false`, the sample rate and channels
/// the container states, and under `--scan` the access units the transport frames. Fixtures by
/// construction (Scripts/make-unsupported-fixtures.sh, Tests/WildFixtures/unsupported_*): 12 PES
/// packets in each TS, 25 samples in each MP4.
@Suite struct UnsupportedCodecTests {
  static func probe(_ name: String, scan: Bool) throws -> [String: Any] {
    let result = try run(
      "mediaprobe", (scan ? ["--scan"] : []) + [FilesFromTheWildTests.path(name)])
    #expect(result.status == 0)
    return try #require(try result.json() as? [String: Any])
  }

  /// An independent count of the construction: TS packets of `pid`, and those that start a PES
  /// packet (payload_unit_start_indicator).
  static func transportPackets(_ name: String, pid: Int) throws -> (all: Int, starts: Int) {
    let data = try Data(
      contentsOf: packageRoot.appendingPathComponent(FilesFromTheWildTests.path(name)))
    var all = 0
    var starts = 0
    for offset in stride(from: 0, to: data.count - 187, by: 188) {
      let bytes = data[data.startIndex + offset..<data.startIndex + offset + 4]
      let b = Array(bytes)
      guard b[0] == 0x47, Int(b[1] & 0x1F) << 8 | Int(b[2]) == pid else { continue }
      all += 1
      if b[1] & 0x40 != 0 { starts += 1 }
    }
    return (all, starts)
  }

  @Test(arguments: [
    ("unsupported_mpegh.ts", "mpegh_3d_audio", "audio", "stream_type 0x2D"),
    ("unsupported_ac4.ts", "ac4", "audio", "AC-4 descriptor"),
    ("unsupported_dtsuhd.ts", "dts_uhd", "audio", "DTS-UHD descriptor"),
    ("unsupported_vvc.ts", "vvc", "video", "stream_type 0x33"),
  ])
  func transportStream(_ name: String, codec: String, type: String, identification: String)
    throws
  {
    let (all, starts) = try Self.transportPackets(name, pid: 0x100)
    #expect(starts == 12)  // the construction
    #expect(all > starts)  // some PES packets span several TS packets
    for scan in [false, true] {
      let json = try Self.probe(name, scan: scan)
      let stream = try #require((json["streams"] as? [[String: Any]])?.first)
      #expect(stream["type"] as? String == type)
      #expect(stream["codec_supported"] as? Bool == false)
      #expect(value(stream, "codec", "name") as? String == codec)
      #expect((value(stream, "codec", "long_name") as? String)?.contains(identification) == true)
      #expect((json["warnings"] as? [String])?.contains("codec_unsupported") == true)
      if scan {
        #expect(stream["frame_count"] as? Int == starts)
        #expect(stream["frame_count_source"] as? String == "transport")
      } else {
        #expect(stream["frame_count"] is NSNull)  // MPEG-TS has no index
      }
    }
    // The AC-4 descriptor states stereo (ac4_channel_mode 1).
    let json = try Self.probe(name, scan: false)
    let channels = value((json["streams"] as? [[String: Any]])?.first, "audio", "channels")
    if codec == "ac4" {
      #expect(channels as? Int == 2)
    } else if type == "audio" {
      #expect(channels == nil)  // nothing states it
    }
  }

  /// The same AC-4 stream in M2TS (192-byte packets: a 4-byte time code before each TS packet,
  /// which libavformat reads as MPEG-TS): the PMT is found at the other stride, the count is
  /// still the 12 PES packets of the construction.
  @Test func m2tsPackets() throws {
    let source = try Data(
      contentsOf: packageRoot.appendingPathComponent(
        FilesFromTheWildTests.path("unsupported_ac4.ts")))
    var m2ts = Data()
    for offset in stride(from: 0, to: source.count, by: 188) {
      m2ts.append(contentsOf: [0x00, 0x00, 0x00, 0x00])
      m2ts.append(source[source.startIndex + offset..<source.startIndex + offset + 188])
    }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "unsupported-ac4-\(UUID().uuidString).m2ts")
    try m2ts.write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let result = try run("mediaprobe", ["--scan", url.path])
    #expect(result.status == 0)
    let json = try #require(try result.json() as? [String: Any])
    let stream = try #require((json["streams"] as? [[String: Any]])?.first)
    #expect(stream["codec_supported"] as? Bool == false)
    #expect(value(stream, "codec", "name") as? String == "ac4")
    #expect(stream["frame_count"] as? Int == 12)
    #expect(stream["frame_count_source"] as? String == "transport")
  }

  /// The sample entry states 48000 Hz and 2 channels (ffprobe reads the same fields); the
  /// sample table holds 25 samples (the construction): `index` without --scan, `transport` with.
  @Test(arguments: [("unsupported_mhm1.m4a", "mpegh_3d_audio"), ("unsupported_ac4.m4a", "ac4")])
  func sampleEntry(_ name: String, codec: String) throws {
    for scan in [false, true] {
      let json = try Self.probe(name, scan: scan)
      let stream = try #require((json["streams"] as? [[String: Any]])?.first)
      #expect(stream["type"] as? String == "audio")
      #expect(stream["codec_supported"] as? Bool == false)
      #expect(value(stream, "codec", "name") as? String == codec)
      #expect(value(stream, "audio", "sample_rate") as? Int == 48000)
      #expect(value(stream, "audio", "channels") as? Int == 2)
      #expect(stream["frame_count"] as? Int == 25)
      #expect(stream["frame_count_source"] as? String == (scan ? "transport" : "index"))
      #expect((json["warnings"] as? [String])?.contains("codec_unsupported") == true)
    }
  }

  /// --verify: a stream no decoder can read is undecodable alike whether libavformat calls it
  /// data (the TS) or audio (the MP4): the file's only stream decodes nothing.
  @Test(arguments: ["unsupported_ac4.ts", "unsupported_vvc.ts", "unsupported_mhm1.m4a"])
  func verifyIsUndecodable(_ name: String) throws {
    let result = try run("mediaprobe", ["--verify", FilesFromTheWildTests.path(name)])
    let json = try #require(try result.json() as? [String: Any])
    #expect(json["integrity"] as? String == "undecodable")
    let stream = try #require((json["streams"] as? [[String: Any]])?.first)
    #expect(value(stream, "decode", "scope") as? String == "all")
    let first = (value(stream, "decode", "errors", "first") as? [[String: Any]])?.first
    #expect(first?["kind"] as? String == "decoder_failed")
  }

  /// A stream FFmpeg decodes is `codec_supported: true`, keeps FFmpeg's codec name and its scan
  /// count stays a `scan` (the AAC the MP4 fixtures were made from, re-made here).
  @Test func decodableStreamIsUnaffected() throws {
    let json = try Self.probe("span_movie_header_short.mp4", scan: true)
    let streams = try #require(json["streams"] as? [[String: Any]])
    #expect(!streams.isEmpty)
    for stream in streams {
      #expect(stream["codec_supported"] as? Bool == true)
      #expect(stream["frame_count_source"] as? String != "transport")
    }
    #expect((json["warnings"] as? [String])?.contains("codec_unsupported") == false)
  }
}
