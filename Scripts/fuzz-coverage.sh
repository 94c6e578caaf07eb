#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer, with AddressSanitizer) of the probe and the decoder for a
# fixed time: builds Sources/mediatools-fuzz with `swift build --sanitize=fuzzer,address` in its
# own build folder (.build/fuzz; ordinary builds never see the target), seeds it with the fixtures
# and regression inputs, keeps its corpus in .build/fuzz-corpus between runs, and copies every
# crashing, leaking or timing-out input it finds to Tests/Regressions for a regression test.
#   Scripts/fuzz-coverage.sh [SECONDS]        (make fuzz; default 300)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
export MEDIATOOLS_FUZZ=1
scratch=.build/fuzz
swift build --scratch-path "$scratch" -c release --product mediatools-fuzz \
  --sanitize=fuzzer --sanitize=address -Xswiftc -DLIBFUZZER 2>&1 | grep -v "Cannot export local symbol" | tail -1
fuzzer="$(swift build --scratch-path "$scratch" -c release --show-bin-path)/mediatools-fuzz"
corpus=.build/fuzz-corpus
artifacts=$(mktemp -d "${TMPDIR:-/tmp}/mediatools-libfuzzer.XXXXXX")
mkdir -p "$corpus"
set +e
ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$fuzzer" \
  -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=262144 \
  -print_final_stats=1 -artifact_prefix="$artifacts/" \
  "$corpus" Tests/Fixtures Tests/Regressions 2> "$artifacts/log.txt"
status=$?
set -e
grep -E "^(Done|stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb)|#[0-9]+ +DONE" \
  "$artifacts/log.txt" | sed 's/^/libfuzzer: /'
found=$(find "$artifacts" -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' | sort)
if [ -n "$found" ]; then
  for input in $found; do cp "$input" "Tests/Regressions/libfuzzer-$(basename "$input")"; done
  tail -60 "$artifacts/log.txt" >&2
  echo "libfuzzer: $(echo "$found" | wc -l) failing inputs copied to Tests/Regressions/libfuzzer-*" >&2
  exit 1
fi
[ "$status" -eq 0 ] || { tail -40 "$artifacts/log.txt" >&2; exit "$status"; }
echo "libfuzzer: no crash, leak or timeout in $seconds s (corpus: $(ls "$corpus" | wc -l) inputs)"
rm -rf "$artifacts"
