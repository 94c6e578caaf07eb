import AV
import Dispatch
import MediaCore
import OutputKit
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Peaks of an audio stream in BBC audiowaveform's data model (doc/DataFormat.md of
/// bbc/audiowaveform, read by peaks.js and wavesurfer): for every `samplesPerPixel` samples of
/// 16-bit PCM (the last bin may be shorter), the minimum and the maximum, per channel or of the
/// channels merged (their sum divided by the channel count, truncated, as audiowaveform's
/// generator), as 16-bit values or 8-bit ones (the 16-bit value divided by 256, truncated).
public struct Waveform: Sendable, Equatable {
  /// Samples per second of the audio.
  public var sampleRate: Int
  /// Samples per bin.
  public var samplesPerPixel: Int
  /// Channels in `data` (1 when merged).
  public var channels: Int
  /// 16-bit minima and maxima: bin by bin, channel by channel, min then max.
  public var data: [Int16]

  /// A waveform from its parts.
  public init(sampleRate: Int, samplesPerPixel: Int, channels: Int, data: [Int16]) {
    self.sampleRate = sampleRate
    self.samplesPerPixel = samplesPerPixel
    self.channels = channels
    self.data = data
  }

  /// Bins per channel.
  public var length: Int { channels == 0 ? 0 : data.count / 2 / channels }

  /// The values as written with `bits` (8: each divided by 256, truncated toward zero).
  public func values(bits: Int) -> [Int] {
    bits == 8 ? data.map { Int($0) / 256 } : data.map { Int($0) }
  }

  /// The JSON format, version 2: `{"version":2,"channels":..,"sample_rate":..,
  /// "samples_per_pixel":..,"bits":..,"length":..,"data":[...]}`.
  public func json(bits: Int) -> String {
    String(decoding: jsonBytes(bits: bits), as: UTF8.self)
  }

