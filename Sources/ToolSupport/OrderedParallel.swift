import Foundation

/// Runs `work` for every index in `0..<count` on up to `jobs` threads and hands each result to
/// `emit` on the calling thread **in index order**, as soon as it and all before it are done.
///
/// Results are released once emitted, so memory holds only the results that finished ahead of a
/// slower one, not the whole batch.
public func orderedParallel<Result: Sendable>(
  count: Int, jobs: Int, work: @escaping @Sendable (Int) -> Result, emit: (Int, Result) -> Void
) {
  guard count > 0 else { return }
  let jobs = max(1, min(jobs, count))
  if jobs == 1 {
    for index in 0..<count { emit(index, work(index)) }
    return
  }
  let state = ParallelState<Result>()
  for _ in 0..<jobs {
    let thread = Thread {
      while let index = state.claim(below: count) {
        state.finish(index, work(index))
      }
    }
    thread.stackSize = 4 << 20
    thread.start()
  }
  for index in 0..<count {
    emit(index, state.take(index))
  }
}

/// The shared state of `orderedParallel`: the next index to claim and the finished results.
private final class ParallelState<Result: Sendable>: @unchecked Sendable {
  // Every field is guarded by `condition`.
  private let condition = NSCondition()
  private var next = 0
  private var finished: [Int: Result] = [:]

  func claim(below count: Int) -> Int? {
    condition.lock()
    defer { condition.unlock() }
    guard next < count else { return nil }
    next += 1
    return next - 1
  }

  func finish(_ index: Int, _ result: Result) {
    condition.lock()
    finished[index] = result
    condition.broadcast()
    condition.unlock()
  }

  func take(_ index: Int) -> Result {
    condition.lock()
    defer { condition.unlock() }
    while finished[index] == nil { condition.wait() }
    return finished.removeValue(forKey: index)!
  }
}
