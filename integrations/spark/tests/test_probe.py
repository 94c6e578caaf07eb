"""probe() in Spark local[2] against direct mediaprobe output, Parquet, and the pipe's policies.

The oracle is mediaprobe itself run directly on the same inputs (paths as arguments for the
fixtures, a list file for the many paths): every row of Spark's result, parsed into the schema
derived from the JSON Schema, must equal the record mediaprobe printed, field by field.

``MEDIAPROBE`` names the binary (default: the release build); ``SPARK_TEST_PATHS`` the size of
the generated list (default 10000).
"""

import json
import os
import stat
import subprocess
import time

import pytest
from pyspark.sql import functions as F

import corpus
from mediatools_spark import probe

MEDIAPROBE = os.environ.get("MEDIAPROBE") or os.path.join(
    corpus.REPO, ".build", "release", "mediaprobe"
)
COUNT = int(os.environ.get("SPARK_TEST_PATHS", "10000"))


def sent(path):
    """What probe() hands mediaprobe for ``path`` (None: not sent, see probe's docstring)."""
    if path is None or path == "" or "\0" in path:
        return None
    return "./-" if path == "-" else path


def direct(paths, args=(), list_file=None):
    """mediaprobe's records for ``paths`` (those probe() sends), from one direct call."""
    inputs = [sent(p) for p in paths if sent(p) is not None]
    command = [MEDIAPROBE, "--ndjson", *args]
    if list_file:
        with open(list_file, "wb") as handle:
            handle.write(b"".join(p.encode() + b"\0" for p in inputs))
        command += ["--files-from", list_file, "--null"]
    else:
        command += ["--", *inputs]
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert result.returncode in (0, 1, 2), result.returncode
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["path"] for r in records] == inputs
    return records


def expected_rows(paths, records):
    """The record each input's row must hold, in input order."""
    answers = iter(records)
    rows = []
    for path in paths:
        if sent(path) is None:
            rows.append(
                {"path": path, "error": {"code": "not_found",
                                         "message": "empty or invalid path (not probed)"}}
            )
        else:
            rows.append(next(answers))
    return rows


def as_record(row, path_col="path"):
    """A result row back in mediaprobe's JSON shape (a failure, or the media record)."""
    if row["error"] is not None:
        assert row["media"] is None
        path = row[path_col]
        return {"path": sent(path) or path, "error": row["error"].asDict()}
    assert row["media"] is not None
    return row["media"].asDict(recursive=True)


def assert_same(actual, expected):
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected):
        assert got == want, f"{want.get('path')!r}: Spark's row differs from mediaprobe's record"


def frame(spark, paths, partitions=2):
    rows = [(p, i) for i, p in enumerate(paths)]
    return spark.createDataFrame(rows, "path string, id long").repartition(partitions, "id")


def wrapper(tmp_path, name="mediaprobe-counting", log=None, body=None):
    """An executable that logs each start to ``log`` and runs ``body`` (default: mediaprobe)."""
    script = tmp_path / name
    lines = ["#!/bin/bash"]
    if log:
        lines.append(f'echo "$$ $*" >> "{log}"')
    lines.append(body or f'exec "{MEDIAPROBE}" "$@"')
    script.write_text("\n".join(lines) + "\n")
    script.chmod(0o755)
    return str(script)


def collect_records(df):
    """The rows as records, in ``id`` order (sorted here: a Spark sort would sample its input
    first, running every probe twice)."""
    return [as_record(r) for r in sorted(df.collect(), key=lambda r: r["id"])]


def test_fixtures_and_odd_inputs_equal_direct_output(spark, tmp_path):
    paths = corpus.fixture_paths() + corpus.odd_paths(str(tmp_path))
    expected = expected_rows(paths, direct(paths))
    assert_same(collect_records(probe(frame(spark, paths), binary=MEDIAPROBE)), expected)
    codes = {r["error"]["code"] for r in expected if "error" in r}
    assert {"not_found", "not_a_file", "empty", "unrecognized_format", "truncated",
            "refused_reference"} <= codes


