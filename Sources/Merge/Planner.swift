import Compatibility
import Compositor
import Composition
import MediaCore
import AV
import MediaProbe

/// Makes the plan of a merge from probed clips: pure (no I/O), so it is tested without files.
///
/// The timeline follows AVMutableComposition's sequential insertion: each clip starts where the
/// previous one ended (`CMTimeAdd`, exact), and lasts the longer of its audio and video, the
/// shorter stream padded (silence, or the last frame held) so audio never runs into the next
/// clip. The render size is the guide's rule, the largest display width by the largest display
/// height after rotation, unless `--size` says otherwise; each clip is turned upright from its
/// display matrix (mirroring included) with transpose/flip filters, scaled and padded (or
/// cropped) into it. See `reference/merge.md` for the measurements behind each choice.
public struct MergePlanner: Sendable {
  /// What was asked.
  public let request: MergeRequest

  /// A planner for `request`.
  public init(request: MergeRequest) { self.request = request }

  /// The encoder settings without `--platform`: H.264 High, 4:2:0, quality 20.
  public static let defaultVideo = VideoEncoderSettings(
    encoder: "libx264", profile: "high", pixelFormat: "yuv420p")
  /// The default encoder's speed preset.
  public static let defaultPreset = "veryfast"
  /// The default encoder's quality (constant rate factor).
  public static let defaultCRF = 20
  /// The audio settings without `--platform`: AAC-LC, 160 kbit/s.
  public static let defaultAudio = AudioEncoderSettings(encoder: "aac", bitRate: 160_000)
  /// The audio sample rate without `--platform`.
  public static let defaultSampleRate = 48000
  /// Why the audio is always encoded once.
  public static let audioReason =
    "audio is decoded and encoded once: copied AAC tracks keep each clip's priming and padding, "
    + "which pushed the audio 21-29 ms later at every join (measured, FFmpeg 5.1); decoded, each "
    + "clip's audio is trimmed or padded with silence to its exact span on the timeline"
  /// Codecs an MP4 takes as they are.
  static let mp4Copyable: Set<String> = ["h264", "hevc", "mpeg4", "av1", "vp9"]
  /// Codecs a QuickTime file takes as they are.
  static let movCopyable: Set<String> = mp4Copyable.union(["prores", "mjpeg", "dnxhd"])

  /// Plans the merge of `clips`, in order.
  ///
  /// - Throws: `MergeError.incompatibleInputs` for a clip without a video stream, or with
  ///   `--copy` when the video cannot be copied (every reason listed).
  public func plan(_ clips: [ProbedClip]) throws(MergeError) -> MergePlan {
    guard !clips.isEmpty else {
      throw .incompatibleInputs(path: nil, reasons: ["no clips were given"])
    }
    let container = MergeRequest.container(for: request.output) ?? "mp4"
    let outputContainer = OutputContainer(path: request.output) ?? .mp4
    if let refusal = request.export.refusal(container: outputContainer) {
      throw .unsupportedEncoding(reason: refusal)
    }
    if outputContainer == .m4a, !clips.contains(where: { $0.audioStream != nil }) {
      throw .unsupportedEncoding(reason: "no clip has audio for the .m4a file")
    }
    let sources = try clips.enumerated().map { index, clip throws(MergeError) in
      try Source(index: index, clip: clip)
    }

    // The timeline: CMTimeAdd of the clips' spans.
    var ends: [MediaTime] = []
    var cursor = MediaTime.zero
    for source in sources {
      cursor = cursor + source.duration
      ends.append(cursor)
    }

    let blockers = copyBlockers(sources, container: container)
    let method: VideoMethod = blockers.isEmpty ? .copy : .encode
    if request.method == .copy && !blockers.isEmpty {
      throw .incompatibleInputs(path: nil, reasons: blockers.map(\.reason))
    }
    if request.export.passthrough && !blockers.isEmpty {
      throw .unsupportedEncoding(
        reason: "--preset passthrough copies, and these clips cannot be copied: "
          + blockers.map(\.reason).joined(separator: "; "))
    }
    let render = method == .copy ? copyRender(sources) : encodeRender(sources)
    let audio = audioEncoding(sources)
    let rate = render.frameRate ?? Rational(30, 1)!
    let sampleRate = Rational(Int64(audio?.sampleRate ?? Self.defaultSampleRate), 1)!

    var planned: [PlannedClip] = []
    for (index, source) in sources.enumerated() {
      let start = index == 0 ? MediaTime.zero : ends[index - 1]
      let end = ends[index]
      var clip = PlannedClip(
        index: index, path: source.clip.path, start: start, duration: source.duration, end: end,
        video: source.video, audio: source.audio,
        padding: ClipPadding(
          video: source.duration - source.video.duration,
          audio: source.duration - (source.audio?.duration ?? .zero)),
        transform: nil, frames: nil, samples: nil, videoFilter: nil, audioFilter: nil)
      if method == .encode {
        let frames = end.units(atRate: rate) - start.units(atRate: rate)
        let transform = Self.transform(source.video, into: render)
        clip.transform = transform
        clip.frames = frames
        clip.videoFilter = Self.videoFilter(
          transform, render: render, rate: rate, frames: frames, span: source.duration)
      }
      if let audio {
        let samples = end.units(atRate: sampleRate) - start.units(atRate: sampleRate)
        clip.samples = samples
        clip.audioFilter = Self.audioFilter(
          hasAudio: source.audio != nil, output: audio, samples: samples, span: source.duration)
      }
      planned.append(clip)
    }

    let video = videoEncoding(method: method, sources: sources)
    let expected = expectedOutput(
      method: method, sources: sources, clips: planned, render: render, video: video,
      audio: audio)
    let (chapters, warnings) = Self.chapters(sources.map(\.clip), planned, total: cursor)
    var plan = MergePlan(
      schemaVersion: 1, output: request.output, container: container, clips: planned,
      duration: cursor, method: method, copyBlockers: blockers, render: render, video: video,
      audio: audio, platform: request.platform?.id, chapters: chapters, warnings: warnings,
      ffmpeg: FFmpegCommand(executable: request.ffmpeg, arguments: [], stdin: nil),
      expected: expected)
    describeExport(&plan, container: outputContainer)
    let implausible = Self.implausibilities(plan, sources: sources)
    if !implausible.isEmpty { throw .implausiblePlan(reasons: implausible) }
    plan.ffmpeg = command(for: plan, sources: sources)
    return plan
  }

