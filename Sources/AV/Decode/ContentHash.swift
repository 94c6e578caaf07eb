import OutputKit
import MediaCore
import CFFmpeg

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// The MD5 of a stream's decoded content, byte for byte what the ffmpeg CLI's `streamhash`
/// muxer hashes (`ffmpeg -i IN -map 0:N -fps_mode passthrough -f streamhash -hash md5 -`):
///
/// - video as `rawvideo` does it: each frame in its own pixel format, the planes in order, each
///   row without its padding (`av_image_copy_to_buffer` with alignment 1), then the palette for
///   paletted formats;
/// - audio as `pcm_s16le` interleaved, converted as libswresample does by default: float
///   `clip(lrintf(x * 32768))`, double `clip(lrint(x * 32768))`, 32-bit `x >> 16`, 64-bit
///   `x >> 48`, unsigned 8-bit `(x - 128) << 8`.
///
/// So two files with the same pictures and sound hash the same, whatever their container or tags.
package final class ContentHash {
  private let context: OpaquePointer
  private var samples: [Int16] = []

  /// A hash with nothing in it.
  package init() {
    guard let context = av_md5_alloc() else { fatalError("av_md5_alloc: out of memory") }
    self.context = context
    av_md5_init(context)
  }

  deinit { av_free(UnsafeMutableRawPointer(context)) }

  /// Adds a decoded frame.
  package func add(_ frame: Frame, audio: Bool) {
    if audio { addAudio(frame.pointer.pointee) } else { addVideo(frame.pointer.pointee) }
  }

  /// The digest as lowercase hex (finishes the hash).
  package func finish() -> String {
    var digest = [UInt8](repeating: 0, count: 16)
    av_md5_final(context, &digest)
    return digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
  }

  private func addVideo(_ frame: AVFrame) {
    let format = AVPixelFormat(rawValue: frame.format)
    guard let descriptor = av_pix_fmt_desc_get(format) else { return }
    var lineSizes: (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
    guard
      withUnsafeMutablePointer(
        to: &lineSizes,
        {
          $0.withMemoryRebound(to: Int32.self, capacity: 4) {
            av_image_fill_linesizes($0, format, frame.width)
          }
        }) >= 0
    else { return }
    let rowBytes = [lineSizes.0, lineSizes.1, lineSizes.2, lineSizes.3]
    let planes = Int(av_pix_fmt_count_planes(format))
    let data = [frame.data.0, frame.data.1, frame.data.2, frame.data.3]
    let strides = [frame.linesize.0, frame.linesize.1, frame.linesize.2, frame.linesize.3]
    let paletted = descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PAL) != 0
    for plane in 0..<min(planes, 4) {
      guard let base = data[plane], rowBytes[plane] > 0 else { continue }
      let chroma = (plane == 1 || plane == 2) && !paletted
      let shift = chroma ? Int32(descriptor.pointee.log2_chroma_h) : 0
      let rows = Int(-((-frame.height) >> shift))
      for row in 0..<rows {
        av_md5_update(context, base + row * Int(strides[plane]), Int(rowBytes[plane]))
      }
    }
    if paletted, let palette = data[1] {
      av_md5_update(context, palette, 256 * 4)  // 256 little-endian 32-bit entries
    }
  }

  private func addAudio(_ frame: AVFrame) {
    let count = Int(frame.nb_samples)
    let channels = Int(frame.ch_layout.nb_channels)
    guard count > 0, channels > 0 else { return }
    let format = AVSampleFormat(rawValue: frame.format)
    let planar = av_sample_fmt_is_planar(format) != 0
    let packed = av_get_packed_sample_fmt(format)
    if samples.count < count * channels { samples = [Int16](repeating: 0, count: count * channels) }
    guard let extended = frame.extended_data else { return }
    samples.withUnsafeMutableBufferPointer { out in
      for channel in 0..<channels {
        guard let plane = extended[planar ? channel : 0] else { continue }
        let first = planar ? 0 : channel
        let step = planar ? 1 : channels
        for index in 0..<count {
          let at = first + index * step
          out[index * channels + channel] = Self.s16(plane, at, packed)
        }
      }
    }
    samples.withUnsafeBytes { av_md5_update(context, $0.baseAddress, count * channels * 2) }
  }

  /// One sample converted to s16 as libswresample's default conversion does.
  private static func s16(_ plane: UnsafeMutablePointer<UInt8>, _ at: Int, _ format: AVSampleFormat)
    -> Int16
  {
    let raw = UnsafeRawPointer(plane)
    switch format {
    case AV_SAMPLE_FMT_U8:
      return Int16(Int(raw.load(fromByteOffset: at, as: UInt8.self)) - 0x80) << 8
    case AV_SAMPLE_FMT_S16: return raw.load(fromByteOffset: at * 2, as: Int16.self)
    case AV_SAMPLE_FMT_S32:
      return Int16(truncatingIfNeeded: raw.load(fromByteOffset: at * 4, as: Int32.self) >> 16)
    case AV_SAMPLE_FMT_S64:
      return Int16(truncatingIfNeeded: raw.load(fromByteOffset: at * 8, as: Int64.self) >> 48)
    case AV_SAMPLE_FMT_FLT:
      return clip(Int64(lrintf(raw.load(fromByteOffset: at * 4, as: Float.self) * 32768)))
    case AV_SAMPLE_FMT_DBL:
      return clip(Int64(lrint(raw.load(fromByteOffset: at * 8, as: Double.self) * 32768)))
    default: return 0
    }
  }

  private static func clip(_ value: Int64) -> Int16 {
    Int16(max(Int64(Int16.min), min(Int64(Int16.max), value)))
  }
}
