#!/usr/bin/env bash
# mediacompat fixtures of issue 20 (items 14 and 15), in Tests/CompatFixtures beside the audio
# files of make-fixtures.sh. Each is made so that the fact a test checks is known by construction:
#
# - iphone_*: what an iPhone of the iOS 17 era records (iPhone 15 specifications: 4K at 60 fps,
#   1080p slo-mo at 240 fps, HEVC or H.264, variable frame rate), in QuickTime (brand 'qt  ') with
#   AAC, portrait ones with the display matrix an iPhone writes (rotate 90). Few frames, flat
#   picture, low bit rate: the level a test needs is the one `-level` writes into the SPS (x264)
#   or `level-idc` (x265), and the frame rate is the time stamps chosen here.
# - pcm_f64le.wav, mpeg4_asp.mp4: inputs that fail a modern platform with one fix kind, for the
#   test that runs every suggested command (MediaCompatSuggestionTests).
#
# Run by make-fixtures.sh; `Scripts/make-compat-fixtures.sh` alone remakes only these.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=Tests/CompatFixtures
mkdir -p "$dir"
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
bitexact=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact)
# A 480x270 test picture scaled 8x (4x for 1080p) with square pixels: large frames, tiny files.
picture() { echo "testsrc2=size=480x270:rate=$1,scale=$2:flags=neighbor,setsar=1"; }
tone=(-f lavfi -i "sine=frequency=440:sample_rate=48000")
aac=(-c:a aac -b:a 64k -ac 2)
x264=(-c:v libx264 -preset veryfast -profile:v high -pix_fmt yuv420p -crf 40)
x265() { echo "-c:v libx265 -preset ultrafast -x265-params log-level=error:level-idc=$1 -crf 40 -tag:v hvc1"; }

# 4K at 60 fps, H.264 High labelled level 5.2 (what 4K60 needs) and 5.1 (as some recordings are
# labelled): 4 frames, portrait (stored 3840x2160, displayed 2160x3840).
for level in 5.2 5.1; do
  out="$dir/iphone_h264_high_l${level/./}_2160p60.mov"
  ff -f lavfi -i "$(picture 60 3840:2160)" "${tone[@]}" -frames:v 4 -t 0.07 "${x264[@]}" -level "$level" \
     "${aac[@]}" -f mov "${bitexact[@]}" "$out"
  python3 Scripts/mp4patch.py matrix "$out" 0 1 -1 0
done
# 4K at 60 fps, HEVC Main (8-bit) and Main 10, level 5.1, tagged hvc1; the Main 10 one portrait.
# shellcheck disable=SC2046
ff -f lavfi -i "$(picture 60 3840:2160)" "${tone[@]}" -frames:v 4 -t 0.07 $(x265 51) -pix_fmt yuv420p -profile:v main \
   "${aac[@]}" -f mov "${bitexact[@]}" "$dir/iphone_hevc_main_2160p60.mov"
# shellcheck disable=SC2046
ff -f lavfi -i "$(picture 60 3840:2160)" "${tone[@]}" -frames:v 4 -t 0.07 $(x265 51) -pix_fmt yuv420p10le -profile:v main10 \
   "${aac[@]}" -f mov "${bitexact[@]}" "$dir/iphone_hevc_main10_2160p60.mov"
python3 Scripts/mp4patch.py matrix "$dir/iphone_hevc_main10_2160p60.mov" 0 1 -1 0
# Slo-mo: 1080p at 240 fps, HEVC level 5.1 (MaxLumaSr 534,773,760 >= 1920x1080x240), 12 frames.
# shellcheck disable=SC2046
ff -f lavfi -i "$(picture 240 1920:1080)" "${tone[@]}" -frames:v 12 -t 0.05 $(x265 51) -pix_fmt yuv420p \
   "${aac[@]}" -f mov "${bitexact[@]}" "$dir/iphone_hevc_1080p240.mov"
# Variable frame rate as an iPhone writes it (time scale 600, a 60 fps frame lasts 10 ticks):
# 30 frames, frame 15 one tick short, so 30 frames in 299/600 s: 60.2 fps on average, 60 nominal.
# shellcheck disable=SC2046
ff -f lavfi -i "$(picture 60 1920:1080)" "${tone[@]}" -frames:v 30 -t 0.5 \
   -vf "settb=1/600,setpts='N*10-gte(N,15)'" -fps_mode passthrough -enc_time_base 1/600 -video_track_timescale 600 \
   $(x265 41) -pix_fmt yuv420p "${aac[@]}" -f mov "${bitexact[@]}" "$dir/iphone_hevc_vfr_1080p60.mov"

# 64-bit float WAV (0.1 s, mono, 22.05 kHz): no Apple document and no browser but Firefox plays it.
ff -f lavfi -i "sine=frequency=440:sample_rate=22050" -t 0.1 -c:a pcm_f64le "${bitexact[@]}" "$dir/pcm_f64le.wav"
# MPEG-4 Part 2 Advanced Simple Profile (B-frames, quarter-pixel motion): Android plays Simple only.
ff -f lavfi -i "testsrc2=size=160x120:rate=25" "${tone[@]}" -t 0.2 -c:v mpeg4 -bf 1 -b:v 100k \
   "${aac[@]}" -fflags +bitexact -flags:v +bitexact+qpel -flags:a +bitexact "$dir/mpeg4_asp.mp4"
du -ch "$dir"/iphone_* "$dir/pcm_f64le.wav" "$dir/mpeg4_asp.mp4" | tail -1
