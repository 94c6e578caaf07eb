import Foundation
import Testing

/// File names that are not UTF-8 (Latin-1 `caf\xE9`, stray bytes) are opened, listed and
/// written under their own bytes by every tool; reports show the bytes as U+FFFD. Foundation's
/// `Process` cannot pass such an argument, so the tools run under bash, which builds the names
/// with printf.
@Suite struct FileNameTests {
  /// Runs `script` in bash with `$BIN` (the tools), `$DIR` (a fresh directory holding
  /// `caf\xE9.m4a` and `clip\xFF\xFE.mp4`, copies of fixtures) and `$FIX` (the fixtures).
  static func bash(_ script: String) throws -> Run {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "mediatools-names-\(UUID().uuidString)"
    ).path
    let setup = """
      set -e
      BIN='\(productsDirectory.path)'; FIX='\(packageRoot.path)/\(fixturesDirectory)'; DIR='\(directory)'
      mkdir -p "$DIR"; trap 'rm -rf "$DIR"' EXIT
      CAF="$DIR/$(printf 'caf\\xe9')"; CLIP="$DIR/$(printf 'clip\\xff\\xfe').mp4"
      cp "$FIX/tone.m4a" "$CAF.m4a"; cp "$FIX/h264_25fps.mp4" "$CLIP"
      set +e

      """
    return try run("bash", ["-c", setup + script])
  }

  @Test func probedFromArgumentsDirectoriesAndLists() throws {
    let result = try Self.bash(
      """
      "$BIN/mediaprobe" --ndjson "$CAF.m4a" "$CLIP"
      "$BIN/mediaprobe" --ndjson --recursive "$DIR"
      printf '%s\\n' "$CAF.m4a" | "$BIN/mediaprobe" --ndjson --files-from -
      ffprobe -v error -show_entries format=duration -of csv=p=0 "$CAF.m4a" >&2
      """)
    #expect(result.status == 0, "\(result.stderr)")
    let records = try result.text.split(separator: "\n").map {
      try JSONSerialization.jsonObject(with: Data($0.utf8))
    }
    #expect(records.count == 5)
    let expected = try #require(
      Double(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)))
    for record in records {
      #expect(value(record, "error") == nil, "\(record)")
      let path = try #require(value(record, "path") as? String)
      #expect(path.hasSuffix("caf\u{FFFD}.m4a") || path.hasSuffix("clip\u{FFFD}\u{FFFD}.mp4"))
      if path.hasSuffix(".m4a") {
        let seconds = try #require(value(record, "duration", "seconds") as? Double)
        #expect(abs(seconds - expected) < 1e-6, "\(path)")
      }
    }
  }

  /// media2wav writes `caf\xE9.wav` beside the input, the same bytes as from a plainly named
  /// copy; `--output-dir` keeps the name too; mediamerge reads and writes such names.
  @Test func extractedUnderTheSameBytes() throws {
    let result = try Self.bash(
      """
      cp "$FIX/tone.m4a" "$DIR/plain.m4a"
      "$BIN/media2wav" -q "$CAF.m4a" "$DIR/plain.m4a" || exit 3
      cmp "$CAF.wav" "$DIR/plain.wav" || exit 4
      mkdir "$DIR/out"
      "$BIN/media2wav" -q --output-dir "$DIR/out" "$CAF.m4a" || exit 5
      cmp "$DIR/out/$(printf 'caf\\xe9').wav" "$DIR/plain.wav" || exit 6
      "$BIN/mediacompat" --platform chrome --json "$CLIP" | grep -q '"path"' || exit 7
      LA="$DIR/$(printf 'l\\xe0').mp4"; OUT="$DIR/$(printf 'out\\xe9').mp4"
      cp "$FIX/../MergeFixtures/landscape.mp4" "$LA"
      "$BIN/mediamerge" -q -o "$OUT" "$LA" "$LA" || exit 8
      MIX="$DIR/$(printf 'mix\\xe9').json"
      printf '{"inputs": [{"path": "%s"}]}' "$DIR/plain.m4a" > "$MIX"
      "$BIN/media2wav" mix -q -o "$DIR/mixed.wav" --description "$MIX" || exit 9
      ffprobe -v error -show_entries format=duration -of csv=p=0 "$OUT" >&2
      """)
    #expect(result.status == 0, "\(result.stderr)")
    // Two 1-second clips (Tests/MergeFixtures, made so), merged under a non-UTF-8 name.
    let merged = Double(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    #expect(abs(merged - 2) < 0.05, "\(result.stderr)")
  }
}
