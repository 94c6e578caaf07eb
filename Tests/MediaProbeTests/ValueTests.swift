import Foundation
import Testing

@testable import MediaCore
import AV
@testable import MediaProbe

@Suite struct RationalTests {
  @Test func reducesAndNormalizesSign() {
    #expect(Rational(60000, 2002) == Rational(30000, 1001))
    #expect(Rational(1, -2)?.num == -1)
    #expect(Rational(1, -2)?.den == 2)
    #expect(Rational(30000, 1001)?.value == 30000.0 / 1001.0)
  }

  @Test func zeroDenominatorIsUnknown() {
    #expect(Rational(0, 0) == nil)
    #expect(Rational(25, 0) == nil)
    #expect(Rational.nonZero(0, 1) == nil)
    #expect(Rational.nonZero(4, 3) == Rational(4, 3))
  }
}

@Suite struct CodecLevelTests {
  @Test func humanForms() {
    // H.264 level_idc, HEVC general_level_idc (×30), AV1 seq_level_idx, VP9 (×10).
    #expect(CodecLevel.name(codec: "h264", level: 41) == "4.1")
    #expect(CodecLevel.name(codec: "h264", level: 30) == "3.0")
    #expect(CodecLevel.name(codec: "h264", level: 9) == "1b")
    #expect(CodecLevel.name(codec: "hevc", level: 153) == "5.1")
    #expect(CodecLevel.name(codec: "hevc", level: 120) == "4.0")
    #expect(CodecLevel.name(codec: "hevc", level: 93) == "3.1")
    #expect(CodecLevel.name(codec: "av1", level: 8) == "4.0")
    #expect(CodecLevel.name(codec: "av1", level: 13) == "5.1")
    #expect(CodecLevel.name(codec: "vp9", level: 41) == "4.1")
    #expect(CodecLevel.name(codec: "h264", level: -99) == nil)
    #expect(CodecLevel.name(codec: "aac", level: 1) == nil)
  }
}

@Suite struct DurationTests {
  @Test func exactFromTimeBase() {
    let d = MediaDuration(ticks: 1001, timeBase: Rational(1, 24000)!, source: .stream)
    #expect(d.value == 1001)
    #expect(d.timescale == 24000)
    #expect(d.seconds == 1001.0 / 24000.0)
  }

  @Test func matroskaTag() {
    let d = MediaDuration.fromTag("00:01:02.500000000")
    #expect(d?.value == 62_500_000_000)
    #expect(d?.timescale == 1_000_000_000)
    #expect(d?.source == .tag)
    #expect(MediaDuration.fromTag("01:00:00.5")?.seconds == 3600.5)
    #expect(MediaDuration.fromTag("garbage") == nil)
    #expect(MediaDuration.fromTag("00:00:0x.5") == nil)
  }
}

@Suite struct FrameRateTests {
  @Test func matroskaTimeBaseIsNotARate() {
    // The trap of reference/probe.md: r_frame_rate 60/1, avg_frame_rate 1000/1 for 30 fps.
    let rate = FrameRate(nominal: Rational(60, 1), average: Rational(1000, 1))
    #expect(rate.best == Rational(60, 1))
    let normal = FrameRate(nominal: Rational(30, 1), average: Rational(30000, 1001))
    #expect(normal.best == Rational(30000, 1001))
  }

  @Test func scanReordersBFramesAndFindsCFR() {
    // Decode order of an IPBB... stream at 1/90000, 3003 ticks a frame (29.97 fps).
    var scan = TimestampScan()
    let presentation: [Int64] = [0, 3, 1, 2, 6, 4, 5, 9, 7, 8]
    for frame in presentation { scan.add(timestamp: frame * 3003, duration: 3003) }
    scan.finish()
    #expect(scan.packetCount == 10)
    #expect(scan.mode == .cfr)
    #expect(scan.minDelta == 3003)
    #expect(scan.maxDelta == 3003)
    #expect(scan.durationTicks == 30030)
  }

