"""Extract the audio of a DataFrame of paths or URLs to WAV files with ``media2wav``.

:func:`extract` turns a DataFrame with a path column into the same DataFrame plus a ``wav``
column, one typed row per input: ``struct<output, frames, sample_rate, channels, seconds,
error_code, error_message>``. Each row's audio is written by one ``media2wav --json
--output-dir TARGET -- INPUT`` run on the executor, into a target folder every executor sees (a
local folder in local mode, a mounted shared file system on a cluster). An input that fails is
a row with ``error_code`` and ``error_message`` (media2wav's stable codes: ``not_found``,
``no_audio_stream``, ``timeout``, ``remote_not_found``, ...), never a failed task; the WAV of a
failed input is never left behind (media2wav writes nothing on failure).
"""

import json
import os
import signal
import subprocess
import sys

from pyspark import cloudpickle
from pyspark.sql.types import (
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from .probe import _child_env, _resolve_binary

__all__ = ["extract", "WAV_TYPE"]

cloudpickle.register_pickle_by_value(sys.modules[__name__])

#: The type of the ``wav`` column.
WAV_TYPE = StructType(
    [
        StructField("output", StringType(), True),
        StructField("frames", LongType(), True),
        StructField("sample_rate", IntegerType(), True),
        StructField("channels", IntegerType(), True),
        StructField("seconds", DoubleType(), True),
        StructField("error_code", StringType(), True),
        StructField("error_message", StringType(), True),
    ]
)

# Options that extract() sets itself.
_RESERVED = (
    "--json", "-q", "--quiet", "-o", "--output", "--output-dir", "--files-from", "-0", "--null",
    "--timeout", "--allow-network", "--header", "--max-bytes", "--force", "--",
)


def extract(
    df,
    target_dir,
    path_col="path",
    *,
    binary="media2wav",
    allow_network=False,
    header_file=None,
    max_bytes=None,
    timeout=600.0,
    force=False,
    env=None,
    extra_args=(),
):
    """Write one WAV per row of ``df[path_col]`` into ``target_dir``; return ``df`` plus ``wav``.

    :param df: a DataFrame with a string column ``path_col``: paths as the executors see them,
        or ``http(s)://`` URLs with ``allow_network``. It may not have a column ``wav``.
    :param target_dir: the folder the WAVs go to (it must exist on every executor). A WAV is
        named as media2wav names it: the input's last path component (a URL's, without its
        query) with ``.wav`` for its extension; two rows with the same name make the second one
        an ``output_exists`` row unless ``force``.
    :param binary: the executable (a name is looked up among the files shipped with
        ``spark-submit --files`` first, then on the ``PATH``; a path is used as it is).
    :param allow_network: pass ``--allow-network``: URLs are read with bounded range requests,
        retried and resumed at the exact byte.
    :param header_file: pass ``--header @FILE``: request headers (``Name: value`` a line) for
        the URLs, e.g. a token shipped with ``--files`` from a secret (a name is looked up among
        the shipped files, as ``binary`` is). Their values appear in no row.
    :param max_bytes: pass ``--max-bytes N``.
    :param timeout: seconds per input (``--timeout``; the row then gets ``timeout``); the process
        is also killed, with the same row, if it outlives twice that plus 30 s.
    :param force: pass ``--force`` (replace existing WAVs).
    :param env: variables added to the child's environment (it does not inherit the
        executor's: see :func:`mediatools_spark.probe`).
    :param extra_args: more media2wav options (``["--format", "f32", "--rate", "16000"]``).
    :returns: ``df``'s columns and ``wav`` (:data:`WAV_TYPE`).
    :raises ValueError: on a missing path column, a ``wav`` column, a reserved option.
    """
    if path_col not in df.columns:
        raise ValueError(f"no column {path_col!r} in {df.columns}")
    if "wav" in df.columns:
        raise ValueError("the input already has a column 'wav': rename it first")
    for arg in extra_args:
        if arg.split("=", 1)[0] in _RESERVED:
            raise ValueError(f"{arg!r} is set by extract()'s parameters, not extra_args")
    args = ["--json", "--output-dir", str(target_dir)]
    if allow_network:
        args.append("--allow-network")
    if max_bytes is not None:
        args += ["--max-bytes", str(int(max_bytes))]
    if timeout is not None:
        args += ["--timeout", repr(float(timeout))]
    if force:
        args.append("--force")
    args += list(extra_args)
    runner = _ExtractRunner(binary, args, path_col, timeout, header_file, dict(env or {}))
    out_schema = StructType(list(df.schema.fields) + [StructField("wav", WAV_TYPE, True)])
    return df.mapInArrow(runner, out_schema)


class _ExtractRunner:
    """The ``mapInArrow`` function: one media2wav run per row."""

    def __init__(self, binary, args, path_col, timeout, header_file, env):
        self.binary = binary
        self.args = args
        self.path_col = path_col
        self.timeout = timeout
        self.header_file = header_file
        self.env = env

    def __call__(self, batches):
        import pyarrow as pa

        from pyspark.sql.pandas.types import to_arrow_type

        wav_type = to_arrow_type(WAV_TYPE)
        env = _child_env(self.env)
        binary = None
        args = list(self.args)
        if self.header_file:
            args += ["--header", "@" + _resolve_file(self.header_file)]
        for batch in batches:
            column = batch.column(batch.schema.get_field_index(self.path_col))
            rows = []
            for path in column.to_pylist():
                if path is None or path == "" or "\0" in path:
                    rows.append(_failure("not_found", "empty or invalid path (not extracted)"))
                    continue
                if binary is None:
                    binary = _resolve_binary(self.binary, env)
                rows.append(self._run(binary, args, env, path))
            yield pa.RecordBatch.from_arrays(
                list(batch.columns) + [pa.array(rows, wav_type)],
                names=list(batch.schema.names) + ["wav"],
            )

    def _run(self, binary, args, env, path):
        limit = None if self.timeout is None else 2 * float(self.timeout) + 30
        process = subprocess.Popen(
            [binary, *args, "--", path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            close_fds=True,
            start_new_session=True,
        )
        try:
            out, err = process.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return _failure("timeout", f"media2wav ran longer than {limit:g} s and was killed")
        try:
            report = json.loads(out)
        except ValueError:
            tail = err.decode("utf-8", "replace")[-2000:]
            return _failure(
                "extract_failed", f"media2wav exited with status {process.returncode}: {tail}"
            )
        if isinstance(report, list):
            report = report[0] if len(report) == 1 else {}
        error = report.get("error")
        if error is not None:
            return _failure(error.get("code"), error.get("message"))
        audio = report.get("format") or {}
        return {
            "output": report.get("output"),
            "frames": report.get("samples"),
            "sample_rate": audio.get("sample_rate"),
            "channels": audio.get("channels"),
            "seconds": report.get("duration"),
            "error_code": None,
            "error_message": None,
        }


def _failure(code, message):
    return {
        "output": None,
        "frames": None,
        "sample_rate": None,
        "channels": None,
        "seconds": None,
        "error_code": code,
        "error_message": message,
    }


def _resolve_file(name):
    """A file shipped with ``--files`` (by name), else the path as given."""
    if os.sep not in name:
        try:
            from pyspark import SparkFiles

            shipped = SparkFiles.get(name)
            if os.path.isfile(shipped):
                return shipped
        except Exception:  # no SparkFiles root outside a Spark worker
            pass
    return name
