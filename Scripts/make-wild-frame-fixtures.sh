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
ls -l "$out"/wild_*
