import AV
import Composition
import MediaCore
import OutputKit
import Render

/// What an in-process stream copy wrote.
public struct ClipCopyReport: Codable, Sendable, Equatable {
  /// Video packets copied (each clip's from its first keyframe on).
  public var packets: Int64
  /// Packets whose decoding time was moved forward to keep the times increasing at a join (as
  /// the ffmpeg CLI does).
  public var adjustedTimestamps: Int64
  /// Audio samples encoded (per channel).
  public var samples: Int64
  /// Audio samples that left [-1, 1] after summing.
  public var clippedSamples: Int64
  /// Bytes written.
  public var bytes: Int64
  /// Seconds spent.
  public var seconds: Double
}

/// A whole-clip merge whose clips share their codec parameters, in-process: each clip's video
/// packets copied byte for byte (from its first keyframe), their times moved by the clip's
/// start on the timeline; the audio mixed from the plan (`CompositionAudio`) and encoded once
/// with AAC; MP4 with `+faststart` and the given chapters, into an `OutputFile` committed at the
/// end. The first clip's stream (codec parameters, display matrix) describes the output's.
public enum ClipCopier {
  /// Copies `plan`'s video segments (whole clips, one after another) into `path`.
  ///
  /// - Throws: `CompositorError`; nothing is left at `path` then.
  public static func render(
    _ plan: CompositionPlan, to path: String, overwrite: Bool = false, sync: Bool = true,
    settings: CompositorSettings = CompositorSettings(), progress: (Double) -> Void = { _ in }
  ) throws(CompositorError) -> ClipCopyReport {
    let output: OutputFile
    do { output = try OutputFile(.file(path: path, overwrite: overwrite), sync: sync) } catch {
      throw .render(.output(path: path, error))
    }
    let report = try render(plan, into: output, name: path, settings: settings, progress: progress)
    do { try output.commit() } catch { throw .render(.output(path: path, error)) }
    return report
  }

