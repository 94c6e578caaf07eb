import OutputKit
import MediaCore
/// What the boxes of an ISO BMFF file (MP4, MOV, 3GP, M4A) say, read from their headers through
/// the input's own descriptor (never by opening the path again): where `moov` and `mdat` lie
/// (fast start, truncation), the movie and track durations with their "unknown" sentinels, each
/// track's edit list and stored sample count, and the samples and durations of movie fragments
/// (`mehd`, `moof`/`traf`/`trun`), as MediaInfo reads them, without demuxing.
package struct BoxLayout: Equatable {
  /// A `moov` box exists.
  package var hasMovie = false
  /// `moov` comes before the first `mdat`.
  package var movieBeforeData = false
  /// The type of a top-level box that claims to extend past the end of the file, if any.
  package var boxPastEnd: String?
  /// Where that box starts, in bytes from the start of the file.
  package var boxPastEndOffset: UInt64?

  /// The box that extends past the end of the file, for a message: its type when it is a box
  /// type ISO BMFF or QuickTime define (`mdat`), else only its offset in hex. The type is four
  /// bytes of the input: quoted as text, they would show what a file holds to whoever reads
  /// the message (a symbolic link to a private file probed by root).
  package var boxPastEndDescription: String? {
    guard let type = boxPastEnd else { return nil }
    return Self.describe(type: type, offset: boxPastEndOffset ?? 0)
  }

  /// `the TYPE box` for a known box type, `the box at offset 0x...` otherwise.
  package static func describe(type: String, offset: UInt64) -> String {
    knownTypes.contains(type)
      ? "the \(type) box" : "the box at offset 0x\(String(offset, radix: 16))"
  }

  /// Box types of ISO/IEC 14496-12 and -14/-15, QuickTime and the common extensions that can
  /// appear at the top level or in a movie: the only ones a message names.
  package static let knownTypes: Set<String> = [
    "ftyp", "styp", "moov", "mdat", "moof", "mfra", "free", "skip", "wide", "uuid", "meta",
    "pdin", "sidx", "ssix", "prft", "emsg", "pnot", "junk", "mvhd", "trak", "tkhd", "mdia",
    "mdhd", "hdlr", "minf", "stbl", "stsd", "stts", "stsc", "stsz", "stco", "co64", "edts",
    "elst", "udta", "mvex", "mehd", "trex", "traf", "tfhd", "trun", "tfdt", "mfhd", "iinf",
    "iloc", "iprp", "ipco", "pitm", "idat", "iref", "xml ", "bxml", "ilst", "keys",
  ]
  /// The movie timescale (`mvhd`).
  package var movieTimescale: Int64?
  /// The movie duration in the movie timescale; nil when absent, zero or the sentinel.
  package var movieDuration: Int64?
  /// `mvhd`'s duration is all ones (0xFFFFFFFF or 64-bit all ones): "unknown".
  package var unknownDurationSentinel = false
  /// `mvex` is present: the file is (or may be) fragmented.
  package var hasMovieExtends = false
  /// `mehd`'s fragment duration (the whole movie's, in the movie timescale), when given.
  package var fragmentDuration: Int64?
  /// Movie fragments (`moof`) found.
  package var fragmentCount = 0
  /// The tracks, by track ID (libavformat's `AVStream.id` for MP4).
  package var tracks: [Int64: Track] = [:]

  /// Track IDs that movie fragments (`traf`) carry samples for but no `trak` of the movie
  /// declares (a side-loaded track's fragments, a muxer's mistake): no player can present them,
  /// having no sample description. libavformat 5.1 files their samples under another track.
  package var undeclaredFragmentTracks: [Int64] {
    tracks.filter { !$0.value.declared && $0.value.fragmentSamples > 0 }.map(\.key).sorted()
  }

  /// One track's header facts.
  package struct Track: Equatable {
    /// A `trak` box of the movie describes it (not only fragments or `trex`).
    package var declared = false
    /// The media timescale (`mdhd`).
    package var timescale: Int64 = 0
    /// The media duration (`mdhd`) in the media timescale; nil when zero or the sentinel.
    package var mediaDuration: Int64?
    /// The presentation duration (`tkhd`) in the movie timescale; nil when zero or the sentinel.
    package var trackDuration: Int64?
    /// Samples in the movie's own sample table (`stsz`).
    package var tableSamples: Int64 = 0
    /// The track's edit list (`elst`), empty when it has none.
    package var edits: [Edit] = []
    /// Samples in movie fragments (`trun`).
    package var fragmentSamples: Int64 = 0
    /// The summed sample durations of the fragments, in the media timescale.
    package var fragmentTicks: Int64 = 0
    /// Where the latest fragment's samples end in decoding time (its `tfdt` base media decode
    /// time plus its `trun` durations), in the media timescale; nil without `tfdt`.
    package var fragmentEnd: Int64?

    /// Where a fragmented track's samples end in decoding time, in the media timescale: the
    /// latest fragment's end by its `tfdt`, else the movie's samples (`mdhd`) plus every
    /// fragment's durations. Each sample lasts what its `trun` (or the defaults) says, the last
    /// one too (an AAC encoder's last frame of 256 samples, where libavformat's packet says
    /// 1024).
    package var fragmentedEnd: Int64 {
      Swift.max(fragmentEnd ?? 0, (mediaDuration ?? 0) + fragmentTicks)
    }
    /// `trex`'s default sample duration.
    var defaultSampleDuration: Int64 = 0
    /// The type of the first sample entry (`stsd`): `avc1`, `mp4a`, `ipcm`, ...
    package var sampleEntry: String?
    /// For an ISO/IEC 23003-5 `ipcm`/`fpcm` entry, what its `pcmC` box says.
    package var pcm: PCMConfiguration?
    /// `stts` has one entry whose samples last one tick each: for audio, one PCM frame per
    /// sample, which FFmpeg demuxes by chunks, sized from the sample entry.
    package var oneTickPerSample = false
    /// The chunk offsets (`stco`/`co64`), read for `ipcm`/`fpcm` tracks only.
    package var chunkOffsets: [Int64] = []
    /// For a track with an edit list: the composition interval its sample table covers, in the
    /// media timescale (`stts` decoding times plus `ctts` offsets: the earliest sample's
    /// composition time, and the latest composition time plus that sample's duration). Nil
    /// without an edit list or when the tables are unreadable or hold over `tableLimit` samples.
    package var tableStart: Int64?
    package var tableEnd: Int64?
    /// With one media edit: the samples it presents (`readPresentation`), nil otherwise.
    package var presentedSamples: Int64?
    /// With one media edit: the earliest composition time at or after the presented interval's
    /// start (the first sample shown whole; libavformat's first presented packet).
    package var firstWholeSample: Int64?

    /// What a track with one media edit presents (ISO/IEC 14496-12 8.6.6: the edit maps the
    /// media interval `[media_time, media_time + segment_duration)` onto the presentation, after
    /// the empty edits before it): the part of that interval the sample table covers, in the
    /// media timescale. Samples before `media_time` (AAC priming, frames decoded only as
    /// references) and after its end (encoder padding) are not presented; an edit that runs past
    /// the last sample ends with it. Nil without an edit list, with more than one media edit, or
    /// with an unknown timescale or table.
    package func presentation(movieTimescale: Int64?) -> Presentation? {
      guard let movieTimescale, movieTimescale > 0, timescale > 0, let tableStart, let tableEnd
      else { return nil }
      let media = edits.enumerated().filter { $0.element.mediaTime >= 0 }
      guard media.count == 1, let (position, edit) = media.first else { return nil }
      // Only empty edits (gaps) may come before the media edit.
      let delay = edits[..<position].reduce(Int64(0)) { $0 + $1.duration }
      let length =
        edit.duration == 0
        ? tableEnd - edit.mediaTime  // a duration of 0: the rest of the media (an unfinished file)
        : Rational.rescale(
          edit.duration, from: Rational(1, movieTimescale)!, to: Rational(1, timescale)!)
      let start = Swift.max(edit.mediaTime, tableStart)
      let end = Swift.min(edit.mediaTime + length, tableEnd)
      return Presentation(
        delay: Rational.rescale(
          delay, from: Rational(1, movieTimescale)!, to: Rational(1, timescale)!),
        mediaTime: edit.mediaTime, start: start, end: Swift.max(start, end))
    }
  }

  /// The part of a track's media an edit list presents, in the media timescale.
  package struct Presentation: Equatable {
    /// The empty edits before the media edit (the track starts this late in the movie).
    package var delay: Int64
    /// The edit's `media_time`: the media time shown at `delay` in the presentation.
    package var mediaTime: Int64
    /// The presented media interval: from the first presented sample (or `media_time`) to the
    /// end of the edit or of the last sample, whichever comes first.
    package var start: Int64
    package var end: Int64
    /// How long the presented samples last.
    package var ticks: Int64 { end - start }
    /// Where the presentation ends on the track's timeline, which starts at 0 with the delay:
    /// libavformat's timestamps after applying the edit (`media_time` at `delay`).
    package var endOnTimeline: Int64 { delay + end - mediaTime }
  }

  /// Samples the sample table may hold for `Track.tableStart`/`tableEnd` to be read (a 16-hour
  /// recording at 60 fps; the tables of larger tracks are not walked).
  static let tableLimit: Int64 = 3_500_000

  /// An ISO/IEC 23003-5 `pcmC` box: how the samples of an `ipcm` (integer) or `fpcm` (float)
  /// sample entry are stored.
  package struct PCMConfiguration: Equatable {
    /// Bit 0 of `format_flags`: little-endian samples (big-endian otherwise).
    package var littleEndian: Bool
    /// `PCM_sample_size`: bits per sample (16, 24 or 32 for `ipcm`; 32 or 64 for `fpcm`).
    package var bits: Int
  }

  /// One edit list entry.
  package struct Edit: Equatable {
    /// Its duration in the movie timescale.
    package var duration: Int64
    /// Where it starts in the media, in the media timescale; -1 for an empty edit (a gap).
    package var mediaTime: Int64
  }

  /// The file is fragmented: movie fragments were found.
  package var isFragmented: Bool { fragmentCount > 0 }

  /// Reads the box headers (and the small fragment boxes) of a regular file.
  ///
  /// - Returns: nil when the source cannot seek or does not start with a plausible box.
  package static func read(_ source: ByteSource) -> BoxLayout? {
    guard let size = source.size else { return nil }
    let file = BoxFile(source: source, size: UInt64(size))
    var layout = BoxLayout()
    var offset: UInt64 = 0
    var sawData = false
    var boxes = 0
    while offset + 8 <= file.size, boxes < 1_000_000 {
      boxes += 1
      guard let box = file.box(at: offset, within: file.size) else {
        return boxes > 1 ? layout : nil
      }
      switch box.type {
      case "moov":
        layout.hasMovie = true
        if !sawData { layout.movieBeforeData = true }
        layout.readMovie(file, box.children(in: file))
      case "moof":
        layout.fragmentCount += 1
        layout.readFragment(file, box.children(in: file))
      case "mdat": sawData = true
      default: break
      }
      if offset + box.size > file.size {
        layout.boxPastEnd = box.type
        layout.boxPastEndOffset = box.offset
        break
      }
      offset += box.size
    }
    return layout
  }

  // MARK: - moov

  private mutating func readMovie(_ file: BoxFile, _ children: [BoxFile.Header]) {
    for child in children {
      switch child.type {
      case "mvhd":
        let body = file.bytes(at: child.body, count: 32)
        let (timescale, duration, allOnes) = Self.timescaleAndDuration(body)
        movieTimescale = timescale
        unknownDurationSentinel = allOnes
        movieDuration = allOnes || duration == 0 ? nil : duration
      case "mvex":
        hasMovieExtends = true
        for grandchild in child.children(in: file) {
          let body = file.bytes(at: grandchild.body, count: 20)
          if grandchild.type == "mehd", body.count >= 8 {
            let duration = body[0] == 1 ? Self.int(body, 4, 8) : Self.int(body, 4, 4)
            let allOnes = duration == (body[0] == 1 ? Int64(bitPattern: UInt64.max) : 0xFFFF_FFFF)
            if duration > 0 && !allOnes { fragmentDuration = duration }
          } else if grandchild.type == "trex", body.count >= 16 {
            tracks[Self.int(body, 4, 4), default: Track()].defaultSampleDuration =
              Self.int(body, 12, 4)
          }
        }
      case "trak": readTrack(file, child.children(in: file))
      default: break
      }
    }
  }

  private mutating func readTrack(_ file: BoxFile, _ children: [BoxFile.Header]) {
    var track = Track()
    track.declared = true
    var id: Int64?
    var timeToSample: BoxFile.Header?
    var compositionOffsets: BoxFile.Header?
    var sampleToChunk: BoxFile.Header?
    var chunkTable: BoxFile.Header?
    for child in children {
      switch child.type {
      case "tkhd":
        let body = file.bytes(at: child.body, count: 36)
        guard body.count >= 24 else { continue }
        let version1 = body[0] == 1
        id = Self.int(body, version1 ? 20 : 12, 4)
        let duration = version1 ? Self.int(body, 28, 8) : Self.int(body, 20, 4)
        let allOnes = duration == (version1 ? -1 : 0xFFFF_FFFF)
        track.trackDuration = allOnes || duration <= 0 ? nil : duration
      case "edts":
        if let elst = child.children(in: file).first(where: { $0.type == "elst" }) {
          track.edits = Self.edits(file, elst)
        }
      case "mdia":
        for grandchild in child.children(in: file) {
          if grandchild.type == "mdhd" {
            let (timescale, duration, allOnes) = Self.timescaleAndDuration(
              file.bytes(at: grandchild.body, count: 32))
            track.timescale = timescale ?? 0
            track.mediaDuration = allOnes || duration == 0 ? nil : duration
          } else if grandchild.type == "minf",
            let stbl = grandchild.children(in: file).first(where: { $0.type == "stbl" })
          {
            var offsets: [BoxFile.Header] = []
            for table in stbl.children(in: file) {
              if table.type == "stts" { timeToSample = table }
              if table.type == "ctts" { compositionOffsets = table }
              if table.type == "stsc" { sampleToChunk = table }
              switch table.type {
              case "stsz", "stz2":
                let body = file.bytes(at: table.body, count: 12)
                if body.count == 12 { track.tableSamples = Self.int(body, 8, 4) }
              case "stsd": Self.readSampleEntry(file, table, into: &track)
              case "stts":
                let body = file.bytes(at: table.body, count: 16)
                track.oneTickPerSample =
                  body.count == 16 && Self.int(body, 4, 4) == 1 && Self.int(body, 12, 4) == 1
              case "stco", "co64":
                offsets.append(table)
                chunkTable = table
              default: break
              }
            }
            if track.pcm != nil, let table = offsets.first {
              track.chunkOffsets = Self.chunkOffsets(file, table)
            }
          }
        }
      default: break
      }
    }
    guard let id else { return }
    if !track.edits.isEmpty, let timeToSample {
      // Samples with data: those the size table lists that the chunk tables place.
      let stored = Swift.min(
        track.tableSamples, Self.samplesInChunks(file, sampleToChunk, chunkTable) ?? .max)
      readPresentation(file, timeToSample, compositionOffsets, stored: stored, into: &track)
    }
    let defaults = tracks[id]?.defaultSampleDuration ?? 0
    track.defaultSampleDuration = defaults
    tracks[id] = track
  }

  /// The first sample entry's type and, for `ipcm`/`fpcm`, its `pcmC` box. The entry's own
  /// boxes follow the AudioSampleEntry fields: 28 bytes (ISO, and QuickTime version 0), 44
  /// (QuickTime version 1) or 64 (version 2); the offset whose boxes fill the entry exactly wins.
  private static func readSampleEntry(
    _ file: BoxFile, _ stsd: BoxFile.Header, into track: inout Track
  ) {
    guard let entry = file.box(at: stsd.body + 8, within: stsd.offset + stsd.size) else { return }
    track.sampleEntry = entry.type
    guard entry.type == "ipcm" || entry.type == "fpcm" else { return }
    let end = min(entry.offset + entry.size, file.size)
    for fields: UInt64 in [28, 44, 64] {
      var at = entry.body + fields
      var found: PCMConfiguration?
      while at + 8 <= end, let box = file.box(at: at, within: end), at + box.size <= end {
        if box.type == "pcmC" {
          let body = file.bytes(at: box.body, count: 6)
          if body.count == 6 && box.size >= box.headerSize + 6 {
            found = PCMConfiguration(littleEndian: body[4] & 1 != 0, bits: Int(body[5]))
          }
        }
        at += box.size
      }
      if at == end {
        track.pcm = found
        return
      }
    }
  }

  /// The chunk offsets of an `stco` or `co64` box (at most a million).
  private static func chunkOffsets(_ file: BoxFile, _ table: BoxFile.Header) -> [Int64] {
    let header = file.bytes(at: table.body, count: 8)
    guard header.count == 8 else { return [] }
    let width = table.type == "co64" ? 8 : 4
    let count = Int(min(int(header, 4, 4), 1_000_000, Int64(table.size) / Int64(width)))
    let body = file.bytes(at: table.body + 8, count: count * width)
    return (0..<(body.count / width)).map { int(body, $0 * width, width) }
  }

  /// The run-length entries (count, value) of an `stts` or `ctts` box; nil when the box is cut
  /// short or lists more than `tableLimit` samples.
  private static func runs(_ file: BoxFile, _ table: BoxFile.Header) -> [(Int64, Int64)]? {
    let header = file.bytes(at: table.body, count: 8)
    guard header.count == 8 else { return nil }
    let count = int(header, 4, 4)
    guard count <= tableLimit, UInt64(count) * 8 + 8 <= table.size else { return nil }
    let body = file.bytes(at: table.body + 8, count: Int(count) * 8)
    guard body.count == Int(count) * 8 else { return nil }
    var runs: [(Int64, Int64)] = []
    var samples: Int64 = 0
    for index in 0..<Int(count) {
      let run = int(body, index * 8, 4)
      // ctts version 1 offsets are signed; version 0 ones are meant as unsigned but written
      // signed by some muxers: read both signed, as libavformat does.
      let value = Int64(Int32(truncatingIfNeeded: int(body, index * 8 + 4, 4)))
      samples += run
      guard samples <= tableLimit else { return nil }
      runs.append((run, value))
    }
    return runs
  }

  /// How many samples the chunk tables place (`stsc` runs over the `stco`/`co64` chunks); nil
  /// when either is missing or cut short.
  private static func samplesInChunks(
    _ file: BoxFile, _ stsc: BoxFile.Header?, _ chunks: BoxFile.Header?
  ) -> Int64? {
    guard let stsc, let chunks else { return nil }
    let chunkHeader = file.bytes(at: chunks.body, count: 8)
    let header = file.bytes(at: stsc.body, count: 8)
    guard chunkHeader.count == 8, header.count == 8 else { return nil }
    let chunkCount = int(chunkHeader, 4, 4)
    let count = int(header, 4, 4)
    guard count <= tableLimit, UInt64(count) * 12 + 8 <= stsc.size else { return nil }
    let body = file.bytes(at: stsc.body + 8, count: Int(count) * 12)
    guard body.count == Int(count) * 12 else { return nil }
    var total: Int64 = 0
    for index in 0..<Int(count) {
      let first = int(body, index * 12, 4)
      let perChunk = int(body, index * 12 + 4, 4)
      let next = index + 1 < Int(count) ? int(body, (index + 1) * 12, 4) : chunkCount + 1
      total += Swift.max(0, Swift.min(next, chunkCount + 1) - first) * perChunk
    }
    return total
  }

  /// The composition times of a sample table (decoding time plus `ctts` offset), in decoding
  /// order, with each sample's duration (`stts`), in the media timescale.
  private static func compositionTimes(
    _ file: BoxFile, _ stts: BoxFile.Header, _ ctts: BoxFile.Header?
  ) -> [(time: Int64, duration: Int64)]? {
    guard let durations = runs(file, stts) else { return nil }
    let offsets = ctts.flatMap { runs(file, $0) } ?? []
    var times: [(time: Int64, duration: Int64)] = []
    var decoding: Int64 = 0
    var offsetRun = 0
    var leftInRun = offsets.first?.0 ?? 0
    for (count, delta) in durations {
      for _ in 0..<count {
        while leftInRun == 0, offsetRun + 1 < offsets.count {
          offsetRun += 1
          leftInRun = offsets[offsetRun].0
        }
        let offset = leftInRun == 0 ? 0 : offsets[offsetRun].1
        if leftInRun > 0 { leftInRun -= 1 }
        times.append((decoding + offset, delta))
        decoding += delta
      }
    }
    return times
  }

  /// Reads a track's sample table interval and, with one media edit, how many of its samples
  /// the edit presents: those whose display interval (from its composition time to the next
  /// composition time in display order; the last one its own duration) overlaps the presented
  /// media interval: the frame on screen when the edit starts is shown, as are frames the edit
  /// ends inside.
  private func readPresentation(
    _ file: BoxFile, _ stts: BoxFile.Header, _ ctts: BoxFile.Header?, stored: Int64,
    into track: inout Track
  ) {
    guard var samples = Self.compositionTimes(file, stts, ctts), !samples.isEmpty else { return }
    // A sample the time table lists but no chunk holds is no sample (libavformat indexes
    // only the chunks' samples).
    if stored >= 0, Int64(samples.count) > stored {
      samples.removeLast(samples.count - Int(stored))
    }
    guard !samples.isEmpty else { return }
    let sorted = samples.sorted { $0.time < $1.time }
    track.tableStart = sorted.first!.time
    track.tableEnd = samples.map { $0.time + $0.duration }.max()!
    // PCM stored one sample per tick: the demuxer packs chunks, its frames are not samples.
    guard !track.oneTickPerSample,
      let presentation = track.presentation(movieTimescale: movieTimescale)
    else { return }
    var count: Int64 = 0
    for (index, sample) in sorted.enumerated() {
      let end = index + 1 < sorted.count ? sorted[index + 1].time : sample.time + sample.duration
      if sample.time < presentation.end, end > presentation.start, end > sample.time { count += 1 }
      if track.firstWholeSample == nil, sample.time >= presentation.start {
        track.firstWholeSample = sample.time
      }
    }
    track.presentedSamples = count
  }

  private static func edits(_ file: BoxFile, _ elst: BoxFile.Header) -> [Edit] {
    let header = file.bytes(at: elst.body, count: 8)
    guard header.count == 8 else { return [] }
    let version1 = header[0] == 1
    let count = Int(min(int(header, 4, 4), 1000))
    let entrySize = version1 ? 20 : 12
    let body = file.bytes(at: elst.body + 8, count: count * entrySize)
    return (0..<(body.count / entrySize)).map { index in
      let at = index * entrySize
      return version1
        ? Edit(duration: int(body, at, 8), mediaTime: int(body, at + 8, 8))
        : Edit(
          duration: int(body, at, 4),
          mediaTime: Int64(Int32(truncatingIfNeeded: int(body, at + 4, 4))))
    }
  }

  // MARK: - moof

  private mutating func readFragment(_ file: BoxFile, _ children: [BoxFile.Header]) {
    for traf in children where traf.type == "traf" {
      var trackID: Int64?
      var defaultDuration: Int64?
      var baseTime: Int64?
      for box in traf.children(in: file) {
        switch box.type {
        case "tfhd":
          let body = file.bytes(at: box.body, count: 36)
          guard body.count >= 8 else { continue }
          let flags = Self.int(body, 1, 3)
          trackID = Self.int(body, 4, 4)
          var at = 8
          if flags & 0x01 != 0 { at += 8 }  // base data offset
          if flags & 0x02 != 0 { at += 4 }  // sample description index
          if flags & 0x08 != 0, body.count >= at + 4 { defaultDuration = Self.int(body, at, 4) }
        case "tfdt":
          let body = file.bytes(at: box.body, count: 12)
          guard body.count >= 8 else { continue }
          baseTime = body[0] == 1 ? Self.int(body, 4, 8) : Self.int(body, 4, 4)
        case "trun":
          guard let trackID else { continue }
          let (samples, ticks) = Self.run(
            file, box,
            defaultDuration: defaultDuration ?? tracks[trackID]?.defaultSampleDuration ?? 0)
          tracks[trackID, default: Track()].fragmentSamples += samples
          tracks[trackID, default: Track()].fragmentTicks += ticks
          if let base = baseTime {
            baseTime = base + ticks  // a second trun of the fragment follows the first
            let end = base + ticks
            let latest = tracks[trackID]?.fragmentEnd ?? end
            tracks[trackID]?.fragmentEnd = Swift.max(latest, end)
          }
        default: break
        }
      }
    }
  }

  /// A track run's sample count and summed durations.
  private static func run(_ file: BoxFile, _ trun: BoxFile.Header, defaultDuration: Int64)
    -> (samples: Int64, ticks: Int64)
  {
    let header = file.bytes(at: trun.body, count: 8)
    guard header.count == 8 else { return (0, 0) }
    let flags = int(header, 1, 3)
    let count = int(header, 4, 4)
    guard flags & 0x100 != 0 else { return (count, count * defaultDuration) }
    var at = 8
    if flags & 0x001 != 0 { at += 4 }  // data offset
    if flags & 0x004 != 0 { at += 4 }  // first sample flags
    let fields = [0x100, 0x200, 0x400, 0x800].filter { flags & $0 != 0 }.count
    let stride = 4 * fields
    let available = Int(min(count, Int64(trun.size) / Int64(max(stride, 1))))
    let body = file.bytes(at: trun.body + UInt64(at), count: available * stride)
    var ticks: Int64 = 0
    for index in 0..<(body.count / stride) { ticks += int(body, index * stride, 4) }
    return (count, ticks)
  }

  // MARK: - Bytes

  /// `mvhd`/`mdhd`: (timescale, duration, duration is all ones).
  private static func timescaleAndDuration(_ body: [UInt8]) -> (Int64?, Int64, Bool) {
    if body.first == 1 {
      guard body.count >= 32 else { return (nil, 0, false) }
      let raw = UInt64(bitPattern: int(body, 24, 8))
      return (int(body, 20, 4), Int64(bitPattern: raw & 0x7FFF_FFFF_FFFF_FFFF), raw == .max)
    }
    guard body.count >= 20 else { return (nil, 0, false) }
    let duration = int(body, 16, 4)
    return (int(body, 12, 4), duration, duration == 0xFFFF_FFFF)
  }

  /// A big-endian integer of `count` bytes at `offset`.
  package static func int(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int64 {
    guard offset >= 0, offset + count <= bytes.count else { return 0 }
    var value: UInt64 = 0
    for byte in bytes[offset..<(offset + count)] { value = value << 8 | UInt64(byte) }
    return Int64(bitPattern: value)
  }
}

/// Box headers read from a `ByteSource`, through a one-block cache: the boxes of a `moov` or a
/// `moof` lie close together, so a handful of reads serve a whole walk.
package final class BoxFile {
  package let source: ByteSource
  package let size: UInt64
  private var block: [UInt8] = []
  private var blockStart: UInt64 = 0
  /// How much one read fetches at least.
  private static let blockSize = 64 << 10

  package init(source: ByteSource, size: UInt64) {
    self.source = source
    self.size = size
  }

  package struct Header {
    var type: String
    var offset: UInt64
    var size: UInt64
    var headerSize: UInt64
    var body: UInt64 { offset + headerSize }

    /// The boxes directly inside this one.
    func children(in file: BoxFile) -> [Header] {
      var result: [Header] = []
      var at = body
      let end = min(offset + size, file.size)
      while at + 8 <= end, result.count < 100_000, let child = file.box(at: at, within: end) {
        result.append(child)
        at += child.size
      }
      return result
    }
  }

  package func bytes(at offset: UInt64, count: Int) -> [UInt8] {
    guard count > 0, offset < size else { return [] }
    let end = offset + UInt64(count)
    if offset < blockStart || end > blockStart + UInt64(block.count) {
      guard count <= Self.blockSize else { return source.bytes(at: offset, count: count) }
      blockStart = offset
      block = source.bytes(at: offset, count: Self.blockSize)
    }
    let from = Int(offset - blockStart)
    return Array(block[from..<min(block.count, from + count)])
  }

  /// The box header at `offset`; nil when it is not a plausible box.
  package func box(at offset: UInt64, within end: UInt64) -> Header? {
    let header = bytes(at: offset, count: 16)
    guard header.count >= 8 else { return nil }
    var boxSize = UInt64(bitPattern: BoxLayout.int(header, 0, 4))
    var headerSize: UInt64 = 8
    if boxSize == 1 {
      guard header.count == 16 else { return nil }
      boxSize = UInt64(bitPattern: BoxLayout.int(header, 8, 8))
      headerSize = 16
    } else if boxSize == 0 {
      boxSize = end - offset  // extends to the end of its parent (or the file)
    }
    guard boxSize >= headerSize else { return nil }
    return Header(
      type: String(decoding: header[4..<8], as: UTF8.self), offset: offset, size: boxSize,
      headerSize: headerSize)
  }
}
