#!/usr/bin/env bash
# mediacompat --fix fixtures (issue 23), in Tests/FixFixtures. Each is made so that the step the
# planner must choose is known by construction (the platform database's rows and rules):
#
# - h264_aac.mkv: H.264 High + AAC-LC stereo in Matroska. ios-17 has no MKV row: a remux to MP4
#   (every packet copied) is the least work.
# - h264_ac3.mkv: H.264 + AC-3 5.1 in Matroska. chrome's rows hold no AC-3: the video is copied
#   and the audio re-encoded (AAC, 6 channels kept: no platform caps AAC's channels).
# - hevc_hev1.mp4: HEVC Main in MP4 with FFmpeg's default sample entry 'hev1'. ios-17 plays only
#   'hvc1' (a retag); firefox has no HEVC decoder in the database's rows (a video re-encode).
# - h264_aac.mp4: H.264 + AAC in MP4 with faststart: already passes (nothing to do).
# - subtitles.mkv: a Matroska file with only a subtitle stream (no_playable_stream).
# - hevc_pq.mp4: HEVC Main 10 HDR10 (BT.2020, SMPTE 2084 PQ) in MP4, 1 s: firefox --strict
#   needs H.264 8-bit, which cannot carry PQ: a re-encode tone-mapped to SDR BT.709.
#
# 25 fps, 2 s, 48 kHz: the durations and rates a test checks are these. Small pictures and a
# high CRF keep each file at tens of KB.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=Tests/FixFixtures
mkdir -p "$dir"
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
bitexact=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact)
video=(-f lavfi -i "testsrc2=size=320x240:rate=25:duration=2")
x264=(-c:v libx264 -preset veryfast -profile:v high -pix_fmt yuv420p -crf 35 -g 25)

ff "${video[@]}" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=2" \
  "${x264[@]}" -c:a aac -b:a 64k -ac 2 "${bitexact[@]}" "$dir/h264_aac.mkv"
ff "${video[@]}" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=2" \
  "${x264[@]}" -c:a aac -b:a 64k -ac 2 -movflags +faststart "${bitexact[@]}" "$dir/h264_aac.mp4"
ff "${video[@]}" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=2" \
  "${x264[@]}" -c:a ac3 -b:a 192k -ac 6 "${bitexact[@]}" "$dir/h264_ac3.mkv"
ff "${video[@]}" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=2" \
  -c:v libx265 -preset ultrafast -x265-params log-level=error -crf 35 -pix_fmt yuv420p \
  -c:a aac -b:a 64k -ac 2 "${bitexact[@]}" "$dir/hevc_hev1.mp4"
ff -f lavfi -i "testsrc2=size=320x240:rate=25:duration=1" -f lavfi \
  -i "sine=frequency=440:sample_rate=48000:duration=1" -c:v libx265 -preset ultrafast \
  -x265-params log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc \
  -crf 30 -pix_fmt yuv420p10le -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc \
  -tag:v hvc1 -c:a aac -b:a 64k -ac 2 "${bitexact[@]}" "$dir/hevc_pq.mp4"
printf '1\n00:00:00,000 --> 00:00:01,000\nhello\n' > "$dir/subtitles.srt"
ff -i "$dir/subtitles.srt" -c:s srt "${bitexact[@]}" "$dir/subtitles.mkv"
rm "$dir/subtitles.srt"
# - drm_cenc.mp4: h264_aac.mp4 encrypted with Common Encryption (cenc-aes-ctr, a test key): the
#   MP4 demuxer shows avc1/mp4a, the streams carry encryption info (drm_protected).
ff -i "$dir/h264_aac.mp4" -c copy -encryption_scheme cenc-aes-ctr \
  -encryption_key 76a6c65c5ea762046bd749a2e632ccbb -encryption_kid a7e61c373e219033c21091fa607bf3b8 \
  "${bitexact[@]}" "$dir/drm_cenc.mp4"
