#!/usr/bin/env bash
# Generates the browser oracle's corpus into DIR (not committed): the web's container x codec
# space, 1 s each (a 440 Hz tone, testsrc2 video), so that playing every file in two browsers
# stays well under a minute. Each name says what the file is: codec(s) and container.
#   Scripts/browser-oracle/make-corpus.sh DIR
set -euo pipefail
out=${1:?usage: make-corpus.sh DIR}
mkdir -p "$out"
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
v="testsrc2=size=320x240:rate=25"
a="sine=frequency=440:sample_rate=48000"
a44="sine=frequency=440:sample_rate=44100"
t=(-t 1)
x264=(-c:v libx264 -preset veryfast)
x265=(-c:v libx265 -preset ultrafast -x265-params log-level=error)
aac=(-c:a aac -b:a 96k)
av() { ff -f lavfi -i "$v" -f lavfi -i "$a" "${t[@]}" "$@"; }   # video + audio
vo() { ff -f lavfi -i "$v" "${t[@]}" "$@"; }                    # video only
ao() { ff -f lavfi -i "$a" "${t[@]}" "$@"; }                    # audio only (48 kHz)

# --- H.264: every profile, the MP4 family's brands, other containers, moov placement ---------
av "${x264[@]}" -profile:v baseline -pix_fmt yuv420p "${aac[@]}" -movflags +faststart "$out/h264-baseline_aac.mp4" &
av "${x264[@]}" -profile:v main -pix_fmt yuv420p "${aac[@]}" -movflags +faststart "$out/h264-main_aac.mp4" &
wait
av "${x264[@]}" -profile:v high -pix_fmt yuv420p "${aac[@]}" -movflags +faststart "$out/h264-high_aac.mp4" &
av "${x264[@]}" -profile:v high10 -pix_fmt yuv420p10le "${aac[@]}" -movflags +faststart "$out/h264-high10_aac.mp4" &
wait
av "${x264[@]}" -profile:v high422 -pix_fmt yuv422p "${aac[@]}" -movflags +faststart "$out/h264-high422_aac.mp4" &
av "${x264[@]}" -profile:v high444 -pix_fmt yuv444p "${aac[@]}" -movflags +faststart "$out/h264-high444_aac.mp4" &
wait
src="$out/h264-high_aac.mp4"
ff -i "$src" -c copy -f mov "$out/h264_aac.mov"                           # brand 'qt  '
ff -i "$src" -c copy -f ipod -brand M4V "$out/h264_aac.m4v"               # brand 'M4V '
ff -i "$src" -c copy -f 3gp "$out/h264_aac.3gp"                           # brand '3gp4'
ff -i "$src" -c copy "$out/h264_aac.mkv"
ff -i "$src" -c copy "$out/h264_aac.ts"
ff -i "$src" -c copy "$out/h264_aac_moov-at-end.mp4"
ff -i "$src" -c copy -movflags frag_keyframe+empty_moov+default_base_moof "$out/h264_aac_fragmented.mp4"
ff -i "$src" -c:v copy -an "$out/h264_only.mp4"
av "${x264[@]}" -pix_fmt yuv420p -c:a libmp3lame "$out/h264_mp3.mp4" &
av "${x264[@]}" -pix_fmt yuv420p -c:a libopus "$out/h264_opus.mp4" &
wait
av "${x264[@]}" -pix_fmt yuv420p -c:a ac3 "$out/h264_ac3.mp4" &
av "${x264[@]}" -pix_fmt yuv420p -c:a flac -strict -2 "$out/h264_flac.mp4" &
wait
ff -i "$src" -i "$out/h264_flac.mp4" -map 0:v -map 1:a -c copy "$out/h264_flac.mkv"
ff -i "$src" -map 0:v -map 0:a -c:v copy -c:a pcm_s16le -f mov "$out/h264_pcm-s16le.mov"
# PCM in QuickTime as cameras and editors write it (twos, in24, fl32, in32, raw, ulaw; big-endian
# fl32 and in32 do not play in Chromium)
for fmt in s16be s24be s24le f32le f32be s32le s32be u8 mulaw; do
  ff -i "$src" -map 0:v -map 0:a -c:v copy -c:a "pcm_$fmt" -f mov "$out/h264_pcm-$fmt.mov"
