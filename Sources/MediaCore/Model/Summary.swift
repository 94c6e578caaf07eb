extension MediaInfo {
  /// One line for a human-readable table: container, duration, then each stream briefly.
  public var summaryColumns: [String] {
    let duration =
      self.duration.map { fixed($0.seconds, places: 3) + ($0.estimated ? "s~" : "s") } ?? "?"
    let streams = self.streams.map(\.summary).joined(separator: "; ")
    return [
      path, container.formatName.split(separator: ",").first.map(String.init) ?? "", duration,
      streams,
    ]
  }
}

extension MediaStream {
  /// A short description: `h264 1920x1080 29.97fps right (1080x1920)`, `aac 48000Hz stereo`.
  public var summary: String {
    var parts = ["#\(index)", codec.name]
    if let video {
      parts.append("\(video.width)x\(video.height)")
      if disposition["attached_pic"] == true {
        parts.append("cover art")
      } else {
        if disposition["still_image"] == true { parts.append("still image") }
        if let rate = video.frameRate.best {
          let text = rate.den == 1 ? "\(rate.num)" : fixed(rate.value, places: 3)
          parts.append(text + "fps")
        }
        if let mode = video.frameRate.mode { parts.append(mode.rawValue) }
        if video.interlaced == true { parts.append("interlaced") }
        let o = video.orientation
        if o.rotation != 0 || o.mirrored {
          parts.append("\(o.name) (\(o.displayWidth)x\(o.displayHeight))")
        }
      }
    } else if let audio {
      parts.append(audio.sampleRate.map { "\($0)Hz" } ?? "?Hz")
      // One style whether the container names the layout or not (WAV's PCM often does not):
      // mono and stereo by count, other counts by the layout's name when known.
      let byCount = audio.channels.map { [1: "mono", 2: "stereo"][$0] ?? "\($0)ch" }
      parts.append(
        audio.channels.flatMap { $0 <= 2 ? byCount : nil } ?? audio.channelLayout ?? byCount
          ?? "?ch")
    } else {
      parts.append(type.rawValue)
    }
    if let language { parts.append("[\(language)]") }
    return parts.joined(separator: " ")
  }
}
