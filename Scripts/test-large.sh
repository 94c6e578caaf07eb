#!/usr/bin/env bash
# Writes a real WAV larger than 4 GiB with media2wav and checks that sox, sndfile-info and ffprobe
# read all of it (RF64 with a ds64 chunk), then deletes it. Needs about 4.5 GB of free disk in
# $TMPDIR (default /tmp); skips (exit 0) with a message when there is not enough. Then reads 30
# minutes of AAC over HTTP with media2wav through a connection reset (issue 27).
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

# media2wav over HTTP of 30 minutes of stereo AAC, through a connection reset injected mid-body
# (Scripts/range-server.py, reset-at): the WAV equals the local one byte for byte, the server
# sends at most 1.02x the file, and the request after the reset starts at the very byte cut.
minutes=30
ffmpeg -nostdin -v error -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$((minutes * 60))" \
  -f lavfi -i "sine=frequency=660:sample_rate=48000:duration=$((minutes * 60))" \
  -filter_complex amerge -c:a aac -b:a 128k "$work/long.m4a"
rm -f "$work/big.wav"
mkdir -p "$work/served" "$work/remote" "$work/local"
mv "$work/long.m4a" "$work/served/"
file_size=$(stat -c %s "$work/served/long.m4a")
cut=$((file_size / 2 + 12345))
python3 Scripts/range-server.py "$work/served" "$work/port" >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
"$bin/media2wav" -q --allow-network --output-dir "$work/remote" "http://127.0.0.1:$port/reset-at/$cut/long.m4a"
stats=$(curl -s "http://127.0.0.1:$port/__stats")
"$bin/media2wav" -q --output-dir "$work/local" "$work/served/long.m4a"
cmp -s "$work/remote/long.wav" "$work/local/long.wav" || fail "the WAV over HTTP differs from the local one"
sent=$(jq .bytes <<<"$stats")
requests=$(jq .requests <<<"$stats")
jq -e --arg cut "bytes=$cut-" '.ranges | any(. != null and startswith($cut))' <<<"$stats" >/dev/null \
  || fail "no request resumed at byte $cut: $(jq -c .ranges <<<"$stats")"
awk -v s="$sent" -v f="$file_size" 'BEGIN { exit !(s <= 1.02 * f) }' || fail "$sent bytes sent for a $file_size-byte file"
echo "test-large: passed ($minutes min over HTTP through a reset at byte $cut: $sent bytes sent for $file_size, $requests requests, WAV identical)"
