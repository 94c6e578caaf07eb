import AV
import OutputKit
import CEBUR128
import Synchronization

/// An owned libebur128 state (`ebur128_destroy` on deinit).
///
/// `ebur128_init` fills global tables the first time it runs, so every init goes through one lock.
final class EBUR128State {
  let pointer: UnsafeMutablePointer<ebur128_state>
  let channels: Int
  private static let initLock = Mutex(())

  /// A state for `channels` channels at `sampleRate` in `mode` (`EBUR128_MODE_*` bits); nil when
  /// libebur128 refuses them (more than 64 channels, a rate outside 16 Hz...2.8224 MHz).
  init?(channels: Int, sampleRate: Int, mode: Int32) {
    guard channels > 0, channels <= 64, sampleRate >= 16, sampleRate <= 2_822_400 else {
      return nil
    }
    let made = Self.initLock.withLock { _ in
      ebur128_init(UInt32(channels), UInt(sampleRate), mode)
    }
    guard let made else { return nil }
    pointer = made
    self.channels = channels
  }

  deinit {
    var state: UnsafeMutablePointer<ebur128_state>? = pointer
    ebur128_destroy(&state)
  }

  /// Sets what each channel is (its weight: 1.0, 1.41 for surrounds, 0 for LFE).
  func setChannels(_ map: [Int32]) {
    for (index, value) in map.enumerated() where index < channels {
      _ = ebur128_set_channel(pointer, UInt32(index), value)
    }
  }

  /// A per-channel getter's values (sample peak, true peak), linear.
  func perChannel(
    _ getter: (UnsafeMutablePointer<ebur128_state>?, UInt32, UnsafeMutablePointer<Double>?) ->
      Int32
  ) -> [Double] {
    (0..<channels).map { channel in
      var value = 0.0
      return getter(pointer, UInt32(channel), &value) == EBUR128_SUCCESS.rawValue ? value : 0
    }
  }
}

/// The libebur128 channel types for a WAV channel mask (FFmpeg's native order: the n-th channel
/// is the n-th set bit), following ITU-R BS.1770-4's weights: 1.41 for channels 60 to 120 degrees
/// off centre (side surrounds, and the back pair of a 5.1 layout, which are its surrounds at 110
/// degrees), 1.0 for the others (the back pair of a 7.1 layout sits at 135-150 degrees), LFE
/// left out. nil for an unknown mask (libebur128's default by index then applies: L R C LFE Ls
/// Rs, and nothing beyond the sixth channel).
func ebur128ChannelMap(mask: UInt64, channels: Int) -> [Int32]? {
  guard mask != 0, mask.nonzeroBitCount == channels else { return nil }
  let hasSides = mask & 0x600 != 0
  var map: [Int32] = []
  for bit in 0..<64 where mask & (1 << UInt64(bit)) != 0 {
    let type: CEBUR128.channel =
      switch bit {
      case 0: EBUR128_LEFT  // FL
      case 1: EBUR128_RIGHT  // FR
      case 2: EBUR128_CENTER  // FC
      case 3, 35: EBUR128_UNUSED  // LFE, LFE2
      case 4: hasSides ? EBUR128_Mp135 : EBUR128_LEFT_SURROUND  // BL
      case 5: hasSides ? EBUR128_Mm135 : EBUR128_RIGHT_SURROUND  // BR
      case 6: EBUR128_MpSC  // FLC
      case 7: EBUR128_MmSC  // FRC
      case 8: EBUR128_Mp180  // BC
      case 9, 33: EBUR128_Mp090  // SL, surround direct left
      case 10, 34: EBUR128_Mm090  // SR, surround direct right
      case 11: EBUR128_Tp000  // TC
      case 12: EBUR128_Up030  // TFL
      case 13: EBUR128_Up000  // TFC
      case 14: EBUR128_Um030  // TFR
      case 15: EBUR128_Up135  // TBL
      case 16: EBUR128_Up180  // TBC
      case 17: EBUR128_Um135  // TBR
      case 31: EBUR128_Mp060  // WL
      case 32: EBUR128_Mm060  // WR
      case 36: EBUR128_Up090  // TSL
      case 37: EBUR128_Um090  // TSR
      case 38: EBUR128_Bp000  // BFC
      case 39: EBUR128_Bp045  // BFL
      case 40: EBUR128_Bm045  // BFR
      default: EBUR128_Mp000  // anything else counts with weight 1.0
      }
    map.append(Int32(bitPattern: type.rawValue))
  }
  return map
}

