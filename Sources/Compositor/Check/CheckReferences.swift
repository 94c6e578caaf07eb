import AV
import Composition
import OutputKit

/// The self-check's reference pictures, put aside by the render as it passes each segment's
/// checked frame: the picture of the source frame the plan names, put through the segment's
/// transform and looks — what was handed to the encoder — so the check compares the written
/// file with it without decoding the sources a second time (on long-GOP sources that second
/// decode, from the keyframe before each segment's middle, cost as much as the rest of the check).
///
/// The pictures go to a `ScratchFile`, so memory holds none of them however many segments there
/// are; a picture that cannot be put aside (no scratch file, a full disk) is simply not kept, and
/// the check then decodes its reference afresh from the source, as it always could.
final class CheckReferences {
  /// The segments' checked frames.
  let targets: [VideoCheck.Target]
  private let wanted: Set<Int64>
  private let scratch: ScratchFile?
  private var kept: [Int64: (offset: Int64, sizes: [Int])] = [:]

  /// References for `plan`'s checked frames (of `frames` in all).
  init(plan: CompositionPlan, frames: Int64) {
    targets = VideoCheck.targets(plan: plan, frames: frames)
    wanted = Set(targets.compactMap(\.frame))
    scratch = wanted.isEmpty ? nil : ScratchFile()
  }

  /// Puts `picture` aside when output frame `frame` is a checked one.
  func keep(_ picture: Frame, frame: Int64) {
    guard wanted.contains(frame), let scratch else { return }
    let planes = VideoCheck.planes(picture)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(planes.reduce(0) { $0 + $1.count })
    for plane in planes { bytes.append(contentsOf: plane) }
    if let offset = bytes.withUnsafeBytes({ scratch.append($0) }) {
      kept[frame] = (offset, planes.map(\.count))
    }
  }

  /// Whether the picture of output frame `frame` was put aside.
  func hasPicture(frame: Int64) -> Bool { kept[frame] != nil }

  /// The Y, Cb and Cr samples put aside for output frame `frame`; nil when none were (or they
  /// cannot be read back).
  func picture(frame: Int64) -> [[UInt8]]? {
    guard let (offset, sizes) = kept[frame], let scratch else { return nil }
    var planes: [[UInt8]] = []
    var position = offset
    for size in sizes {
      var plane = [UInt8](repeating: 0, count: size)
      guard plane.withUnsafeMutableBytes({ scratch.read(at: position, into: $0) }) else {
        return nil
      }
      planes.append(plane)
      position += Int64(size)
    }
    return planes
  }
}
