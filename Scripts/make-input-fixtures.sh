#!/usr/bin/env bash
# Generates Tests/InputFixtures: inputs whose format FFmpeg 5.1's probe gets wrong or cannot read
# (issue 20, items 7-10), each made by construction so the right answer is known:
#   tone.mp3, amr_junk.mp3  a 1 s MP3, and the same behind 8 KiB of bytes shaped like AMR-NB
#                           frames (a fixed seed): FFmpeg's probe picks amrnb (score 26)
#   photo.jpg               a 160x120 JPEG whose end lies past the probe's first 2 KiB: FFmpeg
#                           picks image2 (from the extension), which opens patterns
#   photo_exif6.jpg, photo_exif5.jpg   the same with EXIF Orientation 6 (right) and 5 (left mirrored)
#   still.heic              a real HEIF still (heif-enc, x265: a grid item, 64x48)
#   rotated.heic            a hand-built HEIF: hvc1 item, ispe 4032x3024, irot 3 (90° clockwise)
#   still.avif, rotated.avif   a real AVIF still (ffmpeg, libaom: 64x48), and the same with irot 1
#                           (270° clockwise) added
#   dav1.mp4, dvh1.mp4, dvhe.mp4, dva1.mp4   small AV1, HEVC and H.264 clips whose sample entry is
#                           renamed to a Dolby Vision one, with a dvcC/dvvC record (profile, level,
#                           compatibility id chosen here)
# The fixtures are committed; run this only to change them.
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/InputFixtures
mkdir -p "$out"
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
bitexact=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact)

# --- 7: an MP3 behind junk that probes as AMR-NB -----------------------------------------------
ff -f lavfi -i "sine=frequency=440:duration=1" -c:a libmp3lame -b:a 32k -ar 22050 -ac 1 \
  "${bitexact[@]}" "$out/tone.mp3"
python3 - "$out/tone.mp3" "$out/amr_junk.mp3" <<'PY'
import random, sys
rng = random.Random(20)
junk = bytearray()
while len(junk) < 8192:  # 12.2 kbit/s AMR-NB frame headers (0x3C) before 31 random bytes each
    junk += bytes([0x3C]) + bytes(rng.getrandbits(8) for _ in range(31))
open(sys.argv[2], "wb").write(bytes(junk[:8192]) + open(sys.argv[1], "rb").read())
PY

# --- 8: JPEG photos, one with EXIF orientations ------------------------------------------------
ff -f lavfi -i "testsrc2=size=160x120" -frames:v 1 -q:v 2 "${bitexact[@]}" -update 1 "$out/photo.jpg"
for n in 6 5; do
  cp "$out/photo.jpg" "$out/photo_exif$n.jpg"
  python3 Scripts/imagepatch.py exif-orientation "$out/photo_exif$n.jpg" "$n"
done

# --- 9: HEIF and AVIF stills -------------------------------------------------------------------
ff -f lavfi -i "testsrc2=size=64x48" -frames:v 1 "$out/src.png"
heif-enc -q 30 "$out/src.png" -o "$out/still.heic" >/dev/null
rm "$out/src.png"
python3 Scripts/imagepatch.py heic-build "$out/rotated.heic" 4032 3024 3
ff -f lavfi -i "testsrc2=size=64x48" -frames:v 1 -c:v libaom-av1 -cpu-used 8 -crf 40 \
  -still-picture 1 "${bitexact[@]}" "$out/still.avif"
cp "$out/still.avif" "$out/rotated.avif"
python3 Scripts/imagepatch.py heif-irot "$out/rotated.avif" 1

# --- 10: Dolby Vision sample entries -----------------------------------------------------------
clip() { ff -f lavfi -i "testsrc2=size=64x64:rate=10" -t 0.3 "$@"; }
clip -c:v libaom-av1 -cpu-used 8 -crf 50 -pix_fmt yuv420p "${bitexact[@]}" "$out/dav1.mp4"
clip -c:v libx265 -x265-params log-level=error -tag:v hvc1 "${bitexact[@]}" "$out/dvh1.mp4"
cp "$out/dvh1.mp4" "$out/dvhe.mp4"
clip -c:v libx264 -preset veryfast -pix_fmt yuv420p "${bitexact[@]}" "$out/dva1.mp4"
python3 Scripts/mp4patch.py dolby-vision "$out/dav1.mp4" dav1 10 1 1
python3 Scripts/mp4patch.py dolby-vision "$out/dvh1.mp4" dvh1 8 4 1
python3 Scripts/mp4patch.py dolby-vision "$out/dvhe.mp4" dvhe 5 6 0
python3 Scripts/mp4patch.py dolby-vision "$out/dva1.mp4" dva1 9 3 2
du -sh "$out"
