#!/usr/bin/env bash
# Makes the Tests/WildFixtures files of issue 26, class 7: streams whose codec FFmpeg 5.1 can
# neither decode nor parse, by construction, so the tests take their expected values from here.
# Beside Scripts/make-fixtures.sh (same conventions); committed, run only to change them.
#
#   unsupported_mpegh.ts   Scripts/make-ts-unknown.py: a PAT, a PMT declaring stream_type 0x2D
#                          (MPEG-H 3D audio main stream, ISO/IEC 13818-1 Table 2-34) on PID 0x100,
#   unsupported_ac4.ts     PES private data (0x06) with the DVB AC-4 descriptor (EN 300 468
#                          extension tag 0x15, channel mode stereo),
#   unsupported_dtsuhd.ts  0x06 with the DVB DTS-UHD descriptor (extension tag 0x21),
#   unsupported_vvc.ts     stream_type 0x33 (VVC);
#                          each with 12 PES packets of arbitrary bytes (100 to 499 bytes, so a
#                          PES spans one to three TS packets), PTS 20 ms apart from 1 s.
#                          Access units by construction: 12.
#   unsupported_mhm1.m4a   0.5 s of 48 kHz stereo AAC (25 samples, no edit list), the sample
#   unsupported_ac4.m4a    entry's FourCC patched from 'mp4a' to 'mhm1' (its 'esds' to 'mhaC')
#                          or to 'ac-4' (its 'esds' to 'dac4'): the entry still states 48000 Hz
#                          and 2 channels; 25 samples by construction.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=Tests/WildFixtures
mkdir -p "$dir"
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
bitexact=(-fflags +bitexact -flags:a +bitexact)

for kind in mpegh ac4 dtsuhd vvc; do
  python3 Scripts/make-ts-unknown.py "$kind" 12 "$dir/unsupported_$kind.ts"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ff -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=0.5" -ac 2 -c:a aac -b:a 64k \
  -use_editlist 0 "${bitexact[@]}" "$tmp/aac.m4a"
for pair in mhm1:mhaC ac-4:dac4; do
  entry=${pair%%:*}; config=${pair##*:}
  python3 - "$tmp/aac.m4a" "$dir/unsupported_${entry/-/}.m4a" "$entry" "$config" <<'PY'
import sys
src, dst, entry, config = sys.argv[1:]
data = open(src, "rb").read()
assert data.count(b"mp4a") == 1 and data.count(b"esds") == 1
open(dst, "wb").write(data.replace(b"mp4a", entry.encode()).replace(b"esds", config.encode()))
PY
done
ls -la "$dir"/unsupported_*
