import CFFmpeg
import MediaCore

extension Rational {
  /// FFmpeg's rational, reduced to fit 32-bit terms (`av_reduce`).
  var av: AVRational {
    var reduced = AVRational()
    av_reduce(&reduced.num, &reduced.den, num, den, Int64(Int32.max))
    return reduced
  }

  /// A rational from FFmpeg's; nil when the denominator is 0 (FFmpeg's "unknown").
  init?(_ value: AVRational) {
    self.init(Int64(value.num), Int64(value.den))
  }

  /// A rational from FFmpeg's; nil when it is 0 or has no denominator (FFmpeg's "unknown" rates
  /// and ratios).
  static func nonZero(_ value: AVRational) -> Rational? {
    nonZero(Int64(value.num), Int64(value.den))
  }

  /// `1/den` as a time base.
  static func timeBase(_ den: Int) -> Rational { Rational(1, Int64(max(den, 1)))! }

  /// `den/num` (itself when `num` is 0).
  var inverse: Rational { Rational(den, num) ?? self }
}

extension StreamType {
  /// The kind of an FFmpeg stream or codec.
  init(_ type: AVMediaType) {
    switch type {
    case AVMEDIA_TYPE_VIDEO: self = .video
    case AVMEDIA_TYPE_AUDIO: self = .audio
    case AVMEDIA_TYPE_SUBTITLE: self = .subtitle
    case AVMEDIA_TYPE_DATA: self = .data
    case AVMEDIA_TYPE_ATTACHMENT: self = .attachment
    default: self = .unknown
    }
  }
}

/// A pixel format (`yuv420p`, `rgb24`, `nv12`, ...): one of FFmpeg's `AVPixelFormat`s.
package struct PixelFormat: Hashable, Sendable, CustomStringConvertible {
  let rawValue: Int32

  init(_ format: AVPixelFormat) { rawValue = format.rawValue }

  /// The format FFmpeg names `name`; nil for a name it does not know.
  package init?(name: String) {
    let format = av_get_pix_fmt(name)
    guard format != AV_PIX_FMT_NONE else { return nil }
    self.init(format)
  }

  var av: AVPixelFormat { AVPixelFormat(rawValue: rawValue) }

  /// FFmpeg's name for the format.
  package var name: String { av_get_pix_fmt_name(av).map { String(cString: $0) } ?? "none" }
  /// FFmpeg's name for the format.
  package var description: String { name }
  /// R'G'B' (packed or planar), not Y'CbCr: a scaler ignores the matrix and range for it.
  package var isRGB: Bool {
    guard let descriptor = av_pix_fmt_desc_get(av) else { return false }
    return descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
  }

  /// 8-bit Y'CbCr 4:2:0, planar: what H.264 players expect.
  package static let yuv420p = PixelFormat(AV_PIX_FMT_YUV420P)
  /// 8-bit R'G'B', packed, 3 bytes a pixel.
  package static let rgb24 = PixelFormat(AV_PIX_FMT_RGB24)
  /// 8-bit R'G'B'A, packed.
  package static let rgba = PixelFormat(AV_PIX_FMT_RGBA)
  /// 8-bit G'B'R', planar (libavfilter's exact R'G'B' route).
  package static let gbrp = PixelFormat(AV_PIX_FMT_GBRP)
  /// 8-bit luma only.
  package static let gray = PixelFormat(AV_PIX_FMT_GRAY8)
  /// 8-bit Y'CbCr 4:2:0, the Y plane then interleaved CbCr.
  package static let nv12 = PixelFormat(AV_PIX_FMT_NV12)
}

