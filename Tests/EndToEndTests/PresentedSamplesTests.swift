import Foundation
import Testing

/// What a file presents where the packets libavformat hands out say otherwise (issue 26): each
/// fixture is made by construction (Scripts/make-presented-fixtures.sh, Tests/PresentedFixtures)
/// and each expected value comes from the construction or from an independent reader of the
/// file's own structures written for the test (Tests/PresentedFixtures/mp4_presented.py reads
/// an MP4's mvhd/mdhd/stts/ctts/elst boxes), never from mediaprobe's output.
@Suite struct PresentedSamplesTests {
  static let directory = "Tests/PresentedFixtures"
  static func path(_ name: String) -> String { "\(directory)/\(name)" }

  static func probe(_ name: String, _ options: [String]) throws -> [String: Any] {
    let result = try run("mediaprobe", options + [path(name)])
    #expect(result.status == 0, "\(result.stderr)")
    return try #require(try result.json() as? [String: Any])
  }

  /// The oracle's reading of each track of an MP4: presented samples and ticks.
  static func oracle(_ name: String) throws -> [[String: Any]] {
    let result = try run("python3", ["\(directory)/mp4_presented.py", path(name)])
    #expect(result.status == 0, "\(result.stderr)")
    return try #require(try result.json() as? [[String: Any]])
  }

  /// A stream's duration as value × (1 / timescale) seconds, compared exactly with ticks of a
  /// timescale.
  static func same(_ duration: Any?, ticks: Int, timescale: Int) -> Bool {
    guard let count = value(duration, "value") as? Int,
      let scale = value(duration, "timescale") as? Int
    else { return false }
    return count * timescale == ticks * scale
  }

  /// Class 1: AAC in MP4 whose edit list skips the encoder's 1,024 priming samples and ends
  /// before the last frame's padding (ffmpeg's own), ends at 0.5 s (patched), or runs past the
  /// last sample (patched: media_time 4096, 1 s; the stts gives the last frame 68 ticks). The
  /// stream lasts what the edit presents of the sample table, priming and padding excluded; its
  /// frames are those the presented range touches; plain and --scan agree. Construction: 1 s of
  /// 44.1 kHz sine, so 44,100 samples and 0.5 s; the oracle for the third.
  @Test(arguments: [
    ("aac_priming.m4a", 44_100), ("aac_edit_half.m4a", 22_050), ("aac_edit_past_samples.m4a", nil),
  ])
  func aacEditListsPresentWhatTheyEdit(_ name: String, _ constructed: Int?) throws {
    let track = try #require(try Self.oracle(name).first)
    let ticks = try #require(track["presented_ticks"] as? Int)
    let samples = try #require(track["presented_samples"] as? Int)
    #expect(track["timescale"] as? Int == 44_100)
    if let constructed { #expect(ticks == constructed) }
    for options in [[], ["--scan"]] {
      let json = try Self.probe(name, options)
      let audio = try #require(firstStream(json, "audio"))
      #expect(
        Self.same(audio["duration"], ticks: ticks, timescale: 44_100),
        "\(name) \(options): \(String(describing: audio["duration"])) vs \(ticks)")
      #expect(audio["frame_count"] as? Int == samples, "\(name) \(options)")
    }
  }

