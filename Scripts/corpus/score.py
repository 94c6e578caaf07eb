#!/usr/bin/env python3
"""Score mediaprobe and its peers on a corpus of real-world files made by others.

    Scripts/corpus/fetch.sh                 # downloads and selects the corpus, installs the tools
    Scripts/corpus/score.py [--jobs N] [--report FILE] [--mediaprobe BIN] [--only SUBSTR] [--no-cache]

The corpus is $CORPUS_CACHE/corpus/manifest.tsv (default /work/corpus-cache). For every file the
truth ("oracle") comes from decoders, not from container headers. One run per file of

    ffmpeg -copyts -i F -map 0:<each audio/video stream but cover art> -c:a pcm_s32le
           -c:v wrapped_avframe -fps_mode passthrough -enc_time_base -1 -f framecrc -

lists every frame FFmpeg's decoders output (skip samples, edit lists and discard flags applied)
with its timestamp and, for audio, its size. Which oracle decides each check:

  audio stream_duration   decoded samples / decoded sample rate (the gapless presented length);
        in MP4/MOV, when the container's duration (an edit list's end) falls inside the last
        decoded frame, it decides (FFmpeg 5.1 does not trim decoded audio at an edit's end).
        Audio-only files whose format has a reference decoder are decided by it instead, since it
        defines the format's presented length: oggdec (libvorbisfile), opusdec (libopusfile),
        flac (libFLAC, also Ogg FLAC), mpg123, wvunpack (WavPack), mpcdec (Musepack SV7/SV8).
        Measured reason: FFmpeg 5.1 outputs whole Vorbis blocks past the last granule position on
        some files, pads Musepack's last frame and DSD's last block. DSF is decided by its header's
        sample count (read by mutagen): the rest of the last block is padding by the spec.
        Where the reference and FFmpeg's decoder differ, the check is listed with both ("split").
  video stream_duration   first decoded frame's pts to the last one's, plus how long the last
        frame shows: the demuxer's duration for that packet, else the median frame interval. When
        the container's own stream duration ends inside that last frame (an edit list stopping
        mid-frame), that end decides. (FFmpeg's CLI invents durations for frames; not used.)
  file_duration           the union of the audio/video streams' spans, earliest start to latest
        end (mediaprobe --scan answers it with `span`; its `duration` is the container's declared
        presentation duration, which this corpus has no independent oracle for) (from the decoded timestamps; for a reference-decided audio-only file, its length).
  frame_count             video: frames the decoder outputs. Audio: packets the demuxer presents
        (ffprobe -show_packets less the D = discard ones), as the brief asks; the decoder's frame
        count is kept beside it in the report. PCM/ADPCM/DSD audio is not checked: its packets are
        the demuxer's arbitrary chunks, not frames.
  frame_rate              video whose decoded frame intervals are all the median interval, give
        or take one tick of rounding when the median is at least 10 ticks: (frames - 1) / (last pts
        - first pts). VFR video and streams of fewer than 3 frames are not checked.
  sample_rate, channels   of the decoder's output (HE-AAC: the SBR rate), from framecrc's header.

Not scored: streams FFmpeg cannot decode (no oracle); cover art; and duration checks of audio
whose decoded timestamps do not span its decoded samples (overlapping or gapped timestamps in
damaged or cut files: a player following the samples and one following the clock present
different lengths) -- these are listed in the report as "ambiguous".

Tolerances: a duration is right within max(1 ms, half of the stream's median frame duration);
PCM-like audio (one sample per "frame") gets 1 ms. A file duration takes the largest tolerance
of its streams. A frame rate is right within 0.05 % (relative). Counts, sample rates and channel
counts must be exact.

mutagen (pinned) cross-checks: it reads the length of audio-only files it understands; where it
and the oracle disagree beyond the tolerance the file is listed in "oracle_disputes" (mostly
bit-rate estimates of MP3s without a Xing header, and truncated test files whose headers claim
more than is there).

Tools scored (each answer is right, wrong or unanswered = null, missing, or the tool failed):
  mediaprobe, mediaprobe --scan   --ndjson: duration, streams[i].duration (value/timescale),
                                  frame_count, video.frame_rate.best, audio.sample_rate/channels
  ffprobe                         -show_format -show_streams: format.duration, stream duration
                                  (else a Matroska DURATION tag), nb_frames, avg_frame_rate (else
                                  r_frame_rate), sample_rate, channels
  ffprobe -count_packets          the same, with frame_count = nb_read_packets
  mediainfo                       --Output=JSON: General Duration; per track Duration,
                                  FrameCount, FrameRate, SamplingRate, Channels (tracks matched
                                  to streams by their order within each type)

Output: a table per tool and check type, mediaprobe's misses grouped into classes with examples,
per-source scores, and a JSON report (default $CORPUS_CACHE/report.json) with every disagreement
of every tool, the splits, the ambiguous checks, the mutagen disputes and each file's oracle.
ffprobe/mediainfo/oracle results are cached per file sha256 and tool versions under
$CORPUS_CACHE/peer-cache (--no-cache recomputes them); mediaprobe always runs.
"""

import argparse
import collections
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CACHE = os.environ.get("CORPUS_CACHE", "/work/corpus-cache")

TOOLS = ["mediaprobe", "mediaprobe --scan", "ffprobe", "ffprobe -count_packets", "mediainfo"]
CHECKS = ["file_duration", "stream_duration", "frame_count", "frame_rate", "sample_rate", "channels"]
PCM_LIKE_PREFIXES = ("pcm_", "adpcm_", "dsd_")
RATE_TOLERANCE = 0.0005
ORACLE_VERSION = 6  # bump when oracle_for changes: cached oracles are keyed by it