  /// `json(bits:)` as UTF-8 bytes, made in place: the digits of each value are appended to the
  /// one array (about 7 bytes a value), with no string or list of the values made first.
  public func jsonBytes(bits: Int) -> [UInt8] {
    var bytes = Array(
      ("{\"version\":2,\"channels\":\(channels),\"sample_rate\":\(sampleRate),"
        + "\"samples_per_pixel\":\(samplesPerPixel),\"bits\":\(bits),\"length\":\(length),"
        + "\"data\":[").utf8)
    bytes.reserveCapacity(bytes.count + data.count * (bits == 8 ? 5 : 7) + 3)
    var digits = [UInt8](repeating: 0, count: 8)
    for (index, value) in data.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      var number = bits == 8 ? Int(value) / 256 : Int(value)
      if number < 0 {
        bytes.append(UInt8(ascii: "-"))
        number = -number
      }
      var count = 0
      repeat {
        digits[count] = UInt8(ascii: "0") + UInt8(number % 10)
        number /= 10
        count += 1
      } while number > 0
      for at in stride(from: count - 1, through: 0, by: -1) { bytes.append(digits[at]) }
    }
    bytes += Array("]}\n".utf8)
    return bytes
  }

  /// The binary format (.dat), version 2: a 24-byte little-endian header (version, flags with
  /// bit 0 set for 8-bit data, sample rate, samples per pixel, length, channels), then the values
  /// as int8 or int16 little-endian.
  public func binary(bits: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(24 + data.count * (bits == 8 ? 1 : 2))
    func int32(_ value: Int) {
      let raw = UInt32(truncatingIfNeeded: value)
      for shift in [0, 8, 16, 24] { bytes.append(UInt8(truncatingIfNeeded: raw >> shift)) }
    }
    int32(2)
    int32(bits == 8 ? 1 : 0)
    int32(sampleRate)
    int32(samplesPerPixel)
    int32(length)
    int32(channels)
    for value in data {
      if bits == 8 {
        bytes.append(UInt8(bitPattern: Int8(Int(value) / 256)))
      } else {
        let raw = UInt16(bitPattern: value)
        bytes.append(UInt8(raw & 0xFF))
        bytes.append(UInt8(raw >> 8))
      }
    }
    return bytes
  }

  /// Accumulates interleaved 16-bit samples into bins.
  ///
  /// A merged bin's minimum and maximum are those of the channels' sums, divided by the channel
  /// count once when the bin ends: division truncated toward zero never decreases as the sum
  /// grows, so the smallest quotient is the smallest sum's (and the largest the largest's), the
  /// values audiowaveform's per-sample division gives.
  public struct Builder: Sendable {
    let inputChannels: Int
    let split: Bool
    let samplesPerPixel: Int
    /// Per output: the bin's smallest value (a merged bin: the smallest sum of the channels).
    private var low: [Int32]
    /// Per output: the bin's largest value (a merged bin: the largest sum).
    private var high: [Int32]
    private var count = 0
    /// The bins finished so far (none when they go into `columns`).
    public private(set) var data: [Int16] = []
    /// For a picture: the columns the bins go into instead of `data`.
    public private(set) var columns: WaveformColumns?
    /// The index of the next bin.
    public private(set) var nextBin: Int
    private var scratch: [Int16]

    /// A builder for `inputChannels` channels, merged unless `split`; with `columns`, each bin
    /// (counted from `firstBin`) goes into them and `data` stays empty. A `samplesPerPixel`
    /// below 1 is taken as 1.
    public init(
      inputChannels: Int, split: Bool, samplesPerPixel: Int, columns: WaveformColumns? = nil,
      firstBin: Int = 0
    ) {
      self.inputChannels = inputChannels
      self.split = split
      self.samplesPerPixel = max(1, samplesPerPixel)
      self.columns = columns
      nextBin = firstBin
      let outputs = split ? inputChannels : 1
      low = [Int32](repeating: .max, count: outputs)
      high = [Int32](repeating: .min, count: outputs)
      scratch = [Int16](repeating: 0, count: outputs * 2)
    }

    /// Adds `frames` interleaved frames.
    public mutating func add(_ samples: UnsafeBufferPointer<Int16>) {
      guard let base = samples.baseAddress, inputChannels > 0 else { return }
      let channels = inputChannels
      let frames = samples.count / channels
      var frame = 0
      while frame < frames {
        // The frames up to the end of the current bin, scanned in one loop.
        let take = min(samplesPerPixel - count, frames - frame)
        let at = base + frame * channels
        if split || channels == 1 {
          for channel in 0..<channels {
            Self.extremes(
              at + channel, stride: channels, count: take, low: &low[channel],
              high: &high[channel])
          }
        } else if channels == 2 {
          Self.pairSums(at, count: take, low: &low[0], high: &high[0])
        } else {
          var small = low[0]
          var large = high[0]
          for n in 0..<take {
            var sum: Int32 = 0
            for channel in 0..<channels { sum &+= Int32(at[n * channels + channel]) }
            small = Swift.min(small, sum)
            large = Swift.max(large, sum)
          }
          low[0] = small
          high[0] = large
        }
        count += take
        frame += take
        if count == samplesPerPixel { flush() }
      }
    }

    /// The smallest and largest of `count` values `stride` apart, into `low` and `high`.
    @inline(__always)
    static func extremes(
      _ start: UnsafePointer<Int16>, stride: Int, count: Int, low: inout Int32,
      high: inout Int32
    ) {
      var small = low
      var large = high
      if stride == 1 {
        for n in 0..<count {
          let value = Int32(start[n])
          small = Swift.min(small, value)
          large = Swift.max(large, value)
        }
      } else {
        for n in 0..<count {
          let value = Int32(start[n * stride])
          small = Swift.min(small, value)
          large = Swift.max(large, value)
        }
      }
      low = small
      high = large
    }

    /// The smallest and largest sum of the `count` pairs from `start`, into `low` and `high`.
    @inline(__always)
    static func pairSums(
      _ start: UnsafePointer<Int16>, count: Int, low: inout Int32, high: inout Int32
    ) {
      var small = low
      var large = high
      for n in 0..<count {
        let sum = Int32(start[2 * n]) &+ Int32(start[2 * n + 1])
        small = Swift.min(small, sum)
        large = Swift.max(large, sum)
      }
      low = small
      high = large
    }

    private mutating func flush() {
      // Merged: the sums' extremes divided (truncated toward zero) by the channel count.
      let divisor = split ? 1 : Int32(inputChannels)
      for channel in low.indices {
        scratch[channel * 2] = Int16(low[channel] / divisor)
        scratch[channel * 2 + 1] = Int16(high[channel] / divisor)
      }
      if columns != nil {
        scratch.withUnsafeBufferPointer { columns!.add(bin: nextBin, $0) }
      } else {
        data += scratch
      }
      for channel in low.indices {
        low[channel] = .max
        high[channel] = .min
      }
      nextBin += 1
      count = 0
    }

    /// Ends the last, shorter bin (for `columns`).
    public mutating func finishBins() {
      if count > 0 { flush() }
    }

    /// The waveform, with the last, shorter bin.
    public mutating func finish(sampleRate: Int) -> Waveform {
      if count > 0 { flush() }
      return Waveform(
        sampleRate: sampleRate, samplesPerPixel: samplesPerPixel, channels: low.count,
        data: data)
    }
  }

  /// Decodes the default audio stream of `source` (the ffmpeg CLI's choice, as media2wav) to
  /// 16-bit PCM (libswresample; the samples equal `ffmpeg -i IN -f s16le -`) and bins it.
  ///
  /// With `threads` above 1, a stream `AudioChunks` can cut exactly (AAC LC or MP3 in an MP4
  /// file, 20 s or longer) is decoded in that many chunks at once, each starting on a bin, and
  /// the bins joined; when the chunks' checks do not show that their samples equal one
  /// sequential decode (a noise-coded AAC band, a gap, a changed file), it is decoded again in
  /// one pass, whose bins are made on a second thread beside the decode. Either way the bins
  /// are the sequential decode's.
  ///
  /// - Throws: `FrameError.audio` with the extraction's code (`no_audio_stream`, ...).
  public static func measure(
    _ source: InputSource, options: OpenOptions, samplesPerPixel: Int, split: Bool,
    threads: Int = 1
  ) throws(FrameError) -> Waveform {
    try measureCounting(
      source, options: options, samplesPerPixel: samplesPerPixel, split: split, threads: threads
    ).waveform
  }

  /// `measure`, and how many chunks the decode took (1: one sequential pass).
  public static func measureCounting(
    _ source: InputSource, options: OpenOptions, samplesPerPixel: Int, split: Bool,
    threads: Int = 1
  ) throws(FrameError) -> (waveform: Waveform, chunks: Int) {
    let measured = try measure(
      source, options: options, samplesPerPixel: samplesPerPixel, split: split, threads: threads,
      columns: nil)
    return (measured.waveform, measured.chunks)
  }

  /// What a measurement gives.
  public struct Measurement: Sendable {
    /// The waveform (with no bins in `data` when `columns` holds them).
    public var waveform: Waveform
    /// For a picture: its columns, when the stream's length was known before the decode.
    public var columns: WaveformColumns?
    /// Bins per channel.
    public var bins: Int
    /// The decode's chunks (1: one pass).
    public var chunks: Int
    /// What the decode warned of (packets that failed to decode and were skipped, as the
    /// ffmpeg CLI skips them; a format change mid-stream; leading junk): the bins are those of
    /// the samples that did decode. Empty for chunks (they are kept only when every frame
    /// decoded).
    public var warnings: [String] = []
  }

  /// `measure`; with `columns` (a picture's width), a stream whose length the container states
  /// exactly (MP4's sample table, in 1/rate: `AudioChunks.declaredSamples`) is reduced to the
  /// picture's columns as it is decoded, holding no bins (when the decode delivers another
  /// count of samples, it is measured again with the bins kept).
  public static func measure(
    _ source: InputSource, options: OpenOptions, samplesPerPixel: Int, split: Bool,
    threads: Int, columns: Int?
  ) throws(FrameError) -> Measurement {
    if threads > 1,
      let plan = AudioChunks.plan(
        source, options: options, chunks: threads, alignment: samplesPerPixel),
      let measured = try measure(
        plan, samplesPerPixel: samplesPerPixel, split: split, columns: columns)
    {
      return measured
    }
    return try measureSequentially(
      source, options: options, samplesPerPixel: samplesPerPixel, split: split, columns: columns,
      overlapped: threads > 1)
  }

  /// The waveform from `plan`'s chunks decoded at once, or nil when their checks fail (or a
  /// chunk failed other than by an interruption or the time limit: the sequential decode then
  /// reports what is wrong).
  package static func measure(_ plan: AudioChunks.Plan, samplesPerPixel: Int, split: Bool)
    throws(FrameError) -> Waveform?
  {
    try measure(plan, samplesPerPixel: samplesPerPixel, split: split, columns: nil)?.waveform
  }

  /// `measure(_:samplesPerPixel:split:)`, into `columns` columns when given.
  package static func measure(
    _ plan: AudioChunks.Plan, samplesPerPixel: Int, split: Bool, columns width: Int?
  ) throws(FrameError) -> Measurement? {
    let outputs = split ? plan.channels : 1
    let spp = Int64(samplesPerPixel)
    let expected = Int((plan.declaredSamples + spp - 1) / spp)
    let template = width.map { WaveformColumns(width: $0, bins: expected, channels: outputs) }
    let results = Mutex<[Int: Result<(AudioChunks.ChunkReport, Builder), ExtractError>]>([:])
    DispatchQueue.concurrentPerform(iterations: plan.count) { k in
      var builder = Builder(
        inputChannels: plan.channels, split: split, samplesPerPixel: samplesPerPixel,
        columns: template, firstBin: Int((plan.starts[k] - plan.firstSample) / spp))
      do throws(ExtractError) {
        let report = try AudioChunks.decode(plan, chunk: k) { builder.add($0) }
        builder.finishBins()
        results.withLock { $0[k] = .success((report, builder)) }
      } catch {
        results.withLock { $0[k] = .failure(error) }
      }
    }
    var reports: [AudioChunks.ChunkReport] = []
    var data: [Int16] = []
    var joined = template
    var bins = 0
    for k in 0..<plan.count {
      switch results.withLock({ $0.removeValue(forKey: k) }) {
      case .success(let (report, builder)):
        reports.append(report)
        data += builder.data
        if let columns = builder.columns { joined?.merge(columns) }
        bins = builder.nextBin
      case .failure(let error):
        switch error {
        case .interrupted, .input(.timeout): throw .audio(error)
        default: return nil
        }
      case nil: return nil
      }
    }
    guard AudioChunks.joined(reports, plan: plan) else { return nil }
    if joined != nil && bins != expected {
      return try measure(plan, samplesPerPixel: samplesPerPixel, split: split, columns: nil)
    }
    let waveform = Waveform(
      sampleRate: plan.sampleRate, samplesPerPixel: samplesPerPixel, channels: outputs,
      data: data)
    return Measurement(waveform: waveform, columns: joined, bins: bins, chunks: plan.count)
  }

  /// The waveform from one decode from the start.
  package static func measureSequentially(
    _ source: InputSource, options: OpenOptions, samplesPerPixel: Int, split: Bool
  ) throws(FrameError) -> Waveform {
    try measureSequentially(
      source, options: options, samplesPerPixel: samplesPerPixel, split: split, columns: nil
    ).waveform
  }

  /// One decode from the start, into `columns` columns when given and the length is known.
  ///
  /// With `overlapped`, the bins are made on a second thread (`WaveformThread`) while this one
  /// decodes and converts, handed over `batchBytes` at a time: the same samples in the same
  /// order, so the same bins.
  package static func measureSequentially(
    _ source: InputSource, options: OpenOptions, samplesPerPixel: Int, split: Bool,
    columns width: Int?, overlapped: Bool = false, batchBytes: Int = WaveformThread.batchBytes
  ) throws(FrameError) -> Measurement {
    var expected: Int?
    var builder: Builder?
    var binning: WaveformThread?
    var filling: ByteBuffer?
    defer { binning?.abandon() }
    var sampleRate = 0
    var warnings: [String] = []
    do throws(ExtractError) {
      let audio = try AudioSource(
        opening: source, open: options, choice: .automatic, start: nil, duration: nil,
        target: SourceTarget(encoding: .s16), timeout: options.timeout)
      func makeBuilder(_ format: PCMFormat) -> Builder {
        let outputs = split ? format.channels : 1
        var columns: WaveformColumns?
        if let width, let declared = AudioChunks.declaredSamples(of: audio) {
          let bins = Int((declared + Int64(samplesPerPixel) - 1) / Int64(samplesPerPixel))
          expected = bins
          columns = WaveformColumns(width: width, bins: bins, channels: outputs)
        }
        return Builder(
          inputChannels: format.channels, split: split, samplesPerPixel: samplesPerPixel,
          columns: columns)
      }
      let scratch = ByteBuffer()
      var more = true
      while more {
        more = try audio.step { (conversion) throws(ExtractError) in
          if builder == nil, binning == nil, let format = audio.format {
            let made = makeBuilder(format)
            if overlapped {
              let thread = WaveformThread(made)
              binning = thread
              filling = thread.takeBuffer()
            } else {
              builder = made
            }
          }
          let target = filling ?? scratch
          if filling == nil { scratch.removeAll() }
          do throws(FFmpegError) {
            try conversion(target)
          } catch {
            throw .conversion("converting the samples to 16-bit", error)
          }
          if let thread = binning {
            if target.count >= batchBytes {
              thread.submit(target)
              filling = thread.takeBuffer()
            }
          } else if builder != nil {
            target.contents.withMemoryRebound(to: Int16.self) { builder!.add($0) }
          }
        }
      }
      guard let format = audio.format else {
        throw .noDecodableAudio("no samples decoded")
      }
      if let thread = binning, let last = filling {
        filling = nil
        thread.submit(last)
        builder = thread.finish()
      }
      if builder == nil { builder = makeBuilder(format) }
      builder!.finishBins()
      sampleRate = format.sampleRate
      warnings = audio.reportedWarnings
    } catch {
      throw .audio(error)
    }
    if let expected, builder!.nextBin != expected {
      return try measureSequentially(
        source, options: options, samplesPerPixel: samplesPerPixel, split: split, columns: nil,
        overlapped: overlapped, batchBytes: batchBytes)
    }
    let waveform = builder!.finish(sampleRate: sampleRate)
    return Measurement(
      waveform: waveform, columns: builder!.columns, bins: builder!.nextBin, chunks: 1,
      warnings: warnings)
  }
}

