import AV
/// Builds RIFF/WAVE and RF64 headers byte by byte, following FFmpeg 5.1's `wavenc.c` and
/// `ff_put_wav_header`, so our files equal `ffmpeg -fflags +bitexact` output where the rules
/// coincide.
public struct WAVHeader: Sendable, Equatable {
  /// The PCM layout described by the header.
  public var format: PCMFormat
  /// Reserve a 28-byte `JUNK` chunk after `WAVE` that can become `ds64` (RF64) at the end.
  public var reservesRF64: Bool
  /// Write a `fact` chunk (float data on seekable output, as FFmpeg does).
  public var hasFact: Bool

  /// The header for `format`.
  ///
  /// - Parameters:
  ///   - reservesRF64: keep room for a `ds64` chunk (needed when the data may pass 4 GiB).
  ///   - seekable: whether sizes can be patched at the end; non-seekable output gets no `fact`.
  public init(format: PCMFormat, reservesRF64: Bool, seekable: Bool) {
    self.format = format
    self.reservesRF64 = reservesRF64
    self.hasFact = format.encoding.isFloat && seekable
  }

  /// WAVE_FORMAT_EXTENSIBLE is needed when the layout is neither mono nor stereo, the rate is
  /// above 48 kHz, or samples have more than 16 bits (FFmpeg 5.1's rule).
  public var isExtensible: Bool {
    let monoOrStereo =
      (format.channels == 1 && format.channelMask == 0x4)
      || (format.channels == 2 && format.channelMask == 0x3)
    return !monoOrStereo || format.sampleRate > 48000 || format.encoding.bits > 16
  }

  /// Size of the `fmt ` chunk's payload: 16, or 40 for WAVE_FORMAT_EXTENSIBLE.
  var formatChunkSize: Int { isExtensible ? 40 : 16 }

  /// Total header size: where the sample data starts.
  public var size: Int {
    12 + (reservesRF64 ? 36 : 0) + 8 + formatChunkSize + (hasFact ? 12 : 0) + 8
  }

  /// Offset of the `JUNK`/`ds64` chunk's id.
  var rf64ChunkOffset: Int { 12 }
  /// Offset of the `fact` chunk's sample count.
  var factCountOffset: Int { 12 + (reservesRF64 ? 36 : 0) + 8 + formatChunkSize + 8 }
  /// Offset of the `data` chunk's size field.
  var dataSizeOffset: Int { size - 4 }

  /// The header bytes for `dataSize` bytes of samples.
  ///
  /// - Parameters:
  ///   - dataSize: bytes of sample data, or nil for "unknown" (streaming): sizes 0xFFFFFFFF.
  ///   - rf64: write `RF64`/`ds64` with 64-bit sizes (needs `reservesRF64`).
  public func bytes(dataSize: UInt64?, rf64: Bool = false) -> [UInt8] {
    precondition(!rf64 || reservesRF64, "RF64 needs the reserved chunk")
    var out = ByteWriter()
    let padded = dataSize.map { $0 + ($0 & 1) }
    let riffSize = padded.map { UInt64(size - 8) + $0 }
    let frames = dataSize.map { $0 / UInt64(format.blockAlign) }

    out.fourCC(rf64 ? "RF64" : "RIFF")
    out.u32(rf64 ? .max : riffSize.map(Self.clamped) ?? .max)
    out.fourCC("WAVE")
    if reservesRF64 {
      out.fourCC(rf64 ? "ds64" : "JUNK")
      out.u32(28)
      if rf64 {
        out.u64(riffSize ?? 0)
        out.u64(dataSize ?? 0)
        out.u64(frames ?? 0)
        out.u32(0)  // no table
      } else {
        out.zeros(28)
      }
    }

    out.fourCC("fmt ")
    out.u32(UInt32(formatChunkSize))
    out.u16(isExtensible ? 0xFFFE : format.encoding.formatTag)
    out.u16(UInt16(format.channels))
    out.u32(UInt32(format.sampleRate))
    out.u32(UInt32(format.byteRate))
    out.u16(UInt16(format.blockAlign))
    out.u16(UInt16(format.encoding.bits))
    if isExtensible {
      out.u16(22)  // cbSize
      out.u16(UInt16(format.encoding.bits))  // valid bits per sample
      out.u32(UInt32(truncatingIfNeeded: format.channelMask))
      // SubFormat GUID {tag-0000-0010-8000-00AA00389B71}
      out.u16(format.encoding.formatTag)
      out.append([
        0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71,
      ])
    }
    if hasFact {
      out.fourCC("fact")
      out.u32(4)
      out.u32(rf64 ? .max : frames.map(Self.clamped) ?? 0)
    }
    out.fourCC("data")
    out.u32(rf64 ? .max : dataSize.map(Self.clamped) ?? .max)
    assert(out.bytes.count == size)
    return out.bytes
  }

  /// True when a file with `dataSize` bytes of samples needs RF64: its RIFF size would not fit
  /// in 32 bits (FFmpeg's `-rf64 auto` rule).
  public func needsRF64(dataSize: UInt64, limit: UInt64 = UInt64(UInt32.max)) -> Bool {
    UInt64(size - 8) + dataSize + (dataSize & 1) > limit
  }

  private static func clamped(_ value: UInt64) -> UInt32 { UInt32(min(value, UInt64(UInt32.max))) }
}

/// Little-endian byte building.
struct ByteWriter {
  var bytes: [UInt8] = []

  mutating func append(_ more: [UInt8]) { bytes += more }
  mutating func fourCC(_ text: String) { bytes += Array(text.utf8) }
  mutating func zeros(_ count: Int) { bytes += [UInt8](repeating: 0, count: count) }
  mutating func u16(_ value: UInt16) { bytes += [UInt8(value & 0xFF), UInt8(value >> 8)] }
  mutating func u32(_ value: UInt32) {
    for shift in stride(from: 0, to: 32, by: 8) {
      bytes.append(UInt8(truncatingIfNeeded: value >> shift))
    }
  }
  mutating func u64(_ value: UInt64) {
    for shift in stride(from: 0, to: 64, by: 8) {
      bytes.append(UInt8(truncatingIfNeeded: value >> shift))
    }
  }
}
