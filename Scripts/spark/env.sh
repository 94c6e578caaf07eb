# Sourced by Scripts/spark/test.sh and bench.sh: installs what Spark needs, only what is missing,
# and sets JAVA_HOME, SPARK_PY (the Python with PySpark) and MEDIAPROBE (the release binary).
#
# - Java 17: Debian's openjdk-17-jre-headless (apt-get; Spark 4 needs Java 17+).
# - PySpark and the rest of integrations/spark/requirements.txt (pinned): into a virtual
#   environment under $MEDIATOOLS_CACHE (default ~/.cache/mediatools), one per version of the
#   requirements, so nothing is installed into the system's Python.
# - mediaprobe: the release build (swift build does nothing when it is up to date).

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

apt_install() {
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

if ! dpkg-query -W -f='${Status}' openjdk-17-jre-headless 2>/dev/null | grep -q 'install ok installed'; then
  echo "spark: installing openjdk-17-jre-headless" >&2
  apt_install openjdk-17-jre-headless
fi
export JAVA_HOME=/usr/lib/jvm/java-17-openjdk-$(dpkg --print-architecture)

requirements="$repo/integrations/spark/requirements.txt"
cache=${MEDIATOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mediatools}
venv="$cache/spark-venv-$(sha256sum "$requirements" | cut -c1-12)"
if [ ! -e "$venv/.complete" ]; then
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    echo "spark: installing python3-venv" >&2
    apt_install python3-venv
  fi
  echo "spark: installing $(grep -v '^#' "$requirements" | tr '\n' ' ')into $venv" >&2
  rm -rf "$venv"
  mkdir -p "$cache"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
  touch "$venv/.complete"
fi
export SPARK_PY="$venv/bin/python"
export PYSPARK_PYTHON="$SPARK_PY"

(cd "$repo" && swift build -c release --static-swift-stdlib >&2)
MEDIAPROBE="$(cd "$repo" && swift build -c release --static-swift-stdlib --show-bin-path)/mediaprobe"
export MEDIAPROBE
