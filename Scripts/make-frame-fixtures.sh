#!/usr/bin/env bash
# Generates mediaframe's fixtures (Tests/FrameFixtures, issue 24) with the ffmpeg CLI and
# python, so what each frame shows is known by construction. The files are committed; run this
# only to change them.
#   numbers.mp4        64x48, 10 fps, 30 frames (3.000 s), H.264 with B-frames (-bf 2), a
#                      keyframe every 10 frames: frame N is one flat colour R = (N mod 8)*32+16,
#                      G = floor(N/8)*32+16, B = 128, so a picture names its frame number.
#   numbers_open.mkv   the same pictures, 25 fps, open GOPs (x264 open-gop, keyint 12, 3
#                      B-frames), Matroska: frame N at N/25 s.
#   corners_*.mp4      stored 48x32, 10 fps, 1 s: red top-left, green top-right, blue
#                      bottom-left, white bottom-right (each 16x12 of the stored picture, the
#                      rest grey); the 8 display matrices patched into tkhd (Scripts/mp4patch.py)
#   sar2.mp4           32x32 stored with SAR 2:1 (shows 64x32), 10 fps, 1 s
#   exif6.jpg          48x32 JPEG of the corners picture with EXIF orientation 6 (right)
#   best.mp4           64x48, 10 fps, 3 s: 1 s black, 1 s testsrc2 blurred (gblur sigma 8), 1 s
#                      sharp testsrc2
#   pq.mkv             64x48, 10 fps, 1 s, 10-bit H.264 tagged BT.2020 / SMPTE 2084 (PQ)
#   hlg.mkv            the same, tagged BT.2020 / ARIB STD-B67 (HLG)
#   pcm.wav            s16 stereo 8 kHz, 1000 samples whose values python chose (waveform)
#   steps_lc.m4a       6 s stereo 16 kHz AAC LC without PNS (-aac_pns 0): a 500 Hz sine whose
#                      amplitude steps every 0.5 s (left 0.1, 0.2, ... 0.6 then down; right
#                      half of it): the waveform's chunked decode (AudioChunks)
#   noise_pns.m4a      6 s mono 44.1 kHz white noise, AAC LC at 24 kbit/s, which codes bands as
#                      noise (PNS): chunks cannot be shown exact, one pass is taken
#   noise_late.m4a     12 s mono 44.1 kHz AAC LC at 24 kbit/s: silence but white noise from 5.5
#                      to 7 s, coded with PNS: the noise comes after the first seconds the plan
#                      looks at, in the middle chunk of three
#   steps_mp3.mp4      steps_lc's sound as 44.1 kHz mono MP3 (libmp3lame 40 kbit/s) in MP4
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/FrameFixtures
mkdir -p "$out"
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
bitexact=(-fflags +bitexact -flags:v +bitexact)
x264=(-c:v libx264 -preset veryfast -pix_fmt yuv420p)
numbers="format=rgb24,geq=r='mod(N,8)*32+16':g='floor(N/8)*32+16':b=128"

ff -f lavfi -i "color=c=black:s=64x48:r=10:d=3,$numbers" "${x264[@]}" -bf 2 -x264-params keyint=10:min-keyint=10:scenecut=0 "${bitexact[@]}" "$out/numbers.mp4"
ff -f lavfi -i "color=c=black:s=64x48:r=25:d=2,$numbers" "${x264[@]}" -x264-params keyint=12:open-gop=1:bframes=3 "${bitexact[@]}" "$out/numbers_open.mkv"

