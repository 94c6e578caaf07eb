#!/usr/bin/env python3
"""Makes a WebM's video track look like WebM Encryption (for test fixtures, issue 26).

    webm-encrypt.py FILE

Adds ContentEncodings to the first video TrackEntry: one ContentEncoding of type 1 (encryption)
with ContentEncryption: ContentEncAlgo 5 (AES), a 16-byte ContentEncKeyID and AESSettings
with AESSettingsCipherMode 1 (CTR). The bytes come from the Void element ffmpeg reserves after
the SeekHead, so nothing after the track moves; the SeekHead's positions of Info and Tracks move
back by as much. Then every Block of that track becomes what an encrypted one stores: a signal
byte (1: encrypted), an 8-byte IV and ciphertext (here a fixed pseudo-random stream), at the
same size. Nobody holds a key: decoders fail, the headers stay readable.
"""
import random
import sys


def vint(d, i):
    n = 1
    while not (d[i] & (0x80 >> (n - 1))):
        n += 1
    v = d[i] & ((0x80 >> (n - 1)) - 1)
    for k in range(1, n):
        v = (v << 8) | d[i + k]
    return v, n


def eid(d, i):
    n = 1
    while not (d[i] & (0x80 >> (n - 1))):
        n += 1
    return int.from_bytes(d[i:i + n], "big"), n


def children(d, start, end):
    """(id, offset, header length, payload size) of the elements between start and end."""
    i = start
    while i < end:
        e, n = eid(d, i)
        s, m = vint(d, i + n)
        yield e, i, n + m, s
        i += n + m + s


def element(ident, payload):
    width = 1
    while len(payload) >= (1 << (7 * width)) - 1:
        width += 1
    head = ident.to_bytes((ident.bit_length() + 7) // 8, "big")
    return head + ((1 << (7 * width)) | len(payload)).to_bytes(width, "big") + payload


def uint(ident, value):
    return element(ident, value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big"))


def main(path):
    d = bytearray(open(path, "rb").read())
    (_, seg, head, size), = [c for c in children(d, 0, len(d)) if c[0] == 0x18538067]
    body = seg + head
    kids = list(children(d, body, body + size))
    void = next(c for c in kids if c[0] == 0xEC)
    tracks = next(c for c in kids if c[0] == 0x1654AE6B)
    video, number = None, None
    for c in children(d, tracks[1] + tracks[2], tracks[1] + tracks[2] + tracks[3]):
        fields = {k[0]: k for k in children(d, c[1] + c[2], c[1] + c[2] + c[3])}
        if c[0] == 0xAE and d[fields[0x83][1] + fields[0x83][2]] == 1 and video is None:
            video = c  # TrackType 1: video
            number = int.from_bytes(d[fields[0xD7][1] + fields[0xD7][2]:][:fields[0xD7][3]], "big")
    encodings = element(0x6D80, element(0x6240,
        uint(0x5031, 0) + uint(0x5032, 1) + uint(0x5033, 1)
        + element(0x5035, uint(0x47E1, 5) + element(0x47E2, bytes(range(1, 17)))
                  + element(0x47E7, uint(0x47E8, 1)))))
    k = len(encodings)
    assert void[3] >= k + 2, "the Void element is too small"
    assert void[1] < tracks[1], "the Void element comes after Tracks"

    def resized(c, grow):  # the element's header with its size grown, at the same width
        n = eid(d, c[1])[1]
        width = c[2] - n
        return bytes(d[c[1]:c[1] + n]) + ((1 << (7 * width)) | (c[3] + grow)).to_bytes(width, "big")

    out = bytearray(d[:void[1]]) + resized(void, -k) + bytes(void[3] - k)
    out += d[void[1] + void[2] + void[3]:tracks[1]] + resized(tracks, k)
    out += d[tracks[1] + tracks[2]:video[1]] + resized(video, k)
    out += d[video[1] + video[2]:video[1] + video[2] + video[3]] + encodings
    out += d[video[1] + video[2] + video[3]:]
    assert len(out) == len(d)
    seek = next(c for c in kids if c[0] == 0x114D9B74)
    for entry in children(out, seek[1] + seek[2], seek[1] + seek[2] + seek[3]):
        fields = {c[0]: c for c in children(out, entry[1] + entry[2], entry[1] + entry[2] + entry[3])}
        target = int.from_bytes(out[fields[0x53AB][1] + fields[0x53AB][2]:][:fields[0x53AB][3]], "big")
        at, width = fields[0x53AC][1] + fields[0x53AC][2], fields[0x53AC][3]
        position = int.from_bytes(out[at:at + width], "big")
        if target in (0x1549A966, 0x1654AE6B) and body + position > void[1]:
            out[at:at + width] = (position - k).to_bytes(width, "big")
    rng = random.Random(26)
    for cluster in children(out, body, body + size):
        if cluster[0] != 0x1F43B675:
            continue
        for block in children(out, cluster[1] + cluster[2], cluster[1] + cluster[2] + cluster[3]):
            if block[0] != 0xA3:  # SimpleBlock
                continue
            at = block[1] + block[2]
            track, n = vint(out, at)
            if track != number:
                continue
            start, end = at + n + 3, at + block[3]  # after timecode (2) and flags (1)
            out[start] = 1
            for i in range(start + 1, end):
                out[i] = rng.randrange(256)
    open(path, "wb").write(out)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
