import CFFmpeg
import CFFmpeg.Filter
import MediaCore

/// libavfilter's functions, loaded with dlopen the first time a graph is built (Swift runs a
/// global's initializer once, thread-safely). Tools that never filter never load libavfilter
/// and the ~30 libraries behind it (~11 ms per process start, measured); the library is never
/// closed, so the table stays valid for the life of the process.
private let libavfilter: Result<LibAVFilter, FFmpegError> = LibAVFilter.load()

/// The loaded table of libavfilter functions.
struct LibAVFilter: Sendable {
  let api: mt_avfilter

  static func load() -> Result<LibAVFilter, FFmpegError> {
    var api = mt_avfilter()
    var error = [CChar](repeating: 0, count: 512)
    guard mt_avfilter_load(&api, &error, error.count) == 0 else {
      return .failure(
        FFmpegError(
          code: mt_averror(ENOSYS),
          message: "libavfilter could not be loaded: \(String(cBuffer: error))"))
    }
    return .success(LibAVFilter(api: api))
  }

  /// The table, or why libavfilter could not be loaded.
  ///
  /// - Throws: `FFmpegError` (`ENOSYS`) naming the reason (dlerror's text).
  static func shared() throws(FFmpegError) -> mt_avfilter {
    switch libavfilter {
    case .success(let library): return library.api
    case .failure(let error): throw error
    }
  }
}

