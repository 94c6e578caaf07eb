import MediaCore

/// Plans `mediacompat --fix`: the cheapest action that makes a file pass every named platform.
///
/// The steps are tried cheapest first — nothing, retag, remux, audio transcode, video transcode
/// — and each step's candidate outputs (containers, encoders, kept or capped sizes, rates and
/// channels) are judged by running every platform's rows and rules on the facts the output would
/// have. The first step with a candidate that fails no platform wins; within a step, the
/// candidate with the fewest warnings, then the earlier one (the input's container before
/// another, the first platform's recipe before the next). Nothing is changed that no failing
/// rule asks for: a re-encode keeps the size, rate, channels and sample rate unless keeping them
/// would fail. The plan says, for each cheaper step, why it could not do it.
public struct FixPlanner: Sendable {
  /// The platforms the output must pass, in the order given.
  public var platforms: [Platform]
  /// The checker (its delivery decides which advisories apply).
  public var checker: CompatibilityChecker
  /// libx264's constant quality for video re-encodes (its default, 23).
  public var crf: Double
  /// libx264's preset for video re-encodes (its default, `medium`).
  public var preset: String
  /// Warnings count as failures (`--strict`): the output must pass every platform without a
  /// warning (HEVC for a browser that plays it only with the system's decoder, for instance).
  public var strict: Bool

  /// A planner for `platforms`.
  public init(
    platforms: [Platform], checker: CompatibilityChecker = CompatibilityChecker(),
    crf: Double = 23, preset: String = "medium", strict: Bool = false
  ) {
    self.strict = strict
    self.platforms = platforms
    self.checker = checker
    self.crf = crf
    self.preset = preset
  }

  /// The containers a fix writes, as platforms name them.
  static let writableContainers = ["mp4", "mov", "mkv", "webm", "ogg"]

  /// The plan for `info`.
  ///
  /// - Parameters:
  ///   - atLeast: the cheapest step to consider (after a cheaper plan failed to render: a copied
  ///     stream the new container's muxer refused).
  ///   - refused: why the steps below `atLeast` were dropped, for the plan's `cheaperSteps`.
  /// - Throws: `FixPlanError` (`no_playable_stream`, `drm_protected`, `not_fixable`).
  public func plan(
    for info: MediaInfo, atLeast: FixAction = .none, refused: [FixAction: String] = [:]
  ) throws(FixPlanError) -> FixPlan {
    let facts = CompatFacts(info)
    guard facts.hasVideo || facts.hasAudio else { throw .noPlayableStream }
    let encrypted = info.streams.filter {
      ["encv", "enca", "drmi", "drms", "drmu"].contains($0.codec.tag ?? "")
    }
    if let stream = encrypted.first {
      throw .drmProtected(
        "stream \(stream.index) has the protected sample entry '\(stream.codec.tag ?? "")'")
    }
    let verdicts = platforms.map { checker.check(facts, on: $0) }
    let failing = zip(platforms, verdicts).flatMap { platform, verdict in
      verdict.findings.filter(fails).map { FixFinding(platform: platform.id, $0) }
    }
    let video = info.streams.first { $0.index == facts.videoIndex }
    let audio = info.streams.first { $0.index == facts.audioIndex }
    let dropped = info.streams.map(\.index).filter {
      $0 != facts.videoIndex && $0 != facts.audioIndex
    }
    let source = facts.values["container"]?.description ?? ""

    var skipped: [SkippedStep] = []
    let dolbyVision = video?.video?.dolbyVision
    for action in FixAction.allCases {
      // Dolby Vision without a base layer other decoders show (profile 5: IPTPQc2 pictures,
      // bl_signal_compatibility_id 0) needs its own sample entry (dvh1/dvhe): as hvc1 it shows
      // wrong colours, FFmpeg 5.1's MP4 muxer cannot write dvh1, and its decoder does not apply
      // the reshaping a re-encode would need. Only "nothing" is right for it.
      if action != .none, let dv = dolbyVision, dv.blCompatibilityId == 0 {
        let reason =
          "Dolby Vision profile \(dv.profile) has no base layer other players can show "
          + "(bl_signal_compatibility_id 0): tagged hvc1 or re-encoded it shows the wrong colours, "
          + "and FFmpeg 5.1 cannot write dvh1"
        throw .notFixable(failing, because: reason)
      }
      switch step(action, info: info, facts: facts, video: video, audio: audio, source: source) {
      case .failure(let step):
        skipped.append(step)
      case .success where action < atLeast:
        skipped.append(
          SkippedStep(
            action: action,
            reason: refused[action] ?? "planned, but the output could not be written",
            wouldFail: []))
      case .success(let (candidate, expected)):
        let reason =
          action == .none
          ? "already passes " + platforms.map(\.id).joined(separator: ", ")
          : Self.reason(action, failing: failing, hasVideo: facts.hasVideo)
        let kept = Self.keptStreams(info, candidate: candidate, dropped: dropped)
        return FixPlan(
          action: action, reason: reason, failing: failing, cheaperSteps: skipped,
          container: candidate.container, fileExtension: candidate.fileExtension,
          muxerOptions: Self.muxerOptions(
            candidate.container,
            keepsDolbyVision: candidate.video?.copy == true && dolbyVision != nil),
          video: candidate.video, audio: candidate.audio, expected: expected,
          droppedStreams: dropped.filter { !kept.contains($0) }, keptStreams: kept)
      }
    }
    throw .notFixable(skipped.last?.wouldFail ?? failing)
  }

