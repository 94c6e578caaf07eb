"""extract() in Spark local[2]: one WAV per row, byte-identical to media2wav run directly.

The oracle is media2wav itself run directly on the same inputs into another folder: every WAV
extract() wrote must equal it byte for byte, and every typed row must carry what media2wav's
JSON report says (frames, rate, channels, seconds, or the error code). ``MEDIAPROBE`` names the
build whose ``media2wav`` is used (default: the release build).
"""

import json
import os
import subprocess

import pytest

import corpus
from mediatools_spark import WAV_TYPE, extract
from test_probe import MEDIAPROBE

MEDIA2WAV = os.path.join(os.path.dirname(MEDIAPROBE), "media2wav")


def direct(path, folder, *args):
    """media2wav's JSON report for ``path``, its WAV written into ``folder``."""
    os.makedirs(folder, exist_ok=True)
    result = subprocess.run(
        [MEDIA2WAV, "--json", "--output-dir", folder, *args, "--", path],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert result.returncode in (0, 1), result.returncode
    return json.loads(result.stdout)


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def test_wavs_equal_media2wav_and_errors_are_rows(spark, tmp_path):
    audio = ["tone.ogg", "tone_adts.aac", "tone_cover.mp3", "two_audio.mkv", "surround_5.1.ac3"]
    paths = [os.path.join(corpus.FIXTURES, name) for name in audio] + [
        os.path.join(corpus.FIXTURES, "orient_up.mp4"),  # no audio
        os.path.join(corpus.FIXTURES, "hostile_text.txt"),
        str(tmp_path / "missing.mp4"),
        None,
    ]
    out = tmp_path / "out"
    out.mkdir()
    df = spark.createDataFrame([(i, p) for i, p in enumerate(paths)], "id int, path string")
    rows = extract(df.repartition(2), str(out), binary=MEDIA2WAV, timeout=60).collect()
    assert sorted(r.id for r in rows) == list(range(len(paths)))
    assert [f.name for f in WAV_TYPE.fields] == [
        "output", "frames", "sample_rate", "channels", "seconds", "error_code", "error_message"
    ]
    for row in rows:
        path, wav = row.path, row.wav
        if path is None:
            assert wav.error_code == "not_found" and wav.output is None
            continue
        report = direct(path, str(tmp_path / "direct"))
        if "error" in report:
            assert (wav.error_code, wav.error_message) == (
                report["error"]["code"], report["error"]["message"]
            ), path
            assert wav.output is None
            continue
        assert wav.error_code is None, (path, wav.error_message)
        assert wav.output == str(out / os.path.basename(report["output"]))
        assert read(wav.output) == read(report["output"]), path
        assert (wav.frames, wav.sample_rate, wav.channels, wav.seconds) == (
            report["samples"],
            report["format"]["sample_rate"],
            report["format"]["channels"],
            report["duration"],
        )
    codes = {os.path.basename(r.path or ""): r.wav.error_code for r in rows}
    assert codes["orient_up.mp4"] == "no_audio_stream"
    assert codes["hostile_text.txt"] == "unrecognized_format"
    assert codes["missing.mp4"] == "not_found"
    assert sorted(os.listdir(out)) == sorted(
        os.path.splitext(name)[0] + ".wav" for name in audio
    )
    # Two inputs with one name: the second row is output_exists (nothing is replaced).
    twice = spark.createDataFrame([(os.path.join(corpus.FIXTURES, "tone.m4a"),)], "path string")
    again = extract(twice, str(out), binary=MEDIA2WAV).collect()[0].wav
    assert again.error_code == "output_exists" and again.output is None


def test_urls_headers_and_timeout(spark, range_server, tmp_path):
    headers = tmp_path / "headers"
    headers.write_text("X-Secret: value-7d1e\n")
    urls = [
        f"{range_server}/tone.ogg",
        f"{range_server}/absent.mp4",
        f"{range_server}/stall/tone.m4a",
    ]
    out = tmp_path / "out"
    out.mkdir()
    df = spark.createDataFrame([(u,) for u in urls], "path string")
    rows = {
        r.path: r.wav
        for r in extract(
            df, str(out), binary=MEDIA2WAV, allow_network=True, header_file=str(headers),
            timeout=2,
        ).collect()
    }
    wav = rows[urls[0]]
    assert wav.error_code is None, wav.error_message
    report = direct(os.path.join(corpus.FIXTURES, "tone.ogg"), str(tmp_path / "direct"))
    assert read(wav.output) == read(report["output"])
    assert rows[urls[1]].error_code == "remote_not_found"
    # --timeout holds per file: a stalled server is a timeout row, not a hung or failed task.
    assert rows[urls[2]].error_code == "timeout"
    assert not any("value-7d1e" in (w.error_message or "") for w in rows.values())


def test_reserved_options_are_refused(spark, tmp_path):
    df = spark.createDataFrame([("x",)], "path string")
    with pytest.raises(ValueError):
        extract(df, str(tmp_path), binary=MEDIA2WAV, extra_args=["--output-dir", "/tmp"])
    with pytest.raises(ValueError):
        extract(df.withColumnRenamed("path", "p"), str(tmp_path), binary=MEDIA2WAV)
