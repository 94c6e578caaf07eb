import MediaCore

/// Human-readable verdicts and platform explanations (the tool's text output).
public enum VerdictText {
  /// One file's verdicts: a line per platform, then each finding indented, with its fix and
  /// source, and the suggested command when there is one.
  public static func render(path: String, verdicts: [PlatformVerdict]) -> String {
    var lines = [path]
    for verdict in verdicts {
      let fixes =
        verdict.fixes.isEmpty
        ? "" : "  (fix: \(verdict.fixes.map(\.rawValue).joined(separator: ", ")))"
      lines.append("  \(verdict.platform): \(verdict.verdict.rawValue.uppercased())\(fixes)")
      for finding in verdict.findings {
        lines.append(
          "    \(finding.severity.rawValue)  \(finding.field) = \(finding.actual ?? "unknown") (\(finding.limit)): "
            + "\(finding.reason) [\(finding.fix.rawValue)]")
        lines.append(
          "          source: \(finding.source)" + (finding.sourceUrl.map { " <\($0)>" } ?? ""))
      }
      if let suggestion = verdict.suggestion { lines.append("    suggest: \(suggestion.command)") }
    }
    return lines.joined(separator: "\n") + "\n"
  }
}

/// A platform's rules in words (`mediacompat --explain`).
public enum PlatformExplanation {
  /// The whole explanation of `platform`.
  public static func text(_ platform: Platform) -> String {
    var lines = ["\(platform.id) — \(platform.name) (\(platform.era))"]
    if !platform.aliases.isEmpty {
      lines.append("aliases: \(platform.aliases.joined(separator: ", "))")
    }
    if let verification = platform.verification { lines.append("verified: \(verification)") }
    lines.append("")
    lines.append("Plays directly:")
    for row in platform.directPlay {
      lines.append(
        "  containers \(row.containers.joined(separator: ", ")) with video \(row.video.joined(separator: ", "))"
          + " and audio \(row.audio.joined(separator: ", ")) [\(row.source)]"
          + (row.note.map { " — \($0)" } ?? ""))
    }
    lines.append("")
    lines.append("Rules (unknown values warn unless required):")
    for entry in platform.rules {
      switch entry {
      case .rule(let rule): lines.append(describe(rule, indent: "  "))
      case .anyOf(let group):
        lines.append(
          "  \(group.id): \(group.reason)\(condition(group.when)), one of [\(group.source)]:")
        for alternative in group.anyOf {
          lines.append("    - \(alternative.name):")
          for rule in alternative.rules { lines.append(describe(rule, indent: "        ")) }
        }
      }
    }
    lines.append("")
    lines.append("Sources:")
    for (id, source) in platform.sources.sorted(by: { $0.key < $1.key }) {
      lines.append("  [\(id)] \(source.title)" + (source.url.map { " <\($0)>" } ?? ""))
    }
    if let notes = platform.notes { lines += ["", notes] }
    return lines.joined(separator: "\n") + "\n"
  }

  private static func describe(_ rule: Rule, indent: String) -> String {
    let limit = CompatibilityChecker.describe(rule.op, rule.value)
    let reason = CompatibilityChecker.fill(
      rule.reason, actual: "the file's value", limit: rule.value.description)
    let delivery = rule.delivery.map { " (with --delivery \($0))" } ?? ""
    return
      "\(indent)\(rule.severity.rawValue) \(rule.field) \(limit)\(condition(rule.when))\(delivery): \(reason) "
      + "[fix: \(rule.fix.rawValue); \(rule.source)]" + (rule.required == true ? " (required)" : "")
  }

  private static func condition(_ when: [String: [RuleValue]]?) -> String {
    guard let when, !when.isEmpty else { return "" }
    return " when "
      + when.sorted { $0.key < $1.key }.map { "\($0.key) in \(RuleValue.list($0.value))" }.joined(
        separator: " and ")
  }
}
