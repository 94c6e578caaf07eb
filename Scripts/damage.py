#!/usr/bin/env python3
"""Damages a media file at a place chosen from its packet list (ffprobe), for test fixtures.

  damage.py overwrite IN OUT STREAM PACKET [BYTES]   overwrite BYTES (default 16) bytes in the
                                                      middle of packet PACKET (counting from 0) of
                                                      STREAM with a fixed pseudo-random pattern
  damage.py fill IN OUT STREAM PACKET SKIP BYTE       fill the packet with BYTE after its first SKIP
                                                      bytes (an Opus payload in a Matroska block)
  damage.py bad-mp3-header IN OUT PACKET              give MP3 frame PACKET an invalid bit rate
  damage.py zero IN OUT STREAM PACKET                 zero the whole packet
  damage.py rename-box IN OUT FROM TO                 rename the first top-level MP4 box FROM
  damage.py cut IN OUT FRACTION                       keep the first FRACTION of the bytes

Packet positions come from ffprobe (`pos` is where the payload starts in MP4, MP3 and FLAC, and
where the block starts in Matroska).
"""
import json, subprocess, sys

def packets(path, stream):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", str(stream), "-show_entries",
                          "packet=pos,size,pts,flags", "-of", "json", path],
                         check=True, capture_output=True).stdout
    return json.loads(out)["packets"]

def main():
    mode, src, dst = sys.argv[1:4]
    data = bytearray(open(src, "rb").read())
    if mode == "cut":
        data = data[:int(len(data) * float(sys.argv[4]))]
    elif mode == "rename-box":
        old, new = sys.argv[4].encode(), sys.argv[5].encode()
        at = 0
        while at + 8 <= len(data):
            size = int.from_bytes(data[at:at + 4], "big")
            if data[at + 4:at + 8] == old:
                data[at + 4:at + 8] = new
                break
            at += size
        else:
            sys.exit("no top-level box " + sys.argv[4])
    elif mode == "bad-mp3-header":
        pos = int(packets(src, 0)[int(sys.argv[4])]["pos"])
        data[pos + 2] = 0xF0 | (data[pos + 2] & 0x0F)  # bit rate index 15: not allowed
    elif mode == "fill":
        packet = packets(src, int(sys.argv[4]))[int(sys.argv[5])]
        pos, size, skip = int(packet["pos"]), int(packet["size"]), int(sys.argv[6])
        data[pos + skip:pos + size] = bytes([int(sys.argv[7], 0)]) * (size - skip)
    else:
        stream, index = int(sys.argv[4]), int(sys.argv[5])
        packet = packets(src, stream)[index]
        pos, size = int(packet["pos"]), int(packet["size"])
        if mode == "zero":
            data[pos:pos + size] = bytes(size)
        else:
            count = int(sys.argv[6]) if len(sys.argv) > 6 else 16
            at = pos + size // 2
            # A fixed pseudo-random pattern: the same bytes every run.
            pattern = bytes((i * 73 + 41) % 256 for i in range(count))
            data[at:at + count] = pattern
    open(dst, "wb").write(data)

if __name__ == "__main__":
    main()
