import CFFmpeg
import CFFmpeg.Scale
import MediaCore

/// A picture format a scaler converts from or to: size, pixel format, and how Y'CbCr codes map
/// to R'G'B' (stated, never guessed: libswscale's default is BT.601 limited whatever the
/// frame's tags say).
package struct ImageFormat: Sendable, Hashable {
  /// Width in pixels.
  package var width: Int
  /// Height in pixels.
  package var height: Int
  /// The pixel format.
  package var pixelFormat: PixelFormat
  /// The Y'CbCr matrix (ignored for R'G'B' formats).
  package var matrix: ColorMatrix
  /// Limited or full range (ignored for R'G'B' formats, which are always full).
  package var range: ColorRange

  /// A format stated one by one.
  package init(
    width: Int, height: Int, pixelFormat: PixelFormat, matrix: ColorMatrix = .bt709,
    range: ColorRange = .limited
  ) {
    self.width = width
    self.height = height
    self.pixelFormat = pixelFormat
    self.matrix = matrix
    self.range = range
  }
}

/// libswscale's functions, loaded with dlopen the first time a scaler is made (as libavfilter's:
/// linked, it cost every tool's start 0.1-0.2 ms, measured); never closed.
private let libswscale: Result<mt_swscale, FFmpegError> = {
  var api = mt_swscale()
  var error = [CChar](repeating: 0, count: 512)
  guard mt_swscale_load(&api, &error, error.count) == 0 else {
    return .failure(
      FFmpegError(
        code: mt_averror(ENOSYS),
        message: "libswscale could not be loaded: \(String(cBuffer: error))"))
  }
  return .success(api)
}()

/// A libswscale context (`SwsContext`) converting pictures from one `ImageFormat` to another,
/// freed with `sws_freeContext`. Loads libswscale on first use.
package final class Scaler {
  private let api: mt_swscale
  private let context: OpaquePointer
  /// What the scaler takes.
  package let source: ImageFormat
  /// What the scaler makes.
  package let destination: ImageFormat

  /// How pixels are interpolated when the size changes.
  package enum Interpolation: Sendable {
    /// Nearest neighbour (no new values: for pixel-exact tests and pixel art).
    case nearest
    /// Bilinear.
    case bilinear
    /// Bicubic (the ffmpeg CLI's default).
    case bicubic
    /// Lanczos.
    case lanczos

    var flags: Int32 {
      switch self {
      case .nearest: SWS_POINT
      case .bilinear: SWS_BILINEAR
      case .bicubic: SWS_BICUBIC
      case .lanczos: SWS_LANCZOS
      }
    }
  }

  /// A scaler from `source` to `destination`.
  ///
  /// - Parameters:
  ///   - interpolation: how sizes change.
  ///   - accurate: exact rounding and full chroma interpolation (`SWS_ACCURATE_RND`,
  ///     `SWS_FULL_CHR_H_INT`, `SWS_FULL_CHR_H_INP`): slower, and what pixel checks need.
  /// - Throws: `FFmpegError`: `EINVAL` when libswscale cannot convert between the two,
  ///   `ENOSYS` when it cannot be loaded.
  package init(
    from source: ImageFormat, to destination: ImageFormat,
    interpolation: Interpolation = .bicubic, accurate: Bool = false
  ) throws(FFmpegError) {
    let api: mt_swscale
    switch libswscale {
    case .success(let loaded): api = loaded
    case .failure(let error): throw error
    }
    var flags = interpolation.flags
    if accurate { flags |= SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP }
    guard
      let context = api.get_context(
        Int32(source.width), Int32(source.height), source.pixelFormat.av,
        Int32(destination.width), Int32(destination.height), destination.pixelFormat.av,
        flags, nil, nil, nil)
    else {
      throw FFmpegError(
        code: mt_averror(EINVAL),
        message: "libswscale cannot convert \(source.pixelFormat) \(source.width)x"
          + "\(source.height) to \(destination.pixelFormat) \(destination.width)x"
          + "\(destination.height)")
    }
    self.api = api
    self.context = context
    self.source = source
    self.destination = destination
    // The matrix and range, stated: libswscale uses them for Y'CbCr <-> R'G'B' (and for
    // Y'CbCr <-> Y'CbCr between different matrices, through R'G'B').
    let result = api.set_colorspace_details(
      context, api.get_coefficients(Self.coefficients(source.matrix)),
      source.range == .full ? 1 : 0, api.get_coefficients(Self.coefficients(destination.matrix)),
      destination.range == .full ? 1 : 0, 0, 1 << 16, 1 << 16)
    if result < 0 {
      throw FFmpegError(code: mt_averror(EINVAL), message: "libswscale refused the colour details")
    }
  }

  deinit { api.free_context(context) }

  /// libswscale's `SWS_CS_*` for a matrix (the values follow `AVColorSpace`; unspecified is
  /// BT.601, as libswscale assumes).
  private static func coefficients(_ matrix: ColorMatrix) -> Int32 {
    switch matrix.av {
    case AVCOL_SPC_BT709: SWS_CS_ITU709
    case AVCOL_SPC_FCC: SWS_CS_FCC
    case AVCOL_SPC_SMPTE240M: SWS_CS_SMPTE240M
    case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: SWS_CS_BT2020
    default: SWS_CS_ITU601
    }
  }

  /// Converts `frame` into a new frame of the destination format; timestamps and other
  /// properties are copied, and the colour tags set to what the scaler made.
  ///
  /// - Throws: `FFmpegError` when `frame` is not of the source's size and format, or memory runs
  ///   out.
  package func scale(_ frame: Frame) throws(FFmpegError) -> Frame {
    let output = Frame()
    try scale(frame, into: output)
    return output
  }

  /// Converts `frame` into `output` (its old contents are dropped).
  ///
  /// - Throws: `FFmpegError` when `frame` is not of the source's size and format, or memory runs
  ///   out.
  package func scale(_ frame: Frame, into output: Frame) throws(FFmpegError) {
    guard frame.width == source.width, frame.height == source.height,
      frame.pixelFormat == source.pixelFormat
    else {
      throw FFmpegError(
        code: mt_averror(EINVAL),
        message: "the scaler takes \(source.pixelFormat) \(source.width)x\(source.height), "
          + "not \(frame.pixelFormat?.name ?? "none") \(frame.width)x\(frame.height)")
    }
    output.unref()
    output.pointer.pointee.width = Int32(destination.width)
    output.pointer.pointee.height = Int32(destination.height)
    output.pointer.pointee.format = destination.pixelFormat.rawValue
    try check(av_frame_get_buffer(output.pointer, 0))
    try check(av_frame_copy_props(output.pointer, frame.pointer))
    try check(api.scale_frame(context, output.pointer, frame.pointer))
    var color = frame.color
    color.matrix = destination.matrix
    color.range = destination.range
    if destination.pixelFormat.isRGB {
      color.matrix = .rgb
      color.range = .full
    }
    output.color = color
  }
}
