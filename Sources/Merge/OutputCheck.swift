import Compatibility
import MediaCore
import AV
import MediaProbe

/// Compares the probe of a written file (scanned and decoded, `--scan --verify`) with its plan.
public enum OutputCheck {
  /// Every way `info` disagrees with `plan`: it does not decode cleanly, a stream is missing or
  /// extra, the codec, size or display orientation differ, a duration is off by more than one
  /// frame (audio: one AAC frame), or it fails on the platform it was made for. Empty when it
  /// matches.
  public static func problems(
    _ info: MediaInfo, against plan: MergePlan, platform: Platform? = nil
  ) -> [String] {
    var problems: [String] = []
    let expected = plan.expected
    if let integrity = info.integrity, integrity != .ok {
      let first = info.streams.compactMap { $0.decode?.errors.first.first }.first
      problems.append(
        "it does not decode cleanly (\(integrity.rawValue)"
          + (first.map { ": \($0.kind.rawValue), \($0.message)" } ?? "") + ")")
    } else if info.integrity == nil {
      problems.append("it was not decoded")
    }
    let videos = info.streams.filter {
      $0.type == .video && $0.disposition["attached_pic"] != true
    }
    let audios = info.streams.filter { $0.type == .audio }
    let videoCount = expected.videoCodec == "none" ? 0 : 1
    if videos.count != videoCount {
      problems.append("\(videos.count) video streams, \(videoCount) planned")
    }
    // The only other track an MP4 may get is the chapter track of planned chapters.
    let others = info.streams.count - videos.count - audios.count
    let chapterTracks = plan.chapters.isEmpty ? 0 : 1
    if others != chapterTracks {
      problems.append(
        "\(others) other streams (data, subtitles), \(chapterTracks) planned"
          + (chapterTracks == 1 ? " (the chapter track)" : ""))
    }
    let audioCount = expected.audioCodec == nil ? 0 : 1
    if audios.count != audioCount {
      problems.append("\(audios.count) audio streams, \(audioCount) planned")
    }
    if let video = videos.first, let details = video.video {
      if video.codec.name != expected.videoCodec {
        problems.append("video codec \(video.codec.name), \(expected.videoCodec) planned")
      }
      if details.width != expected.width || details.height != expected.height {
        problems.append(
          "video size \(details.width)x\(details.height), "
            + "\(expected.width)x\(expected.height) planned")
      }
      let orientation = details.orientation
      if orientation.name != expected.orientation {
        problems.append("orientation \(orientation.name), \(expected.orientation) planned")
      }
      if orientation.displayWidth != expected.displayWidth
        || orientation.displayHeight != expected.displayHeight
      {
        problems.append(
          "display size \(orientation.displayWidth)x\(orientation.displayHeight), "
            + "\(expected.displayWidth)x\(expected.displayHeight) planned")
      }
      problems += mismatch(
        "video duration", video.duration, expected.videoDuration, expected.videoTolerance)
    }
    if let audio = audios.first, let planned = expected.audioDuration {
      if audio.codec.name != expected.audioCodec {
        problems.append("audio codec \(audio.codec.name), \(expected.audioCodec ?? "none") planned")
      }
      problems += mismatch("audio duration", audio.duration, planned, expected.audioTolerance)
    }
    problems += mismatch("duration", info.duration, expected.duration, expected.videoTolerance)
    if let platform {
      let verdict = CompatibilityChecker().check(info, on: platform)
      if verdict.verdict == .fail {
        let reasons = verdict.findings.filter { $0.severity == .fail }.map(\.reason)
        problems.append(
          "it does not pass on \(platform.id): " + reasons.joined(separator: "; "))
      }
    }
    return problems
  }

  /// How the output's chapters differ from the plan's: their number, a title, or a start or
  /// end more than 1 ms away (the MP4 chapter track counts milliseconds). Empty when they match.
  package static func chapterProblems(_ chapters: [InputChapter], against planned: [PlannedChapter])
    -> [String]
  {
    guard chapters.count == planned.count else {
      return ["\(chapters.count) chapters, \(planned.count) planned"]
    }
    var problems: [String] = []
    let tolerance = 0.001 + 1e-9
    for (index, (chapter, plan)) in zip(chapters, planned).enumerated() {
      let scale = chapter.timeBase.value
      let (start, end) = (Double(chapter.start) * scale, Double(chapter.end) * scale)
      if abs(start - plan.start.seconds) > tolerance || abs(end - plan.end.seconds) > tolerance
        || chapter.title != plan.title
      {
        problems.append(
          "chapter \(index + 1) \(fixed(start, places: 3))-"
            + "\(fixed(end, places: 3)) s \"\(chapter.title ?? "")\", "
            + "\(plan.start)-\(plan.end) s \"\(plan.title)\" planned")
      }
    }
    return problems
  }

  private static func mismatch(
    _ what: String, _ actual: MediaDuration?, _ planned: MediaTime, _ tolerance: MediaTime
  ) -> [String] {
    guard let actual else { return ["\(what) unknown, \(planned) s planned"] }
    let off = abs(actual.seconds - planned.seconds)
    guard off > tolerance.seconds + 1e-6 else { return [] }
    return [
      "\(what) \(fixed(actual.seconds, places: 6)) s, \(planned.seconds) s planned "
        + "(off by more than \(fixed(tolerance.seconds, places: 6)) s)"
    ]
  }
}
