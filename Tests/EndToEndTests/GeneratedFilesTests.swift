import Foundation
import Testing

/// The committed completions are what the commands generate now (the man pages are checked by
/// `Scripts/update-generated.sh --check`, which `make test` runs).
@Suite struct GeneratedFilesTests {
  static let tools = ["mediaprobe", "media2wav", "mediacompat", "mediamerge", "mediaframe"]

  @Test(arguments: tools)
  func completionsAreUpToDate(_ tool: String) throws {
    for (shell, file) in [("bash", "\(tool).bash"), ("zsh", "_\(tool)"), ("fish", "\(tool).fish")] {
      let generated = try run(tool, ["--generate-completion-script", shell])
      let committed = try String(
        contentsOf: packageRoot.appendingPathComponent("completions/\(file)"), encoding: .utf8)
      #expect(
        generated.text == committed, "completions/\(file) drifted: run Scripts/update-generated.sh")
    }
  }

  @Test(arguments: tools)
  func manPageExistsAndDocumentsExitStatus(_ tool: String) throws {
    let page = try String(
      contentsOf: packageRoot.appendingPathComponent("man/\(tool).1"), encoding: .utf8)
    #expect(page.contains("EXIT STATUS"))
    let help = try run(tool, ["--help"])
    #expect(help.status == 0)
    #expect(page.contains(".Nm \(tool)") || page.contains(tool))
  }
}
