import AV
import Composition
import MediaCore
import OutputKit

/// One block of a composition's mixed audio: planar Float32 at the render's sample rate,
/// `channels[c][i]` is sample `start + i` of channel `c` on the composition's timeline
/// (sample 0 is composition time 0).
package struct AudioBlock: Sendable, Equatable {
  /// The index of the block's first sample on the composition's timeline.
  package var start: Int64
  /// One array per channel, all the same length.
  package var channels: [[Float]]

  /// A block of the given samples.
  package init(start: Int64, channels: [[Float]]) {
    self.start = start
    self.channels = channels
  }

  /// The block as a planar float frame for the AAC encoder (its `pts` the block's first sample),
  /// mono or stereo at `sampleRate`.
  func frame(sampleRate: Int) throws(CompositorError) -> Frame {
    let frame: Frame
    do {
      frame = try Frame.audio(
        sampleCount: channels.first?.count ?? 0, format: .fltp,
        layout: channels.count == 1 ? .mono : .stereo, sampleRate: sampleRate)
    } catch {
      throw .render(.encoder("aac", error))
    }
    for (channel, values) in channels.enumerated() {
      frame.withSamples(channel: channel) { bytes in
        values.withUnsafeBytes { bytes.copyMemory(from: $0) }
      }
    }
    frame.pts = start
    return frame
  }
}

