#!/usr/bin/env python3
"""Patches fields of an ISO BMFF (MP4/MOV) file in place, for making test fixtures.

  mp4patch.py matrix FILE A B C D   set the first video track's tkhd matrix to (a, b, c, d),
                                    with the translation that keeps the picture at the origin
  mp4patch.py unknown-duration FILE set the movie and track durations to all ones ("unknown")
  mp4patch.py movie-duration FILE N set the movie header's (mvhd) duration to N units of its
                                    timescale; the tracks and their samples stay as they are
  mp4patch.py grow-mdat FILE N      make the last box (mdat) claim N bytes past the end of the file
  mp4patch.py mdat-to-end FILE      set the mdat box's size to 0 ("extends to the end of the file")
  mp4patch.py empty-video FILE      leave the video track with no samples (its sample tables'
                                    entry counts set to 0; the bytes after them stay, unread)
  mp4patch.py dolby-vision FILE FOURCC PROFILE LEVEL COMPAT
                                    rename the first video sample entry to FOURCC (dav1, dvh1,
                                    dva1, ...) and add a Dolby Vision configuration box (dvcC for
                                    profiles up to 7, dvvC above) with rpu_present=1, el_present=0,
                                    bl_present=1 and the given bl_signal_compatibility_id; the
                                    file's moov must come after mdat (ffmpeg's default)
  mp4patch.py edit-list FILE KIND MEDIA_TIME DURATION
                                    set the first entry of the elst of the first track whose
                                    handler is KIND (soun, vide) to start at MEDIA_TIME (media
                                    timescale) and last DURATION (movie timescale); the entry
                                    count and box sizes stay as they are
  mp4patch.py traf-track FILE FROM TO
                                    renumber every movie fragment's track FROM (tfhd track_ID)
                                    to TO, a track the moov need not declare
"""
import struct
import sys