def run(cmd, timeout=300, binary=False):
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    out = r.stdout if binary else r.stdout.decode("utf-8", "replace")
    return (out if r.returncode == 0 else None), r.stderr.decode("utf-8", "replace")[-2000:]


def pcm_like(codec):
    return bool(codec) and codec.startswith(PCM_LIKE_PREFIXES)


# ------------------------------------------------------------------------------------------------
# Channel layouts: framecrc prints a layout name; ffmpeg -layouts says how many channels it has.
_LAYOUTS = None


def channels_of_layout(name):
    global _LAYOUTS
    if _LAYOUTS is None:
        _LAYOUTS = {}
        out, _ = run(["ffmpeg", "-hide_banner", "-layouts"])
        std = False
        for line in (out or "").splitlines():
            if line.startswith("Standard channel layouts"):
                std = True
                continue
            parts = line.split()
            if std and len(parts) == 2 and parts[0] != "NAME":
                _LAYOUTS[parts[0]] = parts[1].count("+") + 1
    if name in _LAYOUTS:
        return _LAYOUTS[name]
    w = name.split()
    if len(w) == 2 and w[1] in ("channels", "channel") and w[0].isdigit():
        return int(w[0])
    if name.startswith("unknown") or "+" in name:
        return None
    return None


# ------------------------------------------------------------------------------------------------
# The oracle.


def ffprobe_plain(path):
    out, err = run(["ffprobe", "-v", "error", "-of", "json", "-show_format", "-show_streams", path])
    try:
        return json.loads(out) if out else {"error": err.strip()[:300]}
    except ValueError:
        return {"error": "bad json"}


def ffprobe_counted(path):
    """ffprobe -count_packets, with the packet list (stream index, flags) for the oracle."""
    out, err = run(["ffprobe", "-v", "error", "-of", "json", "-count_packets", "-show_format",
                    "-show_streams", "-show_entries", "packet=stream_index,pts,duration,flags", path], timeout=600)
    try:
        j = json.loads(out) if out else None
    except ValueError:
        j = None
    if j is None:
        return {"error": err.strip()[:300]}
    counts = collections.Counter()
    discarded = collections.Counter()
    last = {}
    for p in j.pop("packets", []):
        i = p.get("stream_index")
        counts[i] += 1
        if "D" in p.get("flags", ""):
            discarded[i] += 1
            continue
        pts = p.get("pts")
        if isinstance(pts, int) and (i not in last or pts >= last[i][0]):
            d = p.get("duration")
            last[i] = (pts, d if isinstance(d, int) and d > 0 else None)
    j["packet_counts"] = {str(k): v for k, v in counts.items()}
    j["discarded_counts"] = {str(k): v for k, v in discarded.items()}
    j["last_presented_packet"] = {str(k): v for k, v in last.items()}
    return j


def parse_framecrc(text):
    """{output index: {tb, type, sample_rate, layout, frames: [(pts, duration, size)]}}"""
    streams = {}
    for line in text.splitlines():
        if line.startswith("#"):
            if ":" not in line or " " not in line:
                continue
            key_idx, value = line[1:].split(":", 1)
            parts = key_idx.split()
            if len(parts) != 2 or not parts[1].isdigit():
                continue
            key, idx = parts[0], int(parts[1])
            s = streams.setdefault(idx, {"frames": []})
            value = value.strip()
            if key == "tb":
                n, d = value.split("/")
                s["tb"] = Fraction(int(n), int(d))
            elif key == "media_type":
                s["type"] = value
            elif key == "sample_rate":
                s["sample_rate"] = int(value)
            elif key == "channel_layout_name":
                s["layout"] = value
            continue
        f = [x.strip() for x in line.split(",")]
        if len(f) < 6 or not f[0].isdigit():
            continue
        streams.setdefault(int(f[0]), {"frames": []})["frames"].append((int(f[2]), int(f[3]), int(f[4])))
    return streams


def decode_streams(path, indexes):
    """Decode the given absolute stream indexes; returns {abs index: parsed framecrc stream}."""
    def cmd(idx):
        c = ["ffmpeg", "-nostdin", "-v", "error", "-threads", "1", "-copyts", "-i", path]
        for i in idx:
            c += ["-map", f"0:{i}"]
        return c + ["-c:a", "pcm_s32le", "-c:v", "wrapped_avframe", "-fps_mode", "passthrough",
                    "-enc_time_base", "-1", "-max_muxing_queue_size", "100000", "-f", "framecrc", "-"]

    out, err = run(cmd(indexes), timeout=900)
    result, errors = {}, {}
    if out is not None:
        parsed = parse_framecrc(out)
        for k, i in enumerate(indexes):
            result[i] = parsed.get(k)
        return result, errors
    # One stream that cannot be decoded fails the whole run: decode each stream alone.
    for i in indexes:
        o, e = run(cmd([i]), timeout=900)
        if o is None:
            errors[i] = (e or "").strip()[:300]
            result[i] = None
        else:
            result[i] = parse_framecrc(o).get(0)
    return result, errors