  /// The further streams a plan copies: audio tracks in the codec of the copied audio (a second
  /// language: they play as the first does), and 3GPP timed text into MP4 or QuickTime. Cover
  /// art, data tracks and other subtitles stay out.
  static func keptStreams(_ info: MediaInfo, candidate: Candidate, dropped: [Int]) -> [Int] {
    let mp4 = ["mp4", "mov"].contains(candidate.container)
    return info.streams.filter { stream in
      guard dropped.contains(stream.index), stream.disposition["attached_pic"] != true else {
        return false
      }
      switch stream.type {
      case .audio:
        guard let audio = candidate.audio, audio.copy else { return false }
        return stream.codec.name == audio.codec
      case .subtitle: return mp4 && stream.codec.name == "mov_text"
      default: return false
      }
    }.map(\.index)
  }

  /// The muxer's options: fast start for MP4 and QuickTime; and when a copied video carries a
  /// Dolby Vision configuration record, `strict=unofficial`, without which FFmpeg 5.1's MP4
  /// muxer leaves the `dvcC`/`dvvC` box out (a profile 8 stream then plays as plain HDR10 or
  /// HLG on a Dolby Vision device).
  static func muxerOptions(_ container: String, keepsDolbyVision: Bool) -> [String: String] {
    guard ["mp4", "mov"].contains(container) else { return [:] }
    return keepsDolbyVision
      ? ["movflags": "+faststart", "strict": "unofficial"] : ["movflags": "+faststart"]
  }

  /// A step's best output and its verdicts, or why the step cannot make the file pass.
  private func step(
    _ action: FixAction, info: MediaInfo, facts: CompatFacts, video: MediaStream?,
    audio: MediaStream?, source: String
  ) -> Result<(Candidate, [PlatformVerdict]), SkippedStep> {
    let candidates = self.candidates(
      action, info: info, facts: facts, video: video, audio: audio, source: source)
    guard !candidates.isEmpty else {
      return .failure(
        SkippedStep(
          action: action, reason: Self.notApplicable(action, facts: facts, source: source),
          wouldFail: []))
    }
    let judged = candidates.map { candidate in
      (candidate, platforms.map { checker.check(candidate.facts, on: $0) })
    }
    let passing = judged.enumerated().filter { _, pair in
      pair.1.allSatisfy { !$0.findings.contains(where: fails) }
    }
    if let best = passing.min(by: { a, b in
      let wa = a.element.1.reduce(0) { $0 + $1.findings.count }
      let wb = b.element.1.reduce(0) { $0 + $1.findings.count }
      return wa != wb ? wa < wb : a.offset < b.offset
    })?.element {
      return .success(best)
    }
    // The candidate closest to passing says what this step leaves failing.
    let closest = judged.min { a, b in
      a.1.reduce(0) { $0 + $1.findings.filter(fails).count }
        < b.1.reduce(0) { $0 + $1.findings.filter(fails).count }
    }!
    let left = zip(platforms, closest.1).flatMap { platform, verdict in
      verdict.findings.filter(fails).map { FixFinding(platform: platform.id, $0) }
    }
    return .failure(
      SkippedStep(
        action: action,
        reason: (action == .none ? "the input fails: " : "its best output would still fail: ")
          + left.map(\.text).joined(separator: "; "),
        wouldFail: left))
  }

