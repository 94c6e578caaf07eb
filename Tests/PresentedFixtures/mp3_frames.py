#!/usr/bin/env python3
"""Test oracle (issue 26): the frames of an MP3 file, read from their headers directly,
independently of mediaprobe and libavformat (ISO/IEC 11172-3 / 13818-3 frame headers; the LAME
tag's encoder delay and padding, LAME's "Mp3 Info Tag rev 1" specification).

Skips an ID3v2 tag, then looks at each offset for a frame header whose frame is followed by
another header (or the end of the file); a Xing/Info frame is not audio; bytes after the last
frame, less an ID3v1 tag, are trailing; a last frame cut by the end of the file counts (FFmpeg's
decoder outputs a frame of it). Prints JSON: frames (audio), samples_per_frame,
sample_rate, tag_frame, delay, padding (null without a readable LAME tag), trailing_bytes.

With --avi, the frames of an AVI's audio stream: the payloads of its `##wb` chunks in the
`movi` list (RIFF, read directly), joined in file order.
"""
import json
import sys

BITRATES = {
    (1, 3): [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
    (0, 3): [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
}


def header(data, at):
    """(size, samples per frame, sample rate, side info length) of an MPEG Layer III header."""
    if at + 4 > len(data) or data[at] != 0xFF or data[at + 1] & 0xE0 != 0xE0:
        return None
    version = (data[at + 1] >> 3) & 3
    layer = (data[at + 1] >> 1) & 3
    rate_index, sample_index = data[at + 2] >> 4, (data[at + 2] >> 2) & 3
    if version == 1 or layer != 1 or rate_index in (0, 15) or sample_index == 3:
        return None  # Layer III only: what these fixtures hold
    mpeg1 = version == 3
    bitrate = BITRATES[(int(mpeg1), 3)][rate_index - 1] * 1000
    rate = [44100, 48000, 32000][sample_index] // (1 if mpeg1 else 2 if version == 2 else 4)
    samples = 1152 if mpeg1 else 576
    padding = (data[at + 2] >> 1) & 1
    mono = data[at + 3] >> 6 == 3
    side = (17 if mono else 32) if mpeg1 else (9 if mono else 17)
    return samples // 8 * bitrate // rate + padding, samples, rate, side


def avi_audio(data):
    """The joined payloads of the audio chunks (`..wb`) of an AVI's movi list."""
    out, at = bytearray(), data.find(b"movi") + 4
    while at + 8 <= len(data):
        fourcc, size = data[at:at + 4], int.from_bytes(data[at + 4:at + 8], "little")
        if fourcc == b"LIST":
            at += 12
            continue
        if fourcc == b"idx1":
            break
        if fourcc[2:] == b"wb":
            out += data[at + 8:at + 8 + size]
        at += 8 + size + (size & 1)
    return bytes(out)


def main(path, avi=False):
    data = open(path, "rb").read()
    if avi:
        data = avi_audio(data)
    at = 0
    if data[:3] == b"ID3":
        size = 0
        for byte in data[6:10]:
            size = size << 7 | (byte & 0x7F)
        at = 10 + size
    frames, first, tag_frame, delay, padding, last_end = 0, None, False, None, None, None
    lame_end = None
    h = header(data, at)
    # The tag follows the side information (after the CRC in some files).
    places = [at + 4 + h[3], at + 6 + h[3]] if h else []
    tags = [p for p in places if data[p:p + 4] in (b"Xing", b"Info")]
    if h and data[at + 36:at + 40] == b"VBRI":
        tag_frame, first = True, h  # Fraunhofer's VBRI frame: not audio, no LAME tag
        at += h[0] if header(data, at + h[0]) else 4
        last_end = at
    elif h and tags:
        # The first frame is the encoder's tag frame, whole or cut short: not audio. Its
        # fields count only when the next chain of frames starts after them.
        tag_frame, first = True, h
        tag_at = tags[0]
        flags = int.from_bytes(data[tag_at + 4:tag_at + 8], "big")
        lame = tag_at + 8 + 4 * bool(flags & 1) + 4 * bool(flags & 2) \
            + 100 * bool(flags & 4) + 4 * bool(flags & 8)
        if data[lame:lame + 4] in (b"LAME", b"Lavc", b"Lavf"):
            packed = int.from_bytes(data[lame + 21:lame + 24], "big")
            delay, padding, lame_end = packed >> 12, packed & 0xFFF, lame + 24
        if header(data, at + h[0]):
            last_end = at = at + h[0]
        else:
            at += 4
    while at + 4 <= len(data):
        h = header(data, at)
        ok = False
        if h:
            end = at + h[0]
            if end == len(data) or header(data, end) or (at == last_end and end < len(data)):
                ok = end <= len(data)
            elif at == last_end and end > len(data) and frames:
                ok = True  # a last frame cut by the end of the file: the decoder outputs it
        if not ok:
            at += 1
            continue
        if lame_end is not None and frames == 0 and at < lame_end:
            delay = padding = None  # the tag frame was cut inside its LAME fields
        first = first or h
        frames += 1
        last_end = at = min(at + h[0], len(data))
    trailing = len(data) - (last_end or len(data))
    if trailing >= 128 and data[-128:-125] == b"TAG":
        trailing -= 128
    print(json.dumps({
        "frames": frames, "samples_per_frame": first[1], "sample_rate": first[2],
        "tag_frame": tag_frame, "delay": delay, "padding": padding, "trailing_bytes": trailing}))


if __name__ == "__main__":
    main(sys.argv[-1], avi="--avi" in sys.argv)
