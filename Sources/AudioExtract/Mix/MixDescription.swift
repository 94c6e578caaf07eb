import AV
/// A mix: several audio sources summed into one output with AVFoundation's semantics
/// (AVMutableComposition + AVMutableAudioMix): each input placed on the output timeline, trimmed,
/// looped, with its own volume envelope; the sum is what the volumes say (no normalisation).
/// Decoded from JSON (`media2wav mix --description FILE`, schema in
/// `schemas/media2wav-mix.schema.json`) or built from the command line.
public struct MixDescription: Codable, Sendable, Equatable {
  /// The inputs, in order; the first is the reference (its length and format by default).
  public var inputs: [MixInput]
  /// How long the output is.
  public var length: MixLength
  /// The output rate (nil: the first input's).
  public var sampleRate: Int?
  /// The output channel count (nil: the first input's).
  public var channels: Int?
  /// The output encoding.
  public var format: PCMEncoding
  /// A soft limiter instead of letting samples past full scale clip (see `SoftLimiter`).
  public var limit: Bool

  /// A mix of `inputs`.
  public init(
    inputs: [MixInput], length: MixLength = .first, sampleRate: Int? = nil, channels: Int? = nil,
    format: PCMEncoding = .s16, limit: Bool = false
  ) {
    self.inputs = inputs
    self.length = length
    self.sampleRate = sampleRate
    self.channels = channels
    self.format = format
    self.limit = limit
  }

  enum CodingKeys: String, CodingKey {
    case inputs, length, sampleRate = "sample_rate", channels, format, limit
  }

  /// Decodes, with defaults for everything but `inputs`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    inputs = try container.decode([MixInput].self, forKey: .inputs)
    length = try container.decodeIfPresent(MixLength.self, forKey: .length) ?? .first
    sampleRate = try container.decodeIfPresent(Int.self, forKey: .sampleRate)
    channels = try container.decodeIfPresent(Int.self, forKey: .channels)
    format = try container.decodeIfPresent(PCMEncoding.self, forKey: .format) ?? .s16
    limit = try container.decodeIfPresent(Bool.self, forKey: .limit) ?? false
  }

  /// What is wrong with the description, if anything (a usage error for the command line).
  public var problem: String? {
    if inputs.isEmpty { return "a mix needs at least one input" }
    if case .first = length, inputs[0].loop {
      return
        "the first input loops, so it has no length: give --length longest, shortest or seconds"
    }
    if case .seconds(let seconds) = length, !(seconds > 0 && seconds.isFinite) {
      return "the length must be a positive number of seconds"
    }
    if let sampleRate, !(1...768_000).contains(sampleRate) {
      return "the rate must be 1...768000 Hz"
    }
    if let channels, !(1...64).contains(channels) { return "the channels must be 1...64" }
    for (number, input) in inputs.enumerated() {
      if let problem = input.problem { return "input \(number + 1) (\(input.path)): \(problem)" }
    }
    if inputs.allSatisfy(\.loop), case .longest = length {
      return "every input loops: the longest has no end; give the length in seconds"
    }
    return nil
  }
}

/// How long a mix's output is.
public enum MixLength: Sendable, Equatable, Codable {
  /// As long as the first input on the timeline (the video's sound, as editing apps do).
  case first
  /// Until the last non-looping input ends.
  case longest
  /// Until the first non-looping input ends.
  case shortest
  /// Exactly this many seconds.
  case seconds(Double)

  /// `"first"`, `"longest"`, `"shortest"` or a number of seconds.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let seconds = try? container.decode(Double.self) {
      self = .seconds(seconds)
      return
    }
    switch try container.decode(String.self) {
    case "first": self = .first
    case "longest": self = .longest
    case "shortest": self = .shortest
    case let other:
      throw DecodingError.dataCorruptedError(
        in: container,
        debugDescription: "length is first, longest, shortest or seconds, not \(other)")
    }
  }

  /// The same forms.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .first: try container.encode("first")
    case .longest: try container.encode("longest")
    case .shortest: try container.encode("shortest")
    case .seconds(let seconds): try container.encode(seconds)
    }
  }

  /// Parses a command-line value.
  public init?(argument: String) {
    switch argument {
    case "first": self = .first
    case "longest": self = .longest
    case "shortest": self = .shortest
    default:
      guard let seconds = Double(argument) else { return nil }
      self = .seconds(seconds)
    }
  }
}

/// One input of a mix.
public struct MixInput: Codable, Sendable, Equatable {
  /// The file (a path, or `-` for standard input).
  public var path: String
  /// Which audio stream.
  public var stream: StreamChoice
  /// The volume from the start (AVAudioMix's `setVolume(_:at: .zero)`): a linear factor, 1 by
  /// default.
  public var volume: Double
  /// Gain in decibels, multiplied into every volume.
  public var gainDB: Double
  /// Volume changes on the output timeline: steps (`setVolume(_:at:)`) and linear ramps
  /// (`setVolumeRamp(fromStartVolume:toEndVolume:timeRange:)`).
  public var envelope: [VolumeChange]
  /// A linear fade in from silence over this many seconds, from where the input starts.
  public var fadeIn: Double?
  /// A linear fade out to silence over this many seconds, ending where the input (or the
  /// output, for a looping input) ends.
  public var fadeOut: Double?
  /// Where in the source to start (seconds), as `-ss`.
  public var start: Double?
  /// How much of the source to use (seconds), as `-t`.
  public var duration: Double?
  /// Where the input starts on the output timeline (seconds); silence before.
  public var at: Double
  /// Repeat the (trimmed) source to fill the output, sample for sample.
  public var loop: Bool

