#!/usr/bin/env bash
# Mutates every fixture (bit flips, truncation, overwritten and deleted ranges; seeded, so a run
# can be repeated) and runs the three tools on each mutant. Any exit by a signal, or a hang past
# 20 s, is a bug; the mutant is kept in $TMPDIR for a regression fixture.
#   Scripts/fuzz.sh [SEED] [MUTANTS_PER_FIXTURE]     (make fuzz; uses the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
seed=${1:-23}
per=${2:-8}
bin=$(swift build -c release --static-swift-stdlib --show-bin-path)
work=$(mktemp -d "${TMPDIR:-/tmp}/mediatools-fuzz.XXXXXX")
python3 - "$seed" "$per" "$work" <<'PY'
import os, random, sys
seed, per, work = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
random.seed(seed)
src = "Tests/Fixtures"
n = 0
for name in sorted(os.listdir(src)):
    data = open(os.path.join(src, name), "rb").read()
    if not data:
        continue
    for k in range(per):
        d = bytearray(data)
        mode = k % 4
        if mode == 0:
            for _ in range(max(1, len(d) // 200)):
                d[random.randrange(len(d))] = random.getrandbits(8)
        elif mode == 1:
            d = d[:random.randrange(1, len(d))]
        elif mode == 2:
            i = random.randrange(len(d))
            d[i:i + 256] = bytes(random.getrandbits(8) for _ in range(256))
        else:
            i, j = random.randrange(len(d)), random.randrange(len(d))
            d = d[:i] + d[j:]
        open(os.path.join(work, f"m{n:05d}{os.path.splitext(name)[1]}"), "wb").write(d)
        n += 1
PY
failures=0
for mutant in "$work"/m*; do
  for cmd in "mediaprobe --scan" "media2wav -q --force --format s24 --rate 22050 -o $work/out.wav" "mediacompat -q --suggest"; do
    set +e
    # shellcheck disable=SC2086
    timeout 20 "$bin/${cmd%% *}" ${cmd#* } "$mutant" >/dev/null 2>&1
    rc=$?
    set -e
    if [ $rc -ge 124 ]; then
      echo "FAIL (exit $rc): ${cmd%% *} $mutant" >&2
      failures=$((failures + 1))
    fi
  done
done
count=$(ls "$work"/m* | wc -l)
if [ $failures -eq 0 ]; then
  echo "fuzz: $count mutants x 3 tools, no crash or hang (seed $seed)"
  rm -rf "$work"
else
  echo "fuzz: $failures failures; mutants kept in $work" >&2
  exit 1
fi