  // MARK: - Bounds

  /// Bytes of output per video frame and per AAC frame that no encode goes below: measured with
  /// this recipe on 600 s of black 160x90 at 30 fps and digital silence (FFmpeg 5.1, libx264
  /// veryfast CRF 20, AAC 160k, MP4): 18,000 frames took 3526 bit/s (14.7 bytes each) and 28,126
  /// AAC frames 2274 bit/s (6.1 bytes each), plus 4 bytes each in the sample tables. Halved.
  static let leastBytesPerFrame = (video: Int64(10), audio: Int64(5))
  /// A clip cannot last longer than one second per byte of its file: the leanest real streams
  /// (Opus DTX silence, an H.264 picture that never changes) take tens of bytes a second.
  static let leastBytesPerSecond = 1.0
  /// The output may take this many times its inputs' bytes (and at least `floorBytes`): a
  /// re-encode of small, low-rate clips at CRF 20 can be several times their size.
  static let bytesPerInputByte: Int64 = 32
  static let floorBytes: Int64 = 64 << 20

  /// The largest picture any codec level takes: 35,651,584 luma samples (H.264 level 6.2's
  /// MaxFS, 139,264 macroblocks of 256; HEVC level 6.2's MaxLumaPs; AV1 level 6.3's
  /// MaxPicSize), and a side of at most √(8 × that), 16,888 (HEVC's rule; H.264's 16,880 in
  /// whole macroblocks).
  static let largestPicture = (samples: 35_651_584, side: 16_888)

  /// The most bytes a plan's output may take: 32 times the clips' bytes, at least 64 MiB, and
  /// twice what a platform recipe's bit rate (maxrate) and the audio take over the timeline.
  static func maxBytes(
    clips: [ProbedClip], duration: MediaTime, platform: Platform?, audio: Bool
  ) -> Int64 {
    let inputs = clips.reduce(Int64(0)) { $0 &+ max(0, $1.info.sizeBytes ?? 0) }
    var limit = max(
      floorBytes,
      inputs.multipliedReportingOverflow(by: bytesPerInputByte).overflow
        ? .max : inputs * bytesPerInputByte)
    if let bitRate = platform?.transcode.videoBitRate {
      let bits = Double(bitRate) * 1.25 + (audio ? 160_000 : 0)
      limit = max(limit, Int64(min(2 * bits / 8 * duration.seconds, 9e18)))
    }
    return limit
  }

