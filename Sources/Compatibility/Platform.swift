import MediaCore

extension String {
  fileprivate func trimmingCharacters(where drop: (Character) -> Bool) -> String {
    String(self.drop(while: drop).reversed().drop(while: drop).reversed())
  }
}

/// A platform's playback capabilities, loaded from one JSON file of the database
/// (`Compatibility/Platforms/*.json`, embedded in the binary; schema in
/// `schemas/platform.schema.json`).
public struct Platform: Codable, Sendable, Equatable {
  /// The version of the file format (1).
  public var schemaVersion: Int
  /// The platform's id (`ios-17`, `iphone-2012`, ...).
  public var id: String
  /// A human name.
  public var name: String
  /// `historical` (the 2012 source tables) or `modern`.
  public var era: String
  /// Other names that select this platform (`iphone`, `android`, `web`).
  public var aliases: [String]
  /// The documents the rules cite, by id.
  public var sources: [String: Source]
  /// Container × video codec × audio codec combinations that play directly.
  public var directPlay: [DirectPlayRow]
  /// Conditions on the streams.
  public var rules: [RuleEntry]
  /// How to re-encode a file for this platform (`--suggest`).
  public var transcode: TranscodeRecipe
  /// Remarks on judgement calls.
  public var notes: String?
  /// How the verdicts are verified: against a real player in the tests, or only against the
  /// cited documents.
  public var verification: String?

  enum CodingKeys: String, CodingKey {
    case schemaVersion = "schema_version", id, name, era, aliases, sources
    case directPlay = "direct_play", rules, transcode, notes, verification
  }
}

/// A document a rule cites.
public struct Source: Codable, Sendable, Equatable {
  /// Its title.
  public var title: String
  /// Where to read it (null for the project's own source documents).
  public var url: String?
}

/// One direct-play combination.
public struct DirectPlayRow: Codable, Sendable, Equatable {
  /// Normalized container names (`mp4`, `mov`, `m4v`, `3gp`, `mkv`, `webm`, `ts`, `ogg`, ...).
  public var containers: [String]
  /// FFmpeg video codec names.
  public var video: [String]
  /// FFmpeg audio codec names.
  public var audio: [String]
  /// The id of the source.
  public var source: String
  /// A remark.
  public var note: String?
}

/// What a failing rule needs, cheapest first.
public enum Fix: String, Codable, Sendable, Comparable, CaseIterable {
  /// Rewrite the container or the codec tag only (`-c copy`).
  case remux
  /// Re-encode the audio.
  case transcodeAudio = "transcode-audio"
  /// Re-encode the video.
  case transcodeVideo = "transcode-video"

  /// Cheaper fixes sort first.
  public static func < (a: Fix, b: Fix) -> Bool {
    allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
  }
}

/// How bad a failing rule is.
public enum Severity: String, Codable, Sendable {
  /// The file does not play.
  case fail
  /// The file may not play everywhere (not guaranteed, hardware-dependent).
  case warn
}

/// A rule operator.
public enum RuleOperator: String, Codable, Sendable {
  case `in`, notIn = "not_in", atMost = "<=", atLeast = ">=", equals = "==", fits
}

/// A value in a rule: text, a number, a flag, or a list (a size is a list of two numbers).
public enum RuleValue: Codable, Sendable, Equatable, CustomStringConvertible {
  case text(String)
  case number(Double)
  case flag(Bool)
  case list([RuleValue])

  /// Decodes a JSON boolean, number, string or array.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let flag = try? container.decode(Bool.self) {
      self = .flag(flag)
    } else if let number = try? container.decode(Double.self) {
      self = .number(number)
    } else if let text = try? container.decode(String.self) {
      self = .text(text)
    } else {
      self = .list(try container.decode([RuleValue].self))
    }
  }

  /// Encodes as the JSON value it came from.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .text(let text): try container.encode(text)
    case .number(let number): try container.encode(number)
    case .flag(let flag): try container.encode(flag)
    case .list(let list): try container.encode(list)
    }
  }

  /// As people read it: `640x480` for a size, `1.5 Mbps`-free plain numbers, `a, b` for lists.
  public var description: String {
    switch self {
    case .text(let text): text
    case .number(let number):
      number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    case .flag(let flag): String(flag)
    case .list(let list): list.map(\.description).joined(separator: ", ")
    }
  }
}

/// One condition on a fact of the file.
public struct Rule: Codable, Sendable, Equatable {
  /// The rule's id, unique in its platform.
  public var id: String
  /// The fact it tests (`video.profile`, `audio.channels`, `container`, ...).
  public var field: String
  /// How it compares.
  public var op: RuleOperator
  /// The limit.
  public var value: RuleValue
  /// fail or warn.
  public var severity: Severity
  /// What fixes a failure.
  public var fix: Fix
  /// Why, with `{actual}` and `{limit}` filled in.
  public var reason: String
  /// The id of the source.
  public var source: String
  /// The rule applies only when these facts have one of these values.
  public var when: [String: [RuleValue]]?
  /// An unknown value fails instead of warning.
  public var required: Bool?
  /// `stream`: evaluated only with `--delivery stream`.
  public var delivery: String?
}