def test_verify_scan_and_compat_equal_direct_output(spark, tmp_path):
    paths = corpus.fixture_paths()
    # The same --jobs on both sides: with --verify, hostile_truncated.mp4's decode error count
    # is 2 with --jobs 1 (two decoder threads) and 1 with --jobs 2 in a batch (one thread).
    args = ["--jobs", "1", "--scan", "--verify", "--compat", "iphone,web"]
    expected = expected_rows(paths, direct(paths, args))
    result = probe(frame(spark, paths), binary=MEDIAPROBE, scan=True, verify="full",
                   compat=["iphone", "web"], jobs=1)
    records = collect_records(result)
    assert_same(records, expected)
    media = [r for r in records if "error" not in r]
    assert all(r["integrity"] is not None and r["compat"] for r in media)
    assert any(r["integrity"] != "ok" for r in media)  # exit status 2 was accepted


def test_many_paths_to_parquet_and_back(spark, tmp_path):
    paths = corpus.many_paths(str(tmp_path / "many"), COUNT)
    log = tmp_path / "starts.log"
    binary = wrapper(tmp_path, log=log)
    started = time.monotonic()
    result = probe(frame(spark, paths), binary=binary)
    out = str(tmp_path / "probed.parquet")
    result.write.mode("overwrite").parquet(out)
    spark_seconds = time.monotonic() - started
    assert len(log.read_text().splitlines()) == 2  # one process per partition

    started = time.monotonic()
    expected = expected_rows(paths, direct(paths, list_file=str(tmp_path / "list")))
    direct_seconds = time.monotonic() - started
    print(f"\n{COUNT} paths: Spark local[2] probe + Parquet {spark_seconds:.1f} s, "
          f"direct mediaprobe {direct_seconds:.1f} s")

    back = spark.read.parquet(out)
    assert [f.name for f in back.schema.fields] == [f.name for f in result.schema.fields]
    assert back.schema["media"].dataType.simpleString() == (
        result.schema["media"].dataType.simpleString()
    )
    assert back.schema["media"].dataType["integrity"].metadata["enum"] == [
        "ok", "damaged", "truncated", "undecodable"
    ]  # the schema's enum values travel in the field's metadata, into Parquet
    assert_same(collect_records(back), expected)
    failed = back.where(F.col("error").isNotNull()).count()
    assert failed == sum(1 for r in expected if "error" in r) > COUNT // 500 - 1


def test_urls_with_allow_network_equal_direct_output(spark, range_server):
    names = ["orient_up.mp4", "av1.mp4", "tone.m4a", "h264_30fps.mkv", "hostile_playlist.m3u8"]
    urls = [f"{range_server}/{n}" for n in names] + [
        f"{range_server}/absent.mp4",
        f"{range_server}/stall/tone.ogg",
        f"{range_server}/redirect-file",
    ]
    args = ["--jobs", "1", "--allow-network", "--timeout", "3.0"]
    expected = expected_rows(urls, direct(urls, args))
    result = probe(frame(spark, urls), binary=MEDIAPROBE, allow_network=True, timeout=3,
                   jobs=1)
    records = collect_records(result)
    # What comes over the network can vary between runs: a direct call once read 25,311 bytes
    # of tone.m4a (17,345 bytes long) where it read 34,690 in every other run; compare it apart.
    for record in records[:4] + expected[:4]:
        assert record.pop("bytes_read") > 0
    assert_same(records, expected)
    # A playlist stays refused, a 404 is remote_not_found, a stalled server times out, a
    # redirect to file:///etc/passwd is refused by the client (remote_redirect).
    assert [r.get("error", {}).get("code") for r in records[4:]] == [
        "refused_reference", "remote_not_found", "timeout", "remote_redirect"
    ]


def test_one_process_per_non_empty_partition(spark, tmp_path):
    log = tmp_path / "starts.log"
    fixtures = corpus.fixture_paths()[:3]
    df = spark.range(0, 3, numPartitions=5).select(
        F.element_at(F.array(*[F.lit(p) for p in fixtures]), F.col("id").cast("int") + 1)
        .alias("file"),
        "id",
    )
    rows = sorted(probe(df, "file", binary=wrapper(tmp_path, log=log), jobs=1).collect(),
                  key=lambda r: r.id)
    assert [r.media.path for r in rows] == fixtures
    starts = log.read_text().splitlines()
    assert len(starts) == 3  # 5 partitions, 2 empty: no process for those
    assert all("--jobs 1 --ndjson --files-from - --null" in s for s in starts)


