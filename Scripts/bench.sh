#!/usr/bin/env bash
# Benchmarks the tools side by side with their peers on the same files, in one run, and prints
# ratios. Targets:
#   mediaprobe: one-file latency <= 0.6x ffprobe's wall time; 200 files in one call >= 40x faster
#     than an ffprobe-per-file loop, and faster than mediainfo on the same files; peak memory that
#     does not grow with the number of files.
#   media2wav: 30 min of 48 kHz stereo AAC (M4A) to s16 WAV in <= 0.95x the wall time of
#     `ffmpeg -threads 1 ... -acodec pcm_s16le`, peak RSS <= ffmpeg's, and the same peak RSS
#     (+- 2 MiB) for a 1-minute and a 60-minute input.
#   mediaprobe --verify: 60 s of 1080p H.264 + AAC in <= 1.0x the wall time of
#     `ffmpeg -v error -threads 2 -i IN -f null -` (the same threads), peak RSS <= ffmpeg's; 200
#     small files in one call >= 10x faster than an ffmpeg-per-file loop; the same peak RSS
#     (+- 2 MiB) for a 10-minute and a 60-minute file. --hash md5 side by side with ffmpeg's
#     streamhash muxer.
#   media2wav mix: a 30-minute video's sound (H.264 + AAC) with a 3-minute MP3 song looped under
#     it at 0.3 in <= 1.0x the wall time of ffmpeg's amix (normalize=0, -stream_loop, the same
#     one thread), peak RSS <= ffmpeg's, and the same peak RSS (+- 2 MiB) for 1 and 30 minutes.
#   media2wav --analyze / --analyze-only: see bench_loudness (also peak RSS for 1,000 vs 10,000
#     inputs in one --analyze-only call: the same within 2 MiB plus what the heaviest inputs that
#     happen to run at once need).
#   render: the render engine (Render's Transcoder, through Sources/render-bench, built here with
#     MEDIATOOLS_BENCH=1) against the ffmpeg CLI with the same settings on a 10 s 720p clip
#     (libx264 veryfast CRF 23, AAC at its default rate, -threads 2, decoders on auto; the two
#     outputs must hash equal), and a remux (MKV -> MP4 +faststart) against `ffmpeg -c copy`:
#     wall and CPU time (best of 3, alternating), their ratios (target <= 1.0), peak RSS of both.
#   fix: mediacompat --fix (issue 23) against the ffmpeg command its --suggest prints for the same
#     plan (the same encoder settings; ffmpeg's threads on auto as ours): a remux of a long 1080p
#     H.264/AAC MKV to MP4 for ios-17 (FIX_BENCH_SECONDS, default 60 s at 20 Mb/s, ~150 MB; 420 s
#     makes the 1 GB file of the issue), an audio-only transcode (H.264 + AC-3 5.1 MKV for
#     chrome, 60 s) and a full transcode (10 s of 720p HEVC for firefox --strict). Wall time of
#     the whole fix (with its re-check: the output probed and decoded, SSIM/PSNR for the video
#     transcode) and of its render phase alone (the report's timings.render), ratios to ffmpeg's
#     wall time (target for the render <= 1.0), peak RSS of both.
#   compose: mediamerge --composition (the in-process compositor) on a 3-clip 720p25 composition
#     (8 + 8 + 6 s, two 1 s crossfades = 20 s, a 5 s music bed looped under it at 0.3) against
#     the equivalent hand-written `ffmpeg -filter_complex` (xfade, acrossfade, amix normalize=0,
#     -stream_loop) with the same libx264 (veryfast, CRF 20, High) and AAC (160 kbit/s 48 kHz
#     stereo) settings, threads on auto on both sides: wall and CPU time (best of 3), ratios
#     (target <= 1.0), peak RSS of both, and our report's per-stage seconds and check cost.
#   looks: five looks (brightness, contrast, saturation, sepia, vignette) on a 20 s 720p clip,
#     mediamerge --composition against `ffmpeg -vf` running the same filter chain (printed by
#     render-bench from LookFilters, the compositor's one place for it) with the same x264/AAC
#     settings and threads: wall and CPU time (best of 3), ratios (target <= 1.0), RSS, PSNR.
#   export-size: mediamerge --max-size (issue 25: a first pass of x264 ABR writing x264's stats,
#     then, when it misses, x264's two-pass on the replayed pictures; only the kept pass checked)
#     against ffmpeg's two-pass at the rate SizeBudget's arithmetic gives for the same cap
#     (libx264 veryfast, AAC 160k, threads on auto on both sides): 20 s of 720p25 testsrc2 with
#     light noise and a 4 MB cap (our first pass lands), 10 s of 720p25 with more noise under
#     2 MB and 6 s of 320x240 heavy noise under 300 kB (our first pass misses: two passes): total
#     wall and CPU time (best of 3, alternating; target <= 1.0) and where each output lands.
#   frame: mediaframe against the ffmpeg CLI run once per picture (`ffmpeg -ss T -i F -frames:v 1`)
#     and ffmpegthumbnailer run once per picture: 20 thumbnails of one 60 s 720p clip in one call,
#     and one poster of each of 200 files (target >= 10x faster than the ffmpeg loop); a 10x10
#     contact sheet of a 10-minute clip and of one hour of 1080p (made once, cached in
#     .build/bench-cache) against ffmpeg's fps,scale,tile (target <= 0.3x: seek, do not decode it
#     all); a waveform of 30 min of AAC against showwavespic (target <= 0.5x), for FFmpeg's
#     default AAC (noise bands: one pass) and the same coded without PNS (one chunk per core),
#     and its peak RSS for 1 and 60 minutes (flat for PNG) beside ffmpeg's.
#   remote: 200 URLs on nginx (127.0.0.1, a temporary configuration; the access log's
#     $bytes_sent and requests): mediaprobe --allow-network in one call vs an ffprobe-per-URL
#     loop on the same URLs (issue 27): wall time, bytes the server sent, requests. Target: the
#     bytes sent about what local probes read (the per-format bounds are in NetworkTests).
#   Scripts/bench.sh [mediaprobe|media2wav|verify|mix|loudness|render|fix|compose|looks|export-size|frame|remote]   (make bench builds the release binaries first)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build -c release --static-swift-stdlib --show-bin-path)
probe="$bin/mediaprobe"
which=${1:-all}
if [ "$which" = fix ]; then probe="$bin/mediacompat"; fi
if [ "$which" = frame ]; then probe="$bin/mediaframe"; fi
if [ "$which" = export-size ]; then probe="$bin/mediamerge"; fi
[ -x "$probe" ] || { echo "build first: make release" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Times come from bash's $EPOCHREALTIME: no process is started to read the clock.
elapsed() { echo "$2 - $1" | bc -l; }
ratio() { printf '%.3f' "$(echo "$1 / $2" | bc -l)"; }
peak_kib() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
# Keeps the lower of $ours and $best_ours, and of $theirs and $best_theirs (best of N runs).
keep_best() {
  best_ours=$(echo "if ($ours < $best_ours) $ours else $best_ours" | bc -l)
  best_theirs=$(echo "if ($theirs < $best_theirs) $theirs else $best_theirs" | bc -l)
}

bench_mediaprobe() {
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
runs=41

echo "== one file, $runs runs each, alternating, medians: $one"
# Warm-up runs (not counted): both programs and their libraries in the page cache.
for _ in 1 2 3; do
  "$probe" "$one" >/dev/null; ffprobe -v error -show_format -show_streams -of json "$one" >/dev/null
done
: > "$work/ours.times"; : > "$work/theirs.times"
for _ in $(seq $runs); do
  t0=$EPOCHREALTIME; "$probe" "$one" >/dev/null; t1=$EPOCHREALTIME
  ffprobe -v error -show_format -show_streams -of json "$one" >/dev/null; t2=$EPOCHREALTIME
  elapsed "$t0" "$t1" >> "$work/ours.times"; elapsed "$t1" "$t2" >> "$work/theirs.times"
done
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ours=$(median "$work/ours.times"); theirs=$(median "$work/theirs.times")
printf 'mediaprobe %.1f ms/file, ffprobe %.1f ms/file, ratio %s (target <= 0.6)\n' \
  "$(echo "$ours * 1000" | bc -l)" "$(echo "$theirs * 1000" | bc -l)" "$(ratio "$ours" "$theirs")"
# The spread: wall times on a shared machine move together, so the ratio is the stable figure.
quartiles() { sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.1f-%.1f", v[int(NR / 4) + 1] * 1000, v[int(3 * NR / 4) + 1] * 1000 }'; }
printf '  middle half of the runs: mediaprobe %s ms, ffprobe %s ms\n' \
  "$(quartiles "$work/ours.times")" "$(quartiles "$work/theirs.times")"

echo "== 200 files"
t0=$EPOCHREALTIME; "$probe" --ndjson "$work"/200/* >/dev/null || true; t1=$EPOCHREALTIME
for f in "$work"/200/*; do ffprobe -v error -show_format -show_streams -of json "$f" >/dev/null || true; done; t2=$EPOCHREALTIME
mediainfo --Output=JSON "$work"/200/* >/dev/null; t3=$EPOCHREALTIME
ours=$(elapsed "$t0" "$t1"); loop=$(elapsed "$t1" "$t2"); mi=$(elapsed "$t2" "$t3")
printf 'mediaprobe %.3f s, ffprobe loop %.3f s, mediainfo %.3f s\n' "$ours" "$loop" "$mi"
printf 'ffprobe loop / mediaprobe = %.1fx (target >= 40x); mediainfo / mediaprobe = %.2fx (target > 1)\n' \
  "$(echo "$loop / $ours" | bc -l)" "$(echo "$mi / $ours" | bc -l)"

echo "== the floor: a C program that only opens each file and reads its stream information, one thread"
gcc -O2 -o "$work/floor" Scripts/bench-floor.c $(pkg-config --cflags --libs libavformat libavutil)
best() { local best=999 t0 t1 d; for _ in 1 2 3; do t0=$EPOCHREALTIME; "$@" >/dev/null 2>&1 || true; t1=$EPOCHREALTIME; d=$(elapsed "$t0" "$t1"); best=$(echo "if ($d < $best) $d else $best" | bc -l); done; echo "$best"; }
floor=$(best "$work/floor" "$work"/200/*)
one=$(best "$probe" --jobs 1 --ndjson "$work"/200/*)
two=$(best "$probe" --jobs 2 --ndjson "$work"/200/*)
printf 'floor %.3f s; mediaprobe --jobs 1 %.3f s (%sx the floor, target <= 1.3), --jobs 2 %.3f s (%sx, target < 1)\n' \
  "$floor" "$one" "$(ratio "$one" "$floor")" "$two" "$(ratio "$two" "$floor")"
printf 'ffprobe loop / mediaprobe --jobs 2 = %.1fx (target >= 80x)\n' "$(echo "$loop / $two" | bc -l)"

echo "== 10,000 files from a list (--files-from -), and 1,000,000 listed paths (missing files)"
ls "$work"/1000/* > "$work/list1k"
for _ in $(seq 10); do cat "$work/list1k"; done > "$work/list10k"
listed_peak() {  # list: peak RSS of one --files-from call, its messages dropped
  /usr/bin/time -o "$work/peak" -f %M "$probe" --ndjson --files-from - < "$1" >/dev/null 2>&1 || true
  tail -1 "$work/peak"  # time writes "Command exited with non-zero status" first when it did
}
t0=$EPOCHREALTIME; m10k=$(listed_peak "$work/list10k"); t1=$EPOCHREALTIME
printf '10,000 files: %.2f s, %.0f files/s, peak RSS %s KiB\n' "$(elapsed "$t0" "$t1")" "$(echo "10000 / $(elapsed "$t0" "$t1")" | bc -l)" "$m10k"
seq -f "$work/missing/%.0f.mp4" 1 100000 > "$work/list100k"
seq -f "$work/missing/%.0f.mp4" 1 1000000 > "$work/list1m"
m100k=$(listed_peak "$work/list100k")
m1m=$(listed_peak "$work/list1m")
printf 'peak RSS for 100,000 and 1,000,000 listed paths: %s and %s KiB (should stay ~equal)\n' "$m100k" "$m1m"

echo "== peak memory (KiB), JSON array output"
m200=$(peak_kib "$probe" "$work"/200/*)
m1000=$(peak_kib "$probe" "$work"/1000/*)
printf 'mediaprobe: 200 files %s KiB, 1000 files %s KiB (ratio %s; should stay ~1)\n' "$m200" "$m1000" "$(ratio "$m1000" "$m200")"
printf 'mediainfo:  200 files %s KiB\n' "$(peak_kib mediainfo --Output=JSON "$work"/200/*)"
}

# 1, 30 and 60 minutes of 48 kHz stereo AAC (M4A) in $work, made once per run (media2wav and
# loudness both use them).
make_aac() {
  [ -s "$work/60.m4a" ] && return
  echo "== making 1, 30 and 60 minutes of 48 kHz stereo AAC (M4A)"
  local minutes
  for minutes in 1 30 60; do
    ffmpeg -nostdin -v error -y -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$((minutes * 60))" \
      -f lavfi -i "sine=frequency=660:sample_rate=48000:duration=$((minutes * 60))" \
      -filter_complex amerge -c:a aac -b:a 128k "$work/$minutes.m4a"
  done
}

bench_media2wav() {
  local wav="$bin/media2wav" peer=(ffmpeg -nostdin -hide_banner -nostats -loglevel error -threads 1)
  make_aac
  local ours theirs best_ours=999 best_theirs=999
  for run in 1 2 3; do
    t0=$EPOCHREALTIME; "$wav" -q --force "$work/30.m4a" -o "$work/ours.wav"; t1=$EPOCHREALTIME
    "${peer[@]}" -i "$work/30.m4a" -map 0:a:0 -vn -acodec pcm_s16le -fflags +bitexact -y "$work/ffmpeg.wav"; t2=$EPOCHREALTIME
    ours=$(elapsed "$t0" "$t1"); theirs=$(elapsed "$t1" "$t2")
    keep_best
  done
  cmp -s "$work/ours.wav" "$work/ffmpeg.wav" && same="identical files" || same="FILES DIFFER"
  printf 'to a file (best of 3): media2wav %.2f s, ffmpeg %.2f s, ratio %s (target <= 0.95); %s\n' \
    "$best_ours" "$best_theirs" "$(ratio "$best_ours" "$best_theirs")" "$same"
  t0=$EPOCHREALTIME; "$wav" -q "$work/30.m4a" -o - >/dev/null; t1=$EPOCHREALTIME
  "${peer[@]}" -i "$work/30.m4a" -map 0:a:0 -vn -acodec pcm_s16le -fflags +bitexact -f wav - >/dev/null; t2=$EPOCHREALTIME
  printf 'to /dev/null: media2wav %.2f s, ffmpeg %.2f s, ratio %s\n' \
    "$(elapsed "$t0" "$t1")" "$(elapsed "$t1" "$t2")" "$(ratio "$(elapsed "$t0" "$t1")" "$(elapsed "$t1" "$t2")")"
  ours=$(peak_kib "$wav" -q --force "$work/30.m4a" -o "$work/ours.wav")
  theirs=$(peak_kib "${peer[@]}" -i "$work/30.m4a" -map 0:a:0 -vn -acodec pcm_s16le -fflags +bitexact -y "$work/ffmpeg.wav")
  printf 'peak RSS, 30 min: media2wav %s KiB, ffmpeg %s KiB (target: media2wav <= ffmpeg)\n' "$ours" "$theirs"
  local one sixty
  one=$(peak_kib "$wav" -q --force "$work/1.m4a" -o "$work/ours.wav")
  sixty=$(peak_kib "$wav" -q --force "$work/60.m4a" -o "$work/ours.wav")
  printf 'peak RSS: 1 min %s KiB, 60 min %s KiB, difference %s KiB (target: within 2048)\n' "$one" "$sixty" "$((sixty - one))"
  # What only opening the file costs (libavformat's MP4 sample table grows with the length).
  one=$(peak_kib "$probe" "$work/1.m4a"); sixty=$(peak_kib "$probe" "$work/60.m4a")
  printf '  of which opening the M4A (mediaprobe, no decoding): 1 min %s KiB, 60 min %s KiB, difference %s KiB\n' \
    "$one" "$sixty" "$((sixty - one))"
  rm -f "$work"/*.wav
}

bench_verify() {
  # Long media is made once and kept in bench-work/ (ignored by git).
  local media=bench-work/verify
  mkdir -p "$media"
  make_clip() {  # name size rate seconds
    [ -s "$media/$1" ] && return
    echo "== making $1 ($2, $4 s)"
    ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=$2:rate=$3" -f lavfi -i "sine=sample_rate=48000" \
      -t "$4" -c:v libx264 -preset veryfast -crf 23 -c:a aac -b:a 128k "$media/$1.tmp.mp4"
    mv "$media/$1.tmp.mp4" "$media/$1"
  }
  make_clip 1080p_60s.mp4 1920x1080 30 60
  make_clip 240p_10min.mp4 320x240 30 600
  make_clip 240p_60min.mp4 320x240 30 3600
  local big=$media/1080p_60s.mp4 ours theirs best_ours=999 best_theirs=999
  echo "== --verify, 60 s of 1080p30 H.264 + AAC, best of 3"
  for _ in 1 2 3; do
    t0=$EPOCHREALTIME; "$probe" --verify "$big" >/dev/null; t1=$EPOCHREALTIME
    ffmpeg -nostdin -v error -threads 2 -i "$big" -f null - ; t2=$EPOCHREALTIME
    ours=$(elapsed "$t0" "$t1"); theirs=$(elapsed "$t1" "$t2")
    keep_best
  done
  printf 'mediaprobe --verify %.2f s, ffmpeg -threads 2 -f null %.2f s, ratio %s (target <= 1.0)\n' \
    "$best_ours" "$best_theirs" "$(ratio "$best_ours" "$best_theirs")"
  ours=$(peak_kib "$probe" --verify "$big"); theirs=$(peak_kib ffmpeg -nostdin -v error -threads 2 -i "$big" -f null -)
  printf 'peak RSS: mediaprobe %s KiB, ffmpeg %s KiB (target: mediaprobe <= ffmpeg)\n' "$ours" "$theirs"
  t0=$EPOCHREALTIME; "$probe" --verify --hash md5 "$big" >/dev/null; t1=$EPOCHREALTIME
  ffmpeg -nostdin -v error -threads 2 -i "$big" -map 0:v -map 0:a -fps_mode passthrough -f streamhash -hash md5 - >/dev/null; t2=$EPOCHREALTIME
  printf 'with --hash md5: mediaprobe %.2f s, ffmpeg -f streamhash -hash md5 %.2f s, ratio %s\n' \
    "$(elapsed "$t0" "$t1")" "$(elapsed "$t1" "$t2")" "$(ratio "$(elapsed "$t0" "$t1")" "$(elapsed "$t1" "$t2")")"

  echo "== --verify, 200 small files (copies of the fixtures)"
  mapfile -t fixtures < <(ls Tests/Fixtures/* | grep -v hostile_)
  mkdir -p "$work/v200"
  for i in $(seq 0 199); do cp "${fixtures[$((i % ${#fixtures[@]}))]}" "$work/v200/$(printf '%03d' "$i")_$(basename "${fixtures[$((i % ${#fixtures[@]}))]}")"; done
  t0=$EPOCHREALTIME; "$probe" --verify --ndjson "$work"/v200/* >/dev/null || true; t1=$EPOCHREALTIME
  for f in "$work"/v200/*; do ffmpeg -nostdin -v error -threads 2 -i "$f" -f null - 2>/dev/null || true; done; t2=$EPOCHREALTIME
  ours=$(elapsed "$t0" "$t1"); theirs=$(elapsed "$t1" "$t2")
  printf 'mediaprobe --verify %.2f s, ffmpeg loop %.2f s: %.1fx faster (target >= 10x)\n' \
    "$ours" "$theirs" "$(echo "$theirs / $ours" | bc -l)"

  echo "== --verify peak memory against length (320x240 H.264 + AAC)"
  local ten sixty
  ten=$(peak_kib "$probe" --verify "$media/240p_10min.mp4"); sixty=$(peak_kib "$probe" --verify "$media/240p_60min.mp4")
  printf '10 min %s KiB, 60 min %s KiB, difference %s KiB (target: within 2048)\n' "$ten" "$sixty" "$((sixty - ten))"
  ten=$(peak_kib "$probe" "$media/240p_10min.mp4"); sixty=$(peak_kib "$probe" "$media/240p_60min.mp4")
  printf '  of which opening the MP4 (no decoding): 10 min %s KiB, 60 min %s KiB, difference %s KiB\n' "$ten" "$sixty" "$((sixty - ten))"
  # The same streams in Matroska, whose demuxer keeps no per-sample index (its index stops at
  # 1 MiB): what is left is what decoding and verifying cost.
  local m
  for m in 10 60; do
    [ -s "$media/240p_${m}min.mkv" ] || ffmpeg -nostdin -v error -y -i "$media/240p_${m}min.mp4" -c copy "$media/240p_${m}min.mkv"
  done
  ten=$(peak_kib "$probe" --verify "$media/240p_10min.mkv"); sixty=$(peak_kib "$probe" --verify "$media/240p_60min.mkv")
  printf '  the same in Matroska: 10 min %s KiB, 60 min %s KiB, difference %s KiB (target: within 2048)\n' "$ten" "$sixty" "$((sixty - ten))"
  ten=$(peak_kib ffmpeg -nostdin -v error -threads 2 -i "$media/240p_10min.mp4" -f null -)
  sixty=$(peak_kib ffmpeg -nostdin -v error -threads 2 -i "$media/240p_60min.mp4" -f null -)
  printf '  ffmpeg -f null on the MP4s: 10 min %s KiB, 60 min %s KiB, difference %s KiB\n' "$ten" "$sixty" "$((sixty - ten))"
}

bench_mix() {
  local media=bench-work/mix wav="$bin/media2wav"
  mkdir -p "$media"
  local minutes
  for minutes in 1 30; do
    [ -s "$media/video_${minutes}min.mp4" ] && continue
    echo "== making a ${minutes}-minute 320x240 H.264 + AAC video"
    ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=320x240:rate=25" \
      -f lavfi -i "sine=frequency=440:sample_rate=48000" -t $((minutes * 60)) -ac 2 \
      -c:v libx264 -preset ultrafast -c:a aac -b:a 128k "$media/tmp.mp4"
    mv "$media/tmp.mp4" "$media/video_${minutes}min.mp4"
  done
  [ -s "$media/song.mp3" ] || ffmpeg -nostdin -v error -y -f lavfi \
    -i "sine=frequency=660:sample_rate=44100:duration=180" -ac 2 -c:a libmp3lame -b:a 192k "$media/song.mp3"
  mix() { "$wav" mix -q --force -o "$work/mix.wav" "$1" "$media/song.mp3" --volume 0.3 --loop; }
  amix() {
    ffmpeg -nostdin -v error -threads 1 -filter_threads 1 -filter_complex_threads 1 -i "$1" \
      -stream_loop -1 -i "$media/song.mp3" -filter_complex \
      "[1:a]aresample=48000,volume=0.3[b];[0:a][b]amix=inputs=2:normalize=0:duration=first" \
      -acodec pcm_s16le -fflags +bitexact -y "$work/amix.wav"
  }
  local long=$media/video_30min.mp4 ours theirs best_ours=999 best_theirs=999
  echo "== media2wav mix: 30 min video sound + a 3 min MP3 looped at 0.3, best of 3"
  for _ in 1 2 3; do
    t0=$EPOCHREALTIME; mix "$long"; t1=$EPOCHREALTIME; amix "$long"; t2=$EPOCHREALTIME
    ours=$(elapsed "$t0" "$t1"); theirs=$(elapsed "$t1" "$t2")
    keep_best
  done
  cmp -s "$work/mix.wav" "$work/amix.wav" && same="identical files" || same="FILES DIFFER"
  printf 'media2wav mix %.2f s, ffmpeg amix %.2f s, ratio %s (target <= 1.0); %s\n' \
    "$best_ours" "$best_theirs" "$(ratio "$best_ours" "$best_theirs")" "$same"
  ours=$(peak_kib "$wav" mix -q --force -o "$work/mix.wav" "$long" "$media/song.mp3" --volume 0.3 --loop)
  theirs=$(peak_kib ffmpeg -nostdin -v error -threads 1 -filter_threads 1 -filter_complex_threads 1 -i "$long" \
    -stream_loop -1 -i "$media/song.mp3" -filter_complex \
    "[1:a]aresample=48000,volume=0.3[b];[0:a][b]amix=inputs=2:normalize=0:duration=first" \
    -acodec pcm_s16le -fflags +bitexact -y "$work/amix.wav")
  printf 'peak RSS: media2wav mix %s KiB, ffmpeg %s KiB (target: media2wav <= ffmpeg)\n' "$ours" "$theirs"
  local one thirty
  one=$(peak_kib "$wav" mix -q --force -o "$work/mix.wav" "$media/video_1min.mp4" "$media/song.mp3" --volume 0.3 --loop)
  thirty=$(peak_kib "$wav" mix -q --force -o "$work/mix.wav" "$long" "$media/song.mp3" --volume 0.3 --loop)
  printf 'peak RSS: 1 min %s KiB, 30 min %s KiB, difference %s KiB (target: within 2048 beyond the demuxer index below)\n' \
    "$one" "$thirty" "$((thirty - one))"
  one=$(peak_kib "$probe" "$media/video_1min.mp4"); thirty=$(peak_kib "$probe" "$long")
  printf '  of which opening the MP4 (mediaprobe, no decoding): 1 min %s KiB, 30 min %s KiB, difference %s KiB\n' \
    "$one" "$thirty" "$((thirty - one))"
  rm -f "$work"/*.wav
}

bench_loudness() {
  # media2wav's analysis (issue 14): extraction with --analyze against plain extraction (target:
  # <= 1.15x), --analyze-only against `ffmpeg -af ebur128=peak=true -f null -` (target: < 1x),
  # and peak RSS that does not grow with the length (1 vs 60 minutes).
  local wav="$bin/media2wav" m ours theirs
  make_aac
  best3() {  # command...: the best wall time of 3 runs
    local best=999 t0 t1 d
    for _ in 1 2 3; do
      t0=$EPOCHREALTIME; "$@" >/dev/null 2>&1 || true; t1=$EPOCHREALTIME
      d=$(elapsed "$t0" "$t1"); best=$(echo "if ($d < $best) $d else $best" | bc -l)
    done
    echo "$best"
  }
  local plain analyzed only ff
  plain=$(best3 "$wav" -q --force "$work/30.m4a" -o "$work/plain.wav")
  analyzed=$(best3 "$wav" --json --analyze --force "$work/30.m4a" -o "$work/analyzed.wav")
  only=$(best3 "$wav" --analyze-only "$work/30.m4a")
  ff=$(best3 ffmpeg -nostdin -hide_banner -nostats -threads 1 -i "$work/30.m4a" -map 0:a:0 -af ebur128=peak=true -f null -)
  printf 'extraction (best of 3): plain %.2f s, with --analyze %.2f s, ratio %s (target <= 1.15)\n' \
    "$plain" "$analyzed" "$(ratio "$analyzed" "$plain")"
  printf 'analysis alone: media2wav --analyze-only %.2f s, ffmpeg ebur128=peak=true %.2f s, ratio %s (target < 1)\n' \
    "$only" "$ff" "$(ratio "$only" "$ff")"
  for m in 1 60; do
    printf 'peak RSS --analyze-only, %s min: %s KiB; --json --analyze: %s KiB\n' "$m" \
      "$(peak_kib "$wav" --analyze-only "$work/$m.m4a")" \
      "$(peak_kib "$wav" --json --analyze --force "$work/$m.m4a" -o "$work/analyzed.wav")"
  done
  # The same audio in Matroska (no per-sample index in the demuxer): the analysis's own growth.
  for m in 1 60; do
    ffmpeg -nostdin -v error -y -i "$work/$m.m4a" -c copy "$work/$m.mka"
    printf 'peak RSS --analyze-only, %s min in Matroska: %s KiB\n' "$m" "$(peak_kib "$wav" --analyze-only "$work/$m.mka")"
  done
  # Many inputs in one call (issue 20, item 21): the peak must not grow with their number. The
  # audio fixtures (AAC, Opus, Vorbis, MP3, AC-3 5.1, 96 kHz FLAC, PCM, two-stream Matroska)
  # listed over and over, so the heaviest ones meet in every combination.
  local fixtures=(tone.m4a tone.ogg tone.opus tone.wav tone_24bit_96k.flac tone_adts.aac
    tone_cover.mp3 surround_5.1.ac3 two_audio.mkv vbr_no_xing.mp3) n t0 t1 peak
  for n in 1000 10000; do
    for i in $(seq 0 $((n - 1))); do echo "Tests/Fixtures/${fixtures[$((i % ${#fixtures[@]}))]}"; done > "$work/audio$n"
    t0=$EPOCHREALTIME
    /usr/bin/time -o "$work/peak" -f %M "$wav" --analyze-only --files-from "$work/audio$n" >/dev/null 2>&1 || true
    t1=$EPOCHREALTIME
    peak=$(tail -1 "$work/peak")
    printf 'peak RSS --analyze-only --files-from, %s inputs: %s KiB (%.0f inputs/s)\n' "$n" "$peak" \
      "$(echo "$n / $(elapsed "$t0" "$t1")" | bc -l)"
  done
  rm -f "$work"/*.wav
}

bench_render() {
  MEDIATOOLS_BENCH=1 swift build -c release --static-swift-stdlib --product render-bench 2>&1 \
    | grep -E "error|Compiling" || true
  local render="$bin/render-bench"
  [ -x "$render" ] || { echo "render-bench did not build" >&2; exit 1; }
  echo "== making a 10 s 720p25 clip (testsrc2 + 440 Hz, H.264 + AAC 44.1 kHz mono) and its MKV copy"
  ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=1280x720:rate=25 -f lavfi -i sine=f=440 \
    -t 10 -c:v libx264 -c:a aac "$work/render.mp4"
  ffmpeg -nostdin -v error -y -i "$work/render.mp4" -c copy "$work/render.mkv"
  # One timed run: wall, user + system seconds and peak RSS (KiB) into the named variables.
  measure() {  # prefix command...
    local prefix=$1; shift
    /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$@" >/dev/null
    read -r wall user sys rss < "$work/time"
    printf -v "${prefix}_wall" '%s' "$wall"
    printf -v "${prefix}_cpu" '%s' "$(echo "$user + $sys" | bc -l)"
    printf -v "${prefix}_rss" '%s' "$rss"
  }
  compare() {  # label ours... -- theirs...
    local label=$1; shift
    local ours=() theirs=() seen=0 arg
    for arg in "$@"; do
      if [ "$arg" = "--" ]; then seen=1; elif [ $seen -eq 0 ]; then ours+=("$arg"); else theirs+=("$arg"); fi
    done
    local bw_o=999 bw_t=999 bc_o=999 bc_t=999 run
    for run in 1 2 3; do
      measure o "${ours[@]}"; measure t "${theirs[@]}"
      bw_o=$(echo "if ($o_wall < $bw_o) $o_wall else $bw_o" | bc -l)
      bw_t=$(echo "if ($t_wall < $bw_t) $t_wall else $bw_t" | bc -l)
      bc_o=$(echo "if ($o_cpu < $bc_o) $o_cpu else $bc_o" | bc -l)
      bc_t=$(echo "if ($t_cpu < $bc_t) $t_cpu else $bc_t" | bc -l)
    done
    printf '%s (best of 3): ours %.2f s wall %.2f s CPU, ffmpeg %.2f s wall %.2f s CPU; ratio wall %s, CPU %s (target <= 1.0)\n' \
      "$label" "$bw_o" "$bc_o" "$bw_t" "$bc_t" "$(ratio "$bw_o" "$bw_t")" "$(ratio "$bc_o" "$bc_t")"
    printf '  peak RSS: ours %s KiB, ffmpeg %s KiB\n' "$o_rss" "$t_rss"
  }
  hashes() { ffmpeg -nostdin -v error -i "$1" -map 0:v -map 0:a -c copy -f streamhash -hash md5 - | tr '\n' ' '; }
  echo "== transcode: Render's Transcoder vs ffmpeg -c:v libx264 -preset veryfast -crf 23 -c:a aac -threads 2"
  compare "transcode" \
    "$render" transcode "$work/render.mp4" "$work/ours.mp4" --preset veryfast --crf 23 --threads 2 \
      --sample-rate 44100 --channels 1 -- \
    ffmpeg -nostdin -v error -y -i "$work/render.mp4" -c:v libx264 -preset veryfast -crf 23 \
      -c:a aac -threads 2 "$work/ffmpeg.mp4"
  [ "$(hashes "$work/ours.mp4")" = "$(hashes "$work/ffmpeg.mp4")" ] \
    && echo "  outputs: identical packets (the same settings)" || echo "  outputs: PACKETS DIFFER"
  echo "== remux: Render's Remuxer vs ffmpeg -c copy -movflags +faststart (MKV -> MP4)"
  compare "remux" \
    "$render" remux "$work/render.mkv" "$work/ours.mp4" --faststart -- \
    ffmpeg -nostdin -v error -y -i "$work/render.mkv" -map 0:v -map 0:a -c copy -movflags +faststart \
      "$work/ffmpeg.mp4"
  [ "$(hashes "$work/ours.mp4")" = "$(hashes "$work/ffmpeg.mp4")" ] \
    && echo "  outputs: identical packets" || echo "  outputs: PACKETS DIFFER"
  rm -f "$work"/ours.mp4 "$work"/ffmpeg.mp4
}

bench_fix() {
  local compat="$bin/mediacompat"
  local seconds=${FIX_BENCH_SECONDS:-60}
  echo "== making the inputs: ${seconds} s 1080p25 H.264 (20 Mb/s) + AAC MKV, 60 s H.264 + AC-3 5.1 MKV, 10 s 720p HEVC MP4"
  ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=1920x1080:rate=25" -f lavfi -i sine=f=440 \
    -t "$seconds" -c:v libx264 -preset ultrafast -b:v 20M -c:a aac "$work/remux.mkv"
  ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=1280x720:rate=25" \
    -f lavfi -i "sine=f=440:sample_rate=48000" -t 60 -c:v libx264 -preset ultrafast -c:a ac3 -ac 6 \
    "$work/audio.mkv"
  ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=1280x720:rate=25" -f lavfi -i sine=f=440 \
    -t 10 -c:v libx265 -preset ultrafast -x265-params log-level=error -c:a aac "$work/video.mp4"
  ls -l "$work"/remux.mkv "$work"/audio.mkv "$work"/video.mp4 | awk '{ print "  " $5 " bytes " $9 }'
  run_fix() {  # label platform-arguments... -- input
    local label=$1; shift
    local args=() input
    while [ "$1" != "--" ]; do args+=("$1"); shift; done
    input=$2
    # The ffmpeg command of the same plan, as --suggest prints it.
    local command
    command=$("$compat" --fix --dry-run --suggest --ndjson "${args[@]}" "$input" | jq -r .command)
    command=${command/ OUT./ $work\/ffmpeg.}
    command=${command/ffmpeg -nostdin/ffmpeg -nostdin -v error -y}
    local best_ours=999 best_render=999 best_theirs=999 rss_ours rss_theirs run
    for run in 1 2 3; do
      rm -f "$work"/fixed.* "$work"/ffmpeg.*
      /usr/bin/time -o "$work/time" -f "%e %M" "$compat" --fix --ndjson --no-sync "${args[@]}" \
        -o "$work/fixed.out" "$input" > "$work/report.json"
      read -r wall rss_ours < "$work/time"
      local render
      render=$(jq -r '.timings.render' "$work/report.json")
      best_ours=$(echo "if ($wall < $best_ours) $wall else $best_ours" | bc -l)
      best_render=$(echo "if ($render < $best_render) $render else $best_render" | bc -l)
      /usr/bin/time -o "$work/time" -f "%e %M" bash -c "$command" >/dev/null
      read -r wall rss_theirs < "$work/time"
      best_theirs=$(echo "if ($wall < $best_theirs) $wall else $best_theirs" | bc -l)
    done
    printf '%s (best of 3): fix %.2f s (render %.2f s), ffmpeg %.2f s; ratio render %s (target <= 1.0), whole fix with re-check %s\n' \
      "$label" "$best_ours" "$best_render" "$best_theirs" "$(ratio "$best_render" "$best_theirs")" \
      "$(ratio "$best_ours" "$best_theirs")"
    printf '  action %s; peak RSS: fix %s KiB, ffmpeg %s KiB\n' "$(jq -r .action "$work/report.json")" \
      "$rss_ours" "$rss_theirs"
    printf '  ffmpeg: %s\n' "$command"
  }
  run_fix "remux (${seconds} s 1080p MKV -> MP4, ios-17)" --platform ios-17 -- "$work/remux.mkv"
  run_fix "audio-only transcode (AC-3 5.1 -> AAC, chrome)" --platform chrome -- "$work/audio.mkv"
  run_fix "full transcode (HEVC -> H.264 CRF 23, firefox --strict)" --strict --platform firefox -- \
    "$work/video.mp4"
  rm -f "$work"/fixed.* "$work"/ffmpeg.* "$work"/remux.mkv
}

bench_compose() {
  local merge="$bin/mediamerge"
  echo "== making three 720p25 clips (testsrc2, mandelbrot, smptehdbars; 8, 8, 6 s; tones) and a 5 s music bed"
  local i=0 source seconds frequency
  for spec in testsrc2:8:440 mandelbrot:8:550 smptehdbars:6:660; do
    IFS=: read -r source seconds frequency <<<"$spec"
    ffmpeg -nostdin -v error -y -f lavfi -i "$source=size=1280x720:rate=25" \
      -f lavfi -i "sine=f=$frequency:r=48000" -t "$seconds" -c:v libx264 -preset veryfast \
      -pix_fmt yuv420p -c:a aac -ac 2 "$work/clip$i.mp4"
    i=$((i + 1))
  done
  ffmpeg -nostdin -v error -y -f lavfi -i "sine=f=220:r=48000" -t 5 -c:a aac -ac 2 "$work/music.m4a"
  cat > "$work/compose.json" <<'JSON'
{"version": 1, "size": "1280x720", "fps": 25,
 "clips": [{"source": "clip0.mp4"},
           {"source": "clip1.mp4", "transition": {"type": "crossfade", "duration": 1}},
           {"source": "clip2.mp4", "transition": {"type": "crossfade", "duration": 1}}],
 "audio": [{"source": "music.m4a", "loop": true, "volume": 0.3}]}
JSON
  local graph="[0:v]settb=1/25,fps=25,format=yuv420p[v0];[1:v]settb=1/25,fps=25,format=yuv420p[v1];"
  graph+="[2:v]settb=1/25,fps=25,format=yuv420p[v2];"
  graph+="[v0][v1]xfade=transition=fade:duration=1:offset=7[x1];[x1][v2]xfade=transition=fade:duration=1:offset=14,format=yuv420p[v];"
  graph+="[0:a][1:a]acrossfade=d=1:c1=tri:c2=tri[a01];[a01][2:a]acrossfade=d=1:c1=tri:c2=tri[clips];"
  graph+="[3:a]atrim=end=20,volume=0.3[bed];[clips][bed]amix=inputs=2:normalize=0:duration=first[a]"
  best_wall_o=999 best_wall_t=999 best_cpu_o=999 best_cpu_t=999
  local run
  for run in 1 2 3; do
    /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$merge" --composition "$work/compose.json" \
      -o "$work/ours.mp4" --force --no-sync -q > "$work/report.json"
    read -r wall user sys ours_rss < "$work/time"
    best_wall_o=$(echo "if ($wall < $best_wall_o) $wall else $best_wall_o" | bc -l)
    best_cpu_o=$(echo "if ($user + $sys < $best_cpu_o) $user + $sys else $best_cpu_o" | bc -l)
    /usr/bin/time -o "$work/time" -f "%e %U %S %M" ffmpeg -nostdin -v error -y \
      -i "$work/clip0.mp4" -i "$work/clip1.mp4" -i "$work/clip2.mp4" \
      -stream_loop -1 -i "$work/music.m4a" -filter_complex "$graph" -map "[v]" -map "[a]" \
      -c:v libx264 -preset veryfast -crf 20 -profile:v high -c:a aac -b:a 160k -ar 48000 -ac 2 \
      -movflags +faststart "$work/ffmpeg.mp4"
    read -r wall user sys theirs_rss < "$work/time"
    best_wall_t=$(echo "if ($wall < $best_wall_t) $wall else $best_wall_t" | bc -l)
    best_cpu_t=$(echo "if ($user + $sys < $best_cpu_t) $user + $sys else $best_cpu_t" | bc -l)
  done
  printf 'compose (best of 3): ours %.2f s wall %.2f s CPU, ffmpeg %.2f s wall %.2f s CPU; ratio wall %s, CPU %s (target <= 1.0)\n' \
    "$best_wall_o" "$best_cpu_o" "$best_wall_t" "$best_cpu_t" "$(ratio "$best_wall_o" "$best_wall_t")" \
    "$(ratio "$best_cpu_o" "$best_cpu_t")"
  printf '  peak RSS: ours %s KiB, ffmpeg %s KiB\n' "$ours_rss" "$theirs_rss"
  python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["render"]
s = r["stages"]
print("  our render %.2f s, check %.2f s (%.0f%% of the render); render thread: decode %.2f s, place %.2f s, "
      "blend %.2f s, video encode+mux %.2f s, audio %.2f s" % (
      r["render_seconds"], r["check"]["seconds"], 100 * r["check"]["seconds"] / r["render_seconds"],
      s["decode"], s["place"], s["blend"], s["encode_video"], s["audio"]))
PY
  for f in ours ffmpeg; do
    printf '  %s: %s\n' "$f" "$(ffprobe -v error -show_entries format=duration:stream=codec_name,nb_frames -of compact=p=0:nk=1 "$work/$f.mp4" | tr '\n' ' ')"
  done
  rm -f "$work"/ours.mp4 "$work"/ffmpeg.mp4
}

bench_looks() {
  local merge="$bin/mediamerge"
  MEDIATOOLS_BENCH=1 swift build -c release --static-swift-stdlib --product render-bench 2>&1 \
    | grep -E "error|warning: unre" >&2 || true
  local render="$bin/render-bench"
  [ -x "$render" ] || { echo "render-bench did not build" >&2; exit 1; }
  echo "== making a 20 s 1280x720 25 fps clip (testsrc2, BT.709-tagged, a tone)"
  ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=1280x720:rate=25" \
    -f lavfi -i "sine=f=440:r=48000" -t 20 -c:v libx264 -preset veryfast -pix_fmt yuv420p \
    -colorspace bt709 -color_primaries bt709 -color_trc bt709 -c:a aac -ac 2 "$work/look.mp4"
  cat > "$work/looks.json" <<'JSON'
{"version": 1, "size": "1280x720", "fps": 25,
 "clips": [{"source": "look.mp4", "filters": [
   {"name": "brightness", "brightness": 0.05}, {"name": "contrast", "contrast": 1.2},
   {"name": "saturation", "saturation": 0.8}, {"name": "sepia", "intensity": 0.6},
   {"name": "vignette", "center": [0.5, 0.5], "start": 0.3, "end": 0.75}]}]}
JSON
  # The same filters as the compositor runs them (LookFilters' chain, printed by render-bench).
  local chain
  chain=$("$render" looks "$work/looks.json" --matrix bt709)
  echo "== five looks (brightness, contrast, saturation, sepia, vignette) on the clip: mediamerge --composition vs ffmpeg -vf with the same chain, x264/AAC settings and threads"
  best_wall_o=999 best_wall_t=999 best_cpu_o=999 best_cpu_t=999
  local run wall user sys ours_rss theirs_rss
  for run in 1 2 3; do
    /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$merge" --composition "$work/looks.json" \
      -o "$work/ours.mp4" --force --no-sync -q > "$work/report.json"
    read -r wall user sys ours_rss < "$work/time"
    best_wall_o=$(echo "if ($wall < $best_wall_o) $wall else $best_wall_o" | bc -l)
    best_cpu_o=$(echo "if ($user + $sys < $best_cpu_o) $user + $sys else $best_cpu_o" | bc -l)
    /usr/bin/time -o "$work/time" -f "%e %U %S %M" ffmpeg -nostdin -v error -y \
      -i "$work/look.mp4" -vf "$chain" -c:v libx264 -preset veryfast -crf 20 -profile:v high \
      -c:a aac -b:a 160k -ar 48000 -ac 2 -movflags +faststart "$work/ffmpeg.mp4"
    read -r wall user sys theirs_rss < "$work/time"
    best_wall_t=$(echo "if ($wall < $best_wall_t) $wall else $best_wall_t" | bc -l)
    best_cpu_t=$(echo "if ($user + $sys < $best_cpu_t) $user + $sys else $best_cpu_t" | bc -l)
  done
  printf 'looks (best of 3): ours %.2f s wall %.2f s CPU, ffmpeg -vf %.2f s wall %.2f s CPU; ratio wall %s, CPU %s (target <= 1.0)\n' \
    "$best_wall_o" "$best_cpu_o" "$best_wall_t" "$best_cpu_t" "$(ratio "$best_wall_o" "$best_wall_t")" \
    "$(ratio "$best_cpu_o" "$best_cpu_t")"
  printf '  peak RSS: ours %s KiB, ffmpeg %s KiB; ours includes its self-check (%s s)\n' "$ours_rss" "$theirs_rss" \
    "$(python3 -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["render"]["check"]["seconds"])' "$work/report.json")"
  printf '  PSNR of ours against ffmpeg'"'"'s output: %s\n' \
    "$(ffmpeg -nostdin -v info -i "$work/ours.mp4" -i "$work/ffmpeg.mp4" -lavfi psnr -f null - 2>&1 | grep -o 'average:[0-9.inf]*' | tail -1)"
  rm -f "$work"/ours.mp4 "$work"/ffmpeg.mp4
}

# One --max-size case: $1 name, $2 lavfi source, $3 seconds, $4 source CRF, $5 cap in bytes.
export_size_case() {
  local name=$1 source=$2 seconds=$3 crf=$4 cap=$5 merge="$bin/mediamerge"
  echo "== $name: ${seconds} s of $source (x264 CRF $crf) and a tone, a $cap-byte cap"
  ffmpeg -nostdin -v error -y -f lavfi -i "$source" -f lavfi -i "sine=f=440:r=48000" \
    -t "$seconds" -c:v libx264 -preset veryfast -crf "$crf" -pix_fmt yuv420p -c:a aac -ac 2 \
    "$work/clip.mp4"
  local fps
  fps=$(ffprobe -v error -select_streams v -show_entries stream=r_frame_rate -of csv=p=0 "$work/clip.mp4" | bc -l)
  # SizeBudget's first rate: (97.5% of the cap - the MP4 overhead) * 8 / duration - the audio.
  local rate
  rate=$(echo "((${cap} * 0.975 - (1024 + ${seconds} * (16 * $fps + 8 * 48000 / 1024))) * 8 / ${seconds} - 160000) / 1" | bc)
  best_wall_o=999 best_wall_t=999 best_cpu_o=999 best_cpu_t=999
  local run
  for run in 1 2 3; do
    /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$merge" --max-size "$cap" "$work/clip.mp4" \
      -o "$work/ours.mp4" --force --no-sync 2> "$work/ours.log"
    read -r wall user sys ours_rss < "$work/time"
    best_wall_o=$(echo "if ($wall < $best_wall_o) $wall else $best_wall_o" | bc -l)
    best_cpu_o=$(echo "if ($user + $sys < $best_cpu_o) $user + $sys else $best_cpu_o" | bc -l)
    /usr/bin/time -o "$work/time" -f "%e %U %S %M" sh -c "
      ffmpeg -nostdin -v error -y -i '$work/clip.mp4' -c:v libx264 -preset veryfast -b:v $rate \
        -pass 1 -passlogfile '$work/pass' -an -f null /dev/null &&
      ffmpeg -nostdin -v error -y -i '$work/clip.mp4' -c:v libx264 -preset veryfast -b:v $rate \
        -pass 2 -passlogfile '$work/pass' -c:a aac -b:a 160k -ar 48000 -ac 2 \
        -movflags +faststart '$work/ffmpeg.mp4'"
    read -r wall user sys theirs_rss < "$work/time"
    best_wall_t=$(echo "if ($wall < $best_wall_t) $wall else $best_wall_t" | bc -l)
    best_cpu_t=$(echo "if ($user + $sys < $best_cpu_t) $user + $sys else $best_cpu_t" | bc -l)
  done
  printf 'export-size %s (best of 3, cap %s bytes): ours %.2f s wall %.2f s CPU, ffmpeg two-pass %.2f s wall %.2f s CPU; ratio wall %s, CPU %s (target <= 1.0)\n' \
    "$name" "$cap" "$best_wall_o" "$best_cpu_o" "$best_wall_t" "$best_cpu_t" \
    "$(ratio "$best_wall_o" "$best_wall_t")" "$(ratio "$best_cpu_o" "$best_cpu_t")"
  printf '  ours: %s' "$(grep '^size:' "$work/ours.log")"
  printf '\n  ffmpeg two-pass at %s b/s: %s bytes (%.1f%% of the cap)\n' "$rate" \
    "$(stat -c %s "$work/ffmpeg.mp4")" "$(echo "100 * $(stat -c %s "$work/ffmpeg.mp4") / $cap" | bc -l)"
  printf '  peak RSS: ours %s KiB, ffmpeg %s KiB\n' "$ours_rss" "$theirs_rss"
  rm -f "$work"/ours.mp4 "$work"/ffmpeg.mp4 "$work"/pass* "$work/clip.mp4"
}

bench_export_size() {
  [ -x "$bin/mediamerge" ] || swift build -c release --static-swift-stdlib --product mediamerge >/dev/null
  # The first pass lands (one pass).
  export_size_case "one pass lands" "testsrc2=size=1280x720:rate=25,noise=alls=12:allf=t" 20 10 4000000
  # The first pass misses (x264's one-pass ABR overshoots busy noise): a second pass, x264's
  # two-pass rate control on the first pass's statistics and replayed pictures.
  export_size_case "first pass misses, 720p" "testsrc2=size=1280x720:rate=25,noise=alls=30:allf=t" 10 20 2000000
  export_size_case "first pass misses, 320x240" "testsrc2=size=320x240:rate=25,noise=alls=100:allf=t" 6 10 300000
}

bench_frame() {
  local frame="$bin/mediaframe" ff=(ffmpeg -nostdin -v error -y)
  [ -x "$frame" ] || swift build -c release --static-swift-stdlib --product mediaframe >/dev/null
  echo "== making a 60 s 1280x720 25 fps H.264 clip and a 10 min 640x360 one (x264 ultrafast, a keyframe every 250 frames)"
  "${ff[@]}" -f lavfi -i "testsrc2=size=1280x720:rate=25:duration=60" -c:v libx264 -preset ultrafast \
    -pix_fmt yuv420p "$work/720p.mp4"
  "${ff[@]}" -f lavfi -i "testsrc2=size=640x360:rate=25:duration=600" -c:v libx264 -preset ultrafast \
    -pix_fmt yuv420p "$work/10min.mp4"
  local times=() i
  for i in $(seq 0 19); do times+=("$(echo "($i + 0.5) * 3" | bc -l)"); done
  best3() { local best=999 t0 t1 d; for _ in 1 2 3; do t0=$EPOCHREALTIME; "$@" >/dev/null 2>&1 || true; t1=$EPOCHREALTIME; d=$(elapsed "$t0" "$t1"); best=$(echo "if ($d < $best) $d else $best" | bc -l); done; echo "$best"; }
  ffmpeg_loop() { local i=0 t; for t in "${times[@]}"; do "${ff[@]}" -ss "$t" -i "$work/720p.mp4" -frames:v 1 -vf scale=160:-2 "$work/ff_$i.jpg"; i=$((i + 1)); done; }
  thumbnailer_loop() { local i=0 t; for t in "${times[@]}"; do ffmpegthumbnailer -i "$work/720p.mp4" -o "$work/th_$i.jpg" -s 160 -t "$(printf '00:00:%02d' "${t%.*}")" 2>/dev/null; i=$((i + 1)); done; }
  echo "== 20 thumbnails (160 px) of the 60 s clip, at the middles of 20 equal parts (best of 3)"
  local ours keys theirs thumbs
  ours=$(best3 "$frame" "$work/720p.mp4" --count 20 --max-size 160x160 --force --no-sync -o "$work/mf_%02d.jpg")
  keys=$(best3 "$frame" "$work/720p.mp4" --count 20 --tolerance 5 --max-size 160x160 --force --no-sync -o "$work/mk_%02d.jpg")
  theirs=$(best3 ffmpeg_loop)
  printf 'exact: mediaframe --count 20 %.3f s; 20 x ffmpeg -ss T -i F -frames:v 1 %.3f s; ffmpeg / mediaframe = %.1fx\n' \
    "$ours" "$theirs" "$(echo "$theirs / $ours" | bc -l)"
  if command -v ffmpegthumbnailer >/dev/null; then
    thumbs=$(best3 thumbnailer_loop)
    printf 'keyframes: mediaframe --count 20 --tolerance 5 %.3f s; 20 x ffmpegthumbnailer -s 160 -t T %.3f s; ffmpegthumbnailer / mediaframe = %.1fx\n' \
      "$keys" "$thumbs" "$(echo "$thumbs / $keys" | bc -l)"
  fi
  echo "== one poster (160 px, at 0.5 s) of each of 200 files: small clips (320x240 H.264), then the fixtures (up to 4K HEVC)"
  echo "   (each decode stops at the poster's packet; --jobs 2 starts the largest files first; wall best of 3, then CPU of one run each)"
  mkdir -p "$work/posters" "$work/small" "$work/mixed"
  mapfile -t clips < <(ls Tests/Fixtures/*.mp4 Tests/Fixtures/*.mkv | grep -v hostile_ | grep -v fragmented_partial)
  for i in $(seq 0 199); do
    cp Tests/Fixtures/h264_25fps.mp4 "$work/small/$(printf '%03d' "$i").mp4"
    cp "${clips[$((i % ${#clips[@]}))]}" "$work/mixed/$(printf '%03d' "$i")_$(basename "${clips[$((i % ${#clips[@]}))]}")"
  done
  posters_loop() { local f; for f in "$1"/*; do "${ff[@]}" -ss 0.5 -i "$f" -frames:v 1 -vf scale=160:-2 "$work/posters/ff.jpg"; done; }
  # User + system seconds of one run (children included): what other agents' load moves least.
  cpu_of() { local TIMEFORMAT='%U %S'; { time "$@" >/dev/null 2>&1 || true; } 2>&1 | awk '{ print $1 + $2 }'; }
  local set one two cpu1 cpu2 cpuff
  for set in small mixed; do
    one=$(best3 "$frame" --jobs 1 --at 0.5 --max-size 160x160 --force --no-sync --output-dir "$work/posters" "$work/$set"/*)
    two=$(best3 "$frame" --jobs 2 --at 0.5 --max-size 160x160 --force --no-sync --output-dir "$work/posters" "$work/$set"/*)
    theirs=$(best3 posters_loop "$work/$set")
    printf '%s: mediaframe --jobs 1 %.3f s, --jobs 2 %.3f s; ffmpeg loop %.3f s; loop / mediaframe = %.1fx (--jobs 1), %.1fx (--jobs 2) (target >= 10x)\n' \
      "$set" "$one" "$two" "$theirs" "$(echo "$theirs / $one" | bc -l)" "$(echo "$theirs / $two" | bc -l)"
    cpu1=$(cpu_of "$frame" --jobs 1 --at 0.5 --max-size 160x160 --force --no-sync --output-dir "$work/posters" "$work/$set"/*)
    cpu2=$(cpu_of "$frame" --jobs 2 --at 0.5 --max-size 160x160 --force --no-sync --output-dir "$work/posters" "$work/$set"/*)
    cpuff=$(cpu_of posters_loop "$work/$set")
    printf '%s CPU: mediaframe --jobs 1 %.2f s, --jobs 2 %.2f s; ffmpeg loop %.2f s; loop / mediaframe = %.1fx, %.1fx\n' \
      "$set" "$cpu1" "$cpu2" "$cpuff" "$(echo "$cpuff / $cpu1" | bc -l)" "$(echo "$cpuff / $cpu2" | bc -l)"
  done
  echo "== a 10x10 contact sheet (160 px tiles) of the 10 min clip"
  ours=$(best3 "$frame" "$work/10min.mp4" --sheet 10x10 --max-size 160x160 --force --no-sync -o "$work/sheet.jpg")
  local exact
  exact=$(best3 "$frame" "$work/10min.mp4" --sheet 10x10 --tolerance 0 --max-size 160x160 --force --no-sync -o "$work/sheet0.jpg")
  theirs=$(best3 "${ff[@]}" -i "$work/10min.mp4" -vf "fps=100/600,scale=160:-2,tile=10x10" -frames:v 1 "$work/ff_sheet.jpg")
  printf 'mediaframe --sheet 10x10 %.3f s (every tile exact: %.3f s); ffmpeg fps,scale,tile %.3f s; ratio %s (target <= 0.3), exact %s\n' \
    "$ours" "$exact" "$theirs" "$(ratio "$ours" "$theirs")" "$(ratio "$exact" "$theirs")"
  # The issue's file: one hour of 1080p25 H.264 (x264 ultrafast CRF 30, 8 Mbit/s: 3.8 GB; a
  # keyframe every 250 frames),
  # made once by construction (a minute of testsrc2, then the same packets looped 60 times with
  # -stream_loop -c copy: continuous timestamps) and kept in the cache between runs (not
  # committed; FRAME_BENCH_CACHE names another place).
  local cache=${FRAME_BENCH_CACHE:-.build/bench-cache}
  mkdir -p "$cache"
  if [ ! -s "$cache/1080p_1h.mp4" ]; then
    echo "== making one hour of 1080p25 H.264 in $cache (once)"
    "${ff[@]}" -f lavfi -i "testsrc2=size=1920x1080:rate=25:duration=60" -c:v libx264 -preset ultrafast \
      -crf 30 -g 250 -pix_fmt yuv420p "$cache/1080p_1min.mp4"
    "${ff[@]}" -stream_loop 59 -i "$cache/1080p_1min.mp4" -c copy "$cache/1080p_1h.mp4"
  fi
  echo "== a 10x10 contact sheet (160 px tiles) of one hour of 1080p (ffmpeg once: it decodes the hour)"
  ours=$(best3 "$frame" "$cache/1080p_1h.mp4" --sheet 10x10 --max-size 160x160 --force --no-sync -o "$work/sheet1h.jpg")
  exact=$(best3 "$frame" "$cache/1080p_1h.mp4" --sheet 10x10 --tolerance 0 --max-size 160x160 --force --no-sync -o "$work/sheet1h0.jpg")
  local t0 t1
  t0=$EPOCHREALTIME
  "${ff[@]}" -i "$cache/1080p_1h.mp4" -vf "fps=100/3600,scale=160:-2,tile=10x10" -frames:v 1 "$work/ff_sheet1h.jpg"
  t1=$EPOCHREALTIME
  theirs=$(elapsed "$t0" "$t1")
  printf 'mediaframe --sheet 10x10 %.3f s (every tile exact: %.3f s); ffmpeg fps,scale,tile %.3f s; ratio %s (target <= 0.3), exact %s\n' \
    "$ours" "$exact" "$theirs" "$(ratio "$ours" "$theirs")" "$(ratio "$exact" "$theirs")"
  make_aac
  # The same sound coded without perceptual noise substitution: FFmpeg's AAC encoder codes noise
  # bands even in these tones, which a chunk cannot decode exactly (docs/mediaframe.md), so the
  # default files take one pass and these are cut into one chunk per core.
  local minutes
  for minutes in 1 30 60; do
    "${ff[@]}" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$((minutes * 60))" \
      -f lavfi -i "sine=frequency=660:sample_rate=48000:duration=$((minutes * 60))" \
      -filter_complex amerge -c:a aac -aac_pns 0 -b:a 128k "$work/${minutes}_nopns.m4a"
  done
  local floor chunks name bare
  floor=$(best3 "${ff[@]}" -threads 1 -i "$work/30.m4a" -f null -)
  # The decode and nothing else: av_read_frame, avcodec_send_packet and avcodec_receive_frame on
  # one thread (no conversion, no bins), the floor of a one-pass waveform.
  cat >"$work/decode_floor.c" <<'C'
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
int main(int argc, char **argv) {
  AVFormatContext *fmt = NULL;
  if (argc < 2 || avformat_open_input(&fmt, argv[1], NULL, NULL) < 0 || avformat_find_stream_info(fmt, NULL) < 0) return 1;
  int si = av_find_best_stream(fmt, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0);
  if (si < 0) return 1;
  const AVCodec *codec = avcodec_find_decoder(fmt->streams[si]->codecpar->codec_id);
  AVCodecContext *ctx = avcodec_alloc_context3(codec);
  avcodec_parameters_to_context(ctx, fmt->streams[si]->codecpar);
  ctx->thread_count = 1;
  if (avcodec_open2(ctx, codec, NULL) < 0) return 1;
  for (unsigned i = 0; i < fmt->nb_streams; i++) if ((int)i != si) fmt->streams[i]->discard = AVDISCARD_ALL;
  AVPacket *pkt = av_packet_alloc(); AVFrame *frame = av_frame_alloc(); long samples = 0;
  while (av_read_frame(fmt, pkt) >= 0) {
    if (pkt->stream_index == si && avcodec_send_packet(ctx, pkt) >= 0)
      while (avcodec_receive_frame(ctx, frame) >= 0) { samples += frame->nb_samples; av_frame_unref(frame); }
    av_packet_unref(pkt);
  }
  avcodec_send_packet(ctx, NULL);
  while (avcodec_receive_frame(ctx, frame) >= 0) { samples += frame->nb_samples; av_frame_unref(frame); }
  printf("%ld\n", samples);
  return 0;
}
C
  gcc -O2 -o "$work/decode_floor" "$work/decode_floor.c" $(pkg-config --cflags --libs libavformat libavcodec libavutil)
  bare=$(best3 "$work/decode_floor" "$work/30.m4a")
  echo "== the waveform (PNG) of 30 minutes of AAC against showwavespic (best of 3); the decode alone: ffmpeg -threads 1 -f null $(printf '%.3f' "$floor") s, send/receive only (C) $(printf '%.3f' "$bare") s"
  for name in 30 30_nopns; do
    ours=$(best3 "$frame" "$work/$name.m4a" --waveform "$work/w.png" --force --no-sync)
    chunks=$("$frame" "$work/$name.m4a" --waveform "$work/w.png" --force --no-sync | jq .chunks)
    theirs=$(best3 "${ff[@]}" -i "$work/$name.m4a" -filter_complex "showwavespic=s=1000x200" -frames:v 1 "$work/ff_w.png")
    printf '%s.m4a: mediaframe --waveform .png %.3f s (%s chunks); ffmpeg showwavespic %.3f s; ratio %s (target <= 0.5); mediaframe / ffmpeg -f null = %s, / send-receive = %s\n' \
      "$name" "$ours" "$chunks" "$theirs" "$(ratio "$ours" "$theirs")" "$(ratio "$ours" "$floor")" "$(ratio "$ours" "$bare")"
  done
  echo "== peak RSS (KiB) for 1 and 60 minutes of AAC"
  local kind small large
  for name in "" _nopns; do
    for kind in png dat; do
      small=$(peak_kib "$frame" "$work/1$name.m4a" --waveform "$work/w1.$kind" --force --no-sync)
      large=$(peak_kib "$frame" "$work/60$name.m4a" --waveform "$work/w60.$kind" --force --no-sync)
      printf 'mediaframe --waveform .%s of %s: 1 min %s, 60 min %s (+%s; the 60 min output itself: %s KiB)\n' \
        "$kind" "$([ -z "$name" ] && echo "FFmpeg's default AAC (one pass)" || echo "AAC without PNS (chunks)")" "$small" "$large" "$((large - small))" "$(( $(stat -c %s "$work/w60.$kind") / 1024 ))"
    done
  done
  small=$(peak_kib ffmpeg -nostdin -v error -threads 1 -i "$work/1.m4a" -f null -)
  large=$(peak_kib ffmpeg -nostdin -v error -threads 1 -i "$work/60.m4a" -f null -)
  printf 'ffmpeg -threads 1 -f null (the decode alone): 1 min %s, 60 min %s (+%s)\n' "$small" "$large" "$((large - small))"
  small=$(peak_kib "${ff[@]}" -i "$work/1.m4a" -filter_complex "showwavespic=s=1000x200" -frames:v 1 "$work/ff_w.png")
  large=$(peak_kib "${ff[@]}" -i "$work/60.m4a" -filter_complex "showwavespic=s=1000x200" -frames:v 1 "$work/ff_w.png")
  printf 'ffmpeg showwavespic: 1 min %s, 60 min %s (+%s)\n' "$small" "$large" "$((large - small))"
}

bench_remote() {
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "remote: no nginx (Scripts/setup.sh)"; return; }
  local nginx_bin; nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
  mkdir -p "$work/www" "$work/nginx"
  # The six formats of NetworkTests' RemoteCostTests, made with the ffmpeg CLI.
  local v=(-f lavfi -i testsrc2=size=640x480:rate=25 -f lavfi -i sine=frequency=440:sample_rate=48000 -t 8 -c:v libx264 -preset ultrafast -b:v 2M)
  ffmpeg -nostdin -v error -y "${v[@]}" -c:a aac -movflags +faststart "$work/src-first.mp4"
  ffmpeg -nostdin -v error -y "${v[@]}" -c:a aac "$work/src-last.mp4"
  ffmpeg -nostdin -v error -y "${v[@]}" -c:a libvorbis "$work/src.mkv"
  ffmpeg -nostdin -v error -y "${v[@]}" -c:a mp2 "$work/src.ts"
  ffmpeg -nostdin -v error -y -f lavfi -i sine=frequency=440:sample_rate=44100 -f lavfi -i testsrc2=size=300x300:rate=1 \
    -t 120 -map 0 -map 1:v -frames:v 1 -c:a libmp3lame -b:a 128k -c:v png -disposition:v attached_pic \
    -id3v2_version 3 -write_id3v1 1 "$work/src.mp3"
  ffmpeg -nostdin -v error -y -f lavfi -i sine=frequency=440:sample_rate=48000 -ac 2 -t 30 -c:a pcm_s16le "$work/src.wav"
  local sources=("$work"/src-first.mp4 "$work"/src-last.mp4 "$work"/src.mkv "$work"/src.ts "$work"/src.mp3 "$work"/src.wav)
  local port; port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  local urls=() local_read=0 i src name
  for i in $(seq 0 199); do
    src=${sources[$((i % ${#sources[@]}))]}
    name=$(printf '%03d_%s' "$i" "$(basename "$src")")
    ln "$src" "$work/www/$name"
    urls+=("http://127.0.0.1:$port/$name")
  done
  local_read=$("$probe" -j 2 --ndjson "$work"/www/* | jq -s 'map(.bytes_read) | add')
  cat > "$work/nginx/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 256; }
http {
  log_format cost '\$request_uri|\$http_range|\$status|\$bytes_sent';
  access_log $work/nginx/access.log cost;
  client_body_temp_path $work/nginx/body; proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi; uwsgi_temp_path $work/nginx/uwsgi; scgi_temp_path $work/nginx/scgi;
  server { listen 127.0.0.1:$port; root $work/www; }
}
CONF
  "$nginx_bin" -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
  local nginx_pid=$!
  for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
  served() { awk -F'|' '{ b += $4; n++ } END { printf "%d bytes sent in %d requests", b, n }' "$work/nginx/access.log"; }
  echo "== 200 remote probes on nginx (6 formats; the local probes of the same files read $local_read bytes)"
  : > "$work/nginx/access.log"
  local t0=$EPOCHREALTIME
  "$probe" --allow-network -j 2 --ndjson "${urls[@]}" > "$work/remote.ndjson"
  local t1=$EPOCHREALTIME
  sleep 0.5
  echo "  mediaprobe (one call, -j 2): $(printf '%.2f' "$(elapsed "$t0" "$t1")") s, $(served)," \
    "$(jq -r 'select(.error) | .path' "$work/remote.ndjson" | wc -l) errors"
  : > "$work/nginx/access.log"
  t0=$EPOCHREALTIME
  for url in "${urls[@]}"; do ffprobe -v error -show_format -show_streams "$url" > /dev/null; done
  t1=$EPOCHREALTIME
  sleep 0.5
  echo "  ffprobe (one per URL):       $(printf '%.2f' "$(elapsed "$t0" "$t1")") s, $(served)"
  kill -9 "$nginx_pid" 2>/dev/null || true
  wait "$nginx_pid" 2>/dev/null || true
}

case "$which" in
  mediaprobe) bench_mediaprobe ;;
  media2wav) bench_media2wav ;;
  verify) bench_verify ;;
  mix) bench_mix ;;
  loudness) bench_loudness ;;
  render) bench_render ;;
  fix) bench_fix ;;
  compose) bench_compose ;;
  looks) bench_looks ;;
  export-size) bench_export_size ;;
  frame) bench_frame ;;
  remote) bench_remote ;;
  all) bench_mediaprobe; bench_media2wav; bench_verify; bench_mix; bench_loudness; bench_render; bench_fix; bench_compose; bench_looks; bench_export_size; bench_frame; bench_remote ;;
  *) echo "usage: Scripts/bench.sh [mediaprobe|media2wav|verify|mix|loudness|render|fix|compose|looks|export-size|frame|remote]" >&2; exit 64 ;;
esac
