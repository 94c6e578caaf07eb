import AV
import MediaCore
import OutputKit

/// Times spread over a video: every `S` seconds from the start, or `N` times, each in the
/// middle of one of N equal parts of the video.
public enum TimeSeries: Sendable, Equatable {
  /// 0, S, 2S, ... while before the end.
  case every(Double)
  /// (i + 0.5)·duration/N for i in 0..<N.
  case count(Int)

  /// The times for a video of `duration` seconds.
  public func times(duration: Double) -> [Double] {
    switch self {
    case .every(let step):
      guard step > 0 else { return [0] }
      var times: [Double] = []
      var index = 0
      while Double(index) * step < duration - 1e-9 || index == 0 {
        times.append(Double(index) * step)
        index += 1
      }
      return times
    case .count(let count):
      return (0..<max(1, count)).map { (Double($0) + 0.5) * duration / Double(max(1, count)) }
    }
  }
}

/// What one call makes of one input.
public enum FrameMode: Sendable, Equatable {
  /// One picture: the frame presented at the time (`--at`).
  case at(Double)
  /// A numbered series (`--every`, `--count`).
  case series(TimeSeries)
  /// One contact sheet of columns × rows tiles (`--sheet`), at the series' times (by default
  /// `count(columns · rows)`).
  case sheet(columns: Int, rows: Int, times: TimeSeries?, timestamps: Bool)
  /// The representative frame of the first `window` seconds (nil: 10 % of the duration).
  case best(window: Double?)
  /// The cover art (`--cover`).
  case cover

  /// One picture from one time (`at`, `cover`): a few frames are decoded.
  var isOneFrame: Bool {
    switch self {
    case .at, .cover: true
    default: false
    }
  }
}

/// How one input is turned into pictures.
public struct FrameJobOptions: Sendable {
  /// What to make.
  public var mode: FrameMode = .at(0)
  /// Take the nearest keyframe within this many seconds instead of the exact frame.
  public var tolerance: Double?
  /// Fit each picture (each tile of a sheet) inside this box.
  public var maxSize: FitSize?
  /// 1-100: JPEG and WebP quality (`ImageWriter.encode`).
  public var quality: Int?
  /// Replace existing files.
  public var overwrite = false
  /// Sync each file before it gets its name.
  public var sync = true
  /// How the input is opened.
  public var open = OpenOptions()
  /// Decoder threads (0: FFmpeg's choice).
  public var threads = 0
  /// Called after each picture of a series, each tile of a sheet and each candidate of
  /// `--best` with the media time reached and the time the work ends at, in seconds (the
  /// command's progress bar).
  public var progress: (@Sendable (Double, Double) -> Void)?
  /// Called with what the pictures made do not show although no error stopped them (a sheet
  /// of a file cut short covers only the frames it holds): the command's warning on standard
  /// error.
  public var warn: (@Sendable (String) -> Void)?

  /// Options; the default takes the first frame.
  public init() {}
}

/// The record of one picture written: one NDJSON line.
public struct FrameRecord: Encodable, Sendable {
  /// The input, as given.
  public var input: String
  /// The file written.
  public var output: String
  /// `frame`, `series`, `sheet`, `best` or `cover`.
  public var kind: String
  /// 1-based position in a series (nil otherwise).
  public var index: Int?
  /// The time asked for, in seconds from the input's start (nil for cover art, stills, sheets).
  @NullEncoded public var requestedTime: Double?
  /// The presentation time of the frame written (`actualTime`; nil for cover art and sheets).
  @NullEncoded public var actualTime: Double?
  /// The times of a sheet's tiles, in order (nil for other kinds).
  public var tileTimes: [Double]?
  /// The picture's width in pixels.
  public var width: Int
  /// The picture's height in pixels.
  public var height: Int
  /// The index of the stream the picture came from.
  public var stream: Int
  /// The orientation applied (`up`, `right`, `left_mirrored`, ...).
  public var orientation: String
  /// Clockwise degrees turned.
  public var rotation: Int
  /// Flipped left to right.
  public var mirrored: Bool
  /// The pixel aspect ratio applied (`"2:1"`; nil for square pixels).
  @NullEncoded public var sampleAspectRatio: String?
  /// The HDR picture was tone-mapped to SDR.
  public var toneMapped: Bool
  /// `jpeg`, `png` or `webp`.
  public var format: String
  /// The file's size in bytes.
  public var bytes: Int

  enum CodingKeys: String, CodingKey {
    case input, output, kind, index
    case requestedTime = "requested_time"
    case actualTime = "actual_time"
    case tileTimes = "tile_times"
    case width, height, stream, orientation, rotation, mirrored
    case sampleAspectRatio = "sample_aspect_ratio"
    case toneMapped = "tone_mapped"
    case format, bytes
  }
}

/// Makes the pictures of one input and writes them: the engine of `mediaframe`.
public enum FrameJob {
  /// The name of the `index`-th (1-based) picture of a series written under `pattern`: its
  /// `%d` or `%0Nd` replaced by the number (`out_%03d.jpg` → `out_007.jpg`); without one, the
  /// number goes before the extension (`out.jpg` → `out_007.jpg`).
  public static func seriesName(_ pattern: String, index: Int) -> String {
    if let match = pattern.firstMatch(of: /%(0?\d*)d/) {
      let width = Int(match.1) ?? 0
      let digits = String(index)
      let number = String(repeating: "0", count: max(0, width - digits.count)) + digits
      var name = pattern
      name.replaceSubrange(match.range, with: number)
      return name
    }
    let slash = pattern.lastIndex(of: "/")
    if let dot = pattern.lastIndex(of: "."), slash.map({ $0 < dot }) ?? true {
      return String(pattern[..<dot]) + "_" + String(format3(index)) + String(pattern[dot...])
    }
    return pattern + "_" + format3(index)
  }

