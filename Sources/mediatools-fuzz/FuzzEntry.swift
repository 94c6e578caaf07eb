import AudioExtract
import MediaCore
import AV
import OutputKit
import MediaProbe

#if canImport(Glibc)
  import Glibc
#endif

// The coverage-guided fuzzer's entry point (libFuzzer): each input goes through the probe
// (headers, then every packet as with --scan) and the decoder (to s24 at 22.05 kHz with a gain,
// as Scripts/fuzz.sh does, written into /dev/null). Built only by Scripts/fuzz-coverage.sh, with
// MEDIATOOLS_FUZZ set (Package.swift declares the target then) and `--sanitize=fuzzer`; the
// same binary built without `-DLIBFUZZER` replays the files named on its command line.

/// Where each input is written, so the tools read it as a file, as they do in use.
private let scratch: String = {
  let directory = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
  return "\(directory)/mediatools-fuzz-input-\(getpid())"
}()

/// Runs one input through the probe and the decoder; returns 0 (libFuzzer's "keep going").
func fuzzOne(_ bytes: UnsafeRawBufferPointer) -> Int32 {
  let fd = open(scratch, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
  guard fd >= 0 else { fatalError("cannot write \(scratch)") }
  var done = 0
  while done < bytes.count {
    let written = write(fd, bytes.baseAddress! + done, bytes.count - done)
    guard written > 0 else { fatalError("cannot write \(scratch)") }
    done += written
  }
  close(fd)
  let source = InputSource.file(scratch)
  _ = Prober(options: ProbeOptions()).outcome(for: source, path: scratch)
  _ = Prober(options: ProbeOptions(scan: true)).outcome(for: source, path: scratch)
  var options = ExtractOptions()
  options.encoding = .s24
  options.sampleRate = 22050
  options.gainDB = -1
  _ = try? AudioExtractor(options: options).extract(
    source, path: scratch, to: .file(path: "/dev/null", overwrite: false))
  return 0
}

#if LIBFUZZER
  /// libFuzzer calls this once, before the first input.
  @_cdecl("LLVMFuzzerInitialize")
  func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>?,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
  ) -> Int32 {
    FFmpegLogLevel.quiet.apply()
    atexit { unlink(scratch) }
    return 0
  }

  /// libFuzzer calls this for every input (its own `main` drives the run).
  @_cdecl("LLVMFuzzerTestOneInput")
  func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzOne(UnsafeRawBufferPointer(start: data, count: size))
  }
#else
  /// Replays every file named on the command line, once (to reproduce a finding without
  /// libFuzzer).
  @main
  struct FuzzReplay {
    static func main() {
      FFmpegLogLevel.quiet.apply()
      defer { unlink(scratch) }
      for path in CommandLine.arguments.dropFirst() {
        guard let file = fopen(path, "rb") else {
          fputs("mediatools-fuzz: cannot read \(path)\n", stderr)
          exit(1)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
          let count = fread(&chunk, 1, chunk.count, file)
          if count == 0 { break }
          bytes += chunk[..<count]
        }
        fclose(file)
        _ = bytes.withUnsafeBytes { fuzzOne($0) }
        print("replayed \(path)")
      }
    }
  }
#endif
