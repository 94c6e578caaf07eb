import Testing

@testable import MediaCore
import AV
@testable import MediaProbe

/// `TimestampScan.removeDiscontinuities`: a jump in a stream's timestamps that the file's packets
/// cannot fill is left out of the span (issue 20, item 16). Every expected value is the
/// construction: frames of a known step, one timestamp moved.
@Suite struct DiscontinuityTests {
  static let milliseconds = Rational(1, 1000)!

  /// `count` frames `step` ticks apart from `first`, each `step` long, in a 1/1000 time base,
  /// with the timestamps at `moved` replaced; finished and resolved with the allowance the file's
  /// packets give (at least 60 s).
  static func scan(
    count: Int, step: Int64, first: Int64 = 0, moved: [Int: Int64] = [:],
    timeBase: Rational? = milliseconds
  ) -> TimestampScan {
    var scan = TimestampScan(timeBase: timeBase)
    for n in 0..<count {
      scan.add(timestamp: moved[n] ?? first + Int64(n) * step, duration: step)
    }
    scan.finish()
    scan.removeDiscontinuities(allowance: max(60, scan.contentSeconds))
    return scan
  }

  @Test func oneWildTimestampIsLeftOut() {
    // The FLV mutant's shape: 20 frames of 33 ms from 300 ms, the 11th at 3,892,314,645 ms.
    let scan = Self.scan(count: 20, step: 33, first: 300, moved: [10: 3_892_314_645])
    #expect(scan.discontinuities == 1)
    #expect(scan.packetCount == 20)
    #expect(scan.start == 300)
    // The 19 others span 300 ms to 960 ms, the moved frame's place left empty: 660 ms, where
    // the jump made it 3,892,314 s. The moved frame still counts.
    #expect(scan.durationTicks == Int64(660))
    #expect(scan.maxDelta == 66)  // the hole; the jump is not a frame step
    #expect(scan.minDelta == 33)
  }

  @Test func oneWildEarlyTimestampIsLeftOut() {
    // A timestamp far before the others (a mutated high byte): the stream keeps its place.
    let scan = Self.scan(count: 20, step: 40, first: 1000, moved: [5: -2_000_000_000])
    #expect(scan.discontinuities == 1)
    #expect(scan.durationTicks == Int64(800))  // 19 frames and the moved one's place
    #expect(scan.end == Int64(1000 + 20 * 40))  // the others end where they did
  }

  @Test func aWildFirstOrLastTimestampIsLeftOut() {
    // The moved frame leaves no hole at an end: it is laid beside the others, its 40 ms kept.
    for moved in [0, 29] {
      let scan = Self.scan(count: 30, step: 40, first: 0, moved: [moved: 7_000_000])
      #expect(scan.discontinuities == 1)
      #expect(scan.durationTicks == Int64(30 * 40))
    }
  }

  @Test func aPauseShorterThanAMinuteIsKept() {
    // 10 frames, a 45 s pause, 10 frames: a screen recording that stood still. Kept: a jump
    // counts only beyond 60 s (and beyond what the packets can fill).
    let scan = Self.scan(
      count: 20, step: 100,
      moved: Dictionary(uniqueKeysWithValues: (10..<20).map { ($0, 45_000 + Int64($0) * 100) }))
    #expect(scan.discontinuities == 0)
    #expect(scan.durationTicks == Int64(45_000 + 20 * 100))
  }

  @Test func aGapTheContentCanFillIsKept() {
    // 3,000 frames of 40 ms (120 s of content) with a 90 s gap in the middle: longer than 60 s
    // but shorter than what the packets fill, so it is part of the presentation.
    var moved: [Int: Int64] = [:]
    for n in 1500..<3000 { moved[n] = 90_000 + Int64(n) * 40 }
    let scan = Self.scan(count: 3000, step: 40, moved: moved)
    #expect(scan.discontinuities == 0)
    #expect(scan.durationTicks == Int64(90_000 + 3000 * 40))
  }

  @Test func twoRecordingsSplicedHoursApartPlayBackToBack() {
    // 100 frames, then 150 frames two hours later: the span is the two runs end to end, and the
    // longer run keeps its place.
    var moved: [Int: Int64] = [:]
    for n in 100..<250 { moved[n] = 7_200_000 + Int64(n - 100) * 40 }
    let scan = Self.scan(count: 250, step: 40, moved: moved)
    #expect(scan.discontinuities == 1)
    #expect(scan.durationTicks == Int64(250 * 40))
    #expect(scan.start == Int64(7_200_000 - 100 * 40))
    #expect(scan.end == Int64(7_200_000 + 150 * 40))
  }

  @Test func manyWildTimestampsStayBounded() {
    // Every third frame thrown somewhere else (more runs than are kept): still a bounded span
    // made of the frames' own durations.
    var moved: [Int: Int64] = [:]
    for n in stride(from: 2, to: 300, by: 3) { moved[n] = Int64(n) * 1_000_000_007 % 4_000_000_000 }
    let scan = Self.scan(count: 300, step: 40, moved: moved)
    #expect(scan.discontinuities > 0)
    #expect(scan.durationTicks! <= Int64(300 * 40 * 2))
  }

  @Test func withoutATimeBaseNothingChanges() {
    let scan = Self.scan(count: 20, step: 33, moved: [10: 3_892_314_645], timeBase: nil)
    #expect(scan.discontinuities == 0)
    #expect(scan.durationTicks == Int64(3_892_314_645 + 33))
  }
}
