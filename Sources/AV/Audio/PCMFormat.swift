import OutputKit
import MediaCore
import CFFmpeg

/// The sample encodings a WAV file can hold, as `media2wav --format` names them.
public enum PCMEncoding: String, Sendable, CaseIterable, Codable {
  /// Unsigned 8-bit.
  case u8
  /// Signed 16-bit little-endian (the default, like `ffmpeg -acodec pcm_s16le`).
  case s16
  /// Signed 24-bit little-endian, packed in 3 bytes.
  case s24
  /// Signed 32-bit little-endian.
  case s32
  /// 32-bit IEEE float.
  case f32
  /// 64-bit IEEE float.
  case f64

  /// Bits per sample in the file.
  public var bits: Int {
    switch self {
    case .u8: 8
    case .s16: 16
    case .s24: 24
    case .s32, .f32: 32
    case .f64: 64
    }
  }

  /// Bytes per sample in the file.
  public var bytesPerSample: Int { bits / 8 }

  /// True for the IEEE float encodings (WAVE_FORMAT_IEEE_FLOAT, format tag 3).
  public var isFloat: Bool { self == .f32 || self == .f64 }

  /// The WAV format tag: 1 (PCM) or 3 (IEEE float).
  package var formatTag: UInt16 { isFloat ? 3 : 1 }

  /// The interleaved sample format libswresample converts to (s24 goes through s32).
  var converterFormat: AVSampleFormat {
    switch self {
    case .u8: AV_SAMPLE_FMT_U8
    case .s16: AV_SAMPLE_FMT_S16
    case .s24, .s32: AV_SAMPLE_FMT_S32
    case .f32: AV_SAMPLE_FMT_FLT
    case .f64: AV_SAMPLE_FMT_DBL
    }
  }

  /// The encoding that keeps a decoder's depth (`--format auto`): 24-bit FLAC → s24,
  /// float sources → f32, 16-bit → s16.
  ///
  /// - Parameters:
  ///   - sampleFormat: the decoder's sample format.
  ///   - bitsPerRawSample: the stream's `bits_per_raw_sample` (0 when unknown).
  static func keeping(_ sampleFormat: AVSampleFormat, bitsPerRawSample: Int32)
    -> PCMEncoding
  {
    switch av_get_packed_sample_fmt(sampleFormat) {
    case AV_SAMPLE_FMT_U8: .u8
    case AV_SAMPLE_FMT_S16: .s16
    case AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S64:
      bitsPerRawSample > 0 && bitsPerRawSample <= 24 ? .s24 : .s32
    case AV_SAMPLE_FMT_DBL: .f64
    default: .f32
    }
  }
}

/// The layout of PCM audio: encoding, channels, rate and the channel mask (FFmpeg's native
/// channel order, which is the WAV mask's bit order).
public struct PCMFormat: Sendable, Equatable, Codable {
  /// The sample encoding.
  public var encoding: PCMEncoding
  /// Number of interleaved channels.
  public var channels: Int
  /// Samples per second per channel.
  public var sampleRate: Int
  /// The WAV `dwChannelMask` (0x3 stereo, 0x3F 5.1, 0x60F 5.1(side), ...).
  public var channelMask: UInt64

  /// A format from its parts.
  public init(encoding: PCMEncoding, channels: Int, sampleRate: Int, channelMask: UInt64) {
    self.encoding = encoding
    self.channels = channels
    self.sampleRate = sampleRate
    self.channelMask = channelMask
  }

  /// Bytes per sample frame (all channels).
  public var blockAlign: Int { encoding.bytesPerSample * channels }

  /// Bytes per second.
  public var byteRate: Int { blockAlign * sampleRate }
}

extension PCMEncoding {
  /// Converts `samples` samples of this encoding at `raw` (as written in a WAV: little-endian,
  /// s24 packed in 3 bytes) to float in `out`, full scale at ±1: the analysis's view of what is
  /// written. u8, s16, s24 and f32 convert exactly.
  package func convertToFloat(
    _ raw: UnsafeRawPointer, samples: Int, into out: UnsafeMutablePointer<Float>
  ) {
    switch self {
    case .u8:
      let p = raw.assumingMemoryBound(to: UInt8.self)
      for i in 0..<samples { out[i] = (Float(p[i]) - 128) / 128 }
    case .s16:
      let p = raw.assumingMemoryBound(to: Int16.self)
      for i in 0..<samples { out[i] = Float(p[i]) / 32768 }
    case .s24:
      let p = raw.assumingMemoryBound(to: UInt8.self)
      for i in 0..<samples {
        let value =
          Int32(
            bitPattern: UInt32(p[3 * i]) << 8 | UInt32(p[3 * i + 1]) << 16
              | UInt32(p[3 * i + 2]) << 24) >> 8
        out[i] = Float(value) / 8_388_608
      }
    case .s32:
      let p = raw.assumingMemoryBound(to: Int32.self)
      for i in 0..<samples { out[i] = Float(Double(p[i]) / 2_147_483_648) }
    case .f32:
      out.update(from: raw.assumingMemoryBound(to: Float.self), count: samples)
    case .f64:
      let p = raw.assumingMemoryBound(to: Double.self)
      for i in 0..<samples { out[i] = Float(p[i]) }
    }
  }
}