corners="color=c=0x808080:s=48x32:r=10:d=1,drawbox=x=0:y=0:w=16:h=12:color=0xFF0000:t=fill,drawbox=x=32:y=0:w=16:h=12:color=0x00FF00:t=fill,drawbox=x=0:y=20:w=16:h=12:color=0x0000FF:t=fill,drawbox=x=32:y=20:w=16:h=12:color=0xFFFFFF:t=fill"
ff -f lavfi -i "$corners" "${x264[@]}" -g 10 "${bitexact[@]}" "$out/corners_up.mp4"
while read -r name a b c d; do
  cp "$out/corners_up.mp4" "$out/corners_$name.mp4"
  python3 Scripts/mp4patch.py matrix "$out/corners_$name.mp4" "$a" "$b" "$c" "$d"
done <<'MATRICES'
right 0 1 -1 0
down -1 0 0 -1
left 0 -1 1 0
up_mirrored -1 0 0 1
down_mirrored 1 0 0 -1
left_mirrored 0 1 1 0
right_mirrored 0 -1 -1 0
MATRICES

ff -f lavfi -i "testsrc2=s=32x32:r=10:d=1,setsar=2/1" "${x264[@]}" "${bitexact[@]}" "$out/sar2.mp4"
ff -f lavfi -i "$corners" -frames:v 1 -q:v 2 "${bitexact[@]}" "$out/exif6.jpg"
python3 Scripts/imagepatch.py exif-orientation "$out/exif6.jpg" 6

ff -f lavfi -i "color=c=black:s=64x48:r=10:d=1" -f lavfi -i "testsrc2=s=64x48:r=10:d=1,gblur=sigma=8" \
  -f lavfi -i "testsrc2=s=64x48:r=10:d=1" -filter_complex "[0][1][2]concat=n=3:v=1:a=0" \
  "${x264[@]}" -g 10 "${bitexact[@]}" "$out/best.mp4"

ff -f lavfi -i "testsrc2=s=64x48:r=10:d=1" -c:v libx264 -preset veryfast -pix_fmt yuv420p10le \
  -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc "${bitexact[@]}" "$out/pq.mkv"
ff -f lavfi -i "testsrc2=s=64x48:r=10:d=1" -c:v libx264 -preset veryfast -pix_fmt yuv420p10le \
  -color_primaries bt2020 -color_trc arib-std-b67 -colorspace bt2020nc "${bitexact[@]}" "$out/hlg.mkv"

python3 - "$out/pcm.wav" <<'PY'
import math, struct, sys
# 1000 stereo frames at 8 kHz: left a 50 Hz sine at 0.8 of full scale, right a ramp from -32768
# by 67 per sample (wrapping), both s16.
frames = []
for n in range(1000):
    left = int(round(0.8 * 32767 * math.sin(2 * math.pi * 50 * n / 8000)))
    right = (n * 67) % 65536 - 32768
    frames.append(struct.pack("<hh", left, right))
data = b"".join(frames)
header = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack(
    "<IHHIIHH", 16, 1, 2, 8000, 8000 * 4, 4, 16) + b"data" + struct.pack("<I", len(data))
open(sys.argv[1], "wb").write(header + data)
PY
steps="0.1*(1+mod(floor(t*2),6))*sin(2*PI*500*t)"
ff -f lavfi -i "aevalsrc=exprs='$steps|0.5*$steps':s=16000:d=6" -c:a aac -aac_pns 0 -b:a 48k "${bitexact[@]}" "$out/steps_lc.m4a"
ff -f lavfi -i "anoisesrc=color=white:duration=6:sample_rate=44100:amplitude=0.5:seed=7" -c:a aac -b:a 24k "${bitexact[@]}" "$out/noise_pns.m4a"
ff -f lavfi -i "anoisesrc=color=white:duration=12:sample_rate=44100:amplitude=0.5:seed=7" -af "volume='between(t,5.5,7)':eval=frame" -c:a aac -b:a 24k "${bitexact[@]}" "$out/noise_late.m4a"
ff -f lavfi -i "aevalsrc=exprs='$steps':s=44100:d=6" -c:a libmp3lame -b:a 40k "${bitexact[@]}" -f mp4 "$out/steps_mp3.mp4"
du -sh "$out"
