"""Probe a DataFrame of paths or URLs with ``mediaprobe``, one process per partition.

:func:`probe` turns a DataFrame with a path column into the same DataFrame plus two columns:

- ``error``: ``struct<code, message>``, null when the input was probed (codes as in
  docs/mediaprobe.md: ``not_found``, ``unrecognized_format``, ``truncated``, ``timeout``, ...);
- ``media``: the probe record (``path``, ``container``, ``streams``, ``duration``, ...), typed
  by the Spark schema derived from ``schemas/mediaprobe.schema.json``; null when it failed.

Each partition is piped through ONE ``mediaprobe --ndjson --files-from - --null`` process
(``mapInArrow``): paths go in NUL-separated as the partition's Arrow batches arrive, records
come back in the same order, one per path, and each is checked to name the path it answers.
Empty partitions start no process. Only the driver imports this package: the code that runs
on the executors is shipped with the task (pickled by value).
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from pyspark import cloudpickle
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from .schema import JsonSchemaConverter, SchemaConversionError, default_schema_dir

__all__ = ["probe", "probe_schemas", "MediaprobeFailed"]

# Options that change what mediaprobe prints or where it reads its inputs: the pipe owns them.
_RESERVED = (
    "--ndjson", "--json", "--summary", "-q", "--quiet", "--files-from", "-0", "--null",
    "--recursive", "-r", "--jobs", "-j", "--timeout", "--verify", "--verify-fast", "--scan",
    "--compat", "--allow-network", "--max-bytes", "--",
)

_MEDIA_JSON = "__mediatools_media_json"
_UNSENDABLE = "empty or invalid path (not probed)"

# The partition function and its helpers travel to the executors by value: only the driver needs
# this package (executors need PySpark with pyarrow and pandas, as every mapInArrow does).
cloudpickle.register_pickle_by_value(sys.modules[__name__])


class MediaprobeFailed(RuntimeError):
    """The mediaprobe process of a partition ended in a way the exit-code policy does not allow.

    Raised (and so failing the Spark task, which Spark may retry) when it exits with a status
    other than 0, 1 (some inputs failed: their rows carry the error) or, with ``verify``, 2
    (some input is damaged: see ``media.integrity``); when it is killed; when it stalls longer
    than ``stall_timeout``; or when its output does not answer the paths it was given, one
    record per path, in order.
    """


def probe_schemas(schema_dir=None):
    """The Spark types of a probe record and of its error, derived from the JSON Schema.

    :param schema_dir: the folder of ``mediaprobe.schema.json`` (and ``mediacompat.schema.json``
        it refers to); default :func:`~mediatools_spark.schema.default_schema_dir`.
    :returns: ``(media, error)``: the ``StructType`` of ``$defs/media`` and of
        ``$defs/failure/properties/error``.
    :raises SchemaConversionError: when the schema has a construct with no Spark type.
    """
    converter = JsonSchemaConverter(
        os.path.join(schema_dir or default_schema_dir(), "mediaprobe.schema.json")
    )
    return (
        converter.struct("/$defs/media"),
        converter.struct("/$defs/failure/properties/error"),
    )


def probe(
    df,
    path_col="path",
    *,
    binary="mediaprobe",
    scan=False,
    verify=None,
    compat=None,
    allow_network=False,
    max_bytes=None,
    timeout=60.0,
    stall_timeout=None,
    jobs=None,
    env=None,
    extra_args=(),
    schema_dir=None,
    strict=True,
):
    """Probe every path of ``df[path_col]``; return ``df`` plus ``error`` and ``media`` columns.

    Rows keep their partition and order. One ``mediaprobe`` process runs per non-empty
    partition, so the parallelism is the number of partitions running at once (one per executor
    core): repartition first to choose it.

    :param df: a DataFrame with a string column ``path_col`` (local paths as the executors see
        them, absolute preferably: a relative path is relative to the executor's working
        folder; or ``http(s)://`` URLs with ``allow_network``). It may not already have columns
        named ``error`` or ``media``.
    :param path_col: the name of the path column.
    :param binary: the executable. A name without ``/`` is looked up on each executor first
        among the files shipped with ``spark-submit --files`` / ``SparkContext.addFile``
        (``SparkFiles``), then on the ``PATH`` given to the child; a path is used as it is.
    :param scan: pass ``--scan`` (exact frame counts and durations, CFR/VFR).
    :param verify: ``"full"`` (``--verify``) or ``"fast"`` (``--verify-fast``): decode every
        stream and fill ``media.integrity`` and each stream's ``decode``; exit status 2
        (damaged inputs) is then expected.
    :param compat: platform names (``["iphone", "web"]``): pass ``--compat`` and fill
        ``media.compat`` with mediacompat's verdicts.
    :param allow_network: pass ``--allow-network`` so ``http://``/``https://`` paths (presigned
        object-storage URLs) are read with range requests.
    :param max_bytes: pass ``--max-bytes N`` (cap on what one input may read).
    :param timeout: seconds one input may take (``--timeout``; it then gets error ``timeout``
        and the partition goes on); None for no limit (long ``verify`` runs).
    :param stall_timeout: seconds the process may go without printing a record while it has
        paths to answer; past that it is killed and the task fails with
        :class:`MediaprobeFailed`. Default: ``2 * timeout + 30`` when ``timeout`` is set, else
        no limit.
    :param jobs: ``--jobs`` of each process; default ``spark.task.cpus`` (1 unless set), so
        that a process per core does not oversubscribe the executor.
    :param env: variables added to the child's environment. The child does not inherit the
        executor's environment (Spark's, Hadoop's and cloud credentials); it gets only ``PATH``,
        ``LD_LIBRARY_PATH`` and ``TMPDIR`` when the executor has them, ``LC_ALL=C.UTF-8``, and
        ``env`` (e.g. ``{"https_proxy": ...}``).
    :param extra_args: more mediaprobe options (``["--hash", "md5"]``); the ones this function
        sets itself are refused.
    :param schema_dir: where ``mediaprobe.schema.json`` is (read on the driver only).
    :param strict: parse the records with ``mode=FAILFAST``: a record that does not fit the
        schema fails the job instead of becoming nulls.
    :returns: a DataFrame: ``df``'s columns, ``error`` and ``media``.
    :raises ValueError: on a missing path column, a column name clash or a reserved option.

    A null or empty path, or one with a NUL byte, is not sent to mediaprobe (an empty list entry
    is skipped and a NUL splits one): its row gets error ``not_found``. A path that is exactly
    ``-`` is sent as ``./-`` (a list entry ``-`` means standard input), and its record's
    ``media.path`` says ``./-``.
    """
    if path_col not in df.columns:
        raise ValueError(f"no column {path_col!r} in {df.columns}")
    for name in ("error", "media", _MEDIA_JSON):
        if name in df.columns:
            raise ValueError(f"the input already has a column {name!r}: rename it first")
    for arg in extra_args:
        if arg.split("=", 1)[0] in _RESERVED:
            raise ValueError(f"{arg!r} is set by probe()'s parameters, not extra_args")
    if verify not in (None, "full", "fast"):
        raise ValueError("verify is None, 'full' or 'fast'")

    media_type, error_type = probe_schemas(schema_dir)
    if "not_found" not in error_type["code"].metadata.get("enum", ()):
        raise SchemaConversionError("the schema's error codes lack not_found (for empty paths)")
    args = ["--ndjson", "--files-from", "-", "--null"]
    if scan:
        args.append("--scan")
    if verify == "full":
        args.append("--verify")
    elif verify == "fast":
        args.append("--verify-fast")
    if compat:
        args += ["--compat", ",".join(compat)]
    if allow_network:
        args.append("--allow-network")
    if max_bytes is not None:
        args += ["--max-bytes", str(int(max_bytes))]
    if timeout is not None:
        args += ["--timeout", repr(float(timeout))]
    args += list(extra_args)
    if stall_timeout is None and timeout is not None:
        stall_timeout = 2 * float(timeout) + 30

    runner = _PartitionRunner(
        binary=binary,
        args=args,
        path_col=path_col,
        error_type=error_type,
        ok_codes=(0, 1, 2) if verify else (0, 1),
        stall_timeout=stall_timeout,
        jobs=jobs,
        env=dict(env or {}),
    )
    out_schema = StructType(
        list(df.schema.fields)
        + [
            StructField("error", error_type, True),
            StructField(_MEDIA_JSON, StringType(), True),
        ]
    )
    options = {"mode": "FAILFAST"} if strict else {}
    piped = df.mapInArrow(runner, out_schema)
    return piped.withColumn("media", F.from_json(F.col(_MEDIA_JSON), media_type, options)).drop(
        _MEDIA_JSON
    )


def _child_env(extra):
    env = {"LC_ALL": "C.UTF-8", "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")}
    for name in ("LD_LIBRARY_PATH", "TMPDIR"):
        if name in os.environ:
            env[name] = os.environ[name]
    env.update(extra)
    return env


def _resolve_binary(binary, env):
    """The executable to run on this executor (see :func:`probe`'s ``binary``).

    :raises FileNotFoundError: when it is nowhere.
    """
    if os.sep in binary:
        if not os.path.isfile(binary):
            raise FileNotFoundError(f"mediaprobe binary {binary} does not exist on this executor")
        return binary
    try:
        from pyspark import SparkFiles

        shipped = SparkFiles.get(binary)
    except Exception:  # no SparkFiles root outside a Spark worker
        shipped = None
    if shipped and os.path.isfile(shipped):
        if not os.access(shipped, os.X_OK):
            os.chmod(shipped, 0o755)
        return shipped
    found = shutil.which(binary, path=env.get("PATH"))
    if not found:
        raise FileNotFoundError(
            f"{binary} is neither shipped (--files) nor on the executor's PATH {env.get('PATH')}"
        )
    return found


class _PartitionRunner:
    """The ``mapInArrow`` function: one mediaprobe process for one partition's batches."""

    def __init__(self, binary, args, path_col, error_type, ok_codes, stall_timeout, jobs, env):
        self.binary = binary
        self.error_type = error_type
        self.args = args
        self.path_col = path_col
        self.ok_codes = ok_codes
        self.stall_timeout = stall_timeout
        self.jobs = jobs
        self.env = env

    def __call__(self, batches):
        import pyarrow as pa

        from pyspark.sql.pandas.types import to_arrow_type

        error_type = to_arrow_type(self.error_type)
        batches = iter(batches)
        first = next(batches, None)
        if first is None:
            return  # an empty partition starts no process
        with _Process(self) as process:
            writer = threading.Thread(
                target=process.feed, args=(_chain(first, batches),), daemon=True
            )
            writer.start()
            try:
                for batch, sent in process.planned():
                    errors, media = process.answers(sent)
                    columns = list(batch.columns) + [
                        pa.array(errors, error_type),
                        pa.array(media, pa.string()),
                    ]
                    yield pa.RecordBatch.from_arrays(
                        columns, names=list(batch.schema.names) + ["error", _MEDIA_JSON]
                    )
                process.finish()
            finally:
                process.stop()
                writer.join(timeout=10)


def _chain(first, rest):
    yield first
    yield from rest


class _Process:
    """A running mediaprobe with its feeding thread's plan, stall watchdog and exit policy."""

    _END = object()

    def __init__(self, runner):
        import queue

        self.runner = runner
        self.plan = queue.Queue()  # (batch, sent paths or None per row), in the order sent
        self.sent = 0
        self.received = 0
        self.last_progress = time.monotonic()
        self.stalled = False
        self.feed_error = None
        self.done = threading.Event()

    def __enter__(self):
        env = _child_env(self.runner.env)
        binary = _resolve_binary(self.runner.binary, env)
        jobs = self.runner.jobs
        if jobs is None:
            from pyspark import TaskContext

            context = TaskContext.get()
            jobs = context.cpus() if context is not None else 1
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [binary, "--jobs", str(jobs)] + self.runner.args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=env,
            close_fds=True,
            start_new_session=True,  # its own process group: a kill reaches any child it has
        )
        if self.runner.stall_timeout is not None:
            threading.Thread(target=self._watch, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.stop()
        self.stderr.close()
        return False

    # -- the feeding thread -------------------------------------------------------------------

    def feed(self, batches):
        """Writes each batch's paths to mediaprobe's standard input, NUL-terminated."""
        stdin = self.proc.stdin
        try:
            for batch in batches:
                column = batch.column(batch.schema.get_field_index(self.runner.path_col))
                sent = [_sendable(p) for p in column.to_pylist()]
                self.plan.put((batch, sent))
                for path in sent:
                    if path is not None:
                        stdin.write(path.encode("utf-8") + b"\0")
                        self.sent += 1
                stdin.flush()
                self.last_progress = time.monotonic()
        except BrokenPipeError:
            pass  # the process ended early: the reader reports why
        except BaseException as error:  # an upstream failure: the task must fail with it
            self.feed_error = error
        finally:
            self.plan.put(self._END)
            try:
                stdin.close()
            except BrokenPipeError:
                pass

    # -- the reading side (the task's thread) -------------------------------------------------

    def planned(self):
        """The batches in the order their paths were sent."""
        while True:
            item = self.plan.get()
            if item is self._END:
                if self.feed_error is not None:
                    raise self.feed_error
                return
            yield item

    def answers(self, sent):
        """Reads one record per sent path; returns the ``error`` and media JSON columns.

        :raises MediaprobeFailed: when the output ends early or names another path.
        """
        errors, media = [], []
        for path in sent:
            if path is None:
                errors.append({"code": "not_found", "message": _UNSENDABLE})
                media.append(None)
                continue
            line = self.proc.stdout.readline()
            if not line:
                self.fail(f"output ended before the record of {path!r}")
            self.received += 1
            self.last_progress = time.monotonic()
            try:
                record = json.loads(line)
                answered = record["path"]
            except (ValueError, KeyError, TypeError):
                self.fail(f"not a record: {line[:200]!r}")
            if answered != path:
                self.fail(f"a record for {answered!r} where {path!r} was expected")
            error = record.get("error")
            if error is not None:
                errors.append(error)
                media.append(None)
            else:
                errors.append(None)
                media.append(line.decode("utf-8"))
        return errors, media

    def finish(self):
        """Checks that nothing follows the last record and that the exit status is allowed.

        :raises MediaprobeFailed: otherwise.
        """
        extra = self.proc.stdout.readline()
        if extra:
            self.fail(f"output past the last record: {extra[:200]!r}")
        status = self.proc.wait()
        if status not in self.runner.ok_codes:
            self.fail(f"exited with status {status}")

    def fail(self, what):
        """Stops the process and raises :class:`MediaprobeFailed` with its standard error's end."""
        self.stop()
        status = self.proc.returncode
        if self.stalled:
            what = f"no record for {self.runner.stall_timeout:g} s (killed); " + what
        self.stderr.seek(0, os.SEEK_END)
        size = self.stderr.tell()
        self.stderr.seek(max(0, size - 4000))
        tail = self.stderr.read().decode("utf-8", "replace")
        raise MediaprobeFailed(
            f"mediaprobe ({self.proc.args[0]}): {what} (status {status}); stderr ends:\n{tail}"
        )

    def stop(self):
        """Kills the process if it still runs, and reaps it."""
        self.done.set()
        if self.proc.poll() is None:
            self._kill()
        self.proc.wait()
        self.proc.stdout.close()

    def _watch(self):
        limit = self.runner.stall_timeout
        while not self.done.wait(min(1.0, limit / 4)):
            waiting = self.sent > self.received
            if waiting and time.monotonic() - self.last_progress > limit:
                self.stalled = True
                self._kill()
                return

    def _kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _sendable(path):
    """The list entry for ``path``, or None when it cannot be one (null, empty, NUL inside)."""
    if path is None or path == "" or "\0" in path:
        return None
    return "./-" if path == "-" else path
