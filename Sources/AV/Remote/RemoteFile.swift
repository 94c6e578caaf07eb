import CCurl
import MediaCore
import OutputKit

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// libcurl's functions, loaded with dlopen the first time a remote input is opened (linked, it
/// and the libraries it pulls in would load at every start of every tool); never closed.
nonisolated(unsafe) private let libcurl: Result<UnsafePointer<mt_curl>, RemoteError> = {
  let api = UnsafeMutablePointer<mt_curl>.allocate(capacity: 1)
  api.initialize(to: mt_curl())
  var error = [CChar](repeating: 0, count: 512)
  guard mt_curl_load(api, &error, error.count) == 0 else {
    let text = String(
      decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return .failure(.connection("libcurl could not be loaded: \(text)"))
  }
  return .success(UnsafePointer(api))
}()

/// One `http:` or `https:` resource read with bounded range requests (`Range: bytes=A-B`) over
/// one persistent connection (libcurl), for `ByteSource`.
///
/// - Readahead: a request that continues a run of bytes already fetched asks for twice the
///   previous request of that run, up to `maxWindow`; any other starts at `initialWindow`
///   (headers sit at the start or the end of a file; a scan or an extraction reads on).
/// - A cache of the fetched ranges (`cacheLimit` bytes, least recently used dropped): a seek
///   back into bytes already read costs nothing, and no request asks again for cached bytes.
/// - Retries: a connection reset, a stall (`stallSeconds` without a byte), a timeout and a 5xx,
///   408 or 429 answer are retried up to `attempts` times, waiting `backoff · 2^n` (at most
///   `backoffCap`) times a random factor in [0.5, 1]; a retry resumes at the exact byte the last
///   attempt stopped at.
/// - Every answer is checked: a 206 must carry the `Content-Range` asked for and the size and
///   validator (ETag, else Last-Modified) of the first answer; anything else is
///   `RemoteError.changed`, and none of its bytes is used.
/// - A server that answers the first request with `200` and the whole body (no ranges) is read
///   as a stream, in order, holding at most `streamBuffer` bytes (`ignoresRanges`).
/// - Redirects are followed by hand: only to `http:`/`https:`, at most `redirects`; a redirect
///   to another origin drops the request headers. Later requests go to the last URL.
package final class RemoteFile {
  /// The reader's constants.
  package enum Limits {
    /// The first request of a run.
    package static let initialWindow: Int64 = 64 << 10
    /// The largest request.
    package static let maxWindow: Int64 = 4 << 20
    /// Bytes of fetched ranges kept.
    package static let cacheLimit = 8 << 20
    /// Attempts per request (the first included).
    package static let attempts = 5
    /// The first wait before a retry, in seconds; doubled for each further one.
    package static let backoff = 0.2
    /// The longest wait before a retry, in seconds.
    package static let backoffCap = 4.0
    /// Seconds without a byte before an attempt is given up (and retried); a third of the
    /// input's time limit when that is shorter, so a retry fits within `--timeout`.
    package static let stallSeconds = 15.0
    /// Seconds a connection may take to open.
    package static let connectSeconds = 15
    /// Redirects followed per request.
    package static let redirects = 5
    /// Bytes of a range-less body held ahead of the reader.
    package static let streamBuffer = 1 << 20
  }

  private let api: UnsafePointer<mt_curl>
  private let easy: OpaquePointer
  private let multi: OpaquePointer
  private var headerList: UnsafeMutablePointer<curl_slist>?
  /// Where requests go (the last redirect's target).
  private var url: String
  private let origin: String
  private let deadline: Double?
  private let maxBytes: Int64?
  /// Seconds without a byte before an attempt is retried (`Limits.stallSeconds`, or a third of
  /// the time left at the start when shorter).
  private let stallSeconds: Double

  /// The file's size, from the first answer (nil for a range-less body of unknown length).
  package private(set) var size: Int64?
  /// The server answered the first range request with the whole body: read as a stream.
  package private(set) var ignoresRanges = false
  /// Body bytes received, of every answer (what the network carried, headers aside).
  package private(set) var transferred: Int64 = 0
  /// Requests sent (redirects and retries included).
  package private(set) var requests = 0
  /// Attempts that were retried.
  package private(set) var retries = 0
  /// A read stopped at `maxBytes`.
  package private(set) var hitByteCap = false
  /// The first answer's ETag (else Last-Modified): every later answer must carry the same.
  private var validator: String?

  // MARK: The cache

  private struct Segment {
    var start: Int64
    var bytes: [UInt8]
    /// The request size that fetched it (the next one of the run is twice this).
    var window: Int64
    var used: UInt64
    var end: Int64 { start + Int64(bytes.count) }
  }
  private var segments: [Segment] = []
  /// Where each range fetched so far starts, cached or dropped: a request stops before the next
  /// one (a sequential read reaching an index fetched earlier does not fetch it again).
  private var fetchedStarts: Set<Int64> = []
  private var cachedBytes = 0
  private var useClock: UInt64 = 0

  // MARK: The transfer in flight

  private struct Response {
    var status = 0
    var contentRange: (start: Int64, end: Int64, total: Int64?)?
    var contentRangeText: String?
    var contentLength: Int64?
    var etag: String?
    var lastModified: String?
    /// The headers were judged (on the first body byte).
    var judged = false
  }
  private var response = Response()
  /// The first byte asked for, and the last (nil: the whole body).
  private var asked: (start: Int64, end: Int64?) = (0, nil)
  /// A range-less answer is acceptable (the first request).
  private var acceptsWholeBody = false
  /// The body is read as it comes (a range-less answer).
  private var streaming = false
  /// Body bytes received and not yet taken, from `receivedStart`.
  private var received: [UInt8] = []
  private var receivedStart = 0
  /// Bytes of a non-2xx answer's body thrown away.
  private var discarded = 0
  /// Why the data callback stopped the transfer.
  private var rejection: RemoteError?
  private var paused = false
  private var active = false
  /// The stream's transfer ended (cleanly or not).
  private var streamEnded = false
  private var lastProgress = 0.0
  /// Where the stream is (the file offset of the next byte `read` gives).
  private var streamPosition: Int64 = 0

  /// Opens `url` and reads its first bytes (the first request): the size, whether the server
  /// honours ranges, the validator.
  ///
  /// - Parameters:
  ///   - headers: sent with every request to the URL's origin.
  ///   - deadline: `MonotonicClock` seconds past which everything stops (`--timeout`).
  ///   - maxBytes: body bytes that may be received in all (`--max-bytes`).
  /// - Throws: `RemoteError`.
  package init(url: String, headers: [HTTPHeader], deadline: Double?, maxBytes: Int64?)
    throws(RemoteError)
  {
    let api: UnsafePointer<mt_curl>
    switch libcurl {
    case .success(let loaded): api = loaded
    case .failure(let error): throw error
    }
    guard let easy = api.pointee.easy_init(), let multi = api.pointee.multi_init() else {
      throw .connection("libcurl could not make a handle")
    }
    self.api = api
    self.easy = easy
    self.multi = multi
    self.url = url
    self.origin = Self.origin(of: url)
    self.deadline = deadline
    self.maxBytes = maxBytes
    stallSeconds = min(
      Limits.stallSeconds,
      deadline.map { max(0.5, ($0 - MonotonicClock.seconds()) / 3) } ?? .infinity)
    for header in headers {
      headerList = api.pointee.slist_append(headerList, "\(header.name): \(header.value)")
    }
    configure()
    try open()
  }

  deinit {
    if active { _ = api.pointee.multi_remove_handle(multi, easy) }
    api.pointee.easy_cleanup(easy)
    _ = api.pointee.multi_cleanup(multi)
    api.pointee.slist_free_all(headerList)
  }

  private func configure() {
    let opaque = Unmanaged.passUnretained(self).toOpaque()
    _ = mt_curl_set_long(api, easy, CURLOPT_NOSIGNAL, 1)
    _ = mt_curl_set_string(api, easy, CURLOPT_PROTOCOLS_STR, "http,https")
    _ = mt_curl_set_string(api, easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
    _ = mt_curl_set_long(api, easy, CURLOPT_FOLLOWLOCATION, 0)
    _ = mt_curl_set_long(api, easy, CURLOPT_CONNECTTIMEOUT, Limits.connectSeconds)
    _ = mt_curl_set_string(api, easy, CURLOPT_USERAGENT, "MediaTools")
    _ = mt_curl_set_list(api, easy, CURLOPT_HTTPHEADER, headerList)
    _ = mt_curl_set_pointer(api, easy, CURLOPT_WRITEDATA, opaque)
    _ = mt_curl_set_pointer(api, easy, CURLOPT_HEADERDATA, opaque)
    _ = mt_curl_set_callback(
      api, easy, CURLOPT_WRITEFUNCTION,
      { data, size, count, opaque in
        guard let opaque else { return 0 }
        let file = Unmanaged<RemoteFile>.fromOpaque(opaque).takeUnretainedValue()
        return file.take(UnsafeRawBufferPointer(start: data, count: size * count))
      })
    _ = mt_curl_set_callback(
      api, easy, CURLOPT_HEADERFUNCTION,
      { data, size, count, opaque in
        guard let opaque else { return 0 }
        let file = Unmanaged<RemoteFile>.fromOpaque(opaque).takeUnretainedValue()
        file.header(UnsafeRawBufferPointer(start: data, count: size * count))
        return size * count
      })
  }

  /// `scheme://host:port` of a URL, lowercased (what a redirect must keep to keep the headers).
  private static func origin(of url: String) -> String {
    let lower = url.lowercased()
    guard let colon = lower.firstIndex(of: ":") else { return lower }
    let scheme = lower[..<colon]
    let rest = lower[lower.index(after: colon)...].drop { $0 == "/" }
    let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    let hostPort = authority.split(separator: "@").last.map(String.init) ?? ""
    return scheme + "://" + hostPort
  }

  // MARK: - Reading

  /// Reads up to `buffer.count` bytes at `offset`: from the cache, else with one request (a
  /// stream: only at the stream's position, in order).
  ///
  /// - Returns: the byte count; 0 at the end of the file or at the byte cap (`hitByteCap`).
  /// - Throws: `RemoteError`.
  package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer)
    throws(RemoteError) -> Int
  {
    guard buffer.count > 0 else { return 0 }
    if ignoresRanges { return try readStream(at: offset, into: buffer) }
    guard let size, offset < size, offset >= 0 else { return 0 }
    if let index = segments.firstIndex(where: { $0.start <= offset && offset < $0.end }) {
      return serve(index, at: offset, into: buffer)
    }
    var window = Limits.initialWindow
    if let run = segments.first(where: { $0.end == offset }) {
      window = min(Limits.maxWindow, run.window * 2)
    }
    window = max(window, Int64(buffer.count))
    var end = min(size, offset + window) - 1
    if let next = fetchedStarts.lazy.filter({ $0 > offset }).min() {
      end = min(end, next - 1)
    }
    if let maxBytes {
      let room = maxBytes - transferred
      guard room > 0 else {
        hitByteCap = true
        return 0
      }
      end = min(end, offset + room - 1)
    }
    let bytes = try fetch(from: offset, to: end)
    insert(Segment(start: offset, bytes: bytes, window: window, used: 0))
    guard let index = segments.firstIndex(where: { $0.start == offset }) else { return 0 }
    return serve(index, at: offset, into: buffer)
  }

  private func serve(_ index: Int, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer)
    -> Int
  {
    useClock += 1
    segments[index].used = useClock
    let skip = Int(offset - segments[index].start)
    let count = min(buffer.count, segments[index].bytes.count - skip)
    segments[index].bytes.withUnsafeBytes {
      buffer.baseAddress!.copyMemory(from: $0.baseAddress! + skip, byteCount: count)
    }
    return count
  }

  private func insert(_ segment: Segment) {
    guard !segment.bytes.isEmpty else { return }
    if fetchedStarts.count < 4096 { fetchedStarts.insert(segment.start) }
    var segment = segment
    useClock += 1
    segment.used = useClock
    let index = segments.firstIndex { $0.start > segment.start } ?? segments.endIndex
    segments.insert(segment, at: index)
    cachedBytes += segment.bytes.count
    while cachedBytes > Limits.cacheLimit, segments.count > 1,
      let oldest = segments.indices.filter({ segments[$0].start != segment.start })
        .min(by: { segments[$0].used < segments[$1].used })
    {
      cachedBytes -= segments[oldest].bytes.count
      segments.remove(at: oldest)
    }
  }

  // MARK: - Requests

  /// The first request: `bytes=0-(initialWindow - 1)`. A `206` gives the size; a `200` with the
  /// whole body is kept whole when it is small, else read as a stream.
  private func open() throws(RemoteError) {
    var end = Limits.initialWindow - 1
    if let maxBytes { end = min(end, maxBytes - 1) }
    let bytes = try fetch(from: 0, to: end, first: true)
    if streaming {
      ignoresRanges = true
      return
    }
    insert(Segment(start: 0, bytes: bytes, window: Limits.initialWindow, used: 0))
  }

  /// Fetches bytes `start...end` (bounded by the size once known), retrying and resuming at
  /// the exact byte as needed. On the first request a range-less `200` answer is accepted: the
  /// whole body when it ends within the window (then `size` is its length), else the transfer
  /// stays open and `streaming` is set.
  private func fetch(from start: Int64, to end: Int64, first: Bool = false) throws(RemoteError)
    -> [UInt8]
  {
    var data: [UInt8] = []
    data.reserveCapacity(Int(end - start + 1))
    var attempt = 1
    var redirects = 0
    // The last byte: `end`, or the file's last byte when the first answer says it ends sooner.
    var last = end
    while true {
      let from = start + Int64(data.count)
      begin(from: from, to: last, acceptsWholeBody: first && data.isEmpty)
      let outcome = drive { self.streaming && self.available >= Int(end - start + 1) }
      if let rejection {
        finish()
        throw rejection
      }
      if streaming {
        switch outcome {
        case .ready: return []
        case .finished(CURLE_OK) where available <= Int(end - start + 1):
          // The whole body came, no larger than the window: a small file, in one answer.
          streaming = false
          size = Int64(available)
          return Array(received[receivedStart...])
        case .finished(CURLE_OK):
          // All of a larger body came at once (the server was fast): a stream already ended.
          streamEnded = true
          return []
        default: break  // retried from the start: nothing was used
        }
        streaming = false
      } else if response.status == 206, response.judged {
        data.append(contentsOf: received[receivedStart...])
        if let askedEnd = asked.end { last = min(last, askedEnd) }
      }
      let failure: String
      var lastStatus: Int?
      switch outcome {
      case .stopped(let error):
        throw error
      case .ready:
        failure = "an unexpected state"
      case .stalled:
        failure = "no data for \(Int(stallSeconds.rounded(.up))) s"
      case .finished(let code):
        // An error page cut short by `take` still has its status.
        let status = response.status
        if code == CURLE_OK || (code == CURLE_WRITE_ERROR && status >= 300) {
          switch status {
          case 206:
            if Int64(data.count) == last - start + 1 { return data }
            failure = "the answer ended early"
          case 301, 302, 303, 307, 308:
            try redirect(count: &redirects)
            continue
          case 404, 410: throw .notFound(status: status)
          case 401, 403: throw .forbidden(status: status)
          case 416: throw .rangeNotSatisfiable
          case 408, 429, 500...599:
            failure = "HTTP \(status)"
            lastStatus = status
          default: throw .status(status)
          }
        } else if Self.retried.contains(code) {
          failure = message(code)
        } else {
          throw .connection(message(code))
        }
      }
      guard attempt < Limits.attempts else {
        if let lastStatus { throw .status(lastStatus) }
        throw .connection("\(failure) (\(attempt) attempts)")
      }
      try wait(before: attempt)
      attempt += 1
      retries += 1
    }
  }

  /// libcurl's failures that a new attempt may not meet.
  private static let retried: Set<CURLcode> = [
    CURLE_COULDNT_CONNECT, CURLE_PARTIAL_FILE, CURLE_OPERATION_TIMEDOUT, CURLE_SEND_ERROR,
    CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SSL_CONNECT_ERROR,
  ]

  private func message(_ code: CURLcode) -> String {
    guard let text = api.pointee.easy_strerror(code) else { return "libcurl error \(code)" }
    return String(cString: text).lowercased()
  }

  /// Follows a 3xx answer's `Location` (as libcurl resolved it): http/https only, a limited
  /// number, the headers dropped when the origin changes.
  private func redirect(count: inout Int) throws(RemoteError) {
    count += 1
    guard count <= Limits.redirects else {
      throw .redirect("more than \(Limits.redirects) redirects")
    }
    var target: UnsafeMutablePointer<CChar>? = nil
    _ = mt_curl_get_string(api, easy, CURLINFO_REDIRECT_URL, &target)
    guard let target else { throw .redirect("a redirect without a usable Location") }
    let next = String(cString: target)
    guard InputSource.isRemote(next) else {
      let scheme = next.prefix { $0 != ":" }.prefix(16)
      throw .redirect("a redirect to a \(scheme.isEmpty ? "relative" : String(scheme)): URL")
    }
    if Self.origin(of: next) != origin {
      _ = mt_curl_set_list(api, easy, CURLOPT_HTTPHEADER, nil)
    }
    url = next
  }

  /// Sleeps before attempt `attempt + 1`: exponential, with jitter, never past the deadline.
  private func wait(before attempt: Int) throws(RemoteError) {
    let base = min(Limits.backoffCap, Limits.backoff * Double(1 << min(attempt - 1, 16)))
    let until = MonotonicClock.seconds() + base * Double.random(in: 0.5...1.0)
    if let deadline, until >= deadline { throw .timedOut }
    while MonotonicClock.seconds() < until {
      if Interruption.isRequested { throw .interrupted }
      usleep(20_000)
    }
  }

  // MARK: - The transfer

  private var available: Int { received.count - receivedStart }

  private func begin(from start: Int64, to end: Int64?, acceptsWholeBody: Bool) {
    response = Response()
    received = []
    receivedStart = 0
    discarded = 0
    rejection = nil
    paused = false
    streaming = false
    asked = (start, end)
    self.acceptsWholeBody = acceptsWholeBody
    _ = mt_curl_set_string(api, easy, CURLOPT_URL, url)
    _ = mt_curl_set_string(api, easy, CURLOPT_RANGE, end.map { "\(start)-\($0)" } ?? "\(start)-")
    _ = api.pointee.multi_add_handle(multi, easy)
    active = true
    requests += 1
    lastProgress = MonotonicClock.seconds()
  }

  private enum Outcome {
    /// The transfer ended, with libcurl's result.
    case finished(CURLcode)
    /// The condition holds; the transfer goes on.
    case ready
    /// No byte for `stallSeconds` (the transfer was dropped).
    case stalled
    /// The deadline or an interruption (the transfer was dropped).
    case stopped(RemoteError)
  }

  /// Runs the transfer until it ends or `enough()` holds.
  private func drive(until enough: () -> Bool) -> Outcome {
    while true {
      var running: Int32 = 0
      _ = api.pointee.multi_perform(multi, &running)
      var done: OpaquePointer? = nil
      var result = CURLE_OK
      if mt_curl_next_done(api, multi, &done, &result) != 0 {
        finish()
        return .finished(result)
      }
      if enough() { return .ready }
      let now = MonotonicClock.seconds()
      if Interruption.isRequested {
        finish()
        return .stopped(.interrupted)
      }
      if let deadline, now >= deadline {
        finish()
        return .stopped(.timedOut)
      }
      if !paused, now - lastProgress > stallSeconds {
        finish()
        return .stalled
      }
      var wait = 100.0
      if let deadline { wait = min(wait, max(1, (deadline - now) * 1000)) }
      _ = api.pointee.multi_poll(multi, nil, 0, Int32(wait), nil)
    }
  }

  /// Ends the transfer (an unfinished one closes its connection).
  private func finish() {
    guard active else { return }
    _ = api.pointee.multi_remove_handle(multi, easy)
    active = false
  }

  /// A response header line (the status line starts a new response: a redirect's, a 100's).
  private func header(_ bytes: UnsafeRawBufferPointer) {
    let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: " \t\r\n")
    if line.hasPrefix("HTTP/") {
      response = Response()
      let parts = line.split(separator: " ")
      response.status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
      return
    }
    guard let colon = line.firstIndex(of: ":") else { return }
    let name = line[..<colon].lowercased()
    let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: " \t")
    switch name {
    case "content-range":
      response.contentRangeText = value
      response.contentRange = Self.contentRange(value)
    case "content-length": response.contentLength = Int64(value)
    case "etag": response.etag = value
    case "last-modified": response.lastModified = value
    default: break
    }
  }

  /// `bytes A-B/T` (T may be `*`).
  private static func contentRange(_ value: String) -> (start: Int64, end: Int64, total: Int64?)? {
    let lower = value.lowercased()
    guard lower.hasPrefix("bytes ") else { return nil }
    let spec = lower.dropFirst(6)
    let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
    guard halves.count == 2 else { return nil }
    let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
    guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]), start <= end
    else { return nil }
    if halves[1] == "*" { return (start, end, nil) }
    guard let total = Int64(halves[1]), end < total else { return nil }
    return (start, end, total)
  }

  /// Body bytes from libcurl: judged with the headers on the first call, then kept.
  private func take(_ bytes: UnsafeRawBufferPointer) -> Int {
    if !response.judged {
      response.judged = true
      if let problem = judge() {
        rejection = problem
        return 0
      }
    }
    guard (200..<300).contains(response.status) else {
      // An error page or a redirect's body: not the file's bytes.
      discarded += bytes.count
      transferred += Int64(bytes.count)
      return discarded > 1 << 16 ? 0 : bytes.count
    }
    if streaming {
      if available >= Limits.streamBuffer {
        paused = true
        return mt_curl_writefunc_pause
      }
    } else if let end = asked.end, Int64(received.count + bytes.count) > end - asked.start + 1 {
      rejection = .changed("the server sent more bytes than the range asked for")
      return 0
    }
    if receivedStart > 1 << 20, receivedStart > received.count / 2 {
      received.removeFirst(receivedStart)
      receivedStart = 0
    }
    received.append(contentsOf: bytes)
    transferred += Int64(bytes.count)
    lastProgress = MonotonicClock.seconds()
    return bytes.count
  }

  /// Checks an answer's headers against what was asked and what the first answer said.
  private func judge() -> RemoteError? {
    let status = response.status
    guard (200..<300).contains(status) else { return nil }  // judged once the transfer ends
    let validator = response.etag ?? response.lastModified
    if let known = self.validator, let validator, known != validator {
      return .changed("its ETag or Last-Modified is not the first answer's")
    }
    switch status {
    case 206:
      guard let range = response.contentRange else {
        return .changed(
          response.contentRangeText == nil
            ? "a 206 answer without Content-Range" : "an unreadable Content-Range")
      }
      guard let total = range.total else { return .changed("a Content-Range without the size") }
      if let size, size != total {
        return .changed("its size went from \(size) to \(total) bytes")
      }
      let expectedEnd = min(asked.end ?? (total - 1), total - 1)
      guard range.start == asked.start, range.end == expectedEnd else {
        return .changed(
          "asked for bytes \(asked.start)-\(expectedEnd), the server sent \(range.start)-\(range.end)"
        )
      }
      if size == nil { size = total }
      if self.validator == nil { self.validator = validator }
      asked.end = expectedEnd
      return nil
    case 200:
      guard acceptsWholeBody else {
        return .changed("the server no longer answers range requests")
      }
      if let length = response.contentLength { size = length }
      self.validator = validator
      streaming = true
      asked.end = nil
      return nil
    default:
      return .changed("an answer \(status) to a range request")
    }
  }

  // MARK: - A range-less body

  private func readStream(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer)
    throws(RemoteError) -> Int
  {
    guard offset == streamPosition else {
      throw .changed("a seek in a file whose server does not answer range requests")
    }
    if let maxBytes, streamPosition >= maxBytes {
      hitByteCap = true
      return 0
    }
    if available == 0 {
      if streamEnded { return 0 }
      if paused {
        paused = false
        lastProgress = MonotonicClock.seconds()
        _ = api.pointee.easy_pause(easy, mt_curlpause_cont)
      }
      if available == 0 {
        streaming = true
        switch drive(until: { self.available > 0 }) {
        case .ready: break
        case .finished(let code):
          streamEnded = true
          if let rejection { throw rejection }
          if code != CURLE_OK {
            throw .connection(
              "\(message(code)); the server does not answer range requests, so the read cannot resume"
            )
          }
          if available == 0 { return 0 }
        case .stalled:
          streamEnded = true
          throw .connection(
            "no data for \(Int(stallSeconds.rounded(.up))) s; the server does not answer range requests, so the read cannot resume"
          )
        case .stopped(let error):
          streamEnded = true
          throw error
        }
      }
    }
    var count = min(buffer.count, available)
    if let maxBytes { count = min(count, Int(maxBytes - streamPosition)) }
    received.withUnsafeBytes {
      buffer.baseAddress!.copyMemory(from: $0.baseAddress! + receivedStart, byteCount: count)
    }
    receivedStart += count
    streamPosition += Int64(count)
    return count
  }
}

extension String {
  /// Without the given characters at either end.
  fileprivate func trimmingCharacters(in set: String) -> String {
    var text = Substring(self)
    while let first = text.first, set.contains(first) { text.removeFirst() }
    while let last = text.last, set.contains(last) { text.removeLast() }
    return String(text)
  }
}
