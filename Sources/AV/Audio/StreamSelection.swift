import OutputKit
import CFFmpeg
import MediaCore

/// Which audio stream to decode.
public enum StreamChoice: Sendable, Equatable {
  /// The ffmpeg CLI's choice: a `default` stream first, then the most channels, then the first.
  case automatic
  /// The N-th audio stream, counting from 0 (as `ffmpeg -map 0:a:N`).
  case audioIndex(Int)
  /// The first audio stream tagged with this language (ISO 639-2, e.g. `eng`).
  case language(String)
}

extension StreamChoice {
  /// The container index of the chosen audio stream of `input`.
  ///
  /// - Throws: `ExtractError.noAudioStream` or `.streamNotFound`.
  package func select(in input: InputFile) throws(ExtractError) -> Int {
    let audio = (0..<input.streamCount).filter {
      input.stream($0).pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO
    }
    guard !audio.isEmpty else { throw .noAudioStream }
    switch self {
    case .audioIndex(let n):
      guard n >= 0, n < audio.count else {
        throw .streamNotFound(
          "#\(n) (the input has \(audio.count) audio stream\(audio.count == 1 ? "" : "s"))")
      }
      return audio[n]
    case .language(let language):
      guard
        let index = audio.first(where: { index in
          guard let entry = av_dict_get(input.stream(index).pointee.metadata, "language", nil, 0)
          else { return false }
          return String(cString: entry.pointee.value).lowercased() == language.lowercased()
        })
      else { throw .streamNotFound("in language '\(language)'") }
      return index
    case .automatic:
      // ffmpeg 5.1 (ffmpeg_opt.c): score = channels + 5,000,000 × default disposition
      // + 100,000,000 × "packets arrived while probing" (a stream whose packets start late in
      // the file loses); the first of equal scores wins.
      func score(_ index: Int) -> Int {
        let stream = input.stream(index).pointee
        let isDefault = stream.disposition & AV_DISPOSITION_DEFAULT != 0
        let hasPackets = stream.event_flags & AVSTREAM_EVENT_FLAG_NEW_PACKETS != 0
        return Int(stream.codecpar.pointee.ch_layout.nb_channels) + (isDefault ? 5_000_000 : 0)
          + (hasPackets ? 100_000_000 : 0)
      }
      var best = audio[0]
      for index in audio.dropFirst() where score(index) > score(best) { best = index }
      return best
    }
  }
}
