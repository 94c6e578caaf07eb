import AV
import Composition
import MediaCore
import OutputKit

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// The audio part of the compositor's self-check (`check.audio` in the report): the rendered
/// output's audio level in short windows at every segment's middle and at every gain breakpoint
/// (crossfades, fades, ramps, loop-free track ends) against the level the plan gives there.
///
/// Expected levels are mixed from the sources by `CompositionAudio` itself, starting at each
/// window (its sources seeked there), so the check proves that what was encoded and muxed is
/// the plan's mix: at the right time (a shifted or truncated track fails at the breakpoints),
/// with the right gains (a level off by more than the tolerance fails).
public struct AudioCheck: Codable, Sendable, Equatable {
  /// The length of each window in seconds.
  public var windowSeconds: Double
  /// The largest difference between expected and measured level that passes, in dB.
  public var toleranceDB: Double
  /// Below this RMS level (dBFS) a window counts as silence: two silent levels agree.
  public var silenceDB: Double
  /// Every window, in time order.
  public var windows: [AudioCheckWindow]
  /// True when every window passed.
  public var ok: Bool
}

/// One window of the audio self-check.
public struct AudioCheckWindow: Codable, Sendable, Equatable {
  /// What it was placed at: `clips[1] middle`, `clips[2] gain breakpoint`,
  /// `audio[0] gain breakpoint`.
  public var at: String
  /// The composition time it was placed at, in seconds.
  public var time: Double
  /// Where the window starts, in seconds (the time minus half a window, kept inside the
  /// composition).
  public var start: Double
  /// The RMS level the plan gives there (all channels), dBFS; null for digital silence.
  @NullEncoded public var expectedDB: Double?
  /// The RMS level of the output's audio there, dBFS; null for digital silence.
  @NullEncoded public var measuredDB: Double?
  /// Within the tolerance, or both below the silence level.
  public var ok: Bool
}

/// One window the audio self-check measures: where it is and why.
package struct AudioWindow: Sendable, Equatable {
  /// What it is at (`clips[2] middle`, `audio[0] gain breakpoint`).
  package var label: String
  /// The place on the composition's timeline.
  package var time: MediaTime
  /// Its first sample.
  package var start: Int64
}

/// The mean square of the render's own mix in each check window, accumulated from the blocks the
/// compositor encodes as they pass (no second decode, and the same samples the encoder got).
package struct AudioLevelRecorder: Sendable {
  /// The windows, by start.
  package let windows: [AudioWindow]
  /// Each window's length in samples.
  package let length: Int64
  private var squares: [Double]
  private let channelCount: Int

  /// A recorder of `windows` of `length` samples with `channelCount` channels.
  package init(windows: [AudioWindow], length: Int64, channelCount: Int) {
    self.windows = windows
    self.length = length
    self.channelCount = channelCount
    squares = Array(repeating: 0, count: windows.count)
  }

  /// Adds a block of the mix.
  package mutating func record(_ block: AudioBlock) {
    let count = Int64(block.channels.first?.count ?? 0)
    let blockEnd = block.start + count
    for (index, window) in windows.enumerated() {
      let from = max(window.start, block.start)
      let to = min(window.start + length, blockEnd)
      guard from < to else { continue }
      var sum = 0.0
      for channel in block.channels {
        for position in Int(from - block.start)..<Int(to - block.start) {
          sum += Double(channel[position]) * Double(channel[position])
        }
      }
      squares[index] += sum
    }
  }

  /// Each window's mean square (per sample and channel).
  package var meanSquares: [Double] {
    squares.map { $0 / Double(max(1, length) * Int64(channelCount)) }
  }
}

