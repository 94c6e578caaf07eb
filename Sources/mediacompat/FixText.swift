import CompatFix
import Compatibility
import MediaCore

/// `--fix`'s report for people: a few lines per file.
enum FixText {
  static func render(_ report: FixReport) -> String {
    var lines: [String] = []
    let target = report.output.map { " → \($0)" } ?? ""
    if let error = report.error {
      return "\(report.path): FAILED \(error.code): \(error.message)\n"
    }
    lines.append("\(report.path): \(report.status) (\(report.action?.rawValue ?? "?"))\(target)")
    if let reason = report.reason { lines.append("  why: \(reason)") }
    for step in report.plan?.cheaperSteps ?? [] where step.action != .none {
      lines.append("  not \(step.action.rawValue): \(step.reason)")
    }
    if let plan = report.plan, report.status == "planned" || report.status == "fixed" {
      if let video = plan.video {
        lines.append(
          "  video \(video.input): "
            + (video.encode.map { encode in
              "re-encode \(video.sourceCodec) → \(video.codec) (\(encode.settings.encoder)"
                + " profile \(encode.settings.profile ?? "-") level \(encode.settings.level ?? "-")"
                + (encode.bitRate.map { " \($0 / 1000) kb/s" }
                  ?? " crf \(RuleValue.number(encode.crf))") + " preset \(encode.preset)"
                + " \(encode.width)x\(encode.height)"
                + " \(fixed(encode.frameRate, places: 3)) fps, filter \(encode.filter))"
            } ?? "copy \(video.codec)" + (video.tag.map { " as \($0)" } ?? "")))
      }
      if let audio = plan.audio {
        lines.append(
          "  audio \(audio.input): "
            + (audio.encode.map { encode in
              "re-encode \(audio.sourceCodec) → \(audio.codec) (\(encode.settings.encoder)"
                + (encode.settings.bitRate.map { " \($0 / 1000) kb/s" } ?? "")
                + " \(encode.channels) ch \(encode.sampleRate) Hz)"
            } ?? "copy \(audio.codec)"))
      }
      lines.append("  container: \(plan.container)")
      if !plan.keptStreams.isEmpty {
        lines.append(
          "  also copied: stream" + (plan.keptStreams.count == 1 ? " " : "s ")
            + plan.keptStreams.map(String.init).joined(separator: ", "))
      }
      if !plan.droppedStreams.isEmpty {
        // Said here, not only in the NDJSON's plan: a second audio language or a subtitle track
        // the output does not carry is a loss the user should see.
        lines.append(
          "  left out: stream" + (plan.droppedStreams.count == 1 ? " " : "s ")
            + plan.droppedStreams.map(String.init).joined(separator: ", ")
            + " (the output carries one video and one audio stream)")
      }
    }
    if let command = report.command { lines.append("  ffmpeg: \(command)") }
    if let recheck = report.recheck {
      lines.append(
        "  re-check: "
          + recheck.verdicts.map { "\($0.platform) \($0.verdict.rawValue)" }.joined(
            separator: ", ")
          + ", decode \(recheck.integrity?.rawValue ?? "unknown")")
    }
    if let quality = report.quality {
      lines.append(
        "  quality: SSIM \(fixed(quality.ssim, places: 4)), PSNR "
          + (quality.psnr.map { "\(fixed($0, places: 2)) dB" } ?? "inf")
          + " over \(quality.frames) frames")
    }
    if let bytesIn = report.bytesIn, let bytesOut = report.bytesOut {
      lines.append("  bytes: \(bytesIn) → \(bytesOut), \(fixed(report.seconds, places: 2)) s")
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
