#!/usr/bin/env bash
# Generates the test fixtures in Tests/Fixtures with the ffmpeg CLI from lavfi sources, so their
# true values (size, frame rate, duration, matrix, field order) are known by construction.
# The fixtures are committed; run this only to change them (then re-record the goldens on purpose).
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/Fixtures
mkdir -p "$out"
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
video() { echo "testsrc2=size=${1}:rate=${2}"; }                  # size, rate
tone() { echo "sine=frequency=${1:-440}:sample_rate=${2:-48000}"; } # frequency, rate
bitexact=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact)
x264=(-c:v libx264 -preset veryfast -pix_fmt yuv420p)
aac=(-c:a aac -b:a 64k)

# --- mediacompat: audio files on the modern platforms (Tests/CompatFixtures, issue 8) -----------
# One small file (0.5 s, mono) per audio row of MediaCompatTests.audioTable; their verdicts come from
# the platforms' documents and the browser oracle (Scripts/browser-oracle). A folder of their own,
# so the probe and extraction suites over Tests/Fixtures are unchanged. `make-fixtures.sh
# compat-audio` makes only these.
compat_audio() {
  local dir=Tests/CompatFixtures a="sine=frequency=440:sample_rate=44100" p="sine=frequency=440:sample_rate=22050"
  mkdir -p "$dir"
  c() { ff -f lavfi -i "$1" -t 0.5 -ac 1 "${@:2:$#-2}" "${bitexact[@]}" "${@: -1}"; }  # source, options..., output
  c "$a" -c:a libmp3lame -b:a 64k "$dir/mp3.mp3"
  c "$a" -c:a aac -b:a 64k -f ipod "$dir/aac.m4a"                 # brand 'M4A '
  c "$a" -c:a aac -b:a 64k -brand isom "$dir/aac_isom.mp4"
  c "$a" -c:a aac -b:a 64k -f adts "$dir/aac_adts.aac"
  c "$a" -c:a alac -f ipod "$dir/alac.m4a"
  c "$a" -c:a alac "$dir/alac.caf"
  c "$a" -c:a flac "$dir/flac.flac"
  c "$a" -c:a flac -strict -2 "$dir/flac.mp4"
  c "$a" -c:a flac "$dir/flac.ogg"
  c "sine=frequency=440:sample_rate=48000" -c:a libopus -b:a 32k "$dir/opus.ogg"
  c "sine=frequency=440:sample_rate=48000" -c:a libopus -b:a 32k "$dir/opus.webm"
  c "sine=frequency=440:sample_rate=48000" -c:a libopus -b:a 32k "$dir/opus.mp4"
  c "sine=frequency=440:sample_rate=48000" -c:a libopus -b:a 32k "$dir/opus.caf"
  c "$a" -c:a libvorbis -b:a 64k "$dir/vorbis.ogg"
  c "$a" -c:a libvorbis -b:a 64k "$dir/vorbis.webm"
  c "$a" -c:a libvorbis -b:a 64k -strict -2 "$dir/vorbis.mp4"
  for fmt in u8 s16le s24le s32le f32le; do c "$p" -c:a "pcm_$fmt" "$dir/pcm_$fmt.wav"; done
  c "$p" -c:a pcm_s16be "$dir/pcm_s16be.aiff"
  c "sine=frequency=440:sample_rate=48000" -c:a ac3 -b:a 96k "$dir/ac3.ac3"
  c "sine=frequency=440:sample_rate=48000" -c:a eac3 -b:a 96k "$dir/eac3.eac3"
  c "sine=frequency=440:sample_rate=48000" -c:a ac3 -b:a 96k "$dir/ac3.mp4"
  c "sine=frequency=440:sample_rate=48000" -c:a eac3 -b:a 96k "$dir/eac3.mp4"
  # AMR-NB has no encoder in Debian's FFmpeg: 25 hand-made 12.2 kbit/s frames (0.5 s).
  python3 -c 'import sys; sys.stdout.buffer.write(b"#!AMR\n" + (b"\x3c" + bytes(range(7, 38))) * 25)' > "$dir/amr_nb.amr"
  ff -i "$dir/amr_nb.amr" -c copy "${bitexact[@]}" "$dir/amr_nb.3gp"
  du -sh "$dir"
}
if [ "${1:-}" = compat-audio ]; then
  compat_audio
  exit 0
fi
# --- mediaprobe --scan: frames a decoder does not output (Tests/TruthFixtures, issue 9) -------
# Small files whose presented length the decoder decides, not the packets' timestamps; each test
# takes its expected value from ffmpeg's decoder output or from the construction. A folder of
# their own: some are damaged on purpose, and the probe suites over Tests/Fixtures stay as they are.
# `make-fixtures.sh probe-truth` makes only these.
probe_truth() {
  local dir=Tests/TruthFixtures
  mkdir -p "$dir"
  # Vorbis in Matroska: the first packet only primes the decoder (1.0115 s decoded, not 1.014).
  ff -f lavfi -i "$(tone 440 44100)" -t 1 -c:a libvorbis "${bitexact[@]}" "$dir/vorbis.mkv"
  # AVI with dropped frames: frames 0, 5, ... 25 of 15 fps kept, each lasting 1/15 s (the index
  # holds one tick per frame, dwLength 26): it ends at 26/15 s, not one gap after the last frame.
  ff -f lavfi -i "$(video 64x48 15)" -t 2 -vf "select='not(mod(n,5))'" -fps_mode passthrough -c:v mpeg4 "${bitexact[@]}" "$dir/avi_dropped_frames.avi"
  # AVI gives H.264 decoding times only; without B-frames they are the presentation times, and
  # the hole at frame 1 (dropped) is one: 24 frames of 25 fps shown from 0 to 1.000 s.
  ff -f lavfi -i "$(video 64x48 25)" -t 1 -vf "select='not(eq(n,1))'" -fps_mode passthrough "${x264[@]}" -bf 0 "${bitexact[@]}" "$dir/h264_dts_only.avi"
  # MPEG-1 program stream whose PES headers carry no PTS or DTS (replaced by stuffing): 25 frames
  # of 25 fps, untimed, each 1/25 s long (1.000 s).
  ff -f lavfi -i "$(video 64x48 25)" -t 1 -c:v mpeg1video -bf 0 "${bitexact[@]}" -f mpeg "$dir/mpeg_ps_untimed.mpg"
  python3 - "$dir/mpeg_ps_untimed.mpg" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.find(b"\x00\x00\x01\xe0")
while at >= 0:  # MPEG-1 packet: stuffing, an optional STD buffer size, then PTS (5) or PTS+DTS (10)
    p = at + 6
    while data[p] == 0xFF: p += 1
    if data[p] & 0xC0 == 0x40: p += 2
    size = {0x20: 5, 0x30: 10}.get(data[p] & 0xF0, 0)
    if size: data[p:p + size] = b"\xff" * (size - 1) + b"\x0f"
    at = data.find(b"\x00\x00\x01\xe0", at + 4)
open(sys.argv[1], "wb").write(data)
PY
  # ADTS AAC whose first frame starts with libfaac's fill element ("libfaac 1.28", as libfaac
  # writes it; the rest of the frame shifted after it): FFmpeg's decoder then drops that frame,
  # 22 of the 23 frames are output (0.5108 s, not 0.5341).
  ff -f lavfi -i "$(tone 440 44100)" -t 0.5 "${aac[@]}" "${bitexact[@]}" -f adts "$dir/aac_libfaac.aac"
  python3 - "$dir/aac_libfaac.aac" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
assert data[0] == 0xFF and data[1] & 0xF6 == 0xF0 and data[1] & 1, "ADTS without CRC expected"
length = ((data[3] & 3) << 11) | (data[4] << 3) | (data[5] >> 5)
text = b"libfaac 1.28\0\0\0"  # what libfaac writes: 15 bytes after 17 bits of FIL fields
# FIL element: id 6, count 15 + escape 4 (18 bytes), extension type EXT_FILL (0), 13 bits that
# FFmpeg's decode_fill skips, the text, and 7 zero bits to fill the 18 bytes.
bits = "110" + "1111" + format(4, "08b") + "0000" + "0" * 13
bits += "".join(format(b, "08b") for b in text) + "0" * 7
bits += "".join(format(b, "08b") for b in data[7:length])
bits += "0" * (-len(bits) % 8)
payload = bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))
header = bytearray(data[:7])
new = 7 + len(payload)
header[3] = (header[3] & 0xFC) | (new >> 11)
header[4] = (new >> 3) & 0xFF
header[5] = (header[5] & 0x1F) | ((new & 7) << 5)
open(sys.argv[1], "wb").write(header + payload + data[length:])
PY
  # MPEG-2 Layer III (24 kHz, 576 samples a frame) whose LAME tag's padding is raised: libavformat
  # then asks the decoder to discard the end over two packets (51 and 576 samples: 2,300 samples
  # presented); and past the samples there are (delay 576 + padding 1,452 > 3 frames): the second
  # packet's skip side data (0) replaces the 529 still pending, so 576 - 347 = 229 are presented.
  cat > /tmp/mediatools-lamepad.py <<'PY'
