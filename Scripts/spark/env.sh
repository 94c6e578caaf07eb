# Sourced by Scripts/spark/test.sh and bench.sh: runs Scripts/setup.sh (which installs Java 17
# and the pinned PyPI packages of integrations/spark/requirements.txt into a cached virtual
# environment, only what is missing) and sets JAVA_HOME, SPARK_PY (the Python with PySpark) and
# MEDIAPROBE (the release binary, built if out of date, unless MEDIAPROBE is already set).

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
"$repo/Scripts/setup.sh"
export JAVA_HOME=/usr/lib/jvm/java-17-openjdk-$(dpkg --print-architecture)
requirements="$repo/integrations/spark/requirements.txt"
cache=${MEDIATOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mediatools}
export SPARK_PY="$cache/spark-venv-$(sha256sum "$requirements" | cut -c1-12)/bin/python"
export PYSPARK_PYTHON="$SPARK_PY"

if [ -z "${MEDIAPROBE:-}" ]; then
  (cd "$repo" && swift build -c release --static-swift-stdlib >&2)
  MEDIAPROBE="$(cd "$repo" && swift build -c release --static-swift-stdlib --show-bin-path)/mediaprobe"
fi
export MEDIAPROBE