/// The columns of a waveform picture: for each of `width` columns and each channel, the lowest
/// minimum and the highest maximum of the bins it covers (column x covers bins ⌊x·L/W⌋ up to
/// ⌊(x+1)·L/W⌋, at least one, for L bins and W columns), reduced as the bins come: a picture
/// needs `width` columns, not the bins, whatever the length. The count of bins L is fixed
/// first; the caller checks that as many came.
public struct WaveformColumns: Sendable, Equatable {
  /// Columns.
  public let width: Int
  /// The bins the columns are cut for.
  public let bins: Int
  /// Channels (1 when merged).
  public let channels: Int
  /// Per column, per channel: the lowest minimum.
  public private(set) var low: [Int16]
  /// Per column, per channel: the highest maximum.
  public private(set) var high: [Int16]

  /// Empty columns for `bins` bins.
  public init(width: Int, bins: Int, channels: Int) {
    self.width = max(1, width)
    self.bins = bins
    self.channels = channels
    low = [Int16](repeating: .max, count: self.width * channels)
    high = [Int16](repeating: .min, count: self.width * channels)
  }

  /// The columns of a whole waveform.
  public init(_ waveform: Waveform, width: Int) {
    self.init(width: width, bins: waveform.length, channels: waveform.channels)
    waveform.data.withUnsafeBufferPointer { data in
      for bin in 0..<bins {
        add(
          bin: bin,
          UnsafeBufferPointer(rebasing: data[(bin * channels * 2)...].prefix(channels * 2)))
      }
    }
  }