/// Alternatives: the file passes when all the rules of any one alternative pass (the iPhone's two
/// H.264 tiers).
public struct AnyOfGroup: Codable, Sendable, Equatable {
  /// The group's id.
  public var id: String
  /// The group applies only when these facts have one of these values.
  public var when: [String: [RuleValue]]?
  /// Why the group exists.
  public var reason: String
  /// The id of the source.
  public var source: String
  /// The alternatives.
  public var anyOf: [Alternative]

  /// One alternative of a group.
  public struct Alternative: Codable, Sendable, Equatable {
    /// Its name (`640x480, 30 fps, 1.5 Mbps, ...`).
    public var name: String
    /// Its rules.
    public var rules: [Rule]
  }

  enum CodingKeys: String, CodingKey {
    case id, when, reason, source, anyOf = "any_of"
  }
}

/// A rule or a group of alternatives.
public enum RuleEntry: Codable, Sendable, Equatable {
  case rule(Rule)
  case anyOf(AnyOfGroup)

  /// Decodes a group when the object has `any_of`, else a rule.
  public init(from decoder: any Decoder) throws {
    if let group = try? AnyOfGroup(from: decoder) {
      self = .anyOf(group)
    } else {
      self = .rule(try Rule(from: decoder))
    }
  }

  /// Encodes the rule or the group.
  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .rule(let rule): try rule.encode(to: encoder)
    case .anyOf(let group): try group.encode(to: encoder)
    }
  }
}

/// How to re-encode for a platform: typed encoder settings, never argument strings. The ffmpeg
/// command `--suggest` prints (and mediamerge runs, until it renders in-process) is derived from
/// them in one place (`ffmpegArguments`).
public struct TranscodeRecipe: Codable, Sendable, Equatable {
  /// The output container (file extension).
  public var container: String
  /// The video encoder.
  public var video: VideoEncoderSettings
  /// The audio encoder.
  public var audio: AudioEncoderSettings
  /// At most this many audio channels.
  public var audioChannels: Int
  /// At most this sample rate.
  public var audioSampleRate: Int
  /// The largest display size (either orientation).
  public var maxSize: [Int]?
  /// The highest frame rate.
  public var maxFrameRate: Double?
  /// The video bit rate to aim for.
  public var videoBitRate: Int?
  /// The sample entry to tag the video with (`avc1`, `hvc1`).
  public var videoTag: String?

  /// The codec the video encoder writes, by FFmpeg's name (`libx264` writes `h264`).
  public var videoCodec: String? { video.codec }

  /// The codec the audio encoder writes (`aac`, `libopus` writes `opus`).
  public var audioCodec: String? { audio.codec }

  /// The audio bit rate the recipe asks for, if it names one.
  public var audioBitRate: Double? { audio.bitRate.map(Double.init) }

  /// A render of `width` x `height` at `rate` brought within the recipe's limits: shrunk (shape
  /// kept) into `maxSize` turned to the render's orientation, and the rate lowered to
  /// `maxFrameRate`. `box` is the box it was shrunk into, nil when it fitted already.
  public func limit(width: Int, height: Int, rate: Rational) -> (
    width: Int, height: Int, rate: Rational, box: (width: Int, height: Int)?
  ) {
    var (width, height, rate) = (width, height, rate)
    var shrunk: (width: Int, height: Int)?
    if let box = maxSize, box.count == 2 {
      let (boxWidth, boxHeight) = width >= height ? (box[0], box[1]) : (box[1], box[0])
      if width > boxWidth || height > boxHeight {
        let scale = min(Double(boxWidth) / Double(width), Double(boxHeight) / Double(height))
        width = Int(Double(width) * scale)
        height = Int(Double(height) * scale)
        shrunk = (boxWidth, boxHeight)
      }
    }
    if let cap = maxFrameRate, rate.value > cap + 0.01 {
      rate = Rational(Int64((cap * 1000).rounded()), 1000)!
    }
    return (width, height, rate, shrunk)
  }

  enum CodingKeys: String, CodingKey {
    case container, video, audio
    case audioChannels = "audio_channels", audioSampleRate = "audio_sample_rate"
    case maxSize = "max_size", maxFrameRate = "max_frame_rate", videoBitRate = "video_bit_rate"
    case videoTag = "video_tag"
  }
}

