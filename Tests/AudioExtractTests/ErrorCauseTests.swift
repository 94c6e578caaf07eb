import AV
import MediaCore
import OutputKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Errors keep their cause through the layers: the stable code is the domain's, the FFmpeg
/// error or `errno` underneath travels whole (issue 21).
@Suite struct ErrorCauseTests {
  @Test func writeErrorsKeepTheirErrno() {
    let failure = OutputError(code: ENOSPC, action: "writing the output")
    let error = ExtractError.output(.write(failure))
    #expect(error.code == "write_error")
    #expect(
      error.cause == ErrorCause(domain: .posix, code: ENOSPC, description: failure.description))
    #expect(OutputFileError.exists("x").cause == nil)
  }

  @Test func decoderErrorsKeepTheFFmpegError() {
    let ffmpeg = FFmpegError(code: -0x434544F8)  // AVERROR_DECODER_NOT_FOUND
    let error = ExtractError.decoder(ffmpeg.message, ffmpeg)
    #expect(error.code == "decoder_error")
    #expect(error.cause?.domain == .ffmpeg)
    #expect(error.cause?.code == -0x434544F8)
    #expect(ExtractError.input(.readError(detail: "x", cause: ffmpeg.cause)).cause == ffmpeg.cause)
  }
}
