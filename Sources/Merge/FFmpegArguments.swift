import MediaCore
import AV
import MediaProbe

extension MergePlanner {
  /// The ffmpeg command of a plan: every clip opened as a local file with its probed demuxer
  /// forced (no protocol but `file`, the CLI's autorotation off: the filters rotate), one filter
  /// graph, explicit maps, the output's settings, `+faststart`, progress on standard output.
  func command(for plan: MergePlan, sources: [Source]) -> FFmpegCommand {
    var arguments = [
      request.ffmpeg, "-hide_banner", "-nostats", "-loglevel",
      request.verbose ? "warning" : "error",
      "-progress", "pipe:1", "-y",
    ]
    var stdin: String?
    var inputs = 0
    var graph: [String] = []
    var maps: [String] = []
    var audioLabels: [String] = []

    if plan.method == .copy {
      // The video comes from a concat list on standard input that declares one stream (the
      // video track, by id): with the audio left out, the list's start is the video's own, not
      // the AAC priming's 21 ms before it. No automatic conversion: the clips share their
      // SPS/PPS, so the packets are copied as they are (with it, H.264 keyframes gained in-band
      // parameter sets, 37 bytes each, in an avc1 track).
      stdin = concatList(plan: plan, sources: sources)
      arguments += [
        "-f", "concat", "-safe", "0", "-auto_convert", "0", "-protocol_whitelist", "file,pipe",
        "-i", "pipe:0",
      ]
      inputs = 1
      maps += ["-map", "0:0"]
      var nextInput = 1
      for (index, source) in sources.enumerated() {
        guard let filter = plan.clips[index].audioFilter else { continue }
        if let audio = source.audio {
          arguments += input(source)
          graph.append("[\(nextInput):\(audio.stream)]\(filter)[a\(index)]")
          nextInput += 1
          inputs = nextInput
        } else {
          graph.append("\(filter)[a\(index)]")
        }
        audioLabels.append("[a\(index)]")
      }
    } else {
      arguments.insert("-nostdin", at: 1)
      var videoLabels: [String] = []
      inputs = sources.count
      for (index, source) in sources.enumerated() {
        arguments += ["-noautorotate"] + input(source)
        graph.append(
          "[\(index):\(source.video.stream)]\(plan.clips[index].videoFilter!)[v\(index)]")
        videoLabels.append("[v\(index)]")
      }
      for (index, source) in sources.enumerated() {
        guard let filter = plan.clips[index].audioFilter else { continue }
        if let audio = source.audio {
          graph.append("[\(index):\(audio.stream)]\(filter)[a\(index)]")
        } else {
          graph.append("\(filter)[a\(index)]")
        }
        audioLabels.append("[a\(index)]")
      }
      graph.append(videoLabels.joined() + "concat=n=\(sources.count):v=1:a=0[v]")
      maps += ["-map", "[v]"]
    }
    if !audioLabels.isEmpty {
      graph.append(audioLabels.joined() + "concat=n=\(audioLabels.count):v=0:a=1[a]")
      maps += ["-map", "[a]"]
    }
    if !plan.chapters.isEmpty {
      // The chapters, re-timed, as an FFmetadata input carried in the argument itself (a
      // `data:` URL: no file to create or remove, and --plan shows it).
      let text = Self.metadataText(plan.chapters)
      arguments += [
        "-protocol_whitelist", "data", "-f", "ffmetadata", "-i",
        "data:text/plain;base64," + Self.base64(Array(text.utf8)),
      ]
    }
    if !graph.isEmpty { arguments += ["-filter_complex", graph.joined(separator: ";")] }
    arguments += maps
    // Chapters only from the plan: by default the CLI copies the first input's that has any,
    // at that clip's own times (clip 2's chapters landed at 0 s), with a chapter track.
    arguments += ["-map_chapters", plan.chapters.isEmpty ? "-1" : "\(inputs)"]
    arguments += Self.options(plan.video, rateLimits: plan.platform != nil)
    if let audio = plan.audio {
      arguments += audio.encoder.ffmpegArguments
      arguments += ["-ar", "\(audio.sampleRate)", "-ac", "\(audio.channels)"]
    }
    if ["mp4", "mov", "ipod"].contains(plan.container) {
      arguments += ["-movflags", "+faststart"]
    }
    arguments += ["-f", plan.container, plan.output]
    return FFmpegCommand(executable: request.ffmpeg, arguments: arguments, stdin: stdin)
  }

