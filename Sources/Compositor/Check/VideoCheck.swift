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
/// transition covers), decoded from the written file, matches the picture the render made for
/// that frame from the planned source frame and transform (PSNR ≥ 30 dB: the encoder's loss, not
/// a wrong frame, place or colour). The render puts those pictures aside as it encodes them
/// (`CheckReferences`); one it could not keep is decoded afresh from the source, unless the source
/// gave decoding errors (a damaged stream's pictures depend on where decoding started), and the
/// segment is then skipped and says so.
enum VideoCheck {
  static let minimumPSNR = 30.0

  /// A segment's frame to compare (nil, with the reason, when it has none of its own).
  struct Target {
    var segment: PlannedSegment
    var frame: Int64?
    var reason: String?
  }

  /// Which output frame each segment is checked at: the frame nearest the middle of the part of
  /// the segment no transition covers.
  static func targets(plan: CompositionPlan, frames expected: Int64) -> [Target] {
    let rate = plan.render.frameRate
    var targets: [Target] = []
    for (position, segment) in plan.segments.enumerated() {
      var start = segment.compositionRange.start
      var end = segment.compositionRange.end
      for transition in plan.transitions {
        if transition.to == position { start = max(start, transition.range.end) }
        if transition.from == position { end = min(end, transition.range.start) }
      }
      guard start < end else {
        targets.append(Target(segment: segment, reason: "covered by its transitions"))
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
        targets.append(Target(segment: segment, reason: "no output frame in its own part"))
        continue
      }
      targets.append(Target(segment: segment, frame: frame))
    }
    return targets
  }

  static func run(
    plan: CompositionPlan, output: OutputFile, canvas: Canvas, frames expected: Int64,
    references: CheckReferences? = nil, damaged: Set<Int> = [], decoderThreads: Int,
    minimumPSNR: Double = Self.minimumPSNR, stopReason: () -> CompositorError?
  ) throws(CompositorError) -> VideoCheckReport {
    let started = MonotonicClock.seconds()
    let rate = plan.render.frameRate
    // 1. Which frames to compare. A picture the render put aside is the reference as it is; a
    // segment without one is decoded afresh from its source, unless the source gave decoding
    // errors: a damaged stream's pictures depend on where decoding started (error concealment),
    // so a fresh decode is no reference for what the render showed.
    var targets = references?.targets ?? Self.targets(plan: plan, frames: expected)
    for (position, target) in targets.enumerated() {
      guard let frame = target.frame, damaged.contains(target.segment.index),
        references?.hasPicture(frame: frame) != true
      else { continue }
      targets[position] = Target(segment: target.segment, reason: "its source had decoding errors")
    }
    let wanted = Set(targets.compactMap(\.frame))
    // 2. The written video: its frames counted from its packets (one H.264 packet per frame in
    // MP4, no decoding), then each wanted picture decoded from the keyframe at or before it (a
    // seek per keyframe with pictures after it, decoding on to the next picture after the same
    // keyframe: the cost follows the number of segments and never exceeds one decode of the
    // whole video) and compared at once with its reference, so memory holds one picture at a
    // time.
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
    // Where its keyframes are (from the same packets), so that pictures after one keyframe are
    // decoded in one run from it: the check never decodes more than the whole video once.
    var keyframes: [MediaTime] = []
    let fileOrigin = MediaTime(value: origin, timescale: 1_000_000)
    counting: while true {
      do {
        switch try demuxer.next() {
        case .packet:
          guard demuxer.packet.streamIndex == stream.index else { continue }
          frames += 1
          if demuxer.packet.isKeyframe, let pts = demuxer.packet.pts {
            keyframes.append(MediaTime(ticks: pts, timeBase: stream.timeBase) - fileOrigin)
          }
        case .end, .failed: break counting
        }
      } catch {
        throw error == .interrupted ? .render(.interrupted) : .render(.timeout(seconds: nil))
      }
    }
    // What a reference decoded afresh needs (made at the first one: a render's check usually
    // has every picture put aside): the background, the composition's looks as they applied to
    // the output's pictures, and the overlays drawn at the same output frame.
    var stages: (background: Frame, looks: LookStage?, overlays: OverlayStage?)?
    func freshStages() throws(CompositorError) -> (
      background: Frame, looks: LookStage?, overlays: OverlayStage?
    ) {
      if let stages { return stages }
      var made: (background: Frame, looks: LookStage?, overlays: OverlayStage?) = (
        try canvas.backgroundPicture(), nil, nil
      )
      if let list = plan.looks, !list.isEmpty {
        made.looks = try LookStage(looks: list, canvas: canvas)
      }
      if let list = plan.overlays, !list.isEmpty {
        made.overlays = try OverlayStage(overlays: list, canvas: canvas)
      }
      stages = made
      return made
    }
    keyframes.sort()
    /// The last keyframe at or before `time` (-1: none).
    func keyframe(before time: MediaTime) -> Int {
      var (low, high) = (0, keyframes.count)
      while low < high {
        let mid = (low + high) / 2
        if keyframes[mid] <= time { low = mid + 1 } else { high = mid }
      }
      return low - 1
    }
    var measured: [Int64: Double] = [:]
    var written: (source: VideoFileSource, keyframe: Int, time: MediaTime)?
    for target in targets.sorted(by: { ($0.frame ?? -1) < ($1.frame ?? -1) }) {
      guard let frame = target.frame, !wanted.isEmpty else { continue }
      if let reason = stopReason() { throw reason }
      let time = MediaTime(units: frame, rate: rate)
      // After the same keyframe as the last picture: decoding goes on from there; otherwise a
      // seek to this picture's keyframe.
      let key = keyframe(before: time + offset)
      if written == nil || written!.keyframe != key || written!.time > time {
        written = (
          try VideoFileSource(path: path, start: time + offset, decoderThreads: decoderThreads),
          key, time
        )
      }
      written!.time = time
      let picture = try written!.source.picture(at: time + offset)
      if let kept = references?.picture(frame: frame) {
        measured[frame] = psnr(planes(picture.frame), kept)
        continue
      }
      let (background, looks, overlays) = try freshStages()
      let reference = SegmentPictures(
        segment: target.segment, canvas: canvas, decoderThreads: decoderThreads,
        background: background)
      var expected = try reference.picture(at: time)
      if let looks { expected = try looks.apply(expected, time: time) }
      if let overlays { expected = try overlays.apply(expected, frame: frame) }
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
