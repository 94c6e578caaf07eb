"""Spark local[2] over N paths against one direct ``mediaprobe --files-from`` call.

Run by Scripts/spark/bench.sh (which installs Java and PySpark and builds the release binary).
Prints wall times, files/s, where Spark's overhead goes, and peak memory.

Every mediaprobe process Spark starts runs under ``/usr/bin/time`` (a wrapper), so the time
the probing itself took is known apart from Spark's. Peak memory is sampled from /proc: the sum
of the resident sets of this process and all its descendants (JVM, Python workers,
mediaprobe).
"""

import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "integrations", "spark"))
sys.path.insert(0, os.path.join(REPO, "integrations", "spark", "tests"))

import corpus  # noqa: E402


def timed(command, stdout=subprocess.DEVNULL):
    """Runs ``command`` under /usr/bin/time; returns (wall, user, sys, max RSS in KiB)."""
    with tempfile.NamedTemporaryFile("r") as report:
        subprocess.run(
            ["/usr/bin/time", "-o", report.name, "-f", "%e %U %S %M", *command],
            stdout=stdout, stderr=subprocess.DEVNULL, check=False,
        )
        wall, user, system, rss = report.read().split()[-4:]
    return float(wall), float(user), float(system), int(rss)


class TreeMemory:
    """Samples the summed RSS of this process and its descendants until stopped."""

    def __init__(self, interval=0.1):
        self.interval = interval
        self.peak = 0
        self.breakdown = {}  # at the peak: kind of process -> (count, KiB)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _run(self):
        while not self._stop.wait(self.interval):
            total, breakdown = self.sample()
            if total > self.peak:
                self.peak, self.breakdown = total, breakdown

    def describe(self):
        parts = [
            f"{kind} {n}x {kib / 1024:.0f}" for kind, (n, kib) in sorted(self.breakdown.items())
        ]
        return f"{self.peak / 1024:.0f} MiB ({', '.join(parts)})"

    @staticmethod
    def sample():
        parents, rss, names = {}, {}, {}
        for status in glob.glob("/proc/[0-9]*/status"):
            try:
                with open(status) as handle:
                    fields = dict(line.split(":", 1) for line in handle if ":" in line)
            except OSError:
                continue
            pid = int(status.split("/")[2])
            parents[pid] = int(fields["PPid"])
            rss[pid] = int(fields.get("VmRSS", "0 kB").split()[0])
            names[pid] = fields["Name"].strip()
        root = os.getpid()
        total, breakdown = 0, {}
        for pid in rss:
            p = pid
            while p and p != root:
                p = parents.get(p, 0)
            if p == root or pid == root:
                total += rss[pid]
                kind = "driver python" if pid == root else names[pid]
                n, kib = breakdown.get(kind, (0, 0))
                breakdown[kind] = (n + 1, kib + rss[pid])
        return total, breakdown


def wrapper(directory, log_dir):
    """An executable that runs mediaprobe under /usr/bin/time, one report per process."""
    path = os.path.join(directory, "mediaprobe-timed")
    with open(path, "w") as handle:
        handle.write(
            "#!/bin/bash\n"
            f'exec /usr/bin/time -o "{log_dir}/$$.time" -f "%e %U %S %M" '
            f'"{os.environ["MEDIAPROBE"]}" "$@"\n'
        )
    os.chmod(path, 0o755)
    return path