done
for fmt in s16le s24le s16be f32le f64le u8; do
  ff -i "$src" -map 0:v -map 0:a -c:v copy -c:a "pcm_$fmt" "$out/h264_pcm-$fmt.mkv"
done

# --- HEVC ---------------------------------------------------------------------------------------
av "${x265[@]}" -pix_fmt yuv420p -tag:v hvc1 "${aac[@]}" "$out/hevc-main-hvc1_aac.mp4" &
av "${x265[@]}" -pix_fmt yuv420p10le -tag:v hvc1 "${aac[@]}" "$out/hevc-main10-hvc1_aac.mp4" &
wait
ff -i "$out/hevc-main-hvc1_aac.mp4" -c copy -tag:v hev1 "$out/hevc-main-hev1_aac.mp4"
ff -i "$out/hevc-main-hvc1_aac.mp4" -c copy "$out/hevc_aac.mkv"

# --- As an iPhone records (issue 20): 4K at 60 fps in QuickTime, H.264 High 5.2 and HEVC Main 10
ff -f lavfi -i "testsrc2=size=480x270:rate=60,scale=3840:2160:flags=neighbor,setsar=1" -f lavfi -i "$a" -t 0.5 \
   "${x264[@]}" -profile:v high -level 5.2 -pix_fmt yuv420p -crf 35 "${aac[@]}" -f mov "$out/iphone-h264-high-l5.2-2160p60_aac.mov"
ff -f lavfi -i "testsrc2=size=480x270:rate=60,scale=3840:2160:flags=neighbor,setsar=1" -f lavfi -i "$a" -t 0.5 \
   "${x265[@]}" -pix_fmt yuv420p10le -tag:v hvc1 -crf 35 "${aac[@]}" -f mov "$out/iphone-hevc-main10-2160p60_aac.mov"

# --- AV1, VP8, VP9, Theora ------------------------------------------------------------------
SVT_LOG=1 av -c:v libsvtav1 -preset 12 -pix_fmt yuv420p "${aac[@]}" "$out/av1_aac.mp4"
ff -i "$out/av1_aac.mp4" -i "$out/h264_opus.mp4" -map 0:v -map 1:a -c copy "$out/av1_opus.webm"
ff -i "$out/av1_aac.mp4" -c copy "$out/av1_aac.mkv"
av -c:v libvpx -b:v 300k -deadline realtime -cpu-used 8 -c:a libvorbis "$out/vp8_vorbis.webm" &
av -c:v libvpx -b:v 300k -deadline realtime -cpu-used 8 -c:a libopus "$out/vp8_opus.webm" &
wait
av -c:v libvpx-vp9 -b:v 300k -deadline realtime -cpu-used 8 -c:a libopus "$out/vp9_opus.webm" &
av -c:v libvpx-vp9 -b:v 300k -deadline realtime -cpu-used 8 -pix_fmt yuv420p10le -c:a libopus "$out/vp9-profile2_opus.webm" &
wait
av -c:v libvpx-vp9 -b:v 300k -deadline realtime -cpu-used 8 -pix_fmt yuv444p -c:a libvorbis "$out/vp9-profile1_vorbis.webm" &
av -c:v libvpx-vp9 -b:v 300k -deadline realtime -cpu-used 8 "${aac[@]}" "$out/vp9_aac.mp4" &
wait
ff -i "$out/vp9_opus.webm" -c copy "$out/vp9_opus.mp4"
av -c:v libtheora -q:v 5 -c:a libvorbis "$out/theora_vorbis.ogv"

# --- MPEG-4 Part 2, H.263, MPEG-2 -------------------------------------------------------------
av -c:v mpeg4 -b:v 500k "${aac[@]}" "$out/mpeg4-sp_aac.mp4"
ff -i "$out/mpeg4-sp_aac.mp4" -c copy -f 3gp "$out/mpeg4-sp_aac.3gp"
ff -f lavfi -i "testsrc2=size=176x144:rate=15" -f lavfi -i "sine=frequency=440:sample_rate=8000" "${t[@]}" -c:v h263 -c:a aac -ac 1 -b:a 24k "$out/h263_aac.3gp"
av -c:v mpeg2video -b:v 1M -c:a mp2 "$out/mpeg2_mp2.ts"