  /// A finding the output must not have: a failure, and with `strict` a warning too.
  func fails(_ finding: RuleFinding) -> Bool {
    finding.severity == .fail || strict
  }

  // MARK: - Candidates

  /// One possible output: its streams, container and the facts it would have.
  struct Candidate {
    var container: String
    var fileExtension: String
    var video: VideoFixPlan?
    var audio: AudioFixPlan?
    var facts: CompatFacts
  }

  /// The outputs `action` could write.
  func candidates(
    _ action: FixAction, info: MediaInfo, facts: CompatFacts, video: MediaStream?,
    audio: MediaStream?, source: String
  ) -> [Candidate] {
    let videoCodec = video?.codec.name
    let audioCodec = audio?.codec.name
    let copyVideo = video.map {
      VideoFixPlan(
        input: $0.index, sourceCodec: $0.codec.name, codec: $0.codec.name, copy: true, tag: nil,
        encode: nil)
    }
    let copyAudio = audio.map {
      AudioFixPlan(
        input: $0.index, sourceCodec: $0.codec.name, codec: $0.codec.name, copy: true, encode: nil)
    }
    switch action {
    case .none:
      return [
        Candidate(
          container: source, fileExtension: Self.fileExtension(source, hasVideo: facts.hasVideo),
          video: copyVideo, audio: copyAudio, facts: facts)
      ]
    case .retag:
      // Same container, the video's sample entry rewritten where it is not the one Apple plays.
      guard ["mp4", "mov"].contains(source), var copyVideo, let videoCodec,
        let tag = Self.preferredTag(videoCodec), facts.values["video.tag"]?.description != tag
      else { return [] }
      copyVideo.tag = tag
      var output = facts
      output.values["video.tag"] = .text(tag)
      output.values["file.fast_start"] = .flag(true)
      return [
        Candidate(
          container: source, fileExtension: Self.fileExtension(source, hasVideo: true),
          video: copyVideo, audio: copyAudio, facts: output)
      ]
    case .remux:
      return containers(source: source, videoCodec: videoCodec).compactMap { container in
        guard container != source, Self.muxable(audio: audioCodec, into: container) else {
          return nil
        }
        return copyCandidate(
          container: container, facts: facts, video: copyVideo, audio: copyAudio)
      }
    case .transcodeAudio:
      guard let audio, video == nil || copyVideo != nil else { return [] }
      var result: [Candidate] = []
      for container in containers(source: source, videoCodec: videoCodec) {
        for encode in audioEncodes(audio, facts: facts, container: container) {
          result.append(
            copyCandidate(container: container, facts: facts, video: copyVideo, audio: encode))
        }
      }
      return result
    case .transcodeVideo:
      guard let video, let v = video.video else { return [] }
      var result: [Candidate] = []
      for encode in videoEncodes(video, v, facts: facts) {
        for container in containers(source: source, videoCodec: encode.codec) {
          var audios = [copyAudio].compactMap { $0 }.filter {
            Self.muxable(audio: $0.codec, into: container)
          }
          if let audio { audios += audioEncodes(audio, facts: facts, container: container) }
          if audio == nil { audios = [] }
          let choices: [AudioFixPlan?] = audio == nil ? [nil] : audios
          for audioChoice in choices {
            var candidate = copyCandidate(
              container: container, facts: facts, video: encode, audio: audioChoice)
            Self.apply(encode, v, to: &candidate.facts)
            result.append(candidate)
          }
        }
      }
      return result
    }
  }

  /// The containers to try, in order: the input's own (when a fix can write it), each
  /// platform's recipe container, then the containers of each platform's direct-play rows that
  /// take the video's codec.
  func containers(source: String, videoCodec: String?) -> [String] {
    var list = [source]
    list += platforms.map(\.transcode.container)
    for platform in platforms {
      for row in platform.directPlay where videoCodec.map(row.video.contains) ?? true {
        list += row.containers
      }
    }
    var seen: Set<String> = []
    return list.filter { container in
      guard Self.writableContainers.contains(container), seen.insert(container).inserted else {
        return false
      }
      return Self.muxable(video: videoCodec, into: container)
    }
  }