  /// Class 2: H.264 and HEVC cut with `ffmpeg -ss 0.5 -c copy` from 2 s at 25 fps with
  /// B-frames: the edit starts half-way through frame 12, 12 frames after the keyframe. The
  /// presented frames are 12 to 49 (38, the oracle's count of display intervals overlapping the
  /// edit's range); ffmpeg's decoder outputs one fewer (it drops the frame the edit starts
  /// inside) and reads all 50. Duration 1.5 s (construction), rate 25/1, the span 0 to 1.5 s;
  /// plain and --scan agree.
  @Test(arguments: ["h264_edit_mid_gop.mp4", "hevc_edit_mid_gop.mp4"])
  func editStartingInsideAGOP(_ name: String) throws {
    let track = try #require(try Self.oracle(name).first)
    let samples = try #require(track["presented_samples"] as? Int)
    #expect(samples == 38)
    #expect(track["samples"] as? Int == 50)
    let decoded = try run(
      "ffmpeg",
      ["-nostdin", "-v", "error", "-i", Self.path(name), "-map", "0:v", "-f", "framecrc", "-"]
    ).text.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
    #expect(decoded == samples - 1)
    for options in [[], ["--scan"]] {
      let json = try Self.probe(name, options)
      let video = try #require(firstStream(json, "video"))
      #expect(video["frame_count"] as? Int == samples, "\(name) \(options)")
      #expect(Self.same(video["duration"], ticks: 3, timescale: 2), "\(name) \(options)")
      #expect(ratio(value(video, "video", "frame_rate", "best")) == "25/1", "\(name) \(options)")
      if options == ["--scan"] {
        #expect(value(json, "span", "start") as? Double == 0, "\(name)")
        #expect(value(json, "span", "end") as? Double == 1.5, "\(name)")
      }
    }
  }

  /// An H.264 edit patched to start at frame 10 and last 5 s over 2 s of samples: frames 10 to
  /// 49 are presented, 1.6 s (not the edit's 5 s, nor libavformat's 2 s).
  @Test func editRunningPastTheSamples() throws {
    let name = "h264_edit_past_samples.mp4"
    let track = try #require(try Self.oracle(name).first)
    #expect(track["presented_samples"] as? Int == 40)
    #expect(track["presented_ticks"] as? Int == 40 * 512)
    for options in [[], ["--scan"]] {
      let json = try Self.probe(name, options)
      let video = try #require(firstStream(json, "video"))
      #expect(video["frame_count"] as? Int == 40, "\(options)")
      #expect(Self.same(video["duration"], ticks: 8, timescale: 5), "\(options)")
    }
  }

  /// The oracle's reading of an MP3's frame headers and LAME tag.
  static func mp3Oracle(_ name: String) throws -> [String: Any] {
    let result = try run("python3", ["\(directory)/mp3_frames.py", path(name)])
    #expect(result.status == 0, "\(result.stderr)")
    return try #require(try result.json() as? [String: Any])
  }

