/// What decoding one stream to the end found (`mediaprobe --verify`).
public struct DecodeReport: Codable, Sendable, Equatable {
  /// `all` (every packet decoded), `keyframes` (`--verify-fast`: video keyframes only) or `none`
  /// (a stream `--verify` does not decode: subtitles, data, cover art).
  public var scope: VerifyScope
  /// Video frames the decoder output; null for audio.
  @NullEncoded public var frames: Int64?
  /// Audio samples per channel the decoder output, after priming and padding were trimmed (the
  /// presented count); null for video.
  @NullEncoded public var samples: Int64?
  /// The first decoded frame's time.
  @NullEncoded public var firstTime: MediaTime?
  /// Where the last decoded frame ends.
  @NullEncoded public var endTime: MediaTime?
  /// The damage found.
  public var errors: DecodeErrors
  /// The MD5 of the decoded content as `ffmpeg -map 0:N -fps_mode passthrough -f streamhash
  /// -hash md5` computes it (`--hash md5`); null otherwise.
  @NullEncoded public var md5: String?

  /// A value with every field given.
  package init(
    scope: VerifyScope, frames: Int64? = nil, samples: Int64? = nil, firstTime: MediaTime? = nil,
    endTime: MediaTime? = nil, errors: DecodeErrors, md5: String? = nil
  ) {
    self.scope = scope
    self.frames = frames
    self.samples = samples
    self.firstTime = firstTime
    self.endTime = endTime
    self.errors = errors
    self.md5 = md5
  }
}

/// How much of a stream `--verify` decodes.
public enum VerifyScope: String, Codable, Sendable {
  /// Every packet.
  case all
  /// Video keyframes only (`--verify-fast`); audio is still decoded whole.
  case keyframes
  /// Not decoded: `--verify` decodes audio and video; subtitles, data, attachments and cover art
  /// are listed as such.
  case none
}

/// The decoding errors of one stream: how many packets were damaged, and the first ones.
public struct DecodeErrors: Codable, Sendable, Equatable {
  /// Damaged packets (one packet's several messages count once).
  public var count: Int
  /// The first few, in decoding order.
  public var first: [DecodeError]

  /// No errors.
  public static let none = DecodeErrors(count: 0, first: [])

  /// A value with every field given.
  package init(
    count: Int, first: [DecodeError]
  ) {
    self.count = count
    self.first = first
  }
}

/// One damaged packet or frame.
public struct DecodeError: Codable, Sendable, Equatable {
  /// The packet's presentation time in seconds, when known.
  @NullEncoded public var time: Double?
  /// The packet's presentation timestamp in the stream's time base, when known.
  @NullEncoded public var pts: Int64?
  /// What kind of damage.
  public var kind: DecodeErrorKind
  /// What FFmpeg said.
  public var message: String

  /// A value with every field given.
  package init(
    time: Double? = nil, pts: Int64? = nil, kind: DecodeErrorKind, message: String
  ) {
    self.time = time
    self.pts = pts
    self.kind = kind
    self.message = message
  }
}

/// Kinds of decoding damage, as stable codes.
public enum DecodeErrorKind: String, Codable, Sendable {
  /// The bitstream is invalid (the decoder rejected the packet, or logged an error about it).
  case invalidData = "invalid_data"
  /// The decoder hid damage by concealment ("concealing N DC, N AC, N MV errors").
  case concealed
  /// A frame refers to a picture or parameter set that is missing.
  case missingReference = "missing_reference"
  /// The demuxer marked the packet corrupt (a short read: the file ends inside it).
  case truncatedPacket = "truncated_packet"
  /// Timestamps go backwards or jump ahead by more than a second.
  case timestampJump = "timestamp_jump"
  /// The decoder failed for another reason.
  case decoderFailed = "decoder_failed"
  /// The demuxer reported a problem with the container (a partial file).
  case container
}

/// The file's verdict after decoding every stream (`mediaprobe --verify`).
public enum Integrity: String, Codable, Sendable {
  /// Every stream decoded without an error.
  case ok
  /// Errors, but the streams decoded.
  case damaged
  /// The file ends early: the demuxer says so, a packet was cut, an index points past the end,
  /// or the decoded streams end well before the container's duration.
  case truncated
  /// Nothing could be decoded (no decoder, or no frame at all) in a file that has audio or video.
  case undecodable
}
