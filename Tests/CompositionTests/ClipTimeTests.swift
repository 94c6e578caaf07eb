import Composition
import Foundation
import MediaCore
import Testing

/// A clip's crop, rotate/mirror, speed and freeze frame: the strict reader's errors by path, and
/// the plan's values against the arithmetic of the sources chosen (never against printed plans).
@Suite struct ClipTimeTests {
  /// 4 s, 1280x720 stored, 30 fps, with audio.
  static let four = SourceFacts.video(
    duration: t("4"), width: 1280, height: 720, frameRate: Rational(30, 1))
  /// A phone clip stored 1920x1080 whose display matrix turns it 90° clockwise (shows 1080x1920).
  static let phone: SourceFacts = {
    var facts = SourceFacts.video(
      duration: t("2"), width: 1080, height: 1920, frameRate: Rational(30, 1), rotation: 90)
    facts.storedWidth = 1920
    facts.storedHeight = 1080
    return facts
  }()
  /// An anamorphic clip: stored 720x576 shown 1024x576 (pixel aspect 64:45).
  static let anamorphic: SourceFacts = {
    var facts = SourceFacts.video(
      duration: t("2"), width: 1024, height: 576, frameRate: Rational(25, 1))
    facts.storedWidth = 720
    facts.storedHeight = 576
    return facts
  }()
  static let still = SourceFacts.image(width: 640, height: 480)
  static let sources = [
    "a.mp4": four, "phone.mov": phone, "dv.mp4": anamorphic, "title.png": still,
  ]

  func plan(_ json: String) throws -> CompositionPlan {
    try resolver(Self.sources).resolve(try document(json))
  }

  func resolveError(_ json: String) -> CompositionError? {
    do {
      _ = try plan(json)
      return nil
    } catch {
      return error as? CompositionError
    }
  }

  // MARK: - The strict reader

