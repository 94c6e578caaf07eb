// swift-tools-version: 6.0
import PackageDescription

#if canImport(Glibc)
  import Glibc
#endif

let package = Package(
  name: "MediaTools",
  platforms: [.macOS(.v13)],
  products: [
    .executable(name: "mediaprobe", targets: ["mediaprobe"]),
    .executable(name: "media2wav", targets: ["media2wav"]),
    .executable(name: "mediacompat", targets: ["mediacompat"]),
    .executable(name: "mediamerge", targets: ["mediamerge"]),
    .executable(name: "mediaframe", targets: ["mediaframe"]),
    .library(name: "MediaCore", targets: ["MediaCore"]),
    .library(name: "MediaProbe", targets: ["MediaProbe"]),
    .library(name: "Compatibility", targets: ["Compatibility"]),
    .library(name: "AudioExtract", targets: ["AudioExtract"]),
    .library(name: "Merge", targets: ["Merge"]),
    .library(name: "Composition", targets: ["Composition"]),
    .library(name: "FrameGrab", targets: ["FrameGrab"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
  ],
  targets: [
    // FFmpeg 5.1's libraries, found with pkg-config. libavfilter and libswscale are not linked:
    // the submodules CFFmpeg.Filter and CFFmpeg.Scale declare their types, and AV loads them with
    // dlopen when a graph or a scaler is first made, so the tools that do not filter or scale
    // never pay for loading them (~11 ms and 0.1-0.3 ms per start, measured).
    .systemLibrary(
      name: "CFFmpeg",
      pkgConfig: "libavformat",
      providers: [
        .apt([
          "libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswresample-dev",
          "libswscale-dev", "libavfilter-dev",
        ]),
        .brew(["ffmpeg"]),
      ]
    ),
    // libebur128, the EBU R128 / BS.1770 loudness meter (integrated loudness, loudness range,
    // true peak), found with pkg-config.
    .systemLibrary(
      name: "CEBUR128",
      pkgConfig: "libebur128",
      providers: [.apt(["libebur128-dev"]), .brew(["libebur128"])]
    ),
    // libcurl, the HTTP(S) client under remote inputs (AV's RemoteFile): declared for its header
    // only and loaded with dlopen on the first URL, as libavfilter is (linked, it and the eight
    // libraries it adds would load at every start of every tool). No pkgConfig, which would link
    // it: the header is in the system's include path.
    .systemLibrary(
      name: "CCurl",
      providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
    ),
    // The shared probe module: FFmpeg wrappers, the probe model, frame rate, duration,
    // orientation. No command-line code.
    // Pure values every layer shares, with no C import: exact rationals and times, orientation,
    // file names as bytes, the JSON encoder and the probe's output model.
    .target(name: "MediaCore"),
    // What every output shares: the atomic output file (O_TMPFILE + linkat, fsync), its errors,
    // interruption, the monotonic clock and the EINTR seam. No FFmpeg.
    .target(name: "OutputKit", dependencies: ["MediaCore"]),
    // FFmpeg behind typed wrappers whose C pointers stay inside: the untrusted-input policy
    // (InputOpener), the byte source, demuxing and the decode loop, container and bitstream
    // facts, the audio decode driver and libswresample; the making side: encoders, the muxer
    // (into an OutputFile's descriptor), filter graphs (libavfilter, loaded on first use) and
    // libswscale. The only module that imports CFFmpeg.
    .target(name: "AV", dependencies: ["MediaCore", "OutputKit", "CFFmpeg", "CCurl"]),
    // The render engine on AV's typed API (no C import): stream copy (Remuxer) and decode ->
    // filter graph -> encode -> mux (Transcoder) into an OutputFile, with interruption, deadlines
    // and typed errors (RenderError). What mediamerge's compositor, mediacompat --fix and
    // mediaframe stand on.
    .target(name: "Render", dependencies: ["AV", "OutputKit", "MediaCore"]),
    .target(name: "MediaProbe", dependencies: ["MediaCore", "OutputKit", "AV"]),
    // Rendering a composition plan in-process: sources opened lazily, decoded, placed and
    // blended in one filter graph, the audio mixed with its gain envelopes, encoded and muxed
    // through Render, then checked against the plan. mediamerge's engine.
    .target(
      name: "Compositor",
      dependencies: ["Composition", "Render", "AV", "OutputKit", "MediaCore", "MediaProbe"]),
    // Pictures out of media (mediaframe's engine): the frame presented at a time, exactly (the
    // keyframe before it, decoded up to it), upright by the display matrix, square pixels,
    // fitted; series, contact sheets, the representative frame, HDR tone-mapping, and BBC
    // audiowaveform peaks. No command-line code, no C import.
    .target(
      name: "FrameGrab", dependencies: ["AV", "OutputKit", "MediaCore"],
      swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
    // The platform database (one JSON file per platform, embedded in the binary) and the rule
    // engine that checks a probed file against it. Only the tools that report verdicts link it.
    .target(
      name: "Compatibility", dependencies: ["MediaCore"],
      resources: [
        .embedInCode("Platforms/android-14.json"),
        .embedInCode("Platforms/android-2.3.3.json"),
        .embedInCode("Platforms/android-3.0.json"),
        .embedInCode("Platforms/android-4.0.json"),
        .embedInCode("Platforms/android-browser-2012.json"),
        .embedInCode("Platforms/apple-hls.json"),
        .embedInCode("Platforms/chrome.json"),
        .embedInCode("Platforms/firefox.json"),
        .embedInCode("Platforms/ios-17.json"),
        .embedInCode("Platforms/ipad-browser-2012.json"),
        .embedInCode("Platforms/iphone-2012.json"),
        .embedInCode("Platforms/iphone-browser-2012.json"),
        .embedInCode("Platforms/mobile-high.json"),
        .embedInCode("Platforms/mobile-low.json"),
        .embedInCode("Platforms/mobile-medium.json"),
        .embedInCode("Platforms/safari.json"),
      ]
    ),
    // mediacompat --fix: the planner's typed plan (Compatibility) carried out in-process
    // through Render, the output re-checked (verdicts, the verify path, SSIM/PSNR) before it is
    // committed. No command-line code.
    .target(
      name: "CompatFix",
      dependencies: ["Compatibility", "Render", "AV", "OutputKit", "MediaCore", "MediaProbe"]),
    // Decoding audio to PCM (libswresample) and the RIFF/RF64 writer. No command-line code.
    // Its loops touch every sample (the analysis's true-peak screen, peaks, sums), so it is
    // optimized in debug builds too: the tests measure minutes of EBU test signals in seconds.
    .target(
      name: "AudioExtract",
      dependencies: ["MediaCore", "OutputKit", "AV", "CEBUR128"],
      swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
    // The composition document (mediamerge --composition): the model (Codable, strict JSON with
    // paths, exact times), its resolution into a plan (timeline, transitions, gain envelopes,
    // markers), the render rules shared with Merge, and OpenTimelineIO in and out. No FFmpeg:
    // the sources' facts come from the caller, so it is tested without media.
    .target(name: "Composition", dependencies: ["MediaCore"]),
    // Joining clips on one exact timeline: the plan (timeline, render size, copy or encode), its
    // render in-process as a composition of whole clips (the Compositor), and the check of the
    // written file. The equivalent ffmpeg command is built only to be printed for people who ask
    // (--plan, --verbose); no executable runs. No command-line code.
    .target(
      name: "Merge",
      dependencies: [
        "MediaCore", "OutputKit", "MediaProbe", "Compatibility", "Composition", "Compositor", "AV",
        "Render",
      ]),
    // What the commands share: output, diagnostics, exit codes, parallel work.
    .target(
      name: "ToolSupport",
      dependencies: [
        "MediaCore", "OutputKit", "AV", "MediaProbe",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .executableTarget(
      name: "mediaprobe",
      dependencies: [
        "MediaCore", "MediaProbe", "Compatibility", "ToolSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .executableTarget(
      name: "media2wav",
      dependencies: [
        "AudioExtract", "MediaCore", "OutputKit", "MediaProbe", "ToolSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .executableTarget(
      name: "mediacompat",
      dependencies: [
        "MediaCore", "MediaProbe", "Compatibility", "CompatFix", "ToolSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .executableTarget(
      name: "mediamerge",
      dependencies: [
        "Merge", "MediaCore", "MediaProbe", "Compatibility", "ToolSupport", "Composition",
        "Compositor", "OutputKit", "AV",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .executableTarget(
      name: "mediaframe",
      dependencies: [
        "FrameGrab", "MediaCore", "OutputKit", "AV", "ToolSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .testTarget(name: "MediaProbeTests", dependencies: ["MediaCore", "MediaProbe"]),
    .testTarget(
      name: "FrameGrabTests", dependencies: ["FrameGrab", "AV", "OutputKit", "MediaCore"]),
    .testTarget(
      name: "CompatibilityTests", dependencies: ["Compatibility", "MediaCore", "MediaProbe"]),
    .testTarget(
      name: "AudioExtractTests", dependencies: ["AudioExtract", "OutputKit", "CEBUR128"]),
    .testTarget(
      name: "MergeTests",
      dependencies: ["Merge", "MediaCore", "MediaProbe", "Compatibility", "AudioExtract"]),
    .testTarget(
      name: "CompositionTests", dependencies: ["Composition", "MediaCore"],
      exclude: ["Documents", "OTIO/otio-oracle.py"]),
    .testTarget(name: "EndToEndTests", dependencies: ["MediaCore", "MediaProbe"]),
    // AV's making side (encoders, muxer, filter graphs, scaler) and the Render engine, checked
    // with ffprobe and the ffmpeg CLI on fixtures made by construction once per run.
    .testTarget(
      name: "CompositorTests",
      dependencies: ["Compositor", "Composition", "Render", "AV", "OutputKit", "MediaCore"]),
    .testTarget(name: "RenderTests", dependencies: ["Render", "AV", "OutputKit", "MediaCore"]),
  ],
  swiftLanguageModes: [.v6]
)

// The coverage-guided fuzzer (libFuzzer) on the probe and the decoder: declared only when
// Scripts/fuzz-coverage.sh builds it (MEDIATOOLS_FUZZ set), so ordinary builds never compile it.
if getenv("MEDIATOOLS_FUZZ") != nil {
  package.targets.append(
    .executableTarget(
      name: "mediatools-fuzz", dependencies: ["AudioExtract", "MediaCore", "MediaProbe"]))
}

// The render engine's benchmark driver (Scripts/bench.sh render): declared only when the
// benchmark builds it (MEDIATOOLS_BENCH set), so ordinary builds never compile it.
if getenv("MEDIATOOLS_BENCH") != nil {
  package.targets.append(
    .executableTarget(
      name: "render-bench",
      dependencies: ["Render", "AV", "OutputKit", "MediaCore", "Compositor", "Composition"]))
}
