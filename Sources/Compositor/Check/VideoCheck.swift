import AV
import Composition
import Foundation
import MediaCore
import OutputKit
import Render

/// The video self-check's findings (`check` in the JSON report).
public struct VideoCheckReport: Codable, Sendable, Equatable {
  /// True when every comparison held.
  public var passed: Bool
  /// Frames the written video decodes to.
  public var frames: Int64
  /// Frames the plan asks for (its duration on the frame grid).
  public var plannedFrames: Int64
  /// The written video's length (frames / rate) and the plan's, in seconds.
  public var durationSeconds: Double
  /// The plan's length in seconds.
  public var plannedSeconds: Double
  /// The lowest PSNR a segment's picture may have, in dB.
  public var minimumPSNR: Double
  /// Each segment's middle picture against its source's.
  public var segments: [SegmentCheck]
  /// What failed, in words.
  public var failures: [String]
  /// The audio half: the output's level in windows at each segment's middle and each gain
  /// breakpoint against the plan's mix there (within 1 dB); null when the output has no audio
  /// to check.
  @NullEncoded public var audio: AudioCheck? = nil
  /// Seconds the check took.
  public var seconds: Double

  /// One segment's comparison.
  public struct SegmentCheck: Codable, Sendable, Equatable {
    /// The segment (`clips[index]`).
    public var index: Int
    /// The output frame compared, and its composition time.
    public var frame: Int64
    /// Its composition time.
    public var time: MediaTime
    /// PSNR of the written picture against the source picture put through the planned
    /// transform (Y, Cb and Cr together), in dB; 100 when identical; null when skipped.
    @NullEncoded public var psnr: Double?
    /// Why it was skipped (a segment covered by its transitions has no picture of its own; a
    /// source with decoding errors has no reproducible picture).
    @NullEncoded public var skipped: String?
  }
}

/// The video self-check, run on the written file before it gets its name: its decoded length
/// equals the plan's within one frame, and each segment's middle picture (in the part no
/// transition covers) matches the same source picture put through the planned transform,
/// decoded afresh from the source (PSNR ≥ 30 dB: the encoder's loss, not a wrong frame, place or
/// colour). A segment whose source gave decoding errors is skipped and says so: a damaged
/// stream's pictures depend on where decoding started (error concealment), so a fresh decode is
/// no reference for what the render showed.
enum VideoCheck {
  static let minimumPSNR = 30.0