  @Test func scanFindsVFR() {
    // 10 frames at 10 fps then 30 at 30 fps, time base 1/300: the vfr.mp4 construction.
    var scan = TimestampScan()
    for n in 0..<40 {
      let pts = n < 10 ? Int64(n * 30) : Int64(300 + (n - 10) * 10)
      scan.add(timestamp: pts, duration: n < 10 ? 30 : 10)
    }
    scan.finish()
    #expect(scan.mode == .vfr)
    #expect(scan.minDelta == 10)
    #expect(scan.maxDelta == 30)
    #expect(scan.durationTicks == 600)
  }

  static func scan(_ timestamps: [Int64], durations: Int64 = 0) -> TimestampScan {
    var scan = TimestampScan()
    for timestamp in timestamps { scan.add(timestamp: timestamp, duration: durations) }
    scan.finish()
    return scan
  }

  @Test func scannedRateSnapsToNominalWithinRounding() {
    // 24 fps in 1 ms ticks: frames start at round(n * 1000 / 24), 41 or 42 ticks apart.
    let ms = Rational(1, 1000)!
    let rounded = Self.scan((0..<48).map { Int64((Double($0) * 1000 / 24).rounded()) })
    #expect(rounded.mode == .cfr)
    #expect(
      MediaStream.scannedRate(rounded, timeBase: ms, nominal: Rational(24, 1)) == Rational(24, 1))
    // Exactly 50 ms apart: 20 fps, whatever the header says.
    let even = Self.scan((0..<40).map { Int64($0) * 50 }, durations: 50)
    #expect(
      MediaStream.scannedRate(even, timeBase: ms, nominal: Rational(30, 1)) == Rational(20, 1))
    // VFR: frames / span (10 frames of 100 ms, 30 of 33.3 ms over 2 s = 20 fps).
    let steps: [Int64] = (0..<40).map { (n: Int) -> Int64 in
      n < 10 ? Int64(n * 30) : Int64(300 + (n - 10) * 10)
    }
    let vfr = Self.scan(steps)
    #expect(vfr.mode == .vfr)
    #expect(MediaStream.scannedRate(vfr, timeBase: Rational(1, 300)!, nominal: nil) != nil)
  }

  @Test func skippedAndDiscardedSamplesAreNotPresented() {
    // An MP3 at 1/44100: 3 frames of 1152 samples, 1105 skipped at the start (LAME delay + 529)
    // and 227 discarded at the end: 3456 - 1332 = 2124 presented samples.
    var mp3 = TimestampScan()
    mp3.add(timestamp: 0, duration: 1152, skip: 1105)
    mp3.add(timestamp: 1152, duration: 1152)
    mp3.add(timestamp: 2304, duration: 1152, discard: 227)
    mp3.finish()
    #expect(mp3.start == 1105)
    #expect(mp3.durationTicks == 2124)
    #expect(mp3.packetCount == 3)
    // AAC in MP4 after an edit list: a discarded packet carries the skip for the next ones (the
    // decoder still decodes it, so its samples count against the skip); a packet wholly before
    // the presentation start still counts as a packet (the demuxer presents it), but not toward
    // the span.
    var aac = TimestampScan()
    aac.addDiscarded(duration: 1024, skip: 3072 + 100)
    aac.addDiscarded(duration: 1024, skip: nil)
    aac.add(timestamp: -1024, duration: 1024)
    aac.add(timestamp: 0, duration: 1024)
    aac.add(timestamp: 1024, duration: 1024)
    aac.finish()
    #expect(aac.start == 100)
    #expect(aac.packetCount == 3)
    aac.clampEnd(to: 2000)
    #expect(aac.durationTicks == 1900)
  }

  @Test func skipSamplesAreAppliedAsLibavcodecDoes() {
    // A packet's skip side data replaces the pending skip: 576-sample frames, 1105 skipped from
    // the first, but the second says skip 0 and discard 347; the third is wholly discarded.
    var short = TimestampScan()
    short.add(timestamp: 0, duration: 576, skip: 1105)
    short.add(timestamp: 576, duration: 576, skip: 0, discard: 347)
    short.add(timestamp: 1152, duration: 576, skip: 0, discard: 576)
    short.finish()
    #expect(short.start == 576)
    #expect(short.durationTicks == 229)
    #expect(short.packetCount == 3)
    // A discard larger than the frame is ignored; one equal to it drops the frame, which does
    // not extend the span (nor makes the last frame's end a guess).
    var long = TimestampScan()
    long.add(timestamp: 0, duration: 576, discard: 600)
    long.add(timestamp: 576, duration: 576, skip: 0, discard: 318)
    long.add(timestamp: 1152, duration: 576, skip: 0, discard: 576)
    long.finish()
    #expect(long.durationTicks == 834)  // 576 + 576 - 318
    // Every sample dropped: the decoder presents nothing, 0 ticks.
    var none = TimestampScan()
    none.add(timestamp: 0, duration: 576, skip: 1105)
    none.add(timestamp: 576, duration: 576, skip: 0, discard: 576)
    none.finish()
    #expect(none.durationTicks == 0)
  }

  @Test func oggAndMPEGPSEnds() {
    // Ogg's last packet can end before it starts (its granule): a duration of 2^32 - 166 is -166.
    var ogg = TimestampScan()
    for pts in stride(from: Int64(0), through: 14848, by: 512) {
      ogg.add(timestamp: pts, duration: 512)
    }
    ogg.add(timestamp: 15360, duration: 4_294_967_130)
    ogg.finish()
    #expect(ogg.durationTicks == 15194)
    // MPEG-PS B-frames without a presentation time, every frame 3003 ticks: 29 frames.
    var ps = TimestampScan()
    for n in Int64(0)..<29 {
      ps.add(timestamp: 18000 + n * 3003, duration: 3003, decodingTimeOnly: n % 3 == 2)
    }
    ps.finish()
    #expect(ps.durationTicks == Int64(29 * 3003))
  }

  @Test func roundedMillisecondsAreStillCFR() {
    // Matroska stores 29.97 fps as 33/34 ms steps.
    var scan = TimestampScan()
    for n in 0..<30 { scan.add(timestamp: Int64((Double(n) * 1001 / 30).rounded()), duration: 0) }
    scan.finish()
    #expect(scan.mode == .cfr)
  }
}

