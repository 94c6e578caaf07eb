import MediaCore
import AV
import OutputKit

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// One input of a mix on the output timeline: its decoded float samples (as far ahead as the mix
/// needs), where it starts and ends, how many times it played, and its gain at each frame.
final class Lane {
  let input: MixInput
  let number: Int
  private let target: SourceTarget
  private let allowReferences: Bool
  private let inputFormat: String?
  private var source: AudioSource?
  /// The format the first play decoded to (with the output's channel count when a mono input
  /// is copied into several channels).
  private(set) var format: PCMFormat?
  /// The channels of the decoded samples in `buffer`.
  private var channels = 0
  /// A mono input plays in every output channel at its own level (copied, as AVFoundation plays
  /// a mono track on both sides, and as a composition's audio does): it is decoded as mono and
  /// added to each of this many channels. Nil: decoded to the output's layout.
  private var monoInto: Int?

  /// Decoded frames not mixed yet: frame `bufferStart` (on the timeline) is at `head`.
  private var buffer: [Float] = []
  private var head = 0
  private var bufferStart: Int64 = 0
  /// Frames decoded from all plays so far.
  private var decodedFrames: Int64 = 0
  private var framesThisPlay: Int64 = 0
  private let scratch = ByteBuffer()
  private var ended = false

  // On the timeline, in output frames (set by `place`).
  private(set) var startFrame: Int64 = 0
  private(set) var fadeInFrames: Int64 = 0
  private(set) var fadeOutFrames: Int64 = 0
  private var envelope = Envelope(base: 1, changes: [], rate: 1)
  private var gain: Double = 1
  private var rate = 1

  /// Plays begun (decoding runs ahead of the mix).
  private(set) var plays = 0
  /// Where the plays begun after the first start on the timeline, for those the mix has not
  /// reached yet; and how many it passed.
  private var upcomingPlays: [Int64] = []
  private var passedPlays = 0
  private var emptyPlays = 0
  private(set) var samplesPerPlay: Int64?
  private var streamIndex = 0
  private var codec = ""
  private var warnings: [String] = []

  /// Opens the input's first play.
  ///
  /// - Throws: `MixError` naming this input.
  init(
    _ input: MixInput, number: Int, target: SourceTarget, allowReferences: Bool,
    inputFormat: String? = nil
  ) throws(MixError) {
    self.input = input
    self.number = number
    self.target = target
    self.allowReferences = allowReferences
    self.inputFormat = inputFormat
    try open()
  }

  private func open() throws(MixError) {
    do throws(ExtractError) {
      let file: InputFile
      do {
        file = try InputOpener.open(
          input.path == "-" ? .standardInput : .file(input.path),
          options: OpenOptions(allowReferences: allowReferences, inputFormat: inputFormat))
      } catch {
        throw .input(error)
      }
      let index = try input.stream.select(in: file)
      var wanted = target
      if let outputChannels = target.channels, outputChannels > 1,
        MixSum.decodedChannels(source: Int(file.view(index).channelCount), output: outputChannels)
          == 1
      {
        monoInto = outputChannels
        wanted.channels = 1
        wanted.channelMask = nil
      }
      let opened = try AudioSource(
        input: file, streamIndex: index, start: input.start, duration: input.duration,
        target: wanted)
      opened.continuesAfterEnd = input.loop
      source = opened
      streamIndex = opened.stream.index
      codec = opened.stream.codecName
      plays += 1
      framesThisPlay = 0
    } catch {
      throw MixError(input: number, error: error)
    }
  }

  /// Places the lane on a timeline of `rate` frames per second (once the format is known).
  func place(rate: Int) {
    self.rate = rate
    func frames(_ seconds: Double?) -> Int64 { Int64(((seconds ?? 0) * Double(rate)).rounded()) }
    startFrame = frames(input.at)
    bufferStart = startFrame + decodedFrames - Int64(bufferedFrames)
    fadeInFrames = frames(input.fadeIn)
    fadeOutFrames = frames(input.fadeOut)
    gain = input.gainDB == 0 ? 1 : pow(10, input.gainDB / 20)
    envelope = Envelope(base: input.volume, changes: input.envelope, rate: rate)
  }

  /// Where the lane ends on the timeline, once its (last) play ended; nil while it may go on,
  /// and always for a looping input.
  var endFrame: Int64? {
    guard ended, !input.loop else { return nil }
    return startFrame + decodedFrames
  }

  /// The lane adds nothing from `position` on.
  func finished(at position: Int64) -> Bool {
    guard let endFrame else { return false }
    return endFrame <= position
  }

  /// The length of one play in seconds, from the container, when known.
  var expectedSeconds: Double? { source?.expectedSeconds }

  private var bufferedFrames: Int { channels == 0 ? 0 : (buffer.count - head) / channels }

