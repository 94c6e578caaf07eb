#!/usr/bin/env python3
"""The OpenTimelineIO side of the composition tests, run with the pinned reference
implementation (Tests/requirements.txt, through Scripts/test-python).

  otio-oracle.py make OUTDIR     writes the test timelines, built with opentimelineio, into
                                 OUTDIR (*.otio; edl.otio is converted from a CMX 3600 EDL by the
                                 otio-cmx3600-adapter, as an editor's EDL export reaches us)
  otio-oracle.py ranges FILE...  prints, for each timeline, what the reference implementation
                                 computes: each track child's range_of_child_at_index, the
                                 handles_of_child of each clip and gap, their source ranges, the
                                 media reference's available start, each marker's time on the
                                 track (transformed_time), the track's duration (JSON, seconds)
"""
import json
import os
import sys

import opentimelineio as otio

RT = otio.opentime.RationalTime
TR = otio.opentime.TimeRange


def rng(start, duration, rate):
    return TR(RT(start, rate), RT(duration, rate))


def clip(name, url, start, duration, rate, available_start=None, markers=()):
    ref = otio.schema.ExternalReference(target_url=url)
    if available_start is not None:
        ref.available_range = rng(available_start, 100000, rate)
    c = otio.schema.Clip(name=name, media_reference=ref, source_range=rng(start, duration, rate))
    for at, marker_name in markers:
        c.markers.append(otio.schema.Marker(name=marker_name, marked_range=rng(at, 0, rate)))
    return c


def dissolve(in_offset, out_offset, rate):
    return otio.schema.Transition(
        transition_type=otio.schema.TransitionTypes.SMPTE_Dissolve,
        in_offset=RT(in_offset, rate), out_offset=RT(out_offset, rate))