def test_binary_shipped_with_addfile_needs_no_path(spark, tmp_path):
    log = tmp_path / "shipped.log"
    shipped = wrapper(tmp_path, name="mediaprobe-shipped", log=log)
    os.chmod(shipped, stat.S_IRUSR | stat.S_IWUSR | stat.S_IRGRP | stat.S_IROTH)  # 0644
    spark.sparkContext.addFile(shipped)
    path = corpus.fixture_paths()[0]
    rows = probe(frame(spark, [path], 1), binary="mediaprobe-shipped",
                 env={"PATH": "/nonexistent"}).collect()
    assert rows[0].media.path == path
    assert len(log.read_text().splitlines()) == 1


def failing(spark, tmp_path, body, match, **options):
    paths = corpus.fixture_paths()[:2]
    binary = wrapper(tmp_path, name="fake", body=body)
    with pytest.raises(Exception, match=match):
        probe(frame(spark, paths, 1), binary=binary, **options).collect()


ECHO_RECORDS = (
    "while IFS= read -r -d '' p; do "
    "printf '{\"path\":\"%s\",\"error\":{\"code\":\"empty\",\"message\":\"m\"}}\\n' \"$p\"; done"
)


def test_unexpected_exit_status_fails_the_task(spark, tmp_path):
    failing(spark, tmp_path, ECHO_RECORDS + "; echo boom >&2; exit 3", "exited with status 3")


def test_exit_status_1_keeps_the_rows(spark, tmp_path):
    binary = wrapper(tmp_path, name="fake1", body=ECHO_RECORDS + "; exit 1")
    rows = probe(frame(spark, corpus.fixture_paths()[:2], 1), binary=binary).collect()
    assert [r.error.code for r in rows] == ["empty", "empty"]


def test_status_2_is_allowed_only_with_verify(spark, tmp_path):
    failing(spark, tmp_path, ECHO_RECORDS + "; exit 2", "exited with status 2")


def test_records_for_other_paths_fail_the_task(spark, tmp_path):
    body = ECHO_RECORDS.replace('"%s"', '"%s.other"')
    failing(spark, tmp_path, body, "where")


def test_missing_records_fail_the_task(spark, tmp_path):
    failing(spark, tmp_path, "cat > /dev/null; exit 0", "output ended before the record")


def test_a_stalled_process_is_killed(spark, tmp_path):
    failing(spark, tmp_path, "sleep 60", "no record for 2 s", stall_timeout=2)


def test_a_record_off_the_schema_fails_in_strict_mode(spark, tmp_path):
    body = (
        "while IFS= read -r -d '' p; do "
        "printf '{\"path\":\"%s\",\"scanned\":\"yes\"}\\n' \"$p\"; done"
    )
    failing(spark, tmp_path, body, "MALFORMED_RECORD|Malformed")
    binary = wrapper(tmp_path, name="lenient", body=body)
    rows = probe(frame(spark, corpus.fixture_paths()[:1], 1), binary=binary,
                 strict=False).collect()
    assert rows[0].media.scanned is None and rows[0].media.path == corpus.fixture_paths()[0]


def test_a_missing_binary_fails_the_task(spark):
    with pytest.raises(Exception, match="does not exist on this executor"):
        probe(frame(spark, corpus.fixture_paths()[:1], 1), binary="/nonexistent/mp").collect()


def test_arguments_are_checked_on_the_driver(spark):
    df = frame(spark, ["/x"], 1)
    with pytest.raises(ValueError, match="no column"):
        probe(df, "file")
    with pytest.raises(ValueError, match="set by probe"):
        probe(df, extra_args=["--jobs=4"])
    with pytest.raises(ValueError, match="already has a column"):
        probe(df.withColumn("media", F.lit(1)))
