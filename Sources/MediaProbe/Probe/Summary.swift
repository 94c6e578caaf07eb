import Foundation

extension MediaInfo {
  /// One line for a human-readable table: container, duration, then each stream briefly.
  public var summaryColumns: [String] {
    let duration = self.duration.map { String(format: "%.3fs%@", $0.seconds, $0.estimated ? "~" : "") } ?? "?"
    let streams = self.streams.map(\.summary).joined(separator: "; ")
    return [path, container.formatName.split(separator: ",").first.map(String.init) ?? "", duration, streams]
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
        if let rate = video.frameRate.best { parts.append(String(format: "%.3gfps", rate.value)) }
        if let mode = video.frameRate.mode { parts.append(mode.rawValue) }
        if video.interlaced == true { parts.append("interlaced") }
        let o = video.orientation
        if o.rotation != 0 || o.mirrored {
          parts.append("\(o.name) (\(o.displayWidth)x\(o.displayHeight))")
        }
      }
    } else if let audio {
      parts.append("\(audio.sampleRate)Hz")
      parts.append(audio.channelLayout ?? "\(audio.channels)ch")
    } else {
      parts.append(type.rawValue)
    }
    if let language { parts.append("[\(language)]") }
    return parts.joined(separator: " ")
  }
}

/// Lays out rows as left-aligned columns separated by two spaces.
public func formatTable(_ rows: [[String]]) -> String {
  guard let width = rows.map(\.count).max() else { return "" }
  var widths = [Int](repeating: 0, count: width)
  for row in rows {
    for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
  }
  return rows.map { row in
    row.enumerated().map { column, cell in
      column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
    }.joined(separator: "  ")
  }.joined(separator: "\n") + "\n"
}
