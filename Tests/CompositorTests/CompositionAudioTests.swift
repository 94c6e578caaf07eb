import Composition
import MediaCore
import Testing

@testable import Compositor

@Suite struct CompositionAudioInterfaceTests {
  @Test func aBlockHoldsOneArrayPerChannel() {
    let block = AudioBlock(start: 48_000, channels: [[0, 0.5], [0, -0.5]])
    #expect(block.channels.count == 2)
    #expect(block.start == 48_000)
  }
}
