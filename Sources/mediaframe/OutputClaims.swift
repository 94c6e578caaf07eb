import Foundation
import Synchronization

/// The outputs of one run, each owned by the first input, in the inputs' order, that names it.
///
/// Two inputs whose names differ only in their extension or folder (`a.wav` and `a.flac`, or
/// `x/a.mp4` and `y/a.mp4` with `--output-dir`) name the same output: without this, the later
/// one failed with `output_exists` or, with `--force`, replaced the earlier one's file while
/// both records were printed, one of them naming a file that holds the other input's pictures
/// (which one won depended on the workers' timing).
final class OutputClaims: Sendable {
  private struct State {
    var owners: [String: (index: Int, input: String)] = [:]
    /// Per input index that lost its output: the input that owns it.
    var taken: [Int: String] = [:]
    var next = 0
  }

  private let state = Mutex(State())

  /// Registers the next input in order (call once per input, in the inputs' order, as they are
  /// handed out) and the output it names.
  func register(input: String, output: String) {
    let key = URL(fileURLWithPath: output).standardizedFileURL.path
    state.withLock { state in
      let index = state.next
      state.next += 1
      if let owner = state.owners[key] {
        state.taken[index] = owner.input
      } else {
        state.owners[key] = (index, input)
      }
    }
  }

  /// The earlier input that owns the output of input `index`, or nil when it is its own.
  func owner(ofOutputOf index: Int) -> String? {
    state.withLock { $0.taken[index] }
  }
}
