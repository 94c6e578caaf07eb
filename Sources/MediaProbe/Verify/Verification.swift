import AV
import MediaCore

/// `--verify` for one file: a `StreamVerifier` per audio and video stream fed from the probe's
/// one packet loop, what the demuxer logs about the container, and the file's `Integrity`.
final class Verification {
  private let input: InputFile
  private var verifiers: [Int: StreamVerifier] = [:]
  /// Streams that could not be decoded at all, with the reason.
  private var unopened: [Int: String] = [:]
  private let containerLog = DecodeLog()
  private var containerErrors: [String] = []
  private var readFailure: FFmpegError?
  /// An index entry points past the end of the file (an MP4 whose `mdat` was cut).
  private let indexPastEnd: Bool

  /// Streams in `unopened` that the container, not libavformat, calls audio.
  private var unopenedAudio: Set<Int> = []

  /// Opens a decoder for every audio and video stream (not cover art). `unsupported`: streams
  /// whose codec the container names but FFmpeg cannot decode (`codec_supported: false`), which
  /// libavformat may call data: they are undecodable like any audio or video stream without a
  /// decoder, whatever type libavformat gave them.
  init(
    input: InputFile, scope: VerifyScope, hashing: Bool, threads: Int32, indexPastEnd: Bool,
    unsupported: [MediaStream] = []
  ) {
    self.input = input
    self.indexPastEnd = indexPastEnd
    for stream in unsupported {
      unopened[stream.index] = "no decoder for \(stream.codec.name)"
      if stream.type == .audio { unopenedAudio.insert(stream.index) }
    }
    for stream in input.streams
    where (stream.isAudio || stream.isVideo) && unopened[stream.index] == nil {
      do {
        verifiers[stream.index] = try StreamVerifier(
          stream: stream, threads: threads, scope: scope, hashing: hashing)
      } catch {
        unopened[stream.index] = "no decoder for \(stream.codecName): \(error.message)"
        if stream.isAudio { unopenedAudio.insert(stream.index) }
      }
    }
    // The demuxer's messages, and those of the parsers it runs on this thread while reading.
    input.logToken = containerLog.token(packet: nil)
    DecodeLogRegistry.setReading(containerLog.token(packet: nil))
  }

  deinit {
    DecodeLogRegistry.setReading(nil)
    input.logToken = nil
    containerLog.close()
  }

  /// Decodes a packet of stream `index` (packets of other streams are ignored). What the demuxer
  /// and its parsers logged while reading it counts against it.
  func decode(_ packet: Packet, stream index: Int) {
    let logged = containerLog.take().messages.filter(\.isError)
    if let verifier = verifiers[index] {
      verifier.decode(packet, logged: logged.map(\.text))
    } else {
      containerErrors += logged.map(\.text)
    }
  }

  /// Some stream ends with bytes that hold no frame (trailing data, not damage).
  var endsWithFragment: Bool { verifiers.values.contains(where: \.endsWithFragment) }

  /// Reading stopped with an error other than the end of the file.
  func readFailed(_ error: FFmpegError) { readFailure = error }

  /// Drains every decoder (the frames still in flight) and takes the demuxer's messages.
  func drain() {
    for verifier in verifiers.values { verifier.decode(nil) }
    for message in containerLog.take().messages where message.isError {
      containerErrors.append(message.text)
    }
  }

  /// Each verified stream's report, by stream index.
  func reports() -> [Int: DecodeReport] {
    var reports = verifiers.mapValues { $0.report() }
    for stream in input.streams where !stream.isAudio && !stream.isVideo {
      reports[stream.index] = DecodeReport(
        scope: .none, frames: nil, samples: nil, firstTime: nil, endTime: nil, errors: .none,
        md5: nil)
    }
    for (index, reason) in unopened {
      let audio = unopenedAudio.contains(index)
      reports[index] = DecodeReport(
        scope: .all, frames: audio ? nil : 0, samples: audio ? 0 : nil, firstTime: nil,
        endTime: nil,
        errors: DecodeErrors(
          count: 1,
          first: [DecodeError(time: nil, pts: nil, kind: .decoderFailed, message: reason)]),
        md5: nil)
    }
    return reports
  }

  /// An MPEG-TS file whose size is no whole number of transport packets (188 bytes, or 192 and
  /// 204 with time codes or FEC): it was cut inside its last packet.
  private var cutTransportStream: Bool {
    guard input.formatName == "mpegts", let size = input.source.size else { return false }
    return [188, 192, 204].allSatisfy { size % $0 != 0 }
  }

  /// The file's verdict. `expected` is the container's own duration in seconds from its start
  /// (nil when unknown or only estimated).
  func integrity(expected: Double?) -> Integrity {
    let decodedAnything = verifiers.values.contains { $0.frames > 0 || $0.samples > 0 }
    // Nothing to decode (only subtitles, data, cover art) is not damage.
    let nothingToDecode = verifiers.isEmpty && unopened.isEmpty
    guard decodedAnything || nothingToDecode else { return .undecodable }
    let partial = containerErrors.contains { message in
      let lower = message.lowercased()
      return lower.contains("partial file") || lower.contains("prematurely")
        || lower.contains("truncat") || lower.contains("end of file")
    }
    if indexPastEnd || partial || readFailure != nil
      || verifiers.values.contains(where: \.sawTruncatedPacket) || cutTransportStream
    {
      return .truncated
    }
    if let expected, expected > 0 {
      let origin = input.startSeconds ?? 0
      // Keyframes only (--verify-fast) end at the last keyframe: they cannot tell.
      let ends = verifiers.values.filter(\.decodesEverything).compactMap { $0.span?.end }
      if let end = ends.max(), end - origin < expected - max(0.5, 0.02 * expected) {
        return .truncated
      }
    }
    let damaged =
      !containerErrors.isEmpty || !unopened.isEmpty
      || verifiers.values.contains { $0.errorCount > 0 }
    return damaged ? .damaged : .ok
  }
}
