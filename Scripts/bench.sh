#!/usr/bin/env bash
# Benchmarks the tools side by side with their peers on the same files, in one run, and prints
# ratios. Targets (issue "mediaprobe"): one-file latency <= 0.6x ffprobe's wall time; 200 files in
# one call >= 40x faster than an ffprobe-per-file loop, and faster than mediainfo on the same
# files; peak memory that does not grow with the number of files.
#   Scripts/bench.sh            (make bench builds the release binaries first)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build -c release --static-swift-stdlib --show-bin-path)
probe="$bin/mediaprobe"
[ -x "$probe" ] || { echo "build first: swift build -c release" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc -l; }
ratio() { printf '%.3f' "$(echo "$1 / $2" | bc -l)"; }
peak_kib() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }

# The same media for every tool: copies of the valid fixtures, 200 and 1000 files.
mapfile -t media < <(ls Tests/Fixtures/* | grep -v hostile_)
mkdir -p "$work/200" "$work/1000"
for i in $(seq 0 999); do
  src=${media[$((i % ${#media[@]}))]}
  name=$(printf '%04d_%s' "$i" "$(basename "$src")")
  [ "$i" -lt 200 ] && cp "$src" "$work/200/$name"
  cp "$src" "$work/1000/$name"
done
one=Tests/Fixtures/h264_25fps.mp4
runs=30

echo "== one file, $runs runs each: $one"
t0=$(now); for _ in $(seq $runs); do "$probe" "$one" >/dev/null; done; t1=$(now)
for _ in $(seq $runs); do ffprobe -v error -show_format -show_streams -of json "$one" >/dev/null; done; t2=$(now)
ours=$(elapsed "$t0" "$t1"); theirs=$(elapsed "$t1" "$t2")
printf 'mediaprobe %.1f ms/file, ffprobe %.1f ms/file, ratio %s (target <= 0.6)\n' \
  "$(echo "$ours * 1000 / $runs" | bc -l)" "$(echo "$theirs * 1000 / $runs" | bc -l)" "$(ratio "$ours" "$theirs")"

echo "== 200 files"
t0=$(now); "$probe" --ndjson "$work"/200/* >/dev/null || true; t1=$(now)
for f in "$work"/200/*; do ffprobe -v error -show_format -show_streams -of json "$f" >/dev/null || true; done; t2=$(now)
mediainfo --Output=JSON "$work"/200/* >/dev/null; t3=$(now)
ours=$(elapsed "$t0" "$t1"); loop=$(elapsed "$t1" "$t2"); mi=$(elapsed "$t2" "$t3")
printf 'mediaprobe %.3f s, ffprobe loop %.3f s, mediainfo %.3f s\n' "$ours" "$loop" "$mi"
printf 'ffprobe loop / mediaprobe = %.1fx (target >= 40x); mediainfo / mediaprobe = %.2fx (target > 1)\n' \
  "$(echo "$loop / $ours" | bc -l)" "$(echo "$mi / $ours" | bc -l)"

echo "== peak memory (KiB), JSON array output"
m200=$(peak_kib "$probe" "$work"/200/*)
m1000=$(peak_kib "$probe" "$work"/1000/*)
printf 'mediaprobe: 200 files %s KiB, 1000 files %s KiB (ratio %s; should stay ~1)\n' "$m200" "$m1000" "$(ratio "$m1000" "$m200")"
printf 'mediainfo:  200 files %s KiB\n' "$(peak_kib mediainfo --Output=JSON "$work"/200/*)"