  /// Streams as planned, in `container`: the facts the output would have (the container, the
  /// sample entry the muxer writes, fast start for MP4 and QuickTime, the audio as encoded).
  func copyCandidate(
    container: String, facts: CompatFacts, video: VideoFixPlan?, audio: AudioFixPlan?
  ) -> Candidate {
    var output = facts
    var video = video
    output.values["container"] = .text(container)
    if ["mp4", "mov"].contains(container) {
      output.values["file.fast_start"] = .flag(true)
      if var plan = video {
        // Copied HEVC gets `hvc1` (FFmpeg's MP4 default is `hev1`, which Apple does not play).
        if plan.copy, plan.codec == "hevc" { plan.tag = "hvc1" }
        let tag = plan.tag ?? Self.preferredTag(plan.codec)
        if let tag { output.values["video.tag"] = .text(tag) }
        video = plan
      }
    } else {
      output.values["file.fast_start"] = nil
      output.values["video.tag"] = nil
      if var plan = video, plan.tag != nil {
        plan.tag = nil
        video = plan
      }
    }
    if let audio, let encode = audio.encode {
      output.values["audio.codec"] = .text(audio.codec)
      output.values["audio.profile"] = audio.codec == "aac" ? .text("LC") : nil
      output.values["audio.bit_depth"] = nil
      output.values["audio.bit_rate"] = encode.settings.bitRate.map { .number(Double($0)) }
      output.values["audio.channels"] = .number(Double(encode.channels))
      output.values["audio.sample_rate"] = .number(Double(encode.sampleRate))
    }
    return Candidate(
      container: container, fileExtension: Self.fileExtension(container, hasVideo: video != nil),
      video: video, audio: audio, facts: output)
  }

  // MARK: - Audio

  /// The audio re-encodes to try into `container`: each platform's recipe encoder, the source's
  /// channels and rate kept; then, where that fails on channels or rate, capped to the recipe's.
  func audioEncodes(_ stream: MediaStream, facts: CompatFacts, container: String)
    -> [AudioFixPlan]
  {
    let channels = stream.audio?.channels ?? 2
    let rate = stream.audio?.sampleRate ?? 48000
    var result: [AudioFixPlan] = []
    var seen: Set<String> = []
    for platform in platforms {
      let recipe = platform.transcode
      guard Self.muxable(audio: recipe.audio.codec, into: container),
        Self.encodable(channels: min(channels, 8), encoder: recipe.audio.encoder)
      else { continue }
      let kept = Self.encoderRate(rate, encoder: recipe.audio.encoder)
      let variants = [
        (min(channels, 8), kept),
        (min(channels, recipe.audioChannels), min(kept, recipe.audioSampleRate)),
      ]
      for (outChannels, outRate) in variants {
        let plan = AudioEncodePlan(
          settings: recipe.audio, channels: outChannels,
          sampleRate: Self.encoderRate(outRate, encoder: recipe.audio.encoder),
          downmixed: outChannels < channels, resampled: outRate != rate)
        guard seen.insert("\(plan)").inserted else { continue }
        result.append(
          AudioFixPlan(
            input: stream.index, sourceCodec: stream.codec.name, codec: recipe.audio.codec,
            copy: false, encode: plan))
      }
    }
    return result
  }

  /// The rate an encoder writes for a `rate` source: Opus only at 48 kHz (libopus's rates are
  /// 8, 12, 16, 24 and 48 kHz; 48 is what players expect), AAC at its standard rates.
  static func encoderRate(_ rate: Int, encoder: String) -> Int {
    switch encoder {
    case "libopus": return 48000
    case "aac":
      let rates = [
        96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000,
      ]
      return rates.contains(rate) ? rate : 48000
    default: return rate
    }
  }

  /// Whether the encoder takes that many channels (FFmpeg 5.1's `aac`: 1-6 and 8; libopus 1-8).
  static func encodable(channels: Int, encoder: String) -> Bool {
    switch encoder {
    case "aac": [1, 2, 3, 4, 5, 6, 8].contains(channels)
    default: channels >= 1 && channels <= 8
    }
  }

  // MARK: - Video