/// The composition's audio, rendered from its plan: every segment's clip audio and every audio
/// track with its gain envelope (volume, crossfades, fades, ramps, loops), summed without
/// normalisation and cut at the composition's end. The video renderer pulls blocks from it and
/// encodes them.
///
/// The rules (docs/mediamerge.md, "Composition audio"):
/// - Every composition time (a segment's or a loop pass's range, a gain breakpoint) becomes a
///   sample index by one rule: `MediaTime.units(atRate:)`, the nearest sample, halves up.
/// - A voice (a segment's clip audio, or one pass of an audio track) plays composition samples
///   `[start, end)` = its range's rounded ends; its sample `k` is its source at
///   `from + k / rate` (the source seeked and trimmed at `from` as the ffmpeg CLI's `-ss`, then
///   resampled by libswresample); a source that ends early contributes silence for the rest.
/// - Its gain at sample `n` is its plan's `GainEnvelope` with each breakpoint rounded to a
///   sample, linear in gain between breakpoints (`GainSchedule`, the mixer model media2wav's
///   `mix` uses too); each sample is multiplied by `Float(gain)`.
/// - Channels: a mono source plays in every output channel at its own level (copied, as
///   AVFoundation plays a mono track on both sides); a source with the output's channel count
///   maps channel to channel; any other count goes through libswresample's default matrix
///   (stereo to mono is (L + R) / 2; 5.1 to stereo adds the centre and surrounds at −3 dB,
///   normalised so no output passes the loudest input).
/// - An audio stream that starts after the point played (its first timestamp later than the
///   file's start + `from`) is preceded by silence until its first sample, keeping sync.
/// - Voices are summed in 32-bit float without normalisation by their number; a summed sample
///   outside [-1, 1] is counted in `clippedSamples` and NOT clamped (the encoder gets it as
///   summed).
/// - Sources open lazily, when the block being mixed reaches their range, and close as soon as
///   it passes their end: the files open at once are the voices overlapping one block. Each voice
///   buffers only what one block needs.
package final class CompositionAudio {
  /// The output's sample rate.
  package let sampleRate: Int
  /// The output's channel count (1 or 2).
  package let channelCount: Int
  /// The total number of samples per channel: the plan's duration at `sampleRate`, rounded.
  package let totalSamples: Int64
  /// Samples that left [-1, 1] after summing (counted, never hidden).
  package private(set) var clippedSamples: Int64 = 0
  /// The composition sample of the first clipped sample, nil when none clipped.
  package private(set) var firstClippedSample: Int64?
  /// The most sources that were open at once.
  package private(set) var maxOpenSources = 0
  /// The sources open now.
  package var openSources: Int { active.filter(\.isOpen).count }

  /// What the voices hold between blocks: how many hold any buffer, and how many samples those
  /// buffers can hold (their capacity). A measure of the mixer's own memory that other work in
  /// the process does not disturb: voices not reached and voices closed hold nothing.
  package var heldBuffers: (voices: Int, samples: Int) {
    var holding = 0
    var samples = 0
    for voice in voices where voice.heldSamples > 0 || voice.holdsScratch {
      holding += 1
      samples += voice.heldSamples
    }
    return (holding, samples)
  }

  private var position: Int64
  /// Every voice, in order of their starts; `pending` is the first not yet reached.
  private var voices: [Voice]
  private var pending = 0
  private var active: [Voice] = []

  /// A renderer of `plan`'s audio at `sampleRate` with `channelCount` channels. Sources open
  /// lazily, when their range is reached, and close after it.
  package convenience init(plan: CompositionPlan, sampleRate: Int, channelCount: Int)
    throws(CompositorError)
  {
    try self.init(plan: plan, sampleRate: sampleRate, channelCount: channelCount, startingAt: 0)
  }

  /// A renderer of `plan`'s audio whose first block starts at composition sample `first` (the
  /// self-check mixes single windows this way): the voices that span `first` are seeked into.
  ///
  /// - Throws: `CompositorError.audio` (`invalid_settings`) for a rate or channel count it
  ///   cannot render.
  package init(plan: CompositionPlan, sampleRate: Int, channelCount: Int, startingAt first: Int64)
    throws(CompositorError)
  {
    guard sampleRate > 0, sampleRate <= 768_000, (1...8).contains(channelCount) else {
      throw .audio(
        AudioFailure(
          path: nil,
          detail: .settings(
            "cannot mix audio at \(sampleRate) Hz with \(channelCount) channels")))
    }
    self.sampleRate = sampleRate
    self.channelCount = channelCount
    let rate = Rational(Int64(sampleRate), 1)!
    totalSamples = max(0, plan.duration.units(atRate: rate))
    let total = max(0, plan.duration.units(atRate: rate))
    let begin = min(max(0, first), total)
    position = begin
    voices = Self.voices(of: plan, rate: rate, total: total).filter { $0.end > begin }
  }

  /// The next block of at most `maxSamples` samples per channel, or nil once `totalSamples`
  /// samples have been returned.
  ///
  /// - Throws: `CompositorError.source` (the probe's code: `not_found`, ...) for a source that
  ///   cannot be opened any more, `.audio` (`decoder_error`, `no_audio_stream`,
  ///   `no_decodable_audio`, ...) for one that cannot be decoded, with its path;
  ///   `.render(.interrupted)` on SIGINT/SIGTERM.
  package func next(maxSamples: Int) throws(CompositorError) -> AudioBlock? {
    guard position < totalSamples else { return nil }
    let count = Int(min(Int64(max(1, maxSamples)), totalSamples - position))
    let blockEnd = position + Int64(count)
    var channels = Array(repeating: [Float](repeating: 0, count: count), count: channelCount)

    // Voices reached by this block join; each mixes its part of it.
    while pending < voices.count && voices[pending].start < blockEnd {
      active.append(voices[pending])
      pending += 1
    }
    for voice in active {
      try voice.mix(into: &channels, from: position, count: count, rate: sampleRate)
    }
    maxOpenSources = max(maxOpenSources, openSources)
    // Voices that ended within it close.
    active.removeAll { voice in
      guard voice.end <= blockEnd else { return false }
      voice.close()
      return true
    }

    for channel in 0..<channelCount {
      channels[channel].withUnsafeBufferPointer { samples in
        let (clipped, first) = MixSum.countClipped(samples)
        if clipped > 0 {
          clippedSamples += clipped
          let at = position + Int64(first!)
          firstClippedSample = min(firstClippedSample ?? at, at)
        }
      }
    }
    let block = AudioBlock(start: position, channels: channels)
    position = blockEnd
    return block
  }

  /// The voices of `plan`: each segment with audio, each pass of each audio track, in order of
  /// their starts.
  static func voices(of plan: CompositionPlan, rate: Rational, total: Int64) -> [Voice] {
    var voices: [Voice] = []
    for segment in plan.segments {
      guard let audio = segment.audio, let path = segment.path else { continue }
      let start = segment.compositionRange.start.units(atRate: rate)
      let end = min(segment.compositionRange.end.units(atRate: rate), total)
      guard start < end else { continue }
      voices.append(
        Voice(
          label: "clips[\(segment.index)]", path: path, sourceStart: segment.sourceRange.start,
          start: start, end: end, schedule: audio.gain.schedule(atRate: rate),
          speed: segment.speed, pitch: segment.pitch ?? .keep))
    }
    for track in plan.audio {
      let schedule = track.gain.schedule(atRate: rate)
      for (pass, piece) in track.pieces.enumerated() {
        let start = piece.compositionRange.start.units(atRate: rate)
        let end = min(piece.compositionRange.end.units(atRate: rate), total)
        guard start < end else { continue }
        voices.append(
          Voice(
            label: "audio[\(track.index)] pass \(pass + 1)", path: track.path,
            sourceStart: piece.sourceRange.start, start: start, end: end, schedule: schedule))
      }
    }
    // Stable: equal starts keep the plan's order (segments before tracks).
    return voices.enumerated().sorted { a, b in
      a.element.start != b.element.start
        ? a.element.start < b.element.start : a.offset < b.offset
    }.map(\.element)
  }
}

