#!/usr/bin/env bash
# `make test-browsers` (and so `make test`): generates the corpus into .build/browser-corpus and
# plays it in headless Chromium and Firefox ESR, comparing with the built mediacompat. Extra
# arguments go to oracle.py (--verbose lists every file).
set -euo pipefail
cd "$(dirname "$0")/../.."
corpus=.build/browser-corpus
rm -rf "$corpus"
Scripts/browser-oracle/make-corpus.sh "$corpus" >/dev/null
exec python3 Scripts/browser-oracle/oracle.py --corpus "$corpus" \
  --mediacompat "$(swift build --show-bin-path)/mediacompat" "$@"