import sys  # lamepad.py FILE N: add N samples to the LAME tag's padding
path, extra = sys.argv[1], int(sys.argv[2])
data = bytearray(open(path, "rb").read())
info = data.find(b"Info")
assert data[info + 7] == 0x0F, "frames, bytes, TOC and quality expected"
frame = data.rfind(b"\xff\xf3", 0, info)  # the Info frame (MPEG-2 Layer III)
tag = info + 120  # after the Xing fields: the LAME tag ("Lavf lame" from FFmpeg)
def crc16(b):  # the tag's CRC-16 (poly 0x8005 reflected, initial 0) over the frame's first
    crc = 0    # 190 bytes, its own field zeroed
    for byte in b:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc
def sign():
    data[tag + 34:tag + 36] = b"\0\0"
    return crc16(data[frame:frame + 190]).to_bytes(2, "big")
v = int.from_bytes(data[tag + 21:tag + 24], "big")
delay, padding = v >> 12, v & 4095
data[tag + 21:tag + 24] = ((delay << 12) | (padding + extra)).to_bytes(3, "big")
data[tag + 34:tag + 36] = sign()
open(path, "wb").write(data)
PY
  ff -f lavfi -i "$(tone 440 24000)" -af atrim=end_sample=3000 -c:a libmp3lame -b:a 32k "${bitexact[@]}" "$dir/mp3_padding_split.mp3"
  python3 /tmp/mediatools-lamepad.py "$dir/mp3_padding_split.mp3" 700
  ff -f lavfi -i "$(tone 440 24000)" -af atrim=end_sample=24 -c:a libmp3lame -b:a 32k "${bitexact[@]}" "$dir/mp3_padding_past_end.mp3"
  python3 /tmp/mediatools-lamepad.py "$dir/mp3_padding_past_end.mp3" 347
  rm -f /tmp/mediatools-lamepad.py
  # Packets the decoder rejects or that hold no picture: FLAC whose last frame (996 bytes) is
  # cut 40 bytes short (4 whole frames of 4,608 samples decode); AC-3 in Matroska whose first
  # frame's sync word is zeroed (15 of 16 frames of 1,536 samples decode); H.264 in MP4 whose
  # 12th sample is an access unit delimiter and an end-of-sequence NAL, no slice (11 pictures).
  ff -f lavfi -i "$(tone 440 44100)" -t 0.5 -c:a flac "${bitexact[@]}" /tmp/mediatools-whole.flac
  head -c -40 /tmp/mediatools-whole.flac > "$dir/flac_cut_last_frame.flac"
  ff -f lavfi -i "$(tone 440 48000)" -t 0.5 -c:a ac3 -b:a 96k "${bitexact[@]}" "$dir/ac3_first_frame_no_sync.mkv"
  python3 - "$dir/ac3_first_frame_no_sync.mkv" <<'PY'
import json, subprocess, sys
first = json.loads(subprocess.run(["ffprobe", "-v", "error", "-show_entries", "packet=pos", "-of", "json",
                                   sys.argv[1]], check=True, capture_output=True).stdout)["packets"][0]
data = bytearray(open(sys.argv[1], "rb").read())
at = data.find(b"\x0b\x77", int(first["pos"]))  # the block's payload, after its header
data[at:at + 2] = b"\0\0"
open(sys.argv[1], "wb").write(data)
PY
  ff -f lavfi -i "$(video 64x48 12)" -frames:v 11 "${x264[@]}" -bf 0 "${bitexact[@]}" -bsf:v h264_metadata=aud=insert -f h264 /tmp/mediatools-eos.h264
  printf '\x00\x00\x00\x01\x09\xf0\x00\x00\x00\x01\x0a' >> /tmp/mediatools-eos.h264
  ff -r 12 -i /tmp/mediatools-eos.h264 -c copy "${bitexact[@]}" "$dir/h264_sample_without_picture.mp4"
  rm -f /tmp/mediatools-whole.flac /tmp/mediatools-eos.h264
  # AC-3 in MP4 whose last sample is its frame followed by 24 stray bytes (as a RealMedia chunk's
  # tail can be): the decoder rejects the whole packet, so 15 of 16 frames less the 256 priming
  # samples are output (22,784).
  ff -f lavfi -i "$(tone 440 48000)" -t 0.5 -c:a ac3 -b:a 96k "${bitexact[@]}" /tmp/mediatools-ac3.mp4
  python3 - /tmp/mediatools-ac3.mp4 "$dir/ac3_last_frame_stray_bytes.mp4" 24 <<'PY'
import json, struct, subprocess, sys
src, dst, extra = sys.argv[1], sys.argv[2], int(sys.argv[3])  # IN OUT BYTES
last = json.loads(subprocess.run(["ffprobe", "-v", "error", "-show_entries", "packet=pos,size", "-of", "json", src],
                                 check=True, capture_output=True).stdout)["packets"][-1]
data = bytearray(open(src, "rb").read())
def path_to(name, start=0, end=None, parents=()):  # the box named `name` and its ancestors
    end = len(data) if end is None else end
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        if kind == name:
            return parents + (start,)
        if kind in (b"moov", b"trak", b"mdia", b"minf", b"stbl"):
            found = path_to(name, start + 8, start + size, parents + (start,))
            if found:
                return found
        start += size
def grow(offsets, delta):
    for at in offsets:
        data[at:at + 4] = struct.pack(">I", struct.unpack(">I", data[at:at + 4])[0] + delta)
