import MediaCore
import AV
import MediaProbe

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// A clip as the planner needs it: the probe's record (scanned, so durations are exact) and what
/// a stream copy must compare that the record does not carry.
public struct ProbedClip: Sendable, Equatable {
  /// The path as given.
  public var path: String
  /// The absolute path (what the concat list names).
  public var absolutePath: String
  /// The probe's record, with `--scan`'s exact durations.
  public var info: MediaInfo
  /// The codec configuration of the video stream used (H.264 `avcC` with its SPS and PPS),
  /// empty when there is none or no video.
  public var videoExtradata: [UInt8]
  /// The container's id for that stream (the MP4 track ID); nil without video.
  public var videoContainerID: Int32?
  /// Video packets the demuxer marks as not presented (outside an MP4 edit list, as a cut made
  /// with `-ss ... -c copy` leaves them): a copy would show them.
  public var videoPacketsOutsideEdits: Int
  /// The clip's chapters, on its own timeline (0 = where the file starts presenting: the
  /// ffmpeg CLI and players count them from there), in file order.
  public var chapters: [ClipChapter]

  /// A clip from its parts (tests build clips without files).
  public init(
    path: String, absolutePath: String? = nil, info: MediaInfo, videoExtradata: [UInt8] = [],
    videoContainerID: Int32? = nil, videoPacketsOutsideEdits: Int = 0,
    chapters: [ClipChapter] = []
  ) {
    self.path = path
    self.absolutePath = absolutePath ?? path
    self.info = info
    self.videoExtradata = videoExtradata
    self.videoContainerID = videoContainerID
    self.videoPacketsOutsideEdits = videoPacketsOutsideEdits
    self.chapters = chapters
  }

  /// The video stream a merge uses: the first that is not cover art.
  public var videoStream: MediaStream? {
    info.streams.first { $0.type == .video && $0.disposition["attached_pic"] != true }
  }

  /// The audio stream a merge uses: the first.
  public var audioStream: MediaStream? { info.streams.first { $0.type == .audio } }
}

/// Probes clips for a merge: regular files only (ffmpeg reads each clip again after the probe,
/// so a pipe or standard input cannot be a clip), scanned for exact durations.
public struct ClipProber: Sendable {
  private let prober: Prober
  private let options: ProbeOptions

  /// A prober; the options are those of `mediaprobe` (`--allow-references`, `--timeout`,
  /// `--max-bytes`, `--input-format`: the demuxer the probe used is also ffmpeg's `-f`).
  public init(
    allowReferences: Bool = false, timeout: Double? = nil, maxBytes: Int64? = nil,
    inputFormat: String? = nil
  ) {
    options = ProbeOptions(
      scan: true, allowReferences: allowReferences, timeout: timeout, maxBytes: maxBytes,
      inputFormat: inputFormat)
    prober = Prober(options: options)
  }

  /// Probes the clip at `path`.
  ///
  /// - Throws: `MergeError.input` with the probe's code (`not_found`, `not_a_file`, `truncated`,
  ///   ...).
  public func probe(_ path: String) throws(MergeError) -> ProbedClip {
    var status = stat()
    if FileName.withCString(path, { stat($0, &status) }) == 0 {
      switch status.st_mode & S_IFMT {
      case S_IFREG: break
      case S_IFIFO:
        throw .input(path: path, .notAFile(kind: "a pipe: a clip is read twice"))
      default: break  // the probe names directories, devices and sockets
      }
    }
    let info: MediaInfo
    let details: Prober.Details
    do {
      (info, details) = try prober.probeWithDetails(.file(path), path: path)
    } catch {
      throw .input(path: path, error)
    }
    // One read: the probe's scan also gives the codec configuration, the track ID, the chapters
    // and the video packets outside the edits, which a stream copy still takes.
    var clip = ProbedClip(path: path, absolutePath: Self.absolute(path), info: info)
    if let video = clip.videoStream {
      clip.videoExtradata = details.extradata[video.index] ?? []
      clip.videoContainerID = details.containerIDs[video.index]
      clip.chapters = Self.chapters(details.chapters, start: details.startMicroseconds)
      clip.videoPacketsOutsideEdits = details.discardedPackets[video.index] ?? 0
    }
    return clip
  }

  /// The input's chapters moved onto its own timeline (its start time subtracted), exact.
  static func chapters(_ chapters: [InputChapter], start: Int64?) -> [ClipChapter] {
    let origin = MediaTime(value: start ?? 0, timescale: 1_000_000)
    return chapters.compactMap { chapter in
      let (start, o1) = chapter.start.multipliedReportingOverflow(by: chapter.timeBase.num)
      let (end, o2) = chapter.end.multipliedReportingOverflow(by: chapter.timeBase.num)
      guard !o1, !o2, chapter.timeBase.den > 0 else { return nil }
      return ClipChapter(
        start: MediaTime(value: start, timescale: chapter.timeBase.den) - origin,
        end: MediaTime(value: end, timescale: chapter.timeBase.den) - origin, title: chapter.title)
    }
  }

  /// `path` made absolute (symbolic links resolved), or as given when that fails.
  static func absolute(_ path: String) -> String {
    guard let resolved = FileName.withCString(path, { realpath($0, nil) }) else { return path }
    defer { free(resolved) }
    return FileName.string(
      fromBytes: UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
  }
}