# Reference decoders (each format's own library), used where one exists: Xiph's oggdec
# (libvorbisfile) and opusdec (libopusfile), the flac tool (libFLAC), mpg123, wvunpack and
# mpcdec (libmpcdec). They
# decide an audio-only file's presented length, because they define it: FFmpeg 5.1's Vorbis path,
# for one, outputs whole blocks past the last page's granule position when the page lacks the
# end-of-stream flag, where libvorbisfile trims to the granule.
def reference_command(fmt, codec, path, out):
    fmt0 = (fmt or "").split(",")[0]
    if fmt0 == "ogg" and codec == "vorbis":
        return ["oggdec", "-Q", "-o", out, path]
    if fmt0 == "ogg" and codec == "opus":
        return ["opusdec", "--quiet", "--rate", "48000", path, out]
    if fmt0 == "flac" and codec == "flac":
        return ["flac", "-d", "-s", "-f", "-F", "-o", out, path]
    if fmt0 == "ogg" and codec == "flac":
        return ["flac", "-d", "-s", "-f", "-F", "--ogg", "-o", out, path]
    if fmt0 == "mp3" and codec == "mp3":
        return ["mpg123", "-q", "-w", out, path]
    if fmt0 == "wv" and codec == "wavpack":
        return ["wvunpack", "-q", "-y", path, "-o", out]
    if fmt0 in ("mpc", "mpc8") and codec in ("musepack7", "musepack8"):
        return ["mpcdec", path, out]
    return None


def wav_samples(path):
    """(samples, rate, channels) of a WAV file, counting the data that is really there."""
    import struct
    with open(path, "rb") as f:
        d = f.read()
    if d[:4] not in (b"RIFF", b"RF64") or d[8:12] != b"WAVE":
        return None
    i, fmt = 12, None
    while i + 8 <= len(d):
        cid, size = d[i:i + 4], struct.unpack("<I", d[i + 4:i + 8])[0]
        if cid == b"fmt ":
            _tag, ch, rate, _bps, align, _bits = struct.unpack("<HHIIHH", d[i + 8:i + 24])
            fmt = (ch, rate, align)
        if cid == b"data" and fmt:
            n = min(size, len(d) - i - 8) if size not in (0, 0xFFFFFFFF) else len(d) - i - 8
            return n // fmt[2], fmt[1], fmt[0]
        i += 8 + size + (size & 1)
    return None


def reference_decode(fmt, codec, path):
    import tempfile
    with tempfile.TemporaryDirectory() as td:
        out = os.path.join(td, "out.wav")
        cmd = reference_command(fmt, codec, path, out)
        if cmd is None:
            return None
        try:
            r = subprocess.run(cmd, capture_output=True, timeout=600)
        except (subprocess.TimeoutExpired, FileNotFoundError) as e:
            return {"tool": cmd[0], "error": type(e).__name__}
        got = wav_samples(out) if os.path.exists(out) else None
        if not got or got[0] == 0:
            return {"tool": cmd[0], "error": r.stderr.decode("utf-8", "replace").strip()[-200:] or "no output"}
        return {"tool": cmd[0], "samples": got[0], "sample_rate": got[1], "channels": got[2],
                "exit": r.returncode}