  private static func format3(_ index: Int) -> String {
    let digits = String(index)
    return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
  }

  /// Makes what `options.mode` says of `source` and writes it under `output` (a series'
  /// pattern for `.series`), calling `emit` with each record as its file is written.
  ///
  /// - Throws: `FrameError` for the first failure; the files written before it stay.
  public static func run(
    _ source: InputSource, input: String, output: String, options: FrameJobOptions,
    emit: (FrameRecord) -> Void
  ) throws(FrameError) {
    guard let kind = ImageKind(path: output) else { throw .unsupportedOutput(output) }
    let grabber = try FrameGrabber(
      source: source, options: options.open, cover: options.mode == .cover,
      threads: options.threads, oneThreadUpTo: options.mode.isOneFrame ? 1280 * 720 : 0)
    func record(_ grab: Grab, kind label: String, path: String, bytes: Int, index: Int? = nil)
      -> FrameRecord
    {
      let sar = grabber.sampleAspectRatio.flatMap { $0.num != $0.den ? $0 : nil }
      return FrameRecord(
        input: input, output: path, kind: label, index: index, requestedTime: grab.requestedTime,
        actualTime: grab.actualTime, tileTimes: nil, width: grab.picture.width,
        height: grab.picture.height, stream: grabber.streamIndex,
        orientation: grabber.orientation.name, rotation: grabber.orientation.rotation,
        mirrored: grabber.orientation.mirrored,
        sampleAspectRatio: sar.map { "\($0.num):\($0.den)" },
        toneMapped: grabber.toneMapped, format: kind.rawValue, bytes: bytes)
    }
    func write(_ picture: Picture, to path: String) throws(FrameError) -> Int {
      let bytes = try ImageWriter.encode(picture, as: kind, quality: options.quality)
      try ImageWriter.write(bytes, to: path, overwrite: options.overwrite, sync: options.sync)
      return bytes.count
    }
    switch options.mode {
    case .at(let seconds):
      // One time: nothing after its frame in decoding order is decoded.
      grabber.stopsAtTarget = true
      let grab = try grabber.grab(
        at: seconds, tolerance: options.tolerance, maxSize: options.maxSize)
      let size = try write(grab.picture, to: output)
      emit(record(grab, kind: grabber.isCover ? "cover" : "frame", path: output, bytes: size))
    case .cover:
      let grab = try grabber.grab(at: 0, maxSize: options.maxSize)
      let size = try write(grab.picture, to: output)
      emit(record(grab, kind: "cover", path: output, bytes: size))
    case .series(let series):
      let times = try seriesTimes(series, grabber: grabber)
      for (offset, time) in times.enumerated() {
        let grab = try grabber.grab(
          at: time, tolerance: options.tolerance, maxSize: options.maxSize)
        let path = seriesName(output, index: offset + 1)
        let size = try write(grab.picture, to: path)
        emit(record(grab, kind: "series", path: path, bytes: size, index: offset + 1))
        options.progress?(time, times.last ?? time)
      }
    case .sheet(let columns, let rows, let series, let timestamps):
      var times = try seriesTimes(series ?? .count(columns * rows), grabber: grabber)
      var tiles: [Grab] = []
      var replanned = false
      while tiles.count < min(times.count, columns * rows) {
        // A sheet takes the keyframe nearest each tile's time within half the spacing of the
        // tiles, as AVAssetImageGenerator's default tolerance does (--tolerance 0: exact).
        let spacing = times.count > 1 ? times[1] - times[0] : nil
        let tolerance = options.tolerance ?? spacing.map { $0 / 2 }
        let time = times[tiles.count]
        do {
          tiles.append(
            try grabber.grab(
              at: time, tolerance: tolerance,
              maxSize: options.maxSize ?? ContactSheet.defaultTile))
        } catch .pastLastFrame(_, let end, let stated) where !replanned {
          // A file cut short (its header states more than its frames hold): the tiles are
          // spread over the frames there are, and the command says so.
          replanned = true
          times = (series ?? .count(columns * rows)).times(duration: end)
          tiles = []
          options.warn?(
            "its frames end at \(fixed(end, places: 3)) s"
              + (stated.map { " though its header says \(fixed($0, places: 3)) s" } ?? "")
              + " (the file may be cut short): the sheet covers 0 to \(fixed(end, places: 3)) s")
          continue
        }
        options.progress?(time, times.prefix(columns * rows).last ?? time)
      }
      let sheet = ContactSheet.draw(tiles, columns: columns, rows: rows, timestamps: timestamps)
      let size = try write(sheet, to: output)
      var entry = record(tiles[0], kind: "sheet", path: output, bytes: size)
      entry.requestedTime = nil
      entry.actualTime = nil
      entry.tileTimes = tiles.map { $0.actualTime ?? 0 }
      entry.width = sheet.width
      entry.height = sheet.height
      emit(entry)
    case .best(let window):
      let grab = try BestFrame.choose(
        grabber, window: window, maxSize: options.maxSize, progress: options.progress)
      let size = try write(grab.picture, to: output)
      emit(record(grab, kind: "best", path: output, bytes: size))
    }
  }

  static func seriesTimes(_ series: TimeSeries, grabber: FrameGrabber) throws(FrameError)
    -> [Double]
  {
    if grabber.isStill { return [0] }
    // Without a stated duration (a WebM recorded live), the packets are read to measure it.
    guard let duration = try grabber.measuredDuration() else {
      throw .invalidOption("the video's duration is unknown: give times with --at")
    }
    return series.times(duration: duration)
  }
}
