#!/usr/bin/env bash
# Makes Tests/PresentedFixtures (issue 26): small files by construction whose presented duration
# and frame count a specification decides, not the packets libavformat hands out. Each test takes
# its expected values from the construction or from an independent reader of the file's own
# structures (Tests/PresentedFixtures/mp4_presented.py for MP4 edit lists). Run from
# Scripts/make-fixtures.sh, or alone.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=Tests/PresentedFixtures tmp=/tmp/mediatools-presented
mkdir -p "$dir" "$tmp"
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
bitexact=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact)
patch() { python3 Scripts/mp4patch.py "$@"; }

# Class 1: AAC in MP4 with an edit list. 1 s of 44.1 kHz sine (44,100 samples): ffmpeg writes an
# elst that skips the 1,024 priming samples (media_time 1024) and lasts 1 s; then the same file
# with the edit patched to last 0.5 s (500 of the movie's 1000 units), and to start 4,096 samples
# in and last 1 s, past the sample table's end (its last sample lasts 68 ticks in stts).
ff -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=1" -c:a aac -b:a 32k "${bitexact[@]}" "$dir/aac_priming.m4a"
cp "$dir/aac_priming.m4a" "$dir/aac_edit_half.m4a"
patch edit-list "$dir/aac_edit_half.m4a" soun 1024 500
cp "$dir/aac_priming.m4a" "$dir/aac_edit_past_samples.m4a"
patch edit-list "$dir/aac_edit_past_samples.m4a" soun 4096 1000

# Class 2: edit lists that start inside a GOP. 2 s at 25 fps (timescale 12800: 512 ticks a
# frame), a keyframe every 25 frames, B-frames (ctts; ffmpeg's edit starts at the first
# composition time, 1024). `-ss 0.5 -c copy` makes the edit start half-way through frame 12
# (media_time 7424 = 1024 + 12.5 frames) for 1.5 s: frames 12 to 49 are shown (38), frames 0 to
# 11 only decoded. H.264 and HEVC. Then an H.264 edit patched to start at frame 10 (6144) and last
# 5 s, past the samples: frames 10 to 49 (40 frames, 1.6 s).
ff -f lavfi -i "testsrc2=size=96x72:rate=25" -t 2 -c:v libx264 -preset veryfast -pix_fmt yuv420p -g 25 -bf 2 "${bitexact[@]}" "$tmp/h264.mp4"
ff -f lavfi -i "testsrc2=size=96x72:rate=25" -t 2 -c:v libx265 -preset ultrafast -x265-params log-level=error:keyint=25:bframes=2 -tag:v hvc1 "${bitexact[@]}" "$tmp/hevc.mp4"
ff -ss 0.5 -i "$tmp/h264.mp4" -c copy "${bitexact[@]}" "$dir/h264_edit_mid_gop.mp4"
ff -ss 0.5 -i "$tmp/hevc.mp4" -c copy "${bitexact[@]}" "$dir/hevc_edit_mid_gop.mp4"
cp "$tmp/h264.mp4" "$dir/h264_edit_past_samples.mp4"
patch edit-list "$dir/h264_edit_past_samples.mp4" vide 6144 5000
# Class 3: MP3. A CBR file with ffmpeg's Info frame and LAME tag (1 s at 44.1 kHz: 40 audio
# frames, delay 576, padding 1404), then 300 zero bytes and text after its last frame; the same
# tone without an Info frame (`-write_xing 0`); and 0.3 s (13 audio frames) whose Info frame was
# trimmed to 200 bytes (its LAME tag whole, the rest of the frame gone: the next frame starts
# inside its stated size) and to 30 bytes (cut inside its fields).
ff -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=1" -c:a libmp3lame -b:a 64k "${bitexact[@]}" "$tmp/info.mp3"
{ cat "$tmp/info.mp3"; head -c 300 /dev/zero; printf 'not an MPEG audio frame %.0s' 1 2 3 4 5 6 7 8; } >"$dir/mp3_trailing_garbage.mp3"
ff -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=1" -c:a libmp3lame -b:a 64k -write_xing 0 "${bitexact[@]}" "$dir/mp3_cbr_no_info.mp3"
ff -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=0.3" -c:a libmp3lame -b:a 64k -id3v2_version 0 "${bitexact[@]}" "$tmp/short.mp3"
python3 - "$tmp/short.mp3" "$dir" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
assert data[:2] == b"\xff\xfb" and data[21:25] == b"Info", "an Info frame first (mono: 17 bytes of side info)"
size = 144 * 64000 // 44100 + ((data[2] >> 1) & 1)  # the Info frame's stated size
for kept, name in ((200, "mp3_info_trimmed.mp3"), (30, "mp3_info_cut.mp3")):
    open(sys.argv[2] + "/" + name, "wb").write(data[:kept] + data[size:])
