import OutputKit
import MediaCore
import CFFmpeg

/// One chapter of an input, as libavformat reads it (Matroska `Chapters`, MP4 chapter track or
/// Nero `chpl`, FFmetadata `[CHAPTER]`), in its own exact time base; also a chapter to write
/// (`Muxer.addChapter`).
package struct InputChapter: Sendable, Equatable {
  /// Where it starts and ends, in ticks of `timeBase`, on the file's own timeline.
  package var start: Int64
  package var end: Int64
  /// The ticks' length in seconds.
  package var timeBase: Rational
  /// Its `title` tag, when it has one.
  package var title: String?

  /// A chapter from its parts (one to write with `Muxer.addChapter`).
  package init(start: Int64, end: Int64, timeBase: Rational, title: String?) {
    self.start = start
    self.end = end
    self.timeBase = timeBase
    self.title = title
  }
}

extension InputFile {
  /// The input's chapters in file order (empty when it has none).
  package var chapters: [InputChapter] {
    let context = pointer.pointee
    guard let list = context.chapters else { return [] }
    var chapters: [InputChapter] = []
    for index in 0..<Int(context.nb_chapters) {
      guard let chapter = list[index]?.pointee,
        let timeBase = Rational(Int64(chapter.time_base.num), Int64(chapter.time_base.den)),
        timeBase.num > 0
      else { continue }
      chapters.append(
        InputChapter(
          start: chapter.start, end: chapter.end, timeBase: timeBase,
          title: metadataValue(chapter.metadata, "title")))
    }
    return chapters
  }

  /// Where the file's presentation starts (libavformat's `start_time`, the earliest first
  /// timestamp of its streams), in microseconds; nil when unknown. Players and the ffmpeg CLI
  /// count a file's chapters from there.
  package var startMicroseconds: Int64? {
    let start = pointer.pointee.start_time
    return start == mt_nopts_value ? nil : start
  }
}
