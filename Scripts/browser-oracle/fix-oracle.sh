#!/usr/bin/env bash
# The real-browser oracle of `mediacompat --fix` (issue 23): every corpus file a browser refuses
# must play in that browser after `mediacompat --fix --strict --platform <browser>`, and
# mediacompat must not pass a fixed output that does not play (0 false passes).
#
# 1. make-corpus.sh, then oracle.py plays the corpus and writes which files each browser
#    refused;
# 2. each refused file is fixed for that browser (--strict: a WARN such as HEVC in Chromium,
#    which plays only with a hardware decoder, is fixed too), the NDJSON kept;
# 3. oracle.py plays the fixed outputs in that browser with --require-all-play.
# Files the fix refuses (with their code) are listed; they are not counted as played.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=.build/fix-oracle
corpus=.build/browser-corpus
mediacompat="$(swift build --show-bin-path)/mediacompat"
rm -rf "$work"
mkdir -p "$work"
if [[ ! -d "$corpus" ]]; then
  Scripts/browser-oracle/make-corpus.sh "$corpus" >/dev/null
fi
python3 Scripts/browser-oracle/oracle.py --corpus "$corpus" --mediacompat "$mediacompat" \
  --refused "$work/refused.json" "$@" || true
status=0
for browser in chromium firefox; do
  platform=$([[ $browser == chromium ]] && echo chrome || echo firefox)
  mapfile -t refused < <(python3 -c "import json,sys; print('\n'.join(json.load(open(sys.argv[1])).get(sys.argv[2], [])))" "$work/refused.json" "$browser")
  [[ ${#refused[@]} -gt 0 && -n "${refused[0]}" ]] || continue
  mkdir -p "$work/$browser"
  # One call per file, each into its own directory (alac.caf and alac.m4a both become
  # alac.m4a), then flattened as NAME.EXT.FIXEDEXT for the player.
  : > "$work/$browser.ndjson"
  for name in "${refused[@]}"; do mkdir -p "$work/$browser.out/$name"; done
  for name in "${refused[@]}"; do
    "$mediacompat" --fix --strict --ndjson --platform "$platform" \
      --output-dir "$work/$browser.out/$name" --no-sync "$corpus/$name" \
      >> "$work/$browser.ndjson" 2>/dev/null || true
  done
  for fixed in "$work/$browser.out"/*/*; do
    [[ -e "$fixed" ]] || continue
    source_name=$(basename "$(dirname "$fixed")")
    mv "$fixed" "$work/$browser/$source_name.${fixed##*.}"
  done
  python3 - "$work/$browser.ndjson" "$browser" <<'PY'
import json, sys
records = [json.loads(l) for l in open(sys.argv[1])]
fixed = [r for r in records if r["status"] == "fixed"]
failed = [r for r in records if r["status"] == "failed"]
actions = {}
for r in fixed:
    actions[r["action"]] = actions.get(r["action"], 0) + 1
print(f"{sys.argv[2]}: {len(records)} refused files, {len(fixed)} fixed {actions}, "
      f"{len(failed)} not fixable")
for r in failed:
    print(f"  not fixed  {r['path']}: {r['error']['code']}: {r['error']['message']}")
PY
  if compgen -G "$work/$browser/*" >/dev/null; then
    python3 Scripts/browser-oracle/oracle.py --corpus "$work/$browser" --mediacompat "$mediacompat" \
      --browsers "$browser" --require-all-play "$@" || status=1
  fi
done
exit $status
