#!/usr/bin/env python3
"""Builds inputs that make FFmpeg 5.1's demuxers open other files or the network, each beside the
files it names, in DIRECTORY (used by Tests/EndToEndTests/SecurityTests.swift).

    make-inputs.py DIRECTORY FIXTURES

Prints one line per input: its file name, then the names of the files it refers to (tab-separated).
Everything is made by construction, from the formats' specifications and FFmpeg 5.1.9's
demuxers (hls.c, dashdec.c, concatdec.c, img2dec.c, mlvdec.c, mpeg.c, mov.c, matroskadec.c,
rtsp.c); the media it copies come from FIXTURES.
"""
import os
import shutil
import struct
import subprocess
import sys

out, fixtures = sys.argv[1], sys.argv[2]
listing = []
# A port nothing listens on: a connection attempt would show in the trace as socket()/connect().
NET = "http://127.0.0.1:9"


def write(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def copy(fixture, name):
    shutil.copyfile(os.path.join(fixtures, fixture), os.path.join(out, name))


def entry(name, *refs):
    listing.append("\t".join((name,) + refs))


# HLS (hls.c): a media playlist naming a sibling segment, a secret and a URL.
copy("h264_60fps.ts", "segment0.ts")
write("playlist.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:0\n"
      "#EXTINF:1,\nsegment0.ts\n#EXTINF:1,\n/etc/passwd\n#EXTINF:1,\n"
      f"{NET}/segment1.ts\n#EXT-X-ENDLIST\n")
entry("playlist.m3u8", "segment0.ts", "/etc/passwd")

# DASH (dashdec.c): a static manifest whose segments are a sibling and a URL.
copy("tone.m4a", "dash-init.mp4")
write("manifest.mpd", '<?xml version="1.0"?>\n'
      '<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" '
      'profiles="urn:mpeg:dash:profile:isoff-on-demand:2011" mediaPresentationDuration="PT2S" '
      'minBufferTime="PT1S"><Period><AdaptationSet mimeType="audio/mp4">'
      '<Representation id="a" bandwidth="64000" codecs="mp4a.40.2"><SegmentList duration="2">'
      '<Initialization sourceURL="dash-init.mp4"/><SegmentURL media="dash-init.mp4"/>'
      f'<SegmentURL media="{NET}/dash-segment.m4s"/>'
      '</SegmentList></Representation></AdaptationSet></Period></MPD>\n')
entry("manifest.mpd", "dash-init.mp4")

# concat (concatdec.c): a list of a sibling, a secret and a URL.
copy("tone.wav", "part1.wav")
write("list.ffconcat", "ffconcat version 1.0\nfile 'part1.wav'\nfile '/etc/passwd'\n"
      f"file '{NET}/part2.wav'\n")
entry("list.ffconcat", "part1.wav", "/etc/passwd")

# image2 (img2dec.c): a name that is a pattern, and a .y file whose planes are .U and .V files.
copy("orient_up.mp4", "img001.png")
copy("orient_up.mp4", "img002.png")
write("img%03d.png", b"\x89PNG\r\n\x1a\n" + bytes(64))
entry("img%03d.png", "img001.png", "img002.png")
write("frame.y", bytes(16 * 16))
write("frame.U", bytes(8 * 8))
write("frame.V", bytes(8 * 8))
entry("frame.y", "frame.U", "frame.V")
# A real JPEG named like a pattern, beside files the pattern matches: read as the one picture it
# is (jpeg_pipe), never as image2's sequence.
subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                "testsrc2=size=160x120", "-frames:v", "1", "-update", "1",
                os.path.join(out, "photo-source.jpg")], check=True)
for name in ("img%03d.jpg", "img001.jpg", "img002.jpg"):
    shutil.copyfile(os.path.join(out, "photo-source.jpg"), os.path.join(out, name))
entry("img%03d.jpg", "img001.jpg", "img002.jpg")

# MLV (mlvdec.c): an MLVI header; the demuxer scans clip.M00 ... clip.M99 beside clip.MLV.
mlvi = b"MLVI" + struct.pack("<I", 52) + b"v2.0\0\0\0\0" + struct.pack("<Q", 0x1234) + bytes(32)
write("clip.MLV", mlvi)
write("clip.M00", mlvi)
entry("clip.MLV", "clip.M00")

# VobSub (mpeg.c): an index opens the .sub beside it (by replacing the last three letters),
# whatever the index is named: also as .mp4.
idx = ("# VobSub index file, v7 (do not modify this line!)\nsize: 720x480\n"
       "palette: 000000, 828282, 828282, 828282, 828282, 828282, 828282, ffffff, "
       "828282, bababa, 828282, 828282, 828282, 828282, 828282, 828282\n"
       "id: en, index: 0\ntimestamp: 00:00:00:000, filepos: 000000000\n")
mpeg_ps = b"\x00\x00\x01\xba\x44\x00\x04\x00\x04\x01\x01\x89\xc3\xf8" + bytes(2034)
write("subs.idx", idx)
write("subs.sub", mpeg_ps)
entry("subs.idx", "subs.sub")
write("upload.mp4", idx)
write("upload.sub", mpeg_ps)
entry("upload.mp4", "upload.sub")