  /// The video re-encodes to try: each platform's recipe at the source's size and rate, then
  /// scaled into the smallest box and capped at the lowest rate of the platforms' recipes.
  func videoEncodes(_ stream: MediaStream, _ v: VideoInfo, facts: CompatFacts) -> [VideoFixPlan] {
    let rate = Suggestion.encoderFrameRate(v.frameRate) ?? 25
    let boxes = platforms.compactMap { $0.transcode.maxSize }.filter { $0.count == 2 }
    let box = boxes.min { $0[0] * $0[1] < $1[0] * $1[1] }
    let maxRate = platforms.compactMap(\.transcode.maxFrameRate).min()
    let interlaced = facts.values["video.interlaced"] == .flag(true)
    let hdr = v.color.transfer.map(ToneMapping.hdrTransfers.contains) ?? false
    var result: [VideoFixPlan] = []
    var seen: Set<String> = []
    for platform in platforms {
      let recipe = platform.transcode
      // A bit-rate tier (the 2012 mobile tiers, iphone-2012) is its size, rate and bit rate
      // together: at the source's 240 fps x264 spent 105.6 kb/s of mobile-low's 96 (a failed
      // re-check), so such a recipe is always held to its box and rate.
      for capped in recipe.videoBitRate == nil ? [false, true] : [true] {
        var (width, height) = (v.width, v.height)
        var filters: [String] = []
        if interlaced { filters.append("yadif") }
        // 8-bit output (the recipes' yuv420p) cannot carry PQ or HLG light: tone-mapped to SDR.
        let toneMapped = hdr && (recipe.video.pixelFormat ?? "yuv420p") == "yuv420p"
        if toneMapped { filters.append(ToneMapping.libavfilterChain) }
        var scaled = false
        if capped, let box {
          // The box in the stored picture's orientation (the display matrix is kept).
          let (boxWidth, boxHeight) = width >= height ? (box[0], box[1]) : (box[1], box[0])
          if width > boxWidth || height > boxHeight {
            filters.append(
              "scale=w=\(boxWidth):h=\(boxHeight):force_original_aspect_ratio=decrease:force_divisible_by=2"
            )
            (width, height) = Suggestion.scaledToFit(
              width: width, height: height, box: (boxWidth, boxHeight))
            scaled = true
          }
        }
        // 4:2:0 chroma covers two by two pixels: libx264 refuses an odd width or height in it
        // (a 321x241 4:4:4 or MJPEG source), so the last column or row is cropped; square
        // pixels kept, nothing resampled.
        if (recipe.video.pixelFormat ?? "yuv420p").contains("420"),
          width % 2 != 0 || height % 2 != 0
        {
          filters.append("crop=w=\(width / 2 * 2):h=\(height / 2 * 2):x=0:y=0")
          (width, height) = (width / 2 * 2, height / 2 * 2)
        }
        var outRate = rate
        var rateCapped = false
        if capped, let maxRate, rate > maxRate + 0.01 {
          filters.append("fps=\(RuleValue.number(maxRate).description)")
          outRate = maxRate
          rateCapped = true
        }
        var settings = recipe.video
        if settings.codec == "h264" {
          settings.level = H264Level.lowest(width: width, height: height, frameRate: outRate)?.name
        }
        let encode = VideoEncodePlan(
          settings: settings, crf: crf, preset: preset, width: width, height: height,
          frameRate: outRate, scaled: scaled, rateCapped: rateCapped, deinterlaced: interlaced,
          filter: filters.isEmpty ? "null" : filters.joined(separator: ","),
          bitRate: recipe.videoBitRate, toneMapped: toneMapped)
        let key = "\(encode)"
        guard seen.insert(key).inserted else { continue }
        result.append(
          VideoFixPlan(
            input: stream.index, sourceCodec: stream.codec.name, codec: settings.codec,
            copy: false, tag: nil, encode: encode))
      }
    }
    return result
  }

