#!/usr/bin/env python3
"""Builds and patches still-image files for test fixtures, so their orientation and size are
known by construction.

  imagepatch.py exif-orientation FILE N   insert an Exif APP1 segment right after the JPEG's SOI
                                          whose IFD0 holds Orientation (0x0112) = N (1-8), in
                                          big-endian ("MM") TIFF byte order
  imagepatch.py heif-irot FILE ANGLE      add an `irot` property (ANGLE counter-clockwise quarter
                                          turns, 0-3) to the primary item of a HEIF/AVIF file,
                                          growing meta/iprp/ipco/ipma and moving the iloc offsets
                                          of the data that follows meta
  imagepatch.py heic-build OUT W H ANGLE  write a minimal HEIF file (ISO/IEC 23008-12): ftyp heic
                                          (compatible mif1, heic), meta (hdlr pict, pitm 1, iloc,
                                          iinf with one hvc1 item, iprp: ipco with hvcC, ispe WxH
                                          and irot ANGLE, ipma), mdat; the coded picture is not
                                          real HEVC (nothing here decodes HEIF)
"""
import struct
import sys


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind.encode("latin-1")) + payload


def full_box(kind, version, flags, payload):
    return box(kind, struct.pack(">I", version << 24 | flags) + payload)


def exif_orientation(path, value):
    data = open(path, "rb").read()
    assert data[:2] == b"\xff\xd8", "not a JPEG"
    # TIFF header (MM, 42, IFD0 at 8), IFD0 with one entry: Orientation, SHORT, count 1.
    ifd = struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, value, 0) + struct.pack(">I", 0)
    tiff = b"MM" + struct.pack(">HI", 42, 8) + ifd
    segment = b"Exif\0\0" + tiff
    app1 = b"\xff\xe1" + struct.pack(">H", 2 + len(segment)) + segment
    open(path, "wb").write(data[:2] + app1 + data[2:])


def children(data, start, end):
    """(type, offset, size) of the boxes between start and end."""
    result = []
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        result.append((kind.decode("latin-1"), start, size))
        start += size
    return result


def find(data, start, end, kind):
    return next(b for b in children(data, start, end) if b[0] == kind)


def heif_irot(path, angle):
    data = bytearray(open(path, "rb").read())
    _, meta_at, meta_size = find(data, 0, len(data), "meta")
    inner = meta_at + 12  # meta is a full box
    meta_end = meta_at + meta_size
    _, pitm_at, _ = find(data, inner, meta_end, "pitm")
    primary = struct.unpack(">H", data[pitm_at + 12:pitm_at + 14])[0] if data[pitm_at + 8] == 0 \
        else struct.unpack(">I", data[pitm_at + 12:pitm_at + 16])[0]
    _, iprp_at, iprp_size = find(data, inner, meta_end, "iprp")
    _, ipco_at, ipco_size = find(data, iprp_at + 8, iprp_at + iprp_size, "ipco")
    _, ipma_at, ipma_size = find(data, iprp_at + 8, iprp_at + iprp_size, "ipma")
    _, iloc_at, iloc_size = find(data, inner, meta_end, "iloc")
    assert ipco_at < ipma_at, "ipco must come before ipma"
    properties = len(children(data, ipco_at + 8, ipco_at + ipco_size))
    irot = box("irot", bytes([angle & 3]))
    # The association: the new property's 1-based index, marked essential (transformative).
    version, flags = data[ipma_at + 8], int.from_bytes(data[ipma_at + 9:ipma_at + 12], "big")
    wide = flags & 1
    assert properties + 1 < (0x7FFF if wide else 0x7F)
    association = struct.pack(">H", 0x8000 | (properties + 1)) if wide \
        else bytes([0x80 | (properties + 1)])
    count = struct.unpack(">I", data[ipma_at + 12:ipma_at + 16])[0]
    at = ipma_at + 16
    id_size = 2 if version < 1 else 4
    entry_size = 2 if wide else 1
    insert_at = None
    for _ in range(count):
        item = int.from_bytes(data[at:at + id_size], "big")
        n = data[at + id_size]
        if item == primary:
            data[at + id_size] = n + 1
            insert_at = at + id_size + 1 + n * entry_size
        at += id_size + 1 + n * entry_size
    assert insert_at is not None, "the primary item has no ipma entry"
    grow = len(irot) + len(association)
    # iloc offsets of data after meta move by `grow` (construction method 0: file offsets).
    shift_iloc(data, iloc_at, meta_end, grow)
    # Insert from the back so earlier offsets stay valid.
    data[insert_at:insert_at] = association
    data[ipco_at + ipco_size:ipco_at + ipco_size] = irot
    for offset, extra in ((ipma_at + len(irot), len(association)), (ipco_at, len(irot)),
                          (iprp_at, grow), (meta_at, grow)):
        struct.pack_into(">I", data, offset, struct.unpack(">I", data[offset:offset + 4])[0] + extra)
    open(path, "wb").write(data)