PY

# Class 5, audio: MP3 in AVI (issue 26), 2 s of 44.1 kHz sine. ffmpeg writes one frame per chunk
# with a header that counts frames (dwScale 1152, dwRate 44100: its timestamps count frames);
# many muxers write MP3 as bytes instead (dwSampleSize 1, dwScale 1, dwRate the byte rate,
# nBlockAlign 1), which VBR frames do not keep: the same VBR file and a CBR one with that header,
# claiming 8,000 bytes/s (64 kbit/s). The frames decide: 78 of 1152 samples (89,856, 2.038 s).
ff -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=2" -c:a libmp3lame -q:a 6 "${bitexact[@]}" "$dir/avi_mp3_vbr.avi"
ff -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=2" -c:a libmp3lame -b:a 64k "${bitexact[@]}" "$tmp/cbr.avi"
cp "$dir/avi_mp3_vbr.avi" "$dir/avi_mp3_vbr_byte_header.avi"
mv "$tmp/cbr.avi" "$dir/avi_mp3_cbr_byte_header.avi"
for name in avi_mp3_vbr_byte_header avi_mp3_cbr_byte_header; do
  python3 - "$dir/$name.avi" 8000 <<'PY'
import struct, sys
path, rate = sys.argv[1], int(sys.argv[2])
data = bytearray(open(path, "rb").read())
strh = data.find(b"strh")
while data[strh + 8:strh + 12] != b"auds":
    strh = data.find(b"strh", strh + 4)
total, at, end = 0, data.find(b"movi") + 4, data.find(b"idx1")
while at + 8 <= end:  # the audio payload's bytes: the header's length in bytes
    fourcc, size = data[at:at + 4], struct.unpack("<I", data[at + 4:at + 8])[0]
    if fourcc == b"LIST":
        at += 12
        continue
    total += size if fourcc[2:] == b"wb" else 0
    at += 8 + size + (size & 1)
body = strh + 8  # AVISTREAMHEADER: dwScale at 20, dwRate 24, dwLength 32, dwSampleSize 44
struct.pack_into("<I", data, body + 20, 1)
struct.pack_into("<I", data, body + 24, rate)
struct.pack_into("<I", data, body + 32, total)
struct.pack_into("<I", data, body + 44, 1)
wave = data.find(b"strf", strh) + 8  # WAVEFORMATEX: nAvgBytesPerSec at 8, nBlockAlign at 12
struct.pack_into("<I", data, wave + 8, rate)
struct.pack_into("<H", data, wave + 12, 1)
open(path, "wb").write(data)
PY
done

# Class 6: a partly fragmented MP4 (`-movflags frag_keyframe`: the first fragment's samples in
# the moov's tables, the rest in moof boxes, no mehd), 1.2 s of video at 25 fps (B-frames) and
# 48 kHz AAC: the AAC encoder's last frame lasts 256 ticks in its trun, where libavformat gives
# the packet 1024.
ff -f lavfi -i "testsrc2=size=96x72:rate=25" -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 1.2 -c:v libx264 -preset veryfast -pix_fmt yuv420p -g 5 -c:a aac -b:a 32k -movflags frag_keyframe "${bitexact[@]}" "$dir/fragmented_partial_av.mp4"
# The same with the audio's fragments filed under track 3, which the moov does not declare (a
# side-loaded track's fragments): the audio track keeps its 7 moov samples; libavformat files
# track 3's samples under the video stream.
cp "$dir/fragmented_partial_av.mp4" "$dir/fragmented_undeclared_track.mp4"
patch traf-track "$dir/fragmented_undeclared_track.mp4" 2 3

# Class 8: an encrypted WebM (1 s of VP9 and Opus): the video track gets WebM Encryption's
# ContentEncodings (AES-CTR, a key ID) and its blocks become signal byte + IV + ciphertext
# (Scripts/webm-encrypt.py). The Segment Info's Duration stays what the muxer wrote.
ff -f lavfi -i "testsrc2=size=96x72:rate=25" -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 1 -c:v libvpx-vp9 -b:v 50k -deadline realtime -c:a libopus -b:a 32k "${bitexact[@]}" "$dir/webm_encrypted.webm"
python3 Scripts/webm-encrypt.py "$dir/webm_encrypted.webm"

# Class 9: Ogg Opus. 1 s of 48 kHz sine through libopus (48,000 samples): its OpusHead's pre-skip
# (312) and its last page's granule position (48,312) put the decoded end at the granule minus
# the pre-skip (RFC 7845 §4); libavformat's length runs to the granule (1.0065 s).
ff -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=1" -c:a libopus -b:a 24k "${bitexact[@]}" "$dir/opus_preskip.opus"

rm -rf "$tmp"
du -sh "$dir"