# --- Audio only -----------------------------------------------------------------------------------
ao "${aac[@]}" -f ipod "$out/aac.m4a"                                     # brand 'M4A '
ao "${aac[@]}" -brand isom "$out/aac_audio-only.mp4"
ao "${aac[@]}" -f adts "$out/aac.aac"
ff -f lavfi -i "$a44" "${t[@]}" -c:a libmp3lame -b:a 128k "$out/mp3.mp3"
ff -f lavfi -i "$a44" "${t[@]}" -c:a libmp3lame -b:a 128k "$out/mp3_audio-only.mp4"
ao -c:a libopus -b:a 64k "$out/opus.ogg"
ao -c:a libopus -b:a 64k "$out/opus.webm"
ao -c:a libopus -b:a 64k "$out/opus_audio-only.mp4"
ao -c:a libopus -b:a 64k -f caf "$out/opus.caf"
ff -f lavfi -i "$a44" "${t[@]}" -c:a libvorbis "$out/vorbis.ogg"
ff -f lavfi -i "$a44" "${t[@]}" -c:a libvorbis "$out/vorbis.webm"
ff -f lavfi -i "$a44" "${t[@]}" -c:a libvorbis -strict -2 "$out/vorbis_audio-only.mp4"
ao -c:a flac "$out/flac.flac"
ao -c:a flac -strict -2 "$out/flac_audio-only.mp4"
ao -c:a flac "$out/flac.ogg"
ao -c:a flac "$out/flac.mka"
# 24- and 32-bit FLAC (FFmpeg 5.1 cannot write or even remux 32-bit FLAC: sox and flac 1.4 make it).
for bits in 24 32; do
  sox -n -b "$bits" -e signed -L -r 48000 -c 2 -t raw "$out/.s$bits.raw" synth 1 sine 440 vol 0.5
done
raw=(--force-raw-format --endian=little --sign=signed --channels=2 --sample-rate=48000)
flac -f --silent "${raw[@]}" --bps=24 -o "$out/flac-s24.flac" "$out/.s24.raw"
flac -f --silent "${raw[@]}" --bps=32 -o "$out/flac-s32.flac" "$out/.s32.raw"
flac -f --silent "${raw[@]}" --bps=32 --ogg -o "$out/flac-s32.ogg" "$out/.s32.raw"
rm -f "$out/.s24.raw" "$out/.s32.raw"
ao -c:a alac "$out/alac.m4a"
ao -c:a alac "$out/alac.caf"
for fmt in u8 s16le s24le s32le f32le f64le mulaw alaw; do
  ao -c:a "pcm_$fmt" "$out/pcm-$fmt.wav"
done
ao -af "aformat=channel_layouts=5.1" -c:a pcm_s16le "$out/pcm-s16le-5.1.wav"  # WAVE_FORMAT_EXTENSIBLE
ao -c:a pcm_s16be "$out/pcm-s16be.aiff"
ao -c:a pcm_s24be "$out/pcm-s24be.aiff"
ao -c:a pcm_s16le "$out/pcm-s16le.caf"
ao -c:a aac -b:a 96k -f 3gp "$out/aac.3gp"                    # AAC alone in 3GP plays in Firefox
ao -c:a ac3 -b:a 192k "$out/ac3.ac3"
ao -c:a eac3 -b:a 192k "$out/eac3.eac3"
ao -c:a ac3 -b:a 192k "$out/ac3_audio-only.mp4"
ao -c:a eac3 -b:a 192k "$out/eac3_audio-only.mp4"
ao -c:a mp2 "$out/mp2.mp2"
# AMR-NB has no encoder in Debian's FFmpeg: hand-made frames (12.2 kbit/s) of a non-silent pattern.
python3 -c 'import sys; sys.stdout.buffer.write(b"#!AMR\n" + (b"\x3c" + bytes(range(7, 38))) * 50)' > "$out/amr-nb.amr"
ff -i "$out/amr-nb.amr" -c copy "$out/amr-nb_audio-only.3gp"
ls "$out" | wc -l
