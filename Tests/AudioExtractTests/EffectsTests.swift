import AV
import OutputKit
import Testing

@testable import AudioExtract

@Suite struct EffectsTests {
  @Test func nothingToDo() {
    #expect(Effects(channels: 2, sampleRate: 10, gainDB: nil, fadeIn: nil, fadeOut: nil) == nil)
  }

  @Test func gainInDecibels() throws {
    var effects = try #require(
      Effects(channels: 1, sampleRate: 10, gainDB: -20, fadeIn: nil, fadeOut: nil))
    let out = effects.process([1, -0.5])
    #expect(abs(out[0] - 0.1) < 1e-6 && abs(out[1] + 0.05) < 1e-6)
  }

  @Test func linearFadeInStartsAtSilence() throws {
    // 1 s at 4 Hz, stereo: factors 0, 1/4, 2/4, 3/4, then 1.
    var effects = try #require(
      Effects(channels: 2, sampleRate: 4, gainDB: nil, fadeIn: 1, fadeOut: nil))
    let out = effects.process([Float](repeating: 1, count: 12))
    #expect(out == [0, 0, 0.25, 0.25, 0.5, 0.5, 0.75, 0.75, 1, 1, 1, 1])
  }

  @Test func fadeOutHoldsBackTheTailAndEndsNearSilence() throws {
    // 1 s at 4 Hz, mono, fed in two pieces: the last 4 samples ramp 1, 3/4, 2/4, 1/4.
    var effects = try #require(
      Effects(channels: 1, sampleRate: 4, gainDB: nil, fadeIn: nil, fadeOut: 1))
    var out = effects.process([1, 1, 1])
    #expect(out.isEmpty)
    out += effects.process([1, 1, 1])
    #expect(out == [1, 1])
    out += effects.finish()
    #expect(out == [1, 1, 1, 0.75, 0.5, 0.25])
  }
}
