import OutputKit
import MediaCore
import CFFmpeg

/// ISO/IEC 23003-5 uncompressed audio in MP4 (`ipcm` integer and `fpcm` float sample entries),
/// read as their `pcmC` box says.
///
/// FFmpeg 5.1's mov demuxer reads only the byte order from `pcmC`: it takes an `ipcm` track's
/// sample size from the sample entry's `samplesize` field, which writers leave at the ISO
/// template's 16 (FFmpeg 6.1's own muxer does), so 24- and 32-bit samples decode as 16-bit noise;
/// and it knows no `fpcm` at all (codec `none`). Where a track stores one PCM frame per MP4
/// sample (`stts` of one tick each, the usual layout), it also builds its index from that wrong
/// size: packets of two thirds of each chunk for 24-bit stereo. Between `avformat_open_input` and
/// `avformat_find_stream_info` the stream gets the codec `pcmC` states (`pcm_s24be`,
/// `pcm_f32le`, ...) and, in that layout, index entries sized and placed from it; a `pcmC` that
/// states an impossible size (or an index that is not FFmpeg's chunk layout) leaves the stream
/// with codec `none`, so it is reported as undecodable instead of being decoded as noise.
package enum UncompressedPCM {
  private static let ipcm = fourCC("ipcm")
  private static let fpcm = fourCC("fpcm")

  /// Corrects the `ipcm`/`fpcm` streams of a just-opened MP4/MOV input (no packet read yet).
  package static func correctStreams(of input: InputFile) {
    let candidates = input.streams.filter {
      let tag = input.stream($0.index).pointee.codecpar.pointee.codec_tag
      return $0.isAudio && (tag == ipcm || tag == fpcm)
    }
    guard !candidates.isEmpty, let layout = BoxLayout.read(input.source) else { return }
    for stream in candidates {
      guard let track = layout.tracks[Int64(stream.containerID)], let pcm = track.pcm else {
        continue
      }
      correct(input.stream(stream.index), track: track, pcm: pcm)
    }
  }

  /// The codec a `pcmC` box states for an entry, nil when it states none that exists.
  static func codec(entry: String, _ pcm: BoxLayout.PCMConfiguration) -> AVCodecID? {
    let little = pcm.littleEndian
    switch (entry, pcm.bits) {
    case ("ipcm", 16): return little ? AV_CODEC_ID_PCM_S16LE : AV_CODEC_ID_PCM_S16BE
    case ("ipcm", 24): return little ? AV_CODEC_ID_PCM_S24LE : AV_CODEC_ID_PCM_S24BE
    case ("ipcm", 32): return little ? AV_CODEC_ID_PCM_S32LE : AV_CODEC_ID_PCM_S32BE
    case ("fpcm", 32): return little ? AV_CODEC_ID_PCM_F32LE : AV_CODEC_ID_PCM_F32BE
    case ("fpcm", 64): return little ? AV_CODEC_ID_PCM_F64LE : AV_CODEC_ID_PCM_F64BE
    default: return nil
    }
  }

  private static func correct(
    _ stream: UnsafeMutablePointer<AVStream>, track: BoxLayout.Track,
    pcm: BoxLayout.PCMConfiguration
  ) {
    let parameters = stream.pointee.codecpar!
    let entry = parameters.pointee.codec_tag == ipcm ? "ipcm" : "fpcm"
    let channels = Int64(parameters.pointee.ch_layout.nb_channels)
    guard let goal = codec(entry: entry, pcm), channels > 0 else {
      parameters.pointee.codec_id = AV_CODEC_ID_NONE
      return
    }
    let assumed = parameters.pointee.codec_id
    if assumed == goal { return }
    // The frame size FFmpeg sized its chunk-layout index with: the assumed codec's (an `fpcm`
    // track, codec none, was sized from `stsz`, which is right).
    let assumedBits = Int64(av_get_bits_per_sample(assumed))
    let bits = Int64(pcm.bits)
    if track.oneTickPerSample && assumedBits > 0 && assumedBits != bits {
      guard
        resize(
          stream, from: channels * assumedBits / 8, to: channels * bits / 8,
          chunks: Set(track.chunkOffsets))
      else {
        parameters.pointee.codec_id = AV_CODEC_ID_NONE
        return
      }
    }
    parameters.pointee.codec_id = goal
    parameters.pointee.bits_per_coded_sample = Int32(bits)
    parameters.pointee.bits_per_raw_sample = Int32(bits)
    parameters.pointee.block_align = Int32(channels * bits / 8)
    if parameters.pointee.sample_rate > 0 {
      parameters.pointee.bit_rate = Int64(parameters.pointee.sample_rate) * channels * bits
    }
  }

  /// Rewrites the index FFmpeg built by chunks with `assumed` bytes per frame for frames of
  /// `actual` bytes: the same entries (timestamps, frame counts), each `actual / assumed` times
  /// as long, placed one after another from the start of its chunk.
  ///
  /// - Returns: false when the index is not FFmpeg's chunk layout (nothing is changed then).
  private static func resize(
    _ stream: UnsafeMutablePointer<AVStream>, from assumed: Int64, to actual: Int64,
    chunks: Set<Int64>
  ) -> Bool {
    let count = avformat_index_get_entries_count(stream)
    guard count > 0, assumed > 0, !chunks.isEmpty else { return false }
    var entries: [(pos: Int64, timestamp: Int64, size: Int64, distance: Int32, flags: Int32)] = []
    entries.reserveCapacity(Int(count))
    for index in 0..<count {
      guard let entry = avformat_index_get_entry(stream, index)?.pointee else { return false }
      let size = Int64(entry.size)
      guard size > 0, size % assumed == 0 else { return false }
      entries.append(
        (entry.pos, entry.timestamp, size, entry.min_distance, Int32(entry.flags) & 3))
    }
    guard chunks.contains(entries[0].pos) else { return false }
    var rewritten: [(pos: Int64, size: Int64)] = []
    var next: Int64 = 0
    for (index, entry) in entries.enumerated() {
      // A chunk starts where FFmpeg's running offset (with the wrong sizes) jumps to a chunk.
      let continues =
        index > 0 && entry.pos == entries[index - 1].pos + entries[index - 1].size
      guard continues || chunks.contains(entry.pos) else { return false }
      let pos = continues ? next : entry.pos
      let size = entry.size / assumed * actual
      guard size <= 0x3FFF_FFFF else { return false }
      rewritten.append((pos, size))
      next = pos + size
    }
    for (entry, new) in zip(entries, rewritten) {
      // Same timestamp: libavformat replaces the entry in place.
      av_add_index_entry(
        stream, new.pos, entry.timestamp, Int32(new.size), entry.distance, entry.flags)
    }
    return true
  }

  private static func fourCC(_ text: String) -> UInt32 {
    text.utf8.reversed().reduce(0) { $0 << 8 | UInt32($1) }
  }
}