/// A video encoder and its settings.
public struct VideoEncoderSettings: Codable, Sendable, Equatable {
  /// The encoder, by FFmpeg's name (`libx264`, `libx265`, `libvpx-vp9`, `libaom-av1`).
  public var encoder: String
  /// The profile (`baseline`, `main`, `high`, `main10`), when the platform needs one.
  @NullEncoded public var profile: String?
  /// The pixel format (`yuv420p`).
  @NullEncoded public var pixelFormat: String?
  /// The level (`4.2`): nil in the platform files, where it depends on the output's size and
  /// rate; set per output (H.264 Table A-1, `H264Level`).
  @NullEncoded public var level: String?

  /// Settings from their parts.
  public init(
    encoder: String, profile: String? = nil, pixelFormat: String? = nil, level: String? = nil
  ) {
    self.encoder = encoder
    self.profile = profile
    self.pixelFormat = pixelFormat
    self.level = level
  }

  /// The codec the encoder writes (`libx264` writes `h264`).
  public var codec: String { encoderCodecs[encoder] ?? encoder }

  /// The same settings as ffmpeg options (`-c:v libx264 -profile:v high -pix_fmt yuv420p`).
  public var ffmpegArguments: [String] {
    var arguments = ["-c:v", encoder]
    if let profile { arguments += ["-profile:v", profile] }
    if let pixelFormat { arguments += ["-pix_fmt", pixelFormat] }
    if let level { arguments += ["-level", level] }
    return arguments
  }

  enum CodingKeys: String, CodingKey {
    case encoder, profile, level
    case pixelFormat = "pixel_format"
  }

  /// Decodes the platform files' keys (`pixel_format`), also when a decoder has already turned
  /// snake case into camel case (a plan read back).
  public init(from decoder: any Decoder) throws {
    let keys = try decoder.container(keyedBy: FlexibleKey.self)
    encoder = try keys.decode(String.self, forKey: FlexibleKey("encoder"))
    profile = try keys.decodeIfPresent(String.self, forKey: FlexibleKey("profile"))
    level = try keys.decodeIfPresent(String.self, forKey: FlexibleKey("level"))
    pixelFormat = try keys.decodeFirst(String.self, ["pixel_format", "pixelFormat"])
  }
}

/// An audio encoder and its settings.
public struct AudioEncoderSettings: Codable, Sendable, Equatable {
  /// The encoder, by FFmpeg's name (`aac`, `libopus`, `libmp3lame`).
  public var encoder: String
  /// The profile (`aac_low`), when the platform needs one.
  @NullEncoded public var profile: String?
  /// The bit rate in bits per second.
  @NullEncoded public var bitRate: Int?

  /// Settings from their parts.
  public init(encoder: String, profile: String? = nil, bitRate: Int? = nil) {
    self.encoder = encoder
    self.profile = profile
    self.bitRate = bitRate
  }

  /// The codec the encoder writes (`libopus` writes `opus`).
  public var codec: String { encoderCodecs[encoder] ?? encoder }

  /// The same settings as ffmpeg options (`-c:a aac -b:a 160k`).
  public var ffmpegArguments: [String] {
    var arguments = ["-c:a", encoder]
    if let profile { arguments += ["-profile:a", profile] }
    if let bitRate {
      arguments += ["-b:a", bitRate % 1000 == 0 ? "\(bitRate / 1000)k" : "\(bitRate)"]
    }
    return arguments
  }

  enum CodingKeys: String, CodingKey {
    case encoder, profile
    case bitRate = "bit_rate"
  }

  /// Decodes the platform files' keys (`bit_rate`), also when a decoder has already turned snake
  /// case into camel case (a plan read back).
  public init(from decoder: any Decoder) throws {
    let keys = try decoder.container(keyedBy: FlexibleKey.self)
    encoder = try keys.decode(String.self, forKey: FlexibleKey("encoder"))
    profile = try keys.decodeIfPresent(String.self, forKey: FlexibleKey("profile"))
    bitRate = try keys.decodeFirst(Int.self, ["bit_rate", "bitRate"])
  }
}

/// Any key, by name.
struct FlexibleKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(_ name: String) { stringValue = name }
  init?(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}

extension KeyedDecodingContainer where Key == FlexibleKey {
  /// The value under the first of `names` present, nil when none is.
  func decodeFirst<T: Decodable>(_ type: T.Type, _ names: [String]) throws -> T? {
    for name in names where contains(FlexibleKey(name)) {
      return try decodeIfPresent(type, forKey: FlexibleKey(name))
    }
    return nil
  }
}

/// The codec each encoder writes, where its name is not the codec's.
let encoderCodecs = [
  "libx264": "h264", "libx265": "hevc", "libvpx": "vp8", "libvpx-vp9": "vp9",
  "libaom-av1": "av1", "libsvtav1": "av1", "libmp3lame": "mp3", "libopus": "opus",
  "libvorbis": "vorbis", "libfdk_aac": "aac",
]
