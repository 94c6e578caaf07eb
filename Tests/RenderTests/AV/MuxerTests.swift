import AV
import Foundation
import MediaCore
import OutputKit
import Render
import Testing

/// The muxer's I/O on an `OutputFile`, its stops and its refusals.
@Suite struct MuxerTests {
  /// faststart works with a name that cannot be opened (a directory that does not exist): the
  /// muxer's second pass reads the descriptor back, never a path.
  @Test func faststartNeverOpensAPath() throws {
    let path = try writeOutput("faststart-fd.mp4") { file, _ in
      _ = try Remuxer.run(
        input: open(Fixtures.clip), output: file, name: "/nonexistent-\(getpid())/out.mp4")
    }
    #expect(try isFaststart(path))
    let check = try run("ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"])
    #expect(check.status == 0 && check.stderr.isEmpty, "\(check.stderr)")
  }

  /// Formats that write files of their own, unknown formats and unknown options are refused;
  /// nothing is written.
  @Test func refusals() throws {
    let path = Fixtures.output("refused.mp4")
    let file = try OutputFile(.file(path: path, overwrite: false), sync: false)
    let segment = #expect(throws: FFmpegError.self) {
      _ = try Muxer(format: "segment", output: file, name: "x")
    }
    #expect(segment?.posixErrno == EINVAL)
    #expect(throws: FFmpegError.self) {
      _ = try Muxer(format: "nosuchformat", output: file, name: "x")
    }
    let muxer = try Muxer(format: "mp4", output: file, name: path)
    let encoder = try CodecEncoder(audio: EncoderSettings.Audio(), globalHeader: true)
    try muxer.addStream(for: encoder)
    let error = #expect(throws: FFmpegError.self) {
      try muxer.writeHeader(options: ["movflags": "+faststart", "nosuchoption": "1"])
    }
    #expect(error?.isOptionNotFound == true)
    #expect(error?.message.contains("nosuchoption") == true)
    #expect(!FileManager.default.fileExists(atPath: path))
  }

  /// Where `stopsWhenAsked` starts refusing.
  enum StopPoint: CaseIterable, Sendable {
    /// Every transfer after the first (the header's).
    case afterFirstTransfer
    /// From the trailer on.
    case atTrailer
    /// Once the trailer has written something: faststart's second pass (reading the file back
    /// and moving the media data) is refused.
    case duringFaststart
  }

  /// `shouldStop` stops the writes, also faststart's second pass at the end (the moment a long
  /// render spends rewriting the whole file): `AVERROR_EXIT`, the muxer knows it was stopped,
  /// and the output was not committed.
  @Test(arguments: StopPoint.allCases)
  func stopsWhenAsked(at point: StopPoint) throws {
    let path = Fixtures.output("stopped-\(point).mp4")
    let file = try OutputFile(.file(path: path, overwrite: false), sync: false)
    final class State: @unchecked Sendable {
      var calls = 0
      var trailerStart: Int64?
      weak var muxer: Muxer?
    }
    let state = State()
    let muxer = try Muxer(format: "mp4", output: file, name: path) {
      state.calls += 1
      switch point {
      case .afterFirstTransfer: return state.calls > 1
      case .atTrailer: return state.trailerStart != nil
      case .duringFaststart:
        guard let start = state.trailerStart, let muxer = state.muxer else { return false }
        return muxer.bytesWritten > start
      }
    }
    state.muxer = muxer
    let encoder = try CodecEncoder(audio: EncoderSettings.Audio(), globalHeader: true)
    let stream = try muxer.addStream(for: encoder)
    let packet = Packet()
    let silence = try Frame.audio(
      sampleCount: 1024, format: .fltp, layout: .stereo, sampleRate: 48000)
    for channel in 0..<2 {
      _ = silence.withSamples(channel: channel) {
        $0.initializeMemory(as: UInt8.self, repeating: 0)
      }
    }
    var thrown: FFmpegError?
    do {
      try muxer.writeHeader(options: ["movflags": "+faststart"])
      for index in 0..<200 {
        silence.pts = Int64(index * 1024)
        try encoder.encode(silence, into: packet) { packet throws(FFmpegError) in
          try muxer.write(packet, stream: stream, timeBase: encoder.timeBase)
        }
      }
      try encoder.encode(nil, into: packet) { packet throws(FFmpegError) in
        try muxer.write(packet, stream: stream, timeBase: encoder.timeBase)
      }
      state.trailerStart = muxer.bytesWritten
      try muxer.finish()
    } catch {
      thrown = error
    }
    #expect(thrown?.isExit == true, "\(String(describing: thrown))")
    #expect(muxer.stopped)
    #expect(muxer.writeFailure == nil)
    #expect(!FileManager.default.fileExists(atPath: path))
  }
}
