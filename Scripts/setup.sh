#!/usr/bin/env bash
# Installs what building and testing MediaTools needs on Debian (bookworm), only what is missing.
# Called by `make setup` (and so by `make demo` and `make test`). Safe to run again.
set -euo pipefail

packages=(
  pkg-config
  libavformat-dev libavcodec-dev libavutil-dev libswresample-dev  # the FFmpeg 5.1 libraries
  libswscale-dev libavfilter-dev  # the render layer: scaling, filter graphs (libavfilter is dlopened)
  libebur128-dev    # EBU R128 loudness (media2wav --analyze, --normalize)
  libcurl4-openssl-dev  # the HTTP(S) client under --allow-network (loaded with dlopen on first use)
  nginx-light       # the network tests' real server on 127.0.0.1 (run unprivileged, temp config)
  ffmpeg            # ffmpeg/ffprobe: fixtures and the test oracle (no tool runs it)
  fonts-dejavu-core # DejaVu Sans: the font file the text-overlay tests draw with (and fontconfig's Sans)
  mediainfo         # benchmark peer
  ffmpegthumbnailer # benchmark peer (mediaframe: Scripts/bench.sh frame)
  sndfile-programs  # sndfile-info: WAV header validation
  sox               # soxi: WAV header validation; 32-bit WAV for a fixture
  flac              # the flac encoder: a 32-bit FLAC fixture (FFmpeg 5.1 cannot write one)
  libheif-examples  # heif-enc: a real HEIF fixture (FFmpeg 5.1 cannot write one); heif-info: its oracle
  jq                # the examples in README.md and docs/, demo
  time              # /usr/bin/time: peak memory in the benchmark
  bc                # arithmetic in the benchmark
  chromium          # the real-player oracle (make test-browsers): headless, no webdriver
  firefox-esr       # the same oracle's second browser
  strace            # the security tests trace which files the tools open
  openjdk-17-jre-headless  # Apache Spark 4 (integrations/spark, make test-spark) needs Java 17+
  python3-venv      # the Spark integration's pinned Python packages live in a virtual environment
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# JSON Schema validation in the tests uses Python's jsonschema (4.18+, with referencing).
if ! python3 -c 'import jsonschema, referencing' 2>/dev/null; then
  echo "setup: installing python jsonschema" >&2
  python3 -m pip install -q --upgrade 'jsonschema>=4.18'
fi

# The Spark integration's pinned PyPI packages (integrations/spark/requirements.txt: PySpark,
# pyarrow, pandas, pytest, ...) go into a virtual environment under $MEDIATOOLS_CACHE (default
# ~/.cache/mediatools), one per version of the requirements, so nothing is installed into the
# system's Python; Scripts/spark/env.sh finds it by the same name.
repo=$(cd "$(dirname "$0")/.." && pwd)
requirements="$repo/integrations/spark/requirements.txt"
cache=${MEDIATOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mediatools}
venv="$cache/spark-venv-$(sha256sum "$requirements" | cut -c1-12)"
if [ ! -e "$venv/.complete" ]; then
  echo "setup: installing $(grep -v '^#' "$requirements" | tr '\n' ' ')into $venv" >&2
  rm -rf "$venv"
  mkdir -p "$cache"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
  touch "$venv/.complete"
fi

# The Python test tools' pinned PyPI packages (Tests/requirements.txt: opentimelineio and its
# CMX 3600 EDL adapter, the reference implementation the composition tests compare with) go into
# a virtual environment of their own beside Spark's, one per version of the requirements;
# Scripts/test-python runs it.
requirements="$repo/Tests/requirements.txt"
venv="$cache/test-venv-$(sha256sum "$requirements" | cut -c1-12)"
if [ ! -e "$venv/.complete" ]; then
  echo "setup: installing $(grep -v '^#' "$requirements" | tr '\n' ' ')into $venv" >&2
  rm -rf "$venv"
  mkdir -p "$cache"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
  touch "$venv/.complete"
fi

# The loudness tests compare with pyloudnorm, pinned (its versions measure differently).
if ! python3 -c 'import importlib.metadata as m, pyloudnorm, sys; sys.exit(m.version("pyloudnorm") != "0.1.1")' 2>/dev/null; then
  echo "setup: installing python pyloudnorm 0.1.1" >&2
  python3 -m pip install -q 'pyloudnorm==0.1.1'
fi
