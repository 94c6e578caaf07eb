import Composition
import Foundation
import MediaCore
import Testing

@testable import Compositor

/// The audio self-check on files made by construction: our mix encoded to AAC by the ffmpeg
/// CLI passes; the same file 3 dB quieter (ffmpeg's `volume=-3dB`) or 60 ms late fails.
@Suite struct AudioSelfCheckTests {
  typealias K = AudioKit

  static let document = #"""
    {"version": 1, "clips": [{"source": "a.mov", "from": 0.5, "volume": 0.5},
      {"source": "silent.mov", "to": 1},
      {"source": "b.mov", "transition": {"type": "crossfade", "duration": 1}}],
     "audio": [{"source": "bed.wav", "at": 0.25, "volume": 0.5, "loop": true, "fade_in": 0.5,
                "fade_out": 1, "ramps": [{"at": 2, "duration": 1, "to": 0.25}]}]}
    """#

  /// The plan and its mix encoded as AAC in MP4 by the ffmpeg CLI (`name`), after `filter`.
  static func encoded(_ name: String, filter: String = "anull") throws -> (
    CompositionPlan, String
  ) {
    let plan = try K.plan(document, CompositionAudioTests.facts())
    let path = K.make(name) { path in
      let raw = K.directory + "/\(name).f32"
      let (samples, _) = try! K.render(plan)
      var interleaved = [Float]()
      for i in 0..<samples[0].count { interleaved += [samples[0][i], samples[1][i]] }
      FileManager.default.createFile(
        atPath: raw, contents: interleaved.withUnsafeBufferPointer { Data(buffer: $0) })
      return [
        "-f", "f32le", "-ar", "48000", "-ac", "2", "-i", raw, "-af", filter, "-c:a", "aac",
        "-b:a", "160k", path,
      ]
    }
    return (plan, path)
  }

  @Test func aCorrectAACRenderPasses() throws {
    let (plan, path) = try Self.encoded("good.m4a")
    let check = try AudioSelfCheck.check(
      plan: plan, sampleRate: 48_000, channelCount: 2, output: path)
    for window in check.windows where !window.ok {
      Issue.record("\(window)")
    }
    #expect(check.ok)
    let worst =
      check.windows.compactMap { w in
        w.expectedDB.flatMap { e in w.measuredDB.map { abs($0 - e) } }
      }.max() ?? 0
    print("audio self-check: \(check.windows.count) windows, largest difference \(worst) dB")
    // Segment middles and breakpoints: 3 middles, the segments' and the bed's breakpoints.
    #expect(check.windows.count >= 10)
    #expect(check.windows.contains { $0.at == "clips[1] middle" && $0.expectedDB != nil })
    let loud = check.windows.filter { ($0.expectedDB ?? -100) > -40 }
    #expect(loud.count >= 8)
  }

  @Test func aRenderThreeDecibelsQuieterFails() throws {
    let (plan, path) = try Self.encoded("quieter.m4a", filter: "volume=-3dB")
    let check = try AudioSelfCheck.check(
      plan: plan, sampleRate: 48_000, channelCount: 2, output: path)
    #expect(!check.ok)
    let loud = check.windows.filter { ($0.expectedDB ?? -100) > -40 }
    #expect(!loud.isEmpty)
    for window in loud {
      #expect(!window.ok)
      #expect(abs(window.measuredDB! - window.expectedDB! + 3) < 0.5, "\(window)")
    }
  }

  @Test func aRenderSixtyMillisecondsLateFails() throws {
    let (plan, path) = try Self.encoded("late.m4a", filter: "adelay=delays=60:all=1")
    let check = try AudioSelfCheck.check(
      plan: plan, sampleRate: 48_000, channelCount: 2, output: path)
    #expect(!check.ok)
    print("60 ms late: \(check.windows.filter { !$0.ok }.map(\.at))")
  }

  /// The tolerance when `--max-size` lowered an audio-only output's AAC rate, written out from
  /// libavcodec/psymodel.h's AAC_CUTOFF_FROM_BITRATE: 61 kb/s of stereo at 48 kHz is 30,500
  /// per channel, cutoff min(max(6,100, 14,296 − 5,500), 10,625, 13,906) = 8,796 Hz, so
  /// 1 + 10·log10(24,000/8,796) dB; 32 kb/s: max(3,200, 2,000) = 3,200 Hz. The rate asked, or
  /// none lowered: 1 dB.
  @Test func toleranceFollowsTheEncodersCutoff() {
    let at61 = AudioSelfCheck.toleranceDB(
      encodedAt: 61_000, asked: 256_000, sampleRate: 48_000, channels: 2)
    #expect(abs(at61 - (1 + 10 * log10(24_000.0 / 8_796))) < 1e-9)
    let at32 = AudioSelfCheck.toleranceDB(
      encodedAt: 32_000, asked: 256_000, sampleRate: 48_000, channels: 2)
    #expect(abs(at32 - (1 + 10 * log10(24_000.0 / 3_200))) < 1e-9)
    #expect(
      AudioSelfCheck.toleranceDB(
        encodedAt: 256_000, asked: 256_000, sampleRate: 48_000, channels: 2) == 1)
  }
}
