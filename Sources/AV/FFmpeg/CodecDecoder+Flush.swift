import CFFmpeg

extension CodecDecoder {
  /// Drops every frame and packet the decoder holds (`avcodec_flush_buffers`): what a seek
  /// needs, so that decoding restarts from the next keyframe read.
  package func flush() { avcodec_flush_buffers(pointer) }
}