extension GainEnvelope {
  /// This envelope on a timeline of `rate` samples per second: each breakpoint at its nearest
  /// sample (`MediaTime.units(atRate:)`, halves up), linear in gain from one breakpoint to the
  /// next, the last one's gain held. Before the first breakpoint the gain is 0 (the source does
  /// not play there).
  package func schedule(atRate rate: Rational) -> GainSchedule {
    let frames = points.map { $0.time.units(atRate: rate) }
    var ramps: [GainSchedule.Ramp] = []
    for (index, point) in points.enumerated() {
      if index + 1 < points.count {
        let next = points[index + 1]
        ramps.append(
          GainSchedule.Ramp(
            start: frames[index], length: max(0, frames[index + 1] - frames[index]),
            from: point.gain.value, to: next.gain.value))
      } else {
        ramps.append(
          GainSchedule.Ramp(
            start: frames[index], length: 0, from: point.gain.value, to: point.gain.value))
      }
    }
    return GainSchedule(base: 0, ramps: ramps)
  }
}

/// One voice of the composition's audio: a segment's clip audio or one pass of an audio track,
/// decoded lazily from its source.
final class Voice {
  /// What it is, for errors (`clips[2]`, `audio[0] pass 3`).
  let label: String
  /// The source file.
  let path: String
  /// The source time of its first sample.
  let sourceStart: MediaTime
  /// The composition samples it plays: `[start, end)`.
  let start: Int64
  let end: Int64
  private var schedule: GainSchedule

  private var source: AudioSource?
  private var opened = false
  /// The source ended (or was never there): silence from `available` on.
  private var exhausted = false
  /// The source's channel count as delivered (1 for a mono source, else the output's).
  private var sourceChannels = 0
  /// Decoded interleaved samples not mixed yet; sample `head` is voice sample `bufferStart`.
  private var buffer: [Float] = []
  private var head = 0
  private var bufferStart: Int64 = 0
  /// Converted samples on their way into `buffer` (while the source is open).
  private var scratch: ByteBuffer?
  /// The clip's speed (nil: 1): source time runs this many times as fast as the voice's.
  let speed: Rational?
  /// How the audio follows `speed`.
  let pitch: Pitch
  /// The tempo change (`speed` with the pitch kept), while the source is open.
  private var tempo: TempoStage?
  /// Decoded samples on their way into `tempo`.
  private var untimed: [Float] = []

  init(
    label: String, path: String, sourceStart: MediaTime, start: Int64, end: Int64,
    schedule: GainSchedule, speed: Rational? = nil, pitch: Pitch = .keep
  ) {
    self.label = label
    self.path = path
    self.sourceStart = sourceStart
    self.start = start
    self.end = end
    self.schedule = schedule
    self.speed = speed.flatMap { $0.num == $0.den ? nil : $0 }
    self.pitch = pitch
  }

  /// The samples its buffer can hold (its capacity; 0 once closed).
  var heldSamples: Int { buffer.capacity }
  /// True while it holds a conversion buffer.
  var holdsScratch: Bool { scratch != nil }

  /// True while its source is open.
  var isOpen: Bool { source != nil }

  /// Decoded voice samples available: `[bufferStart, bufferEnd)`.
  private var bufferEnd: Int64 {
    bufferStart + Int64(sourceChannels == 0 ? 0 : (buffer.count - head) / sourceChannels)
  }

  /// Opens the source at voice sample `offset` (0, or later when a render starts inside it).
  private func open(at offset: Int64, rate: Int, outputChannels: Int) throws(CompositorError) {
    opened = true
    bufferStart = offset
    let input: InputFile
    do {
      input = try InputOpener.open(.file(path), options: OpenOptions())
    } catch {
      throw .source(path: path, error)
    }
    do throws(ExtractError) {
      let index = try StreamChoice.automatic.select(in: input)
      let channels = Int(input.view(index).channelCount)
      sourceChannels = MixSum.decodedChannels(source: channels, output: outputChannels)
      var seconds = sourceStart.seconds
      let factor = speed.map { ExactNumber($0.num, $0.den) ?? .one } ?? .one
      if offset > 0 {
        // Voice sample `offset` plays source time `sourceStart + offset / rate × speed`.
        let into = MediaTime(units: offset, rate: Rational(Int64(rate), 1)!)
        seconds =
          (ExactNumber(into).multiplied(by: factor).flatMap {
            ExactNumber(sourceStart).adding($0)
          }?.doubleValue) ?? (seconds + into.seconds * factor.doubleValue)
      }
      // An audio stream that starts after the point played (a late first packet) keeps its
      // place: silence until its first sample, as the picture's timestamps are kept.
      if let audioStart = input.view(index).startSeconds {
        let lead = audioStart - ((input.startSeconds ?? 0) + seconds)
        if lead > 0 {
          bufferStart += Int64((lead / factor.doubleValue * Double(rate)).rounded())
        }
      }
      // A speed with the pitch following: the source resampled to rate / speed and played at
      // rate (libswresample); with the pitch kept: decoded at rate, then `atempo`.
      var decodeRate = rate
      if speed != nil {
        if pitch == .follow {
          decodeRate = max(1, Int((Double(rate) / factor.doubleValue).rounded()))
        }
      }
      source = try AudioSource(
        input: input, streamIndex: index, start: seconds, duration: nil,
        target: SourceTarget(
          encoding: .f32, float: true, sampleRate: decodeRate, channels: sourceChannels))
    } catch {
      throw Self.failure(path, error)
    }
    if let speed, pitch == .keep {
      tempo = try TempoStage(speed: speed.value, sampleRate: rate, channels: sourceChannels)
    }
  }

