import CFFmpeg

extension InputFile {
  /// The first audio or video stream whose packets are encrypted (Common Encryption, `cenc` or
  /// `cbcs`), found in the first `limit` packets: FFmpeg's MP4 demuxer hides the `encv`/`enca`
  /// sample entry behind the original format's tag and marks each encrypted packet with
  /// encryption info side data (`AV_PKT_DATA_ENCRYPTION_INFO`). Reads packets: open the input
  /// afresh for any other use.
  ///
  /// - Returns: the stream's index, nil when no packet read is encrypted.
  package func firstEncryptedStream(limit: Int = 32) -> Int? {
    let packet = Packet()
    for _ in 0..<limit {
      guard (try? read(into: packet)) == true else { return nil }
      let index = packet.streamIndex
      let stream = view(index)
      if (stream.isAudio || stream.isVideoType),
        av_packet_get_side_data(packet.pointer, AV_PKT_DATA_ENCRYPTION_INFO, nil) != nil
      {
        return index
      }
      packet.unref()
    }
    return nil
  }
}
