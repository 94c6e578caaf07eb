import OutputKit
import MediaCore
import CFFmpeg

/// Decodes one stream to the end for `--verify`: counts what the decoder outputs, finds the
/// damage (failed packets and frames, what the decoder logs about a packet, corrupt packets,
/// timestamp jumps) with the time of the packet it is about, and hashes the content when asked.
/// Memory stays the same whatever the stream's length.
package final class StreamVerifier {
  /// How many damaged packets are described in full (the count goes on).
  package static let described = 20

  package let index: Int
  package let isAudio: Bool
  private let timeBase: AVRational
  private let rational: Rational
  private let decoder: CodecDecoder
  private let log = DecodeLog()
  private let frame = Frame()
  private let hash: ContentHash?
  private let scope: VerifyScope

  /// The last packets sent, by sequence number modulo the ring's size: their timestamps, so a
  /// message about a packet (even one decoded a few packets later on a frame thread) gets its time.
  private var recent = [Int64?](repeating: nil, count: 256)
  private var sequence: UInt32 = 0
  private var lastFailedPacket: UInt32?
  /// Logged errors whose packets the decoder has not (yet) returned an error for.
  private var unmatchedLoggedErrors = 0

  package private(set) var frames: Int64 = 0
  package private(set) var samples: Int64 = 0
  private var first: Int64?
  private var end: Int64?
  private var expectedNext: Int64?
  /// The length of the last frame counted, in ticks (0 before the first).
  private var previousLength: Int64 = 0
  private var errors: [DecodeError] = []
  package private(set) var errorCount = 0
  /// The demuxer marked a packet corrupt (a short read).
  package private(set) var sawTruncatedPacket = false
  /// Tells packets that hold no frame (`PacketCheck.mpegAudio`), when the codec has a check.
  private let check: PacketCheck?
  /// The last packet sent held no frame: what the decoder said about it waits, in
  /// `heldReports`, to see whether another packet follows (then it was damage) or the stream
  /// ends (then it was trailing data, not damage).
  private var fragment: UInt32?
  private var heldReports: [(kind: DecodeErrorKind, message: String, pts: Int64?)] = []
  /// The stream ended with a packet that holds no frame.
  package private(set) var endsWithFragment = false

  /// A verifier for `stream`, with `threads` decoder threads (frame threading where the codec
  /// has it: errors are attributed per packet whatever the scheduling).
  ///
  /// - Throws: `FFmpegError` when the stream has no decoder or it does not open.
  package init(stream: StreamView, threads: Int32, scope: VerifyScope, hashing: Bool)
    throws(FFmpegError)
  {
    index = stream.index
    isAudio = stream.isAudio
    timeBase = stream.avTimeBase
    rational = Rational(Int64(timeBase.num), Int64(timeBase.den)) ?? Rational(1, 1)!
    // CRC checks where the codec has them (FLAC frames): damage that would otherwise decode
    // silently. They only add messages; the decoded output stays the same.
    decoder = try stream.openDecoder(threads: threads, errorRecognition: AV_EF_CRCCHECK)
    if case .mpegAudio = PacketCheck(stream) { check = .mpegAudio } else { check = nil }
    self.scope = isAudio ? .all : scope
    if self.scope == .keyframes { decoder.pointer.pointee.skip_frame = AVDISCARD_NONKEY }
    hash = hashing && self.scope == .all ? ContentHash() : nil
    // Without a hash the pictures are not looked at, so the in-loop deblocking (and HEVC's SAO)
    // filters are skipped where the decoder allows it: they change pixels after the bitstream
    // is parsed and every block reconstructed, never whether it decodes (slice headers,
    // including the filters' own parameters, are still read and checked). The damaged fixtures
    // give the same errors and frames either way (MediaProbeVerifyTests); it saves ~10% of
    // H.264 decoding time.
    if hash == nil && !isAudio { decoder.pointer.pointee.skip_loop_filter = AVDISCARD_ALL }
  }

  deinit { log.close() }

  /// Decodes one packet (nil: drains the decoder at the end). `logged` is what the demuxer and
  /// its parser said while reading it.
  package func decode(_ packet: Packet?, logged: [String] = []) {
    if let packet {
      if fragment != nil {  // another packet follows the one that held no frame: damage
        fragment = nil
        for held in heldReports {
          report(packet: nil, kind: held.kind, message: held.message, pts: held.pts)
        }
        heldReports = []
      }
      sequence &+= 1
      if let check, check.verdict(packet.bytes) != .frame { fragment = sequence }
      recent[Int(sequence % UInt32(recent.count))] = packet.pts ?? packet.dts
      decoder.logToken = log.token(packet: sequence)
      for message in logged where report(packet: sequence, kind: .invalidData, message: message) {
        unmatchedLoggedErrors += 1
      }
      if packet.isCorrupt {
        sawTruncatedPacket = true
        report(
          packet: sequence, kind: .truncatedPacket,
          message: "the demuxer marked the packet corrupt (the file ends inside it?)")
      }
    } else {
      decoder.logToken = log.token(packet: nil)
      endsWithFragment = fragment != nil
    }
    let current = packet == nil ? nil : sequence
    var failures: [DecodeFailure] = []
    decoder.decode(packet, into: frame) {
      failures.append($0)
    } body: { frame in
      count(frame)
      return true
    }
    // The decoder's own words first ("Header missing"), then what it returned ("Invalid data
    // found when processing input"). With frame threads the returned error surfaces a few
    // packets later (or while draining) than the message about the same packet: a returned
    // error counts only when no logged error is waiting for its return code, so the count does
    // not depend on the threads.
    collectLog()
    for failure in failures {
      if unmatchedLoggedErrors > 0 {
        unmatchedLoggedErrors -= 1
        continue
      }
      let kind: DecodeErrorKind = failure.error.isInvalidData ? .invalidData : .decoderFailed
      report(packet: current, kind: kind, message: failure.error.message)
    }
  }

  private func count(_ frame: Frame) {
    let f = frame.pointer.pointee
    let pts = f.best_effort_timestamp == mt_nopts_value ? nil : f.best_effort_timestamp
    var length: Int64 = f.pkt_duration > 0 ? f.pkt_duration : 0
    if isAudio {
      samples += Int64(f.nb_samples)
      if f.sample_rate > 0 {
        length = av_rescale_q(
          Int64(f.nb_samples), AVRational(num: 1, den: f.sample_rate), timeBase)
      }
    } else {
      frames += 1
    }
    if let pts {
      // A frame may start before the previous one ended by up to a frame's length: for audio,
      // the longer of this frame and the one before it. Containers that time audio packets by
      // the codec's block sizes (Ogg Vorbis with block switching: the demuxer's packet duration
      // and the decoder's output differ around a switch) place a frame inside its neighbour's
      // overlap, and the next frame puts the clock back. Lost or repeated data moves it for good.
      let overlap = isAudio ? max(length, previousLength, 1) : max(length, 1)
      // Decoding only keyframes, the time moves a whole GOP at once (10 s with x264's default
      // keyint 250 at 25 fps): only a step back is a jump then.
      let skipsFrames = scope == .keyframes
      if let expectedNext,
        pts < expectedNext - overlap || (!skipsFrames && pts > expectedNext + oneSecond)
      {
        report(
          packet: nil, kind: .timestampJump,
          message: "the timestamps jump from \(seconds(expectedNext)) s to \(seconds(pts)) s",
          pts: pts)
      }
      first = min(first ?? pts, pts)
      end = max(end ?? pts + length, pts + length)
      expectedNext = isAudio || length > 0 ? pts + length : nil
      previousLength = length
    }
    hash?.add(frame, audio: isAudio)
  }

  private var oneSecond: Int64 { av_rescale_q(1, AVRational(num: 1, den: 1), timeBase) }

  private func seconds(_ ticks: Int64) -> String {
    fixed(Double(ticks) * av_q2d(timeBase), places: 3)
  }

  /// Takes what the decoder logged since the last packet: errors, and concealment notes.
  private func collectLog() {
    let (messages, dropped) = log.take()
    for message in messages {
      let text = message.text
      let lower = text.lowercased()
      let kind: DecodeErrorKind
      if lower.contains("conceal") {
        kind = .concealed
      } else if message.level <= AV_LOG_ERROR {
        if lower.contains("reference") || lower.contains("non-existing")
          || lower.contains("no frame!")
        {
          kind = .missingReference
        } else {
          kind = .invalidData
        }
      } else {
        continue  // warnings and notes that are not damage
      }
      if report(packet: message.packet, kind: kind, message: text) { unmatchedLoggedErrors += 1 }
    }
    if dropped > 0 { errorCount += dropped }
  }

  /// Counts one damaged packet (several messages about the same packet count once) and
  /// describes the first ones.
  ///
  /// - Returns: false when the packet was counted already.
  @discardableResult
  private func report(packet: UInt32?, kind: DecodeErrorKind, message: String, pts: Int64? = nil)
    -> Bool
  {
    if let packet, packet == fragment {
      if heldReports.isEmpty { heldReports.append((kind, message, pts ?? timestamp(of: packet))) }
      return true
    }
    if let packet, packet == lastFailedPacket { return false }
    lastFailedPacket = packet
    errorCount += 1
    guard errors.count < Self.described else { return true }
    var timestamp = pts
    if timestamp == nil, let packet { timestamp = self.timestamp(of: packet) }
    errors.append(
      DecodeError(
        time: timestamp.map { Double($0) * av_q2d(timeBase) }, pts: timestamp, kind: kind,
        message: message))
    return true
  }

  /// The timestamp of a recent packet, by its sequence number.
  private func timestamp(of packet: UInt32) -> Int64? {
    guard sequence &- packet < UInt32(recent.count) else { return nil }
    return recent[Int(packet % UInt32(recent.count))] ?? nil
  }

  /// Every packet is decoded (not only keyframes).
  package var decodesEverything: Bool { scope == .all }

  /// The decoded content's span, in seconds, when anything was decoded.
  package var span: (first: Double, end: Double)? {
    guard let first, let end else { return nil }
    return (Double(first) * av_q2d(timeBase), Double(end) * av_q2d(timeBase))
  }

  /// The report, once the stream was drained.
  package func report() -> DecodeReport {
    DecodeReport(
      scope: scope, frames: isAudio ? nil : frames, samples: isAudio ? samples : nil,
      firstTime: first.map { MediaTime(ticks: $0, timeBase: rational) },
      endTime: end.map { MediaTime(ticks: $0, timeBase: rational) },
      errors: DecodeErrors(count: errorCount, first: errors), md5: hash?.finish())
  }
}
