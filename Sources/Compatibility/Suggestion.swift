import MediaProbe

/// An ffmpeg command that should make a file pass on a platform: copy what already plays, remux
/// or retag where that is enough, re-encode only the streams that need it.
public struct Suggestion: Codable, Sendable, Equatable {
  /// The command as one shell line (arguments quoted).
  public var command: String
  /// The same command as an argument list (for scripts that run it without a shell).
  public var arguments: [String]
  /// The output path the command writes.
  public var output: String

  /// Builds the command for `info` (probed at `path`) from the verdict's findings and the
  /// platform's transcode recipe; nil when the file already passes.
  ///
  /// - Parameter output: where the command should write; default: next to the input,
  ///   `NAME.PLATFORM.EXT`.
  public init?(
    for info: MediaInfo, verdict: PlatformVerdict, platform: Platform, output: String? = nil
  ) {
    guard verdict.verdict == .fail else { return nil }
    let facts = CompatFacts(info)
    let recipe = platform.transcode
    let failing = verdict.findings.filter { $0.severity == .fail }
    let transcodeVideo = failing.contains { $0.fix == .transcodeVideo }
    let transcodeAudio = failing.contains { $0.fix == .transcodeAudio }
    let containerFails = failing.contains { $0.field == "container" }
    let tagFails = failing.contains { $0.field == "video.tag" }

    let stem = info.path.split(separator: "/").last.map(String.init) ?? info.path
    let base = stem.lastIndex(of: ".").map { String(stem[..<$0]) } ?? stem
    let directory = info.path.lastIndex(of: "/").map { String(info.path[...$0]) } ?? ""
    let currentExtension =
      stem.lastIndex(of: ".").map { String(stem[stem.index(after: $0)...]) } ?? recipe.container
    let fileExtension = containerFails || transcodeVideo ? recipe.container : currentExtension
    let target = output ?? "\(directory)\(base).\(platform.id).\(fileExtension)"

    var arguments = [
      "ffmpeg", "-nostdin", "-i", info.path,
    ]
    // Exactly the streams the verdict was about (never cover art, subtitles or data).
    if let index = facts.videoIndex { arguments += ["-map", "0:\(index)"] }
    if let index = facts.audioIndex { arguments += ["-map", "0:\(index)"] }
    if facts.hasVideo {
      if transcodeVideo {
        arguments += recipe.video
        var filters: [String] = []
        if case .flag(true) = facts.values["video.interlaced"] { filters.append("yadif") }
        if let box = recipe.maxSize, box.count == 2,
          case .size(let width, let height) = facts.values["video.size"]
        {
          // ffmpeg rotates before filtering, so the box follows the clip's display orientation.
          let (boxWidth, boxHeight) = width >= height ? (box[0], box[1]) : (box[1], box[0])
          if width > boxWidth || height > boxHeight {
            filters.append(
              "scale=w=\(boxWidth):h=\(boxHeight):force_original_aspect_ratio=decrease:force_divisible_by=2"
            )
          }
        }
        if let sar = info.streams.first(where: { $0.type == .video })?.video?.sampleAspectRatio,
          sar.num != sar.den
        {
          filters.append("setsar=1")
        }
        if !filters.isEmpty { arguments += ["-vf", filters.joined(separator: ",")] }
        if let maxRate = recipe.maxFrameRate,
          case .number(let rate) = facts.values["video.frame_rate"], rate > maxRate + 0.01
        {
          arguments += ["-r", RuleValue.number(maxRate).description]
        }
        if let bitRate = recipe.videoBitRate {
          arguments += [
            "-b:v", "\(bitRate)", "-maxrate", "\(bitRate * 5 / 4)", "-bufsize", "\(bitRate * 2)",
          ]
        }
        if let tag = recipe.videoTag { arguments += ["-tag:v", tag] }
      } else {
        arguments += ["-c:v", "copy"]
        if tagFails, case .text(let codec) = facts.values["video.codec"] {
          arguments += ["-tag:v", codec == "hevc" ? "hvc1" : "avc1"]
        }
      }
    }
    if facts.hasAudio {
      if transcodeAudio || (containerFails && !Self.audioFits(facts, recipe.container)) {
        arguments += recipe.audio
        if case .number(let channels) = facts.values["audio.channels"],
          Int(channels) > recipe.audioChannels
        {
          arguments += ["-ac", "\(recipe.audioChannels)"]
        }
        if case .number(let rate) = facts.values["audio.sample_rate"],
          Int(rate) > recipe.audioSampleRate
        {
          arguments += ["-ar", "\(recipe.audioSampleRate)"]
        }
      } else {
        arguments += ["-c:a", "copy"]
      }
    }
    if ["mp4", "mov", "m4v", "3gp"].contains(fileExtension) {
      arguments += ["-movflags", "+faststart"]
    }
    arguments.append(target)
    self.arguments = arguments
    self.output = target
    command = arguments.map(Self.shellQuoted).joined(separator: " ")
  }

  /// Audio that an MP4-family container can carry when only the container changes.
  private static func audioFits(_ facts: CompatFacts, _ container: String) -> Bool {
    guard case .text(let codec) = facts.values["audio.codec"] else { return true }
    return !["mp4", "mov", "m4v"].contains(container)
      || ["aac", "mp3", "alac", "ac3", "eac3", "flac", "opus"].contains(codec)
  }

  static func shellQuoted(_ argument: String) -> String {
    let safe = argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=+,@%".contains($0) }
    return safe && !argument.isEmpty ? argument : "'" + argument.replacing("'", with: "'\\''") + "'"
  }
}
