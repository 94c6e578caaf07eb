#!/usr/bin/env python3
"""Writes an MP4 whose audio is ISO/IEC 23003-5 uncompressed PCM (`ipcm` or `fpcm` with a
`pcmC` box), which FFmpeg 5.1 cannot write, with a signal known by construction.

  make-ipcm.py OUT [--bits 16|24|32|64] [--float] [--little-endian] [--channels N]
                   [--rate HZ] [--frames N] [--frames-per-sample N] [--samples-per-chunk N]
                   [--entry-bits N]

Channel c (from 0) holds a sine of 997 * (c + 1) Hz (no period in whole samples) at amplitude
0.25 / (c + 1) of full scale:

    x[c][n] = 0.25 / (c + 1) * sin(2 * pi * 997 * (c + 1) * n / rate)

stored as floor(x * (2^(bits-1) - 1) + 0.5) for integers, as x itself for floats (the tests
compute the same values). Each MP4 sample holds `--frames-per-sample` PCM frames (1024 by
default; 1 is the QuickTime style, one sample per frame, that the tests also cover), and each
chunk `--samples-per-chunk` MP4 samples (all in one by default); 5 bytes of 0x7F lie between
chunks, so a reader that misplaces a chunk reads loud garbage.

The sample entry's `samplesize` field is 16 unless `--entry-bits` says otherwise: the ISO
template's value, which ISO/IEC 23003-5 tells readers to ignore in favour of `pcmC`, and which
FFmpeg 5.1 (which knows no `pcmC`) takes as the sample size.
"""
import argparse
import math
import struct


def box(kind, *parts):
    body = b"".join(parts)
    return struct.pack(">I4s", 8 + len(body), kind.encode()) + body


def full(kind, version, flags, *parts):
    return box(kind, struct.pack(">I", version << 24 | flags), *parts)


def samples(args):
    scale = (1 << (args.bits - 1)) - 1
    out = bytearray()
    order = "<" if args.little_endian else ">"
    for n in range(args.frames):
        for c in range(args.channels):
            x = 0.25 / (c + 1) * math.sin(2 * math.pi * 997 * (c + 1) * n / args.rate)
            if args.float:
                out += struct.pack(order + ("f" if args.bits == 32 else "d"), x)
            else:
                value = math.floor(x * scale + 0.5)
                raw = value.to_bytes(args.bits // 8, "big", signed=True)
                out += raw[::-1] if args.little_endian else raw
    return bytes(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--bits", type=int, default=24)
    parser.add_argument("--float", action="store_true")
    parser.add_argument("--little-endian", action="store_true")
    parser.add_argument("--channels", type=int, default=2)
    parser.add_argument("--rate", type=int, default=48000)
    parser.add_argument("--frames", type=int, default=2400)
    parser.add_argument("--frames-per-sample", type=int, default=1024)
    parser.add_argument("--samples-per-chunk", type=int, default=0)
    parser.add_argument("--entry-bits", type=int, default=16)
    args = parser.parse_args()

    data = samples(args)
    frame_bytes = args.channels * args.bits // 8
    per = args.frames_per_sample
    counts = [min(per, args.frames - at) for at in range(0, args.frames, per)]
    sizes = [count * frame_bytes for count in counts]
    rate, frames = args.rate, args.frames

    entry = box(
        "fpcm" if args.float else "ipcm",
        bytes(6), struct.pack(">H", 1),  # reserved, data_reference_index
        bytes(8),  # AudioSampleEntry version 0: reserved
        struct.pack(">HH", args.channels, args.entry_bits),
        bytes(4),  # pre_defined, reserved
        struct.pack(">I", rate << 16),
        full("pcmC", 0, 0, struct.pack(">BB", 1 if args.little_endian else 0, args.bits)),
    )
    # stts: runs of equal sample durations.
    runs = []
    for count in counts:
        if runs and runs[-1][1] == count:
            runs[-1][0] += 1
        else:
            runs.append([1, count])
    stts = full("stts", 0, 0, struct.pack(">I", len(runs)),
                *(struct.pack(">II", n, d) for n, d in runs))
    if len(set(sizes)) == 1:
        stsz = full("stsz", 0, 0, struct.pack(">II", sizes[0], len(sizes)))
    else:
        stsz = full("stsz", 0, 0, struct.pack(">II", 0, len(sizes)),
                    *(struct.pack(">I", s) for s in sizes))
    per_chunk = args.samples_per_chunk or len(sizes)
    chunks = [sizes[at:at + per_chunk] for at in range(0, len(sizes), per_chunk)]
    gap = b"\x7f" * 5
    stsc_runs = [(1, len(chunks[0]))] + (
        [(len(chunks), len(chunks[-1]))] if len(chunks[-1]) != len(chunks[0]) else [])
    stsc = full("stsc", 0, 0, struct.pack(">I", len(stsc_runs)),
                *(struct.pack(">III", first, n, 1) for first, n in stsc_runs))
    payload, starts, at = bytearray(), [], 0
    for chunk in chunks:
        starts.append(len(payload))
        payload += data[at:at + sum(chunk)] + gap
        at += sum(chunk)

    def moov(data_offset):
        stco = full("stco", 0, 0, struct.pack(">I", len(starts)),
                    *(struct.pack(">I", data_offset + start) for start in starts))
        stbl = box("stbl", full("stsd", 0, 0, struct.pack(">I", 1), entry), stts, stsc, stsz, stco)
        dinf = box("dinf", full("dref", 0, 0, struct.pack(">I", 1), full("url ", 0, 1)))
        minf = box("minf", full("smhd", 0, 0, bytes(4)), dinf, stbl)
        hdlr = full("hdlr", 0, 0, bytes(4), b"soun", bytes(12), b"SoundHandler\0")
        mdhd = full("mdhd", 0, 0, struct.pack(">IIIIHH", 0, 0, rate, frames, 0x55C4, 0))
        matrix = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
        tkhd = full("tkhd", 0, 3, struct.pack(">IIIII", 0, 0, 1, 0, frames * 1000 // rate),
                    bytes(8), struct.pack(">HHHH", 0, 1, 0x0100, 0), matrix, bytes(8))
        mvhd = full("mvhd", 0, 0, struct.pack(">IIII", 0, 0, 1000, frames * 1000 // rate),
                    struct.pack(">IH", 0x10000, 0x0100), bytes(10), matrix, bytes(24),
                    struct.pack(">I", 2))
        return box("moov", mvhd, box("trak", tkhd, box("mdia", mdhd, hdlr, minf)))

    ftyp = box("ftyp", b"isom", struct.pack(">I", 0x200), b"isomiso2mp41")
    offset = len(ftyp) + len(moov(0)) + 8
    with open(args.out, "wb") as out:
        out.write(ftyp + moov(offset) + box("mdat", bytes(payload)))


if __name__ == "__main__":
    main()