  /// Class 3: MP3 frames as their headers chain them. The Info frame is not audio; the LAME
  /// tag's delay and padding are not presented (its specification: a gapless decoder removes
  /// them), so the stream lasts frames × 1152 − delay − padding, or every frame's samples
  /// without a readable LAME tag. Bytes after the last frame are no frame and give
  /// `trailing_data`; an Info frame trimmed short (the next frame starts inside its stated
  /// size, where libavformat skips to, losing the first audio frame) is read, its LAME tag
  /// used when whole. Construction: 1 s and 0.3 s at 44.1 kHz (44,100 and 13,230 samples).
  @Test(arguments: [
    ("mp3_trailing_garbage.mp3", 44_100, true), ("mp3_cbr_no_info.mp3", nil, false),
    ("mp3_info_trimmed.mp3", 13_230, true), ("mp3_info_cut.mp3", nil, true),
  ])
  func mp3FramesAsTheirHeadersChainThem(_ name: String, _ constructed: Int?, _ plainExact: Bool)
    throws
  {
    let oracle = try Self.mp3Oracle(name)
    let frames = try #require(oracle["frames"] as? Int)
    let rate = try #require(oracle["sample_rate"] as? Int)
    let trimmed = ((oracle["delay"] as? Int) ?? 0) + ((oracle["padding"] as? Int) ?? 0)
    let samples = frames * 1152 - trimmed
    if let constructed { #expect(samples == constructed) }
    let trailing = (oracle["trailing_bytes"] as? Int ?? 0) > 0
    for options in plainExact ? [[], ["--scan"]] : [["--scan"]] {
      let json = try Self.probe(name, options)
      let audio = try #require(firstStream(json, "audio"))
      #expect(audio["frame_count"] as? Int == frames, "\(name) \(options)")
      #expect(
        Self.same(audio["duration"], ticks: samples, timescale: rate),
        "\(name) \(options): \(String(describing: audio["duration"])) vs \(samples)")
      #expect(Self.same(json["duration"], ticks: samples, timescale: rate), "\(name) \(options)")
      if options == ["--scan"] {
        #expect(
          (json["warnings"] as? [String])?.contains("trailing_data") == trailing, "\(name)")
      }
    }
  }

  /// The garbage and no-Info files decode whole: ffmpeg's decoder outputs the oracle's samples
  /// (its skip samples remove the LAME delay and padding), so the rule is the decoder's too.
  @Test(arguments: ["mp3_trailing_garbage.mp3", "mp3_cbr_no_info.mp3"])
  func mp3SamplesAreTheDecoders(_ name: String) throws {
    let oracle = try Self.mp3Oracle(name)
    let frames = try #require(oracle["frames"] as? Int)
    let trimmed = ((oracle["delay"] as? Int) ?? 0) + ((oracle["padding"] as? Int) ?? 0)
    let pcm = try run(
      "ffmpeg", ["-nostdin", "-v", "quiet", "-i", Self.path(name), "-f", "s16le", "-ac", "1", "-"])
    #expect(pcm.stdout.count / 2 == frames * 1152 - trimmed)
  }

  /// Class 5, audio: MP3 in AVI lasts its frames' samples. ffmpeg's header counts frames; the
  /// byte-counting header many muxers write (dwSampleSize 1, a byte rate of 8,000/s) times VBR
  /// frames wrongly (libavformat: 1.11 s, ffprobe's estimate 1.314 s) and CBR ones by a rate
  /// the frames do not keep exactly. The oracle walks the AVI's audio chunks and their frame
  /// headers (mp3_frames.py --avi); ffmpeg's decoder outputs the same samples. With --scan the
  /// stream is exact in samples, the span within one tick of the AVI time base (1/8000 s).
  @Test(arguments: [
    "avi_mp3_vbr.avi", "avi_mp3_vbr_byte_header.avi", "avi_mp3_cbr_byte_header.avi",
  ])
  func mp3InAVILastsItsFrames(_ name: String) throws {
    let oracle = try run("python3", ["\(Self.directory)/mp3_frames.py", "--avi", Self.path(name)])
    let frames = try #require((try oracle.json() as? [String: Any])?["frames"] as? Int)
    #expect(frames == 78)  // LAME: 2 s at 44.1 kHz with its encoder delay and flush
    let pcm = try run(
      "ffmpeg", ["-nostdin", "-v", "quiet", "-i", Self.path(name), "-f", "s16le", "-"])
    #expect(pcm.stdout.count / 2 == frames * 1152)
    let json = try Self.probe(name, ["--scan"])
    let audio = try #require(firstStream(json, "audio"))
    #expect(audio["frame_count"] as? Int == frames)
    #expect(Self.same(audio["duration"], ticks: frames * 1152, timescale: 44_100), "\(name)")
    let span = try #require(value(json, "span", "seconds") as? Double)
    #expect(abs(span - Double(frames * 1152) / 44_100) <= 1.0 / 8000, "\(name): \(span)")
  }

  /// Class 6: a partly fragmented MP4 (samples in the moov's tables and in fragments, no
  /// mehd): every stream lasts and counts all its samples, the movie's and the fragments',
  /// each as long as its trun says (the AAC encoder's last frame: 256 ticks, where libavformat's
  /// packet says 1024); the file lasts its longest track by the boxes, with and without --scan,
  /// and the span ends there too. The oracle reads the boxes (mp4_presented.py: stts, trun,
  /// tfhd and trex defaults).
  @Test func partlyFragmentedFileCountsEverySample() throws {
    let name = "fragmented_partial_av.mp4"
    let tracks = try Self.oracle(name)
    let video = try #require(tracks.first { $0["handler"] as? String == "vide" })
    let sound = try #require(tracks.first { $0["handler"] as? String == "soun" })
    let frames = try #require(video["samples"] as? Int) + (video["fragment_samples"] as? Int ?? 0)
    let packets = try #require(sound["samples"] as? Int) + (sound["fragment_samples"] as? Int ?? 0)
    let audioTicks = try #require(sound["decode_ticks"] as? Int)
    #expect(frames == 30)  // 1.2 s at 25 fps
    #expect(sound["fragment_samples"] as? Int ?? 0 > 0 && sound["samples"] as? Int ?? 0 > 0)
    for options in [[], ["--scan"]] {
      let json = try Self.probe(name, options)
      let picture = try #require(firstStream(json, "video"))
      let audio = try #require(firstStream(json, "audio"))
      #expect(picture["frame_count"] as? Int == frames, "\(options)")
      #expect(audio["frame_count"] as? Int == packets, "\(options)")
      #expect(Self.same(audio["duration"], ticks: audioTicks, timescale: 48_000), "\(options)")
      #expect(Self.same(json["duration"], ticks: audioTicks, timescale: 48_000), "\(options)")
      // No mehd: plain mode sums the boxes, --scan gives the samples' span, the same here.
      #expect(
        value(json, "duration", "source") as? String == (options.isEmpty ? "fragments" : "scan"),
        "\(options)")
      if options == ["--scan"] {
        let end = try #require(value(json, "span", "end") as? Double)
        #expect(abs(end - Double(audioTicks) / 48_000) < 1e-9, "\(end)")
      }
    }
  }

  /// Class 8: an encrypted WebM (its video track under WebM Encryption: ContentEncryption with
  /// AES-CTR and a key ID, every block signal byte + IV + ciphertext; no key, so no decoder
  /// reads it): the duration is the Segment Info's, as the tests' own EBML reader reads it
  /// (Duration × TimestampScale), with and without --scan, never null.
  @Test func encryptedWebMKeepsItsSegmentDuration() throws {
    let name = "webm_encrypted.webm"
    let oracle = try run("python3", ["\(Self.directory)/webm_info.py", Self.path(name)])
    let info = try #require(try oracle.json() as? [String: Any])
    #expect(info["encrypted_tracks"] as? Int == 1)
    let seconds = try #require(info["seconds"] as? Double)
    #expect(seconds >= 1)  // 1 s of video and audio was muxed
    for options in [[], ["--scan"]] {
      let json = try Self.probe(name, options)
      let duration = try #require(value(json, "duration", "seconds") as? Double, "\(options)")
      #expect(abs(duration - seconds) < 1e-9, "\(options): \(duration)")
    }
  }

  /// Class 6, a side-loaded track's fragments: the audio's fragments renumbered to a track the
  /// moov does not declare. libavformat files those samples under the video stream (its packet
  /// count grows); a track presents its own samples, the movie's and its fragments': the video
  /// its 30 frames, the audio its 7 moov samples (0.208 s), with and without --scan. Oracle:
  /// mp4_presented.py (fragments belong to the trak whose tkhd track ID their tfhd names).
  @Test func fragmentsOfAnUndeclaredTrackAreNotAnotherTracks() throws {
    let name = "fragmented_undeclared_track.mp4"
    let tracks = try Self.oracle(name)
    let video = try #require(tracks.first { $0["handler"] as? String == "vide" })
    let sound = try #require(tracks.first { $0["handler"] as? String == "soun" })
    let frames = try #require(video["samples"] as? Int) + (video["fragment_samples"] as? Int ?? 0)
    let packets = try #require(sound["samples"] as? Int) + (sound["fragment_samples"] as? Int ?? 0)
    let audioTicks = try #require(sound["decode_ticks"] as? Int)
    #expect(frames == 30 && packets == 7)
    let counted = try run(
      "ffprobe",
      [
        "-v", "quiet", "-count_packets", "-select_streams", "v", "-show_entries",
        "stream=nb_read_packets", "-of", "csv=p=0", Self.path(name),
      ]
    ).text.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect((Int(counted) ?? 0) > frames, "libavformat: \(counted)")
    for options in [[], ["--scan"]] {
      let json = try Self.probe(name, options)
      let picture = try #require(firstStream(json, "video"))
      let audio = try #require(firstStream(json, "audio"))
      #expect(picture["frame_count"] as? Int == frames, "\(options)")
      #expect(audio["frame_count"] as? Int == packets, "\(options)")
      #expect(Self.same(audio["duration"], ticks: audioTicks, timescale: 48_000), "\(options)")
    }
  }

  /// Class 9: Ogg Opus (1 s of 48 kHz sine through libopus). The pages say it presents the last
  /// granule minus the pre-skip (the tests' own page reader, ogg_opus.py: 48,312 − 312 =
  /// 48,000, the construction), which is what ffmpeg's decoder outputs; libavformat (and
  /// ffprobe) count the pre-skip in (1.0065 s). The stream and the file last 48,000 samples,
  /// with and without --scan.
  @Test func oggOpusLeavesOutItsPreSkip() throws {
    let name = "opus_preskip.opus"
    let oracle = try run("python3", ["\(Self.directory)/ogg_opus.py", Self.path(name)])
    let pages = try #require(try oracle.json() as? [String: Any])
    let presented = try #require(pages["presented_samples"] as? Int)
    #expect(presented == 48_000)
    #expect((pages["pre_skip"] as? Int ?? 0) > 0)
    let decoded = try run(
      "ffmpeg",
      ["-nostdin", "-v", "error", "-i", Self.path(name), "-f", "s16le", "-ac", "1", "-"])
    #expect(decoded.stdout.count == 2 * presented)
    let ffprobe = try run(
      "ffprobe",
      ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", Self.path(name)]
    ).text.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(Double(ffprobe) ?? 0 > 1.001, "ffprobe: \(ffprobe)")
    for options in [[], ["--scan"]] {
      let json = try Self.probe(name, options)
      let audio = try #require(firstStream(json, "audio"))
      #expect(
        Self.same(audio["duration"], ticks: presented, timescale: 48_000),
        "\(options): \(String(describing: audio["duration"]))")
      let seconds = try #require(value(json, "duration", "seconds") as? Double)
      #expect(abs(seconds - 1) < 1e-9, "\(options): \(seconds)")
    }
  }

  /// AIFF's COMM chunk counts sample frames (read here from the file's chunks, the oracle): the
  /// stream lasts that many samples at its rate, and that count is no untrusted index, so no
  /// `index_count_untrusted` (it was on every AIFF).
  @Test func aiffCountsSampleFramesWithoutAWarning() throws {
    let path = "Tests/CompatFixtures/pcm_s16be.aiff"
    let reader = #"""
      import struct, sys
      d = open(sys.argv[1], "rb").read()
      i = d.index(b"COMM")
      channels, frames = struct.unpack(">hI", d[i + 8:i + 14])
      print(frames)
      """#
    let count = try run("python3", ["-c", reader, path]).text
    let frames = try #require(Int(count.trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(frames > 0)
    for options in [[], ["--scan"]] {
      let result = try run("mediaprobe", options + [path])
      #expect(result.status == 0, "\(result.stderr)")
      let json = try #require(try result.json() as? [String: Any])
      let audio = try #require(firstStream(json, "audio"))
      let rate = try #require(value(audio, "audio", "sample_rate") as? Int)
      #expect(Self.same(audio["duration"], ticks: frames, timescale: rate), "\(options)")
      let warnings = json["warnings"] as? [String] ?? []
      #expect(!warnings.contains("index_count_untrusted"), "\(options): \(warnings)")
    }
  }
}
