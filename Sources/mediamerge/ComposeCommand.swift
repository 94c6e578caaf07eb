import AV
import ArgumentParser
import Composition
import Compositor
import MediaCore
import Merge
import OutputKit
import ToolSupport

#if canImport(Glibc)
  import Glibc
#endif

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// `--format`'s values.
enum CompositionFormatChoice: String, ExpressibleByArgument, CaseIterable {
  case json, otio

  var format: CompositionFormat { self == .json ? .json : .otio }
}

/// What `mediamerge --composition DOC -o OUT` prints on standard output once the file is
/// written: the plan's summary, the render (encoder settings, clipped samples, the check).
struct CompositionRunReport: Encodable {
  var output: String
  var plan: PlanSummary
  var render: CompositionRenderReport
  /// What `--max-size` did (null without it).
  @NullEncoded var size: SizeReport?
  /// The `--platform` verdict on the written file (null without it).
  @NullEncoded var platform: String?

  struct PlanSummary: Encodable {
    var duration: MediaTime
    var width: Int
    var height: Int
    var frameRate: Rational
    var segments: Int
    var transitions: Int
    var audioTracks: Int
    var markers: [PlannedMarker]
    var warnings: [String]
  }
}

extension MediaMergeCommand {
  /// The checks of a composition run (usage errors, exit 64).
  func checkCompositionArguments() throws {
    if composition != nil && (!clips.isEmpty || input.filesFrom != nil) {
      throw ValidationError("--composition takes no clips: the document names its sources")
    }
    if composition == nil && clips.isEmpty && input.filesFrom == nil {
      throw ValidationError("give the clips or --composition DOC")
    }
    if method != .auto || size != nil || fit == .fill {
      if composition != nil {
        throw ValidationError(
          "--composition renders the document's size, fit and rate (no --copy, --encode, --size or --fill)"
        )
      }
    }
    _ = try export.request()
    if let platform { _ = try Self.platform(named: platform) }
    if let timeout, !(timeout > 0 && timeout.isFinite) {
      throw ValidationError("--timeout must be a positive number of seconds")
    }
    if plan && (dryRun || printComposition) {
      throw ValidationError("--plan, --print-composition and --dry-run cannot be combined")
    }
    if plan || printComposition { return }
    guard let output else {
      throw ValidationError("give the output file with -o FILE (.mp4, .m4v or .mov)")
    }
    if MergeRequest.container(for: output) == nil {
      throw ValidationError(Self.extensionsMessage)
    }
  }

  /// `--composition` and `--print-composition`: read (or make) the document, resolve it against
  /// its sources (every input error with its code before anything is written), then print the
  /// plan, print the document, or render, check and commit. (`run` has installed the signal
  /// handlers and the process settings.)
  func runComposition() throws {
    var loaded: LoadedComposition
    let exporter = CompositionExport(
      export: try export.request(), platform: try platform.map(Self.platform(named:)),
      overwrite: outputFile.force, sync: !outputFile.noSync, timeout: timeout)
    if !plan, !printComposition,
      let refusal = exporter.export.refusal(container: OutputContainer(path: outputPath) ?? .mp4)
    {
      // Before any source is probed.
      fail(MergeError.unsupportedEncoding(reason: refusal), path: outputPath)
    }
    do {
      if let composition {
        loaded = try CompositionLoader.load(composition)
        if !printComposition {
          // The preset's box and the platform's limits give the render size and rate.
          loaded = try exporter.fitted(
            loaded, baseDirectory: CompositionLoader.baseDirectory(of: composition))
        }
      } else {
        var paths: [String] = []
        let list = try input.inputs(arguments: clips)
        while let next = list.next() {
          guard case .path(let path) = next else {
            throw ValidationError("standard input cannot be a clip")
          }
          paths.append(path)
        }
        loaded = try CompositionLoader.resolve(
          CompositionDocument.wholeClips(paths), baseDirectory: nil)
      }
    } catch let error as any ToolError {
      fail(error, path: composition ?? clips.first ?? "")
    }
    if plan {
      let json = try? MediaToolsJSONEncoder().encode(loaded.plan)
      Console.out(String(decoding: json ?? Data(), as: UTF8.self) + "\n")
      return
    }
    if printComposition {
      let bytes = loaded.document.written(as: format.format, plan: loaded.plan)
      Console.out(String(decoding: bytes, as: UTF8.self) + "\n")
      return
    }
    if dryRun {
      do {
        _ = try OutputFile.check(outputPath, overwrite: outputFile.force)
      } catch {
        fail(error, path: outputPath)
      }
      if !diagnostics.quiet {
        Console.errorText(
          "plan: \(loaded.plan.segments.count) clips, \(loaded.plan.duration) s, "
            + "\(loaded.plan.render.width)x\(loaded.plan.render.height)\n"
            + "dry run: nothing was written\n")
      }
      return
    }
    let bar = ProgressBar(label: outputPath, quiet: diagnostics.quiet)
    let total = loaded.plan.duration.seconds
    let result: CompositionExport.Result
    do {
      result = try exporter.run(loaded.plan, to: outputPath) { bar.update(done: $0, total: total) }
    } catch {
      bar.finish()
      fail(error, path: error.path ?? outputPath)
    }
    bar.finish()
    let report = result.render
    let plan = loaded.plan
    let summary = CompositionRunReport(
      output: outputPath,
      plan: .init(
        duration: plan.duration, width: plan.render.width, height: plan.render.height,
        frameRate: plan.render.frameRate, segments: plan.segments.count,
        transitions: plan.transitions.count, audioTracks: plan.audio.count,
        markers: plan.markers, warnings: plan.warnings),
      render: report, size: result.size, platform: result.platform)
    if let json = try? MediaToolsJSONEncoder().encode(summary) {
      Console.out(String(decoding: json, as: UTF8.self) + "\n")
    }
    if !diagnostics.quiet {
      Console.errorText(
        "wrote \(outputPath): \(plan.duration) s, \(report.frames) frames "
          + "(\(plan.render.width)x\(plan.render.height)), checked in "
          + "\(fixed(report.check?.seconds ?? 0, places: 2)) s after "
          + "\(fixed(report.renderSeconds, places: 2)) s\n")
    }
  }

  /// Reports `error` with its code (and the JSON error record with `--plan`), then exits 1.
  func fail(_ error: any ToolError, path: String) -> Never {
    Console.error("mediamerge", error.message + " [\(error.code)]")
    if plan || printComposition || composition != nil,
      let data = try? MediaToolsJSONEncoder().encode(
        ErrorRecord(path: path, code: error.code, message: error.message))
    {
      Console.out(String(decoding: data, as: UTF8.self) + "\n")
    }
    Glibc.exit(ExitStatus.failure)
  }
}
