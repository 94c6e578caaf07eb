import AV
import Foundation
import FrameGrab
import Testing

/// The posters' decoders and libdav1d's frame threads: Debian's dav1d 1.0.0 deadlocked in them
/// on a damaged AV1 file (Tests/Regressions/av1_frame_threads_hang.mp4: the release build's
/// poster hung in `dav1d_send_data` in 5 of 8 runs idle, 8 of 8 with both cores busy, and in 0
/// of 30 with one frame at a time), so the grabber asks libdav1d for one frame at a time; an
/// H.264 decoder is left as it is (its low-delay flag would change what it outputs).
@Suite struct DecoderThreadingTests {
  func decoder(_ path: String, oneFrameAtATime: Bool) throws -> CodecDecoder {
    let input = try InputOpener.open(.file(path), options: OpenOptions())
    let videos = input.streams.indices.filter { input.streams[$0].isVideo }
    let index = try #require(videos.first)
    return try input.view(index).openDecoder(threads: 0, oneFrameAtATime: oneFrameAtATime)
  }

  @Test func libdav1dDecodesOneFrameAtATime() throws {
    let av1 = sharedFixture("compat_10_av1_1080p.mp4")
    #expect(try decoder(av1, oneFrameAtATime: true).decodesOneFrameAtATime)
    #expect(try !decoder(av1, oneFrameAtATime: false).decodesOneFrameAtATime)
    let names = try FileManager.default.contentsOfDirectory(
      atPath: packageRoot.path + "/Tests/Fixtures")
    let h264 = try #require(names.first { $0.hasPrefix("h264") && $0.hasSuffix(".mp4") })
    #expect(try !decoder(sharedFixture(h264), oneFrameAtATime: true).decodesOneFrameAtATime)
  }

  /// The damaged file's poster ends, three times (each hang-prone run was a deadlock).
  @Test func theDamagedAV1PosterEnds() throws {
    let path = packageRoot.appendingPathComponent("Tests/Regressions/av1_frame_threads_hang.mp4")
      .path
    for _ in 0..<3 {
      let grabber = try FrameGrabber(
        source: .file(path), options: OpenOptions(), cover: false, threads: 0)
      _ = try? grabber.frame(at: 0.5)
    }
  }
}
