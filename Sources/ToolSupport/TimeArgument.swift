import ArgumentParser

/// A time on the command line: seconds (`90`, `1.5`) or `[hh:]mm:ss[.mmm]` (`1:02:03.250`).
public struct TimeArgument: ExpressibleByArgument, Sendable, Equatable {
  /// The time in seconds.
  public var seconds: Double

  /// Parses `argument`; nil (a usage error) for anything else or a negative time.
  public init?(argument: String) {
    let parts = argument.split(separator: ":", omittingEmptySubsequences: false)
    guard (1...3).contains(parts.count), let last = Double(parts.last!), last >= 0 else {
      return nil
    }
    var total = last
    var scale = 60.0
    for part in parts.dropLast().reversed() {
      guard let value = Int(part), value >= 0 else { return nil }
      total += Double(value) * scale
      scale *= 60
    }
    if parts.count > 1 && last >= 60 { return nil }
    guard total.isFinite else { return nil }
    seconds = total
  }
}