/// A sample format (`fltp`, `s16`, ...): one of FFmpeg's `AVSampleFormat`s.
package struct SampleFormat: Hashable, Sendable, CustomStringConvertible {
  let rawValue: Int32

  init(_ format: AVSampleFormat) { rawValue = format.rawValue }

  /// The format FFmpeg names `name`; nil for a name it does not know.
  package init?(name: String) {
    let format = av_get_sample_fmt(name)
    guard format != AV_SAMPLE_FMT_NONE else { return nil }
    self.init(format)
  }

  var av: AVSampleFormat { AVSampleFormat(rawValue: rawValue) }

  /// FFmpeg's name for the format.
  package var name: String { av_get_sample_fmt_name(av).map { String(cString: $0) } ?? "none" }
  /// FFmpeg's name for the format.
  package var description: String { name }
  /// Each channel in its own plane.
  package var isPlanar: Bool { av_sample_fmt_is_planar(av) != 0 }
  /// Bytes per sample of one channel.
  package var bytesPerSample: Int { Int(av_get_bytes_per_sample(av)) }

  /// 32-bit float, planar: the native AAC encoder's format.
  package static let fltp = SampleFormat(AV_SAMPLE_FMT_FLTP)
  /// 32-bit float, interleaved.
  package static let flt = SampleFormat(AV_SAMPLE_FMT_FLT)
  /// Signed 16-bit, interleaved.
  package static let s16 = SampleFormat(AV_SAMPLE_FMT_S16)
  /// Signed 16-bit, planar.
  package static let s16p = SampleFormat(AV_SAMPLE_FMT_S16P)
}

/// The Y'CbCr matrix of a picture (`AVColorSpace`), by FFmpeg's name.
package struct ColorMatrix: Hashable, Sendable, CustomStringConvertible {
  let rawValue: UInt32

  init(_ space: AVColorSpace) { rawValue = space.rawValue }

  /// The matrix FFmpeg names `name` (`bt709`, `smpte170m`, `bt470bg`, `bt2020nc`); nil if
  /// unknown.
  package init?(name: String) {
    let value = av_color_space_from_name(name)
    guard value >= 0 else { return nil }
    rawValue = UInt32(value)
  }

  var av: AVColorSpace { AVColorSpace(rawValue: rawValue) }
  /// FFmpeg's name.
  package var name: String { av_color_space_name(av).map { String(cString: $0) } ?? "unknown" }
  /// FFmpeg's name.
  package var description: String { name }

  /// ITU-R BT.709 (HD).
  package static let bt709 = ColorMatrix(AVCOL_SPC_BT709)
  /// ITU-R BT.601 as SMPTE 170M (SD, 525 lines).
  package static let bt601 = ColorMatrix(AVCOL_SPC_SMPTE170M)
  /// ITU-R BT.601 as BT.470 BG (SD, 625 lines; the same coefficients).
  package static let bt470bg = ColorMatrix(AVCOL_SPC_BT470BG)
  /// ITU-R BT.2020, non-constant luminance.
  package static let bt2020nc = ColorMatrix(AVCOL_SPC_BT2020_NCL)
  /// R'G'B' itself (the "matrix" of an R'G'B' picture).
  package static let rgb = ColorMatrix(AVCOL_SPC_RGB)
  /// Not stated.
  package static let unspecified = ColorMatrix(AVCOL_SPC_UNSPECIFIED)
}

/// The colour primaries of a picture (`AVColorPrimaries`), by FFmpeg's name.
package struct ColorPrimaries: Hashable, Sendable, CustomStringConvertible {
  let rawValue: UInt32

  init(_ primaries: AVColorPrimaries) { rawValue = primaries.rawValue }

  /// The primaries FFmpeg names `name` (`bt709`, `smpte170m`, `bt470bg`, `bt2020`); nil if
  /// unknown.
  package init?(name: String) {
    let value = av_color_primaries_from_name(name)
    guard value >= 0 else { return nil }
    rawValue = UInt32(value)
  }

  var av: AVColorPrimaries { AVColorPrimaries(rawValue: rawValue) }
  /// FFmpeg's name.
  package var name: String {
    av_color_primaries_name(av).map { String(cString: $0) } ?? "unknown"
  }
  /// FFmpeg's name.
  package var description: String { name }

  /// ITU-R BT.709 (and sRGB).
  package static let bt709 = ColorPrimaries(AVCOL_PRI_BT709)
  /// SMPTE 170M (SD, 525 lines).
  package static let smpte170m = ColorPrimaries(AVCOL_PRI_SMPTE170M)
  /// ITU-R BT.2020.
  package static let bt2020 = ColorPrimaries(AVCOL_PRI_BT2020)
  /// Not stated.
  package static let unspecified = ColorPrimaries(AVCOL_PRI_UNSPECIFIED)
}

