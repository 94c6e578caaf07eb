import AV
import Foundation
import MediaCore
import Testing

/// libavfilter and libswscale are loaded only by a process that builds a filter graph or a
/// scaler: the tools that do not filter or scale do not link them (libavfilter and the ~30
/// libraries behind it cost ~11 ms a start, libswscale 0.1-0.2 ms).
@Suite struct LibraryLoadingTests {
  /// The built tools link libavformat but neither libavfilter nor libswscale (mediaframe
  /// scales every picture and filters HDR ones: through the libraries loaded on first use).
  @Test(arguments: ["mediaprobe", "media2wav", "mediacompat", "mediamerge", "mediaframe"])
  func toolsDoNotLinkThem(tool: String) throws {
    let binary = productsDirectory.appendingPathComponent(tool).path
    try #require(FileManager.default.isExecutableFile(atPath: binary), "build the tools first")
    let linked = try run("ldd", [binary])
    #expect(linked.status == 0)
    #expect(linked.text.contains("libavformat"))
    #expect(!linked.text.contains("libavfilter"), "\(linked.text)")
    #expect(!linked.text.contains("libswscale"), "\(linked.text)")
  }

  /// In a process of its own (so no other test has built a graph or a scaler): neither library
  /// is mapped at first; libavfilter is after the first graph, libswscale after the first
  /// scaler.
  @Test func firstUseLoadsThem() throws {
    let name = "first-use-loads"
    if ChildProcess.isChild(name) {
      #expect(try !mapped("libavfilter.so"), "libavfilter was mapped before any graph")
      #expect(try !mapped("libswscale.so"), "libswscale was mapped before any scaler")
      let graph = try FilterGraph(threads: 1)
      _ = try graph.addVideoSource(
        name: "in",
        VideoParameters(width: 16, height: 16, pixelFormat: .yuv420p, timeBase: Rational(1, 25)!))
      _ = try graph.addVideoSink(name: "out")
      try graph.configure("null")
      #expect(try mapped("libavfilter.so"), "libavfilter is not mapped after building a graph")
      _ = try Scaler(
        from: ImageFormat(width: 16, height: 16, pixelFormat: .yuv420p),
        to: ImageFormat(width: 16, height: 16, pixelFormat: .rgb24))
      #expect(try mapped("libswscale.so"), "libswscale is not mapped after making a scaler")
      ChildProcess.ran(name)
      return
    }
    let child = try ChildProcess.run(name, testID: "LibraryLoadingTests/firstUseLoadsThem()")
    #expect(child.status == 0, "\(child.text)\(child.stderr)")
    #expect(child.text.contains(ChildProcess.marker(name)), "\(child.text)")
  }
}

/// Whether a library whose file name contains `library` is mapped into this process
/// (`/proc/self/maps`, read to its end: the file reports a size of 0). The same text must list
/// libavformat, which is linked, so an empty read cannot pass for "not mapped".
func mapped(_ library: String) throws -> Bool {
  let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/maps"))
  defer { try? handle.close() }
  let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
  try #require(maps.contains("libavformat.so"), "cannot read /proc/self/maps")
  return maps.contains(library)
}
