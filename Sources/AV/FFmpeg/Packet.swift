import OutputKit
import MediaCore
import CFFmpeg

/// An owned `AVPacket`, freed with `av_packet_free`. Reused across reads, receives from an
/// encoder and writes to a muxer; `unref` between them.
package final class Packet {
  let pointer: UnsafeMutablePointer<AVPacket>

  package init() {
    guard let packet = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
    pointer = packet
  }

  deinit {
    var packet: UnsafeMutablePointer<AVPacket>? = pointer
    av_packet_free(&packet)
  }

  /// Drops the packet's data so the packet can be read into again.
  package func unref() { av_packet_unref(pointer) }

  /// The index of the stream the packet belongs to.
  package var streamIndex: Int {
    get { Int(pointer.pointee.stream_index) }
    set { pointer.pointee.stream_index = Int32(newValue) }
  }
  /// Presentation time in the stream's time base, or nil when the container has none.
  package var pts: Int64? {
    get { pointer.pointee.pts == mt_nopts_value ? nil : pointer.pointee.pts }
    set { pointer.pointee.pts = newValue ?? mt_nopts_value }
  }
  /// Decoding time in the stream's time base, or nil when the container has none.
  package var dts: Int64? {
    get { pointer.pointee.dts == mt_nopts_value ? nil : pointer.pointee.dts }
    set { pointer.pointee.dts = newValue ?? mt_nopts_value }
  }
  /// The packet's payload (valid until `unref`).
  package var bytes: UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: pointer.pointee.data, count: Int(pointer.pointee.size))
  }
  /// The packet carries skip samples side data (`AV_PKT_DATA_SKIP_SAMPLES`), even zeros.
  package var hasSkipSamples: Bool {
    var size = 0
    return av_packet_get_side_data(pointer, AV_PKT_DATA_SKIP_SAMPLES, &size) != nil
  }
  /// The packet holds no data (Ogg's end-of-stream packet).
  package var isEmpty: Bool { pointer.pointee.size == 0 }
  /// Duration in the stream's time base (0 when unknown).
  package var duration: Int64 {
    get { pointer.pointee.duration }
    set { pointer.pointee.duration = newValue }
  }
  /// Converts `pts`, `dts` and `duration` from one time base to another
  /// (`av_packet_rescale_ts`, rounding to the nearest).
  package func rescaleTimestamps(from source: Rational, to destination: Rational) {
    av_packet_rescale_ts(pointer, source.av, destination.av)
  }
  /// Moves `pts` and `dts` (those that are known) by `offset` ticks.
  package func shiftTimestamps(by offset: Int64) {
    if pointer.pointee.pts != mt_nopts_value { pointer.pointee.pts += offset }
    if pointer.pointee.dts != mt_nopts_value { pointer.pointee.dts += offset }
  }
  /// The demuxer marks the packet as not presented (outside an MP4 edit list): decoders still
  /// decode it, for the frames that follow, but drop what it yields.
  package var isDiscarded: Bool { pointer.pointee.flags & AV_PKT_FLAG_DISCARD != 0 }
  /// The packet starts with a keyframe.
  package var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
  /// The packet's skip samples side data (`AV_PKT_DATA_SKIP_SAMPLES`): samples not presented at
  /// its start and at its end; nil when it has none.
  package var skipSamples: (start: UInt32, end: UInt32)? {
    var size = 0
    guard let data = av_packet_get_side_data(pointer, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 8
    else { return nil }
    let raw = UnsafeRawPointer(data)
    return (
      UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)),
      UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
    )
  }
  /// Makes this packet a new reference to `other`'s data and properties (`av_packet_ref`),
  /// dropping what it held.
  ///
  /// - Returns: false when out of memory.
  package func reference(_ other: Packet) -> Bool {
    av_packet_unref(pointer)
    return av_packet_ref(pointer, other.pointer) >= 0
  }
  /// The packet is marked corrupt by the demuxer.
  package var isCorrupt: Bool { pointer.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 }
}

/// An owned `AVFrame` (a picture or a run of audio samples), freed with `av_frame_free`. Reused
/// across decodes, graph pulls and scales; `unref` between them. Its properties and pixels are
/// read and set through `Frame+Access.swift`.
package final class Frame {
  let pointer: UnsafeMutablePointer<AVFrame>

  package init() {
    guard let frame = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
    pointer = frame
  }

  deinit {
    var frame: UnsafeMutablePointer<AVFrame>? = pointer
    av_frame_free(&frame)
  }

  /// The picture is interlaced (two fields).
  package var isInterlaced: Bool { pointer.pointee.interlaced_frame != 0 }
  /// The picture's top field is displayed first.
  package var isTopFieldFirst: Bool { pointer.pointee.top_field_first != 0 }

  /// Drops the frame's buffers so it can be decoded into again.
  package func unref() { av_frame_unref(pointer) }
}
