import MediaCore

/// An ffmpeg command that should make a file pass on a platform: copy what already plays, remux
/// or retag where that is enough, re-encode only the streams that need it.
///
/// The output is planned, then checked before it is suggested: the audio codec and container are
/// chosen by running the platform's rules on the facts the output would have (a float64 WAV on
/// ios-17 becomes 32-bit float WAV, never AAC inside WAV), and a re-encode to H.264 is labelled
/// with the lowest level whose Table A-1 limits allow its size and frame rate (`H264Level`).
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
    let transcodeVideo = facts.hasVideo && failing.contains { $0.fix == .transcodeVideo }
    let containerFails = failing.contains { $0.field == "container" }
    let tagFails = failing.contains { $0.field == "video.tag" }

    let stem = info.path.split(separator: "/").last.map(String.init) ?? info.path
    let base = stem.lastIndex(of: ".").map { String(stem[..<$0]) } ?? stem
    let directory = info.path.lastIndex(of: "/").map { String(info.path[...$0]) } ?? ""
    let currentExtension =
      stem.lastIndex(of: ".").map { String(stem[stem.index(after: $0)...]) } ?? recipe.container

    var arguments = [
      "ffmpeg", "-nostdin", "-i", info.path,
    ]
    // Exactly the streams the verdict was about (never cover art, subtitles or data).
    if let index = facts.videoIndex { arguments += ["-map", "0:\(index)"] }
    if let index = facts.audioIndex { arguments += ["-map", "0:\(index)"] }

    var videoCodec: String? = nil
    var videoArguments: [String] = []
    if facts.hasVideo, case .text(let codec) = facts.values["video.codec"] {
      videoCodec = codec
      if transcodeVideo, let stream = info.streams.first(where: { $0.index == facts.videoIndex }) {
        videoArguments = Self.videoEncoding(stream, facts: facts, recipe: recipe)
        videoCodec = recipe.videoCodec
      } else {
        videoArguments = ["-c:v", "copy"]
        if tagFails { videoArguments += ["-tag:v", codec == "hevc" ? "hvc1" : "avc1"] }
      }
    }
    // Containers to try: the file's own when it plays, the recipe's, then the platform's.
    var extensions = containerFails || transcodeVideo ? [] : [currentExtension]
    extensions.append(recipe.container)
    for row in platform.directPlay where videoCodec.map(row.video.contains) ?? true {
      extensions += row.containers.map(OutputPlan.fileExtension)
    }
    let plan = OutputPlan(
      facts: facts, failing: failing, platform: platform, videoCodec: videoCodec,
      extensions: extensions.reduce(into: []) { if !$0.contains($1) { $0.append($1) } })
    let fileExtension = plan.fileExtension
    let audioArguments = plan.audioArguments
    let target = output ?? "\(directory)\(base).\(platform.id).\(fileExtension)"
    arguments += videoArguments + audioArguments
    if ["mp4", "mov", "m4v", "m4a", "3gp"].contains(fileExtension) {
      arguments += ["-movflags", "+faststart"]
    }
    arguments.append(target)
    self.arguments = arguments
    self.output = target
    command = arguments.map(Self.shellQuoted).joined(separator: " ")
  }

  // MARK: - Video

  /// The recipe's encoder settings for `stream`: deinterlaced, scaled into the recipe's box, at
  /// most its frame rate, square pixels, and (for libx264) the lowest level that allows the
  /// output's size and rate, in place of any level the recipe names.
  static func videoEncoding(_ stream: MediaStream, facts: CompatFacts, recipe: TranscodeRecipe)
    -> [String]
  {
    guard let v = stream.video else { return recipe.video.ffmpegArguments }
    var arguments = recipe.video.ffmpegArguments
    var filters: [String] = []
    if case .flag(true) = facts.values["video.interlaced"] { filters.append("yadif") }
    // ffmpeg rotates before filtering: the picture the filters see is the stored one turned
    // upright (its sample aspect ratio unchanged).
    let quarterTurn = v.orientation.rotation % 180 != 0
    var (width, height) = quarterTurn ? (v.height, v.width) : (v.width, v.height)
    if let box = recipe.maxSize, box.count == 2,
      case .size(let displayWidth, let displayHeight) = facts.values["video.size"]
    {
      // The box follows the clip's display orientation.
      let (boxWidth, boxHeight) =
        displayWidth >= displayHeight ? (box[0], box[1]) : (box[1], box[0])
      if displayWidth > boxWidth || displayHeight > boxHeight {
        filters.append(
          "scale=w=\(boxWidth):h=\(boxHeight):force_original_aspect_ratio=decrease:force_divisible_by=2"
        )
        (width, height) = scaledToFit(width: width, height: height, box: (boxWidth, boxHeight))
      }
    }
    if let sar = v.sampleAspectRatio, sar.num != sar.den { filters.append("setsar=1") }
    if !filters.isEmpty { arguments += ["-vf", filters.joined(separator: ",")] }
    var rate = encoderFrameRate(v.frameRate)
    if let maxRate = recipe.maxFrameRate,
      case .number(let nominal) = facts.values["video.frame_rate"], nominal > maxRate + 0.01
    {
      arguments += ["-r", RuleValue.number(maxRate).description]
      rate = maxRate
    }
    if recipe.videoCodec == "h264", let rate,
      let level = H264Level.lowest(width: width, height: height, frameRate: rate)
    {
      arguments += ["-level", level.name]
    }
    if let bitRate = recipe.videoBitRate {
      arguments += [
        "-b:v", "\(bitRate)", "-maxrate", "\(bitRate * 5 / 4)", "-bufsize", "\(bitRate * 2)",
      ]
    }
    if let tag = recipe.videoTag { arguments += ["-tag:v", tag] }
    return arguments
  }

  /// The size ffmpeg's `scale=w=W:h=H:force_original_aspect_ratio=decrease:force_divisible_by=2`
  /// gives a `width` × `height` picture (libavfilter's `ff_scale_adjust_dimensions`: each side
  /// from the other by the aspect ratio, rounded to the nearest multiple of 2, the smaller kept,
  /// then rounded down to a multiple of 2).
  static func scaledToFit(width: Int, height: Int, box: (Int, Int)) -> (Int, Int) {
    func rescale(_ a: Int, _ b: Int, _ c: Int) -> Int {  // av_rescale: a × b / c, to nearest
      (a * b + c / 2) / c
    }
    let fitWidth = rescale(box.1, width, height * 2) * 2
    let fitHeight = rescale(box.0, height, width * 2) * 2
    return (min(fitWidth, box.0) / 2 * 2, min(fitHeight, box.1) / 2 * 2)
  }

  /// The rate ffmpeg gives the encoder when it is not told one (`av_guess_frame_rate`): the
  /// stream's base rate (`r_frame_rate`), unless that looks like a time base (above 210 fps with
  /// an average below 70), then the average.
  static func encoderFrameRate(_ rate: FrameRate) -> Double? {
    let nominal = rate.nominal?.value
    let average = rate.average?.value
    if let nominal, nominal > 0 {
      if let average, average > 0, average < 70, nominal > 210 { return average }
      return nominal
    }
    return rate.best?.value
  }

  // MARK: - Container and audio

  /// The container the output is written in and the audio it carries. Each container (the
  /// file's own when it plays, the recipe's, then those of the platform's direct-play rows that
  /// take the output's video) is tried with each audio choice: a copy (when the audio itself does
  /// not fail), linear PCM of the source's kind (a float64 WAV becomes 32-bit float WAV where
  /// 64-bit does not play), the recipe's codec. Each pair is checked by running the platform's
  /// rows and rules on the facts the output would have; of those with no failure, the one with
  /// the fewest findings wins, then a copy over an encode, then the earlier container and choice.
  struct OutputPlan {
    var fileExtension: String
    var audioArguments: [String]

    init(
      facts: CompatFacts, failing: [RuleFinding], platform: Platform, videoCodec: String?,
      extensions: [String]
    ) {
      let recipe = platform.transcode
      let source = facts.values["audio.codec"].flatMap { fact -> String? in
        if case .text(let codec) = fact { codec } else { nil }
      }
      let audioFails = failing.contains { $0.fix == .transcodeAudio }
      let limitsFail = failing.contains {
        $0.field == "audio.channels" || $0.field == "audio.sample_rate"
      }
      let checker = CompatibilityChecker()
      // Every container and audio choice that does not fail, ranked: fewest findings, then a
      // copy before an encode, then the containers' and the choices' order.
      var best: (rank: [Int], ext: String, choice: AudioChoice)? = nil
      for (position, ext) in extensions.enumerated() {
        guard let container = Self.containerName(ext),
          Self.muxable(video: videoCodec, into: container)
        else { continue }
        var choices: [AudioChoice] = []
        if let source {
          if !audioFails { choices.append(AudioChoice(codec: source, copy: true)) }
          if let pcm = PCMFormat(source) {
            let allowed = Set(
              platform.directPlay.filter { $0.containers.contains(container) }.flatMap(\.audio))
            choices += PCMFormat.preferred(for: pcm, among: allowed).map {
              AudioChoice(codec: $0, copy: false)
            }
          }
        }
        if let codec = recipe.audioCodec { choices.append(AudioChoice(codec: codec, copy: false)) }
        for (order, var choice) in choices.enumerated()
        where Self.muxable(audio: choice.codec, into: container) {
          choice.adjust = !choice.copy && (choice.codec == recipe.audioCodec || limitsFail)
          var output = facts
          output.values["container"] = .text(container)
          if let videoCodec { output.values["video.codec"] = .text(videoCodec) }
          if !choice.copy {
            output.values["audio.codec"] = .text(choice.codec)
            output.values["audio.profile"] = choice.codec == "aac" ? .text("LC") : nil
            output.values["audio.bit_depth"] = PCMFormat(choice.codec).map {
              Fact.number(Double($0.bits))
            }
            output.values["audio.bit_rate"] =
              choice.codec == recipe.audioCodec ? recipe.audioBitRate.map(Fact.number) : nil
          }
          if choice.adjust {
            if case .number(let channels) = facts.values["audio.channels"],
              Int(channels) > recipe.audioChannels
            {
              output.values["audio.channels"] = .number(Double(recipe.audioChannels))
            }
            if case .number(let rate) = facts.values["audio.sample_rate"],
              Int(rate) > recipe.audioSampleRate
            {
              output.values["audio.sample_rate"] = .number(Double(recipe.audioSampleRate))
            }
          }
          // What the output's container and audio would be found to break. A value unknown
          // here counts like a warning: a copied stream whose bit rate Matroska does not state
          // may be over a platform's limit, a re-encode at the recipe's rate is not.
          let findings = checker.check(output, on: platform).findings.filter {
            $0.rule == "direct-play" || $0.field == "container" || $0.field.hasPrefix("audio.")
          }
          if findings.contains(where: { $0.severity == .fail }) { continue }
          // Without audio only the container is chosen: the first that passes.
          let rank =
            facts.hasAudio
            ? [findings.count, choice.copy ? 0 : 1, position, order] : [findings.count, position]
          if best == nil || rank.lexicographicallyPrecedes(best!.rank) {
            best = (rank, ext, choice)
          }
        }
        if !facts.hasAudio && choices.isEmpty && best == nil {
          best = ([0, position], ext, AudioChoice(codec: "", copy: true))
        }
      }
      let plan =
        best.map { (ext: $0.ext, choice: $0.choice) }
        ?? (
          ext: recipe.container,
          choice: AudioChoice(codec: recipe.audioCodec ?? "aac", copy: false, adjust: true)
        )
      fileExtension = plan.ext
      guard facts.hasAudio else {
        audioArguments = []
        return
      }
      var arguments: [String]
      if plan.choice.copy {
        arguments = ["-c:a", "copy"]
      } else if plan.choice.codec == recipe.audioCodec {
        arguments = recipe.audio.ffmpegArguments
      } else {
        arguments = ["-c:a", plan.choice.codec]
      }
      if Self.containerName(plan.ext) == "mp4" && ["flac", "vorbis"].contains(plan.choice.codec) {
        arguments += ["-strict", "-2"]  // FFmpeg 5.1 calls FLAC and Vorbis in MP4 experimental
      }
      if plan.choice.adjust {
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
      }
      audioArguments = arguments
    }

    /// One way to write the audio: copied, or encoded as `codec` (`adjust`: within the recipe's
    /// channels and sample rate).
    struct AudioChoice {
      var codec: String
      var copy: Bool
      var adjust = false
    }

    /// The container an output file name gives (ffmpeg picks the muxer by extension), named as
    /// `CompatFacts` names containers; nil for an extension it does not know.
    static func containerName(_ fileExtension: String) -> String? {
      switch fileExtension.lowercased() {
      case "mp4", "m4a", "m4v", "m4b": "mp4"
      case "mov", "qt": "mov"
      case "3gp", "3g2": "3gp"
      case "mkv", "mka": "mkv"
      case "webm": "webm"
      case "ogg", "oga", "opus": "ogg"
      case "ts", "m2ts", "mts": "ts"
      case "aac": "adts"
      case "aif", "aiff": "aiff"
      case let other where ["mp3", "flac", "wav", "caf", "amr", "ac3", "eac3"].contains(other):
        other
      default: nil
      }
    }

    /// The file extension that gives a container (the inverse of `containerName`).
    static func fileExtension(_ container: String) -> String {
      container == "adts" ? "aac" : container
    }

    /// Whether FFmpeg 5.1's muxer for `container` writes the audio `codec`: MP4 takes no linear
    /// PCM or AMR (MOV does), 3GPP only AAC and AMR; other muxers are left to the platform's
    /// rows, which list only what they hold.
    static func muxable(audio codec: String, into container: String) -> Bool {
      switch container {
      case "mp4": ["aac", "mp3", "alac", "ac3", "eac3", "flac", "opus", "vorbis"].contains(codec)
      case "3gp": ["aac", "amr_nb", "amr_wb"].contains(codec)
      default: true
      }
    }

    /// Whether FFmpeg 5.1's muxer for `container` writes the video `codec` (3GPP: H.263, H.264
    /// and MPEG-4 Part 2 only); audio-only containers take no video.
    static func muxable(video codec: String?, into container: String) -> Bool {
      guard let codec else { return true }
      switch container {
      case "3gp": return ["h263", "h264", "mpeg4"].contains(codec)
      case "mp3", "flac", "wav", "aiff", "caf", "amr", "ac3", "eac3", "adts", "ogg": return false
      default: return true
      }
    }
  }

  static func shellQuoted(_ argument: String) -> String {
    let safe = argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=+,@%".contains($0) }
    return safe && !argument.isEmpty ? argument : "'" + argument.replacing("'", with: "'\\''") + "'"
  }
}

