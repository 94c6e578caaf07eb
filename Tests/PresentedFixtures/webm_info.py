#!/usr/bin/env python3
"""Test oracle (issue 26): a Matroska/WebM file's Segment Info, read from its EBML directly,
independently of mediaprobe and libavformat: the Duration (a float in TimestampScale units)
and the TimestampScale (nanoseconds, default 1,000,000), and whether a track is encrypted
(ContentEncodings/ContentEncoding/ContentEncryption). Prints JSON: seconds, encrypted_tracks.
"""
import json
import struct
import sys


def vint(d, i):
    n = 1
    while not (d[i] & (0x80 >> (n - 1))):
        n += 1
    v = d[i] & ((0x80 >> (n - 1)) - 1)
    for k in range(1, n):
        v = (v << 8) | d[i + k]
    return v, n


def elements(d, start, end):
    i = start
    while i < end:
        n = 1
        while not (d[i] & (0x80 >> (n - 1))):
            n += 1
        ident = int.from_bytes(d[i:i + n], "big")
        size, m = vint(d, i + n)
        yield ident, i + n + m, size
        i += n + m + size


def main(path):
    d = open(path, "rb").read()
    scale, duration, encrypted = 1_000_000, None, 0
    for ident, at, size in elements(d, 0, len(d)):
        if ident != 0x18538067:  # Segment
            continue
        for child, cat, csize in elements(d, at, at + size):
            if child == 0x1549A966:  # Info
                for field, fat, fsize in elements(d, cat, cat + csize):
                    if field == 0x2AD7B1:
                        scale = int.from_bytes(d[fat:fat + fsize], "big")
                    elif field == 0x4489:
                        duration = struct.unpack(">d" if fsize == 8 else ">f", d[fat:fat + fsize])[0]
            elif child == 0x1654AE6B:  # Tracks
                for entry, eat, esize in elements(d, cat, cat + csize):
                    if b"\x50\x35" in d[eat:eat + esize]:  # ContentEncryption inside
                        encrypted += 1
    print(json.dumps({"seconds": duration * scale / 1e9, "encrypted_tracks": encrypted}))


if __name__ == "__main__":
    main(sys.argv[1])
