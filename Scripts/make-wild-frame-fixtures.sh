#!/usr/bin/env bash
# Generates the fixtures of mediaframe's defects found on inputs the project did not make for
# its tests (Tests/FrameFixtures/wild_*), with the ffmpeg CLI, so what each shows is known by
# construction. The files are committed; run this only to change them.
#   wild_rgb8.png          32x16 testsrc2 picture, 8-bit RGB: the oracle of the next two
#   wild_rgb48.png         the same picture as 16-bit RGB (each value v stored as v*257)
#   wild_rgba64.png        the same picture as 16-bit RGBA, opaque
#   wild_gbrp10.mkv        the same picture as FFV1 10-bit planar RGB (one frame)
#   wild_late_start.mkv    64x48, 10 fps, 10 frames (1 s), frame N one flat colour naming N (as
#                          numbers.mp4), H.264 in Matroska with its timestamps moved by 2.5 s
#                          (-output_ts_offset, as a copy from MPEG-TS keeps them): the video
#                          lasts 1 s from its start at 2.5 s
#   wild_cut_keyframes.mp4 numbers (as above) 10 fps, 4 s, keyframes every 10 frames, 3 B-frames,
#                          cut with -ss 1.35 -c copy: an edit list starts at frame 14, after the
#                          keyframe at frame 10, so the keyframes are presented at 0.6 s (frame
#                          20) and 1.6 s (frame 30) of the cut
#   wild_cut_short.webm   numbers 10 fps, 2 s, VP8, its first 60 % of bytes kept: the header says
#                          2 s, the frames that remain end at 0.9 s (ffprobe: the last, 8, at
#                          0.8 s lasting 0.1 s)
#   wild_exif6.png         48x32 corners picture (as corners_up.mp4: red top-left, green
#                          top-right, blue bottom-left, white bottom-right) with an eXIf chunk
#                          (after IHDR) whose Orientation is 6 ("right": shown turned clockwise)
#   wild_exif6.webp        the same picture as lossless WebP made extended (VP8X with the EXIF
#                          flag) with an EXIF chunk holding Orientation 6
#   wild_ts_wrap.ts        numbers 10 fps, 2 s, H.264 in MPEG-TS with -output_ts_offset 95442.9:
#                          past 2^33 ticks of the 90 kHz clock, its timestamps wrap and it
#                          starts at tick 52408 (0.5823111 s), not a whole microsecond
#   wild_live.webm         numbers 10 fps, 2 s, VP8 in WebM written as live (-live 1, as
#                          browsers' MediaRecorder writes it): no duration, no cues
#   wild_vfr_bframes.mp4   numbers, 14 frames, VFR: frames 0-9 every 0.1 s, then 10-13 at 1.0, 1.5,
#                          2.0, 2.5 s (setpts), H.264 with B-frames, MP4 timescale 1000: the edit
#                          list and the track header say 2.6 s; libavformat's stream duration
#                          says 1.8 s
#   wild_anim.webp         16x16, 3 frames at 10 fps, animated WebP (libwebp_anim): FFmpeg 5.1's
#                          WebP decoder skips its ANIM/ANMF chunks and decodes nothing
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/FrameFixtures
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
bitexact=(-fflags +bitexact -flags:v +bitexact)
numbers="format=rgb24,geq=r='mod(N,8)*32+16':g='floor(N/8)*32+16':b=128"

ff -f lavfi -i "testsrc2=s=32x16:d=1" -frames:v 1 -pix_fmt rgb24 "${bitexact[@]}" "$out/wild_rgb8.png"
ff -i "$out/wild_rgb8.png" -pix_fmt rgb48be "${bitexact[@]}" "$out/wild_rgb48.png"
ff -i "$out/wild_rgb8.png" -pix_fmt rgba64be "${bitexact[@]}" "$out/wild_rgba64.png"
ff -i "$out/wild_rgb8.png" -c:v ffv1 -pix_fmt gbrp10le "${bitexact[@]}" "$out/wild_gbrp10.mkv"
ff -f lavfi -i "color=c=black:s=64x48:r=10:d=1,$numbers" -c:v libx264 -preset veryfast \
  -pix_fmt yuv420p -g 5 -output_ts_offset 2.5 "${bitexact[@]}" "$out/wild_late_start.mkv"
