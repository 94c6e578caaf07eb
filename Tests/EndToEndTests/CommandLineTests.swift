import Foundation
import Testing

/// What the three tools share on the command line: usage errors, `--`, `--quiet`, platforms.
@Suite struct CommandLineTests {
  static let tools = ["mediaprobe", "media2wav", "mediacompat"]

  /// A file whose name starts with '-' is a usage error (64), never the help page and exit 0;
  /// after '--' it is a file.
  @Test(arguments: tools)
  func dashNamedFiles(_ tool: String) throws {
    let directory = try TemporaryDirectory()
    try FileManager.default.copyItem(
      atPath: packageRoot.appendingPathComponent("\(fixturesDirectory)/tone.wav").path,
      toPath: directory.path("-dash.m4a"))
    let refused = try run(tool, ["-dash.m4a"], in: directory.url)
    #expect(refused.status == 64, "\(tool): \(refused.stderr)")
    #expect(refused.text.isEmpty, "\(tool) printed \(refused.text.prefix(80))")
    let options = tool == "mediacompat" ? ["--platform", "chrome"] : []
    let accepted = try run(tool, options + ["--", "-dash.m4a"], in: directory.url)
    #expect(accepted.status == 0, "\(tool): \(accepted.stderr)")  // a WAV plays in Chrome
    #expect(
      tool != "media2wav" || FileManager.default.fileExists(atPath: directory.path("-dash.wav")))
  }

  /// `--quiet` means the same in every tool: no report, errors still on stderr; asking for a
  /// report as well is a usage error.
  /// A NUL-separated list read without `--null` gives one name holding NUL bytes: no file is
  /// named so, and the system would read it up to the first NUL (the tools reported the first
  /// file under the whole list's name, exit 0). It is `not_found` in every tool (the input
  /// opening's rule, mediaframe's too: MediaFrameWildTests); with `--null`, both files.
  @Test(arguments: tools)
  func namesWithNulBytesAreNotFound(_ tool: String) throws {
    let directory = try TemporaryDirectory()
    let fixture = packageRoot.appendingPathComponent("\(fixturesDirectory)/tone.wav").path
    let list = directory.path("list")
    try Data("\(fixture)\0\(fixture)\0".utf8).write(to: URL(fileURLWithPath: list))
    // mediacompat: a tone.wav plays on chrome; a file that cannot be probed is exit 2.
    let extra =
      tool == "media2wav"
      ? ["--output-dir", directory.url.path, "--force", "--json"]
      : tool == "mediacompat" ? ["--platform", "chrome", "--ndjson"] : []
    let listed = try run(tool, extra + ["--files-from", list], in: directory.url)
    #expect(listed.status == (tool == "mediacompat" ? 2 : 1), "\(tool): \(listed.stderr)")
    #expect(listed.text.contains("\"not_found\""), "\(tool): \(listed.text.prefix(300))")
    let null = try run(tool, extra + ["--files-from", list, "--null"], in: directory.url)
    #expect(null.status == 0, "\(tool): \(null.stderr)")
  }

  @Test func quietMeansNoReport() throws {
    let good = "\(fixturesDirectory)/tone.wav"
    let missing = "\(fixturesDirectory)/no-such-file.wav"
    let probe = try run("mediaprobe", ["--quiet", good, missing])
    #expect(probe.status == 1)
    #expect(probe.text.isEmpty)
    #expect(probe.stderr.contains("no-such-file.wav"))
    #expect(try run("mediaprobe", ["-q", good]).status == 0)
    #expect(try run("mediaprobe", ["-q", "--ndjson", good]).status == 64)
    #expect(try run("mediacompat", ["-q", "--json", "--platform", "chrome", good]).status == 64)
    #expect(try run("mediacompat", ["-q", "--ndjson", good]).status == 64)
    #expect(try run("media2wav", ["-q", "--json", good, "-o", "-"]).status == 64)
    let compat = try run("mediacompat", ["-q", "--platform", "chrome", missing])
    #expect(compat.status == 2)
    #expect(compat.text.isEmpty)
    #expect(compat.stderr.contains("no-such-file.wav"))
    #expect(try run("mediaprobe", ["-q", "-v", good]).status == 64)
  }

  /// An unknown platform is a usage error in both tools that take platforms.
  @Test func unknownPlatformIsAUsageError() throws {
    let good = "\(fixturesDirectory)/tone.wav"
    #expect(try run("mediaprobe", ["--compat", "windows-phone", good]).status == 64)
    #expect(try run("mediacompat", ["--platform", "windows-phone", good]).status == 64)
    #expect(try run("mediacompat", ["--explain", "windows-phone"]).status == 64)
  }

  /// Choices are offered by shell completion.
  @Test func completionOffersChoices() throws {
    let media2wav = try run("media2wav", ["--generate-completion-script", "bash"])
    let words = { (values: [String]) in values.map { "'\($0)'" }.joined(separator: "$'\\n'") }
    #expect(media2wav.text.contains(words(["u8", "s16", "s24", "s32", "f32", "f64", "auto"])))
    let compat = try run("mediacompat", ["--generate-completion-script", "bash"])
    #expect(compat.text.contains(words(["file", "stream"])))
    #expect(compat.text.contains(words(["chrome", "firefox", "ios-17", "safari"])))
  }

  /// `--files-from`: newline- or NUL-separated lists, from a file or standard input, after the
  /// arguments, in order; a name with a newline in it survives a NUL list.
  @Test(arguments: ["mediaprobe", "mediacompat"])
  func filesFrom(_ tool: String) throws {
    let directory = try TemporaryDirectory()
    let odd = directory.path("line\nbreak.wav")
    try FileManager.default.copyItem(
      atPath: packageRoot.appendingPathComponent("\(fixturesDirectory)/tone.wav").path,
      toPath: odd)
    let a = "\(fixturesDirectory)/tone.ogg"
    let b = "\(fixturesDirectory)/vfr.mp4"
    let report = tool == "mediacompat" ? ["--ndjson", "--platform", "chrome"] : ["--ndjson"]
    let list = directory.path("list.txt")
    try "\(a)\r\n\n\(b)\n".write(toFile: list, atomically: true, encoding: .utf8)
    let lines = try run(tool, report + ["--files-from", list, "\(fixturesDirectory)/tone.wav"])
    let paths = lines.text.split(separator: "\n").map { line in
      value(try? JSONSerialization.jsonObject(with: Data(line.utf8)), "path") as? String
    }
    // An empty line is an entry too (not_found): the records match the list line for line.
    #expect(paths == ["\(fixturesDirectory)/tone.wav", a, "", b], "\(lines.stderr)")
    let nul = try run(
      tool, report + ["-0", "--files-from", "-"], stdin: Data("\(odd)\u{0}\(a)\u{0}".utf8))
    let names = nul.text.split(separator: "\n").map { line in
      value(try? JSONSerialization.jsonObject(with: Data(line.utf8)), "path") as? String
    }
    #expect(names == [odd, a], "\(nul.stderr)")
    #expect(try run(tool, ["--files-from", directory.path("missing.txt")]).status == 64)
    #expect(try run(tool, ["--null", a]).status == 64)
    #expect(try run(tool, ["--files-from", "-", "-"]).status == 64)
  }

  /// media2wav takes a list too, writing into a folder, in list order.
  @Test func media2wavTakesAList() throws {
    let directory = try TemporaryDirectory()
    try FileManager.default.createDirectory(
      atPath: directory.path("wav"), withIntermediateDirectories: true)
    let files = ["\(fixturesDirectory)/tone_adts.aac", "\(fixturesDirectory)/tone.ogg"]
    let wavs = try run(
      "media2wav", ["--json", "--output-dir", directory.path("wav"), "-0", "--files-from", "-"],
      stdin: Data(files.joined(separator: "\u{0}").utf8))
    #expect(wavs.status == 0, "\(wavs.stderr)")
    #expect((try wavs.json() as? [[String: Any]])?.map { $0["input"] as? String } == files)
    #expect(
      (try? FileManager.default.contentsOfDirectory(atPath: directory.path("wav")))?.sorted()
        == ["tone.wav", "tone_adts.wav"])
  }

  /// The first results come out before the list ends (a list streamed from a slow producer).
  @Test func listsAreStreamed() throws {
    let binary = productsDirectory.appendingPathComponent("mediaprobe").path
    let file = packageRoot.appendingPathComponent("\(fixturesDirectory)/tone.wav").path
    // The first line of output, and the time it arrived, while the list is still open.
    let script = """
      start=$EPOCHREALTIME
      (echo '\(file)'; sleep 3; echo '\(file)') | '\(binary)' --ndjson --files-from - | {
        read -r first; echo "$(echo "$EPOCHREALTIME - $start" | bc)"; cat > /dev/null; }
      """
    let result = try run("bash", ["-c", script])
    let seconds = try #require(Double(result.text.trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(seconds < 2, "first result after \(seconds) s")
  }

  /// `--output-dir` that does not exist, or is a file, is a usage error (64) before any input is
  /// read (the input is a file the tools would otherwise decode first), and nothing is written.
  @Test(arguments: ["media2wav", "mediacompat", "mediaframe"])
  func outputDirectoryChecked(_ tool: String) throws {
    let directory = try TemporaryDirectory()
    try Data("not a directory".utf8).write(to: URL(fileURLWithPath: directory.path("file")))
    let input = "\(fixturesDirectory)/compat_01_h264_baseline_480p_1.2M.mp4"
    let options: [String] =
      switch tool {
      case "mediacompat": ["--fix", "--platform", "firefox"]
      case "mediaframe": ["--at", "0.5"]
      default: []
      }
    for (dir, reason) in [("missing", "No such file or directory"), ("file", "is not a directory")]
    {
      let result = try run(tool, options + ["--output-dir", directory.path(dir), input])
      #expect(result.status == 64, "\(tool): \(result.stderr)")
      #expect(result.stderr.contains("--output-dir \(directory.path(dir))"), "\(result.stderr)")
      #expect(result.stderr.contains(reason), "\(result.stderr)")
    }
    #expect(directory.contents == ["file"])
  }
}