# The last sample, one frame, gets `extra` stray bytes after it (the mdat, before the moov, grows).
mdat = path_to(b"mdat")[-1]
end = int(last["pos"]) + int(last["size"])
assert mdat + struct.unpack(">I", data[mdat:mdat + 4])[0] == end, "the last sample must end the mdat"
data[end:end] = bytes(range(0x41, 0x41 + extra))  # no sync word
grow([mdat], extra)
# stsz: one size for every sample becomes a table whose last entry is larger.
*parents, stsz = path_to(b"stsz")
size, count = struct.unpack(">II", data[stsz + 12:stsz + 20])
table = struct.pack(">I", size) * (count - 1) + struct.pack(">I", size + extra)
data[stsz + 12:stsz + 20] = struct.pack(">II", 0, count) + table
grow(parents + [stsz], len(table))
open(dst, "wb").write(data)
PY
  rm -f /tmp/mediatools-ac3.mp4
  du -sh "$dir"
}
if [ "${1:-}" = probe-truth ]; then
  probe_truth
  exit 0
fi
# --- Files from the wild (Tests/WildFixtures, issue 20) ---------------------------------------
# Each reproduces a class of real-world file that gave a wrong answer, made so that the truth is
# known by construction or told by ffmpeg's decoder (the tests name the oracle of each).
# `make-fixtures.sh wild` makes only these.
wild() {
  local dir=Tests/WildFixtures tmp=/tmp/mediatools-wild
  mkdir -p "$dir" "$tmp"
  # Ogg Vorbis with block switching (tone bursts: short blocks at each attack): the demuxer's
  # packet durations and the decoder's frame sizes differ around each switch; ffmpeg -xerror
  # decodes it without a warning.
  ff -f lavfi -i "aevalsrc=0.8*sin(2*PI*440*t)*lt(mod(t\,0.25)\,0.03):s=48000:d=3" -c:a libvorbis "${bitexact[@]}" "$dir/vorbis_block_switching.ogg"
  # HEVC whose container says nothing about fields: progressive (x265's default: the profile's
  # progressive_source_flag), raw and in an MP4 without a `fiel` box (remuxed from the raw
  # stream); and field-coded (x265 interlace=tff: field_seq_flag, pic_struct SEI) in an MP4 whose
  # `fiel` box says progressive.
  ff -f lavfi -i "$(video 160x120 25)" -t 0.4 -c:v libx265 -preset ultrafast -x265-params log-level=error "${bitexact[@]}" "$dir/hevc_progressive.hevc"
  ff -i "$dir/hevc_progressive.hevc" -c copy -tag:v hvc1 "${bitexact[@]}" "$dir/hevc_no_field_order.mp4"
  ff -f lavfi -i "$(video 160x120 50)" -t 0.4 -c:v libx265 -preset ultrafast -x265-params log-level=error:interlace=tff -tag:v hvc1 "${bitexact[@]}" "$dir/hevc_fields.mp4"
  # VP9 and AV1 in IVF, a container with no field order at all.
  ff -f lavfi -i "$(video 160x120 25)" -t 0.4 -c:v libvpx-vp9 -b:v 100k -deadline realtime "${bitexact[@]}" "$dir/vp9.ivf"
  ff -f lavfi -i "$(video 160x120 25)" -t 0.4 -c:v libaom-av1 -cpu-used 8 -b:v 100k "${bitexact[@]}" "$dir/av1.ivf"
  # An MP4 cut after its index: moov first, mdat of size 0 ("to the end of the file"), then the
  # file cut at half its size. The index still covers 4 s.
  ff -f lavfi -i "$(video 160x120 25)" -f lavfi -i "$(tone 440 48000)" -t 4 "${x264[@]}" -g 25 "${aac[@]}" -movflags +faststart "${bitexact[@]}" "$tmp/whole.mp4"
  python3 Scripts/mp4patch.py mdat-to-end "$tmp/whole.mp4"
  local cut=$(($(stat -c %s "$tmp/whole.mp4") / 2))
  head -c "$cut" "$tmp/whole.mp4" >"$dir/mp4_cut_after_index.mp4"
  # The oracle, from ffprobe's packets of the whole file: the decoding time of the first packet
  # (of any stream) whose bytes pass the cut, and of the last packet.
  ffprobe -v error -show_entries packet=stream_index,dts_time,size,pos -of json "$tmp/whole.mp4" |
    python3 -c 'import json, sys
cut = int(sys.argv[1]); packets = json.load(sys.stdin)["packets"]
first = {}
for p in packets:
    if int(p["pos"]) + int(p["size"]) > cut: first.setdefault(p["stream_index"], float(p["dts_time"]))
print(json.dumps({"playable_end": min(first.values()), "indexed_end": max(float(p["dts_time"]) for p in packets)}))' "$cut" >"$dir/mp4_cut_after_index.mp4.json"
  # CBR MP3 with an ID3v2 tag, no Xing header, and one stray byte after the last frame.
  ff -f lavfi -i "$(tone 440 48000)" -t 2.8 -c:a libmp3lame -b:a 128k -write_xing 0 -id3v2_version 3 -metadata title=Wild "${bitexact[@]}" "$tmp/cbr.mp3"
  { cat "$tmp/cbr.mp3"; printf '\377'; } >"$dir/mp3_trailing_byte.mp3"
  # An MP4 whose video track holds no sample (the sample tables' entry counts set to 0).
  ff -f lavfi -i "$(video 160x120 30)" -f lavfi -i "$(tone 440 48000)" -t 1 "${x264[@]}" "${aac[@]}" -video_track_timescale 90000 "${bitexact[@]}" "$dir/empty_video_track.mp4"
  python3 Scripts/mp4patch.py empty-video "$dir/empty_video_track.mp4"
  # A Matroska file with subtitles only.
  printf '1\n00:00:00,000 --> 00:00:01,500\nHello\n\n2\n00:00:02,000 --> 00:00:03,000\nWorld\n' >"$tmp/subtitles.srt"
  ff -i "$tmp/subtitles.srt" -c:s srt "${bitexact[@]}" "$dir/subtitles_only.mkv"
  # Duration and span (issue 26): a Matroska file whose subtitle lasts to 3 s while its audio and
  # video end at 2 s (the Segment Duration covers the subtitle), and an MP4 of 2 s of video and
  # audio whose movie header was set to 1.5 s (mvhd timescale 1000: 1500).
  printf '1\n00:00:00,000 --> 00:00:03,000\nLonger\n' >"$tmp/longer.srt"
  ff -t 2 -f lavfi -i "$(video 160x120 25)" -t 2 -f lavfi -i "$(tone 440 48000)" -i "$tmp/longer.srt" -map 0 -map 1 -map 2 "${x264[@]}" -c:a libvorbis -c:s srt "${bitexact[@]}" "$dir/span_subtitle_longer.mkv"
  ff -f lavfi -i "$(video 160x120 25)" -f lavfi -i "$(tone 440 48000)" -t 2 "${x264[@]}" "${aac[@]}" "${bitexact[@]}" "$dir/span_movie_header_short.mp4"
  python3 Scripts/mp4patch.py movie-duration "$dir/span_movie_header_short.mp4" 1500
  # An AVI whose header claims 75 video frames (avih dwTotalFrames and the video strh dwLength
  # patched; 3 s at 25 fps) over the 2 s of MPEG-4 video and MP3 audio it stores (issue 26).
  ff -f lavfi -i "$(video 96x72 25)" -f lavfi -i "$(tone 440 44100)" -t 2 -c:v mpeg4 -q:v 12 -c:a libmp3lame -b:a 32k "${bitexact[@]}" "$dir/avi_header_longer.avi"
  python3 - "$dir/avi_header_longer.avi" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
avih = data.find(b"avih")
data[avih + 24:avih + 28] = struct.pack("<I", 75)  # dwTotalFrames
strh = data.find(b"strh")
while data[strh + 8:strh + 12] != b"vids":
    strh = data.find(b"strh", strh + 4)
data[strh + 40:strh + 44] = struct.pack("<I", 75)  # dwLength
open(sys.argv[1], "wb").write(data)
PY
  # MPEG-TS whose last audio frame is cut by the end of the file (issue 26): AAC (ADTS), AC-3 and
  # E-AC-3, 1 s at 48 kHz, the file cut 4, 1 and 2 TS packets + 60 bytes before its end. For the
  # constant-size AC-3 frames the whole stream's frame size is kept beside the fixture (all its
  # packets have that size, checked here): whole frames = the cut stream's bytes / that size.
  ff -f lavfi -i "$(tone 440 48000)" -t 1 "${aac[@]}" "${bitexact[@]}" -f mpegts "$tmp/aac.ts"
  ff -f lavfi -i "$(tone 440 48000)" -t 1 -c:a ac3 -b:a 96k "${bitexact[@]}" -f mpegts "$tmp/ac3.ts"
  ff -f lavfi -i "$(tone 440 48000)" -t 1 -c:a eac3 -b:a 96k "${bitexact[@]}" -f mpegts "$tmp/eac3.ts"
  local codec packets
  for codec in aac:4 ac3:1 eac3:2; do
    packets=${codec#*:} codec=${codec%:*}
    head -c $(($(stat -c %s "$tmp/$codec.ts") - 188 * packets - 60)) "$tmp/$codec.ts" >"$dir/ts_${codec}_cut.ts"
    [ "$codec" = aac ] && continue
    ffprobe -v error -select_streams a -show_entries packet=size -of default=nw=1:nk=1 "$tmp/$codec.ts" | sort -u |
      python3 -c 'import json, sys; sizes = sys.stdin.read().split(); assert len(sizes) == 1, sizes; print(json.dumps({"frame_bytes": int(sizes[0])}))' >"$dir/ts_${codec}_cut.ts.json"
  done
  rm -rf "$tmp"
  du -sh "$dir"
}
if [ "${1:-}" = wild ]; then
  wild
  exit 0
fi
# --- media2wav: audio from the wild (Tests/AudioFixtures, issue 20) ------------------------------
# ISO/IEC 23003-5 PCM in MP4 (`ipcm`/`fpcm` + `pcmC`), which FFmpeg 5.1 cannot write: built by
# Scripts/make-ipcm.py with a signal known by construction (channel c: a sine of 997*(c+1) Hz at
# 0.25/(c+1) of full scale), 8 kHz stereo. The sample entry's samplesize says 16, as the ISO
# template (and FFmpeg 6.1's muxer) writes it; pcmC says the real size.
#   ipcm_s24be.mp4  24-bit big-endian, 0.5 s, one PCM frame per MP4 sample, chunks of 1500 frames
#   ipcm_s16be.mp4  its 16-bit twin (same layout): the loudness both must have
#   ipcm_s32le.mp4  32-bit little-endian, 0.1 s, MP4 samples of 256 frames, two per chunk
#   fpcm_f32le.mp4  32-bit float little-endian, 0.1 s, one frame per sample, chunks of 300
#   fpcm_f64be.mp4  64-bit float big-endian, 0.1 s, one MP4 sample of 800 frames
# `make-fixtures.sh audio-wild` makes only these.
audio_wild() {
  local dir=Tests/AudioFixtures m=(python3 Scripts/make-ipcm.py) common=(--rate 8000 --channels 2)
  mkdir -p "$dir"
  "${m[@]}" "$dir/ipcm_s24be.mp4" "${common[@]}" --bits 24 --frames 4000 --frames-per-sample 1 --samples-per-chunk 1500
  "${m[@]}" "$dir/ipcm_s16be.mp4" "${common[@]}" --bits 16 --frames 4000 --frames-per-sample 1 --samples-per-chunk 1500
  "${m[@]}" "$dir/ipcm_s32le.mp4" "${common[@]}" --bits 32 --little-endian --frames 800 --frames-per-sample 256 --samples-per-chunk 2
  "${m[@]}" "$dir/fpcm_f32le.mp4" "${common[@]}" --float --bits 32 --little-endian --frames 800 --frames-per-sample 1 --samples-per-chunk 300
  "${m[@]}" "$dir/fpcm_f64be.mp4" "${common[@]}" --float --bits 64 --frames 800 --frames-per-sample 800
  du -sh "$dir"
}
if [ "${1:-}" = audio-wild ]; then
  audio_wild
  exit 0
fi
# `make-fixtures.sh merge-clips` makes only the mediamerge clips (the last section of this file).
if [ "${1:-}" = merge-clips ]; then
  eval "$(sed -n '/^# --- mediamerge clips/,$p' "$0")"
  exit 0
fi

# --- Video codecs, containers and frame rates (1 s each, small) -----------------------------
ff -f lavfi -i "$(video 320x240 25)" -f lavfi -i "$(tone)" -t 1 "${x264[@]}" -profile:v baseline -level 3.0 "${aac[@]}" -movflags +faststart "${bitexact[@]}" "$out/h264_25fps.mp4"
ff -f lavfi -i "$(video 320x240 24000/1001)" -f lavfi -i "$(tone)" -t 1 "${x264[@]}" "${aac[@]}" "${bitexact[@]}" "$out/h264_23.976fps.mov"
ff -f lavfi -i "$(video 320x240 30)" -f lavfi -i "$(tone)" -t 1 "${x264[@]}" "${aac[@]}" "${bitexact[@]}" "$out/h264_30fps.mkv"
ff -f lavfi -i "$(video 320x240 60)" -f lavfi -i "$(tone)" -t 1 "${x264[@]}" "${aac[@]}" "${bitexact[@]}" "$out/h264_60fps.ts"
ff -f lavfi -i "$(video 320x240 30)" -f lavfi -i "$(tone)" -t 1 -c:v libx265 -preset ultrafast -x265-params log-level=error -tag:v hvc1 "${aac[@]}" "${bitexact[@]}" "$out/hevc_hvc1.mp4"
ff -i "$out/hevc_hvc1.mp4" -c copy -tag:v hev1 "${bitexact[@]}" "$out/hevc_hev1.mp4"
ff -f lavfi -i "$(video 160x120 24)" -t 1 -c:v libx265 -preset ultrafast -x265-params log-level=error -pix_fmt yuv420p10le \
   -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc -color_range tv "${bitexact[@]}" "$out/hevc_hdr10.mkv"
ff -f lavfi -i "$(video 320x240 30)" -f lavfi -i "$(tone)" -t 1 -c:v libvpx -b:v 300k -c:a libvorbis "${bitexact[@]}" "$out/vp8_vorbis.webm"
ff -f lavfi -i "$(video 320x240 30)" -f lavfi -i "$(tone)" -t 1 -c:v libvpx-vp9 -b:v 300k -deadline realtime -c:a libopus "${bitexact[@]}" "$out/vp9_opus.webm"
ff -f lavfi -i "$(video 160x120 30)" -t 1 -c:v libaom-av1 -cpu-used 8 -b:v 100k "${bitexact[@]}" "$out/av1.mp4"
ff -f lavfi -i "$(video 176x144 15)" -f lavfi -i "$(tone 440 8000)" -t 1 -c:v h263 -c:a aac -ac 1 -b:a 24k "${bitexact[@]}" "$out/h263_qcif.3gp"
ff -f lavfi -i "$(video 320x240 30)" -f lavfi -i "$(tone)" -t 1 -c:v mpeg4 -b:v 500k "${aac[@]}" "${bitexact[@]}" "$out/mpeg4_sp.mp4"

# VFR by construction: 10 frames at 10 fps, then 30 frames at 30 fps (time base 1/300):
# 40 frames, 2.000 s, frame durations 1/10 s and 1/30 s.
ff -f lavfi -i "$(video 160x120 30)" -frames:v 40 -vf "settb=1/300,setpts='if(lt(N,10),N*30,300+(N-10)*10)'" \
   -fps_mode passthrough -video_track_timescale 300 "${x264[@]}" -bf 0 "${bitexact[@]}" "$out/vfr.mp4"

# Interlaced by construction (x264 MBAFF, top field first; and bottom field first in MKV). The
# frames are marked progressive before encoding, so the containers say nothing or "progressive"
# (Matroska), while the fields' order in the bitstream is the one chosen.
for ext in mp4 mkv; do
  ff -f lavfi -i "$(video 320x240 30)" -t 1 -vf setfield=tff,setparams=field_mode=prog "${x264[@]}" -flags +ildct+ilme -x264-params tff=1 "${bitexact[@]}" "$out/interlaced_tff.$ext"
done
ff -f lavfi -i "$(video 320x240 30)" -t 1 -vf setfield=bff,setparams=field_mode=prog "${x264[@]}" -flags +ildct+ilme -x264-params bff=1 "${bitexact[@]}" "$out/interlaced_bff.mkv"

# Anamorphic: 240x180 stored with SAR 4:3, so it displays at 320x180 (DAR 16:9).
ff -f lavfi -i "$(video 240x180 25)" -t 1 -vf setsar=4/3 "${x264[@]}" "${bitexact[@]}" "$out/anamorphic.mp4"

# --- The 8 orientation matrices (160x120 natural size; tkhd patched, reference/probe.md) -----
ff -f lavfi -i "$(video 160x120 30)" -t 0.5 "${x264[@]}" "${bitexact[@]}" "$out/orient_up.mp4"
while read -r name a b c d; do
  cp "$out/orient_up.mp4" "$out/orient_$name.mp4"
  python3 Scripts/mp4patch.py matrix "$out/orient_$name.mp4" "$a" "$b" "$c" "$d"
done <<'MATRICES'
right 0 1 -1 0
down -1 0 0 -1
left 0 -1 1 0
up_mirrored -1 0 0 1
down_mirrored 1 0 0 -1
left_mirrored 0 1 1 0
right_mirrored 0 -1 -1 0
MATRICES

# Fragmented MP4 whose headers say "unknown" (0xFFFFFFFF), 1.000 s really: ffprobe prints 335544 s.
ff -f lavfi -i "$(video 160x120 25)" -t 1 "${x264[@]}" -movflags frag_keyframe+empty_moov "${bitexact[@]}" "$out/fragmented_unknown_duration.mp4"
python3 Scripts/mp4patch.py unknown-duration "$out/fragmented_unknown_duration.mp4"

# --- Probe truth (issue 9): what headers get wrong, each known by construction ---------------
# Streams that start at different times: video 0-2.000 s; PCM audio 0.500-2.500 s (the file is
# 2.500 s, the union); and in FLV video 0.300-2.300 s with audio 0-2.000 s (2.300 s).
for ext in mkv mov; do
  ff -t 2 -f lavfi -i "$(video 160x120 30)" -itsoffset 0.5 -t 2 -f lavfi -i "$(tone 440 48000)" -map 0:v -map 1:a \
     "${x264[@]}" -c:a pcm_s16le "${bitexact[@]}" "$out/offset_audio_late.$ext"
done
ff -t 2 -itsoffset 0.3 -f lavfi -i "$(video 160x120 30)" -t 2 -f lavfi -i "$(tone 440 44100)" -map 0:v -map 1:a \
   "${x264[@]}" -c:a pcm_s16le "${bitexact[@]}" "$out/offset_video_late.flv"
# An edit list that trims: 4 s recorded (keyframes every 2 s), cut to 2.55 s from 1.45 s with
# stream copy, so the elst starts the presentation inside the stored GOP.
ff -f lavfi -i "$(video 160x120 30)" -f lavfi -i "$(tone 440 48000)" -t 4 "${x264[@]}" -g 60 "${aac[@]}" "${bitexact[@]}" /tmp/mediatools-4s.mp4
ff -ss 1.45 -i /tmp/mediatools-4s.mp4 -t 2.55 -c copy "${bitexact[@]}" "$out/editlist_trim.mp4"
rm -f /tmp/mediatools-4s.mp4
# Partly fragmented: the first fragment's 15 samples in moov, the other 45 in moof boxes (2.000 s).
ff -f lavfi -i "$(video 160x120 30)" -t 2 "${x264[@]}" -g 15 -movflags frag_keyframe "${bitexact[@]}" "$out/fragmented_partial.mp4"
# An mdat whose size field runs 1 MB past the end of the file though every sample is inside.
cp "$out/h264_25fps.mp4" "$out/mdat_past_eof.mp4"
python3 Scripts/mp4patch.py grow-mdat "$out/mdat_past_eof.mp4" 1000000
# AVI: the header counts 51 video frames where 50 are stored; PCM audio counted in samples.
ff -f lavfi -i "$(video 160x120 25)" -f lavfi -i "$(tone 440 44100)" -t 2 -c:v mpeg4 -c:a libmp3lame "${bitexact[@]}" "$out/avi_mp3.avi"
ff -f lavfi -i "$(video 160x120 25)" -f lavfi -i "$(tone 440 44100)" -t 2 -c:v mpeg4 -c:a pcm_s16le "${bitexact[@]}" "$out/avi_pcm.avi"
# 32-bit FLAC (FFmpeg 5.1 reads its header but cannot parse its frames): 1.5 s at 48 kHz.
sox -n -b 32 -r 48000 -c 1 /tmp/mediatools-32.wav synth 1.5 sine 440 vol 0.5
flac -f --silent -o "$out/flac_32bit.flac" /tmp/mediatools-32.wav
rm -f /tmp/mediatools-32.wav
# A 30 fps Matroska file whose DefaultDuration says 1 ms (avg_frame_rate 1000/1).
ff -f lavfi -i "$(video 160x120 30)" -t 3 "${x264[@]}" "${bitexact[@]}" "$out/framerate_bad_header.mkv"
python3 - "$out/framerate_bad_header.mkv" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.find(b"\x23\xe3\x83")  # DefaultDuration, 4-byte value
assert data[at + 3] == 0x84, "unexpected DefaultDuration size"
data[at + 4:at + 8] = (1_000_000).to_bytes(4, "big")
open(sys.argv[1], "wb").write(data)
PY

# --- Audio ------------------------------------------------------------------------------------
ff -f lavfi -i "color=c=red:size=64x64" -frames:v 1 "${bitexact[@]}" /tmp/mediatools-cover.png
ff -f lavfi -i "$(tone 440 44100)" -i /tmp/mediatools-cover.png -t 2 -map 0:a -map 1:v -c:a libmp3lame -b:a 128k -c:v png \
   -disposition:v attached_pic -metadata title="Tone" -metadata artist="MediaTools" -id3v2_version 3 "${bitexact[@]}" "$out/tone_cover.mp3"
rm -f /tmp/mediatools-cover.png
ff -f lavfi -i "$(tone 440 44100)" -t 2 -ac 2 "${aac[@]}" -movflags +faststart "${bitexact[@]}" "$out/tone.m4a"
ff -f lavfi -i "$(tone 440 96000)" -t 1 -c:a flac -sample_fmt s32 -bits_per_raw_sample 24 "${bitexact[@]}" "$out/tone_24bit_96k.flac"
ff -f lavfi -i "$(tone 440 44100)" -t 2 -c:a libvorbis "${bitexact[@]}" "$out/tone.ogg"
ff -f lavfi -i "$(tone 440 48000)" -t 2 -c:a libopus -b:a 48k "${bitexact[@]}" "$out/tone.opus"
ff -f lavfi -i "$(tone 440 44100)" -t 1 -c:a pcm_s16le "${bitexact[@]}" "$out/tone.wav"
ff -f lavfi -i "$(tone 440 48000)" -t 1 -af "aformat=channel_layouts=5.1(side)" -c:a ac3 -b:a 192k "${bitexact[@]}" "$out/surround_5.1.ac3"
# Estimated durations: ADTS AAC (no index) and VBR MP3 without a Xing header (true: 3.000 s).
ff -f lavfi -i "$(tone 440 44100)" -t 3 "${aac[@]}" -f adts "${bitexact[@]}" "$out/tone_adts.aac"
ff -f lavfi -i "aevalsrc='sin(440*2*PI*t)*if(lt(t,1.5),1,0.01*random(0))':sample_rate=44100" -t 3 -c:a libmp3lame -q:a 2 -write_xing 0 "${bitexact[@]}" "$out/vbr_no_xing.mp3"

# Two audio streams: #0 stereo English (default), #1 5.1 French. ffmpeg's default pick is #0
# (default disposition outweighs channels); --stream 1 / --language fre pick #1.
ff -f lavfi -i "$(tone 440 48000)" -f lavfi -i "$(tone 880 48000)" -t 1 -map 0:a -map 1:a \
   -filter:a:0 "aformat=channel_layouts=stereo" -filter:a:1 "aformat=channel_layouts=5.1" -c:a libvorbis \
   -metadata:s:a:0 language=eng -metadata:s:a:1 language=fre -disposition:a:0 default -disposition:a:1 0 \
   "${bitexact[@]}" "$out/two_audio.mkv"
# Two default audio streams, #1 (5.1) starting 8 s in: only #0 (mono) delivers packets while
# libavformat probes, and ffmpeg's pick weighs that above channels and disposition, so it is #0.
ff -t 10 -f lavfi -i "$(tone 440 48000)" -itsoffset 8 -t 1 -f lavfi -i "$(tone 660 48000)" -map 0:a -map 1:a \
   -filter:a:1 "aformat=channel_layouts=5.1" -c:a libopus -b:a:0 8k -b:a:1 16k \
   -disposition:a:0 default -disposition:a:1 default "${bitexact[@]}" "$out/late_surround.mkv"
# An MP3 that switches from 22.05 kHz mono to 44.1 kHz stereo mid-stream (two streams concatenated).
ff -f lavfi -i "$(tone 300 22050)" -t 1 -ac 1 -c:a libmp3lame -b:a 32k "${bitexact[@]}" /tmp/mediatools-a.mp3
ff -f lavfi -i "$(tone 500 44100)" -t 1 -ac 2 -c:a libmp3lame -b:a 128k "${bitexact[@]}" /tmp/mediatools-b.mp3
cat /tmp/mediatools-a.mp3 /tmp/mediatools-b.mp3 > "$out/format_switch.mp3"
rm -f /tmp/mediatools-a.mp3 /tmp/mediatools-b.mp3

# --- mediacompat acceptance cases (reference/compat.md; rows 6 and 7 use vp8_vorbis.webm and
# h264_30fps.mkv). Profile, level, size, bit rate (CBR with filler), tag and interlacing are
# chosen here, so each cell of the acceptance table is known by construction.
aac128=(-c:a aac -b:a 128k -ac 2)
# One encoder thread: x264's rate control is only deterministic that way.
cbr() { echo "-threads 1 -b:v $1 -minrate $1 -maxrate $1 -bufsize $1 -x264-params nal-hrd=cbr:force-cfr=1"; }
# shellcheck disable=SC2046
ff -f lavfi -i "$(video 640x480 30)" -f lavfi -i "$(tone)" -t 1 "${x264[@]}" -profile:v baseline -level 3.0 $(cbr 1200k) "${aac128[@]}" -movflags +faststart "${bitexact[@]}" "$out/compat_01_h264_baseline_480p_1.2M.mp4"
# shellcheck disable=SC2046
ff -f lavfi -i "$(video 640x480 30)" -f lavfi -i "$(tone)" -t 1 "${x264[@]}" -profile:v baseline -level 3.0 $(cbr 2000k) "${aac128[@]}" -movflags +faststart "${bitexact[@]}" "$out/compat_02_h264_baseline_480p_2M.mp4"
# shellcheck disable=SC2046
ff -f lavfi -i "$(video 1920x1080 30)" -f lavfi -i "$(tone)" -t 0.5 "${x264[@]}" -profile:v high -level 4.0 $(cbr 5000k) "${aac128[@]}" -movflags +faststart "${bitexact[@]}" "$out/compat_03_h264_high_1080p_5M.mp4"
ff -f lavfi -i "$(video 3840x2160 24)" -f lavfi -i "$(tone)" -t 0.5 -c:v libx265 -preset ultrafast -pix_fmt yuv420p10le -profile:v main10 \
   -x265-params log-level=error:level-idc=50 -b:v 400k -tag:v hvc1 "${aac128[@]}" -movflags +faststart "${bitexact[@]}" "$out/compat_04_hevc_main10_2160p_hvc1.mp4"
ff -i "$out/compat_04_hevc_main10_2160p_hvc1.mp4" -c copy -tag:v hev1 -movflags +faststart "${bitexact[@]}" "$out/compat_05_hevc_main10_2160p_hev1.mp4"
# AMR-NB has no encoder in Debian's FFmpeg: a hand-made AMR file (12.2 kbit/s frames, silence).
python3 -c 'import sys; sys.stdout.buffer.write(b"#!AMR\n" + (b"\x3c" + bytes(31)) * 50)' > /tmp/mediatools.amr
ff -f lavfi -i "$(video 176x144 15)" -i /tmp/mediatools.amr -t 1 -c:v h263 -c:a copy "${bitexact[@]}" "$out/compat_08_h263_qcif_amrnb.3gp"
rm -f /tmp/mediatools.amr
ff -f lavfi -i "$(video 640x480 30)" -f lavfi -i "$(tone)" -t 1 -c:v mpeg4 -b:v 2000k -maxrate 2000k -bufsize 1000k "${aac128[@]}" -movflags +faststart "${bitexact[@]}" "$out/compat_09_mpeg4_sp_480p_2M.mp4"
ff -f lavfi -i "$(video 1920x1080 30)" -f lavfi -i "$(tone)" -t 0.5 -c:v libsvtav1 -preset 12 -pix_fmt yuv420p "${aac128[@]}" -movflags +faststart "${bitexact[@]}" "$out/compat_10_av1_1080p.mp4"
ff -f lavfi -i "$(video 1920x1080 30)" -f lavfi -i "$(tone)" -t 0.5 "${x264[@]}" -profile:v main -flags +ildct+ilme -x264-params tff=1 "${aac128[@]}" -movflags +faststart "${bitexact[@]}" "$out/compat_11_h264_main_1080i.mp4"

# --- Damaged files for --verify (Tests/DamagedFixtures; issue 11) ------------------------------
# Clean sources, then damage at a packet chosen from ffprobe's packet list (Scripts/damage.py),
# so each file's damage, and the time of its first error, are known by construction.
damaged=Tests/DamagedFixtures
mkdir -p "$damaged"
src=/tmp/mediatools-damage
mkdir -p "$src"
# (320x240: in smaller pictures, overwritten bytes in a P-frame often decode without a complaint.)
ff -f lavfi -i "$(video 320x240 25)" -f lavfi -i "$(tone 440 48000)" -t 2 "${x264[@]}" -g 25 "${aac[@]}" -movflags +faststart "${bitexact[@]}" "$src/h264_aac.mp4"
ff -f lavfi -i "$(video 320x240 25)" -t 2 -c:v libx265 -preset ultrafast -x265-params log-level=error:keyint=25:min-keyint=25 -tag:v hvc1 "${bitexact[@]}" "$src/hevc.mp4"
ff -f lavfi -i "$(tone 440 44100)" -t 2 -c:a libmp3lame -b:a 128k "${bitexact[@]}" "$src/tone.mp3"
ff -f lavfi -i "$(tone 440 44100)" -t 2 -c:a flac "${bitexact[@]}" "$src/tone.flac"
ff -f lavfi -i "$(tone 440 48000)" -t 2 -c:a libopus "${bitexact[@]}" "$src/tone.webm"
ff -f lavfi -i "$(video 160x120 25)" -f lavfi -i "$(tone 440 48000)" -t 2 "${x264[@]}" -g 25 "${aac[@]}" "${bitexact[@]}" "$src/h264_aac.mkv"
ff -f lavfi -i "$(video 160x120 25)" -f lavfi -i "$(tone 440 48000)" -t 2 "${x264[@]}" -g 25 "${aac[@]}" "${bitexact[@]}" "$src/h264_aac.ts"
python3 Scripts/damage.py overwrite "$src/h264_aac.mp4" "$damaged/h264_pframe_hit.mp4" 0 30 64
python3 Scripts/damage.py zero "$src/h264_aac.mp4" "$damaged/h264_idr_zeroed.mp4" 0 25
python3 Scripts/damage.py overwrite "$src/h264_aac.mp4" "$damaged/aac_hit.mp4" 1 40 16
python3 Scripts/damage.py overwrite "$src/hevc.mp4" "$damaged/hevc_hit.mp4" 0 30 256
python3 Scripts/damage.py bad-mp3-header "$src/tone.mp3" "$damaged/mp3_bad_header.mp3" 40
python3 Scripts/damage.py overwrite "$src/tone.flac" "$damaged/flac_hit.flac" 0 10 16
python3 Scripts/damage.py fill "$src/tone.webm" "$damaged/opus_hit.webm" 0 40 4 0xFF
python3 Scripts/damage.py cut "$src/h264_aac.mp4" "$damaged/cut_faststart.mp4" 0.6
python3 Scripts/damage.py cut "$src/h264_aac.mkv" "$damaged/cut.mkv" 0.5
python3 Scripts/damage.py cut "$src/h264_aac.ts" "$damaged/cut.ts" 0.47
python3 Scripts/damage.py rename-box "$src/h264_aac.mp4" "$damaged/moov_deleted.mp4" moov xxxx
rm -rf "$src"

# --- Hostile inputs ---------------------------------------------------------------------------
: > "$out/hostile_empty.mp4"
python3 -c 'import random,sys; random.seed(7); sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range(65536)))' > "$out/hostile_random.bin"
printf 'This is a text file, not media.\nIt was uploaded with a .txt name.\n' > "$out/hostile_text.txt"
size=$(stat -c %s "$out/h264_25fps.mp4")
head -c $((size * 6 / 10)) "$out/h264_25fps.mp4" > "$out/hostile_truncated.mp4"
# A TS cut so early that its audio stream has no decodable frame (no rate, no channels): found by
# fuzzing media2wav, which divided by a zero block size.
head -c 23664 "$out/h264_60fps.ts" > "$out/hostile_truncated_audio.ts"
# moov at the end (no faststart), cut off before it: an interrupted recording.
ff -f lavfi -i "$(video 160x120 25)" -t 1 "${x264[@]}" "${bitexact[@]}" /tmp/mediatools-tail.mp4
python3 - /tmp/mediatools-tail.mp4 "$out/hostile_no_moov.mp4" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(data[:data.index(b"moov") - 4])
PY
rm -f /tmp/mediatools-tail.mp4
# A playlist that points at a local secret and at the network, and a concat list.
printf '#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n/etc/passwd\n#EXTINF:10,\nhttp://example.invalid/segment.ts\n#EXT-X-ENDLIST\n' > "$out/hostile_playlist.m3u8"
printf "ffconcat version 1.0\nfile '/etc/passwd'\nfile 'h264_25fps.mp4'\n" > "$out/hostile_list.ffconcat"

compat_audio
Scripts/make-compat-fixtures.sh  # issue 20: iPhone recordings, inputs of the suggestion tests
Scripts/make-fix-fixtures.sh  # issue 23: mediacompat --fix inputs (Tests/FixFixtures)
probe_truth
wild
audio_wild
Scripts/make-presented-fixtures.sh  # issue 26: what edit lists, MP3 and AVI headers present
du -sh "$out"

# --- Regression inputs (Tests/Regressions: not media fixtures, so no probe goldens) -----------
# Each made from a committed fixture or by construction; Tests/EndToEndTests/RegressionTests.swift
# runs every file here through all three tools. Crashing inputs found by Scripts/fuzz.sh and the
# coverage-guided fuzzer are added here as they are, named after what they found.
regressions=Tests/Regressions
mkdir -p "$regressions"
# A mid-stream channel-count jump libswresample cannot follow: two bytes of one ADTS header and
# payload in h264_60fps.ts changed (found by fuzzing), so one AAC frame decodes as 42 channels
# with no layout, which cannot be mixed to the first frame's mono (ffmpeg fails too). media2wav
# died with SIGILL: the writer thread's semaphore was disposed with a buffer still taken.
python3 - "$out/h264_60fps.ts" "$regressions/channel_jump_42.ts" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read()[:26320])
data[25700] = 0xF1  # ADTS byte 3: channel configuration 3, frame length + 2048
data[25839] = 0x38  # in the next TS packet of the same frame: the element that becomes a PCE
open(sys.argv[2], "wb").write(data)
PY
# 32-bit FLAC in Matroska, by construction: STREAMINFO says 32 bits, each frame is mid/side stereo
# of silence (CONSTANT subframes), so the side channel needs 33 bits, which FFmpeg 5.1's decoder
# does not implement: 12 packets, no decodable sample (ffmpeg exits non-zero).
python3 - > /tmp/mediatools-flac32.flac <<'PY'
import struct, sys
def crc8(data):
    c = 0
    for b in data:
        c ^= b
        for _ in range(8):
            c = ((c << 1) ^ 0x07) & 0xFF if c & 0x80 else (c << 1) & 0xFF
    return c