@Suite struct JSONTests {
  @Test func unknownValuesAreNullNotMissing() throws {
    let codec = Codec(name: "h264", longName: nil, tag: nil, profile: "High", level: nil)
    let json = String(
      decoding: try MediaToolsJSONEncoder(compact: true).encode(codec), as: UTF8.self)
    #expect(json == #"{"level":null,"long_name":null,"name":"h264","profile":"High","tag":null}"#)
    let decoded = try JSONDecoder.mediaTools().decode(Codec.self, from: Data(json.utf8))
    #expect(decoded == codec)
  }

  @Test func failureRecordShape() throws {
    let outcome = ProbeOutcome.failure(path: "x.mp4", error: .notFound)
    let json = String(
      decoding: try MediaToolsJSONEncoder(compact: true).encode(outcome), as: UTF8.self)
    #expect(json == #"{"error":{"code":"not_found","message":"no such file"},"path":"x.mp4"}"#)
  }
}

/// `FileName`: any bytes (a file name need not be UTF-8) survive the trip through a `String`.
@Suite struct FileNameTests {
  @Test func everyByteSequenceComesBack() {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15  // a fixed sequence (splitmix64): the same every run
    func next() -> UInt8 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return UInt8(truncatingIfNeeded: z ^ (z >> 31))
    }
    for length in 0..<2_000 {
      let bytes = (0..<(length % 40)).map { _ in next() }
      let name = FileName.string(fromBytes: bytes)
      #expect(FileName.bytes(name) == bytes, "\(bytes)")
      #expect(FileName.display(name) == String(decoding: bytes, as: UTF8.self))
      let viaC = FileName.withCString(name) {
        Array(UnsafeBufferPointer(start: $0, count: strlen($0)))
      }
      #expect(viaC.map { UInt8(bitPattern: $0) } == bytes.prefix { $0 != 0 }, "\(bytes)")
    }
  }

  @Test func utf8NamesAreLeftAsTheyAre() {
    for name in ["plain.mp4", "café.m4a", "日本語/映像.mkv", "emoji 😀.wav", ""] {
      #expect(FileName.string(fromBytes: Array(name.utf8)) == name)
      #expect(FileName.bytes(name) == Array(name.utf8))
      #expect(FileName.display(name) == name)
    }
    #expect(FileName.string(fromBytes: [0x63, 0x61, 0x66, 0xE9]).unicodeScalars.count == 4)
  }
}