/// A libavfilter graph (`AVFilterGraph`), freed with `avfilter_graph_free`, built from a filter
/// description with named buffer sources and sinks: frames pushed into sources, frames pulled
/// from sinks.
///
/// Add the sources and sinks, then `configure` with a description whose labels name them:
/// `[a][b]xfade=transition=fade:duration=1:offset=2[out]`. With one source named `in` and one
/// sink named `out` the labels may be left out (`scale=160:120,format=yuv420p`).
package final class FilterGraph {
  /// A buffer source of the graph (a `buffer` or `abuffer` filter).
  package struct Source: Hashable, Sendable {
    let graph: ObjectIdentifier
    let index: Int
    /// The label the description uses for it.
    package let name: String
  }

  /// A buffer sink of the graph (a `buffersink` or `abuffersink` filter).
  package struct Sink: Hashable, Sendable {
    let graph: ObjectIdentifier
    let index: Int
    /// The label the description uses for it.
    package let name: String
  }

  /// What `pull` found.
  package enum PullResult: Sendable, Equatable {
    /// A frame: the frame passed to `pull` holds it.
    case frame
    /// No frame yet: push more input (into the source `neediestSource` names, when there are
    /// several).
    case needsInput
    /// The sink will give no more frames.
    case end
  }

  private let api: mt_avfilter
  private var graph: UnsafeMutablePointer<AVFilterGraph>?
  private var sources: [(name: String, context: UnsafeMutablePointer<AVFilterContext>)] = []
  private var sinks: [(name: String, context: UnsafeMutablePointer<AVFilterContext>)] = []
  private var configured = false
  /// Frame sizes for audio sinks, set once configured: `av_buffersink_set_frame_size` writes into
  /// the sink's input link, which exists only then (before, it dereferences NULL).
  private var frameSizes: [(context: UnsafeMutablePointer<AVFilterContext>, samples: Int)] = []

  /// An empty graph. Loads libavfilter on first use.
  ///
  /// - Parameter threads: threads for the filters that slice their work (0: one per core).
  /// - Throws: `FFmpegError`: `ENOSYS` when libavfilter cannot be loaded, `ENOMEM`.
  package init(threads: Int = 0) throws(FFmpegError) {
    api = try LibAVFilter.shared()
    guard let graph = api.graph_alloc() else { throw .posix(ENOMEM) }
    graph.pointee.nb_threads = Int32(threads)
    self.graph = graph
  }

  deinit {
    api.graph_free(&graph)
  }

  /// Adds a video source named `name` taking frames described by `parameters`.
  ///
  /// - Throws: `FFmpegError` for invalid parameters, or once the graph is configured.
  package func addVideoSource(
    name: String, _ parameters: VideoParameters
  ) throws(FFmpegError) -> Source {
    let context = try allocate("buffer", name: "src_\(name)")
    guard let buffer = api.buffersrc_parameters_alloc() else { throw .posix(ENOMEM) }
    defer { av_free(buffer) }
    buffer.pointee.format = parameters.pixelFormat.rawValue
    buffer.pointee.width = Int32(parameters.width)
    buffer.pointee.height = Int32(parameters.height)
    buffer.pointee.time_base = parameters.timeBase.av
    buffer.pointee.sample_aspect_ratio = parameters.sampleAspectRatio.av
    if let rate = parameters.frameRate { buffer.pointee.frame_rate = rate.av }
    try check(api.buffersrc_parameters_set(context, buffer))
    try check(api.init_str(context, nil))
    sources.append((name, context))
    return Source(graph: ObjectIdentifier(self), index: sources.count - 1, name: name)
  }

  /// Adds an audio source named `name` taking frames described by `parameters`.
  ///
  /// - Throws: `FFmpegError` for invalid parameters, or once the graph is configured.
  package func addAudioSource(
    name: String, _ parameters: AudioParameters
  ) throws(FFmpegError) -> Source {
    let context = try allocate("abuffer", name: "src_\(name)")
    guard let buffer = api.buffersrc_parameters_alloc() else { throw .posix(ENOMEM) }
    defer {
      av_channel_layout_uninit(&buffer.pointee.ch_layout)
      av_free(buffer)
    }
    buffer.pointee.format = parameters.sampleFormat.rawValue
    buffer.pointee.sample_rate = Int32(parameters.sampleRate)
    buffer.pointee.time_base = parameters.timeBase.av
    buffer.pointee.ch_layout = parameters.channelLayout.ffmpeg
    try check(api.buffersrc_parameters_set(context, buffer))
    try check(api.init_str(context, nil))
    sources.append((name, context))
    return Source(graph: ObjectIdentifier(self), index: sources.count - 1, name: name)
  }

  /// Adds a video sink named `name` that delivers one of `pixelFormats` (empty: any; the graph
  /// converts to the first it can).
  ///
  /// - Throws: `FFmpegError`, or once the graph is configured.
  package func addVideoSink(
    name: String, pixelFormats: [PixelFormat] = []
  ) throws(FFmpegError) -> Sink {
    let context = try allocate("buffersink", name: "sink_\(name)")
    if !pixelFormats.isEmpty {
      try setList("pix_fmts", pixelFormats.map { $0.rawValue }, on: context)
    }
    try check(api.init_str(context, nil))
    sinks.append((name, context))
    return Sink(graph: ObjectIdentifier(self), index: sinks.count - 1, name: name)
  }

  /// Adds an audio sink named `name` that delivers one of the formats, rates and layouts given
  /// (an empty list: any).
  ///
  /// - Parameter frameSize: samples per frame (what an encoder without variable frame sizes
  ///   needs: `CodecEncoder.frameSize`); the last frame is shorter. Nil: as the graph makes them.
  /// - Throws: `FFmpegError`, or once the graph is configured.
  package func addAudioSink(
    name: String, sampleFormats: [SampleFormat] = [], sampleRates: [Int] = [],
    channelLayouts: [ChannelLayout] = [], frameSize: Int? = nil
  ) throws(FFmpegError) -> Sink {
    let context = try allocate("abuffersink", name: "sink_\(name)")
    if !sampleFormats.isEmpty {
      try setList("sample_fmts", sampleFormats.map { $0.rawValue }, on: context)
    }
    if !sampleRates.isEmpty {
      try setList("sample_rates", sampleRates.map { Int32($0) }, on: context)
    }
    if !channelLayouts.isEmpty {
      let names = channelLayouts.map(\.name).joined(separator: "|")
      try check(av_opt_set(context, "ch_layouts", names, AV_OPT_SEARCH_CHILDREN))
    }
    try check(api.init_str(context, nil))
    if let frameSize { frameSizes.append((context, frameSize)) }
    sinks.append((name, context))
    return Sink(graph: ObjectIdentifier(self), index: sinks.count - 1, name: name)
  }

  private func allocate(
    _ filter: String, name: String
  ) throws(FFmpegError) -> UnsafeMutablePointer<AVFilterContext> {
    guard !configured else {
      throw FFmpegError(code: mt_averror(EINVAL), message: "the graph is already configured")
    }
    guard let definition = api.get_by_name(filter) else {
      throw FFmpegError(code: mt_averror_filter_not_found, message: "no filter \(filter)")
    }
    guard let context = api.graph_alloc_filter(graph, definition, name) else {
      throw .posix(ENOMEM)
    }
    return context
  }

  /// Sets a binary list option (`pix_fmts`, `sample_fmts`, `sample_rates`): what
  /// `av_opt_set_int_list` does, a macro Swift cannot call.
  private func setList(
    _ option: String, _ values: [Int32], on context: UnsafeMutablePointer<AVFilterContext>
  ) throws(FFmpegError) {
    let result = values.withUnsafeBytes { bytes in
      av_opt_set_bin(
        context, option, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
        Int32(bytes.count), AV_OPT_SEARCH_CHILDREN)
    }
    try check(result)
  }

  /// Parses `description` between the sources and sinks (by label) and configures the graph:
  /// formats are negotiated and converters inserted.
  ///
  /// - Throws: `FFmpegError`: a syntax error, an unknown filter or option, a label that names no
  ///   source or sink, a pad left unconnected, or formats that cannot be negotiated (libavfilter
  ///   logs the details).
  package func configure(_ description: String) throws(FFmpegError) {
    guard !configured else {
      throw FFmpegError(code: mt_averror(EINVAL), message: "the graph is already configured")
    }
    // The description's open inputs are fed by our sources' outputs, and its open outputs feed
    // our sinks' inputs (libavfilter's "outputs" and "inputs" lists, in that order).
    var outputs = try makeList(sources)
    var inputs: UnsafeMutablePointer<AVFilterInOut>?
    do {
      inputs = try makeList(sinks)
    } catch {
      api.inout_free(&outputs)
      throw error
    }
    let result = api.graph_parse_ptr(graph, description, &inputs, &outputs, nil)
    api.inout_free(&inputs)
    api.inout_free(&outputs)
    if result < 0 {
      throw FFmpegError(
        code: result,
        message: "\(FFmpegError(code: result).message) in the graph \"\(description)\"")
    }
    let configuration = api.graph_config(graph, nil)
    if configuration < 0 {
      throw FFmpegError(
        code: configuration,
        message:
          "\(FFmpegError(code: configuration).message) configuring the graph \"\(description)\"")
    }
    for (context, samples) in frameSizes { api.buffersink_set_frame_size(context, UInt32(samples)) }
    configured = true
  }

  private func makeList(
    _ ends: [(name: String, context: UnsafeMutablePointer<AVFilterContext>)]
  ) throws(FFmpegError) -> UnsafeMutablePointer<AVFilterInOut>? {
    var head: UnsafeMutablePointer<AVFilterInOut>? = nil
    for end in ends.reversed() {
      guard let item = api.inout_alloc(), let name = av_strdup(end.name) else {
        api.inout_free(&head)
        throw .posix(ENOMEM)
      }
      item.pointee.name = name
      item.pointee.filter_ctx = end.context
      item.pointee.pad_idx = 0
      item.pointee.next = head
      head = item
    }
    return head
  }

  /// Pushes `frame` into `source` (its timestamps in the source's time base); nil marks the end
  /// of the source's input. The frame is referenced, not taken: it may be reused at once.
  ///
  /// - Throws: `FFmpegError` from the filters the frame went through.
  package func push(_ frame: Frame?, to source: Source) throws(FFmpegError) {
    try requireConfigured(source.graph)
    try check(
      api.buffersrc_add_frame_flags(
        sources[source.index].context, frame?.pointer, mt_buffersrc_flag_keep_ref))
  }

  /// Marks the end of `source`'s input at `timestamp` (in its time base: the end of the last
  /// frame), so filters that need the end time (`apad`, `fps`) get it.
  ///
  /// - Throws: `FFmpegError` from the filters.
  package func close(_ source: Source, at timestamp: Int64) throws(FFmpegError) {
    try requireConfigured(source.graph)
    try check(api.buffersrc_close(sources[source.index].context, timestamp, 0))
  }

  /// Pulls the next frame from `sink` into `frame` (unreferenced first).
  ///
  /// - Returns: `.frame`, `.needsInput` or `.end`.
  /// - Throws: `FFmpegError` from the filters.
  package func pull(from sink: Sink, into frame: Frame) throws(FFmpegError) -> PullResult {
    try requireConfigured(sink.graph)
    frame.unref()
    let result = api.buffersink_get_frame_flags(sinks[sink.index].context, frame.pointer, 0)
    if result == mt_averror_eagain { return .needsInput }
    if result == mt_averror_eof { return .end }
    try check(result)
    return .frame
  }

  /// The source that most often had nothing when the graph asked for input: the one to push
  /// into next when `pull` says `.needsInput` (nil when none was asked).
  package var neediestSource: Source? {
    var best: (index: Int, count: UInt32)?
    for (index, source) in sources.enumerated() {
      let count = api.buffersrc_get_nb_failed_requests(source.context)
      if count > 0 && count > (best?.count ?? 0) { best = (index, count) }
    }
    return best.map {
      Source(graph: ObjectIdentifier(self), index: $0.index, name: sources[$0.index].name)
    }
  }

  /// What `sink` delivers (video), once configured.
  package func videoParameters(of sink: Sink) -> VideoParameters {
    precondition(sink.graph == ObjectIdentifier(self), "a sink of another graph")
    let context = sinks[sink.index].context
    return VideoParameters(
      width: Int(api.buffersink_get_w(context)), height: Int(api.buffersink_get_h(context)),
      pixelFormat: PixelFormat(AVPixelFormat(rawValue: api.buffersink_get_format(context))),
      timeBase: Rational(api.buffersink_get_time_base(context)) ?? Rational(1, 1)!,
      sampleAspectRatio: Rational.nonZero(api.buffersink_get_sample_aspect_ratio(context))
        ?? Rational(1, 1)!,
      frameRate: Rational.nonZero(api.buffersink_get_frame_rate(context)))
  }

  /// What `sink` delivers (audio), once configured.
  package func audioParameters(of sink: Sink) -> AudioParameters {
    precondition(sink.graph == ObjectIdentifier(self), "a sink of another graph")
    let context = sinks[sink.index].context
    var layout = AVChannelLayout()
    defer { av_channel_layout_uninit(&layout) }
    _ = api.buffersink_get_ch_layout(context, &layout)
    return AudioParameters(
      sampleRate: Int(api.buffersink_get_sample_rate(context)),
      sampleFormat: SampleFormat(AVSampleFormat(rawValue: api.buffersink_get_format(context))),
      channelLayout: ChannelLayout(layout),
      timeBase: Rational(api.buffersink_get_time_base(context)) ?? Rational(1, 1)!)
  }

  /// The time base of `sink`'s frames, once configured.
  package func timeBase(of sink: Sink) -> Rational {
    precondition(sink.graph == ObjectIdentifier(self), "a sink of another graph")
    return Rational(api.buffersink_get_time_base(sinks[sink.index].context)) ?? Rational(1, 1)!
  }

  /// libavfilter's description of the configured graph (filters, links, formats).
  package var dump: String {
    guard let text = api.graph_dump(graph, nil) else { return "" }
    defer { av_free(text) }
    return String(cString: text)
  }

  /// Throws unless the graph is configured and `owner` (a source's or sink's graph) is this one.
  private func requireConfigured(_ owner: ObjectIdentifier) throws(FFmpegError) {
    guard owner == ObjectIdentifier(self) else {
      throw FFmpegError(code: mt_averror(EINVAL), message: "the source or sink is another graph's")
    }
    guard configured else {
      throw FFmpegError(code: mt_averror(EINVAL), message: "the graph is not configured")
    }
  }
}
