import OutputKit
import MediaCore
import CFFmpeg
import Synchronization

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// Collects what FFmpeg logs about one decoder (or one demuxer) while it works, so damage that
/// only reaches the log ("concealing 1234 DC, 1234 AC, 1234 MV errors", "error while decoding
/// MB 5 14") is counted for the right input, stream and packet — also when the decoder runs on
/// its own frame threads and several files are verified at once.
///
/// Messages are routed by the `opaque` pointer of the context that logs them: a token holding this
/// log's id and the sequence number of the packet being decoded. libavcodec copies the user
/// context's `opaque` into a frame thread's context with each packet it submits, so a message a
/// worker thread logs carries the packet that worker is decoding: the attribution does not depend
/// on how the threads were scheduled.
package final class DecodeLog: Sendable {
  /// One message, with the packet it is about.
  package struct Message: Sendable, Equatable {
    /// The packet's sequence number (as given to `token(packet:)`), nil when unknown.
    package var packet: UInt32?
    /// FFmpeg's level (`AV_LOG_ERROR` 16, `AV_LOG_WARNING` 24, `AV_LOG_INFO` 32).
    package var level: Int32
    /// The message, without FFmpeg's "[h264 @ 0x...]" prefix or the newline.
    package var text: String
    /// An error or worse (`AV_LOG_ERROR`), not a warning or a note.
    package var isError: Bool { level <= AV_LOG_ERROR }
  }

  private struct State: ~Copyable {
    var messages: [Message] = []
    var dropped = 0
    var partial = ""
    var printPrefix: Int32 = 1
  }

  /// At most this many messages wait to be taken (the rest are counted as dropped).
  package static let kept = 1000

  private let id: UInt32
  private let state = Mutex(State())

  /// A new log, registered so messages can find it; `close()` unregisters it.
  package init() {
    id = DecodeLogRegistry.register()
    DecodeLogRegistry.logs.withLock { $0[id] = self }
  }

  /// Stops collecting: messages that still arrive are dropped.
  package func close() {
    _ = DecodeLogRegistry.logs.withLock { $0.removeValue(forKey: id) }
  }

  /// The value to put in a context's `opaque` while packet `sequence` is decoded (nil: a
  /// demuxer's or a drain's messages, about no packet in particular).
  package func token(packet sequence: UInt32?) -> UnsafeMutableRawPointer {
    let low = UInt(sequence ?? UInt32.max)
    return UnsafeMutableRawPointer(bitPattern: UInt(id) << 32 | low)!
  }

  /// Takes the messages that arrived since the last call, and how many more arrived than could
  /// be kept.
  package func take() -> (messages: [Message], dropped: Int) {
    state.withLock { state in
      defer {
        state.messages.removeAll(keepingCapacity: true)
        state.dropped = 0
      }
      return (state.messages, state.dropped)
    }
  }

  /// Records one line (called from the log callback, on any thread).
  fileprivate func record(level: Int32, packet: UInt32?, line: String) {
    state.withLock { state in
      let text = state.partial + line
      guard text.hasSuffix("\n") else {
        state.partial = text  // "Packet corrupt (" arrives in pieces
        return
      }
      state.partial = ""
      var message = Substring(text.dropLast())
      // Drop FFmpeg's context prefixes ("[mov,mp4,m4a @ 0x...] [h264 @ 0x...] ").
      while message.hasPrefix("["), let close = message.firstIndex(of: "]") {
        message = message[message.index(after: close)...].drop { $0 == " " }
      }
      let trimmed = String(message).trimmingSpaces
      guard !trimmed.isEmpty else { return }
      if state.messages.count < Self.kept {
        state.messages.append(Message(packet: packet, level: level, text: trimmed))
      } else {
        state.dropped += 1
      }
    }
  }

  /// Formats a message for this log and passes it on to FFmpeg's default callback.
  fileprivate func format(
    _ avcl: UnsafeMutableRawPointer?, _ level: Int32, _ fmt: UnsafePointer<CChar>?,
    _ arguments: CVaListPointer
  ) -> String {
    var buffer = [CChar](repeating: 0, count: 1024)
    state.withLock { state in
      mt_log_format_and_forward(avcl, level, fmt, arguments, &buffer, 1024, &state.printPrefix)
    }
    return String(cBuffer: buffer)
  }
}

/// The logs being collected, by id, and the process-wide `av_log` callback that feeds them.
package enum DecodeLogRegistry {
  package static let logs = Mutex<[UInt32: DecodeLog]>([:])
  private static let nextID = Atomic<UInt32>(1)
  private static let installed = Atomic<Bool>(false)

  package static func register() -> UInt32 { nextID.add(1, ordering: .relaxed).oldValue }

  /// The thread-specific token of the input the thread is reading: `av_read_frame` runs the
  /// parsers on the calling thread, and they log through contexts that carry no token.
  private static let readingKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
  }()

  /// Routes messages without a token of their own, logged on this thread until the next call, to
  /// `token` (nil: to nobody).
  package static func setReading(_ token: UnsafeMutableRawPointer?) {
    pthread_setspecific(readingKey, token)
  }

  /// The most verbose level collected: errors, warnings and information ("concealing ...").
  package static let collectedLevel = AV_LOG_INFO

  /// Installs the callback (once). Messages from contexts without our token go to FFmpeg's
  /// default callback, as before. Call before any decoder thread starts.
  package static func install() {
    guard !installed.exchange(true, ordering: .relaxed) else { return }
    av_log_set_callback { avcl, level, fmt, arguments in
      guard let arguments else { return }
      guard level <= DecodeLogRegistry.collectedLevel,
        let token =
          (mt_log_context_opaque(avcl) ?? pthread_getspecific(DecodeLogRegistry.readingKey))
          .map({ UInt(bitPattern: $0) }),
        let log = DecodeLogRegistry.logs.withLock({ $0[UInt32(truncatingIfNeeded: token >> 32)] })
      else {
        av_log_default_callback(avcl, level, fmt, arguments)
        return
      }
      let low = UInt32(truncatingIfNeeded: token)
      let line = log.format(avcl, level, fmt, arguments)
      log.record(level: level, packet: low == UInt32.max ? nil : low, line: line)
    }
  }
}

extension String {
  /// Without leading and trailing spaces.
  fileprivate var trimmingSpaces: String {
    String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
  }
}