ff -f lavfi -i "color=c=black:s=64x48:r=10:d=2,$numbers" -c:v libx264 -preset veryfast \
  -pix_fmt yuv420p -g 10 -output_ts_offset 95442.9 "${bitexact[@]}" "$out/wild_ts_wrap.ts"
ff -f lavfi -i "color=c=black:s=64x48:r=10:d=2,$numbers" -c:v libvpx -b:v 200k -g 5 -f webm \
  -live 1 "${bitexact[@]}" "$out/wild_live.webm"
ff -f lavfi -i "color=c=black:s=64x48:r=10:d=1.4,$numbers,setpts='if(lt(N,10),N*0.1,1+(N-10)*0.5)/TB'" \
  -c:v libx264 -preset veryfast -pix_fmt yuv420p -g 12 -fps_mode passthrough \
  -video_track_timescale 1000 "${bitexact[@]}" "$out/wild_vfr_bframes.mp4"
base=$(mktemp --suffix=.mp4)
ff -f lavfi -i "color=c=black:s=64x48:r=10:d=4,$numbers" -c:v libx264 -preset veryfast \
  -pix_fmt yuv420p -bf 3 -x264-params keyint=10:min-keyint=10:scenecut=0 "${bitexact[@]}" "$base"
ff -ss 1.35 -i "$base" -c copy -fflags +bitexact "$out/wild_cut_keyframes.mp4"
ff -f lavfi -i "color=c=black:s=64x48:r=10:d=2,$numbers" -c:v libvpx -b:v 200k -g 5 \
  "${bitexact[@]}" "$base.webm"
head -c $(($(stat -c %s "$base.webm") * 6 / 10)) "$base.webm" >"$out/wild_cut_short.webm"
rm -f "$base" "$base.webm"
ff -f lavfi -i "testsrc2=s=16x16:r=10:d=0.3,hue=H=n*2" -c:v libwebp_anim -loop 0 "${bitexact[@]}" \
  "$out/wild_anim.webp"
corners="color=c=0x808080:s=48x32:d=1,drawbox=x=0:y=0:w=16:h=12:color=0xFF0000:t=fill,drawbox=x=32:y=0:w=16:h=12:color=0x00FF00:t=fill,drawbox=x=0:y=20:w=16:h=12:color=0x0000FF:t=fill,drawbox=x=32:y=20:w=16:h=12:color=0xFFFFFF:t=fill"
ff -f lavfi -i "$corners" -frames:v 1 -pix_fmt rgb24 "${bitexact[@]}" "$out/wild_exif6.png"
ff -f lavfi -i "$corners" -frames:v 1 -c:v libwebp -lossless 1 "${bitexact[@]}" "$out/wild_exif6.webp"
python3 - "$out/wild_exif6.png" "$out/wild_exif6.webp" <<'PY'
import struct, sys, zlib
# A big-endian TIFF structure whose IFD0 holds one entry: Orientation (0x0112), SHORT, 6.
tiff = b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1) \
    + struct.pack(">HHIHH", 0x0112, 3, 1, 6, 0) + struct.pack(">I", 0)
png = open(sys.argv[1], "rb").read()
ihdr_end = 8 + 12 + struct.unpack(">I", png[8:12])[0]
chunk = struct.pack(">I", len(tiff)) + b"eXIf" + tiff + struct.pack(">I", zlib.crc32(b"eXIf" + tiff))
open(sys.argv[1], "wb").write(png[:ihdr_end] + chunk + png[ihdr_end:])
webp = open(sys.argv[2], "rb").read()
assert webp[12:16] in (b"VP8L", b"VP8 "), webp[12:16]
w, h = 48, 32
vp8x = b"VP8X" + struct.pack("<I", 10) + bytes([0x08, 0, 0, 0]) \
    + (w - 1).to_bytes(3, "little") + (h - 1).to_bytes(3, "little")
exif = b"EXIF" + struct.pack("<I", len(tiff)) + tiff + (b"\x00" if len(tiff) % 2 else b"")
body = b"WEBP" + vp8x + webp[12:] + exif
open(sys.argv[2], "wb").write(b"RIFF" + struct.pack("<I", len(body)) + body)
PY
ls -l "$out"/wild_*
