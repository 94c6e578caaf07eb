import MediaCore

/// The verdict for a platform.
public enum Verdict: String, Codable, Sendable, Comparable {
  /// Plays natively.
  case pass
  /// May not play everywhere; see the warnings.
  case warn
  /// Does not play natively; see the failures and the fixes.
  case fail

  /// pass < warn < fail.
  public static func < (a: Verdict, b: Verdict) -> Bool {
    let order: [Verdict] = [.pass, .warn, .fail]
    return order.firstIndex(of: a)! < order.firstIndex(of: b)!
  }
}

/// How the file will be delivered (some advisories apply to streaming only).
public enum Delivery: String, Codable, Sendable, CaseIterable {
  /// A downloaded or local file.
  case file
  /// Progressive download or streaming (fast start, HLS advisories).
  case stream
}

/// One rule a file does not meet.
public struct RuleFinding: Codable, Sendable, Equatable {
  /// The rule's id.
  public var rule: String
  /// The fact it tests.
  public var field: String
  /// The file's value; null when unknown.
  @NullEncoded public var actual: String?
  /// The limit, in words (`<= 1500000`, `in Baseline, Constrained Baseline`).
  public var limit: String
  /// Why it matters, with the values filled in.
  public var reason: String
  /// fail or warn.
  public var severity: Severity
  /// What fixes it.
  public var fix: Fix
  /// The title of the source the rule cites.
  public var source: String
  /// Where to read the source; null for the project's own source documents.
  @NullEncoded public var sourceUrl: String?
}

/// A file's verdict for one platform.
public struct PlatformVerdict: Codable, Sendable, Equatable {
  /// The platform's id.
  public var platform: String
  /// pass, warn or fail.
  public var verdict: Verdict
  /// Every failing rule (fail) and every warning, not just the first.
  public var findings: [RuleFinding]
  /// The fixes the failures need, cheapest first.
  public var fixes: [Fix]
  /// An ffmpeg command that would make the file pass (with `--suggest`), else null.
  @NullEncoded public var suggestion: Suggestion?
}

/// Checks probed files against platforms.
public struct CompatibilityChecker: Sendable {
  /// Which delivery's advisories apply.
  public var delivery: Delivery

  /// A checker for `delivery`.
  public init(delivery: Delivery = .file) {
    self.delivery = delivery
  }

  /// The verdict of `info` on `platform`.
  public func check(_ info: MediaInfo, on platform: Platform) -> PlatformVerdict {
    check(CompatFacts(info), on: platform)
  }

  /// The verdict of a file with these facts on `platform` (a probed file's facts, or those a
  /// suggested command's output would have).
  public func check(_ facts: CompatFacts, on platform: Platform) -> PlatformVerdict {
    var findings = directPlayFindings(facts, platform)
    for entry in platform.rules {
      switch entry {
      case .rule(let rule): findings += evaluate(rule, facts, platform)
      case .anyOf(let group): findings += evaluate(group, facts, platform)
      }
    }
    let verdict: Verdict =
      findings.contains { $0.severity == .fail } ? .fail : findings.isEmpty ? .pass : .warn
    let fixes = Set(findings.filter { $0.severity == .fail }.map(\.fix)).sorted()
    return PlatformVerdict(
      platform: platform.id, verdict: verdict, findings: findings, fixes: fixes, suggestion: nil)
  }

  // MARK: - Direct play

  /// No failure when some row admits the container and both codecs; otherwise the mismatches
  /// of the closest row (the one needing the cheapest fixes).
  private func directPlayFindings(_ facts: CompatFacts, _ platform: Platform) -> [RuleFinding] {
    let container = facts.values["container"]?.description ?? ""
    let video = facts.hasVideo ? facts.values["video.codec"]?.description : nil
    let audio = facts.hasAudio ? facts.values["audio.codec"]?.description : nil
    func mismatches(_ row: DirectPlayRow) -> [Fix] {
      var fixes: [Fix] = []
      if !row.containers.contains(container) { fixes.append(.remux) }
      if let audio, !row.audio.contains(audio) { fixes.append(.transcodeAudio) }
      if let video, !row.video.contains(video) { fixes.append(.transcodeVideo) }
      return fixes
    }
    func cost(_ fixes: [Fix]) -> Int {
      fixes.reduce(0) { $0 + [Fix.remux: 1, .transcodeAudio: 2, .transcodeVideo: 4][$1]! }
    }
    // A row for audio files (no video codec: Firefox's AAC in 3GP) is not the closest for a
    // file with video: its findings would read "video.codec h263 (in )".
    let withVideo = platform.directPlay.filter { !$0.video.isEmpty }
    let rows = video != nil && !withVideo.isEmpty ? withVideo : platform.directPlay
    guard let closest = rows.min(by: { cost(mismatches($0)) < cost(mismatches($1)) })
    else { return [] }
    let source = platform.sources[closest.source]
    return mismatches(closest).map { fix in
      let (field, actual, allowed): (String, String, [String]) =
        switch fix {
        case .remux: ("container", container, closest.containers)
        case .transcodeAudio: ("audio.codec", audio ?? "", closest.audio)
        case .transcodeVideo: ("video.codec", video ?? "", closest.video)
        }
      return RuleFinding(
        rule: "direct-play", field: field, actual: actual,
        limit: "in " + allowed.joined(separator: ", "),
        reason:
          "\(actual) is not among the direct-play \(field == "container" ? "containers" : "codecs") for this combination",
        severity: .fail, fix: fix, source: source?.title ?? closest.source, sourceUrl: source?.url)
    }
  }

