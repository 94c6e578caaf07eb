#!/usr/bin/env bash
# Spark local[2] over 10,000 paths against one direct `mediaprobe --files-from` call: wall times,
# files/s, where the overhead goes (JVM and session start, the first Python worker, the Arrow
# pipe, per-partition processes), peak memory. See Scripts/spark/bench.py.
#
#   Scripts/spark/bench.sh [--paths N] [--runs R]
set -euo pipefail
cd "$(dirname "$0")/../.."
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in the work tree
source Scripts/spark/env.sh
command -v /usr/bin/time >/dev/null || { echo "bench: needs /usr/bin/time (make setup)" >&2; exit 1; }
exec "$SPARK_PY" Scripts/spark/bench.py "$@"