def crc16(data):
    c = 0
    for b in data:
        c ^= b << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x8005) & 0xFFFF if c & 0x8000 else (c << 1) & 0xFFFF
    return c
class Bits:
    def __init__(self): self.value, self.count = 0, 0
    def put(self, value, width):
        self.value = (self.value << width) | (value & ((1 << width) - 1))
        self.count += width
    def bytes(self):
        pad = -self.count % 8
        return (self.value << pad).to_bytes((self.count + pad) // 8, "big")
rate, block, frames = 48000, 4096, 12
info = Bits()
for value, width in ((block, 16), (block, 16), (0, 24), (0, 24), (rate, 20), (1, 3), (31, 5),
                     (block * frames, 36)):
    info.put(value, width)
out = b"fLaC" + bytes([0x80, 0, 0, 34]) + info.bytes() + bytes(16)
for n in range(frames):
    header = Bits()
    # sync, reserved, fixed blocks; 4096 samples, 48 kHz, mid/side, bits from STREAMINFO; frame n
    for value, width in ((0x3FFE, 14), (0, 2), (12, 4), (10, 4), (10, 4), (0, 3), (0, 1), (n, 8)):
        header.put(value, width)
    head = header.bytes()
    head += bytes([crc8(head)])
    body = Bits()
    for bits in (32, 33):  # mid, side: CONSTANT subframes of zero
        for value, width in ((0, 1), (0, 6), (0, 1), (0, bits)):
            body.put(value, width)
    frame = head + body.bytes()
    out += frame + struct.pack(">H", crc16(frame))
sys.stdout.buffer.write(out)
PY
ff -i /tmp/mediatools-flac32.flac -c copy "${bitexact[@]}" "$regressions/flac32_mid_side.mkv"
rm -f /tmp/mediatools-flac32.flac
# --- mediamerge clips (Tests/MergeFixtures, issue 15) ------------------------------------------
# Tiny phone-like clips whose orientation is known by construction: each frame is one flat colour
# (a different one per clip) with a red 24x24 square in the corner that DISPLAYS top-left and a
# blue one in the corner that displays top-right, once the clip's display matrix is applied. A
# merged frame is upright exactly when red is top-left and blue top-right of the clip's picture.
# The matrix is patched into the tkhd box (Scripts/mp4patch.py), as phones write it.
#   landscape.mp4  160x90, 30 fps, 1 s, AAC 48 kHz stereo 440 Hz, grey; matrix up
#   portrait.mp4   stored 160x90, 30000/1001 fps, 60 frames (2.002 s), no audio, olive; matrix
#                  right (0,1,-1,0): shows 90x160, display top-left = stored bottom-left
#   mirrored.mp4   stored 160x90, 30 fps, 1 s, AAC 48 kHz stereo 660 Hz x3, green; matrix
#                  left_mirrored (0,1,1,0), a front camera: display top-left = stored top-left,
#                  display top-right = stored bottom-left
#   mono44k.mp4    120x90, 25 fps, video 1 s, AAC 44.1 kHz mono 880 Hz x2 lasting 1.2 s, light grey
#   pair_a.mp4, pair_b.mp4  the same settings (copy-compatible), 1 s and 1.5 s, portrait (right)
# `make-fixtures.sh merge-clips` makes only these.
merge_clips() {
  local dir=Tests/MergeFixtures m=24
  mkdir -p "$dir"
  # marks W H RED BLUE: the two squares at stored corners tl, tr, bl or br.
  marks() {
    local w=$1 h=$2
    at() { case $1 in tl) echo "x=0:y=0" ;; tr) echo "x=$((w - m)):y=0" ;; bl) echo "x=0:y=$((h - m))" ;; br) echo "x=$((w - m)):y=$((h - m))" ;; esac; }
    echo "drawbox=$(at "$3"):w=$m:h=$m:color=red:t=fill,drawbox=$(at "$4"):w=$m:h=$m:color=blue:t=fill"
  }
  # picture COLOUR W H RATE RED BLUE
  picture() { echo "color=c=$1:s=$2x$3:r=$4,$(marks "$2" "$3" "$5" "$6")"; }
  local enc=("${x264[@]}" -movflags +faststart "${bitexact[@]}") stereo=(-c:a aac -b:a 64k -ac 2)
  ff -f lavfi -i "$(picture 0x808080 160 90 30 tl tr)" -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 1 "${stereo[@]}" "${enc[@]}" "$dir/landscape.mp4"
  ff -f lavfi -i "$(picture 0xC0C000 160 90 30000/1001 bl tl)" -frames:v 60 "${enc[@]}" "$dir/portrait.mp4"
  python3 Scripts/mp4patch.py matrix "$dir/portrait.mp4" 0 1 -1 0
  ff -f lavfi -i "$(picture 0x00A000 160 90 30 tl bl)" -f lavfi -i "sine=frequency=660:sample_rate=48000,volume=3" -t 1 "${stereo[@]}" "${enc[@]}" "$dir/mirrored.mp4"
  python3 Scripts/mp4patch.py matrix "$dir/mirrored.mp4" 0 1 1 0
  ff -f lavfi -i "$(picture 0xE0E0E0 120 90 25:d=1 tl tr)" -f lavfi -i "sine=frequency=880:sample_rate=44100:d=1.2,volume=2" -c:a aac -b:a 48k -ac 1 "${enc[@]}" "$dir/mono44k.mp4"
  for part in a:1:0x808080 b:1.5:0xE0E0E0; do
    IFS=: read -r name seconds colour <<<"$part"
    ff -f lavfi -i "$(picture "$colour" 160 90 30 bl tl)" -f lavfi -i "sine=frequency=440:sample_rate=48000" -t "$seconds" "${stereo[@]}" "${enc[@]}" "$dir/pair_$name.mp4"
    python3 Scripts/mp4patch.py matrix "$dir/pair_$name.mp4" 0 1 -1 0
  done
  # The demo composition's title still and music bed (make demo; docs/mediamerge.md "Compose").
  ff -f lavfi -i "color=c=0x203060:s=160x90,drawbox=x=20:y=35:w=120:h=20:color=0xF0C040:t=fill" -frames:v 1 "$dir/title.png"
  ff -f lavfi -i "sine=frequency=330:sample_rate=48000" -t 1.5 -c:a aac -b:a 32k -ac 2 "${bitexact[@]}" "$dir/music.m4a"
  du -sh "$dir"
}
merge_clips
