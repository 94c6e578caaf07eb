import MediaCore
import AV
import MediaProbe

/// The plan and the result in words, for standard error.
public enum MergeSummary {
  /// What will be (or was) done: the timeline, each clip's streams and transform, the method
  /// and why.
  public static func plan(_ plan: MergePlan) -> String {
    let render = plan.render
    var lines: [String] = []
    let rate = render.frameRate.map { " at \(rateText($0)) fps" } ?? ""
    lines.append(
      "\(plan.clips.count) clip\(plan.clips.count == 1 ? "" : "s") -> \(FileName.display(plan.output)): "
        + "\(plan.duration) s, \(render.width)x\(render.height)\(rate) "
        + "(\(render.sizeRule))")
    var rows: [[String]] = []
    for clip in plan.clips {
      let video = clip.video
      var picture = "\(video.codec) \(video.width)x\(video.height) \(video.orientation)"
      if video.rotation != 0 || video.mirrored {
        picture += " -> \(video.displayWidth)x\(video.displayHeight)"
      }
      if let rate = video.frameRate { picture += " \(rateText(rate)) fps" }
      var sound = "no audio (silence)"
      if let audio = clip.audio {
        sound = "\(audio.codec) \(audio.sampleRate.map { "\($0) Hz" } ?? "?") "
        sound += audio.channelLayout ?? audio.channels.map { "\($0) ch" } ?? "?"
      }
      var pads: [String] = []
      if clip.padding.video > .zero { pads.append("last frame held \(clip.padding.video) s") }
      if clip.audio != nil && clip.padding.audio > .zero {
        pads.append("silence \(clip.padding.audio) s")
      }
      rows.append([
        "  \(clip.index + 1)", FileName.display(clip.path), "\(clip.start) +\(clip.duration) s",
        picture, sound,
        pads.joined(separator: ", "),
      ])
    }
    lines.append(table(rows))
    switch plan.method {
    case .copy:
      lines.append("method: stream copy of the video (every clip shares its codec parameters)")
    case .encode:
      lines.append(
        "method: encode (\(MergePlanner.options(plan.video).joined(separator: " ")); fit: "
          + "\(render.fit?.rawValue ?? "fit"))")
      for blocker in plan.copyBlockers { lines.append("  not copied: \(blocker.reason)") }
    }
    if let audio = plan.audio {
      lines.append(
        "audio: \(audio.codec) \(audio.sampleRate) Hz \(audio.channelLayout), encoded once")
    } else {
      lines.append("audio: none (no clip has audio)")
    }
    if let platform = plan.platform { lines.append("platform: \(platform)") }
    if !plan.chapters.isEmpty {
      lines.append(
        "chapters: \(plan.chapters.count), moved to their clips' starts on the timeline")
    }
    for warning in plan.warnings { lines.append("warning: \(warning)") }
    return lines.joined(separator: "\n") + "\n"
  }

  /// What was written and checked.
  public static func result(_ plan: MergePlan, _ result: MergeResult) -> String {
    let info = result.output
    let duration = info.duration.map { fixed($0.seconds, places: 3) } ?? "?"
    return "wrote \(FileName.display(plan.output)): \(duration) s (planned \(plan.duration)), "
      + (plan.expected.videoCodec == "none"
        ? "audio only, "
        : "\(plan.expected.width)x\(plan.expected.height) \(plan.expected.orientation), ")
      + "\(plan.method == .copy ? "copied" : "encoded") in-process in "
      + "\(fixed(result.renderSeconds, places: 2)) s; checked in "
      + "\(fixed(result.checkSeconds, places: 2)) s (decodes cleanly, durations "
      + "within one frame, size, orientation, streams)"
      + (result.clippedSamples > 0
        ? "; \(result.clippedSamples) audio samples clipped (the clips' sum passed full scale)"
        : "") + "\n" + (result.size.map(sizeLine) ?? "")
  }

  /// `--max-size`'s outcome: bytes against the cap, the passes, the quality, why it stays under.
  static func sizeLine(_ size: SizeReport) -> String {
    "size: \(size.bytes) of \(size.maxBytes) bytes (\(fixed(100 * size.fraction, places: 1))%) "
      + "after \(size.passes) pass\(size.passes == 1 ? "" : "es") at "
      + (size.videoBitRate.map { "\($0) b/s video" } ?? "\(size.audioBitRate) b/s audio")
      + (size.attempts.contains { $0.x264Pass == 2 }
        ? " (x264's two-pass"
          + (size.attempts.contains(where: \.replayed) ? " on the first pass's pictures)" : ")")
        : "")
      + (size.minimumPSNR.map { ", lowest PSNR \(fixed($0, places: 1)) dB" } ?? "")
      + (size.reason.map { "; under 95%: \($0)" } ?? "") + "\n"
  }

  /// The command as one shell line, with its standard input when it has one.
  public static func commandLine(_ plan: MergePlan) -> String {
    let line = plan.ffmpeg.arguments.map(shellQuoted).joined(separator: " ")
    guard let stdin = plan.ffmpeg.stdin else { return line }
    return "printf '%s' \(shellQuoted(stdin)) | \(line)"
  }

  static func shellQuoted(_ argument: String) -> String {
    let safe = argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=+,@%".contains($0) }
    return safe && !argument.isEmpty ? argument : "'" + argument.replacing("'", with: "'\\''") + "'"
  }

  private static func rateText(_ rate: MediaCore.Rational) -> String {
    rate.den == 1 ? "\(rate.num)" : fixed(rate.value, places: 3)
  }

  private static func table(_ rows: [[String]]) -> String {
    guard let columns = rows.map(\.count).max() else { return "" }
    var widths = [Int](repeating: 0, count: columns)
    for row in rows {
      for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
    }
    return rows.map { row in
      var cells: [String] = []
      for (column, cell) in row.enumerated() {
        cells.append(
          column == row.count - 1
            ? cell : cell + String(repeating: " ", count: widths[column] - cell.count))
      }
      var line = cells.joined(separator: "  ")
      while line.last == " " { line.removeLast() }
      return line
    }.joined(separator: "\n")
  }
}