  /// The facts a re-encoded video has.
  static func apply(_ plan: VideoFixPlan, _ v: VideoInfo, to facts: inout CompatFacts) {
    guard let encode = plan.encode else { return }
    facts.values["video.codec"] = .text(plan.codec)
    let profiles = [
      "baseline": "Constrained Baseline", "main": "Main", "high": "High", "main10": "Main 10",
    ]
    facts.values["video.profile"] = encode.settings.profile.flatMap { profiles[$0] }.map(Fact.text)
    facts.values["video.level"] = encode.settings.level.flatMap(Double.init).map(Fact.number)
    // Display size: the stored size with its pixel aspect ratio, turned by the display matrix.
    let sar = v.sampleAspectRatio.map { Double($0.num) / Double($0.den) } ?? 1
    let shownWidth = Int((Double(encode.width) * (sar > 0 ? sar : 1)).rounded())
    facts.values["video.size"] =
      v.orientation.rotation % 180 != 0
      ? .size(width: encode.height, height: shownWidth)
      : .size(width: shownWidth, height: encode.height)
    facts.values["video.above_720p"] = .flag(
      max(encode.width, encode.height) > 1280 || min(encode.width, encode.height) > 720)
    facts.values["video.frame_rate"] = .number(encode.frameRate)
    facts.values["video.bit_rate"] = encode.bitRate.map { .number(Double($0)) }
    facts.values["video.bit_depth"] = encode.settings.pixelFormat == "yuv420p" ? .number(8) : nil
    facts.values["video.interlaced"] = .flag(false)
    if encode.toneMapped { facts.values["video.hdr"] = .text("sdr") }
  }

  // MARK: - Containers

  /// The sample entry Apple's players want for a codec in MP4 or QuickTime.
  static func preferredTag(_ codec: String) -> String? {
    switch codec {
    case "hevc": "hvc1"
    case "h264": "avc1"
    default: nil
    }
  }

  /// The file extension for a container (`m4a` for MP4 audio).
  static func fileExtension(_ container: String, hasVideo: Bool) -> String {
    switch container {
    case "mp4": hasVideo ? "mp4" : "m4a"
    case "ogg": "ogg"
    default: Suggestion.OutputPlan.fileExtension(container)
    }
  }

  /// Whether FFmpeg 5.1's muxer for `container` writes the video `codec`.
  static func muxable(video codec: String?, into container: String) -> Bool {
    guard let codec else { return true }
    switch container {
    case "mp4", "mov":
      return ["h264", "hevc", "av1", "vp9", "mpeg4", "h263", "mjpeg"].contains(codec)
    case "webm": return ["vp8", "vp9", "av1"].contains(codec)
    case "ogg": return codec == "theora"
    case "mkv": return true
    default: return false
    }
  }

  /// Whether FFmpeg 5.1's muxer for `container` writes the audio `codec` without
  /// `-strict experimental` (FLAC and Vorbis in MP4 need it: never written here).
  static func muxable(audio codec: String?, into container: String) -> Bool {
    guard let codec else { return true }
    switch container {
    case "mp4": return ["aac", "mp3", "alac", "ac3", "eac3", "opus"].contains(codec)
    case "mov":
      return ["aac", "mp3", "alac", "ac3", "eac3"].contains(codec) || codec.hasPrefix("pcm_")
    case "webm": return ["opus", "vorbis"].contains(codec)
    case "ogg": return ["opus", "vorbis", "flac"].contains(codec)
    case "mkv": return true
    default: return false
    }
  }

  // MARK: - Words

  static func notApplicable(_ action: FixAction, facts: CompatFacts, source: String) -> String {
    switch action {
    case .none: "the file fails"
    case .retag:
      ["mp4", "mov"].contains(source)
        ? "the video's sample entry is already the one players want"
        : "a retag keeps the container, and \(source) is not MP4 or QuickTime"
    case .remux: "no other container this tool writes holds the file's codecs"
    case .transcodeAudio: facts.hasAudio ? "no container holds the copied video" : "no audio"
    case .transcodeVideo: "no video"
    }
  }

  static func reason(_ action: FixAction, failing: [FixFinding], hasVideo: Bool = true) -> String {
    let relevant = failing.filter { finding in
      switch action {
      case .none: false
      case .retag: finding.field == "video.tag"
      case .remux: finding.fix == .remux
      case .transcodeAudio: finding.fix == .transcodeAudio
      case .transcodeVideo: finding.fix == .transcodeVideo
      }
    }
    let cited = relevant.isEmpty ? failing : relevant
    let verb =
      switch action {
      case .none: ""
      case .retag: "retag (packets copied)"
      case .remux: "remux (packets copied)"
      // An audio-only file (an M4A, its cover art aside) has no video to copy.
      case .transcodeAudio: hasVideo ? "re-encode the audio (video copied)" : "re-encode the audio"
      case .transcodeVideo: "re-encode the video"
      }
    return "\(verb): " + cited.map(\.text).joined(separator: "; ")
  }
}
