#!/usr/bin/env bash
# Writes a real WAV larger than 4 GiB with media2wav and checks that sox, sndfile-info and ffprobe
# read all of it (RF64 with a ds64 chunk), then deletes it. Needs about 4.5 GB of free disk in
# $TMPDIR (default /tmp); skips (exit 0) with a message when there is not enough.
#   make test-large
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build -c release --static-swift-stdlib --show-bin-path)
work=$(mktemp -d "${TMPDIR:-/tmp}/media2wav-large.XXXXXX")
trap 'rm -rf "$work"' EXIT

free_kib=$(df -Pk "$work" | awk 'NR==2 {print $4}')
if [ "$free_kib" -lt $((4700 * 1024)) ]; then
  echo "test-large: skipped, only $((free_kib / 1024)) MiB free in $work (needs 4700)"
  exit 0
fi

# 6 minutes of mono Opus, written as 8 channels of 64-bit float at 192 kHz: 12,288,000 bytes a
# second, 4,423,680,000 bytes of data (> 4 GiB - 1 = 4,294,967,295).
seconds=360
ffmpeg -nostdin -v error -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$seconds" -c:a libopus "$work/in.opus"
"$bin/media2wav" -q "$work/in.opus" --channels 8 --rate 192000 --format f64 -o "$work/big.wav"
size=$(stat -c %s "$work/big.wav")
expected_frames=$((seconds * 192000))
echo "test-large: wrote $size bytes"

fail() { echo "test-large: FAILED: $*" >&2; exit 1; }
# The header: RF64 (12) + ds64 (8 + 28) + extensible fmt (8 + 40) + fact (8 + 4) + data (8).
[ "$size" -eq $((seconds * 12288000 + 116)) ] || fail "$size bytes, expected $((seconds * 12288000 + 116))"
[ "$(head -c 4 "$work/big.wav")" = "RF64" ] || fail "the header is not RF64"
[ "$(dd if="$work/big.wav" bs=1 skip=12 count=4 2>/dev/null)" = "ds64" ] || fail "no ds64 chunk"

frames=$(soxi -s "$work/big.wav")
[ "$frames" -eq "$expected_frames" ] || fail "soxi reads $frames frames, expected $expected_frames"
info=$(sndfile-info "$work/big.wav")
grep -q "Frames      : $expected_frames" <<<"$info" || fail "sndfile-info: $(grep Frames <<<"$info")"
duration=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$work/big.wav")
awk -v d="$duration" -v s="$seconds" 'BEGIN { exit !(d > s - 0.01 && d < s + 0.01) }' || fail "ffprobe duration $duration"
# The last samples are readable (not cut at 4 GiB): decode the final second.
tail_bytes=$(ffmpeg -nostdin -v error -ss $((seconds - 1)) -i "$work/big.wav" -f f64le - | wc -c)
[ "$tail_bytes" -eq $((192000 * 8 * 8)) ] || fail "ffmpeg reads $tail_bytes bytes of the last second"
echo "test-large: passed (sox, sndfile-info and ffprobe read all $expected_frames frames)"