def boxes(data, start, end):
    """Yields (type, offset, header_size, size) of the boxes between start and end."""
    offset = start
    while offset + 8 <= end:
        size, kind = struct.unpack(">I4s", data[offset:offset + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[offset + 8:offset + 16])[0]
            header = 16
        elif size == 0:
            size = end - offset
        yield kind.decode("latin-1"), offset, header, size
        offset += size


def find(data, path, start=0, end=None):
    """The boxes at a path such as ['moov', 'trak'] (every match of the last element)."""
    end = len(data) if end is None else end
    found = []
    for kind, offset, header, size in boxes(data, start, end):
        if kind == path[0]:
            if len(path) == 1:
                found.append((offset, header, size))
            else:
                found += find(data, path[1:], offset + header, offset + size)
    return found


def video_tkhd(data):
    for offset, header, size in find(data, ["moov", "trak"]):
        handlers = find(data, ["mdia", "hdlr"], offset + header, offset + size)
        if handlers and data[handlers[0][0] + 16:handlers[0][0] + 20] == b"vide":
            return find(data, ["tkhd"], offset + header, offset + size)[0]
    sys.exit("no video track")


def set_matrix(path, a, b, c, d):
    data = bytearray(open(path, "rb").read())
    offset, header, _ = video_tkhd(data)
    version = data[offset + header]
    fields = offset + header + 4  # after version and flags
    matrix_at = fields + (32 if version == 1 else 20) + 16
    dims_at = matrix_at + 36
    width, height = (v / 65536 for v in struct.unpack(">II", data[dims_at:dims_at + 8]))
    corners = [(0, 0), (width, 0), (0, height), (width, height)]
    tx = -min(a * x + c * y for x, y in corners)
    ty = -min(b * x + d * y for x, y in corners)
    fixed = lambda v: int(round(v * 65536))
    data[matrix_at:matrix_at + 36] = struct.pack(
        ">9i", fixed(a), fixed(b), 0, fixed(c), fixed(d), 0, fixed(tx), fixed(ty), 1 << 30)
    open(path, "wb").write(data)


def set_unknown_duration(path):
    """Sets the duration of mvhd and of every track's tkhd and mdhd to all ones."""
    data = bytearray(open(path, "rb").read())
    # Offset of the duration after version and flags, for version 0 and version 1 boxes.
    where = {"mvhd": (12, 20), "tkhd": (16, 24), "mdhd": (12, 20)}
    targets = find(data, ["moov", "mvhd"]) + find(data, ["moov", "trak", "tkhd"])
    targets += find(data, ["moov", "trak", "mdia", "mdhd"])
    for offset, header, _ in targets:
        kind = data[offset + 4:offset + 8].decode("latin-1")
        version = data[offset + header]
        at = offset + header + 4 + where[kind][version]
        width = 8 if version == 1 else 4
        data[at:at + width] = b"\xff" * width
    open(path, "wb").write(data)


def set_movie_duration(path, units):
    """Sets mvhd's duration (in the movie timescale) to units."""
    data = bytearray(open(path, "rb").read())
    (offset, header, _), = find(data, ["moov", "mvhd"])
    version = data[offset + header]
    at = offset + header + 4 + (20 if version == 1 else 12)
    data[at:at + (8 if version == 1 else 4)] = units.to_bytes(8 if version == 1 else 4, "big")
    open(path, "wb").write(data)


def grow_mdat(path, extra):
    """Makes the last top-level box (mdat) claim `extra` bytes more than the file holds."""
    data = bytearray(open(path, "rb").read())
    kind, offset, header, size = list(boxes(data, 0, len(data)))[-1]
    assert kind == "mdat" and header == 8, "the last box is not mdat"
    struct.pack_into(">I", data, offset, size + extra)
    open(path, "wb").write(data)


def mdat_to_end(path):
    """Sets the size field of the top-level mdat box to 0: it extends to the end of the file."""
    data = bytearray(open(path, "rb").read())
    for kind, offset, header, _ in boxes(data, 0, len(data)):
        if kind == "mdat":
            assert header == 8, "a 64-bit mdat"
            struct.pack_into(">I", data, offset, 0)
            break
    else:
        sys.exit("no mdat box")
    open(path, "wb").write(data)


def empty_video(path):
    """Sets the entry counts of the video track's stts, stss, ctts, stsc, stsz and stco to 0."""
    data = bytearray(open(path, "rb").read())
    for offset, header, size in find(data, ["moov", "trak"]):
        handlers = find(data, ["mdia", "hdlr"], offset + header, offset + size)
        if not handlers or data[handlers[0][0] + 16:handlers[0][0] + 20] != b"vide":
            continue
        for stbl, stbl_header, stbl_size in find(
                data, ["mdia", "minf", "stbl"], offset + header, offset + size):
            for kind, box, box_header, _ in boxes(data, stbl + stbl_header, stbl + stbl_size):
                # The count follows version and flags; stsz has its sample size first.
                if kind in ("stts", "stss", "ctts", "stsc", "stco", "co64"):
                    struct.pack_into(">I", data, box + box_header + 4, 0)
                elif kind == "stsz":
                    struct.pack_into(">II", data, box + box_header + 4, 0, 0)
        open(path, "wb").write(data)
        return
    sys.exit("no video track")


def dolby_vision(path, fourcc, profile, level, compatibility):
    """Renames the first video sample entry and appends a dvcC/dvvC box to it, growing every
    enclosing box. The sample data offsets stay valid only when moov follows mdat."""
    data = bytearray(open(path, "rb").read())
    moov = find(data, ["moov"])[0]
    mdat = find(data, ["mdat"])[0]
    assert moov[0] > mdat[0], "moov must come after mdat (growing it would move the samples)"
    for offset, header, size in find(data, ["moov", "trak"]):
        handlers = find(data, ["mdia", "hdlr"], offset + header, offset + size)
        if handlers and data[handlers[0][0] + 16:handlers[0][0] + 20] == b"vide":
            chain = [(offset, header)]
            start, end = offset + header, offset + size
            for kind in ["mdia", "minf", "stbl", "stsd"]:
                box = find(data, [kind], start, end)[0]
                chain.append(box[:2])
                start, end = box[0] + box[1], box[0] + box[2]
            entry_at = start + 8  # stsd: version, flags, entry count
            entry_size = struct.unpack(">I", data[entry_at:entry_at + 4])[0]
            break
    else:
        sys.exit("no video track")
    # The configuration record (Dolby's ISO BMFF spec, 24 bytes): version 1.0, then
    # profile(7) level(6) rpu(1) el(1) bl(1), compatibility id(4) and reserved bits.
    bits = (profile << 9) | (level << 3) | (1 << 2) | (0 << 1) | 1
    record = bytes([1, 0]) + struct.pack(">H", bits) + bytes([compatibility << 4]) + bytes(19)
    kind = b"dvcC" if profile <= 7 else b"dvvC"
    box = struct.pack(">I4s", 8 + len(record), kind) + record
    data[entry_at + 4:entry_at + 8] = fourcc.encode("latin-1")
    data[entry_at + entry_size:entry_at + entry_size] = box
    for offset, _ in [moov[:2]] + chain + [(entry_at, 8)]:
        struct.pack_into(">I", data, offset, struct.unpack(">I", data[offset:offset + 4])[0] + len(box))
    open(path, "wb").write(data)


def edit_list(path, kind, media_time, duration):
    """Rewrites the first elst entry of the first track with handler `kind` in place."""
    data = bytearray(open(path, "rb").read())
    for offset, header, size in find(data, ["moov", "trak"]):
        handlers = find(data, ["mdia", "hdlr"], offset + header, offset + size)
        if not handlers or data[handlers[0][0] + 16:handlers[0][0] + 20] != kind.encode():
            continue
        (elst, elst_header, _), = find(data, ["edts", "elst"], offset + header, offset + size)
        version = data[elst + elst_header]
        entry = elst + elst_header + 8  # version, flags, entry count
        if version == 1:
            struct.pack_into(">Qq", data, entry, duration, media_time)
        else:
            struct.pack_into(">Ii", data, entry, duration, media_time)
        open(path, "wb").write(data)
        return
    sys.exit("no %s track with an edit list" % kind)


def traf_track(path, old, new):
    """Sets the tfhd track_ID of every traf of track `old` to `new`."""
    data = bytearray(open(path, "rb").read())
    changed = 0
    for offset, header, _ in find(data, ["moof", "traf", "tfhd"]):
        at = offset + header + 4  # after version and flags
        if struct.unpack(">I", data[at:at + 4])[0] == old:
            struct.pack_into(">I", data, at, new)
            changed += 1
    if not changed:
        sys.exit("no fragment of track %d" % old)
    open(path, "wb").write(data)


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "matrix":
        set_matrix(sys.argv[2], *(int(v) for v in sys.argv[3:7]))
    elif len(sys.argv) == 3 and sys.argv[1] == "unknown-duration":
        set_unknown_duration(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "movie-duration":
        set_movie_duration(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "grow-mdat":
        grow_mdat(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "mdat-to-end":
        mdat_to_end(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "empty-video":
        empty_video(sys.argv[2])
    elif len(sys.argv) == 7 and sys.argv[1] == "dolby-vision":
        dolby_vision(sys.argv[2], sys.argv[3], *(int(v) for v in sys.argv[4:7]))
    elif len(sys.argv) == 6 and sys.argv[1] == "edit-list":
        edit_list(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif len(sys.argv) == 5 and sys.argv[1] == "traf-track":
        traf_track(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(__doc__)