  /// `-f DEMUXER -protocol_whitelist file -i file:PATH`: the demuxer the probe found (so the CLI
  /// cannot pick another), local files only, and a path that can never be read as an option or
  /// a protocol.
  private func input(_ source: Source) -> [String] {
    let demuxer = source.clip.info.container.formatName.split(separator: ",").first.map(
      String.init)
    return (demuxer.map { ["-f", $0] } ?? []) + [
      "-protocol_whitelist", "file", "-i", "file:" + source.clip.path,
    ]
  }

  /// The concat list of a stream copy: one declared stream (the video track id), then each clip
  /// with its exact duration on the timeline, rounded to microseconds at its end so rounding
  /// never accumulates.
  private func concatList(plan: MergePlan, sources: [Source]) -> String {
    var lines = ["ffconcat version 1.0", "stream"]
    if let id = sources[0].clip.videoContainerID { lines.append("exact_stream_id \(id)") }
    let microseconds = Rational(1_000_000, 1)!
    for (index, source) in sources.enumerated() {
      let clip = plan.clips[index]
      let length = clip.end.units(atRate: microseconds) - clip.start.units(atRate: microseconds)
      let quoted = source.clip.absolutePath.replacing("'", with: "'\\''")
      lines.append("file 'file:\(quoted)'")
      lines.append("duration \(length / 1_000_000).\(sixDigits(length % 1_000_000))")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The video output options: `-c:v copy`, or the encoder and its settings, from the plan's
  /// typed settings (the one place they become ffmpeg options).
  /// - Parameter rateLimits: a bit rate comes with its peak and buffer (a platform's recipe);
  ///   false: an average, as `--bitrate` asks.
  static func options(_ video: VideoEncoding, rateLimits: Bool = true) -> [String] {
    var arguments: [String]
    if let encoder = video.encoder, video.method == .encode {
      arguments = ["-c:v", encoder.encoder]
      if encoder.encoder == "libvpx-vp9" {
        // libvpx-vp9's speed is `cpu-used`; a CRF without `-b:v 0` would be capped.
        arguments += ["-deadline", "good", "-cpu-used", video.preset ?? "5", "-row-mt", "1"]
        if video.crf != nil, video.bitRate == nil { arguments += ["-b:v", "0"] }
      } else if let preset = video.preset {
        arguments += ["-preset", preset]
      }
      if let crf = video.crf { arguments += ["-crf", "\(crf)"] }
      arguments += Array(encoder.ffmpegArguments.dropFirst(2))
      if let bitRate = video.bitRate {
        arguments += ["-b:v", "\(bitRate)"]
        if rateLimits, let limits = video.rateLimits {
          arguments += ["-maxrate", "\(limits.maxRate)", "-bufsize", "\(limits.bufferSize)"]
        }
      }
    } else {
      arguments = ["-c:v", "copy"]
    }
    if let tag = video.tag { arguments += ["-tag:v", tag] }
    return arguments
  }

  /// Standard base64 (RFC 4648, with padding).
  static func base64(_ bytes: [UInt8]) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var index = 0
    while index < bytes.count {
      let count = min(3, bytes.count - index)
      var group = 0
      for offset in 0..<3 {
        group = group << 8 | (offset < count ? Int(bytes[index + offset]) : 0)
      }
      for position in 0..<4 {
        out.append(
          position <= count ? alphabet[(group >> (18 - 6 * position)) & 63] : UInt8(ascii: "="))
      }
      index += 3
    }
    return String(decoding: out, as: UTF8.self)
  }

  private func sixDigits(_ value: Int64) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, 6 - text.count)) + text
  }
}