/// A linear PCM codec's sample kind and size (`pcm_f32le`: float, 32 bits).
struct PCMFormat: Equatable {
  var float: Bool
  var bits: Int

  /// nil for what is not linear PCM (`aac`, `pcm_mulaw`).
  init?(_ codec: String) {
    let parts = codec.split(separator: "_")
    guard parts.count == 2, parts[0] == "pcm", let kind = parts[1].first, "suf".contains(kind),
      let bits = Int(parts[1].dropFirst().prefix { $0.isNumber }), bits > 0
    else { return nil }
    (float, self.bits) = (kind == "f", bits)
  }

  /// The PCM codecs of `allowed` a `source` is best written as: the same kind (float or
  /// integer) first, then the deepest not deeper than the source, then deeper ones.
  static func preferred(for source: PCMFormat, among allowed: Set<String>) -> [String] {
    allowed.compactMap { name in PCMFormat(name).map { (name, $0) } }.sorted { a, b in
      func key(_ format: PCMFormat) -> (Int, Int, Int) {
        (
          format.float == source.float ? 0 : 1, format.bits <= source.bits ? 0 : 1,
          format.bits <= source.bits ? -format.bits : format.bits
        )
      }
      return key(a.1) != key(b.1) ? key(a.1) < key(b.1) : a.0 < b.0
    }.map(\.0)
  }
}
