import AV
import Foundation
import MediaCore
import OutputKit

#if canImport(Glibc)
  import Glibc
#endif

/// What one pass of a render remembers for the next (`--max-size`): every picture it handed to
/// the video encoder (8-bit 4:2:0, in an unnamed `ScratchFile` in `$TMPDIR`, so memory holds
/// none of them) and every audio packet it wrote (in memory: the encoded AAC or Opus, a few
/// hundred kB a minute), with what the self-check needs of the pass (the pictures it put aside,
/// the mix's levels, the damaged segments) and the counts its report gives.
///
/// A later pass at another video bit rate then replays them: the same pictures encoded again,
/// the same audio packets muxed again, no source decoded, composited or mixed a second time.
/// The pictures are the encoder's input, so the output is the one a render from the sources
/// would write at that rate, and the self-check compares it with the pictures the first pass put
/// aside (the same pictures).
///
/// The pictures take width × height × 1.5 bytes each (1.38 MB at 1280×720): a pass remembers
/// them only when they all fit in `limit` bytes (`PassMemory.limit()`); otherwise, or when a
/// write fails (a full disk), nothing is replayed and a later pass renders from the sources.
package final class PassMemory {
  /// The most bytes of pictures to keep.
  package let limit: Int64
  private var scratch: ScratchFile?
  private var frameBytes = 0
  private var width = 0
  private var height = 0
  private var expected: Int64 = 0
  private var kept: Int64 = 0
  private var failed = false
  private var complete = false
  private var staging: [UInt8] = []
  /// The audio packets written, in order, timestamps in the audio encoder's time base.
  private(set) var audioPackets: [Packet] = []
  /// The first picture's colour tags and pixel aspect ratio (every picture of a render has the
  /// canvas's).
  private(set) var pictureColor: ColorTags = .unspecified
  private(set) var pictureAspect: Rational?
  // What the remembered pass found, for a replay's report and check.
  private(set) var references: CheckReferences?
  private(set) var levels: AudioLevelRecorder?
  private(set) var damaged: Set<Int> = []
  private(set) var decodeErrors = 0
  private(set) var maxOpen = 0
  private(set) var samples: Int64 = 0
  private(set) var clippedSamples: Int64 = 0

  /// A memory that keeps at most `limit` bytes of pictures.
  package init(limit: Int64) {
    self.limit = limit
  }

  /// The default limit: 2 GiB, and at most a quarter of the memory available
  /// (`MemAvailable` in /proc/meminfo: the scratch file lives in the page cache while it is
  /// read back) and half of the free space of `$TMPDIR` (or `/tmp`).
  package static func limit() -> Int64 {
    var limit: Int64 = 2 << 30
    if let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemAvailable:") }),
      let kib = line.split(separator: " ").dropFirst().first.flatMap({ Int64($0) })
    {
      limit = min(limit, kib * 1024 / 4)
    }
    let directory = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var fs = statvfs()
    if statvfs(directory, &fs) == 0 {
      limit = min(limit, Int64(fs.f_bavail) * Int64(fs.f_frsize) / 2)
    }
    return max(0, limit)
  }

  /// True when a whole pass was remembered and can be replayed.
  package var canReplay: Bool { complete && !failed && kept == expected }

  /// Bytes of pictures kept.
  package var pictureBytes: Int64 { Int64(frameBytes) * kept }

  /// A pass of `frames` pictures of `width`×`height` starts: forget any earlier one; keep
  /// nothing when they would not fit in `limit` or no scratch file can be made.
  func start(frames: Int64, width: Int, height: Int) {
    complete = false
    failed = false
    kept = 0
    audioPackets = []
    self.width = width
    self.height = height
    frameBytes = width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
    expected = frames
    scratch = nil
    guard Int64(frameBytes) * frames <= limit, let file = ScratchFile() else {
      failed = true
      return
    }
    scratch = file
    staging = [UInt8](repeating: 0, count: frameBytes)
  }

  /// Keeps the next picture (frames come in order).
  func keep(_ picture: Frame) {
    guard !failed, let scratch else { return }
    guard picture.pixelFormat == .yuv420p, picture.width == width, picture.height == height
    else {
      fail()
      return
    }
    if kept == 0 {
      pictureColor = picture.color
      pictureAspect = picture.sampleAspectRatio
    }
    var offset = 0
    staging.withUnsafeMutableBytes { out in
      for (plane, size) in planeSizes.enumerated() {
        for row in 0..<size.height {
          picture.withRow(row, plane: plane) { bytes in
            out.baseAddress!.advanced(by: offset).copyMemory(
              from: bytes.baseAddress!, byteCount: size.width)
          }
          offset += size.width
        }
      }
    }
    let written = staging.withUnsafeBytes { scratch.append($0) }
    guard written != nil else {
      fail()
      return
    }
    kept += 1
  }

  /// Keeps an audio packet about to be written (a new reference to its data; the muxer then
  /// changes the original's timestamps).
  func keep(audio packet: Packet) {
    guard !failed else { return }
    let copy = Packet()
    guard copy.reference(packet) else {
      fail()
      return
    }
    audioPackets.append(copy)
  }

  /// The pass ended: what it found, for a replay.
  func finish(
    references: CheckReferences?, levels: AudioLevelRecorder?, damaged: Set<Int>,
    decodeErrors: Int, maxOpen: Int, samples: Int64, clippedSamples: Int64
  ) {
    self.references = references
    self.levels = levels
    self.damaged = damaged
    self.decodeErrors = decodeErrors
    self.maxOpen = maxOpen
    self.samples = samples
    self.clippedSamples = clippedSamples
    complete = true
  }

  /// Reads picture `frame` into `picture` (a writable `width`×`height` yuv420p frame); nil when
  /// done, else the `errno` of the failed read.
  func read(frame: Int64, into picture: Frame) -> Int32? {
    guard let scratch else { return EIO }
    let done = staging.withUnsafeMutableBytes {
      scratch.read(at: frame * Int64(frameBytes), into: $0)
    }
    guard done else { return errno == 0 ? EIO : errno }
    var offset = 0
    staging.withUnsafeBytes { input in
      for (plane, size) in planeSizes.enumerated() {
        for row in 0..<size.height {
          picture.withRow(row, plane: plane) { bytes in
            bytes.baseAddress!.copyMemory(
              from: input.baseAddress!.advanced(by: offset), byteCount: size.width)
          }
          offset += size.width
        }
      }
    }
    return nil
  }

  /// Frees the pictures and packets.
  package func forget() {
    scratch = nil
    staging = []
    audioPackets = []
    references = nil
    complete = false
    failed = true
  }

  private var planeSizes: [(width: Int, height: Int)] {
    let chroma = ((width + 1) / 2, (height + 1) / 2)
    return [(width, height), chroma, chroma]
  }

  private func fail() {
    failed = true
    scratch = nil
    staging = []
    audioPackets = []
  }
}

/// Counts one pass keeps as it writes.
final class PassCounters {
  /// Bytes of the video packets written.
  var videoBytes: Int64 = 0
}

/// What the self-check of a pass needs from its render.
struct PendingCheck {
  var canvas: Canvas
  var frameCount: Int64
  var references: CheckReferences?
  var damaged: Set<Int>
  var levels: AudioLevelRecorder?
}

/// A pass `Compositor.renderPass` wrote, not yet checked.
package struct RenderedPass {
  /// The render's report (its `check` null until `Compositor.check`).
  package var report: CompositionRenderReport
  /// Bytes of the video packets written (the rest of the file is audio and the container).
  package var videoBytes: Int64
  /// The pass replayed a remembered one's pictures and audio (`PassMemory`).
  package var replayed: Bool
  let pending: PendingCheck?
  let deadline: Double?
}