# MP4 with a data reference (mov.c): the track's samples live in another file, named by a
# Macintosh alias ('alis') with an absolute path (type 2) to a sibling, one level each way.
def boxes(data, start, end):
    while start < end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        yield kind, start, start + size
        start += size


def replace_dref(data, start, end):
    out_data = b""
    for kind, s, e in boxes(data, start, end):
        if kind in (b"moov", b"trak", b"mdia", b"minf", b"dinf"):
            inner = replace_dref(data, s + 8, e)
            out_data += struct.pack(">I4s", 8 + len(inner), kind) + inner
        elif kind == b"dref":
            path = os.path.join(os.path.abspath(out), "dref-media.m4a").encode()
            path += b"\0" * (len(path) & 1)
            alias = (bytes(10) + bytes([0]) + bytes(27) + bytes(12)
                     + bytes([len(b"dref-media.m4a")]) + b"dref-media.m4a".ljust(63, b"\0")
                     + bytes(16) + struct.pack(">hh", 1, 1) + bytes(16)
                     + struct.pack(">hH", 2, len(path)) + path + struct.pack(">hH", -1, 0))
            alis = struct.pack(">I4sI", 12 + len(alias), b"alis", 0) + alias
            body = struct.pack(">II", 0, 1) + alis
            out_data += struct.pack(">I4s", 8 + len(body), b"dref") + body
        else:
            out_data += data[s:e]
    return out_data


subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=44100", "-t", "0.5", "-c:a", "aac",
                "-fflags", "+bitexact", "-flags:a", "+bitexact",
                os.path.join(out, "dref-media.m4a")], check=True)
media = open(os.path.join(out, "dref-media.m4a"), "rb").read()
kinds = [k for k, _, _ in boxes(media, 0, len(media))]
assert kinds.index(b"moov") > kinds.index(b"mdat"), "moov must follow mdat (offsets unchanged)"
write("dref.mp4", replace_dref(media, 0, len(media)))
entry("dref.mp4", "dref-media.m4a")


# Matroska (matroskadec.c) linked to other segments: PrevFilename/NextFilename, and an ordered
# chapter that plays a range of another segment (ChapterSegmentUID).
def vint(n):
    for length in range(1, 9):
        if n < (1 << (7 * length)) - 1:
            return ((1 << (7 * length)) | n).to_bytes(length, "big")
    raise ValueError(n)


def el(ident, payload):
    if isinstance(payload, int):
        payload = payload.to_bytes(max(1, (payload.bit_length() + 7) // 8), "big")
    elif isinstance(payload, str):
        payload = payload.encode()
    elif isinstance(payload, float):
        payload = struct.pack(">d", payload)
    elif isinstance(payload, list):
        payload = b"".join(payload)
    return ident.to_bytes((ident.bit_length() + 7) // 8, "big") + vint(len(payload)) + payload


this_uid, next_uid, prev_uid = bytes(range(16)), bytes(range(16, 32)), bytes(range(32, 48))
samples = b"".join(struct.pack("<h", (i * 1200) % 30000 - 15000) for i in range(8000))
segment = [
    el(0x1549A966, [el(0x2AD7B1, 1000000), el(0x4D80, "MediaTools"), el(0x5741, "MediaTools"),
                    el(0x73A4, this_uid), el(0x3CB923, prev_uid), el(0x3C83AB, "linked-prev.mkv"),
                    el(0x3EB923, next_uid), el(0x3E83BB, "linked-next.mkv"),
                    el(0x4444, bytes(16)), el(0x4489, 1000.0)]),
    el(0x1654AE6B, [el(0xAE, [el(0xD7, 1), el(0x73C5, 1), el(0x83, 2), el(0x86, "A_PCM/INT/LIT"),
                              el(0xE1, [el(0xB5, 8000.0), el(0x9F, 1), el(0x6264, 16)])])]),
    el(0x1043A770, [el(0x45B9, [el(0x45BC, 1), el(0x45DD, 1),
                                el(0xB6, [el(0x73C4, 1), el(0x91, 0), el(0x92, 1000000000),
                                          el(0x6E67, next_uid)])])]),
    el(0x1F43B675, [el(0xE7, 0), el(0xA3, b"\x81\x00\x00\x80" + samples)]),
]
mkv = (el(0x1A45DFA3, [el(0x4286, 1), el(0x42F7, 1), el(0x42F2, 4), el(0x42F3, 8),
                       el(0x4282, "matroska"), el(0x4287, 4), el(0x4285, 2)])
       + el(0x18538067, segment))
write("linked.mkv", mkv)
write("linked-next.mkv", mkv)
write("linked-prev.mkv", mkv)
entry("linked.mkv", "linked-next.mkv", "linked-prev.mkv")

# SDP (rtsp.c): a session description whose RTP stream is on the network.
write("session.sdp", "v=0\no=- 0 0 IN IP4 127.0.0.1\ns=MediaTools\nc=IN IP4 127.0.0.1\nt=0 0\n"
      "m=audio 9 RTP/AVP 0\n")
entry("session.sdp")

# Symbolic links to devices, named like media.
os.symlink("/dev/zero", os.path.join(out, "zero.mp4"))
os.symlink("/dev/urandom", os.path.join(out, "random.m4a"))
entry("zero.mp4")
entry("random.m4a")

print("\n".join(listing))
