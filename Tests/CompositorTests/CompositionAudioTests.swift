import Composition
import Foundation
import MediaCore
import Testing

@testable import Compositor

@Suite struct CompositionAudioInterfaceTests {
  @Test func aBlockHoldsOneArrayPerChannel() {
    let block = AudioBlock(start: 48_000, channels: [[0, 0.5], [0, -0.5]])
    #expect(block.channels.count == 2)
    #expect(block.start == 48_000)
  }
}

/// The composition's audio measured by construction: sources are sines of known frequency and
/// amplitude (lavfi `sine`: 1/8), each tone's level is read per 100 ms window with a DFT bin at
/// its frequency, and compared with what the document's gains say.
@Suite struct CompositionAudioTests {
  typealias K = AudioKit
  static let amplitude = 0.125

  /// 440 Hz at 44.1 kHz mono (resampled to 48 kHz, copied to both channels).
  static var a: String { K.clip("a.mov", seconds: 3, frequency: 440, rate: 44_100) }
  /// 1000 Hz at 48 kHz stereo.
  static var b: String { K.clip("b.mov", seconds: 3, frequency: 1000, channels: 2) }
  /// A video without audio.
  static var silent: String { K.clip("silent.mov", seconds: 6, frequency: nil) }
  /// The music bed: 660 Hz, 1.5 s at 48 kHz mono (990 whole cycles, so loops join in phase).
  static var bed: String { K.tone("bed.wav", seconds: 1.5, frequency: 660, rate: 48_000) }

  static func facts() -> [String: SourceFacts] {
    _ = (a, b, silent, bed)
    return [
      "a.mov": K.video("3"), "b.mov": K.video("3"), "silent.mov": K.video("6", audio: false),
      "bed.wav": .audio(duration: ExactNumber.parse("1.5")!.time),
    ]
  }

  @Test func eachClipPlaysAtItsVolumeInBothChannels() throws {
    let plan = try K.plan(
      #"{"version": 1, "clips": [{"source": "a.mov", "volume": 0.5}, {"source": "b.mov"}]}"#,
      Self.facts())
    let (samples, audio) = try K.render(plan)
    #expect(audio.totalSamples == 6 * 48_000)
    #expect(samples[0].count == 6 * 48_000)
    for channel in 0..<2 {
      let s = samples[channel]
      // a (44.1 kHz mono, resampled): 0.5 x 1/8 in both channels; b absent.
      #expect(abs(K.level(s, 440, at: 1.5) - 0.0625) < 0.0005)
      #expect(K.level(s, 1000, at: 1.5) < 0.0005)
      // b at full volume, a gone.
      #expect(abs(K.level(s, 1000, at: 4.5) - 0.125) < 0.0005)
      #expect(K.level(s, 440, at: 4.5) < 0.0005)
    }
    #expect(audio.clippedSamples == 0)
  }

