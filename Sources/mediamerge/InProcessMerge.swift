import Composition
import Compositor
import MediaCore
import Merge
import ToolSupport

extension MediaMergeCommand {
  /// `mediamerge --in-process A B C -o OUT`: the merge's plan (size, fit, rate, chapters) as a
  /// composition of whole clips, rendered, checked and committed by the compositor; no ffmpeg
  /// executable runs.
  func renderInProcess(_ merge: MergePlan) {
    var document = CompositionDocument.wholeClips(merge.clips.map(\.path))
    document.size = FrameSize(width: merge.render.width, height: merge.render.height)
    document.fit = merge.render.fit == .fill ? .cover : .contain
    if let rate = merge.render.frameRate {
      document.fps = ExactNumber(rate.num, rate.den)
    }
    let loaded: LoadedComposition
    do {
      loaded = try CompositionLoader.resolve(document, baseDirectory: nil)
    } catch {
      fail(error, path: outputPath)
    }
    var settings = CompositorSettings()
    settings.timeout = timeout
    settings.chapters = merge.chapters.map {
      CompositorChapter(start: $0.start, end: $0.end, title: $0.title)
    }
    let bar = ProgressBar(label: outputPath, quiet: diagnostics.quiet)
    let total = loaded.plan.duration.seconds
    if merge.method == .copy {
      let copied: ClipCopyReport
      do {
        copied = try ClipCopier.render(
          loaded.plan, to: outputPath, overwrite: outputFile.force, sync: !outputFile.noSync,
          settings: settings
        ) { bar.update(done: $0, total: total) }
      } catch {
        bar.finish()
        fail(error, path: outputPath)
      }
      bar.finish()
      if !diagnostics.quiet {
        Console.errorText(
          "wrote \(outputPath) in-process: \(loaded.plan.duration) s, \(copied.packets) video "
            + "packets copied, audio encoded once\n")
      }
      return
    }
    let report: CompositionRenderReport
    do {
      report = try Compositor.render(
        loaded.plan, to: outputPath, overwrite: outputFile.force, sync: !outputFile.noSync,
        settings: settings
      ) { bar.update(done: $0, total: total) }
    } catch {
      bar.finish()
      fail(error, path: outputPath)
    }
    bar.finish()
    if !diagnostics.quiet {
      Console.errorText(
        "wrote \(outputPath) in-process: \(loaded.plan.duration) s, \(report.frames) frames "
          + "(\(loaded.plan.render.width)x\(loaded.plan.render.height)), checked "
          + "(\(report.check?.segments.compactMap(\.psnr).min().map { fixed($0, places: 1) } ?? "-") dB at worst)\n"
      )
    }
  }
}