  /// Closes the source (its file descriptor and decoder).
  func close() {
    source = nil
    scratch = nil
    tempo = nil
    untimed = []
    exhausted = true
    buffer = []
    head = 0
  }

  /// Decodes until voice sample `needed` (exclusive) is available or the source ended.
  private func fill(through needed: Int64) throws(CompositorError) {
    while !exhausted && bufferEnd < needed {
      guard let source else {
        exhausted = true
        return
      }
      let scratch = self.scratch ?? ByteBuffer()
      self.scratch = scratch
      let more: Bool
      do throws(ExtractError) {
        more = try source.step { (conversion) throws(ExtractError) in
          scratch.removeAll()
          do throws(FFmpegError) {
            try conversion(scratch)
          } catch {
            throw .conversion("converting the samples to float for the mix", error)
          }
          let count = scratch.count / MemoryLayout<Float>.size
          guard count > 0 else { return }
          let floats = scratch.contents.bindMemory(to: Float.self)
          if tempo == nil {
            buffer.append(contentsOf: floats.prefix(count))
          } else {
            untimed.append(contentsOf: floats.prefix(count))
          }
        }
      } catch {
        throw Self.failure(path, error)
      }
      if let tempo {
        if !untimed.isEmpty {
          try untimed.withUnsafeBufferPointer { samples throws(CompositorError) in
            try tempo.process(samples, into: &buffer)
          }
          untimed.removeAll(keepingCapacity: true)
        }
        if !more { try tempo.process(UnsafeBufferPointer(start: nil, count: 0), into: &buffer) }
      }
      if !more {
        exhausted = true
        self.source = nil
        self.scratch = nil
        self.tempo = nil
      }
    }
  }

  /// Adds its gained samples for composition samples `[from, from + count)` into `channels`.
  func mix(into channels: inout [[Float]], from blockStart: Int64, count: Int, rate: Int)
    throws(CompositorError)
  {
    let first = max(blockStart, start)
    let last = min(blockStart + Int64(count), end)
    guard first < last else { return }
    if !opened {
      try open(at: first - start, rate: rate, outputChannels: channels.count)
    }
    try fill(through: last - start)
    let available = min(last, start + bufferEnd)
    let outputs = channels.count
    let step = sourceChannels
    // Before `bufferStart`: the source's silence before its first sample.
    let begin = max(first, start + bufferStart)
    if begin < available {
      let length = Int(available - begin)
      var gains = [Float](repeating: 0, count: length)
      for i in 0..<length { gains[i] = Float(schedule.value(at: begin + Int64(i))) }
      let origin = head + Int(begin - start - bufferStart) * step
      let into = Int(begin - blockStart)
      buffer.withUnsafeBufferPointer { samples in
        for channel in 0..<outputs {
          let lane = step == 1 ? 0 : channel
          channels[channel].withUnsafeMutableBufferPointer { out in
            for i in 0..<length {
              out[into + i] += gains[i] * samples[origin + i * step + lane]
            }
          }
        }
      }
    }
    // Forget what was mixed.
    let mixedThrough = last - start
    if step > 0, mixedThrough > bufferStart {
      let drop = Int(min(mixedThrough, bufferEnd) - bufferStart)
      head += drop * step
      bufferStart += Int64(drop)
      if head > 1 << 15 && head * 2 > buffer.count {
        buffer.removeFirst(head)
        head = 0
      }
    }
  }

  /// The compositor's error for `error` on `path`.
  static func failure(_ path: String, _ error: ExtractError) -> CompositorError {
    switch error {
    case .input(let probe): .source(path: path, probe)
    case .interrupted: .render(.interrupted)
    default: .audio(AudioFailure(path: path, detail: .extract(error)))
    }
  }
}