def process_reports(log_dir):
    reports = []
    for name in sorted(os.listdir(log_dir)):
        with open(os.path.join(log_dir, name)) as handle:
            wall, user, system, rss = handle.read().split()[-4:]
        reports.append((float(wall), float(user), float(system), int(rss)))
        os.remove(os.path.join(log_dir, name))
    return reports


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=3, help="direct/Spark pairs")
    parser.add_argument("--work", default=os.path.join(REPO, ".build", "spark-bench"))
    options = parser.parse_args()
    count = options.paths
    binary = os.environ["MEDIAPROBE"]
    os.makedirs(options.work, exist_ok=True)
    paths = corpus.many_paths(os.path.join(options.work, "many"), count)
    list_file = os.path.join(options.work, "list0")
    with open(list_file, "wb") as handle:
        handle.write(b"".join(p.encode() + b"\0" for p in paths))
    print(f"# {count} paths, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at start")

    # One process that lists no file: the cost of starting mediaprobe.
    starts = [timed([binary, "--ndjson", "--files-from", "/dev/null"])[0] for _ in range(5)]
    print(f"mediaprobe start (empty list), median of 5: {statistics.median(starts) * 1000:.0f} ms")

    for jobs in (2, 1):
        wall, user, system, rss = timed(
            [binary, "--jobs", str(jobs), "--ndjson", "--files-from", list_file, "--null"]
        )
        print(f"direct --jobs {jobs}: {wall:.2f} s, {count / wall:.0f} files/s, cpu "
              f"{user + system:.1f} s, peak RSS {rss / 1024:.0f} MiB")

    log_dir = os.path.join(options.work, "times")
    os.makedirs(log_dir, exist_ok=True)
    timed_binary = wrapper(options.work, log_dir)
    process_reports(log_dir)

    begin = time.monotonic()
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    from mediatools_spark import probe

    imported = time.monotonic()
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("mediatools-bench-spark")
        .config("spark.driver.memory", "512m")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    session = time.monotonic()
    print(f"spark: python imports {imported - begin:.1f} s, session (JVM start) "
          f"{session - imported:.1f} s")

    df = spark.createDataFrame([(p, i) for i, p in enumerate(paths)], "path string, id long")
    df = df.repartition(2, "id").cache()
    df.count()
    print(f"spark: input DataFrame of {count} paths, 2 partitions, cached: "
          f"{time.monotonic() - session:.1f} s")

    def identity(batches):
        yield from batches

    for label in ("first", "second"):
        started = time.monotonic()
        df.mapInArrow(identity, df.schema).write.format("noop").mode("overwrite").save()
        print(f"spark: {label} mapInArrow job without mediaprobe: "
              f"{time.monotonic() - started:.2f} s")

    # Direct and Spark runs alternate, so both meet the same load from other work.
    pairs = []
    out = os.path.join(options.work, "probed.parquet")
    for run in range(options.runs):
        wall_d, user_d, sys_d, _ = timed(
            [binary, "--jobs", "2", "--ndjson", "--files-from", list_file, "--null"]
        )
        result = probe(df, binary=timed_binary)
        cpu_before = tree_cpu()
        with TreeMemory() as memory:
            started = time.monotonic()
            result.write.mode("overwrite").parquet(out)
            wall_s = time.monotonic() - started
        cpu_spark = tree_cpu() - cpu_before
        reports = process_reports(log_dir)
        cpu_probe = sum(r[1] + r[2] for r in reports)
        longest = max(r[0] for r in reports)
        pairs.append((wall_d, wall_s))
        print(
            f"run {run + 1}: direct --jobs 2 {wall_d:.2f} s ({count / wall_d:.0f} files/s, cpu "
            f"{user_d + sys_d:.1f} s) | Spark probe -> parquet {wall_s:.2f} s "
            f"({count / wall_s:.0f} files/s): {len(reports)} mediaprobe --jobs 1, longest "
            f"{longest:.2f} s, cpu {cpu_probe:.1f} s; Spark's own cpu "
            f"{cpu_spark - cpu_probe:.1f} s, wall outside the longest process "
            f"{wall_s - longest:.2f} s; peak RSS {memory.describe()}; "
            f"load {os.getloadavg()[0]:.1f}"
        )

    result = probe(df, binary=timed_binary, jobs=2)
    started = time.monotonic()
    result.write.format("noop").mode("overwrite").save()
    wall = time.monotonic() - started
    reports = process_reports(log_dir)
    print(f"Spark probe with --jobs 2 per process (4 on 2 cores) -> noop: {wall:.2f} s "
          f"({count / wall:.0f} files/s), longest process {max(r[0] for r in reports):.2f} s")

    failed = spark.read.parquet(out).where(F.col("error").isNotNull()).count()
    spark.stop()
    end = time.monotonic()
    print(f"spark: parquet holds {failed} error rows; stop; whole script from imports "
          f"{end - begin:.1f} s")
    ratios = sorted(s_ / d for d, s_ in pairs)
    print(
        f"summary: direct {min(d for d, _ in pairs):.2f}-{max(d for d, _ in pairs):.2f} s, "
        f"Spark {min(s_ for _, s_ in pairs):.2f}-{max(s_ for _, s_ in pairs):.2f} s, "
        f"Spark/direct {', '.join(f'{r:.2f}' for r in ratios)}; plus session start "
        f"{session - imported:.1f} s and the first job's worker start"
    )


def tree_cpu():
    """CPU seconds used so far by this process and its descendants (reaped ones included)."""
    tick = os.sysconf("SC_CLK_TCK")
    parents, cpu = {}, {}
    for stat_path in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat_path) as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(stat_path.split("/")[2])
        parents[pid] = int(fields[1])
        cpu[pid] = sum(int(v) for v in fields[11:15]) / tick  # utime stime cutime cstime
    root = os.getpid()
    total = 0.0
    for pid in cpu:
        p = pid
        while p and p != root:
            p = parents.get(p, 0)
        if p == root:
            total += cpu[pid]
    return total


if __name__ == "__main__":
    main()