def shift_iloc(data, iloc_at, meta_end, delta):
    version = data[iloc_at + 8]
    at = iloc_at + 12
    offset_size, length_size = data[at] >> 4, data[at] & 15
    base_size, index_size = data[at + 1] >> 4, (data[at + 1] & 15) if version in (1, 2) else 0
    at += 2
    count_size = 4 if version == 2 else 2
    count = int.from_bytes(data[at:at + count_size], "big")
    at += count_size
    for _ in range(count):
        at += 4 if version == 2 else 2  # item id
        method = 0
        if version in (1, 2):
            method = int.from_bytes(data[at:at + 2], "big") & 15
            at += 2
        at += 2  # data reference index
        base = int.from_bytes(data[at:at + base_size], "big") if base_size else 0
        if method == 0 and base_size and base >= meta_end:
            data[at:at + base_size] = (base + delta).to_bytes(base_size, "big")
        at += base_size
        extents = int.from_bytes(data[at:at + 2], "big")
        at += 2
        for _ in range(extents):
            at += index_size
            offset = int.from_bytes(data[at:at + offset_size], "big") if offset_size else 0
            if method == 0 and offset_size and not base_size and offset >= meta_end:
                data[at:at + offset_size] = (offset + delta).to_bytes(offset_size, "big")
            at += offset_size + length_size


def heic_build(path, width, height, angle):
    ftyp = box("ftyp", b"heic" + struct.pack(">I", 0) + b"mif1heic")
    hdlr = full_box("hdlr", 0, 0, struct.pack(">I", 0) + b"pict" + bytes(12) + b"\0")
    pitm = full_box("pitm", 0, 0, struct.pack(">H", 1))
    infe = full_box("infe", 2, 0, struct.pack(">HH", 1, 0) + b"hvc1" + b"\0")
    iinf = full_box("iinf", 0, 0, struct.pack(">H", 1) + infe)
    # hvcC: configuration version 1, Main profile, level 3.0, no parameter set arrays.
    hvcc = box("hvcC", bytes([1, 0x01, 0x60, 0, 0, 0, 0x90, 0, 0, 0, 0, 0, 90, 0xF0, 0, 0xFC,
                              0xFD, 0xF8, 0xF8, 0, 0, 0x0F, 0]))
    ispe = full_box("ispe", 0, 0, struct.pack(">II", width, height))
    irot = box("irot", bytes([angle & 3]))
    ipco = box("ipco", hvcc + ispe + irot)
    ipma = full_box("ipma", 0, 0, struct.pack(">IHB", 1, 1, 3) + bytes([0x81, 0x02, 0x83]))
    iprp = box("iprp", ipco + ipma)
    picture = b"\x00\x00\x00\x02\x26\x01"  # a length-prefixed NAL header, nothing to decode
    # iloc v0: offset and length 4 bytes, no base offset; the offset is patched below.
    iloc = full_box("iloc", 0, 0, bytes([0x44, 0x00]) + struct.pack(">HHHHII", 1, 1, 0, 1, 0,
                                                                     len(picture)))
    meta = full_box("meta", 0, 0, hdlr + pitm + iloc + iinf + iprp)
    data = bytearray(ftyp + meta + box("mdat", picture))
    offset = len(ftyp) + len(meta) + 8
    at = len(ftyp) + 12 + len(hdlr) + len(pitm) + 12 + 2 + 8  # iloc's extent offset
    struct.pack_into(">I", data, at, offset)
    open(path, "wb").write(data)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "exif-orientation":
        exif_orientation(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "heif-irot":
        heif_irot(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 6 and sys.argv[1] == "heic-build":
        heic_build(sys.argv[2], *(int(v) for v in sys.argv[3:6]))
    else:
        sys.exit(__doc__)
