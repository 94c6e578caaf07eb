import AudioExtract
import MediaCore
import AV
import OutputKit
import MediaProbe

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// The line media2wav prints on standard error for each WAV it wrote, unless `--quiet`:
/// `wrote out.wav: 2:03.4, 48000 Hz, 2 ch, s16, 23.7 MB` (`, RF64` when the header became one;
/// `wrote standard output: ...` for `-o -`). It replaces the progress bar, which clears itself,
/// and it goes to standard error whether or not that is a terminal, so standard output keeps
/// only the WAV data or the JSON report.
enum WroteLine {
  /// The line for an output of `format` holding `samples` frames, `bytes` long.
  static func text(output: String, format: PCMFormat, samples: Int64, rf64: Bool, bytes: Int64)
    -> String
  {
    let name = output == "-" ? "standard output" : output
    let seconds = format.sampleRate > 0 ? Double(samples) / Double(format.sampleRate) : 0
    return "wrote \(name): \(clock(seconds)), \(format.sampleRate) Hz, \(format.channels) ch, "
      + "\(format.encoding.rawValue), \(size(bytes))\(rf64 ? ", RF64" : "")"
  }

  /// The size of what was written to `path` (`-`: standard output): the file's size when it is
  /// a regular file, otherwise (a pipe, a character device) the header media2wav writes to a
  /// stream plus the data and its pad byte.
  static func bytes(path: String, format: PCMFormat, samples: Int64) -> Int64 {
    if path != "-" {
      var info = stat()
      if FileName.withCString(path, { stat($0, &info) }) == 0,
        info.st_mode & S_IFMT == S_IFREG
      {
        return Int64(info.st_size)
      }
    }
    let data = samples * Int64(format.blockAlign)
    let header = WAVHeader(format: format, reservesRF64: false, seekable: false)
    return Int64(header.size) + data + (data & 1)
  }

  /// `m:ss.s` (`h:mm:ss.s` from an hour), rounded to tenths.
  static func clock(_ seconds: Double) -> String {
    let tenths = Int((max(0, seconds) * 10).rounded())
    let (h, m, s, t) = (tenths / 36000, tenths / 600 % 60, tenths / 10 % 60, tenths % 10)
    let two = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
    return h > 0 ? "\(h):\(two(m)):\(two(s)).\(t)" : "\(m):\(two(s)).\(t)"
  }

  /// Decimal units with one decimal: `44 bytes`, `96.1 kB`, `23.7 MB`, `4.3 GB`.
  static func size(_ bytes: Int64) -> String {
    if bytes < 1000 { return "\(bytes) bytes" }
    for (unit, scale) in [("kB", 1e3), ("MB", 1e6), ("GB", 1e9)] {
      let value = Double(bytes) / scale
      if value < 999.95 || unit == "GB" { return "\(fixed(value, places: 1)) \(unit)" }
    }
    return "\(bytes) bytes"
  }
}