  /// Every way `plan` asks for more than its clips can give (empty when it is plausible):
  /// - a clip lasts longer than its file's bytes can carry (`leastBytesPerSecond`): its span
  ///   comes from a duration no packet supports (a frame that claims days);
  /// - the smallest output the plan can make (`leastBytesPerFrame` for each planned video frame
  ///   and AAC frame) is larger than `expected.maxBytes`, the limit the inputs' size sets.
  static func implausibilities(_ plan: MergePlan, sources: [Source]) -> [String] {
    var reasons: [String] = []
    for source in sources {
      guard let size = source.clip.info.sizeBytes, size > 0 else { continue }
      let carried = Double(size) / leastBytesPerSecond
      if source.duration.seconds > carried {
        reasons.append(
          "\(source.label) lasts \(source.duration) s, more than its \(size) bytes can carry "
            + "(at least \(fixed(leastBytesPerSecond, places: 0)) byte a second)")
      }
    }
    // A damaged clip's header can claim a picture no encoder level takes (a 1,974-byte AV1 mutant
    // said 5616x12013: libx264 ground through a 67-megapixel canvas for minutes).
    let (width, height) = (plan.render.width, plan.render.height)
    if plan.method == .encode,
      width > largestPicture.side || height > largestPicture.side
        || width * height > largestPicture.samples
    {
      reasons.append(
        "the render size, \(width)x\(height), is larger than any codec level takes "
          + "(\(largestPicture.samples) samples, \(largestPicture.side) a side)")
    }
    // The render runs on the compositor's frame grid, which takes rates up to 1000 fps (a
    // composition document's limit); a damaged clip's header can claim more.
    if let rate = plan.render.frameRate, rate.value > 1000 {
      reasons.append(
        "the render's frame rate, the fastest clip's, is \(fixed(rate.value, places: 3)) fps: "
          + "more than the 1000 fps a render takes")
    }
    let expected = plan.expected
    let frames = plan.method == .encode ? plan.clips.compactMap(\.frames).reduce(0, +) : 0
    let aacFrames = (plan.clips.compactMap(\.samples).reduce(0, +) + 1023) / 1024
    let (videoBytes, o1) = frames.multipliedReportingOverflow(by: leastBytesPerFrame.video)
    let (audioBytes, o2) = aacFrames.multipliedReportingOverflow(by: leastBytesPerFrame.audio)
    let (least, o3) = videoBytes.addingReportingOverflow(audioBytes)
    if o1 || o2 || o3 || least > expected.maxBytes {
      reasons.append(
        "the output (\(plan.duration) s) would take at least "
          + "\(o1 || o2 || o3 ? "more than 2^63" : "\(least)") bytes, more than the "
          + "\(expected.maxBytes) its clips allow")
    }
    return reasons
  }

  // MARK: - Chapters

  /// Longest FFmetadata text (the chapters) passed to ffmpeg on its command line; beyond it the
  /// chapters are dropped with a warning (one argument may hold 128 KiB on Linux).
  static let chapterTextLimit = 64 << 10

  /// The output's chapters: each clip's chapters moved to the clip's start on the timeline
  /// (exact), clamped to its span (those starting at or after its end are dropped, with a
  /// warning); before a clip's first chapter, and for a clip without chapters, a chapter named
  /// after the clip's file. Each ends where the next starts, the last at `total`, as an MP4
  /// chapter track presents them. Empty when no clip has chapters.
  static func chapters(_ clips: [ProbedClip], _ planned: [PlannedClip], total: MediaTime)
    -> (chapters: [PlannedChapter], warnings: [String])
  {
    guard clips.contains(where: { !$0.chapters.isEmpty }) else { return ([], []) }
    var warnings: [String] = []
    var starts: [(start: MediaTime, title: String, clip: Int)] = []
    for (index, clip) in clips.enumerated() {
      let span = planned[index]
      let name = FileName.display(
        String(clip.path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""))
      var own: [(start: MediaTime, title: String, clip: Int)] = []
      for (number, chapter) in clip.chapters.enumerated() {
        guard chapter.start < span.duration else {
          warnings.append(
            "clip \(index + 1) (\(clip.path)): chapter \(number + 1) starts at "
              + "\(chapter.start) s, at or after the clip's end (\(span.duration) s): dropped")
          continue
        }
        let start = max(chapter.start, .zero)
        own.append((span.start + start, chapter.title ?? "Chapter \(number + 1)", index))
      }
      own.sort { $0.start < $1.start }
      if own.first.map({ span.start < $0.start }) ?? true {
        own.insert((span.start, name, index), at: 0)
      }
      starts += own
    }
    // Two chapters at one time: the later one in the list stays (the other would last 0 s).
    var unique: [(start: MediaTime, title: String, clip: Int)] = []
    for entry in starts {
      if let last = unique.last, last.start == entry.start { unique.removeLast() }
      unique.append(entry)
    }
    var chapters: [PlannedChapter] = []
    for (index, entry) in unique.enumerated() {
      let end = index + 1 < unique.count ? unique[index + 1].start : total
      chapters.append(
        PlannedChapter(start: entry.start, end: end, title: entry.title, clip: entry.clip))
    }
    if metadataText(chapters).utf8.count > chapterTextLimit {
      warnings.append(
        "\(chapters.count) chapters take more than \(chapterTextLimit) bytes: all dropped")
      return ([], warnings)
    }
    return (chapters, warnings)
  }