/// Runs the audio self-check.
package enum AudioSelfCheck {
  /// The windows the check measures for `plan` at `sampleRate`: each segment's middle and each
  /// gain breakpoint (segments' and audio tracks'), one per start sample, in time order; and
  /// their length.
  package static func windows(
    plan: CompositionPlan, sampleRate: Int, channelCount: Int, windowSeconds: Double = 0.1
  ) throws(CompositorError) -> (windows: [AudioWindow], length: Int64) {
    let mixer = try CompositionAudio(
      plan: plan, sampleRate: sampleRate, channelCount: channelCount, startingAt: 0)
    let total = mixer.totalSamples
    let length = min(total, max(1, Int64((windowSeconds * Double(sampleRate)).rounded())))
    let rate = Rational(Int64(sampleRate), 1)!

    // The places: each segment's middle, each breakpoint; one window per start sample.
    var places: [(label: String, time: MediaTime)] = []
    for segment in plan.segments {
      let range = segment.compositionRange
      let middle =
        ExactNumber(range.start).adding(
          ExactNumber(range.duration).multiplied(by: ExactNumber(1, 2)!) ?? .zero)?.time
        ?? MediaTime(
          value: Int64((range.start.seconds + range.duration.seconds / 2) * 1e6),
          timescale: 1_000_000)
      places.append(("clips[\(segment.index)] middle", middle))
      for point in segment.audio?.gain.points ?? [] {
        places.append(("clips[\(segment.index)] gain breakpoint", point.time))
      }
    }
    for track in plan.audio {
      for point in track.gain.points {
        places.append(("audio[\(track.index)] gain breakpoint", point.time))
      }
    }
    var windows: [AudioWindow] = []
    var seen = Set<Int64>()
    for place in places {
      let centre = place.time.units(atRate: rate)
      let start = min(max(0, centre - length / 2), total - length)
      guard total > 0, seen.insert(start).inserted else { continue }
      windows.append(AudioWindow(label: place.label, time: place.time, start: start))
    }
    windows.sort { $0.start < $1.start }
    return (windows, length)
  }

  /// The level difference the check allows when an audio-only output's AAC was encoded at
  /// `bitRate`, below the `asked` rate (`--max-size` lowered it): 1 dB plus what FFmpeg's AAC
  /// encoder's low-pass at that rate can take from white noise, 10·log10((rate/2)/cutoff), the
  /// cutoff from `AAC_CUTOFF_FROM_BITRATE` (libavcodec/psymodel.h): min(max(r/5, r·15/32 −
  /// 5500), 3000 + r/4, 12000 + r/16, 22000, rate/2) with r the bit rate per channel (61 kb/s
  /// of stereo: 8,797 Hz, 5.4 dB). Real sound loses less; the check still sees missing,
  /// misplaced or doubled sound. 1 dB otherwise.
  package static func toleranceDB(
    encodedAt bitRate: Int, asked: Int, sampleRate: Int, channels: Int
  ) -> Double {
    guard bitRate > 0, bitRate < asked, sampleRate > 0, channels > 0 else { return 1 }
    let perChannel = bitRate / channels
    let cutoff = min(
      max(perChannel / 5, perChannel * 15 / 32 - 5500), 3000 + perChannel / 4,
      12000 + perChannel / 16, 22000, sampleRate / 2)
    guard cutoff > 0 else { return 1 }
    return 1 + max(0, 10 * log10(Double(sampleRate / 2) / Double(cutoff)))
  }

  /// Checks the audio of the rendered file at `output` against `plan` mixed at `sampleRate`
  /// with `channelCount` channels (the settings the render used).
  ///
  /// - Parameters:
  ///   - windowSeconds: each window's length (100 ms: long enough for a stable RMS, short
  ///     enough to see a fade's slope).
  ///   - toleranceDB: the largest difference that passes.
  ///   - silenceDB: the RMS level under which a window is silent (the AAC encoder's noise).
  /// - Throws: `CompositorError`: the output or a source cannot be read (their codes).
  package static func check(
    plan: CompositionPlan, sampleRate: Int, channelCount: Int, output: String,
    windowSeconds: Double = 0.1, toleranceDB: Double = 1, silenceDB: Double = -60,
    rendered: AudioLevelRecorder? = nil
  ) throws(CompositorError) -> AudioCheck {
    let windows: [AudioWindow]
    let length: Int64
    if let rendered {
      (windows, length) = (rendered.windows, rendered.length)
    } else {
      (windows, length) = try Self.windows(
        plan: plan, sampleRate: sampleRate, channelCount: channelCount,
        windowSeconds: windowSeconds)
    }

    // Expected: the mix the render encoded over each window (accumulated as it passed), or
    // the plan mixed over each window alone (its sources seeked there).
    var expected: [Double] = rendered?.meanSquares ?? []
    for window in windows where rendered == nil {
      let part = try CompositionAudio(
        plan: plan, sampleRate: sampleRate, channelCount: channelCount,
        startingAt: window.start)
      var squares = 0.0
      var counted: Int64 = 0
      while counted < length, let block = try part.next(maxSamples: Int(length - counted)) {
        for channel in block.channels {
          for sample in channel { squares += Double(sample) * Double(sample) }
        }
        counted += Int64(block.channels[0].count)
      }
      expected.append(squares / Double(max(1, length) * Int64(channelCount)))
    }

    // Measured: the output's audio decoded once, each window's squares summed as it passes.
    let measured = try measure(
      output, sampleRate: sampleRate, channelCount: channelCount,
      windows: windows.map { $0.start }, length: length)

    func decibels(_ meanSquare: Double) -> Double? {
      guard meanSquare > 0 else { return nil }
      return (10 * log10(meanSquare) * 100).rounded() / 100
    }
    var results: [AudioCheckWindow] = []
    for (index, window) in windows.enumerated() {
      let e = decibels(expected[index])
      let m = decibels(measured[index])
      let silentE = (e ?? -.infinity) < silenceDB
      let silentM = (m ?? -.infinity) < silenceDB
      let ok: Bool
      if silentE || silentM {
        ok = silentE && silentM
      } else {
        ok = abs(e! - m!) <= toleranceDB
      }
      results.append(
        AudioCheckWindow(
          at: window.label, time: window.time.seconds,
          start: Double(window.start) / Double(sampleRate), expectedDB: e, measuredDB: m,
          ok: ok))
    }
    return AudioCheck(
      windowSeconds: Double(length) / Double(sampleRate), toleranceDB: toleranceDB,
      silenceDB: silenceDB, windows: results, ok: results.allSatisfy(\.ok))
  }

  /// The mean square of the output's audio (all channels) over `length` samples from each of
  /// `windows` (sorted starts); 0 where the output has no samples.
  static func measure(
    _ path: String, sampleRate: Int, channelCount: Int, windows: [Int64], length: Int64
  ) throws(CompositorError) -> [Double] {
    let source: AudioSource
    do throws(ExtractError) {
      source = try AudioSource(
        opening: .file(path), open: OpenOptions(), choice: .automatic, start: nil,
        duration: nil,
        target: SourceTarget(
          encoding: .f32, float: true, sampleRate: sampleRate, channels: channelCount))
    } catch {
      throw Voice.failure(path, error)
    }
    var sums = [Double](repeating: 0, count: windows.count)
    guard let last = windows.last else { return sums }
    let scratch = ByteBuffer()
    var position: Int64 = 0
    var first = 0  // the first window not yet passed
    var more = true
    while more && position < last + length {
      scratch.removeAll()
      do throws(ExtractError) {
        more = try source.step { (conversion) throws(ExtractError) in
          do throws(FFmpegError) {
            try conversion(scratch)
          } catch {
            throw .conversion("converting the output's samples to float", error)
          }
        }
      } catch {
        throw Voice.failure(path, error)
      }
      let values = scratch.count / MemoryLayout<Float>.size
      let frames = Int64(values / channelCount)
      guard frames > 0 else { continue }
      let floats = scratch.contents.bindMemory(to: Float.self)
      let end = position + frames
      while first < windows.count && windows[first] + length <= position { first += 1 }
      var index = first
      while index < windows.count && windows[index] < end {
        let from = max(windows[index], position)
        let to = min(windows[index] + length, end)
        if from < to {
          var squares = 0.0
          for i in Int((from - position)) * channelCount..<Int(to - position) * channelCount {
            squares += Double(floats[i]) * Double(floats[i])
          }
          sums[index] += squares
        }
        index += 1
      }
      position = end
    }
    return sums.map { $0 / Double(max(1, length) * Int64(channelCount)) }
  }
}
