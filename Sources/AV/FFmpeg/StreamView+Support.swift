import CFFmpeg

extension StreamView {
  /// FFmpeg (this build) has a decoder for the stream's codec: false for a codec it does not
  /// know at all (`none`, "binary data") and for one it names but cannot decode (MPEG-H 3D
  /// audio in FFmpeg 5.1).
  package var hasDecoder: Bool { avcodec_find_decoder(parameters.codec_id) != nil }

  /// The container's raw codec tag: an MP4 sample entry's FourCC, an MPEG-TS `stream_type`.
  package var codecTag: UInt32 { parameters.codec_tag }
}