/// The transfer characteristic of a picture (`AVColorTransferCharacteristic`), by FFmpeg's name.
package struct ColorTransfer: Hashable, Sendable, CustomStringConvertible {
  let rawValue: UInt32

  init(_ transfer: AVColorTransferCharacteristic) { rawValue = transfer.rawValue }

  /// The transfer FFmpeg names `name` (`bt709`, `iec61966-2-1`, `smpte2084`, `arib-std-b67`);
  /// nil if unknown.
  package init?(name: String) {
    let value = av_color_transfer_from_name(name)
    guard value >= 0 else { return nil }
    rawValue = UInt32(value)
  }

  var av: AVColorTransferCharacteristic { AVColorTransferCharacteristic(rawValue: rawValue) }
  /// FFmpeg's name.
  package var name: String {
    av_color_transfer_name(av).map { String(cString: $0) } ?? "unknown"
  }
  /// FFmpeg's name.
  package var description: String { name }

  /// ITU-R BT.709.
  package static let bt709 = ColorTransfer(AVCOL_TRC_BT709)
  /// SMPTE 170M (BT.601).
  package static let smpte170m = ColorTransfer(AVCOL_TRC_SMPTE170M)
  /// IEC 61966-2-1 (sRGB).
  package static let srgb = ColorTransfer(AVCOL_TRC_IEC61966_2_1)
  /// SMPTE ST 2084 (PQ).
  package static let pq = ColorTransfer(AVCOL_TRC_SMPTE2084)
  /// ARIB STD-B67 (HLG).
  package static let hlg = ColorTransfer(AVCOL_TRC_ARIB_STD_B67)
  /// Not stated.
  package static let unspecified = ColorTransfer(AVCOL_TRC_UNSPECIFIED)
}

/// Whether Y'CbCr codes use the limited ("TV", 16-235) or the full (0-255) range.
package enum ColorRange: Sendable, Hashable {
  /// 16-235 luma, 16-240 chroma (`tv`, `mpeg`): video's default.
  case limited
  /// 0-255 (`pc`, `jpeg`).
  case full
  /// Not stated.
  case unspecified

  var av: AVColorRange {
    switch self {
    case .limited: AVCOL_RANGE_MPEG
    case .full: AVCOL_RANGE_JPEG
    case .unspecified: AVCOL_RANGE_UNSPECIFIED
    }
  }

  init(_ range: AVColorRange) {
    switch range {
    case AVCOL_RANGE_MPEG: self = .limited
    case AVCOL_RANGE_JPEG: self = .full
    default: self = .unspecified
    }
  }

  /// The range FFmpeg (and the probe's `ColorInfo`) names `name` (`tv`, `pc`); nil if unknown.
  package init?(name: String) {
    let value = av_color_range_from_name(name)
    guard value >= 0 else { return nil }
    self.init(AVColorRange(rawValue: UInt32(value)))
  }
}

/// How a picture's colours are to be read: what an encoder writes into the bitstream (VUI) and
/// the container, and what a scaler converts with.
package struct ColorTags: Sendable, Hashable {
  /// The Y'CbCr matrix.
  package var matrix: ColorMatrix
  /// Limited or full range.
  package var range: ColorRange
  /// The primaries.
  package var primaries: ColorPrimaries
  /// The transfer characteristic.
  package var transfer: ColorTransfer

  /// Tags stated one by one.
  package init(
    matrix: ColorMatrix, range: ColorRange, primaries: ColorPrimaries, transfer: ColorTransfer
  ) {
    self.matrix = matrix
    self.range = range
    self.primaries = primaries
    self.transfer = transfer
  }

  /// The tags the probe read from a stream (`MediaStream.video.color`); a field it did not give,
  /// or one FFmpeg does not know by name, is unspecified.
  package init(_ info: ColorInfo) {
    matrix = info.matrix.flatMap(ColorMatrix.init(name:)) ?? .unspecified
    range = info.range.flatMap(ColorRange.init(name:)) ?? .unspecified
    primaries = info.primaries.flatMap(ColorPrimaries.init(name:)) ?? .unspecified
    transfer = info.transfer.flatMap(ColorTransfer.init(name:)) ?? .unspecified
  }

  /// HD video: BT.709 matrix, primaries and transfer, limited range.
  package static let bt709 = ColorTags(
    matrix: .bt709, range: .limited, primaries: .bt709, transfer: .bt709)
  /// Nothing stated.
  package static let unspecified = ColorTags(
    matrix: .unspecified, range: .unspecified, primaries: .unspecified, transfer: .unspecified)
}