  /// An input at full volume from the start of the timeline.
  public init(path: String) {
    self.path = path
    stream = .automatic
    volume = 1
    gainDB = 0
    envelope = []
    at = 0
    loop = false
  }

  enum CodingKeys: String, CodingKey {
    case path, stream, language, volume, gainDB = "gain_db", envelope, fadeIn = "fade_in"
    case fadeOut = "fade_out", start, duration, at, loop
  }

  /// Decodes with defaults for everything but `path`; `stream` is an audio stream number, or
  /// `language` a language tag.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(path: try container.decode(String.self, forKey: .path))
    if let number = try container.decodeIfPresent(Int.self, forKey: .stream) {
      stream = .audioIndex(number)
    } else if let language = try container.decodeIfPresent(String.self, forKey: .language) {
      stream = .language(language)
    }
    volume = try container.decodeIfPresent(Double.self, forKey: .volume) ?? 1
    gainDB = try container.decodeIfPresent(Double.self, forKey: .gainDB) ?? 0
    envelope = try container.decodeIfPresent([VolumeChange].self, forKey: .envelope) ?? []
    fadeIn = try container.decodeIfPresent(Double.self, forKey: .fadeIn)
    fadeOut = try container.decodeIfPresent(Double.self, forKey: .fadeOut)
    start = try container.decodeIfPresent(Double.self, forKey: .start)
    duration = try container.decodeIfPresent(Double.self, forKey: .duration)
    at = try container.decodeIfPresent(Double.self, forKey: .at) ?? 0
    loop = try container.decodeIfPresent(Bool.self, forKey: .loop) ?? false
  }

  /// Encodes the same keys.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(path, forKey: .path)
    switch stream {
    case .automatic: break
    case .audioIndex(let number): try container.encode(number, forKey: .stream)
    case .language(let language): try container.encode(language, forKey: .language)
    }
    try container.encode(volume, forKey: .volume)
    try container.encode(gainDB, forKey: .gainDB)
    try container.encode(envelope, forKey: .envelope)
    try container.encodeIfPresent(fadeIn, forKey: .fadeIn)
    try container.encodeIfPresent(fadeOut, forKey: .fadeOut)
    try container.encodeIfPresent(start, forKey: .start)
    try container.encodeIfPresent(duration, forKey: .duration)
    try container.encode(at, forKey: .at)
    try container.encode(loop, forKey: .loop)
  }

  var problem: String? {
    if !(volume >= 0 && volume.isFinite) { return "the volume must be 0 or more" }
    if !gainDB.isFinite { return "the gain must be a number of decibels" }
    if !(at >= 0 && at.isFinite) { return "--at must be 0 or more seconds" }
    for (name, value) in [("--start", start), ("--duration", duration), ("--fade-in", fadeIn)]
    where value.map({ !($0 >= 0 && $0.isFinite) }) == true {
      return "\(name) must be 0 or more seconds"
    }
    if let fadeOut, !(fadeOut >= 0 && fadeOut.isFinite) {
      return "--fade-out must be 0 or more seconds"
    }
    if duration == 0 { return "--duration must be more than 0 seconds" }
    for change in envelope {
      if let problem = change.problem { return problem }
    }
    return nil
  }
}

/// A volume change on the output timeline.
public enum VolumeChange: Codable, Sendable, Equatable {
  /// The volume becomes `volume` at `time` seconds and holds (`setVolume(_:at:)`).
  case step(time: Double, volume: Double)
  /// The volume goes linearly from `from` to `to` over `duration` seconds from `time`
  /// (`setVolumeRamp`), then holds `to`.
  case ramp(time: Double, duration: Double, from: Double, to: Double)

  enum CodingKeys: String, CodingKey { case time, volume, duration, from, to }

  /// `{"time", "volume"}` or `{"time", "duration", "from", "to"}`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let time = try container.decode(Double.self, forKey: .time)
    if let volume = try container.decodeIfPresent(Double.self, forKey: .volume) {
      self = .step(time: time, volume: volume)
    } else {
      self = .ramp(
        time: time, duration: try container.decode(Double.self, forKey: .duration),
        from: try container.decode(Double.self, forKey: .from),
        to: try container.decode(Double.self, forKey: .to))
    }
  }

  /// The same keys.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .step(let time, let volume):
      try container.encode(time, forKey: .time)
      try container.encode(volume, forKey: .volume)
    case .ramp(let time, let duration, let from, let to):
      try container.encode(time, forKey: .time)
      try container.encode(duration, forKey: .duration)
      try container.encode(from, forKey: .from)
      try container.encode(to, forKey: .to)
    }
  }

  /// Where the change starts, in seconds.
  var time: Double {
    switch self {
    case .step(let time, _), .ramp(let time, _, _, _): time
    }
  }

  var problem: String? {
    switch self {
    case .step(let time, let volume):
      if !(time >= 0 && time.isFinite) || !(volume >= 0 && volume.isFinite) {
        return "a volume step needs a time and a volume of 0 or more"
      }
    case .ramp(let time, let duration, let from, let to):
      if !(time >= 0 && time.isFinite) || !(duration > 0 && duration.isFinite)
        || !(from >= 0 && from.isFinite) || !(to >= 0 && to.isFinite)
      {
        return "a ramp needs a time, a duration above 0 and volumes of 0 or more"
      }
    }
    return nil
  }
}