  static func run(
    plan: CompositionPlan, output: OutputFile, canvas: Canvas, frames expected: Int64,
    damaged: Set<Int> = [], decoderThreads: Int, minimumPSNR: Double = Self.minimumPSNR,
    stopReason: () -> CompositorError?
  ) throws(CompositorError) -> VideoCheckReport {
    let started = MonotonicClock.seconds()
    let rate = plan.render.frameRate
    // 1. Which frames to compare.
    var targets: [(segment: PlannedSegment, frame: Int64?, reason: String?)] = []
    for (position, segment) in plan.segments.enumerated() {
      // A damaged source's pictures depend on where its decoding started (error concealment):
      // a fresh decode is no reference for what the render showed.
      if damaged.contains(segment.index) {
        targets.append((segment, nil, "its source had decoding errors"))
        continue
      }
      var start = segment.compositionRange.start
      var end = segment.compositionRange.end
      for transition in plan.transitions {
        if transition.to == position { start = max(start, transition.range.end) }
        if transition.from == position { end = min(end, transition.range.start) }
      }
      guard start < end else {
        targets.append((segment, nil, "covered by its transitions"))
        continue
      }
      let middle = MediaTime(
        value: (start + end).value, timescale: (start + end).timescale * 2)
      // The frame whose middle (what decides which segment it shows) is nearest the part's.
      let doubleRate = Rational(rate.num * 2, rate.den)!
      func centre(_ frame: Int64) -> MediaTime { MediaTime(units: 2 * frame + 1, rate: doubleRate) }
      var frame = middle.units(atRate: rate)
      if centre(frame) >= end { frame -= 1 }
      if centre(frame) < start { frame += 1 }
      guard frame >= 0, centre(frame) >= start, centre(frame) < end, frame < expected else {
        targets.append((segment, nil, "no output frame in its own part"))
        continue
      }
      targets.append((segment, frame, nil))
    }
    let wanted = Set(targets.compactMap(\.frame))
    // 2. The written video: its frames counted from its packets (one H.264 packet per frame in
    // MP4, no decoding), then each wanted picture decoded from the keyframe at or before it (a
    // seek per picture, so the cost follows the number of segments, not the length) and
    // compared at once with its reference, so memory holds one picture at a time.
    let path = "/proc/self/fd/\(output.fd)"
    let input = try openSource(path)
    guard let stream = videoStream(of: input) else {
      throw .checkFailed("the output has no video stream")
    }
    // Where the video starts after the file's start: 0 in MP4 (edit lists); in Matroska and
    // WebM Opus's priming starts the audio before 0 and the muxer moves every stream later
    // (the video's first frame at 0.007 s, measured), so frame k is at k / rate + this.
    let origin = input.startMicroseconds ?? 0
    let videoStart =
      stream.startTime.map {
        Rational.rescale($0, from: stream.timeBase, to: Rational(1, 1_000_000)!)
      } ?? origin
    let offset = MediaTime(value: max(0, videoStart - origin), timescale: 1_000_000)
    input.discardAll(except: stream.index)
    let demuxer = Demuxer(input)
    var frames: Int64 = 0
    counting: while true {
      do {
        switch try demuxer.next() {
        case .packet: if demuxer.packet.streamIndex == stream.index { frames += 1 }
        case .end, .failed: break counting
        }
      } catch {
        throw error == .interrupted ? .render(.interrupted) : .render(.timeout(seconds: nil))
      }
    }
    let background = try canvas.backgroundPicture()
    // The composition's looks apply to the reference pictures as they did to the output's.
    var looks: LookStage?
    if let list = plan.looks, !list.isEmpty { looks = try LookStage(looks: list, canvas: canvas) }
    var measured: [Int64: Double] = [:]
    for target in targets {
      guard let frame = target.frame, !wanted.isEmpty else { continue }
      if let reason = stopReason() { throw reason }
      let time = MediaTime(units: frame, rate: rate)
      let written = try VideoFileSource(
        path: path, start: time + offset, decoderThreads: decoderThreads)
      let picture = try written.picture(at: time + offset)
      let reference = SegmentPictures(
        segment: target.segment, canvas: canvas, decoderThreads: decoderThreads,
        background: background)
      var expected = try reference.picture(at: time)
      if let looks { expected = try looks.apply(expected) }
      reference.close()
      measured[frame] = psnr(planes(picture.frame), planes(expected))
    }
    // 3. Compare.
    var failures: [String] = []
    if abs(frames - expected) > 1 {
      failures.append("the video has \(frames) frames, the plan \(expected)")
    }
    var segments: [VideoCheckReport.SegmentCheck] = []
    for target in targets {
      if let reason = stopReason() { throw reason }
      guard let frame = target.frame else {
        segments.append(
          .init(
            index: target.segment.index, frame: -1, time: target.segment.compositionRange.start,
            psnr: nil, skipped: target.reason))
        continue
      }
      let time = MediaTime(units: frame, rate: rate)
      guard let value = measured[frame] else {
        failures.append("clips[\(target.segment.index)]: output frame \(frame) is missing")
        segments.append(
          .init(
            index: target.segment.index, frame: frame, time: time, psnr: nil,
            skipped: "missing"))
        continue
      }
      if value < minimumPSNR {
        failures.append(
          "clips[\(target.segment.index)]: the picture at \(time) s is \(fixed(value, places: 1)) dB "
            + "from its source's (at least \(fixed(minimumPSNR, places: 0)) dB expected)")
      }
      segments.append(
        .init(
          index: target.segment.index, frame: frame, time: time,
          psnr: (value * 100).rounded() / 100, skipped: nil))
    }
    return VideoCheckReport(
      passed: failures.isEmpty, frames: frames, plannedFrames: expected,
      durationSeconds: Double(frames) / rate.value, plannedSeconds: plan.duration.seconds,
      minimumPSNR: minimumPSNR, segments: segments, failures: failures,
      seconds: MonotonicClock.seconds() - started)
  }

  /// A 4:2:0 picture's visible Y, Cb and Cr samples.
  static func planes(_ frame: Frame) -> [[UInt8]] {
    let (width, height) = (frame.width, frame.height)
    let sizes = [
      (width, height), ((width + 1) / 2, (height + 1) / 2), ((width + 1) / 2, (height + 1) / 2),
    ]
    return sizes.enumerated().map { plane, size in
      var values: [UInt8] = []
      values.reserveCapacity(size.0 * size.1)
      for row in 0..<size.1 {
        frame.withRow(row, plane: plane) { values.append(contentsOf: $0.prefix(size.0)) }
      }
      return values
    }
  }

  /// The PSNR of `a` against `b` over all their samples (100 when identical).
  static func psnr(_ a: [[UInt8]], _ b: [[UInt8]]) -> Double {
    var sum = 0.0
    var count = 0
    for (x, y) in zip(a, b) {
      guard x.count == y.count else { return 0 }
      var planeSum = 0
      for i in 0..<x.count {
        let d = Int(x[i]) - Int(y[i])
        planeSum += d * d
      }
      sum += Double(planeSum)
      count += x.count
    }
    guard count > 0 else { return 0 }
    let mse = sum / Double(count)
    return mse == 0 ? 100 : min(100, 10 * log10(255 * 255 / mse))
  }
}
