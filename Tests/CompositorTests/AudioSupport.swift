import Composition
import Foundation
import MediaCore
import Testing

@testable import Compositor

/// What the audio tests share (a namespace, so the video tests' helpers in this target never
/// collide): the ffmpeg CLI (the oracle and the fixtures' maker), the fixtures made by
/// construction, tone measurement, plans from documents.
enum AudioKit {
  /// The output rate every test mixes at.
  static let rate = 48_000

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Runs `tool` with `arguments` (the target's `run`); stdout's bytes, or a thrown `Failure`
  /// with stderr.
  @discardableResult
  static func run(_ tool: String, _ arguments: [String]) throws -> Data {
    let result = try CompositorTests.run(tool, arguments)
    guard result.status == 0 else { throw Failure(description: "\(tool): \(result.stderr)") }
    return result.stdout
  }

  /// The ffmpeg CLI, quiet.
  @discardableResult
  static func ffmpeg(_ arguments: [String]) throws -> Data {
    try run("ffmpeg", ["-v", "error", "-nostdin", "-y"] + arguments)
  }

  /// The fixtures' folder for this test process (removed at exit).
  static let directory: String = {
    let path = NSTemporaryDirectory() + "compositor-audio-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: AudioKit.directory) }
    return path
  }()

  private static let lock = NSLock()

  /// Makes `name` in the fixtures' folder with the ffmpeg CLI once (`arguments` gets the path).
  static func make(_ name: String, _ arguments: (String) -> [String]) -> String {
    lock.lock()
    defer { lock.unlock() }
    let path = directory + "/" + name
    if !FileManager.default.fileExists(atPath: path) {
      let partial = directory + "/partial-" + name
      do {
        try ffmpeg(arguments(partial))
        try FileManager.default.moveItem(atPath: partial, toPath: path)
      } catch {
        fatalError("fixture \(name): \(error)")
      }
    }
    return path
  }

  /// A 64x48 video at 10 fps lasting `seconds`, with (unless `frequency` is nil) a sine of
  /// `frequency` Hz at amplitude 1/8 (lavfi `sine`), `rate` Hz, `channels` channels, PCM
  /// (lossless, so the oracle compares mixing, not a codec) in Matroska.
  static func clip(
    _ name: String, seconds: Int, frequency: Int?, rate: Int = 48_000, channels: Int = 1
  ) -> String {
    make(name) { path in
      var arguments = [
        "-f", "lavfi", "-i", "color=c=red:size=64x48:rate=10:duration=\(seconds)",
      ]
      if let frequency {
        arguments += [
          "-f", "lavfi", "-i",
          "sine=frequency=\(frequency):sample_rate=\(rate):duration=\(seconds)",
          "-af", upmix(channels), "-c:a", "pcm_s16le",
        ]
      }
      return arguments + ["-c:v", "mpeg4", "-q:v", "5", path]
    }
  }

  /// An audio file: a sine of `frequency` Hz (amplitude 1/8) for `seconds`, `rate` Hz,
  /// `channels` channels, 16-bit WAV.
  static func tone(_ name: String, seconds: Double, frequency: Int, rate: Int, channels: Int = 1)
    -> String
  {
    make(name) { path in
      [
        "-f", "lavfi", "-i", "sine=frequency=\(frequency):sample_rate=\(rate):duration=\(seconds)",
        "-af", upmix(channels), "-c:a", "pcm_s16le", path,
      ]
    }
  }

  /// The mono sine copied into `channels` channels at its own level (`-ac 2` would pan it at
  /// -3 dB).
  static func upmix(_ channels: Int) -> String {
    channels == 1
      ? "anull" : "pan=\(channels)c|" + (0..<channels).map { "c\($0)=c0" }.joined(separator: "|")
  }

  /// Source facts by construction: `seconds` long, 64x48 at 10 fps.
  static func video(_ seconds: String, audio: Bool = true) -> SourceFacts {
    .video(
      duration: ExactNumber.parse(seconds)!.time, width: 64, height: 48,
      frameRate: Rational(10, 1), hasAudio: audio)
  }

  /// The plan of a document (JSON text) whose sources are in the fixtures' folder, with facts
  /// given by construction.
  static func plan(_ json: String, _ facts: [String: SourceFacts]) throws -> CompositionPlan {
    let document = try CompositionDocument.decode(json: Array(json.utf8))
    let resolver = CompositionResolver(baseDirectory: directory) { path in
      let name = String(path.split(separator: "/").last ?? "")
      guard let known = facts[name] else { throw Failure(description: "no facts for \(path)") }
      return known
    }
    return try resolver.resolve(document)
  }

  /// Every sample of `plan`'s audio, planar, mixed in blocks of `block`.
  static func render(
    _ plan: CompositionPlan, channels: Int = 2, block: Int = 1024
  ) throws -> (samples: [[Float]], audio: CompositionAudio) {
    let audio = try CompositionAudio(plan: plan, sampleRate: rate, channelCount: channels)
    var samples = Array(repeating: [Float](), count: channels)
    var expectedStart: Int64 = 0
    while let next = try audio.next(maxSamples: block) {
      #expect(next.start == expectedStart)
      expectedStart += Int64(next.channels[0].count)
      for channel in 0..<channels { samples[channel] += next.channels[channel] }
    }
    return (samples, audio)
  }

  /// The amplitude of the `frequency` Hz component of `samples[from ..< from + count]` (a DFT
  /// bin, Goertzel's recurrence): a full window of a sine of amplitude A gives A.
  static func amplitude(
    _ samples: [Float], frequency: Double, from: Int, count: Int, rate: Int = rate
  ) -> Double {
    let w = 2 * Double.pi * frequency / Double(rate)
    var (re, im) = (0.0, 0.0)
    for i in 0..<count {
      let x = Double(samples[from + i])
      re += x * cos(w * Double(i))
      im -= x * sin(w * Double(i))
    }
    return 2 * (re * re + im * im).squareRoot() / Double(count)
  }

  /// The amplitude of `frequency` in the 100 ms window centred on `seconds`.
  static func level(_ samples: [Float], _ frequency: Double, at seconds: Double) -> Double {
    let count = rate / 10
    let from = Int((seconds * Double(rate)).rounded()) - count / 2
    return amplitude(samples, frequency: frequency, from: from, count: count)
  }

  /// Interleaved float samples the ffmpeg CLI gives for `arguments` (inputs and a filter graph
  /// ending at the output's rate), as planar channels.
  static func ffmpegSamples(_ arguments: [String], channels: Int) throws -> [[Float]] {
    let data = try ffmpeg(arguments + ["-f", "f32le", "-ar", "\(rate)", "-"])
    var planar = Array(repeating: [Float](), count: channels)
    data.withUnsafeBytes { raw in
      let floats = raw.bindMemory(to: Float.self)
      for channel in 0..<channels { planar[channel].reserveCapacity(floats.count / channels) }
      for (index, value) in floats.enumerated() { planar[index % channels].append(value) }
    }
    return planar
  }
}