  @Test(arguments: [
    (#"{"source": "a.mp4", "crop": {"x": -1, "y": 0, "width": 2, "height": 2}}"#, "clips[0].crop"),
    (#"{"source": "a.mp4", "crop": {"x": 0, "y": 0, "width": 0, "height": 2}}"#, "clips[0].crop"),
    (#"{"source": "a.mp4", "rotate": 45}"#, "clips[0].rotate"),
    (#"{"source": "a.mp4", "speed": 0.2}"#, "clips[0].speed"),
    (#"{"source": "a.mp4", "speed": "9/2"}"#, "clips[0].speed"),
    (#"{"source": "a.mp4", "pitch": "follow"}"#, "clips[0].pitch"),
    (#"{"source": "a.mp4", "freeze": 1}"#, "clips[0]"),
    (#"{"source": "a.mp4", "freeze": -1, "duration": 1}"#, "clips[0].freeze"),
    (#"{"source": "a.mp4", "freeze": 1, "duration": 1, "to": 2}"#, "clips[0].to"),
    (#"{"source": "a.mp4", "freeze": 1, "duration": 1, "speed": 2}"#, "clips[0].speed"),
    (#"{"source": "a.mp4", "freeze": 1, "duration": 1, "volume": 1}"#, "clips[0].volume"),
    (#"{"duration": 1, "speed": 2}"#, "clips[0].speed"),
    (#"{"duration": 1, "crop": {"x": 0, "y": 0, "width": 2, "height": 2}}"#, "clips[0].crop"),
  ])
  func refusedValuesNameTheirPath(clip: String, location: String) throws {
    let error = decodingError(#"{"version": 1, "clips": ["# + clip + "]}")
    #expect(error?.code == "invalid_composition")
    #expect(error?.location == location, "\(String(describing: error))")
  }

  /// Unknown keys inside a crop and unknown pitch names are named by path, as everywhere.
  @Test func unknownCropKeyAndPitchAreNamed() {
    let key = decodingError(
      #"{"version": 1, "clips": [{"source": "a.mp4", "crop": {"x": 0, "y": 0, "w": 2}}]}"#)
    #expect(key?.code == "invalid_composition")
    #expect(key?.message.contains("clips[0].crop") == true, "\(String(describing: key))")
    let pitch = decodingError(
      #"{"version": 1, "clips": [{"source": "a.mp4", "speed": 2, "pitch": "up"}]}"#)
    #expect(pitch?.message.contains("keep, follow") == true, "\(String(describing: pitch))")
  }

  /// What a document holds is written back as it was read (absent stays absent).
  @Test func roundTrip() throws {
    let text = #"""
      {"version": 1, "clips": [
        {"source": "a.mp4", "crop": {"x": 2, "y": 4, "width": 100, "height": 50},
         "rotate": 270, "mirror": true, "speed": "3/2", "pitch": "follow"},
        {"source": "a.mp4", "freeze": 1.5, "duration": 2}]}
      """#
    let read = try document(text)
    #expect(read.clips[0].crop == CropRect(x: 2, y: 4, width: 100, height: 50))
    #expect(read.clips[0].speed == n("3/2") && read.clips[0].pitch == .follow)
    #expect(read.clips[1].freeze == n("1.5"))
    #expect(try CompositionDocument.decode(json: read.encodedJSON()) == read)
    let plain = try document(#"{"version": 1, "clips": [{"source": "a.mp4"}]}"#)
    let written = String(decoding: plain.encodedJSON(), as: UTF8.self)
    for key in ["crop", "rotate", "mirror", "speed", "pitch", "freeze"] {
      #expect(!written.contains("\"\(key)\""))
    }
  }

  // MARK: - Speed

  /// 4 s at 2x lasts 2 s; at 3/2 it lasts 8/3 s exactly (not 2.6667); the next clip starts there.
  @Test func speedDividesTheLengthExactly() throws {
    let plan = try plan(
      #"""
      {"version": 1, "clips": [
        {"source": "a.mp4", "speed": 2},
        {"source": "a.mp4", "speed": "3/2", "from": 0, "to": 4},
        {"source": "a.mp4", "speed": 0.25, "from": 1, "to": 2}]}
      """#)
    #expect(plan.segments[0].compositionRange == TimeRange(start: t("0"), end: t("2")))
    #expect(plan.segments[1].compositionRange == TimeRange(start: t("2"), end: t("14/3")))
    #expect(plan.segments[2].compositionRange == TimeRange(start: t("14/3"), end: t("26/3")))
    #expect(plan.duration == t("26/3"))
    // The source range stays the source's.
    #expect(plan.segments[1].sourceRange == TimeRange(start: t("0"), end: t("4")))
    #expect(plan.segments.map(\.speed) == [Rational(2, 1), Rational(3, 2), Rational(1, 4)])
    #expect(plan.segments.map(\.pitch) == [.keep, .keep, .keep])
    // Source time runs `speed` times as fast: 1 s into the second clip shows source 1.5 s.
    #expect(plan.segments[1].sourceTime(at: t("3")) == t("1.5"))
    #expect(plan.segments[2].sourceTime(at: t("14/3")) == t("1"))
    #expect(plan.segments[2].sourceTime(at: t("20/3")) == t("1.5"))
  }

  /// A marker at source time s lands at the clip's start + (s − from) / speed; a transition
  /// keeps its composition duration; the audio envelope is on the composition's timeline.
  @Test func markersAndTransitionsAreRetimed() throws {
    let plan = try plan(
      #"""
      {"version": 1, "clips": [
        {"source": "a.mp4"},
        {"source": "a.mp4", "from": 1, "to": 4, "speed": 3, "pitch": "follow",
         "transition": {"type": "crossfade", "duration": 0.5},
         "markers": [{"at": 2.5, "name": "m"}, {"at": "7/3", "name": "n"}]}]}
      """#)
    // Clip 1 lasts (4 - 1) / 3 = 1 s and starts at 4 - 0.5.
    #expect(plan.segments[1].compositionRange == TimeRange(start: t("3.5"), end: t("4.5")))
    #expect(plan.transitions[0].range == TimeRange(start: t("3.5"), end: t("4")))
    // 3.5 + (2.5 - 1) / 3 = 4; 3.5 + (7/3 - 1) / 3 = 3.5 + 4/9.
    #expect(plan.markers.map(\.time) == [t("71/18"), t("4")])
    #expect(plan.markers.map(\.name) == ["n", "m"])
    #expect(plan.segments[1].pitch == .follow)
    #expect(
      plan.segments[1].audio?.gain.points.map(\.time) == [t("3.5"), t("4"), t("4.5")])
  }

  /// A still takes no speed (it has no time of its own).
  @Test func aStillRefusesSpeed() {
    let error = resolveError(
      #"{"version": 1, "clips": [{"source": "title.png", "duration": 1, "speed": 2}]}"#)
    #expect(error?.location == "clips[0].speed", "\(String(describing: error))")
  }

  // MARK: - Freeze

  /// A freeze frame lasts its duration, shows one source time, is silent, and its markers count
  /// from its start (as a still's).
  @Test func freezeHoldsOnePicture() throws {
    let plan = try plan(
      #"""
      {"version": 1, "clips": [
        {"source": "a.mp4", "to": 1},
        {"source": "a.mp4", "freeze": "1001/1000", "duration": 2,
         "markers": [{"at": 0.5, "name": "held"}]},
        {"source": "a.mp4", "from": 1}]}
      """#)
    #expect(plan.duration == t("6"))
    let freeze = plan.segments[1]
    #expect(freeze.kind == .video && freeze.freeze == t("1001/1000") && freeze.audio == nil)
    #expect(freeze.compositionRange == TimeRange(start: t("1"), end: t("3")))
    #expect(freeze.sourceRange == TimeRange(start: t("1001/1000"), duration: .zero))
    for time in ["1", "2", "2.999"] { #expect(freeze.sourceTime(at: t(time)) == t("1001/1000")) }
    #expect(plan.markers.map(\.time) == [t("1.5")])
    #expect(plan.segments[2].compositionRange == TimeRange(start: t("3"), end: t("6")))
  }

  @Test func freezeNeedsAVideoAndATimeInside() {
    let past = resolveError(
      #"{"version": 1, "clips": [{"source": "a.mp4", "freeze": 4, "duration": 1}]}"#)
    #expect(past?.code == "clip_past_source_end" && past?.location == "clips[0].freeze")
    let still = resolveError(
      #"{"version": 1, "clips": [{"source": "title.png", "freeze": 0, "duration": 1}]}"#)
    #expect(still?.code == "invalid_composition" && still?.location == "clips[0].freeze")
  }

  // MARK: - Crop and turns

  /// A crop of the stored picture sets the picture's size before fitting, and the render's
  /// size when the document gives none.
  @Test func cropSetsThePictureSize() throws {
    let plan = try plan(
      #"""
      {"version": 1, "clips": [
        {"source": "a.mp4", "crop": {"x": 640, "y": 0, "width": 640, "height": 360}}]}
      """#)
    #expect(plan.render.width == 640 && plan.render.height == 360)
    let transform = try #require(plan.segments[0].transform)
    #expect(transform.crop == CropRect(x: 640, y: 0, width: 640, height: 360))
    #expect(transform.sourceWidth == 640 && transform.sourceHeight == 360)
    #expect(transform.width == 640 && transform.height == 360)
  }

  /// The phone clip's crop is in its stored pixels (1920x1080, landscape): a 1920x540 strip
  /// is shown turned, 540 wide and 1920 tall.
  @Test func aPhoneClipIsCroppedInItsStoredPixels() throws {
    let plan = try plan(
      #"""
      {"version": 1, "clips": [
        {"source": "phone.mov", "crop": {"x": 0, "y": 540, "width": 1920, "height": 540}}]}
      """#)
    let transform = try #require(plan.segments[0].transform)
    #expect(transform.rotation == 90)
    #expect(transform.sourceWidth == 540 && transform.sourceHeight == 1920)
    #expect(plan.render.width == 540 && plan.render.height == 1920)
    let outside = resolveError(
      #"""
      {"version": 1, "clips": [
        {"source": "phone.mov", "crop": {"x": 0, "y": 540, "width": 1080, "height": 1080}}]}
      """#)
    #expect(outside?.location == "clips[0].crop", "\(String(describing: outside))")
    #expect(outside?.message.contains("1920x1080") == true)
  }

  /// An anamorphic crop: 360 stored pixels of pixel aspect 64:45 display 512 wide.
  @Test func anamorphicCropKeepsThePixelAspect() throws {
    let plan = try plan(
      #"""
      {"version": 1, "clips": [
        {"source": "dv.mp4", "crop": {"x": 0, "y": 0, "width": 360, "height": 576}}]}
      """#)
    let transform = try #require(plan.segments[0].transform)
    #expect(transform.sourceWidth == 512 && transform.sourceHeight == 576)
  }

  /// The clip's turn follows the upright rule: for a picture that is not mirrored the degrees
  /// add; for a mirrored one (a front camera) they subtract, since a flip reverses a turn; a
  /// mirror toggles the flip.
  @Test(arguments: [
    // (display rotation, mirrored, rotate, mirror) -> (rotation, mirrored)
    (0, false, 90, false, 90, false),
    (90, false, 90, false, 180, false),
    (90, false, 270, false, 0, false),
    (270, false, 180, true, 90, true),
    (90, true, 90, false, 0, true),
    (90, true, 0, true, 90, false),
    (0, true, 270, true, 90, false),
  ])
  func turnsCompose(
    rotation: Int, mirrored: Bool, rotate: Int, mirror: Bool, total: Int, flipped: Bool
  ) throws {
    var facts = SourceFacts.video(
      duration: t("1"), width: rotation % 180 == 0 ? 160 : 90,
      height: rotation % 180 == 0 ? 90 : 160, frameRate: Rational(30, 1), rotation: rotation,
      mirrored: mirrored)
    facts.storedWidth = 160
    facts.storedHeight = 90
    let doc = try document(
      #"{"version": 1, "clips": [{"source": "v.mp4", "rotate": \#(rotate), "mirror": \#(mirror)}]}"#
    )
    let plan = try resolver(["v.mp4": facts]).resolve(doc)
    let transform = try #require(plan.segments[0].transform)
    #expect(transform.rotation == total && transform.mirrored == flipped)
    // The picture's shape follows the total turn of the stored 160x90.
    #expect(transform.sourceWidth == (total % 180 == 0 ? 160 : 90))
    // The composed turn is the same map of pixels as the two applied one after the other.
    #expect(
      Self.map(rotation: total, mirrored: flipped)
        == Self.compose(
          Self.map(rotation: rotation, mirrored: mirrored),
          Self.map(rotation: rotate, mirrored: mirror)))
  }

  /// Where the corners of a 2x1 picture go under "rotate clockwise, then flip": the images of
  /// (0,0) and (1,0) in the turned picture's coordinates, as a list.
  static func map(rotation: Int, mirrored: Bool) -> [[Int]] {
    // On a unit square's corners: (x, y) -> clockwise quarter turn -> (−y, x); flip -> (−x, y).
    var points = [[1, 0], [0, 1]]
    for _ in 0..<(rotation / 90) { points = points.map { [-$0[1], $0[0]] } }
    if mirrored { points = points.map { [-$0[0], $0[1]] } }
    return points
  }

  /// The linear map `second` ∘ `first` on the same two basis vectors.
  static func compose(_ first: [[Int]], _ second: [[Int]]) -> [[Int]] {
    // `second` as a matrix from the images of the basis vectors.
    first.map { v in
      [v[0] * second[0][0] + v[1] * second[1][0], v[0] * second[0][1] + v[1] * second[1][1]]
    }
  }
}
