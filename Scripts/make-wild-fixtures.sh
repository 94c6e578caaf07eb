#!/usr/bin/env bash
# Makes Tests/WildFixtures: small files by construction for issue 20's wild-timestamp, bounded-
# merge and chapter items (16, 18, 13), each with one property chosen here, so the tests take
# their expected values from this construction (and ffprobe's packets), never from our output.
# Beside Scripts/make-fixtures.sh (same conventions); committed, run only to change them.
#
#   wild_pts.flv        20 frames of 160x90 H.264 at 25 fps (40 ms each, no B-frames), FLV's
#                       1 ms time base; the 11th video tag's timestamp moved to 3,600,000,000 ms
#                       (1000 hours, through the timestamp's extension byte), as one mutated
#                       byte does. The packets support 20 x 40 ms; nothing supports 1000 hours.
#   wild_pts.ts         the same 20 frames in MPEG-TS (1/90000); the 11th video PES's PTS moved
#                       3600 s later (+324,000,000 ticks; its DTS, if any, left alone).
#   stretched_frame.mp4 one 160x90 frame whose sample duration (stts) claims 1,000,000 s in a
#                       1/1000 track timescale, no edit list, the movie, track and media headers
#                       saying the same: a well-formed file nothing in it supports.
#   chapters.mp4        Tests/MergeFixtures/pair_b.mp4 (1.5 s) with two chapters from an
#                       FFmetadata file: "First" 0-0.4 s, "Second" 0.4-1.5 s.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=Tests/WildFixtures
mkdir -p "$dir"
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
bitexact=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact)
frames=(-f lavfi -i "testsrc2=size=160x90:rate=25" -frames:v 20 -c:v libx264 -preset veryfast
  -pix_fmt yuv420p -bf 0 -g 25 "${bitexact[@]}")

ff "${frames[@]}" "$dir/wild_pts.flv"
python3 - "$dir/wild_pts.flv" <<'PY'
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
offset = struct.unpack(">I", data[5:9])[0] + 4  # header, then PreviousTagSize0
video = 0
while offset + 11 <= len(data):
    kind = data[offset] & 0x1F
    size = int.from_bytes(data[offset + 1:offset + 4], "big")
    # Video tags that carry a frame (AVCPacketType 1), not the sequence header (0).
    if kind == 9 and data[offset + 12] == 1:
        if video == 10:
            ms = 3_600_000_000
            data[offset + 4:offset + 7] = (ms & 0xFFFFFF).to_bytes(3, "big")
            data[offset + 7] = ms >> 24
            break
        video += 1
    offset += 11 + size + 4
else:
    sys.exit("no 11th video frame")
open(path, "wb").write(data)
PY

ff "${frames[@]}" -f mpegts "$dir/wild_pts.ts"
python3 - "$dir/wild_pts.ts" <<'PY'
import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
def pts(b):
    return ((b[0] >> 1) & 7) << 30 | b[1] << 22 | (b[2] >> 1) << 15 | b[3] << 7 | b[4] >> 1
def put(b, value, prefix):
    return bytes([prefix << 4 | ((value >> 29) & 0x0E) | 1, (value >> 22) & 0xFF,
                  ((value >> 14) & 0xFE) | 1, (value >> 7) & 0xFF, ((value << 1) & 0xFE) | 1])
video = 0
for at in range(0, len(data), 188):
    packet = data[at:at + 188]
    pid = (packet[1] & 0x1F) << 8 | packet[2]
    if packet[0] != 0x47 or not packet[1] & 0x40 or pid != 0x100:
        continue  # not the start of a video PES (ffmpeg's first video PID is 0x100)
    start = 4 + (1 + packet[4] if packet[3] & 0x20 else 0)
    pes = start
    if packet[pes:pes + 3] != b"\x00\x00\x01" or not packet[pes + 7] & 0x80:
        continue
    if video == 10:
        field = at + pes + 9
        old = pts(data[field:field + 5])
        data[field:field + 5] = put(None, (old + 3600 * 90000) % (1 << 33), data[field] >> 4)
        break
    video += 1
else:
    sys.exit("no 11th video PES")
open(path, "wb").write(data)
PY

# One frame lasting 1,000,000 s: encoded at 1 fps in a 1/1000 track timescale without an edit
# list, then the stts delta and the mvhd/tkhd/mdhd durations (all in 1/1000) set to 10^9.
ff -f lavfi -i "color=c=0x406080:size=160x90:rate=1" -frames:v 1 -c:v libx264 -preset veryfast \
  -pix_fmt yuv420p -video_track_timescale 1000 -use_editlist 0 -movflags +faststart \
  "${bitexact[@]}" "$dir/stretched_frame.mp4"
python3 - "$dir/stretched_frame.mp4" <<'PY'
import struct, sys
sys.path.insert(0, "Scripts")
from mp4patch import find
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
ticks = 1_000_000_000
(moov,) = find(data, ["moov"])
(mvhd,) = find(data, ["moov", "mvhd"])
assert struct.unpack(">I", data[mvhd[0] + 20:mvhd[0] + 24])[0] == 1000  # movie timescale
for box, at in ((mvhd, 24), (find(data, ["moov", "trak", "tkhd"])[0], 28),
                (find(data, ["moov", "trak", "mdia", "mdhd"])[0], 24)):
    assert data[box[0] + 8] == 0  # version 0: 32-bit fields
    data[box[0] + at:box[0] + at + 4] = struct.pack(">I", ticks)
(stts,) = find(data, ["moov", "trak", "mdia", "minf", "stbl", "stts"])
assert struct.unpack(">II", data[stts[0] + 12:stts[0] + 20]) == (1, 1)  # one entry, one sample
data[stts[0] + 20:stts[0] + 24] = struct.pack(">I", ticks)
open(path, "wb").write(data)
PY

chapters=$(mktemp)
printf '%s\n' ';FFMETADATA1' '[CHAPTER]' 'TIMEBASE=1/1000' 'START=0' 'END=400' 'title=First' \
  '[CHAPTER]' 'TIMEBASE=1/1000' 'START=400' 'END=1500' 'title=Second' > "$chapters"
ff -i Tests/MergeFixtures/pair_b.mp4 -f ffmetadata -i "$chapters" -map 0 -map_chapters 1 -c copy \
  -movflags +faststart "${bitexact[@]}" "$dir/chapters.mp4"
rm -f "$chapters"
du -sh "$dir"