  /// Adds bin `bin`: min, max per channel.
  public mutating func add(bin: Int, _ values: UnsafeBufferPointer<Int16>) {
    guard bins > 0, bin < bins else { return }
    // The last column whose first bin is at or before `bin`, then back while they cover it.
    var x = min(width - 1, ((bin + 1) * width + bins - 1) / bins - 1)
    while x >= 0 {
      let first = x * bins / width
      let last = max(first + 1, (x + 1) * bins / width)
      guard first <= bin, bin < last else {
        if bin < first {
          x -= 1
          continue
        }
        break
      }
      for channel in 0..<channels {
        let at = x * channels + channel
        low[at] = min(low[at], values[channel * 2])
        high[at] = max(high[at], values[channel * 2 + 1])
      }
      x -= 1
    }
  }

  /// Takes in the bins `other` (cut for the same bins) was given.
  public mutating func merge(_ other: WaveformColumns) {
    for at in low.indices {
      low[at] = min(low[at], other.low[at])
      high[at] = max(high[at], other.high[at])
    }
  }
}

/// How a waveform is drawn as a picture.
public struct WaveformStyle: Sendable, Equatable {
  /// The picture's width in pixels.
  public var width = 1000
  /// The picture's height in pixels (shared by the channels, top to bottom).
  public var height = 200
  /// The waveform's colour.
  public var color: (UInt8, UInt8, UInt8) = (0x3C, 0x78, 0xD8)
  /// The ground's colour.
  public var background: (UInt8, UInt8, UInt8) = (0xFF, 0xFF, 0xFF)
  /// Heights in decibels (from `-dbRange` dBFS at the centre line to 0 dBFS at the edge)
  /// instead of linear amplitude.
  public var decibels = false
  /// The range the decibel scale shows.
  public var decibelRange = 48.0
  /// A time axis along the bottom: a 12-pixel strip with a tick and a label (`m:ss.s`) every
  /// 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min or 1 h, the first step at
  /// least 80 pixels wide; a label that would run past the right edge is left out.
  public var axis = false
  /// The axis strip's height in pixels.
  public static let axisHeight = 12

