// The render engine's benchmark driver (Scripts/bench.sh render): runs Render's Transcoder or
// Remuxer on one file with settings stated on the command line, as the ffmpeg command the
// benchmark compares with does. Declared in Package.swift only when MEDIATOOLS_BENCH is set, so
// ordinary builds never compile it; not a tool.
//
//   render-bench transcode IN OUT [--preset P] [--crf N] [--threads N] [--sample-rate HZ]
//                                 [--channels N] [--container C] [--faststart] [--trim]
//   render-bench remux IN OUT [--container C] [--faststart]
//   render-bench looks DOC.json [--matrix M]   prints the libavfilter chain the compositor runs
//                                              for the first clip's looks (LookFilters), for
//                                              `ffmpeg -vf` to run the same filters
import AV
import Compositor
import MediaCore
import OutputKit
import Render

#if canImport(Glibc)
  import Glibc
#endif

func fail(_ message: String) -> Never {
  let text = "render-bench: \(message)\n"
  _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
  exit(1)
}

/// The value after `flag`, if given.
func option(_ flag: String, in arguments: [String]) -> String? {
  guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else {
    return nil
  }
  return arguments[index + 1]
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "looks", arguments.count >= 2 {
  do {
    let plan = try CompositionLoader.load(arguments[1]).plan
    guard let looks = plan.segments.first?.looks, !looks.isEmpty else {
      fail("the first clip has no looks")
    }
    print(
      try LookFilters.chain(
        looks, matrix: option("--matrix", in: arguments) ?? "bt709", fullRange: false,
        width: plan.render.width, height: plan.render.height))
    exit(0)
  } catch {
    fail("\(error)")
  }
}
guard arguments.count >= 3, ["transcode", "remux"].contains(arguments[0]) else {
  fail("usage: render-bench transcode|remux IN OUT [options]")
}
FFmpegLogLevel.error.apply()
let (path, destination) = (arguments[1], arguments[2])
let container = option("--container", in: arguments) ?? "mp4"
let muxerOptions = arguments.contains("--faststart") ? ["movflags": "+faststart"] : [:]
do {
  let input = try Transcoder.open(.file(path))
  let output: OutputFile
  do {
    output = try OutputFile(.file(path: destination, overwrite: true), sync: false)
  } catch {
    throw RenderError.output(path: destination, error)
  }
  let report: RenderReport
  if arguments[0] == "remux" {
    report = try Remuxer.run(
      input: input, output: output, name: destination, container: container,
      muxerOptions: muxerOptions)
  } else {
    let threads = option("--threads", in: arguments).flatMap(Int.init) ?? 0
    var video = VideoEncoding()
    video.encoder.preset = option("--preset", in: arguments)
    if let crf = option("--crf", in: arguments).flatMap(Double.init) {
      video.encoder.rateControl = .constantQuality(crf)
    }
    video.encoder.threads = threads
    var audio = AudioEncoding()
    audio.encoder.threads = threads
    if let rate = option("--sample-rate", in: arguments).flatMap(Int.init) {
      audio.encoder.sampleRate = rate
    }
    if let channels = option("--channels", in: arguments).flatMap(Int32.init) {
      audio.encoder.channelLayout = ChannelLayout(defaultFor: channels)
    }
    let settings = RenderSettings(
      streams: RenderSettings.firstStreams(
        of: input, video: .encodeVideo(video), audio: .encodeAudio(audio)),
      container: container, muxerOptions: muxerOptions, filterThreads: threads,
      trimToStreamDuration: arguments.contains("--trim"))
    report = try Transcoder.run(
      input: input, output: output, name: destination, settings: settings)
  }
  do { try output.commit() } catch { throw RenderError.output(path: destination, error) }
  for stream in report.streams {
    print(
      "stream \(stream.input) -> \(stream.output): \(stream.encoder ?? "copy"),"
        + " \(stream.packets) packets, \(stream.frames) frames, \(stream.samples) samples")
  }
} catch let error as RenderError {
  fail("\(error.message) [\(error.code)]")
} catch {
  fail("\(error)")
}
