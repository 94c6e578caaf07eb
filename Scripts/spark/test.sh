#!/usr/bin/env bash
# make test-spark: probe the fixtures and a generated list of 10,000 paths with Spark local[2]
# (integrations/spark), compare every row with direct mediaprobe output, write Parquet and read
# it back; check the policies (exit status, stalls, misaligned output, strict schema).
#
#   Scripts/spark/test.sh            the full case (10,000 paths)
#   Scripts/spark/test.sh --small    the CI-sized case (1,000 paths)
#   SPARK_TEST_PATHS=N Scripts/spark/test.sh     any size
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = "--small" ]; then
  export SPARK_TEST_PATHS=${SPARK_TEST_PATHS:-1000}
  shift
fi
export SPARK_TEST_PATHS=${SPARK_TEST_PATHS:-10000}
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in the work tree
source Scripts/spark/env.sh

"$SPARK_PY" -m pyflakes integrations/spark
exec "$SPARK_PY" -m pytest -q -p no:cacheprovider --durations=5 integrations/spark/tests "$@"