  /// The default style: 1000×200, blue on white, linear, no axis.
  public init() {}

  /// Two styles draw alike.
  public static func == (a: WaveformStyle, b: WaveformStyle) -> Bool {
    a.width == b.width && a.height == b.height && a.color == b.color
      && a.background == b.background && a.decibels == b.decibels
      && a.decibelRange == b.decibelRange && a.axis == b.axis
  }

  /// The picture: each column shows the lowest minimum and the highest maximum of the bins it
  /// covers (column x covers bins ⌊x·L/W⌋ up to ⌊(x+1)·L/W⌋, at least one), as a vertical line
  /// around the channel's centre line; each channel gets an equal band, top to bottom.
  public func draw(_ waveform: Waveform) -> Picture {
    draw(
      WaveformColumns(waveform, width: width), sampleRate: waveform.sampleRate,
      samplesPerPixel: waveform.samplesPerPixel)
  }

  /// The picture of `columns` (made for this style's width), whose bins hold
  /// `samplesPerPixel` samples at `sampleRate`: what `draw(_:)` draws, without the bins.
  public func draw(_ columns: WaveformColumns, sampleRate: Int, samplesPerPixel: Int) -> Picture {
    var picture = Picture(width: width, height: height, fill: background)
    guard columns.bins > 0, columns.width == width else { return picture }
    let plotHeight = axis ? max(1, height - Self.axisHeight) : height
    if axis {
      let seconds = Double(columns.bins * samplesPerPixel) / Double(max(1, sampleRate))
      drawAxis(&picture, seconds: seconds, top: plotHeight)
    }
    let bandHeight = plotHeight / max(1, columns.channels)
    for channel in 0..<columns.channels {
      let top = channel * bandHeight
      let middle = Double(top) + Double(bandHeight) / 2
      let half = Double(bandHeight) / 2
      for x in 0..<width {
        let low = Int(columns.low[x * columns.channels + channel])
        let high = Int(columns.high[x * columns.channels + channel])
        let y0 = Int((middle - scale(high) * half).rounded(.down))
        let y1 = Int((middle - scale(low) * half).rounded(.up))
        picture.fill(
          x: x, y: max(top, min(y0, y1)), w: 1,
          h: max(1, min(top + bandHeight, max(y0, y1) + 1) - max(top, min(y0, y1))),
          color: color)
      }
    }
    return picture
  }