  @Test func aCrossfadeIsLinearInGainAndMinusSixDecibelsAtItsMiddle() throws {
    let plan = try K.plan(
      #"""
      {"version": 1, "clips": [{"source": "a.mov"},
        {"source": "b.mov", "transition": {"type": "crossfade", "duration": 1}}]}
      """#, Self.facts())
    let (samples, audio) = try K.render(plan)
    #expect(audio.totalSamples == 5 * 48_000)
    let s = samples[1]
    // The overlap is 2..3 s: a fades 1 -> 0, b 0 -> 1, linear in gain.
    for (time, gainA) in [(2.25, 0.75), (2.5, 0.5), (2.75, 0.25)] {
      #expect(abs(K.level(s, 440, at: time) / Self.amplitude - gainA) < 0.005)
      #expect(abs(K.level(s, 1000, at: time) / Self.amplitude - (1 - gainA)) < 0.005)
    }
    let middleA = 20 * log10(K.level(s, 440, at: 2.5) / Self.amplitude)
    let middleB = 20 * log10(K.level(s, 1000, at: 2.5) / Self.amplitude)
    #expect(abs(middleA - -6.02) < 0.05)
    #expect(abs(middleB - -6.02) < 0.05)
  }

  static let bedDocument = #"""
    {"version": 1, "clips": [{"source": "silent.mov"}],
     "audio": [{"source": "bed.wav", "at": 0.5, "volume": 0.8, "loop": true,
                "fade_in": 0.5, "fade_out": 1, "ramps": [{"at": 2, "duration": 1, "to": 0.4}]}]}
    """#

  @Test func aLoopedBedFollowsVolumeRampAndFadesUntilTheEnd() throws {
    let plan = try K.plan(Self.bedDocument, Self.facts())
    let (samples, audio) = try K.render(plan, block: 1000)
    // Cut exactly at the composition's end (6 s), the fade-out ending there.
    #expect(audio.totalSamples == 288_000)
    #expect(samples[0].count == 288_000)
    let s = samples[0]
    // Gain by construction: 0 before 0.5 s, fade-in to 0.8 at 1 s, 0.8 until 2 s, ramp to 0.4
    // at 3 s, 0.4 until 5 s, fade-out to 0 at 6 s. Passes start at 0.5, 2, 3.5 and 5 s.
    let expected: [(Double, Double)] = [
      (0.25, 0), (0.75, 0.4), (1.5, 0.8), (2.5, 0.6), (3.5, 0.4), (4.5, 0.4), (5.5, 0.2),
    ]
    for (time, gain) in expected {
      let measured = K.level(s, 660, at: time)
      #expect(abs(measured - gain * Self.amplitude) < 0.0008, "at \(time) s")
    }
    // The last 10 ms: the fade-out's tail (gain 0.4 x 1/200 .. 0) is still there, then nothing.
    #expect(s[287_500..<288_000].contains { $0 != 0 })
    #expect(abs(s[287_999]) < 0.125 * 0.4 / 48_000 * 2)
    // Before the track's start (0.5 s = sample 24000): silence, the clip has no audio.
    #expect(s[0..<24_000].allSatisfy { $0 == 0 })
    #expect(s[24_000..<24_100].contains { $0 != 0 } || s[24_100..<24_500].contains { $0 != 0 })
  }

  @Test func aClipWithoutAudioContributesSilence() throws {
    let plan = try K.plan(#"{"version": 1, "clips": [{"source": "silent.mov"}]}"#, Self.facts())
    let (samples, audio) = try K.render(plan)
    #expect(samples[0].count == 6 * 48_000)
    #expect(samples.allSatisfy { $0.allSatisfy { $0 == 0 } })
    #expect(audio.maxOpenSources == 0)
  }

  @Test func aTrackLongerThanTheCompositionIsCutAtItsEnd() throws {
    let long = K.tone("long.wav", seconds: 10, frequency: 660, rate: 32_000, channels: 2)
    _ = long
    var facts = Self.facts()
    facts["long.wav"] = .audio(duration: ExactNumber(10).time)
    let plan = try K.plan(
      #"{"version": 1, "clips": [{"source": "a.mov"}], "audio": [{"source": "long.wav"}]}"#, facts)
    let (samples, audio) = try K.render(plan)
    #expect(audio.totalSamples == 144_000)
    #expect(samples[0].count == 144_000)
    // 32 kHz stereo resampled: both tones at full level to the end.
    #expect(abs(K.level(samples[0], 660, at: 2.9) - 0.125) < 0.0005)
    #expect(abs(K.level(samples[0], 440, at: 2.9) - 0.125) < 0.0005)
  }

  @Test func twoFullScaleSourcesSummedAreCountedAsClipped() throws {
    // Full-scale 500 Hz at 48 kHz mono, twice: the sum is 2x, past full scale wherever
    // |x| > 1/2. The expected count comes from the sources as the ffmpeg CLI decodes them.
    let loud = K.make("loud.mov") { path in
      [
        "-f", "lavfi", "-i", "color=c=red:size=64x48:rate=10:duration=1", "-f", "lavfi", "-i",
        "aevalsrc=sin(2*PI*500*t):s=48000:d=1", "-c:a", "pcm_s16le", "-c:v", "mpeg4", path,
      ]
    }
    let loudBed = K.make("loud.wav") { path in
      ["-f", "lavfi", "-i", "aevalsrc=sin(2*PI*500*t):s=48000:d=1", "-c:a", "pcm_s16le", path]
    }
    var facts = Self.facts()
    facts["loud.mov"] = K.video("1")
    facts["loud.wav"] = .audio(duration: ExactNumber(1).time)
    let plan = try K.plan(
      #"{"version": 1, "clips": [{"source": "loud.mov"}], "audio": [{"source": "loud.wav"}]}"#,
      facts)
    let (samples, audio) = try K.render(plan)
    let x = try K.ffmpegSamples(["-i", loud, "-map", "0:a"], channels: 1)[0]
    let y = try K.ffmpegSamples(["-i", loudBed], channels: 1)[0]
    #expect(x.count == 48_000 && y.count == 48_000)
    let perChannel = zip(x, y).filter { abs($0 + $1) > 1 }.count
    #expect(perChannel > 30_000)  // about 2/3 of the samples
    #expect(audio.clippedSamples == Int64(2 * perChannel))
    // Not clamped: the peaks are the sum.
    #expect(abs((samples[0].max() ?? 0) - 2 * (x.max() ?? 0)) < 1e-6)
  }

  @Test func sourcesOpenOnlyWhileTheyPlay() throws {
    // 300 clips of 20 ms of the same file, one after another: one source open at a time
    // (two at a block that spans a cut), each opened when reached.
    let clips = (0..<300).map { i in
      #"{"source": "a.mov", "from": \#(Double(i % 100) * 0.02), "to": \#(Double(i % 100 + 1) * 0.02)}"#
    }.joined(separator: ",")
    let plan = try K.plan(#"{"version": 1, "clips": [\#(clips)]}"#, Self.facts())
    let audio = try CompositionAudio(plan: plan, sampleRate: 48_000, channelCount: 2)
    var count = 0
    while let block = try audio.next(maxSamples: 1024) {
      count += block.channels[0].count
      #expect(audio.openSources <= 1)
    }
    #expect(count == 300 * 960)
    #expect(audio.maxOpenSources <= 2)
  }

  @Test func aMissingSourceIsNotFoundWithItsPath() throws {
    var facts = Self.facts()
    facts["gone.mov"] = K.video("3")
    let plan = try K.plan(#"{"version": 1, "clips": [{"source": "gone.mov"}]}"#, facts)
    let audio = try CompositionAudio(plan: plan, sampleRate: 48_000, channelCount: 2)
    do {
      _ = try audio.next(maxSamples: 1024)
      Issue.record("no error")
    } catch {
      #expect(error.code == "not_found")
      #expect(error.message.contains("gone.mov"))
    }
  }

  @Test func aSourceThatLostItsAudioIsAnErrorWithItsPath() throws {
    // The plan says silent.mov has audio (as if the file changed after planning).
    var facts = Self.facts()
    facts["silent.mov"] = K.video("6", audio: true)
    let plan = try K.plan(#"{"version": 1, "clips": [{"source": "silent.mov"}]}"#, facts)
    let audio = try CompositionAudio(plan: plan, sampleRate: 48_000, channelCount: 2)
    do {
      _ = try audio.next(maxSamples: 1024)
      Issue.record("no error")
    } catch {
      #expect(error.code == "no_audio_stream")
      #expect(error.message.contains("silent.mov"))
    }
  }
}

/// One whole mix against an independent oracle: the ffmpeg CLI rendering the same document from
/// a hand-written graph (atrim, aresample, pan for mono, per-sample `volume` with the gains
/// written from the document by hand, adelay, `-stream_loop` for the bed, amix normalize=0).
@Suite struct CompositionAudioOracleTests {
  typealias K = AudioKit

  @Test func aWholeMixMatchesTheFFmpegCLI() throws {
    let facts = CompositionAudioTests.facts()
    let plan = try K.plan(
      #"""
      {"version": 1, "clips": [{"source": "a.mov", "from": 0.5, "volume": 0.5},
        {"source": "b.mov", "transition": {"type": "crossfade", "duration": 1}}],
       "audio": [{"source": "bed.wav", "at": 0.25, "volume": 0.5, "loop": true, "fade_in": 0.5,
                  "fade_out": 1, "ramps": [{"at": 2, "duration": 1, "to": 0.25}]}]}
      """#, facts)
    let (ours, audio) = try K.render(plan, block: 777)
    #expect(audio.totalSamples == 216_000)

    // Per-sample gains on each input's own timeline (t from its first sample), from the
    // document: a plays 0-2.5 s, b 1.5-4.5 s, the bed 0.25-4.5 s.
    let perSample = "asetnsamples=n=1:p=0,asetpts=N/SR/TB"
    let graph = [
      "[0:a]atrim=start=0.5:end=3,asetpts=PTS-STARTPTS,aresample=48000,pan=stereo|c0=c0|c1=c0,"
        + "\(perSample),volume='0.5*if(lt(t,1.5),1,1-(t-1.5))':eval=frame[a]",
      "[1:a]atrim=start=0:end=3,asetpts=PTS-STARTPTS,\(perSample),"
        + "volume='if(lt(t,1),t,1)':eval=frame,adelay=delays=72000S:all=1[b]",
      "[2:a]atrim=end=4.25,asetpts=PTS-STARTPTS,pan=stereo|c0=c0|c1=c0,\(perSample),"
        + "volume='if(lt(t,0.5),t,if(lt(t,1.75),0.5,if(lt(t,2.75),0.5-0.25*(t-1.75),"
        + "if(lt(t,3.25),0.25,0.25*(4.25-t)))))':eval=frame,adelay=delays=12000S:all=1[m]",
      "[a][b][m]amix=inputs=3:normalize=0:duration=longest,atrim=end_sample=216000[out]",
    ].joined(separator: ";")
    let oracle = try K.ffmpegSamples(
      [
        "-i", CompositionAudioTests.a, "-i", CompositionAudioTests.b, "-stream_loop", "-1",
        "-i", CompositionAudioTests.bed, "-filter_complex", graph, "-map", "[out]",
      ], channels: 2)
    #expect(oracle[0].count == 216_000)
    var worst: Float = 0
    var worstAt = 0
    for channel in 0..<2 {
      for i in 0..<min(oracle[channel].count, ours[channel].count) {
        let difference = abs(oracle[channel][i] - ours[channel][i])
        if difference > worst { (worst, worstAt) = (difference, i) }
      }
    }
    print("largest difference to the ffmpeg CLI: \(worst) at sample \(worstAt)")
    #expect(worst < 1e-5, "at sample \(worstAt)")
  }
}

/// Resources over a long composition: 10 minutes of 3 s clips cross-faded (241 segments) under
/// a looped bed (400 passes). Memory must not grow with the length, files stay bounded.
@Suite struct CompositionAudioResourceTests {
  typealias K = AudioKit

  /// Resident memory in bytes (/proc/self/statm).
  static func residentBytes() -> Int {
    let text = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
    let pages = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  }

  /// Open file descriptors (/proc/self/fd).
  static func openDescriptors() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
  }

  @Test func tenMinutesKeepMemoryAndFilesFlat() throws {
    let clips = (0..<241).map { i in
      let source = i % 2 == 0 ? "a.mov" : "b.mov"
      let transition = i == 0 ? "" : #", "transition": {"type": "crossfade", "duration": 0.5}"#
      return #"{"source": "\#(source)"\#(transition)}"#
    }.joined(separator: ",")
    let plan = try K.plan(
      #"""
      {"version": 1, "clips": [\#(clips)],
       "audio": [{"source": "bed.wav", "volume": 0.5, "loop": true, "fade_out": 2}]}
      """#, CompositionAudioTests.facts())
    #expect(plan.duration == MediaTime(value: 603, timescale: 1))
    let audio = try CompositionAudio(plan: plan, sampleRate: 48_000, channelCount: 2)
    let descriptorsBefore = Self.openDescriptors()
    var descriptorsMost = descriptorsBefore
    var residentAtOneMinute = 0
    var heldMost = (voices: 0, samples: 0)
    var samples: Int64 = 0
    let clock = ContinuousClock()
    let began = clock.now
    while let block = try audio.next(maxSamples: 1024) {
      samples += Int64(block.channels[0].count)
      if samples % (48_000 * 10) < 1024 {
        descriptorsMost = max(descriptorsMost, Self.openDescriptors())
        let held = audio.heldBuffers
        heldMost = (max(heldMost.voices, held.voices), max(heldMost.samples, held.samples))
      }
      if residentAtOneMinute == 0 && samples >= 60 * 48_000 {
        residentAtOneMinute = Self.residentBytes()
      }
    }
    let elapsed = clock.now - began
    let growth = Self.residentBytes() - residentAtOneMinute
    print(
      "10 min mix: \(elapsed), RSS growth from minute 1 to 10: \(growth / 1024) KiB, "
        + "most sources open \(audio.maxOpenSources), descriptors \(descriptorsBefore) -> "
        + "at most \(descriptorsMost), buffers held at most \(heldMost)")
    #expect(samples == 603 * 48_000)
    // Two clips overlap in a crossfade, the bed's passes join: at most 4 at a block.
    #expect(audio.maxOpenSources <= 4)
    // The mixer's own memory is bounded by the voices of one block, not the length: at most 4
    // voices hold buffers, of at most 1 Mi samples together (measured: 130 Ki, 3 voices: a
    // PCM packet in MOV can hold a second of samples); the
    // closed ones (638 by the end) hold nothing. (The process's RSS, measured alone, grows
    // -0.3 MiB from minute 1 to 10; it is not asserted: other suites render in this process.)
    #expect(heldMost.voices <= 4)
    #expect(heldMost.samples <= 1 << 20)
    let end = audio.heldBuffers
    #expect(end.voices == 0 && end.samples == 0)
  }
}

/// Sync with a source whose audio starts after its picture.
@Suite struct CompositionAudioSyncTests {
  typealias K = AudioKit

  @Test func audioThatStartsLateKeepsItsPlace() throws {
    // The audio's first sample is at 0.2 s of the file (video from 0).
    _ = K.make("late.mkv") { path in
      [
        "-f", "lavfi", "-i", "color=c=red:size=64x48:rate=10:duration=3", "-itsoffset", "0.2",
        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2.8",
        "-c:a", "pcm_s16le", "-c:v", "mpeg4", path,
      ]
    }
    var facts = CompositionAudioTests.facts()
    facts["late.mkv"] = K.video("3")
    for (from, silence) in [("0", 9_600), ("0.1", 4_800), ("0.5", 0)] {
      let plan = try K.plan(
        #"{"version": 1, "clips": [{"source": "late.mkv", "from": \#(from), "to": 2}]}"#, facts)
      let (samples, _) = try K.render(plan)
      let firstSound = samples[0].firstIndex { $0 != 0 } ?? -1
      // The sine's first sample is 0: its second is the first that is not.
      #expect(abs(firstSound - (silence + (silence > 0 ? 1 : 0))) <= 1, "from \(from)")
    }
  }
}
