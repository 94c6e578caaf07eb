import AV
import MediaCore
import OutputKit

#if canImport(Glibc)
  import Glibc
#endif

/// The image formats pictures are written in, chosen by the output's extension.
public enum ImageKind: String, Sendable, CaseIterable, Codable {
  /// JPEG (JFIF, FFmpeg's `mjpeg` encoder, 4:2:0 full-range BT.601 Y'CbCr).
  case jpeg
  /// PNG (FFmpeg's `png` encoder, 8-bit RGB, lossless).
  case png
  /// WebP (libwebp through FFmpeg's `libwebp` encoder, lossy, 4:2:0).
  case webp

  /// The kind a file name's extension says (`.jpg`, `.jpeg`, `.png`, `.webp`, any case); nil
  /// for anything else.
  public init?(path: String) {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    guard let dot = name.lastIndex(of: ".") else { return nil }
    switch name[name.index(after: dot)...].lowercased() {
    case "jpg", "jpeg": self = .jpeg
    case "png": self = .png
    case "webp": self = .webp
    default: return nil
    }
  }
}

/// Encodes pictures as JPEG, PNG or WebP and writes them atomically (`OutputFile`: an unnamed
/// file linked under its name when complete; nothing is left on failure).
public enum ImageWriter {
  /// The encoded bytes of `picture` as `kind`.
  ///
  /// `quality` (1-100, default 90) is libwebp's quality for WebP; for JPEG it maps onto mjpeg's
  /// quantizer as q = 2 + (100 - quality) * 29 / 99, rounded (100 → 2, the best; 1 → 31); PNG
  /// is lossless and takes none.
  ///
  /// - Throws: `FrameError.encoder` or `.filter` (the conversion to the encoder's format).
  public static func encode(_ picture: Picture, as kind: ImageKind, quality: Int? = nil)
    throws(FrameError) -> [UInt8]
  {
    if kind == .webp && max(picture.width, picture.height) > 16383 {
      // WebP stores each side in 14 bits; libwebp only said "Invalid argument".
      throw .encoder(
        "libwebp",
        FFmpegError(
          code: -22,
          message: "a WebP picture is at most 16383 pixels a side, not \(picture.width)x"
            + "\(picture.height): use --max-size, or .jpg or .png"))
    }
    let quality = Double(min(100, max(1, quality ?? 90)))
    let (encoder, pixelFormat, matrix, range, rate):
      (String, PixelFormat, ColorMatrix, ColorRange, EncoderSettings.RateControl) =
        switch kind {
        case .jpeg:
          (
            "mjpeg", PixelFormat(name: "yuvj420p")!, .bt470bg, .full,
            .quantizer((2 + (100 - quality) * 29 / 99).rounded())
          )
        case .png: ("png", .rgb24, .rgb, .full, .encoderDefault)
        case .webp: ("libwebp", .yuv420p, .bt470bg, .limited, .quantizer(quality))
        }
    let frame: Frame
    do {
      let rgb = try Frame.video(
        width: picture.width, height: picture.height, pixelFormat: .rgb24)
      let rowBytes = picture.width * 3
      picture.pixels.withUnsafeBytes { source in
        for row in 0..<picture.height {
          rgb.withRow(row) { line in
            line.baseAddress!.copyMemory(
              from: source.baseAddress!.advanced(by: row * rowBytes), byteCount: rowBytes)
          }
        }
      }
      if pixelFormat == .rgb24 {
        frame = rgb
      } else {
        let scaler = try Scaler(
          from: ImageFormat(width: picture.width, height: picture.height, pixelFormat: .rgb24),
          to: ImageFormat(
            width: picture.width, height: picture.height, pixelFormat: pixelFormat,
            matrix: matrix, range: range),
          interpolation: .bicubic, accurate: true)
        frame = try scaler.scale(rgb)
      }
    } catch {
      throw .filter("cannot convert the picture for the \(encoder) encoder", error)
    }
    frame.pts = 0
    var color = ColorTags.unspecified
    color.matrix = matrix
    color.range = range
    frame.color = color
    var bytes: [UInt8] = []
    do {
      let codec = try CodecEncoder(
        video: EncoderSettings.Video(
          encoder: encoder, width: picture.width, height: picture.height,
          frameRate: Rational(1, 1)!, pixelFormat: pixelFormat, color: color,
          rateControl: rate, threads: 1),
        globalHeader: false)
      let packet = Packet()
      try codec.encode(frame, into: packet) { packet throws(FFmpegError) in
        bytes += packet.bytes
      }
      try codec.encode(nil, into: packet) { packet throws(FFmpegError) in bytes += packet.bytes }
    } catch {
      throw .encoder(encoder, error)
    }
    guard !bytes.isEmpty else {
      throw .encoder(encoder, FFmpegError(code: -22, message: "the encoder wrote nothing"))
    }
    return bytes
  }

  /// Writes `bytes` to `path` atomically: nothing appears under the name until the whole file
  /// is written (and synced, with `sync`).
  ///
  /// - Throws: `FrameError.output` (`output_exists` without `overwrite`, `write_error`).
  public static func write(_ bytes: [UInt8], to path: String, overwrite: Bool, sync: Bool)
    throws(FrameError)
  {
    let file: OutputFile
    do { file = try OutputFile(.file(path: path, overwrite: overwrite), sync: sync) } catch {
      throw .output(error)
    }
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { buffer in
        SystemCall.retryingOnInterrupt {
          Glibc.write(file.fd, buffer.baseAddress! + offset, buffer.count - offset)
        }
      }
      if written <= 0 {
        throw .output(
          .write(OutputError(code: written < 0 ? errno : EIO, action: "writing \(path)")))
      }
      offset += written
    }
    do { try file.commit() } catch { throw .output(error) }
  }
}