  /// Decodes until the timeline is covered through frame `frame` (or the input ended).
  ///
  /// - Throws: `MixError` naming this input.
  func fill(through frame: Int64) throws(MixError) {
    while !ended && startFrame + decodedFrames < frame {
      guard let source else { return }
      let more: Bool
      do throws(ExtractError) {
        more = try source.step { (conversion) throws(ExtractError) in
          scratch.removeAll()
          do throws(FFmpegError) {
            try conversion(scratch)
          } catch {
            throw .conversion("converting the samples to float for the mix", error)
          }
          append(scratch)
        }
      } catch {
        throw MixError(input: number, error: error)
      }
      if format == nil, let decided = source.format { decide(decided) }
      if more { continue }
      warnings += source.reportedWarnings
      if samplesPerPlay == nil { samplesPerPlay = framesThisPlay }
      if input.loop {
        emptyPlays = framesThisPlay > 0 ? 0 : emptyPlays + 1
        guard emptyPlays < 3 else {
          throw MixError(
            input: number, error: .noDecodableAudio("a looping input yielded no samples"))
        }
        do throws(ExtractError) {
          try source.rewind()
        } catch {
          throw MixError(input: number, error: error)
        }
        plays += 1
        upcomingPlays.append(startFrame + decodedFrames)
        framesThisPlay = 0
      } else {
        ended = true
        self.source = nil
      }
    }
  }

  /// Takes the decoded format: the samples' channels, and the format the lane plays in.
  private func decide(_ decoded: PCMFormat) {
    channels = decoded.channels
    format = decoded
    if let monoInto {
      format = PCMFormat(
        encoding: decoded.encoding, channels: monoInto, sampleRate: decoded.sampleRate,
        channelMask: target.channelMask ?? ChannelLayout(defaultFor: Int32(monoInto)).mask)
    }
  }

  private func append(_ bytes: ByteBuffer) {
    if channels == 0, let decided = source?.format { decide(decided) }
    let count = bytes.count / MemoryLayout<Float>.size
    guard count > 0, channels > 0 else { return }
    let floats = bytes.contents.bindMemory(to: Float.self)
    buffer.append(contentsOf: floats.prefix(count))
    decodedFrames += Int64(count / channels)
    framesThisPlay += Int64(count / channels)
  }

  /// Adds this lane's samples for timeline frames `position ..< position + frames`, times its
  /// gain, to `mixed` (interleaved). `outputEnd` is where the output ends, when known (a
  /// looping input's fade-out ends there).
  func add(into mixed: inout [Float], frames: Int, from position: Int64, outputEnd: Int64?) {
    guard channels > 0 else { return }
    let laneEnd = endFrame
    let fadeEnd: Int64? = [laneEnd, outputEnd].compactMap { $0 }.min()
    mixed.withUnsafeMutableBufferPointer { out in
      buffer.withUnsafeBufferPointer { samples in
        for offset in 0..<frames {
          let frame = position + Int64(offset)
          if frame < startFrame { continue }
          if let laneEnd, frame >= laneEnd { break }
          let index = head + Int(frame - bufferStart) * channels
          guard index >= head, index + channels <= samples.count else { break }
          var factor = envelope.value(at: frame) * gain
          let into = frame - startFrame
          if into < fadeInFrames { factor *= Double(into) / Double(fadeInFrames) }
          if fadeOutFrames > 0, let fadeEnd {
            let remaining = fadeEnd - frame
            if remaining <= fadeOutFrames {
              factor *= Double(max(0, remaining)) / Double(fadeOutFrames)
            }
          }
          let scale = Float(factor)
          if let monoInto {
            let value = scale * samples[index]
            for channel in 0..<monoInto { out[offset * monoInto + channel] += value }
          } else {
            for channel in 0..<channels {
              out[offset * channels + channel] += scale * samples[index + channel]
            }
          }
        }
      }
    }
  }

  /// Forgets the frames before `position` (mixed already).
  func discard(before position: Int64) {
    while let next = upcomingPlays.first, next < position {
      upcomingPlays.removeFirst()
      passedPlays += 1
    }
    guard channels > 0, position > bufferStart else { return }
    let drop = min(Int(position - bufferStart), bufferedFrames)
    head += drop * channels
    bufferStart += Int64(drop)
    if head > 1 << 16 && head * 2 > buffer.count {
      buffer.removeFirst(head)
      head = 0
    }
  }

  /// What the report says about this input, for an output that ended at `end`: the plays that
  /// reached it.
  func report(end: Int64) -> MixInputReport {
    let reached = startFrame < end ? 1 + passedPlays + upcomingPlays.filter { $0 < end }.count : 0
    return MixInputReport(
      input: input.path, streamIndex: streamIndex, codec: codec, at: input.at, plays: reached,
      samplesPerPlay: samplesPerPlay, warnings: warnings)
  }
}

/// An input's volume over the output timeline (in frames): its base volume, then steps and
/// linear ramps, each holding until the next (AVAudioMix's `setVolume(_:at:)` and
/// `setVolumeRamp`), evaluated by the mixer model the composition's audio shares
/// (`GainSchedule`): a step is a ramp of length 0.
struct Envelope {
  private var schedule: GainSchedule

  init(base: Double, changes: [VolumeChange], rate: Int) {
    func frames(_ seconds: Double) -> Int64 { Int64((seconds * Double(rate)).rounded()) }
    let ramps = changes.sorted { $0.time < $1.time }.map { change in
      switch change {
      case .step(let time, let volume):
        GainSchedule.Ramp(start: frames(time), length: 0, from: volume, to: volume)
      case .ramp(let time, let duration, let from, let to):
        GainSchedule.Ramp(
          start: frames(time), length: max(1, frames(duration)), from: from, to: to)
      }
    }
    schedule = GainSchedule(base: base, ramps: ramps)
  }

  /// The volume at timeline `frame` (frames only increase between calls, mostly).
  mutating func value(at time: Int64) -> Double { schedule.value(at: time) }
}
