#!/usr/bin/env bash
# Mutates the fixtures and regression inputs (bit flips, cuts, overwritten, deleted, duplicated
# and inserted ranges, boundary integers; seeded, so a run can be repeated) and runs the four
# tools on each mutant (mediamerge: a real merge, ffmpeg's render and the output check included,
# one mutant at a time after a valid clip), in parallel, each run with the same time limit. A run
# that ends by a signal (a crash), one that outlives the limit (a hang), a media2wav or
# mediamerge run that leaves any file besides its finished output, or an ffmpeg that outlives its
# mediamerge, is a failure; the mutant is kept for a regression input (Tests/Regressions).
#
#   Scripts/fuzz.sh [--mutants N] [--seed S] [--timeout SECONDS] [--jobs J] [--bin DIR]
#
# Defaults: 5000 mutants, seed 23, 20 s per run, one job per core, the release build.
# make fuzz runs 20,000 (FUZZ_MUTANTS) of the release build; make test 500 of its debug build.
set -euo pipefail
cd "$(dirname "$0")/.."
mutants=5000
seed=23
limit=20
jobs=$(nproc)
bin=""
while [ $# -gt 0 ]; do
  case "$1" in
    --mutants) mutants=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    *) echo "fuzz.sh: unknown option $1" >&2; exit 64 ;;
  esac