  /// The chapters as an FFmetadata file (`;FFMETADATA1`), each in the exact time base of its
  /// start and end (microseconds when that does not fit in 32 bits, FFmetadata's limit).
  static func metadataText(_ chapters: [PlannedChapter]) -> String {
    var lines = [";FFMETADATA1"]
    for chapter in chapters {
      let (scale, start, end) = commonScale(chapter.start, chapter.end)
      lines += [
        "[CHAPTER]", "TIMEBASE=1/\(scale)", "START=\(start)", "END=\(end)",
        "title=" + escapeMetadata(chapter.title),
      ]
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// `a` and `b` counted in one timescale that fits in 32 bits: the least common multiple of
  /// theirs (exact), or microseconds (rounded) when that does not fit.
  static func commonScale(_ a: MediaTime, _ b: MediaTime) -> (scale: Int64, a: Int64, b: Int64) {
    let divisor = MediaTime.gcd(a.timescale, b.timescale)
    let (lcm, overflow) = (a.timescale / divisor).multipliedReportingOverflow(by: b.timescale)
    if !overflow, lcm <= Int64(Int32.max) {
      let (x, o1) = a.value.multipliedReportingOverflow(by: lcm / a.timescale)
      let (y, o2) = b.value.multipliedReportingOverflow(by: lcm / b.timescale)
      if !o1 && !o2 { return (lcm, x, y) }
    }
    let microseconds = Rational(1_000_000, 1)!
    return (1_000_000, a.units(atRate: microseconds), b.units(atRate: microseconds))
  }

  /// A value for an FFmetadata file: `=`, `;`, `#`, `\\` and line breaks escaped with `\\`.
  static func escapeMetadata(_ text: String) -> String {
    var escaped = ""
    for character in text {
      if "=;#\\\n".contains(character) { escaped.append("\\") }
      escaped.append(character)
    }
    return escaped
  }

  // MARK: - Clips

  /// A clip with the streams the merge uses.
  struct Source {
    let index: Int
    let clip: ProbedClip
    let stream: MediaStream
    let video: ClipVideo
    let audio: ClipAudio?
    /// The clip's span: the probe's union of its streams, never shorter than either.
    let duration: MediaTime

    init(index: Int, clip: ProbedClip) throws(MergeError) {
      self.index = index
      self.clip = clip
      let label = "clip \(index + 1) (\(clip.path))"
      guard let stream = clip.videoStream, let info = stream.video else {
        throw .incompatibleInputs(
          path: clip.path, reasons: ["\(label) has no video stream (cover art does not count)"])
      }
      guard let duration = stream.duration.map(MediaTime.init), duration > .zero else {
        throw .incompatibleInputs(
          path: clip.path, reasons: ["\(label): its video stream presents no frames"])
      }
      self.stream = stream
      let orientation = info.orientation
      guard info.width > 0, info.height > 0, orientation.displayWidth > 0,
        orientation.displayHeight > 0
      else {
        throw .incompatibleInputs(
          path: clip.path,
          reasons: ["\(label): its video has no picture size (\(info.width)x\(info.height))"])
      }
      video = ClipVideo(
        stream: stream.index, codec: stream.codec.name, profile: stream.codec.profile,
        width: info.width, height: info.height, displayWidth: orientation.displayWidth,
        displayHeight: orientation.displayHeight, orientation: orientation.name,
        rotation: orientation.rotation, mirrored: orientation.mirrored,
        frameRate: info.frameRate.best, timeBase: stream.timeBase, duration: duration)
      if let audioStream = clip.audioStream, let details = audioStream.audio,
        let audioDuration = audioStream.duration.map(MediaTime.init), audioDuration > .zero
      {
        audio = ClipAudio(
          stream: audioStream.index, codec: audioStream.codec.name,
          sampleRate: details.sampleRate, channels: details.channels,
          channelLayout: details.channelLayout, duration: audioDuration)
      } else {
        audio = nil
      }
      var span = clip.info.duration.map(MediaTime.init) ?? duration
      span = max(span, duration, audio?.duration ?? .zero)
      self.duration = span
    }

    var label: String { "clip \(index + 1) (\(clip.path))" }
  }

  // MARK: - Copy or encode

  /// Every reason the video cannot be copied: what the request asks, what the container takes,
  /// what differs between each clip and the first, and what the platform does not play.
  func copyBlockers(_ sources: [Source], container: String) -> [CopyBlocker] {
    var blockers: [CopyBlocker] = []
    if request.method == .encode {
      blockers.append(CopyBlocker(clip: nil, field: "request", reason: "--encode asks for it"))
    }
    if let reason = request.export.copyBlockReason {
      blockers.append(CopyBlocker(clip: nil, field: "request", reason: reason))
    }
    if container != "mp4" && container != "mov" {
      blockers.append(
        CopyBlocker(
          clip: nil, field: "request",
          reason: "the clips are copied into MP4 or QuickTime only (the output is \(container))"))
    }
    if let size = request.size {
      blockers.append(
        CopyBlocker(
          clip: nil, field: "request",
          reason: "--size \(size) asks for a render size (a copy keeps the clips' own)"))
    }
    let first = sources[0]
    let copyable = container == "mov" ? Self.movCopyable : Self.mp4Copyable
    if !copyable.contains(first.video.codec) {
      blockers.append(
        CopyBlocker(
          clip: 0, field: "video.codec",
          reason: "\(first.label): \(first.video.codec) video cannot be copied into "
            + "\(container == "mov" ? "QuickTime" : "MP4")"))
    }
    for source in sources where source.clip.absolutePath.contains("\n") {
      blockers.append(
        CopyBlocker(
          clip: source.index, field: "path",
          reason: "\(source.label): a path with a line break cannot be named in a concat list"))
    }
    for source in sources where source.clip.videoPacketsOutsideEdits > 0 {
      let count = source.clip.videoPacketsOutsideEdits
      blockers.append(
        CopyBlocker(
          clip: source.index, field: "video.edit_list",
          reason: "\(source.label): \(count) video packet\(count == 1 ? "" : "s") lie outside "
            + "its edit list (a copy would show them)"))
    }
    for source in sources.dropFirst() {
      blockers += differences(source, from: first)
    }
    if let platform = request.platform {
      let checker = CompatibilityChecker()
      for source in sources {
        let verdict = checker.check(source.clip.info, on: platform)
        for finding in verdict.findings
        where finding.severity == .fail && finding.fix == .transcodeVideo {
          blockers.append(
            CopyBlocker(
              clip: source.index, field: "platform",
              reason: "\(source.label) does not play on \(platform.id): \(finding.reason)"))
        }
      }
    }
    return blockers
  }

  /// What differs between `source` and the first clip, field by field.
  func differences(_ source: Source, from first: Source) -> [CopyBlocker] {
    var blockers: [CopyBlocker] = []
    func compare(_ field: String, _ what: String, _ mine: String?, _ theirs: String?, _ why: String)
    {
      guard mine != theirs else { return }
      blockers.append(
        CopyBlocker(
          clip: source.index, field: field,
          reason: "\(source.label): \(what) \(mine ?? "unknown") differs from clip 1's "
            + "\(theirs ?? "unknown")" + (why.isEmpty ? "" : " (\(why))")))
    }
    let (a, b) = (source.stream, first.stream)
    let (av, bv) = (a.video!, b.video!)
    compare("video.codec", "video codec", a.codec.name, b.codec.name, "")
    compare("video.tag", "codec tag", a.codec.tag, b.codec.tag, "one sample entry per track")
    compare("video.profile", "profile", a.codec.profile, b.codec.profile, "")
    compare("video.level", "level", a.codec.level, b.codec.level, "")
    compare(
      "video.size", "coded size", "\(av.width)x\(av.height)", "\(bv.width)x\(bv.height)", "")
    compare("video.pixel_format", "pixel format", av.pixelFormat, bv.pixelFormat, "")
    compare(
      "video.sample_aspect_ratio", "sample aspect ratio", ratio(av.sampleAspectRatio),
      ratio(bv.sampleAspectRatio), "")
    compare(
      "video.time_base", "video time base", ratio(a.timeBase), ratio(b.timeBase),
      "the concat demuxer does not rescale timestamps: the clip would play at the wrong speed")
    if source.clip.videoExtradata != first.clip.videoExtradata {
      compare(
        "video.extradata", "codec configuration",
        Self.describe(source.clip.videoExtradata), Self.describe(first.clip.videoExtradata),
        "SPS/PPS: a decoder set up by one misreads the other's pictures")
    }
    compare(
      "orientation", "display matrix", matrix(av.orientation), matrix(bv.orientation),
      "one matrix applies to the whole track")
    compare(
      "video.track_id", "video track id", source.clip.videoContainerID.map { "\($0)" },
      first.clip.videoContainerID.map { "\($0)" },
      "the concat list selects the video by track id")
    return blockers
  }

  private func ratio(_ value: Rational?) -> String? { value.map { "\($0.num)/\($0.den)" } }

  private func matrix(_ orientation: Orientation) -> String {
    let t = orientation.transform
    let numbers = [t.a, t.b, t.c, t.d].map { $0 == $0.rounded() ? "\(Int($0))" : "\($0)" }
    return "\(orientation.name) (\(numbers.joined(separator: ",")))"
  }

  /// `41 bytes, fnv 0123abcd`: enough to tell two configurations apart in a message.
  static func describe(_ bytes: [UInt8]) -> String {
    guard !bytes.isEmpty else { return "none" }
    var hash: UInt32 = 0x811C_9DC5
    for byte in bytes { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
    let hex = String(hash, radix: 16)
    return "\(bytes.count) bytes, fnv \(String(repeating: "0", count: 8 - hex.count))\(hex)"
  }

  // MARK: - Render size and rate

  /// A copy keeps the first clip's size, matrix and rate.
  func copyRender(_ sources: [Source]) -> RenderPlan {
    let video = sources[0].video
    return RenderPlan(
      width: video.width, height: video.height,
      sizeRule: "the clips' own size (stream copy: the pictures are not decoded)", fit: nil,
      frameRate: video.frameRate)
  }

  /// The guide's rule (largest display width by largest display height), or `--size`; then
  /// shrunk into the platform's largest size; then made even. The rate is the highest clip
  /// rate (AVFoundation: 1 / the greatest nominal frame rate), capped by the platform.
  func encodeRender(_ sources: [Source]) -> RenderPlan {
    var width: Int
    var height: Int
    var rule: String
    if let size = request.size {
      (width, height, rule) = (size.width, size.height, "--size \(size)")
    } else {
      let largest = RenderRules.largestSize(
        sources.map { ($0.video.displayWidth, $0.video.displayHeight) })!
      width = largest.width
      height = largest.height
      rule =
        "the largest display width (clip \(largest.widest + 1)) by the largest display height "
        + "(clip \(largest.tallest + 1)), after rotation"
    }
    var rate = RenderRules.highestRate(sources.map(\.video.frameRate)) ?? Rational(30, 1)!
    if let platform = request.platform {
      let limited = platform.transcode.limit(width: width, height: height, rate: rate)
      (width, height, rate) = (limited.width, limited.height, limited.rate)
      if let box = limited.box {
        rule += ", shrunk to fit \(platform.id)'s \(box.width)x\(box.height)"
      }
    }
    let sized = request.export.renderSize(width: width, height: height)
    if sized != (width, height), let preset = request.export.preset {
      rule += ", fitted into --preset \(preset.rawValue)'s size (never scaled up)"
      (width, height) = sized
    }
    width = RenderRules.even(width)
    height = RenderRules.even(height)
    return RenderPlan(
      width: width, height: height, sizeRule: rule, fit: request.fit, frameRate: rate)
  }

  // MARK: - Per-clip transforms and filters

  /// The filters that turn a clip upright from its display matrix: the rotation, then the flip
  /// when mirrored, folded into one filter where FFmpeg has one.
  public static func uprightFilters(rotation: Int, mirrored: Bool) -> [String] {
    switch (rotation, mirrored) {
    case (90, false): ["transpose=clock"]
    case (180, false): ["hflip", "vflip"]
    case (270, false): ["transpose=cclock"]
    case (0, true): ["hflip"]
    case (90, true): ["transpose=cclock_flip"]  // rotate clockwise, then flip: a transposition
    case (180, true): ["vflip"]
    case (270, true): ["transpose=clock_flip"]
    default: []
    }
  }

  /// Where the upright clip lands in the render: scaled to fit inside (black bars) or to cover
  /// (cropped), centred, even sizes and offsets (4:2:0 chroma).
  /// The arithmetic is the composition's (`RenderRules.place`: `fit` is `contain`, `fill` is
  /// `cover`).
  static func transform(_ video: ClipVideo, into render: RenderPlan) -> ClipTransform {
    let placed = RenderRules.place(
      width: video.displayWidth, height: video.displayHeight, intoWidth: render.width,
      height: render.height, fit: render.fit == .fill ? .cover : .contain)
    return ClipTransform(
      upright: uprightFilters(rotation: video.rotation, mirrored: video.mirrored), x: placed.x,
      y: placed.y, width: placed.width, height: placed.height)
  }

  /// One clip's video chain: only frames inside the clip's span (a frame whose timestamp lies
  /// outside it, a wild one, is dropped), the stream's end held at the span's end (the ffmpeg CLI
  /// ends a stream at its last frame plus that frame's duration, which a damaged file sets to
  /// days: the `fps` filter would make every frame of them), then frame rate (the first frame
  /// repeated back to the clip's start if the video starts late), upright, scaled, padded or
  /// cropped, square pixels, 4:2:0, then exactly `frames` frames (the last one held when the
  /// audio is longer).
  static func videoFilter(
    _ transform: ClipTransform, render: RenderPlan, rate: Rational, frames: Int64,
    span: MediaTime
  ) -> String {
    let end = "\(span.value)/\(span.timescale)"
    var filters = [
      "select=between(t\\,-1\\,\(end))", "setpts=min(PTS\\,\(end)/TB)",
      "fps=\(rate.num)/\(rate.den):start_time=0",
    ]
    filters += transform.upright
    filters.append("scale=\(transform.width):\(transform.height)")
    if transform.x >= 0 && transform.y >= 0 {
      if transform.width != render.width || transform.height != render.height {
        filters.append("pad=\(render.width):\(render.height):\(transform.x):\(transform.y)")
      }
    } else {
      filters.append("crop=\(render.width):\(render.height):\(-transform.x):\(-transform.y)")
    }
    filters += [
      "setsar=1", "format=yuv420p", "tpad=stop=-1:stop_mode=clone", "trim=end_frame=\(frames)",
      "setpts=PTS-STARTPTS",
    ]
    return filters.joined(separator: ",")
  }

  /// One clip's audio chain: only frames that start inside the clip's span (a wild timestamp
  /// would make the resampler fill the distance with silence), resampled to the output's rate
  /// and layout, silence in front if it starts late and behind if it is shorter, exactly
  /// `samples` samples. A clip without audio gets that much silence.
  static func audioFilter(
    hasAudio: Bool, output: AudioEncoding, samples: Int64, span: MediaTime
  ) -> String {
    let rate = output.sampleRate
    let layout = output.channelLayout
    let head =
      hasAudio
      ? [
        "aselect=between(t\\,-1\\,\(span.value)/\(span.timescale))",
        "aresample=\(rate):async=1:first_pts=0",
        "aformat=sample_fmts=fltp:sample_rates=\(rate):channel_layouts=\(layout)", "apad",
      ]
      : ["anullsrc=r=\(rate):cl=\(layout)", "aformat=sample_fmts=fltp"]
    return (head + ["atrim=end_sample=\(samples)", "asetpts=N/SR/TB"]).joined(separator: ",")
  }

  // MARK: - Output streams

  /// The output's video settings: `-c:v copy`, the platform's recipe, or the defaults.
  func videoEncoding(method: VideoMethod, sources: [Source]) -> VideoEncoding {
    if method == .copy {
      var tag: String?
      if let wanted = request.platform?.transcode.videoTag, sources[0].stream.codec.tag != wanted,
        sources[0].video.codec == (wanted == "hvc1" ? "hevc" : "h264")
      {
        tag = wanted
      }
      return VideoEncoding(method: .copy, codec: sources[0].video.codec, tag: tag)
    }
    guard let recipe = request.platform?.transcode else {
      return VideoEncoding(
        method: .encode, codec: Self.defaultVideo.codec, encoder: Self.defaultVideo,
        preset: Self.defaultPreset, crf: Self.defaultCRF)
    }
    return VideoEncoding(
      method: .encode, codec: recipe.video.codec, encoder: recipe.video,
      bitRate: recipe.videoBitRate, tag: recipe.videoTag)
  }

  /// The output's audio: AAC once (see `audioReason`), at the platform's rate and channel
  /// limits; nil when no clip has audio.
  func audioEncoding(_ sources: [Source]) -> AudioEncoding? {
    guard sources.contains(where: { $0.audio != nil }) else { return nil }
    var sampleRate = Self.defaultSampleRate
    var channels = 2
    var encoder = Self.defaultAudio
    if let recipe = request.platform?.transcode {
      sampleRate = min(sampleRate, recipe.audioSampleRate)
      channels = min(channels, max(1, recipe.audioChannels))
      encoder = recipe.audio
    }
    let container = OutputContainer(path: request.output) ?? .mp4
    if request.export.audioCodec(for: container) == .opus { sampleRate = 48_000 }
    return AudioEncoding(
      codec: encoder.codec, sampleRate: sampleRate, channels: channels,
      channelLayout: channels == 1 ? "mono" : "stereo", encoder: encoder,
      reason: Self.audioReason)
  }

  /// What the written file must show.
  func expectedOutput(
    method: VideoMethod, sources: [Source], clips: [PlannedClip], render: RenderPlan,
    video: VideoEncoding, audio: AudioEncoding?
  ) -> ExpectedOutput {
    let rate = render.frameRate ?? Rational(30, 1)!
    let videoDuration: MediaTime
    let displayWidth: Int
    let displayHeight: Int
    let orientation: String
    if method == .copy {
      // The concat demuxer starts the last clip at its place; its video lasts what it lasts.
      let last = sources.last!
      videoDuration = clips.last!.start + last.video.duration
      (displayWidth, displayHeight) = (last.video.displayWidth, last.video.displayHeight)
      orientation = sources[0].video.orientation
    } else {
      videoDuration = MediaTime(units: clips.compactMap(\.frames).reduce(0, +), rate: rate)
      (displayWidth, displayHeight) = (render.width, render.height)
      orientation = "up"
    }
    var audioDuration: MediaTime?
    if let audio {
      audioDuration = MediaTime(
        units: clips.compactMap(\.samples).reduce(0, +),
        rate: Rational(Int64(audio.sampleRate), 1)!)
    }
    let total = clips.last.map(\.end) ?? .zero
    return ExpectedOutput(
      width: render.width, height: render.height, displayWidth: displayWidth,
      displayHeight: displayHeight, orientation: orientation, videoCodec: video.codec,
      audioCodec: audio?.codec, duration: max(videoDuration, audioDuration ?? .zero),
      videoDuration: videoDuration, audioDuration: audioDuration,
      videoTolerance: MediaTime(units: 1, rate: rate),
      audioTolerance: MediaTime(
        value: 1024, timescale: Int64(audio?.sampleRate ?? Self.defaultSampleRate)),
      maxBytes: Self.maxBytes(
        clips: sources.map(\.clip), duration: total, platform: request.platform,
        audio: audio != nil))
  }
}

extension MergePlanner {
  /// Writes what `--preset`, `--video-codec`, `--audio-codec`, `--crf`, `--bitrate` and
  /// `--bits-per-pixel` make of an encode into `plan` (its video and audio settings, the codecs
  /// the output must show): the compositor's settings as `MergeExecutor.settings` gives them.
  func describeExport(_ plan: inout MergePlan, container: OutputContainer) {
    let settings = MergeExecutor.settings(for: plan, timeout: nil, export: request.export)
    if plan.method == .copy {
      // The video is copied; only the audio is encoded.
    } else if settings.video {
      let codec = settings.videoCodec
      plan.video.codec = codec.codecName
      plan.video.encoder = VideoEncoderSettings(
        encoder: codec.encoder,
        profile: codec == .h264 || codec == .hevc ? settings.profile : nil,
        pixelFormat: "yuv420p", level: codec == .h264 ? settings.level : nil)
      plan.video.preset = settings.preset
      plan.video.crf =
        settings.videoBitRate == nil
        ? Int((settings.crf ?? codec.defaultCRF).rounded()) : nil
      plan.video.bitRate = settings.videoBitRate
      plan.video.tag = codec == .hevc && container.isISOBMFF ? "hvc1" : plan.video.tag
      plan.expected.videoCodec = codec.codecName
    } else {
      plan.video.codec = "none"
      plan.video.encoder = nil
      plan.video.preset = nil
      plan.video.crf = nil
      plan.video.bitRate = nil
      plan.expected.videoCodec = "none"
    }
    if var audio = plan.audio {
      audio.codec = settings.audioCodec.codecName
      audio.sampleRate = settings.sampleRate
      audio.encoder = AudioEncoderSettings(
        encoder: settings.audioCodec.encoder, bitRate: settings.audioBitRate)
      plan.audio = audio
      plan.expected.audioCodec = audio.codec
    }
  }
}