def make(folder):
    os.makedirs(folder, exist_ok=True)
    # dissolves.otio: 24 fps; a dissolve centred on the cut (12 + 12 frames), a gap, a dissolve
    # out of the gap starting at the cut (0 + 24), a clip whose media starts at timecode
    # 01:00:00:00 (available_range), markers, a disabled clip (a gap), and a music track with a
    # leading gap and a dissolve to a gap at its end (its fade-out).
    timeline = otio.schema.Timeline(name="dissolves")
    video = otio.schema.Track(name="V1", kind=otio.schema.TrackKind.Video)
    video.append(clip("a", "media/a.mp4", 0, 192, 24, markers=[(48, "a at 2 s")]))
    video.append(dissolve(12, 12, 24))
    video.append(clip("b", "media/b.mp4", 48, 144, 24, markers=[(60, "b at 2.5 s")]))
    video.append(otio.schema.Gap(source_range=rng(0, 24, 24)))
    video.append(dissolve(0, 24, 24))
    video.append(clip("c", "media/c%20d.mp4", 86400 + 24, 96, 24, available_start=86400,
                      markers=[(86400 + 72, "c at 3 s")]))
    disabled = clip("off", "media/a.mp4", 0, 36, 24)
    disabled.enabled = False
    video.append(disabled)
    video.append(clip("e", "file:///abs/media/e.mp4", 0, 48, 24))
    timeline.tracks.append(video)
    music = otio.schema.Track(name="A1", kind=otio.schema.TrackKind.Audio)
    music.append(otio.schema.Gap(source_range=rng(0, 48, 24)))
    music.append(clip("music", "media/music.m4a", 24, 240, 24))
    music.append(dissolve(48, 0, 24))
    music.append(otio.schema.Gap(source_range=rng(0, 48, 24)))
    timeline.tracks.append(music)
    otio.adapters.write_to_file(timeline, os.path.join(folder, "dissolves.otio"))

    # ntsc.otio: 30000/1001 (OTIO stores the rate as a float), a dissolve of 15 + 15 frames.
    rate = 30000 / 1001
    timeline = otio.schema.Timeline(name="ntsc")
    video = otio.schema.Track(name="V1", kind=otio.schema.TrackKind.Video)
    video.append(clip("a", "media/a.mp4", 0, 300, rate))
    video.append(dissolve(15, 15, rate))
    video.append(clip("b", "media/b.mp4", 30, 301, rate, markers=[(100, "frame 100")]))
    timeline.tracks.append(video)
    otio.adapters.write_to_file(timeline, os.path.join(folder, "ntsc.otio"))

    # edl.otio: a CMX 3600 EDL (record timecode from 01:00:00:00, as editors export) with a
    # 24-frame dissolve and two locators, converted by the adapter. The adapter keeps a LOC's
    # timecode as the marker's time in the clip's source, as OTIO defines markers: the first
    # (00:00:02:00) lies in clip c's source range, 1 s into it; the second, a record timecode,
    # lies far outside it (the reference places it at 3631 s on a 17.5 s track).
    edl = "\n".join([
        "TITLE: edl test",
        "FCM: NON-DROP FRAME",
        "",
        "001  AX       V     C        00:00:00:00 00:00:07:12 01:00:00:00 01:00:07:12",
        "* FROM CLIP NAME: a.mp4",
        "* FROM CLIP: media/a.mp4",
        "002  AX       V     C        00:00:07:12 00:00:07:12 01:00:07:12 01:00:07:12",
        "002  BX       V     D    024 00:00:02:00 00:00:10:00 01:00:07:12 01:00:15:12",
        "* FROM CLIP NAME: a.mp4",
        "* TO CLIP NAME: b.mp4",
        "* FROM CLIP: media/b.mp4",
        "003  CX       V     C        00:00:01:00 00:00:03:00 01:00:15:12 01:00:17:12",
        "* FROM CLIP NAME: c.mp4",
        "* FROM CLIP: media/c.mp4",
        "* LOC: 00:00:02:00 RED half way",
        "* LOC: 01:00:16:12 BLUE record timecode",
        "",
    ])
    with open(os.path.join(folder, "edl.edl"), "w") as f:
        f.write(edl)
    timeline = otio.adapters.read_from_string(edl, "cmx_3600", rate=24)
    otio.adapters.write_to_file(timeline, os.path.join(folder, "edl.otio"))

    # What the model cannot express, each in a file of its own.
    def one(name, build):
        timeline = otio.schema.Timeline(name=name)
        video = otio.schema.Track(name="V1", kind=otio.schema.TrackKind.Video)
        video.append(clip("a", "media/a.mp4", 0, 48, 24))
        build(timeline, video)
        timeline.tracks.insert(0, video)
        otio.adapters.write_to_file(timeline, os.path.join(folder, f"unsupported-{name}.otio"))

    def warp(timeline, video):
        c = clip("b", "media/b.mp4", 0, 48, 24)
        c.effects.append(otio.schema.LinearTimeWarp(time_scalar=-1.0))  # reverse: not a speed
        video.append(c)

    def nested(timeline, video):
        inner = otio.schema.Stack(name="compound")
        inner.append(otio.schema.Track(name="inner"))
        video.append(inner)

    def two_video(timeline, video):
        second = otio.schema.Track(name="V2", kind=otio.schema.TrackKind.Video)
        second.append(clip("b", "media/b.mp4", 0, 48, 24))
        timeline.tracks.append(second)

    def missing(timeline, video):
        video.append(otio.schema.Clip(name="lost", media_reference=otio.schema.MissingReference(),
                                      source_range=rng(0, 24, 24)))

    def track_marker(timeline, video):
        video.markers.append(otio.schema.Marker(name="m", marked_range=rng(0, 0, 24)))

    def url(timeline, video):
        video.append(clip("web", "https://example.invalid/a.mp4", 0, 24, 24))

    for name, build in [("warp", warp), ("nested", nested), ("two-video", two_video),
                        ("missing", missing), ("track-marker", track_marker), ("url", url)]:
        one(name, build)

    # Time effects the model plays: a clip at twice its speed (1 s into b, 2 s on the track),
    # then a freeze frame of c's picture at 1.5 s held for 1 s.
    timeline = otio.schema.Timeline(name="time effects")
    video = otio.schema.Track(name="V1", kind=otio.schema.TrackKind.Video)
    video.append(clip("a", "media/a.mp4", 0, 48, 24))
    fast = clip("b", "media/b.mp4", 24, 48, 24)
    fast.effects.append(otio.schema.LinearTimeWarp(time_scalar=2.0))
    video.append(fast)
    held = clip("c", "media/c.mp4", 36, 24, 24)
    held.effects.append(otio.schema.FreezeFrame())
    video.append(held)
    timeline.tracks.append(video)
    otio.adapters.write_to_file(timeline, os.path.join(folder, "time-effects.otio"))


def seconds(time):
    return None if time is None else time.value / time.rate


def ranges(path):
    timeline = otio.adapters.read_from_file(path)
    tracks = []
    for track in timeline.tracks:
        children = []
        for index, child in enumerate(track):
            r = track.range_of_child_at_index(index)
            entry = {"index": index, "schema": child.schema_name(),
                     "range": [seconds(r.start_time), seconds(r.duration)]}
            if not isinstance(child, otio.schema.Transition):
                head, tail = track.handles_of_child(child)
                entry["handles"] = [seconds(head) or 0.0, seconds(tail) or 0.0]
                entry["enabled"] = child.enabled
                sr = child.trimmed_range()
                entry["source_range"] = [seconds(sr.start_time), seconds(sr.duration)]
                available = None
                if isinstance(child, otio.schema.Clip) and child.media_reference.available_range:
                    available = seconds(child.media_reference.available_range.start_time)
                entry["available_start"] = available
                entry["markers"] = [
                    {"name": m.name,
                     "time": seconds(child.transformed_time(m.marked_range.start_time, track))}
                    for m in child.markers]
            children.append(entry)
        tracks.append({"kind": track.kind, "enabled": track.enabled,
                       "duration": seconds(track.duration()), "children": children})
    return {"file": os.path.basename(path), "tracks": tracks}


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "make":
        make(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "ranges":
        print(json.dumps([ranges(p) for p in sys.argv[2:]]))
    else:
        sys.exit(__doc__)
