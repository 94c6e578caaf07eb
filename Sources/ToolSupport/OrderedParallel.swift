import Dispatch
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Runs `work` for every item `next` produces (until it returns nil) on up to `workers` threads,
/// and hands each result to `emit` **in the items' order**, as soon as it and all before it are
/// done. `next` and `emit` are each called one at a time (never concurrently), on whichever
/// worker gets there; items are pulled only as workers are free, so a list of a million paths is
/// read as the work goes, never held.
///
/// Memory stays flat: at most `window` results wait for a slower one before them; past that a
/// worker waits for the slow item instead of claiming more.
public func orderedParallel<Item: Sendable, Result: Sendable>(
  workers: Int, next: @escaping @Sendable () -> Item?,
  work: @escaping @Sendable (Int, Item) -> Result,
  emit: @escaping @Sendable (Int, Result) -> Void
) {
  if workers <= 1 {
    // One worker: no thread pool to start.
    var index = 0
    while let item = next() {
      emit(index, work(index, item))
      index += 1
    }
    return
  }
  let window = max(64, workers * 16)
  let ahead = DispatchSemaphore(value: window)
  let source = Mutex(Source<Item>(next: next))
  let state = Mutex(OrderedResults<Result>())
  DispatchQueue.concurrentPerform(iterations: workers) { _ in
    while true {
      ahead.wait()
      guard let (index, item) = source.withLock({ $0.claim() }) else {
        ahead.signal()
        return
      }
      let result = work(index, item)
      state.withLock { results in
        results.finished[index] = result
        while let ready = results.finished.removeValue(forKey: results.nextToEmit) {
          emit(results.nextToEmit, ready)
          results.nextToEmit += 1
          ahead.signal()
        }
      }
    }
  }
}

/// Runs `work` for every index in `0..<count` on up to `jobs` threads (nil: one per core the
/// process may use; asked only when there is more than one item), emitting in index order (see
/// `orderedParallel(workers:next:work:emit:)`).
public func orderedParallel<Result: Sendable>(
  count: Int, jobs: Int?, work: @escaping @Sendable (Int) -> Result,
  emit: @escaping @Sendable (Int, Result) -> Void
) {
  let counter = Atomic<Int>(0)
  orderedParallel(
    workers: workerCount(items: count, jobs: jobs),
    next: {
      let index = counter.add(1, ordering: .relaxed).oldValue
      return index < count ? index : nil
    }, work: { _, index in work(index) }, emit: emit)
}

/// How many workers `orderedParallel` runs for `items` inputs (nil: not known in advance):
/// `jobs`, else one per core the process may use (asked only when there is more than one item),
/// never more than the items.
public func workerCount(items: Int?, jobs: Int?) -> Int {
  guard let items else { return max(1, jobs ?? coreCount) }
  return items <= 1 ? 1 : max(1, min(jobs ?? coreCount, items))
}

/// The cores this process may use (its CPU affinity and cgroup quota).
public var coreCount: Int { ProcessInfo.processInfo.activeProcessorCount }

/// The items handed out so far.
private struct Source<Item>: ~Copyable {
  let next: @Sendable () -> Item?
  var claimed = 0
  var exhausted = false

  mutating func claim() -> (Int, Item)? {
    guard !exhausted, let item = next() else {
      exhausted = true
      return nil
    }
    defer { claimed += 1 }
    return (claimed, item)
  }
}

/// Results that finished ahead of the next one to emit.
private struct OrderedResults<Result> {
  var finished: [Int: Result] = [:]
  var nextToEmit = 0
}

/// Runs `work` for every one of `items` on up to `workers` threads, starting them in the order
/// `startOrder` gives (a permutation of the items' indices: `largestFirst` puts the largest
/// files first, so that no long input is left for the end while the other workers idle), and
/// hands each result to `emit` **in the items' order**, as soon as it and all before it are
/// done. `emit` is called one at a time. The items are known in advance: every result may wait
/// for an earlier item started later (no window).
public func orderedParallel<Item: Sendable, Result: Sendable>(
  items: [Item], workers: Int, startOrder: [Int],
  work: @escaping @Sendable (Int, Item) -> Result,
  emit: @escaping @Sendable (Int, Result) -> Void
) {
  precondition(startOrder.count == items.count, "startOrder must name every item once")
  let counter = Atomic<Int>(0)
  let state = Mutex(OrderedResults<Result>())
  DispatchQueue.concurrentPerform(iterations: max(1, min(workers, items.count))) { _ in
    while true {
      let claimed = counter.add(1, ordering: .relaxed).oldValue
      guard claimed < startOrder.count else { return }
      let index = startOrder[claimed]
      let result = work(index, items[index])
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