/// The libebur128 measurement of integrated loudness, loudness range and sample peak, in
/// HISTOGRAM mode: memory stays the same whatever the length (the default mode keeps every
/// 100 ms block, about 1.3 MB per hour), at the price of 0.1 LU bins (results within 0.05 LU of
/// the default mode's; measured in the tests against the EBU cases).
final class LoudnessMeter {
  private let state: EBUR128State
  let sampleRate: Int
  /// u8 and s24 samples as float.
  private var scratch: [Float] = []

  /// - Returns: nil when libebur128 cannot measure this many channels or this rate.
  init?(channels: Int, sampleRate: Int, channelMask: UInt64) {
    let mode =
      Int32(
        EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue | EBUR128_MODE_SAMPLE_PEAK.rawValue
          | EBUR128_MODE_HISTOGRAM.rawValue)
    guard let state = EBUR128State(channels: channels, sampleRate: sampleRate, mode: mode) else {
      return nil
    }
    if let map = ebur128ChannelMap(mask: channelMask, channels: channels) {
      state.setChannels(map)
    }
    self.state = state
    self.sampleRate = sampleRate
  }

  /// Adds whole interleaved frames of bytes in `encoding`: in their own type where libebur128 has
  /// one (s16, s32, f32, f64), as float otherwise (u8 and packed s24, which float holds exactly).
  func add(_ bytes: UnsafeRawBufferPointer, encoding: PCMEncoding) {
    guard let raw = bytes.baseAddress else { return }
    let samples = bytes.count / encoding.bytesPerSample
    let frames = samples / state.channels
    switch encoding {
    case .s16: add(int16: raw.assumingMemoryBound(to: Int16.self), frames: frames)
    case .s32: add(int32: raw.assumingMemoryBound(to: Int32.self), frames: frames)
    case .f32: add(float: raw.assumingMemoryBound(to: Float.self), frames: frames)
    case .f64: add(double: raw.assumingMemoryBound(to: Double.self), frames: frames)
    case .u8, .s24:
      if scratch.count < samples { scratch = [Float](repeating: 0, count: samples) }
      scratch.withUnsafeMutableBufferPointer { out in
        encoding.convertToFloat(raw, samples: samples, into: out.baseAddress!)
        add(float: out.baseAddress!, frames: frames)
      }
    }
  }

  /// Adds interleaved frames.
  func add(int16 samples: UnsafePointer<Int16>, frames: Int) {
    _ = ebur128_add_frames_short(state.pointer, samples, frames)
  }
  /// Adds interleaved frames.
  func add(int32 samples: UnsafePointer<Int32>, frames: Int) {
    _ = ebur128_add_frames_int(state.pointer, samples, frames)
  }
  /// Adds interleaved frames.
  func add(float samples: UnsafePointer<Float>, frames: Int) {
    _ = ebur128_add_frames_float(state.pointer, samples, frames)
  }
  /// Adds interleaved frames.
  func add(double samples: UnsafePointer<Double>, frames: Int) {
    _ = ebur128_add_frames_double(state.pointer, samples, frames)
  }

  /// Integrated loudness in LUFS (minus infinity when nothing passed the gates).
  var integratedLoudness: Double {
    var value = -Double.infinity
    _ = ebur128_loudness_global(state.pointer, &value)
    return value
  }

  /// Loudness range in LU (0 under 3 s).
  var loudnessRange: Double {
    var value = 0.0
    _ = ebur128_loudness_range(state.pointer, &value)
    return value
  }

  /// Each channel's sample peak, linear (1.0 = full scale).
  var samplePeaks: [Double] { state.perChannel(ebur128_sample_peak) }

  /// The three results together.
  var result: LoudnessResult {
    LoudnessResult(
      integratedLoudness: integratedLoudness, loudnessRange: loudnessRange,
      samplePeaks: samplePeaks)
  }
}

/// What a `LoudnessMeter` measured.
struct LoudnessResult: Sendable {
  /// LUFS (minus infinity when nothing passed the gates).
  var integratedLoudness: Double
  /// LU (0 under 3 s).
  var loudnessRange: Double
  /// Linear, per channel.
  var samplePeaks: [Double]
}
