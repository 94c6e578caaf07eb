import Dispatch
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Runs `work` for every index in `0..<count` on up to `jobs` threads (nil: one per core the
/// process may use; asked only when there is more than one item) and hands each result to
/// `emit` **in index order**, as soon as it and all before it are done. `emit` is called one
/// result at a time (never concurrently), on whichever worker completed the run of results.
///
/// Results are released once emitted, so memory holds only the results that finished ahead of a
/// slower one, not the whole batch.
public func orderedParallel<Result: Sendable>(
  count: Int, jobs: Int?, work: @escaping @Sendable (Int) -> Result,
  emit: @escaping @Sendable (Int, Result) -> Void
) {
  guard count > 0 else { return }
  let workers = workerCount(items: count, jobs: jobs)
  if workers == 1 {
    // One item or --jobs 1: no thread pool to start.
    for index in 0..<count { emit(index, work(index)) }
    return
  }
  let state = Mutex(OrderedResults<Result>())
  let claimed = Atomic<Int>(0)
  DispatchQueue.concurrentPerform(iterations: workers) { _ in
    while true {
      let index = claimed.add(1, ordering: .relaxed).oldValue
      guard index < count else { return }
      let result = work(index)
      state.withLock { results in
        results.finished[index] = result
        while let ready = results.finished.removeValue(forKey: results.nextToEmit) {
          emit(results.nextToEmit, ready)
          results.nextToEmit += 1
        }
      }
    }
  }
}

/// How many workers `orderedParallel` runs for `items` inputs: `jobs`, else one per core the
/// process may use (asked only when there is more than one item), never more than the items.
public func workerCount(items: Int, jobs: Int?) -> Int {
  items <= 1 ? 1 : max(1, min(jobs ?? coreCount, items))
}

/// The cores this process may use (its CPU affinity and cgroup quota).
public var coreCount: Int { ProcessInfo.processInfo.activeProcessorCount }

/// Results that finished ahead of the next one to emit.
private struct OrderedResults<Result> {
  var finished: [Int: Result] = [:]
  var nextToEmit = 0
}
