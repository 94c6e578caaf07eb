import CFFmpeg

/// An `AVDictionary` of options built from Swift pairs for one call, freed when done. FFmpeg's
/// `avcodec_open2` and `avformat_write_header` leave the options nothing took in the dictionary
/// and succeed, so a misspelt option would be silently ignored: `checkConsumed` makes it an error
/// naming the option.
struct OptionDictionary: ~Copyable {
  var pointer: OpaquePointer?

  /// A dictionary holding `options` (set in key order, so errors are deterministic).
  init(_ options: [String: String]) {
    pointer = nil
    for key in options.keys.sorted() { av_dict_set(&pointer, key, options[key], 0) }
  }

  deinit {
    var owned = pointer
    av_dict_free(&owned)
  }

  /// The keys the call left in the dictionary: the options nothing recognized, in order.
  var remainingKeys: [String] { metadataDictionary(pointer).keys.sorted() }

  /// Throws when the call left an option unused.
  ///
  /// - Throws: `FFmpegError` (`AVERROR_OPTION_NOT_FOUND`) naming the options and `what` refused
  ///   them.
  func checkConsumed(by what: String) throws(FFmpegError) {
    let keys = remainingKeys
    guard !keys.isEmpty else { return }
    throw FFmpegError(
      code: mt_averror_option_not_found,
      message: "\(what) does not recognize the option(s) \(keys.joined(separator: ", "))")
  }
}
