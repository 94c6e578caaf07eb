import ArgumentParser
import Compositor
import Merge

/// The output's encoding: preset, codecs, quality or rate, size cap. They apply to whole-clip
/// merges and to `--composition` documents alike.
struct ExportOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Encode with an AVAssetExportSession preset: low, medium, highest, 640x480, 960x540, 1280x720, 1920x1080, 3840x2160, hevc-highest, hevc-1920x1080, hevc-3840x2160, m4a (audio only, .m4a), passthrough (copy, or unsupported_encoding); AVFoundation's names (AVAssetExportPreset1920x1080) too.",
      valueName: "name"),
    completion: .list(ExportRequest.presetNames))
  var preset: String?

  @Option(
    help: ArgumentHelp(
      "The video codec: h264 (libx264), hevc (libx265, tagged hvc1), vp9 (libvpx-vp9), av1 (libsvtav1). Default h264; vp9 for .webm.",
      valueName: "codec"))
  var videoCodec: VideoCodecChoice?

  @Option(
    help: ArgumentHelp(
      "The audio codec: aac or opus (libopus, 48 kHz). Default aac; opus for .webm.",
      valueName: "codec"))
  var audioCodec: AudioCodecChoice?

  @Option(
    help: ArgumentHelp(
      "Constant quality on the encoder's scale (x264/x265 0-51, VP9/AV1 0-63; lower is better).",
      valueName: "n"))
  var crf: Int?

  @Option(
    help: ArgumentHelp(
      "The video's average bit rate in bits per second (800k, 2.5M, 2500000).", valueName: "rate"))
  var bitrate: BitRateArgument?

  @Option(
    help: ArgumentHelp(
      "The video bit rate as bits per pixel per frame: rate = B x width x height x fps.",
      valueName: "B"))
  var bitsPerPixel: Double?

  @Option(
    help: ArgumentHelp(
      "Cap the output's size (8MB = 8,000,000 bytes, 8MiB, 500kB, or bytes): measured passes until it lands within 95-100% of the cap (H.264: x264's two-pass after a first pass that misses), or under it when the content needs fewer bits; without video (--preset m4a) they choose the AAC rate.",
      valueName: "size"))
  var maxSize: SizeArgument?

  /// The request; throws a usage error for a preset nobody has or options that exclude each
  /// other.
  func request() throws -> ExportRequest {
    var request = ExportRequest()
    if let preset, !request.setPreset(named: preset) {
      throw ValidationError(
        "unknown preset '\(preset)' (one of: \(ExportRequest.presetNames.joined(separator: ", ")))")
    }
    let rates = [
      crf.map { _ in "--crf" }, bitrate.map { _ in "--bitrate" },
      bitsPerPixel.map { _ in "--bits-per-pixel" }, maxSize.map { _ in "--max-size" },
    ].compactMap { $0 }
    if rates.count > 1 {
      throw ValidationError(
        "\(rates.joined(separator: ", ")) each set the video's rate: give one of them")
    }
    request.videoCodec = videoCodec
    request.audioCodec = audioCodec
    if let crf {
      let codec = videoCodec ?? .h264
      guard crf >= 0, Double(crf) <= codec.maxCRF else {
        throw ValidationError(
          "--crf for \(codec.rawValue) is 0 to \(Int(codec.maxCRF)), not \(crf)")
      }
      request.crf = crf
    }
    request.bitRate = bitrate?.bitsPerSecond
    if let bitsPerPixel {
      guard bitsPerPixel > 0, bitsPerPixel <= 24 else {
        throw ValidationError("--bits-per-pixel must be above 0 and at most 24")
      }
      request.bitsPerPixel = bitsPerPixel
    }
    request.maxBytes = maxSize?.bytes
    return request
  }
}

/// `--bitrate`'s value: bits per second, with `k` (1000) or `M` (10^6).
struct BitRateArgument: ExpressibleByArgument {
  var bitsPerSecond: Int

  init?(argument: String) {
    var text = argument
    var factor = 1.0
    if let last = text.last, "kKmM".contains(last) {
      factor = "kK".contains(last) ? 1000 : 1_000_000
      text.removeLast()
    }
    guard let number = Double(text), number.isFinite, number * factor >= 1000,
      number * factor <= 2e9
    else { return nil }
    bitsPerSecond = Int((number * factor).rounded())
  }
}

/// `--max-size`'s value (`ExportRequest.parseSize`).
struct SizeArgument: ExpressibleByArgument {
  var bytes: Int64

  init?(argument: String) {
    guard let bytes = ExportRequest.parseSize(argument), bytes >= 1024 else { return nil }
    self.bytes = bytes
  }
}

extension VideoCodecChoice: ExpressibleByArgument {}
extension AudioCodecChoice: ExpressibleByArgument {}
