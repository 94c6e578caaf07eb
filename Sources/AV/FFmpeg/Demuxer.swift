import CFFmpeg
import MediaCore
import OutputKit

/// Reads an input's packets one at a time: the one read loop of the tools (the probe's scan and
/// verification, the audio decode driver). Before each read it stops for an interruption
/// (SIGINT, SIGTERM) and for the input's deadline (`--timeout`, a FIFO that sends nothing), and it
/// tells those apart from the end of the input and from a read error, which the caller judges
/// (the probe reports it, an extraction ends there with a warning).
package final class Demuxer {
  /// The input read.
  package let input: InputFile
  /// The packet `next()` read, valid until the next call.
  package let packet = Packet()

  /// What `next()` found.
  package enum Next {
    /// A packet, in `packet`.
    case packet
    /// The end of the input.
    case end
    /// Reading failed (not an interruption or the deadline): the input ends here.
    case failed(FFmpegError)
  }

  /// Why reading stopped early.
  package enum Stop: Error {
    /// SIGINT or SIGTERM arrived (`Interruption`).
    case interrupted
    /// The input's time limit passed, or a FIFO delivered nothing in time.
    case timedOut
  }

  /// A demuxer reading `input`.
  package init(_ input: InputFile) { self.input = input }

  /// Reads the next packet into `packet` (the previous one is dropped).
  ///
  /// - Throws: `Stop` when interrupted or past the deadline.
  package func next() throws(Stop) -> Next {
    packet.unref()
    try checkStop()
    do {
      return try input.read(into: packet) ? .packet : .end
    } catch {
      try checkStop()
      if input.source.timedOut { throw .timedOut }
      return .failed(error)
    }
  }

  /// Throws when the work must stop (an interruption, the deadline).
  package func checkStop() throws(Stop) {
    if Interruption.isRequested { throw .interrupted }
    if input.source.isExpired { throw .timedOut }
  }
}