done
[ -n "$bin" ] || bin=$(swift build -c release --static-swift-stdlib --show-bin-path)
work=$(mktemp -d "${TMPDIR:-/tmp}/mediatools-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
keep="${TMPDIR:-/tmp}/mediatools-fuzz-failures-$seed"

python3 - "$seed" "$mutants" "$limit" "$jobs" "$bin" "$work" "$keep" <<'PY'
import collections, concurrent.futures, json, os, random, re, shutil, signal, subprocess, sys, time

seed, count, limit, jobs = (int(v) for v in sys.argv[1:5])
bin_dir, work, keep = sys.argv[5:8]
random.seed(seed)
sources = []
# TruthFixtures: the files --scan's packet rules were made for (cut FLAC, AC-3 without sync, ...).
# InputFixtures: junk before an MP3, JPEG/HEIF/AVIF stills, Dolby Vision sample entries.
for folder in ("Tests/Fixtures", "Tests/Regressions", "Tests/TruthFixtures", "Tests/InputFixtures"):
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.path.getsize(path) > 0:
            sources.append(path)

BOUNDARY = [b"\x00\x00\x00\x00", b"\xff\xff\xff\xff", b"\x7f\xff\xff\xff", b"\x80\x00\x00\x00",
            b"\x00\x00\x00\x01", b"\xff\xff\xff\xfe"]


def mutate(data, kind):
    d = bytearray(data)
    n = len(d)
    if kind == 0:    # scattered bit flips, one byte in 200
        for _ in range(max(1, n // 200)):
            d[random.randrange(n)] ^= 1 << random.randrange(8)
    elif kind == 1:  # cut short
        d = d[:random.randrange(1, n)]
    elif kind == 2:  # a range overwritten with random bytes
        i = random.randrange(n)
        d[i:i + 256] = bytes(random.getrandbits(8) for _ in range(256))
    elif kind == 3:  # a range deleted
        i, j = sorted((random.randrange(n), random.randrange(n)))
        d = d[:i] + d[j:]
    elif kind == 4:  # a range duplicated
        i = random.randrange(n)
        j = min(n, i + random.randrange(1, 4096))
        d = d[:j] + d[i:j] + d[j:]
    elif kind == 5:  # random bytes inserted
        i = random.randrange(n)
        d = d[:i] + bytes(random.getrandbits(8) for _ in range(random.randrange(1, 64))) + d[i:]
    else:            # boundary integers written over sizes and counts
        for _ in range(random.randrange(1, 8)):
            i = random.randrange(max(1, n - 4))
            d[i:i + 4] = random.choice(BOUNDARY)
    return bytes(d)


jobs_list = []
cache = {}
for k in range(count):
    source = sources[k % len(sources)]
    if source not in cache:
        cache[source] = open(source, "rb").read()
    name = f"m{k:05d}{os.path.splitext(source)[1]}"
    with open(os.path.join(work, name), "wb") as f:
        f.write(mutate(cache[source], random.randrange(7)))
    jobs_list.append((name, source))

# A crash is seen by its signal; Swift's backtracer would only make each crash slower.
ENV = dict(os.environ, SWIFT_BACKTRACE="enable=no")
# Each tool takes a batch of mutants in one process (as a script would; it also spreads the cost
# of loading FFmpeg's libraries); a batch that crashes or outlives its limit is run again one
# mutant at a time to find the culprit. The limit applies to a batch and to each single run.
BATCH = 25
COMMANDS = {
    "mediaprobe": ["--scan", "--ndjson", "--jobs", "1"],
    "media2wav": ["--json", "--jobs", "1", "--force", "--format", "s24", "--rate", "22050",
                  "--gain", "-1"],
    "mediacompat": ["--ndjson", "--suggest", "--jobs", "1"],
    # One mutant per run, merged after a valid clip (a batch stops at its first bad clip), and
    # rendered: the plan, ffmpeg's render and the output check are what the time limit covers
    # (issue 20: nine mutants planned days and rendered forever).
    "mediamerge": ["-q", "--no-sync", "--jobs", "1"],
    # A poster of each (decode, seek, scale, turn, encode, write): nothing but the pictures
    # reported may be left in its output folder.
    "mediaframe": ["--jobs", "1", "--no-sync", "--force", "--at", "0.5", "--max-size", "64x64"],
    # The other paths of mediaframe: a contact sheet (seeks through the whole file), the best
    # frame (scores the first frames) and the waveform (decodes all the audio; AAC and MP3 in
    # MP4 in chunks at once), each with its own name ("tool:mode") over the same binary.
    "mediaframe:sheet": ["--jobs", "1", "--no-sync", "--force", "--sheet", "3x2", "--max-size",
                         "48x48"],
    "mediaframe:best": ["--jobs", "1", "--no-sync", "--force", "--best", "--max-size", "64x64"],
    "mediaframe:waveform": ["--jobs", "1", "--no-sync", "--force", "--waveform", "png",
                            "--waveform-size", "200x50"],
}
# FUZZ_TOOLS=mediaframe,mediaprobe runs only those tools.
if os.environ.get("FUZZ_TOOLS"):
    COMMANDS = {k: v for k, v in COMMANDS.items() if k in os.environ["FUZZ_TOOLS"].split(",")}
MERGE_PARTNER = os.path.join(os.getcwd(), "Tests/MergeFixtures/landscape.mp4")


def execute(name, paths, timeout):
    """Runs the command `name` on paths; returns (status or "hang", stdout, leftover files)."""
    tool = name.split(":")[0]
    out_dir = os.path.join(work, "out-" + name.replace(":", "-") + "-" + os.path.basename(paths[0]))
    arguments = [os.path.join(bin_dir, tool)] + COMMANDS[name]
    if tool in ("media2wav", "mediaframe"):
        os.mkdir(out_dir)
        arguments += ["--output-dir", out_dir]
    if tool == "mediamerge":
        os.mkdir(out_dir)
        arguments += ["-o", os.path.join(out_dir, "merged.mp4"), MERGE_PARTNER]
    errors = subprocess.PIPE if tool == "mediamerge" else subprocess.DEVNULL
    process = subprocess.Popen(arguments + paths, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=errors, start_new_session=True, env=ENV)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
        status = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        status = "hang"
    leftovers = []
    if tool == "mediamerge":
        # The merge's code (its stderr names it in brackets), as the other tools' JSON does.
        codes = re.findall(rb"\[([a-z_]+)\]\s*$", stderr or b"", re.M)
        stdout = json.dumps({"error": {"code": codes[-1].decode()}} if status != 0 and codes
                            else {}).encode()
        leftovers = sorted(set(os.listdir(out_dir)) - ({"merged.mp4"} if status == 0 else set()))
        shutil.rmtree(out_dir)
        # ffmpeg must not outlive its mediamerge (it dies with it: PR_SET_PDEATHSIG).
        time.sleep(0.05)
        orphans = [pid for pid in os.listdir("/proc") if pid.isdigit()
                   and orphan_of(pid, paths[0])]
        if orphans:
            for pid in orphans:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except OSError:
                    pass
            leftovers.append(f"ffmpeg still running: pids {orphans}")
    if tool in ("media2wav", "mediaframe"):
        written = set()
        try:
            if tool == "media2wav":
                reports = json.loads(stdout)
            else:
                reports = [json.loads(line) for line in stdout.decode().splitlines() if line]
            for report in reports if isinstance(reports, list) else [reports]:
                if "output" in report:
                    written.add(os.path.basename(report["output"]))
        except ValueError:
            pass
        leftovers = sorted(set(os.listdir(out_dir)) - written)
        shutil.rmtree(out_dir)
    return status, stdout, leftovers


def orphan_of(pid, mutant):
    """True when process pid is an ffmpeg reading the mutant (started by a finished merge)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            words = f.read().split(b"\0")
    except OSError:
        return False
    return bool(words) and os.path.basename(words[0]) == b"ffmpeg" and any(
        word.endswith(mutant.encode()) for word in words)


def outcomes(name, stdout):
    """The error code (or "ok") of each input, from the JSON output."""
    tool = name.split(":")[0]
    text = stdout.decode("utf-8", "replace")
    if tool == "media2wav":
        try:
            reports = json.loads(text)
        except ValueError:
            return []
        reports = reports if isinstance(reports, list) else [reports]
    elif tool == "mediamerge":
        try:
            reports = [json.loads(text)]
        except ValueError:
            return []
    else:
        reports = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [report["error"]["code"] if "error" in report else "ok" for report in reports]


def run_single(tool, path, findings, codes):
    """Runs tool on one mutant and records a hang, a crash, files left behind and its code."""
    status, stdout, leftovers = execute(tool, [path], limit)
    if status == "hang":
        findings.append(("hang", tool, path, f"over {limit} s"))
    elif status < 0:
        findings.append(("crash", tool, path, f"signal {-status}"))
    if leftovers:
        findings.append(("leftovers", tool, path, str(leftovers)))
    codes.update(f"{tool} {code}" for code in outcomes(tool, stdout))


def run_batch(names):
    paths = [os.path.join(work, name) for name in names]
    findings, codes = [], collections.Counter()
    for tool in COMMANDS:
        if tool == "mediamerge":
            for path in paths:
                run_single(tool, path, findings, codes)
            continue
        status, stdout, leftovers = execute(tool, paths, limit)
        if status == "hang" or status < 0 or len(paths) > 1 and leftovers:
            # Again one by one, to find which mutant it was.
            for path in paths:
                run_single(tool, path, findings, codes)
        else:
            if leftovers:
                findings.append(("leftovers", tool, paths[0], str(leftovers)))
            codes.update(f"{tool} {code}" for code in outcomes(tool, stdout))
    return names, findings, codes


start = time.monotonic()
batches = [[name for name, _ in jobs_list[i:i + BATCH]] for i in range(0, len(jobs_list), BATCH)]
origin = dict(jobs_list)
kinds = collections.Counter()
codes = collections.Counter()
failures = []
with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
    for names, findings, batch_codes in pool.map(run_batch, batches):
        codes.update(batch_codes)
        for kind, tool, path, detail in findings:
            kinds[kind] += 1
            name = os.path.basename(path)
            failures.append(f"{kind} ({detail}): {tool} {name} (from {origin[name]})")
            os.makedirs(keep, exist_ok=True)
            shutil.copy(path, keep)
        for name in names:
            os.remove(os.path.join(work, name))
elapsed = time.monotonic() - start
runs = count * len(COMMANDS)
print(f"fuzz: {count} mutants of {len(sources)} inputs x {len(COMMANDS)} tools = {runs} runs "
      f"in {elapsed:.0f} s (seed {seed}, {limit} s limit per run, {jobs} jobs): "
      f"{kinds['crash']} crashes, {kinds['hang']} hangs, {kinds['leftovers']} left files")
for tool in COMMANDS:
    counted = sorted((key.split(" ", 1)[1], value) for key, value in codes.items()
                     if key.startswith(tool + " "))
    print(f"fuzz: {tool}: " + ", ".join(f"{code} {value}" for code, value in counted))
if failures:
    print("\n".join(failures), file=sys.stderr)
    print(f"fuzz: failing mutants kept in {keep}", file=sys.stderr)
    sys.exit(1)
PY