  // MARK: - Rules

  private func applies(_ when: [String: [RuleValue]]?, _ facts: CompatFacts) -> Bool {
    guard let when else { return true }
    return when.allSatisfy { field, allowed in
      guard let fact = facts.values[field] else { return false }
      return allowed.contains { Self.matches(fact, $0) }
    }
  }

  func evaluate(_ rule: Rule, _ facts: CompatFacts, _ platform: Platform) -> [RuleFinding] {
    if let delivery = rule.delivery, delivery != self.delivery.rawValue { return [] }
    guard applies(rule.when, facts) else { return [] }
    if rule.field.hasPrefix("video.") && !facts.hasVideo { return [] }
    if rule.field.hasPrefix("audio.") && !facts.hasAudio { return [] }
    let source = platform.sources[rule.source]
    let limit = Self.describe(rule.op, rule.value)
    guard let fact = facts.values[rule.field] else {
      // Unknown values warn rather than fail, unless the rule requires them.
      let required = rule.required == true
      return [
        RuleFinding(
          rule: rule.id, field: rule.field, actual: nil, limit: limit,
          reason: "\(rule.field) is unknown; "
            + Self.fill(rule.reason, actual: "unknown", limit: limit),
          severity: required ? .fail : .warn, fix: rule.fix, source: source?.title ?? rule.source,
          sourceUrl: source?.url)
      ]
    }
    guard !Self.holds(fact, rule.op, rule.value) else { return [] }
    return [
      RuleFinding(
        rule: rule.id, field: rule.field, actual: fact.description, limit: limit,
        reason: Self.fill(rule.reason, actual: fact.description, limit: rule.value.description),
        severity: rule.severity, fix: rule.fix, source: source?.title ?? rule.source,
        sourceUrl: source?.url)
    ]
  }

  /// A group passes when one alternative has no failure; otherwise it reports the alternative
  /// with the fewest failures (the closer tier).
  private func evaluate(_ group: AnyOfGroup, _ facts: CompatFacts, _ platform: Platform)
    -> [RuleFinding]
  {
    guard applies(group.when, facts) else { return [] }
    let outcomes = group.anyOf.map { alternative in
      (alternative, alternative.rules.flatMap { evaluate($0, facts, platform) })
    }
    let failures = { (findings: [RuleFinding]) in findings.filter { $0.severity == .fail }.count }
    if let passing = outcomes.first(where: { failures($0.1) == 0 }) { return passing.1 }
    let closest = outcomes.min { failures($0.1) < failures($1.1) }!
    return closest.1.map { finding in
      var finding = finding
      finding.reason = "\(finding.reason) (closest: \(closest.0.name); \(group.reason))"
      return finding
    }
  }

  static func holds(_ fact: Fact, _ op: RuleOperator, _ value: RuleValue) -> Bool {
    switch op {
    case .in:
      guard case .list(let list) = value else { return matches(fact, value) }
      return list.contains { matches(fact, $0) }
    case .notIn:
      guard case .list(let list) = value else { return !matches(fact, value) }
      return !list.contains { matches(fact, $0) }
    case .equals: return matches(fact, value)
    case .atMost, .atLeast:
      guard case .number(let actual) = fact, case .number(let limit) = value else { return false }
      return op == .atMost ? actual <= limit + 1e-9 : actual >= limit - 1e-9
    case .fits:
      guard case .size(let width, let height) = fact, case .list(let box) = value, box.count == 2,
        case .number(let boxWidth) = box[0], case .number(let boxHeight) = box[1]
      else { return false }
      let (w, h) = (Double(width), Double(height))
      return (w <= boxWidth && h <= boxHeight) || (w <= boxHeight && h <= boxWidth)
    }
  }

  static func matches(_ fact: Fact, _ value: RuleValue) -> Bool {
    switch (fact, value) {
    case (.text(let a), .text(let b)): a == b
    case (.number(let a), .number(let b)): abs(a - b) < 1e-9
    case (.flag(let a), .flag(let b)): a == b
    default: false
    }
  }

  static func describe(_ op: RuleOperator, _ value: RuleValue) -> String {
    switch op {
    case .in: "in \(value)"
    case .notIn: "not in \(value)"
    case .atMost: "<= \(value)"
    case .atLeast: ">= \(value)"
    case .equals: "== \(value)"
    case .fits:
      if case .list(let box) = value, box.count == 2 {
        "fits \(box[0])x\(box[1]) (either orientation)"
      } else {
        "fits \(value)"
      }
    }
  }

  static func fill(_ template: String, actual: String, limit: String) -> String {
    template.replacing("{actual}", with: actual).replacing("{limit}", with: limit)
  }
}