  /// The time axis in the strip from row `top` down.
  func drawAxis(_ picture: inout Picture, seconds: Double, top: Int) {
    let perPixel = seconds / Double(width)
    guard perPixel > 0 else { return }
    let steps: [Double] = [
      0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600,
    ]
    let step = steps.first { $0 / perPixel >= 80 } ?? 3600
    let ink: (UInt8, UInt8, UInt8) = (96, 96, 96)
    var index = 0
    while Double(index) * step < seconds {
      let time = Double(index) * step
      let x = Int((time / perPixel).rounded(.down))
      picture.fill(x: x, y: top, w: 1, h: 3, color: ink)
      // A label that would run past the right edge is left out (its tick stays): a cut one
      // ("2:0" for 2:00:00) reads as another time.
      let label = ContactSheet.label(time)
      if x + 2 + label.count * 6 - 1 <= width {
        PixelFont.draw(label, into: &picture, x: x + 2, y: top + 4, scale: 1, color: ink)
      }
      index += 1
    }
  }

  /// A sample value as a signed fraction of the band's half height.
  func scale(_ value: Int) -> Double {
    let linear = Double(value) / 32768
    guard decibels else { return linear }
    let magnitude = abs(linear)
    guard magnitude > 0 else { return 0 }
    let db = 20 * log10(magnitude)
    let fraction = max(0, (db + decibelRange) / decibelRange)
    return linear < 0 ? -fraction : fraction
  }
}