  /// Copies `plan`'s video segments into `output` (not committed); `name` is the output's name
  /// for messages.
  ///
  /// - Throws: `CompositorError`; `output` is then incomplete and must not be committed.
  public static func render(
    _ plan: CompositionPlan, into output: OutputFile, name path: String,
    settings: CompositorSettings = CompositorSettings(), progress: (Double) -> Void = { _ in }
  ) throws(CompositorError) -> ClipCopyReport {
    let started = MonotonicClock.seconds()
    let deadline = settings.timeout.map { started + $0 }
    func stopReason() -> CompositorError? {
      if Interruption.isRequested { return .render(.interrupted) }
      if let deadline, MonotonicClock.seconds() >= deadline {
        return .render(.timeout(seconds: settings.timeout))
      }
      return nil
    }
    let segments = plan.segments.filter { $0.kind == .video && $0.path != nil }
    guard segments.count == plan.segments.count, let first = segments.first,
      plan.transitions.isEmpty
    else {
      throw .render(.invalidSettings("a stream copy joins whole video clips, without transitions"))
    }
    let muxer: Muxer
    do {
      muxer = try Muxer(
        format: settings.container, output: output, name: path,
        shouldStop: {
          Interruption.isRequested || deadline.map { MonotonicClock.seconds() >= $0 } ?? false
        })
    } catch {
      throw .render(.muxer("cannot write \(settings.container) (\(path))", error))
    }
    func mapWrite(_ error: FFmpegError, _ what: String) -> CompositorError {
      if muxer.stopped || error.isExit, let reason = stopReason() { return reason }
      if let code = muxer.writeFailure {
        return .render(
          .output(path: path, .write(OutputError(code: code, action: "writing \(path)"))))
      }
      return .render(.muxer(what, error))
    }
    // The streams: the first clip's video, copied; AAC.
    var input = try openSource(first.path!)
    guard let firstStream = videoStream(of: input) else {
      throw .sourceUndecodable(path: first.path!, detail: "it has no video stream")
    }
    let timeBase = firstStream.timeBase
    let video: Int
    let audio: Int
    let encoder: CodecEncoder
    do {
      video = try muxer.addStream(copying: firstStream)
      encoder = try CodecEncoder(
        audio: settings.audioEncoderSettings,
        globalHeader: muxer.needsGlobalHeader)
      audio = try muxer.addStream(for: encoder)
      for chapter in settings.chapters ?? [] {
        try muxer.addChapter(
          Renderer.chapter(from: chapter.start, to: chapter.end, title: chapter.title))
      }
      try muxer.writeHeader(options: settings.muxerOptions)
    } catch {
      throw mapWrite(error, "cannot set up the copy")
    }
    let mixer = try CompositionAudio(
      plan: plan, sampleRate: settings.sampleRate, channelCount: settings.channels)
    var report = ClipCopyReport(
      packets: 0, adjustedTimestamps: 0, samples: 0, clippedSamples: 0, bytes: 0, seconds: 0)
    let encoded = Packet()
    let rate = Rational(Int64(settings.sampleRate), 1)!
    func encodeAudio(until end: Int64) throws(CompositorError) {
      let frameSize = encoder.frameSize ?? 1024
      while report.samples < end {
        guard let block = try mixer.next(maxSamples: frameSize),
          let count = block.channels.first?.count, count > 0
        else { return }
        let frame =
          settings.audioCodec == .opus
          ? try block.interleavedFrame(sampleRate: settings.sampleRate)
          : try block.frame(sampleRate: settings.sampleRate)
        report.samples = block.start + Int64(count)
        try encodeFrame(frame)
      }
    }
    func encodeFrame(_ frame: Frame?) throws(CompositorError) {
      try encoder.encode(
        frame, into: encoded, wrap: { CompositorError.render(.encoder(encoder.name, $0)) }
      ) { (packet: Packet) throws(CompositorError) in
        do throws(FFmpegError) {
          try muxer.write(packet, stream: audio, timeBase: encoder.timeBase)
        } catch {
          throw mapWrite(error, "cannot write an audio packet")
        }
      }
    }
    // The clips' packets, one clip after another.
    var lastDTS: Int64?
    for (position, segment) in segments.enumerated() {
      if position > 0 { input = try openSource(segment.path!) }
      guard let stream = videoStream(of: input) else {
        throw .sourceUndecodable(path: segment.path!, detail: "it has no video stream")
      }
      guard stream.timeBase == timeBase else {
        throw .render(
          .invalidSettings(
            "\(segment.path!): video time base \(stream.timeBase) differs from \(timeBase)"))
      }
      input.discardAll(except: stream.index)
      let origin = Rational.rescale(
        input.startMicroseconds ?? 0, from: Rational(1, 1_000_000)!, to: timeBase)
      let start = segment.compositionRange.start
      let offset =
        Rational.rescale(start.value, from: Rational(1, start.timescale)!, to: timeBase) - origin
      let demuxer = Demuxer(input)
      var keyframeSeen = false
      reading: while true {
        if let reason = stopReason() { throw reason }
        let next: Demuxer.Next
        do { next = try demuxer.next() } catch {
          throw error == .interrupted ? .render(.interrupted) : .render(.timeout(seconds: nil))
        }
        guard case .packet = next else { break reading }
        let packet = demuxer.packet
        guard packet.streamIndex == stream.index else { continue }
        if !keyframeSeen {
          guard packet.isKeyframe else { continue }
          keyframeSeen = true
        }
        packet.shiftTimestamps(by: offset)
        if let dts = packet.dts, let last = lastDTS, dts <= last {
          packet.dts = last + 1
          if let pts = packet.pts, pts < last + 1 { packet.pts = last + 1 }
          report.adjustedTimestamps += 1
        }
        lastDTS = packet.dts ?? lastDTS
        let time = MediaTime(ticks: packet.dts ?? 0, timeBase: timeBase)
        do { try muxer.write(packet, stream: video, timeBase: timeBase) } catch {
          throw mapWrite(error, "cannot write a video packet of \(segment.path!)")
        }
        report.packets += 1
        try encodeAudio(until: max(0, time.units(atRate: rate)))
        progress(time.seconds)
      }
    }
    try encodeAudio(until: Int64.max)
    try encodeFrame(nil)
    do { try muxer.finish() } catch { throw mapWrite(error, "cannot finish \(path)") }
    report.clippedSamples = mixer.clippedSamples
    report.bytes = muxer.bytesWritten
    report.seconds = MonotonicClock.seconds() - started
    progress(plan.duration.seconds)
    return report
  }
}
