import OutputKit
import MediaCore
/// Reading the NAL units of H.264 and HEVC streams: Annex B start codes, emulation prevention,
/// and the bit reader of their parameter sets.
package enum NALUnits {
  /// The NAL units of an Annex B byte stream (each after a `00 00 01` start code, up to the next
  /// start code or the end; trailing zero bytes of a four-byte start code are left out).
  package static func annexB(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    var units: [ArraySlice<UInt8>] = []
    var index = 0
    var start: Int?
    while index + 2 < bytes.count {
      if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
        if let start {
          var end = index
          while end > start, bytes[end - 1] == 0 { end -= 1 }
          units.append(bytes[start..<end])
        }
        index += 3
        start = index
      } else {
        index += 1
      }
    }
    if let start, start < bytes.count { units.append(bytes[start...]) }
    return units
  }

  /// The RBSP: every 0x03 that follows two zero bytes removed.
  package static func removingEmulationPrevention(_ nal: ArraySlice<UInt8>) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(nal.count)
    var zeros = 0
    for byte in nal {
      if zeros >= 2 && byte == 3 {
        zeros = 0
        continue
      }
      zeros = byte == 0 ? zeros + 1 : 0
      result.append(byte)
    }
    return result
  }
}

/// Reads bits MSB first, with the Exp-Golomb codes of H.264 and HEVC.
package struct BitReader {
  package let bytes: [UInt8]
  package var position = 0

  package init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// The next `count` (≤ 32) bits, or nil past the end.
  package mutating func read(_ count: Int) -> UInt32? {
    guard position + count <= bytes.count * 8 else { return nil }
    var value: UInt32 = 0
    for _ in 0..<count {
      let bit = (bytes[position >> 3] >> (7 - UInt8(position & 7))) & 1
      value = value << 1 | UInt32(bit)
      position += 1
    }
    return value
  }

  /// Skips `count` bits; false past the end.
  package mutating func skip(_ count: Int) -> Bool {
    guard count >= 0, position + count <= bytes.count * 8 else { return false }
    position += count
    return true
  }

  /// An unsigned Exp-Golomb code.
  package mutating func readUE() -> UInt32? {
    var zeros = 0
    while true {
      guard let bit = read(1) else { return nil }
      if bit == 1 { break }
      zeros += 1
      if zeros > 31 { return nil }
    }
    guard let suffix = read(zeros) else { return nil }
    return (UInt32(1) << UInt32(zeros)) - 1 + suffix
  }

  /// A signed Exp-Golomb code.
  package mutating func readSE() -> Int32? {
    guard let code = readUE() else { return nil }
    return code & 1 == 1 ? Int32((code + 1) / 2) : -Int32(code / 2)
  }

  /// Skips an H.264 scaling list of `size` entries.
  package mutating func skipScalingList(_ size: Int) -> Bool {
    var last: Int32 = 8
    var next: Int32 = 8
    for _ in 0..<size where next != 0 {
      guard let delta = readSE() else { return false }
      next = (last + delta + 256) % 256
      if next != 0 { last = next }
    }
    return true
  }
}