/// Writes the waveform of one input: the engine of `mediaframe --waveform`.
public enum WaveformJob {
  /// The formats a waveform is written in, by the output's extension.
  public enum Kind: String, Sendable {
    /// audiowaveform's JSON (version 2).
    case json
    /// audiowaveform's binary data (version 2).
    case dat
    /// A picture (PNG).
    case png

    /// The kind `path`'s extension names; nil for another.
    public init?(path: String) {
      let name = path.split(separator: "/").last.map(String.init) ?? path
      guard let dot = name.lastIndex(of: ".") else { return nil }
      self.init(rawValue: name[name.index(after: dot)...].lowercased())
    }
  }

  /// What one waveform written says (one NDJSON line).
  public struct Record: Encodable, Sendable {
    /// The input, as given.
    public var input: String
    /// The file written.
    public var output: String
    /// Always `waveform`.
    public var kind = "waveform"
    /// `json`, `dat` or `png`.
    public var format: String
    /// The audio's sample rate.
    public var sampleRate: Int
    /// Samples per bin.
    public var samplesPerPixel: Int
    /// 8 or 16 (nil for a picture).
    public var bits: Int?
    /// Channels written (1 when merged).
    public var channels: Int
    /// Bins per channel.
    public var length: Int
    /// The file's size in bytes.
    public var bytes: Int
    /// The audio was decoded in this many chunks at once (1: one pass from the start).
    public var chunks: Int
    /// What the decode warned of (`Waveform.Measurement.warnings`); left out when none.
    public var warnings: [String]?

    enum CodingKeys: String, CodingKey {
      case input, output, kind, format
      case sampleRate = "sample_rate"
      case samplesPerPixel = "samples_per_pixel"
      case bits, channels, length, bytes, chunks, warnings
    }
  }

  /// Measures `source` (in `threads` chunks at once where that is exact: `Waveform.measure`)
  /// and writes the waveform to `output` as its extension says.
  ///
  /// - Throws: `FrameError`: `.unsupportedOutput`, `.audio`, `.encoder`, `.output`.
  public static func run(
    _ source: InputSource, input: String, output: String, open: OpenOptions,
    samplesPerPixel: Int, bits: Int, split: Bool, style: WaveformStyle, overwrite: Bool,
    sync: Bool, threads: Int = 1
  ) throws(FrameError) -> Record {
    guard let kind = Kind(path: output) else { throw .unsupportedOutput(output) }
    let measured = try Waveform.measure(
      source, options: open, samplesPerPixel: samplesPerPixel, split: split, threads: threads,
      columns: kind == .png ? style.width : nil)
    let waveform = measured.waveform
    let bytes: [UInt8]
    switch kind {
    case .json: bytes = waveform.jsonBytes(bits: bits)
    case .dat: bytes = waveform.binary(bits: bits)
    case .png:
      let picture =
        measured.columns.map {
          style.draw($0, sampleRate: waveform.sampleRate, samplesPerPixel: samplesPerPixel)
        } ?? style.draw(waveform)
      bytes = try ImageWriter.encode(picture, as: .png)
    }
    try ImageWriter.write(bytes, to: output, overwrite: overwrite, sync: sync)
    return Record(
      input: input, output: output, format: kind.rawValue, sampleRate: waveform.sampleRate,
      samplesPerPixel: samplesPerPixel, bits: kind == .png ? nil : bits,
      channels: waveform.channels, length: measured.bins, bytes: bytes.count,
      chunks: measured.chunks, warnings: measured.warnings.isEmpty ? nil : measured.warnings)
  }
}