def oracle_for(path, plain, counted):
    """The truth for one file, from its decoded frames (see the module doc)."""
    streams = plain.get("streams") or []
    av = [s for s in streams if s.get("codec_type") in ("audio", "video")
          and not (s.get("disposition") or {}).get("attached_pic")]
    o = {"streams": {}, "file": None, "decode_errors": {}}
    if not av:
        return o
    fmt0 = ((plain.get("format") or {}).get("format_name") or "").split(",")[0]
    decoded, errors = decode_streams(path, [s["index"] for s in av])
    o["decode_errors"] = {str(k): v for k, v in errors.items()}
    spans, tols = [], []
    for s in av:
        i = s["index"]
        d = decoded.get(i)
        if not d or not d.get("frames") or "tb" not in d:
            continue
        tb = d["tb"]
        frames = d["frames"]
        codec = s.get("codec_name")
        entry = {"type": s["codec_type"], "codec": codec, "decoded_frames": len(frames)}
        if s["codec_type"] == "audio":
            ch = channels_of_layout(d.get("layout", ""))
            rate = d.get("sample_rate")
            if not ch or not rate:
                continue
            sizes = [f[2] for f in frames]
            samples = sum(sizes) // (4 * ch)
            dur = Fraction(samples, rate)
            start = frames[0][0] * tb
            # MP4/MOV: an edit list can end the presentation inside the last audio frame, and
            # FFmpeg 5.1's decoder output is not trimmed there; when the container's duration (the
            # edit's end) falls inside the last decoded frame, it decides.
            declared = num(s.get("duration"))
            last_frame = Fraction(sizes[-1] // (4 * ch), rate)
            if fmt0 == "mov" and declared is not None and float(dur - last_frame) < declared < float(dur):
                entry["ffmpeg_decoded_duration"] = float(dur)
                dur = Fraction(declared).limit_denominator(10**9)
                samples = None
                entry["duration_oracle"] = "container end inside the last frame"
            per_frame = Fraction(int(statistics.median(sizes)) // (4 * ch), rate)
            tol = Fraction(1, 1000) if pcm_like(codec) else max(Fraction(1, 1000), per_frame / 2)
            entry.update(sample_rate=rate, channels=ch, samples=samples,
                         stream_duration=float(dur), tolerance=float(tol))
            # The decoded frames' own timestamps should span what their samples last; where they
            # do not (overlapping or gapped timestamps: a damaged or cut file), the length a
            # player presents depends on whether it follows the samples or the clock.
            ts_end = max(f[0] * tb + Fraction(f[2] // (4 * ch), rate) for f in frames)
            entry["timestamp_span"] = float(ts_end - start)
            entry["decoded_duration"] = float(sum(sizes) // (4 * ch) / Fraction(rate))
            if not pcm_like(codec) and "packet_counts" in counted:
                n = counted["packet_counts"].get(str(i), 0) - counted["discarded_counts"].get(str(i), 0)
                entry["frame_count"] = n
            spans.append((start, start + dur))
            tols.append(tol)
        else:
            pts = sorted(f[0] for f in frames)
            intervals = [b - a for a, b in zip(pts, pts[1:])]
            med = Fraction(statistics.median(intervals)) if intervals else None
            # How long the last frame shows is the container's to say (a decoder does not know):
            # the duration of the last presented packet when the demuxer gives one, else the
            # median frame interval. When the container's own stream duration ends inside that
            # last frame (an edit list that stops mid-frame), it decides.
            lp = (counted.get("last_presented_packet") or {}).get(str(i))
            if lp and lp[1] and lp[0] == pts[-1]:
                last_dur = Fraction(lp[1])
            else:
                last_dur = med or Fraction(0)
            dur = (pts[-1] - pts[0] + last_dur) * tb
            declared = num(s.get("duration"))
            span = (pts[-1] - pts[0]) * tb
            if declared is not None and float(span) < declared < float(dur):
                dur = Fraction(declared).limit_denominator(10**9)
                entry["duration_oracle"] = "container end inside the last frame"
            tol = max(Fraction(1, 1000), (med * tb / 2) if med else Fraction(1, 1000))
            entry.update(frame_count=len(frames), stream_duration=float(dur), tolerance=float(tol))
            # Constant rate: every interval equals the median, give or take one tick of rounding
            # when the median spans at least 10 ticks (a 1/15 time base has no rounding to forgive:
            # an interval of 2 there is a dropped frame).
            slack = 1 if med is not None and med >= 10 else 0
            if len(pts) >= 3 and pts[-1] > pts[0] and all(abs(x - med) <= slack for x in intervals):
                entry["frame_rate"] = float(Fraction(len(pts) - 1) / ((pts[-1] - pts[0]) * tb))
                entry["cfr"] = True
            elif len(pts) >= 3:
                entry["cfr"] = False
            spans.append((pts[0] * tb, pts[0] * tb + dur))
            tols.append(tol)
        o["streams"][str(i)] = entry
    if spans:
        o["file"] = {"file_duration": float(max(e for _, e in spans) - min(b for b, _ in spans)),
                     "tolerance": float(max(tols))}
    # An audio-only file with a reference decoder: that decoder's length decides.
    if len(o["streams"]) == 1 and len(av) == 1 and av[0]["codec_type"] == "audio":
        e = next(iter(o["streams"].values()))
        ref = reference_decode((plain.get("format") or {}).get("format_name"), e["codec"], path)
        if ref is not None:
            e["reference"] = ref
            if "samples" in ref:
                e["ffmpeg_stream_duration"] = e["stream_duration"]
                e["stream_duration"] = ref["samples"] / ref["sample_rate"]
                e["duration_oracle"] = ref["tool"]
                o["file"]["file_duration"] = e["stream_duration"]
    # DSF: the header's sample count is the length; the last block's zero padding, which
    # FFmpeg's DSD decoders output, is not audio (DSF spec). mutagen reads that count.
    if fmt0 == "dsf" and len(o["streams"]) == 1:
        e = next(iter(o["streams"].values()))
        m = mutagen_length(path)
        if m and "length" in m:
            e["ffmpeg_stream_duration"] = e["stream_duration"]
            e["stream_duration"] = m["length"]
            e["duration_oracle"] = "mutagen (DSF sample count)"
            o["file"]["file_duration"] = m["length"]
    for e in o["streams"].values():
        e.setdefault("duration_oracle", "ffmpeg")
    return o


def mutagen_length(path):
    try:
        import mutagen
        f = mutagen.File(path)
        if f is None or f.info is None or not getattr(f.info, "length", None):
            return None
        return {"length": float(f.info.length), "type": type(f).__name__}
    except Exception as e:  # mutagen raises on what it cannot parse
        return {"error": type(e).__name__}


# ------------------------------------------------------------------------------------------------
# The tools' answers: {"file_duration": x, "streams": {idx: {check: x}}, "error": ...}


def num(x):
    if x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if v == v else None


def rate(r):
    if not r or "/" not in r:
        return None
    n, d = r.split("/")
    return float(n) / float(d) if float(d) != 0 and float(n) != 0 else None


def matroska_duration_tag(tags):
    for k, v in (tags or {}).items():
        if k.upper() == "DURATION" and isinstance(v, str) and v.count(":") == 2:
            h, m, s = v.split(":")
            try:
                return int(h) * 3600 + int(m) * 60 + float(s)
            except ValueError:
                return None
    return None


def answers_ffprobe(j, counted):
    if not j or "error" in j or "format" not in j:
        return {"error": (j or {}).get("error", "failed"), "streams": {}}
    a = {"file_duration": num(j["format"].get("duration")), "streams": {}}
    for s in j.get("streams", []):
        d = num(s.get("duration"))
        if d is None:
            d = matroska_duration_tag(s.get("tags"))
        x = {"stream_duration": d,
             "frame_count": int(s["nb_read_packets"]) if counted and s.get("nb_read_packets") not in (None, "N/A")
             else (int(s["nb_frames"]) if not counted and s.get("nb_frames") not in (None, "N/A", "0") else None)}
        if s.get("codec_type") == "video":
            x["frame_rate"] = rate(s.get("avg_frame_rate")) or rate(s.get("r_frame_rate"))
        if s.get("codec_type") == "audio":
            x["sample_rate"] = int(s["sample_rate"]) if s.get("sample_rate") not in (None, "0") else None
            x["channels"] = s.get("channels") or None
        a["streams"][str(s["index"])] = x
    return a


def answers_mediaprobe(j):
    if j is None or "error" in j:
        return {"error": (j or {}).get("error", {"code": "missing"}), "streams": {}}

    def dur(d):
        if not d:
            return None
        if d.get("value") is not None and d.get("timescale"):
            return d["value"] / d["timescale"]
        return num(d.get("seconds"))

    # The oracle's file_duration is the samples' span: with --scan, mediaprobe reports it as
    # `span` (its `duration` is the container's declared presentation duration, issue 26).
    span = j.get("span")
    a = {"file_duration": dur(span) if span else dur(j.get("duration")), "streams": {}}
    for s in j.get("streams", []):
        x = {"stream_duration": dur(s.get("duration")), "frame_count": s.get("frame_count")}
        if s.get("video"):
            fr = (s["video"].get("frame_rate") or {}).get("best")
            x["frame_rate"] = num(fr.get("value")) if fr else None
        if s.get("audio"):
            x["sample_rate"] = s["audio"].get("sample_rate")
            x["channels"] = s["audio"].get("channels")
        a["streams"][str(s["index"])] = x
    return a


def answers_mediainfo(track_list, plain):
    if not track_list:
        return {"error": "no media", "streams": {}}
    general = next((t for t in track_list if t.get("@type") == "General"), {})
    a = {"file_duration": num(general.get("Duration")), "streams": {}}
    by_type = {"Audio": [t for t in track_list if t.get("@type") == "Audio"],
               "Video": [t for t in track_list if t.get("@type") == "Video"]}
    streams = [s for s in (plain.get("streams") or []) if s.get("codec_type") in ("audio", "video")
               and not (s.get("disposition") or {}).get("attached_pic")]
    seen = collections.Counter()
    for s in streams:
        kind = "Audio" if s["codec_type"] == "audio" else "Video"
        k = seen[kind]
        seen[kind] += 1
        if k >= len(by_type[kind]):
            continue
        t = by_type[kind][k]
        fc = num(t.get("FrameCount"))
        x = {"stream_duration": num(t.get("Duration")), "frame_count": int(fc) if fc is not None else None}
        if kind == "Video":
            x["frame_rate"] = num(t.get("FrameRate"))
        else:
            sr = num(t.get("SamplingRate"))
            ch = num(t.get("Channels"))
            x["sample_rate"] = int(sr) if sr else None
            x["channels"] = int(ch) if ch else None
        a["streams"][str(s["index"])] = x
    return a


# ------------------------------------------------------------------------------------------------


def tool_version(cmd):
    out, _ = run(cmd)
    return (out or "").splitlines()[0] if out else "?"


def cached(cache_dir, key, fn):
    if cache_dir is None:
        return fn()
    p = os.path.join(cache_dir, key[:2], key + ".json")
    if os.path.exists(p):
        with open(p) as f:
            return json.load(f)
    v = fn()
    os.makedirs(os.path.dirname(p), exist_ok=True)
    tmp = p + ".tmp%d" % os.getpid()
    with open(tmp, "w") as f:
        json.dump(v, f)
    os.replace(tmp, p)
    return v


def run_batch(cmd_prefix, paths, chunk=100, timeout=1800):
    """Runs a batch tool (mediaprobe) over paths in chunks; returns its stdout pieces. mediaprobe
    exits 1 when some input failed: its standard output is complete all the same."""
    outs = []
    for k in range(0, len(paths), chunk):
        r = subprocess.run(cmd_prefix + ["--"] + paths[k:k + chunk], capture_output=True, timeout=timeout)
        outs.append(r.stdout.decode("utf-8", "replace"))
    return outs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", default=CACHE)
    ap.add_argument("--mediaprobe", default=os.path.join(REPO, ".build", "debug", "mediaprobe"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--report", default=None, help="JSON report (default CACHE/report.json)")
    ap.add_argument("--only", default=None, help="only files whose path contains this")
    ap.add_argument("--no-cache", action="store_true", help="rerun ffprobe, mediainfo and the oracle")
    ap.add_argument("--examples", type=int, default=3)
    args = ap.parse_args()

    t0 = time.time()
    root = os.path.join(args.cache, "corpus")
    manifest = os.path.join(root, "manifest.tsv")
    if not os.path.exists(manifest):
        sys.exit(f"score: no corpus at {manifest}: run Scripts/corpus/fetch.sh first")
    if not os.access(args.mediaprobe, os.X_OK):
        sys.exit(f"score: no mediaprobe binary at {args.mediaprobe}: run swift build")
    rows = []
    with open(manifest) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            if line.strip():
                rows.append(dict(zip(header, line.rstrip("\n").split("\t"))))
    if args.only:
        rows = [r for r in rows if args.only in r["path"]]
    paths = [os.path.join(root, r["path"]) for r in rows]
    os.chdir(root)
    rel = [r["path"] for r in rows]

    versions = {
        "ffmpeg": tool_version(["ffmpeg", "-version"]),
        "mediainfo": " ".join(tool_version(["mediainfo", "--Version"]).split()) + " " +
        " ".join((run(["mediainfo", "--Version"])[0] or "").split()[-1:]),
        "mutagen": __import__("mutagen").version_string if _has_mutagen() else None,
    }
    vkey = hashlib.sha256(json.dumps(versions, sort_keys=True).encode() + b"peers-v2").hexdigest()[:12]
    with open(args.mediaprobe, "rb") as f:
        mp_sha = hashlib.sha256(f.read()).hexdigest()
    head, _ = run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"])
    dirty, _ = run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no", "Sources", "Package.swift"])
    versions["mediaprobe"] = {
        "path": os.path.abspath(args.mediaprobe), "sha256": mp_sha,
        "built": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(os.path.getmtime(args.mediaprobe))) + " UTC",
        "repo_head": (head or "?").strip(), "sources_modified": bool((dirty or "").strip())}
    peer_cache = None if args.no_cache else os.path.join(args.cache, "peer-cache", vkey)

    # mediaprobe, both modes, in batches (always fresh: it is what is under test).
    mp = {}
    for mode, extra in (("mediaprobe", []), ("mediaprobe --scan", ["--scan"])):
        got = {}
        for out in run_batch([args.mediaprobe, "--ndjson", "--jobs", str(args.jobs), "--timeout", "120"] + extra, rel):
            for line in out.splitlines():
                if line.strip():
                    j = json.loads(line)
                    got[j.get("path")] = j
        mp[mode] = got
    t_mp = time.time() - t0

    # mediainfo, in batches (cached per file).
    mi = {}
    todo = []
    for r in rows:
        key = "mi-" + r["sha256"]
        p = os.path.join(peer_cache, key[:2], key + ".json") if peer_cache else None
        if p and os.path.exists(p):
            with open(p) as f:
                mi[r["path"]] = json.load(f)
        else:
            todo.append(r)
    for k in range(0, len(todo), 40):
        chunk = todo[k:k + 40]
        out, _ = run(["mediainfo", "--Output=JSON"] + [r["path"] for r in chunk], timeout=1800)
        try:
            j = json.loads(out) if out else []
        except ValueError:
            j = []
        if isinstance(j, dict):
            j = [j]
        by_ref = {}
        for m in j:
            media = m.get("media") or {}
            by_ref[media.get("@ref")] = media.get("track") or []
        for r in chunk:
            tracks = by_ref.get(r["path"], [])
            mi[r["path"]] = tracks
            cached(peer_cache, "mi-" + r["sha256"], lambda: tracks)

    # ffprobe (both ways), the oracle and mutagen, per file in parallel (cached per file).
    def per_file(r):
        p = r["path"]
        plain = cached(peer_cache, "fp-" + r["sha256"], lambda: ffprobe_plain(p))
        counted = cached(peer_cache, "fc-" + r["sha256"], lambda: ffprobe_counted(p))
        oracle = cached(peer_cache, f"or{ORACLE_VERSION}-" + r["sha256"], lambda: oracle_for(p, plain, counted))
        mut = cached(peer_cache, "mu-" + r["sha256"], lambda: mutagen_length(p))
        return p, plain, counted, oracle, mut

    with ThreadPoolExecutor(args.jobs) as ex:
        results = list(ex.map(per_file, rows))
    t_all = time.time() - t0

    # ---- scoring
    checks = []  # dicts: file, stream, check, truth, tol, answers{tool: value}
    files_info = {}
    disputes = []
    for r, (p, plain, counted, oracle, mut) in zip(rows, results):
        ans = {
            "mediaprobe": answers_mediaprobe(mp["mediaprobe"].get(p)),
            "mediaprobe --scan": answers_mediaprobe(mp["mediaprobe --scan"].get(p)),
            "ffprobe": answers_ffprobe(plain, False),
            "ffprobe -count_packets": answers_ffprobe(counted, True),
            "mediainfo": answers_mediainfo(mi.get(p), plain),
        }
        fmt = (plain.get("format") or {}).get("format_name")
        codecs = {str(s["index"]): s.get("codec_name") for s in plain.get("streams") or []}
        files_info[p] = {"source": r["source"], "format": fmt, "oracle": oracle, "mutagen": mut,
                         "codecs": codecs}
        ambiguous = {i for i, e in oracle["streams"].items()
                     if e["type"] == "audio" and "timestamp_span" in e and "ffmpeg_stream_duration" not in e
                     and abs(e["timestamp_span"] - e["decoded_duration"]) > e["tolerance"]}
        if oracle.get("file"):
            checks.append({"file": p, "stream": None, "check": "file_duration",
                           "truth": oracle["file"]["file_duration"], "tol": oracle["file"]["tolerance"],
                           "answers": {t: ans[t].get("file_duration") for t in TOOLS},
                           "format": fmt, "codec": "+".join(sorted({e["codec"] or "?" for e in oracle["streams"].values()}))})
            if ambiguous:
                checks[-1]["ambiguous"] = "an audio stream's timestamps do not span its samples"
            only = list(oracle["streams"].values())
            if len(only) == 1 and "ffmpeg_stream_duration" in only[0]:
                alt = only[0]["ffmpeg_stream_duration"]
                if abs(alt - only[0]["stream_duration"]) > only[0]["tolerance"]:
                    checks[-1]["split"] = {"oracle": only[0]["duration_oracle"], "ffmpeg": alt}
            only_audio = len(oracle["streams"]) == 1 and next(iter(oracle["streams"].values()))["type"] == "audio"
            if only_audio and mut and "length" in mut:
                diff = abs(mut["length"] - oracle["file"]["file_duration"])
                if diff > oracle["file"]["tolerance"]:
                    disputes.append({"file": p, "oracle": oracle["file"]["file_duration"],
                                     "mutagen": mut["length"], "mutagen_type": mut["type"]})
        for idx, e in oracle["streams"].items():
            for c in ("stream_duration", "frame_count", "frame_rate", "sample_rate", "channels"):
                if c not in e:
                    continue
                checks.append({"file": p, "stream": idx, "check": c, "truth": e[c],
                               "tol": e.get("tolerance") if c == "stream_duration" else None,
                               "answers": {t: ans[t]["streams"].get(idx, {}).get(c) for t in TOOLS},
                               "format": fmt, "codec": e["codec"], "type": e["type"]})
                if c == "stream_duration" and idx in ambiguous:
                    checks[-1]["ambiguous"] = "the stream's timestamps do not span its samples"
                if c == "stream_duration" and "ffmpeg_stream_duration" in e and \
                        abs(e["ffmpeg_stream_duration"] - e[c]) > e["tolerance"]:
                    checks[-1]["split"] = {"oracle": e["duration_oracle"], "ffmpeg": e["ffmpeg_stream_duration"]}
        for t in TOOLS:
            files_info[p].setdefault("tool_errors", {})
            if ans[t].get("error"):
                files_info[p]["tool_errors"][t] = ans[t]["error"]

    def verdict(c, v):
        if v is None:
            return "unanswered"
        t = c["truth"]
        if c["check"] in ("file_duration", "stream_duration"):
            return "right" if abs(v - t) <= c["tol"] + 1e-9 else "wrong"
        if c["check"] == "frame_rate":
            return "right" if abs(v / t - 1) <= RATE_TOLERANCE else "wrong"
        return "right" if v == t else "wrong"

    excluded = [c for c in checks if "ambiguous" in c]
    checks = [c for c in checks if "ambiguous" not in c]
    for c in excluded:
        c["verdicts"] = {t: verdict(c, c["answers"][t]) for t in TOOLS}
    for c in checks:
        c["verdicts"] = {t: verdict(c, c["answers"][t]) for t in TOOLS}
        if "split" in c:
            alt = dict(c, truth=c["split"]["ffmpeg"])
            c["split"]["verdicts_against_ffmpeg"] = {t: verdict(alt, c["answers"][t]) for t in TOOLS}

    # ---- table
    def table(subset, title):
        lines = [title, ""]
        hdr = f"{'check':<16}{'n':>6}  " + "  ".join(f"{t:>22}" for t in TOOLS)
        lines.append(hdr)
        lines.append(f"{'':<16}{'':>6}  " + "  ".join(f"{'right/wrong/null %':>22}" for _ in TOOLS))
        for name in CHECKS + ["all"]:
            cs = [c for c in subset if name == "all" or c["check"] == name]
            if not cs:
                continue
            cells = []
            for t in TOOLS:
                k = collections.Counter(c["verdicts"][t] for c in cs)
                n = len(cs)
                cells.append(f"{100*k['right']/n:6.1f} {100*k['wrong']/n:5.1f} {100*k['unanswered']/n:5.1f}")
            lines.append(f"{name:<16}{len(cs):>6}  " + "  ".join(f"{x:>22}" for x in cells))
        cells = []
        for t in TOOLS:
            k = collections.Counter(c["verdicts"][t] for c in subset)
            ans_n = k["right"] + k["wrong"]
            cells.append(f"{100*k['right']/ans_n:.1f}% of {ans_n}" if ans_n else "-")
        lines.append(f"{'right|answered':<22}" + "  ".join(f"{x:>22}" for x in cells))
        return "\n".join(lines)

    def per_container(subset):
        """Right answers per container, % of the checks there, so a regression in one shows."""
        fmts = collections.Counter((c["format"] or "?").split(",")[0] for c in subset)
        lines = ["== per container (right, % of n; every check)", "",
                 f"{'container':<16}{'n':>6}  " + "  ".join(f"{t:>22}" for t in TOOLS)]
        for fmt, n in fmts.most_common():
            cs = [c for c in subset if (c["format"] or "?").split(",")[0] == fmt]
            cells = [f"{100 * sum(c['verdicts'][t] == 'right' for c in cs) / n:6.1f}" for t in TOOLS]
            lines.append(f"{fmt:<16}{n:>6}  " + "  ".join(f"{x:>22}" for x in cells))
        return "\n".join(lines)

    out = []
    n_files = len(rows)
    n_checked = len({c["file"] for c in checks})
    m = versions["mediaprobe"]
    out.append(f"corpus: {n_files} files ({n_checked} with an oracle), {len(checks)} scored checks")
    out.append(f"mediaprobe: {m['path']} sha256 {m['sha256'][:16]} built {m['built']}; repo HEAD {m['repo_head']}"
               f"{' with modified Sources' if m['sources_modified'] else ''}")
    out.append(f"{versions['ffmpeg']}; mediainfo {versions['mediainfo']}; mutagen {versions['mutagen']}")
    out.append(table(checks, "== every check (right / wrong / unanswered, % of n)"))
    out.append("")
    out.append(per_container(checks))
    out.append("")

    # ---- mediaprobe's disagreements grouped into classes
    def direction(c, v):
        if c["check"] in ("file_duration", "stream_duration", "frame_count", "frame_rate"):
            return "over" if v > c["truth"] else "under"
        return "differs"

    def short_fmt(f):
        return (f or "?").split(",")[0]

    classes = {}
    for mode in ("mediaprobe --scan", "mediaprobe"):
        for c in checks:
            v = c["verdicts"][mode]
            if v == "right":
                continue
            how = "null" if v == "unanswered" else direction(c, c["answers"][mode])
            what = "duration" if c["check"].endswith("duration") else c["check"]
            key = (mode, what, short_fmt(c["format"]), c["codec"], how)
            classes.setdefault(key, []).append(c)
    out.append("== mediaprobe's misses by class (mode, what, container, codec, how), most checks first;")
    out.append("   'duration' counts file and stream durations together (the checks are listed)")
    for key, cs in sorted(classes.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        mode, what, fmt, codec, how = key
        kinds = collections.Counter(c["check"] for c in cs)
        out.append(f"{len(cs):4d}  {mode:<18} {what:<12} {fmt:<10} {codec:<22} {how:<7} "
                   f"{len({c['file'] for c in cs})} files ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))})")
        seen_files = []
        for c in cs:
            if c["file"] in seen_files:
                continue
            seen_files.append(c["file"])
            if len(seen_files) > args.examples:
                break
            vals = "  ".join(f"{t.replace('mediaprobe', 'mp').replace('ffprobe', 'fp')}={_fmt(c['answers'][t])}" for t in TOOLS)
            where = c["file"] + (f" #{c['stream']}" if c["stream"] is not None else "")
            out.append(f"        {where}\n          oracle={_fmt(c['truth'])} (tol {_fmt(c['tol'])})  {vals}")
    out.append("")

    # ---- per source, mediaprobe --scan
    out.append("== per source: checks, mediaprobe --scan right %, mediaprobe plain right %")
    by_src = collections.defaultdict(list)
    for c in checks:
        by_src[files_info[c["file"]]["source"]].append(c)
    for src, cs in sorted(by_src.items(), key=lambda kv: -len(kv[1])):
        k1 = sum(c["verdicts"]["mediaprobe --scan"] == "right" for c in cs)
        k2 = sum(c["verdicts"]["mediaprobe"] == "right" for c in cs)
        out.append(f"{len(cs):5d}  {100*k1/len(cs):6.1f}  {100*k2/len(cs):6.1f}  {src}")
    out.append("")

    # ---- oracle cross-check
    n_mut = sum(1 for p, fi in files_info.items() if fi["mutagen"] and "length" in (fi["mutagen"] or {})
                and fi["oracle"].get("file") and len(fi["oracle"]["streams"]) == 1
                and next(iter(fi["oracle"]["streams"].values()))["type"] == "audio")
    out.append(f"== oracle cross-check: mutagen {versions['mutagen']} read the length of {n_mut} audio-only files; "
               f"it disagrees with the oracle on {len(disputes)} (listed in the report as oracle_disputes)")
    split = [c for c in checks if "split" in c]
    by_tool = collections.Counter(c["split"]["oracle"] for c in split)
    n_ref = sum(1 for fi in files_info.values() for e in fi["oracle"]["streams"].values()
                if "ffmpeg_stream_duration" in e)
    out.append(f"== reference decoders (or the DSF header) decided the length of {n_ref} audio-only files; on "
               f"{len({c['file'] for c in split})} of them ffmpeg's decoder output differs by more than "
               f"the tolerance ({', '.join(f'{k}: {v} checks' for k, v in sorted(by_tool.items()))})")
    for t in TOOLS:
        a = sum(c["verdicts"][t] == "right" for c in split)
        b = sum(c["split"]["verdicts_against_ffmpeg"][t] == "right" for c in split)
        out.append(f"     {t:<24} right on {a} of these {len(split)} checks against the reference, {b} against ffmpeg")
    out.append(f"== not scored: {len(excluded)} duration checks on {len({c['file'] for c in excluded})} files whose "
               "audio timestamps and samples disagree (no single presented length; in the report as 'ambiguous')")
    errs = collections.Counter()
    for p, fi in files_info.items():
        for t, e in fi.get("tool_errors", {}).items():
            errs[t] += 1
    out.append("== files a tool failed on: " + ", ".join(f"{t}: {errs[t]}" for t in TOOLS))
    out.append(f"== time: {t_all:.0f} s (mediaprobe both modes {t_mp:.1f} s), jobs {args.jobs}")
    text = "\n".join(out)
    print(text)

    report = {
        "versions": versions,
        "mediaprobe": args.mediaprobe,
        "files": n_files,
        "checks": len(checks),
        "summary": {t: {name: dict(collections.Counter(c["verdicts"][t] for c in checks
                                                        if name == "all" or c["check"] == name))
                        for name in CHECKS + ["all"]} for t in TOOLS},
        "disagreements": [
            {"file": c["file"], "stream": c["stream"], "check": c["check"], "format": c["format"],
             "codec": c["codec"], "truth": c["truth"], "tolerance": c["tol"],
             "answers": c["answers"], "verdicts": c["verdicts"], "split": c.get("split")}
            for c in checks if any(v != "right" for v in c["verdicts"].values())],
        "mediaprobe_classes": [
            {"mode": k[0], "what": k[1], "container": k[2], "codec": k[3], "how": k[4],
             "checks": len(v), "files": sorted({c["file"] for c in v})}
            for k, v in sorted(classes.items(), key=lambda kv: -len(kv[1]))],
        "oracle_disputes": disputes,
        "ambiguous": [{"file": c["file"], "stream": c["stream"], "check": c["check"], "why": c["ambiguous"],
                       "decoded_samples_length": c["truth"], "answers": c["answers"]} for c in excluded],
        "files_info": files_info,
        "mediaprobe_errors": {p: fi["tool_errors"].get("mediaprobe") for p, fi in files_info.items()
                              if fi["tool_errors"].get("mediaprobe")},
    }
    rp = args.report or os.path.join(args.cache, "report.json")
    with open(rp, "w") as f:
        json.dump(report, f, indent=1, default=str)
    print(f"report: {rp}")


def _fmt(v):
    if v is None:
        return "null"
    if isinstance(v, float):
        return f"{v:.6g}" if abs(v) < 1e5 else f"{v:.0f}"
    return str(v)


def _has_mutagen():
    try:
        import mutagen  # noqa: F401
        return True
    except ImportError:
        return False


if __name__ == "__main__":
    main()
