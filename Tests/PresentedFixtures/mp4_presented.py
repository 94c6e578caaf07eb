#!/usr/bin/env python3
"""Test oracle (issue 26): what an MP4's edit lists present, read from the boxes directly,
independently of mediaprobe (ISO/IEC 14496-12: mvhd, tkhd, mdhd, hdlr, stts, ctts, elst).

For each track with one media edit (after any empty edits), the presented media interval is
[media_time, media_time + segment_duration) in the media timescale, cut to the sample table's
composition interval; a sample is presented when its display interval (its composition time to
the next one in display order, the last one its stts duration) overlaps it. Prints one JSON
object per track: handler, timescale, samples (all), presented_samples, presented_ticks, and
for movie fragments (moof/traf: tfhd, trun, with trex defaults) fragment_samples and
decode_ticks: the movie's stts durations plus every trun sample's (its own, else tfhd's, else
trex's default duration).
"""
import json
import struct
import sys

CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"mvex", b"moof", b"traf"}


def walk(data, start, end, path=()):
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[at + 8:at + 16])[0]
            header = 16
        elif size == 0:
            size = end - at
        yield path + (kind,), data[at + header:at + size]
        if kind in CONTAINERS:
            yield from walk(data, at + header, at + size, path + (kind,))
        at += size


def full(body):
    return body[0], body[4:]


def table(body, signed=False):
    _, rest = full(body)
    count = struct.unpack(">I", rest[:4])[0]
    fmt = ">Ii" if signed else ">II"
    return [struct.unpack(fmt, rest[4 + 8 * i:12 + 8 * i]) for i in range(count)]


def main(path):
    data = open(path, "rb").read()
    movie_scale = None
    tracks, trex, runs, traf = [], {}, [], None
    for kinds, body in walk(data, 0, len(data)):
        kind = kinds[-1]
        if kind == b"mvhd":
            version, rest = full(body)
            movie_scale = struct.unpack(">I", rest[16:20] if version == 1 else rest[8:12])[0]
        elif kind == b"trak":
            tracks.append({"edits": [], "ctts": [], "fragments": []})
        elif kind == b"tkhd":
            version, rest = full(body)
            tracks[-1]["id"] = struct.unpack(">I", rest[16:20] if version == 1 else rest[8:12])[0]
        elif kind == b"trex":
            _, rest = full(body)
            trex[struct.unpack(">I", rest[:4])[0]] = struct.unpack(">I", rest[8:12])[0]
        elif kind == b"tfhd":
            _, rest = full(body)
            flags = int.from_bytes(body[1:4], "big")
            traf = {"id": struct.unpack(">I", rest[:4])[0], "default": None}
            at = 4 + (8 if flags & 1 else 0) + (4 if flags & 2 else 0)
            if flags & 8:
                traf["default"] = struct.unpack(">I", rest[at:at + 4])[0]
        elif kind == b"trun":
            flags = int.from_bytes(body[1:4], "big")
            count = struct.unpack(">I", body[4:8])[0]
            at = 8 + (4 if flags & 1 else 0) + (4 if flags & 4 else 0)
            stride = 4 * sum(1 for bit in (0x100, 0x200, 0x400, 0x800) if flags & bit)
            durations = [struct.unpack(">I", body[at + i * stride:at + i * stride + 4])[0]
                         if flags & 0x100 else None for i in range(count)]
            runs.append((traf["id"], traf["default"], durations))
        elif kind == b"hdlr":
            tracks[-1]["handler"] = body[8:12].decode()
        elif kind == b"mdhd":
            version, rest = full(body)
            tracks[-1]["timescale"] = struct.unpack(
                ">I", rest[16:20] if version == 1 else rest[8:12])[0]
        elif kind == b"stts":
            tracks[-1]["stts"] = table(body)
        elif kind == b"ctts":
            tracks[-1]["ctts"] = table(body, signed=True)
        elif kind == b"elst":
            version, rest = full(body)
            count = struct.unpack(">I", rest[:4])[0]
            for i in range(count):
                if version == 1:
                    duration, media_time = struct.unpack(">Qq", rest[4 + 20 * i:20 + 20 * i])
                else:
                    duration, media_time = struct.unpack(">Ii", rest[4 + 12 * i:12 + 12 * i])
                tracks[-1]["edits"].append((duration, media_time))
    out = []
    for track in tracks:
        fragment = [d if d is not None else (default if default is not None else trex.get(tid, 0))
                    for tid, default, durations in runs if tid == track.get("id")
                    for d in durations]
        durations = [d for n, d in track["stts"] for _ in range(n)]
        offsets = [o for n, o in track["ctts"] for _ in range(n)] or [0] * len(durations)
        times, decoding = [], 0
        for duration, offset in zip(durations, offsets):
            times.append((decoding + offset, duration))
            decoding += duration
        scale = track["timescale"]
        result = {"handler": track["handler"], "timescale": scale, "samples": len(times),
                  "fragment_samples": len(fragment),
                  "decode_ticks": sum(d for _, d in times) + sum(fragment)}
        media = [e for e in track["edits"] if e[1] >= 0]
        if len(media) == 1 and times:
            duration, media_time = media[0]
            table_start = min(t for t, _ in times)
            table_end = max(t + d for t, d in times)
            length = duration * scale // movie_scale
            start, end = max(media_time, table_start), min(media_time + length, table_end)
            shown = sorted(times)
            count = 0
            for i, (t, d) in enumerate(shown):
                until = shown[i + 1][0] if i + 1 < len(shown) else t + d
                if t < end and until > start and until > t:
                    count += 1
            result["presented_samples"] = count
            result["presented_ticks"] = max(0, end - start)
        out.append(result)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
