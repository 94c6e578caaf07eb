#!/usr/bin/env python3
"""The real-player oracle: plays a corpus in headless Chromium and Firefox ESR and compares each
file's real outcome with mediacompat's chrome and firefox verdicts.

    oracle.py --corpus DIR --mediacompat PATH [--browsers chromium,firefox] [--timeout S]

The corpus (Scripts/browser-oracle/make-corpus.sh) is served from a loopback HTTP server with
Range support on a random port; player.html plays each file in a <video> element and posts what
happened back to the server. No webdriver: the browser is started on the page's URL and killed
(its whole process group) when the page says it is done or the time is up.

A file plays when currentTime advances and, if it has video, frames of a non-zero size are
decoded (videoWidth > 0 and requestVideoFrameCallback or getVideoPlaybackQuality counted one),
and, if it has audio, the decoded audio reaches a Web Audio AnalyserNode with non-zero samples
(MediaElementAudioSourceNode). Exit status 1 on any false pass (PASS but it does not play) or
false fail (FAIL but it plays); WARN cases that did not play are listed with their reasons.
"""
import argparse
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))


class State:
    """What the pages posted, shared between the server's threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.results = {}  # (browser, file) -> result
        self.done = set()
        self.logs = []
        self.changed = threading.Condition(self.lock)


def make_handler(corpus, manifest, state):
    page = open(os.path.join(HERE, "player.html"), "rb").read()
    manifest_bytes = json.dumps(manifest).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # quiet
            pass

        def send_bytes(self, status, body, content_type, extra=()):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            for key, value in extra:
                self.send_header(key, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def do_HEAD(self):
            self.do_GET()

        def do_GET(self):
            path = urllib.parse.urlparse(self.path).path
            if path == "/" or path == "/player.html":
                return self.send_bytes(200, page, "text/html; charset=utf-8")
            if path == "/manifest.json":
                return self.send_bytes(200, manifest_bytes, "application/json")
            if path.startswith("/corpus/"):
                name = urllib.parse.unquote(path[len("/corpus/"):])
                if "/" in name or name.startswith(".") or name not in manifest_names:
                    return self.send_bytes(404, b"not found", "text/plain")
                return self.send_file(os.path.join(corpus, name))
            if path == "/favicon.ico":
                return self.send_bytes(204, b"", "image/x-icon")
            return self.send_bytes(404, b"not found", "text/plain")

        def send_file(self, path):
            data = open(path, "rb").read()
            size = len(data)
            # A neutral type: the browsers sniff the container, as they would for an upload
            # served as application/octet-stream; the type must not decide the outcome.
            content_type = "application/octet-stream"
            header = self.headers.get("Range")
            if header and header.startswith("bytes="):
                first, _, last = header[len("bytes="):].split(",")[0].partition("-")
                if first == "":
                    start, end = max(0, size - int(last)), size - 1
                else:
                    start = int(first)
                    end = min(int(last), size - 1) if last else size - 1
                if start >= size or start > end:
                    return self.send_bytes(416, b"", content_type,
                                           [("Content-Range", f"bytes */{size}")])
                return self.send_bytes(206, data[start:end + 1], content_type,
                                       [("Content-Range", f"bytes {start}-{end}/{size}"),
                                        ("Accept-Ranges", "bytes")])
            return self.send_bytes(200, data, content_type, [("Accept-Ranges", "bytes")])

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            path = urllib.parse.urlparse(self.path).path
            with state.changed:
                if path == "/result":
                    state.results[(body["browser"], body["file"])] = body
                elif path == "/log":
                    state.logs.append(body)
                elif path == "/done":
                    state.done.add(body["browser"])
                state.changed.notify_all()
            self.send_bytes(204, b"", "text/plain")

    manifest_names = {item["name"] for item in manifest}
    return Handler


class QuietServer(http.server.ThreadingHTTPServer):
    """A loopback server that does not print a traceback when a browser drops a connection (it
    does so whenever it has read enough of a file)."""

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def ffprobe_streams(path):
    """Whether the file has video (not cover art) and audio, by ffprobe (independent of us)."""
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-show_entries", "stream=codec_type:stream_disposition=attached_pic",
         "-of", "json", path], capture_output=True, text=True, check=True).stdout
    streams = json.loads(out).get("streams", [])
    video = any(s["codec_type"] == "video" and not s.get("disposition", {}).get("attached_pic")
                for s in streams)
    audio = any(s["codec_type"] == "audio" for s in streams)
    return video, audio


def browser_version(command):
    out = subprocess.run([command, "--version"], capture_output=True, text=True).stdout
    return out.strip().splitlines()[0] if out.strip() else command


def launch(browser, url, workdir):
    """Starts a headless browser on url in its own process group, with a throwaway profile."""
    profile = os.path.join(workdir, f"profile-{browser}")
    os.makedirs(profile, exist_ok=True)
    env = dict(os.environ, HOME=profile, XDG_CONFIG_HOME=profile, XDG_CACHE_HOME=profile)
    if browser == "chromium":
        command = [
            "chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--no-default-browser-check", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-extensions",
            "--autoplay-policy=no-user-gesture-required", "--disable-background-media-suspend",
            "--disable-renderer-backgrounding", "--disable-background-timer-throttling",
            "--disable-backgrounding-occluded-windows", "--disable-dev-shm-usage",
            f"--user-data-dir={profile}", url]
    else:
        prefs = {
            "media.autoplay.default": 0,  # allow audible autoplay
            "media.autoplay.blocking_policy": 0,
            "media.autoplay.block-webaudio": False,
            "media.block-autoplay-until-in-foreground": False,
            "browser.shell.checkDefaultBrowser": False,
            "browser.startup.homepage_override.mstone": "ignore",
            "browser.aboutwelcome.enabled": False,
            "datareporting.policy.dataSubmissionEnabled": False,
            "datareporting.healthreport.uploadEnabled": False,
            "toolkit.telemetry.reportingpolicy.firstRun": False,
            "app.update.enabled": False,
            "app.normandy.enabled": False,
            "extensions.update.enabled": False,
            "browser.safebrowsing.downloads.remote.enabled": False,
            "network.captive-portal-service.enabled": False,
            "network.connectivity-service.enabled": False,
            "toolkit.startup.max_resumed_crashes": -1,
            "browser.sessionstore.resume_from_crash": False,
            "dom.min_background_timeout_value": 4,
            # No sound card here: without a (mock) audio device Firefox never starts the
            # AudioContext, and the page could not see decoded audio.
            "media.cubeb.force_mock_context": True,
        }
        with open(os.path.join(profile, "user.js"), "w") as f:
            for key, value in prefs.items():
                f.write(f"user_pref({json.dumps(key)}, {json.dumps(value)});\n")
        command = ["firefox-esr", "--headless", "--no-remote", "--profile", profile, url]
    log = open(os.path.join(workdir, f"{browser}.log"), "wb")
    return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=env, start_new_session=True, preexec_fn=die_with_parent)


def die_with_parent():
    """In the browser's process, before exec: SIGKILL when this script dies, however it dies."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def kill(process):
    """Ends the browser and every process it started (its process group)."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=5)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def judge(item, r):
    """(plays, why not) from what the page saw."""
    if r is None:
        return False, "no result (timeout)"
    reasons = []
    if r.get("error"):
        reasons.append(f"media error {r['error']}")
    if r["max_time"] <= 0:
        reasons.append("currentTime did not advance")
    if item["video"] and not (r["width"] > 0 and (r["frames_callback"] > 0 or r["total_frames"] > 0)):
        reasons.append(f"no video frames (videoWidth {r['width']}, frames {r['frames_callback']}"
                       f"/{r['total_frames']})")
    if item["audio"] and not r["audio_peak"] > 0:
        reasons.append("no decoded audio (Web Audio samples all zero)")
    return not reasons, "; ".join(reasons)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--mediacompat", required=True)
    parser.add_argument("--browsers", default="chromium,firefox")
    parser.add_argument("--timeout", type=float, default=8, help="seconds per file")
    parser.add_argument("--budget", type=float, default=150, help="seconds for the whole run")
    parser.add_argument("--verbose", action="store_true", help="print every file's outcome")
    parser.add_argument("--dump", help="write what the pages posted to this JSON file")
    parser.add_argument("--refused", help="write the files each browser did not play to this "
                        "JSON file ({browser: [name, ...]})")
    parser.add_argument("--require-all-play", action="store_true",
                        help="exit 1 also when any file does not play (fix-oracle.sh: every "
                        "fixed output must play)")
    args = parser.parse_args()
    started = time.monotonic()
    # SIGTERM (make, CI) unwinds like Ctrl-C, so the browsers are killed in `finally`.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    names = sorted(n for n in os.listdir(args.corpus) if not n.startswith("."))
    manifest = []
    for name in names:
        video, audio = ffprobe_streams(os.path.join(args.corpus, name))
        manifest.append({"name": name, "video": video, "audio": audio})

    state = State()
    server = QuietServer(("127.0.0.1", 0), make_handler(args.corpus, manifest, state))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]

    browsers = args.browsers.split(",")
    commands = {"chromium": "chromium", "firefox": "firefox-esr"}
    versions = {b: browser_version(commands[b]) for b in browsers}
    workdir = tempfile.mkdtemp(prefix="mediatools-oracle-")
    processes = {}
    try:
        for browser in browsers:
            url = (f"http://127.0.0.1:{port}/player.html?browser={browser}"
                   f"&timeout={int(args.timeout * 1000)}")
            processes[browser] = launch(browser, url, workdir)
        deadline = started + args.budget
        with state.changed:
            while len(state.done) < len(browsers) and time.monotonic() < deadline:
                for browser, process in processes.items():
                    if process.poll() is not None and browser not in state.done:
                        state.logs.append({"browser": browser,
                                           "message": f"exited early with {process.returncode}"})
                        state.done.add(browser)
                state.changed.wait(timeout=1)
    finally:
        for process in processes.values():
            kill(process)
        server.shutdown()
        shutil.rmtree(workdir, ignore_errors=True)
    played_in = time.monotonic() - started

    # mediacompat's verdicts, one process for the whole corpus.
    paths = [os.path.join(args.corpus, item["name"]) for item in manifest]
    platforms = {"chromium": "chrome", "firefox": "firefox"}
    run = subprocess.run([args.mediacompat, "--json", "--platform",
                          ",".join(platforms[b] for b in browsers)] + paths,
                         capture_output=True, text=True)
    if run.returncode not in (0, 1):
        print(f"oracle: mediacompat exited {run.returncode}: {run.stderr}", file=sys.stderr)
        return 2
    report = json.loads(run.stdout)
    if isinstance(report, dict):
        report = [report]
    verdicts = {}
    for entry in report:
        for result in entry.get("results", []):
            verdicts[(os.path.basename(entry["path"]), result["platform"])] = result

    for log in state.logs:
        print(f"  [{log['browser']}] {log['message']}" +
              (f" ({log['user_agent']})" if log.get("user_agent") else ""))
    status = 0
    refused = {}
    for browser in browsers:
        platform = platforms[browser]
        plays = fails = 0
        false_pass, false_fail, warn_not, warn_plays = [], [], [], []
        rows = []
        for item in manifest:
            result = state.results.get((browser, item["name"]))
            ok, why = judge(item, result)
            verdict = verdicts.get((item["name"], platform), {}).get("verdict", "missing")
            plays += ok
            fails += not ok
            if not ok:
                refused.setdefault(browser, []).append(item["name"])
            rows.append((item["name"], ok, verdict, why, result))
            if verdict == "pass" and not ok:
                false_pass.append((item["name"], why))
            elif verdict == "fail" and ok:
                false_fail.append((item["name"], "plays"))
            elif verdict == "warn" and not ok:
                warn_not.append((item["name"], why, verdicts[(item["name"], platform)]))
            elif verdict == "warn":
                warn_plays.append(item["name"])
            elif verdict == "missing":
                false_pass.append((item["name"], "no verdict from mediacompat"))
        print(f"{versions[browser]} vs mediacompat --platform {platform}: {len(manifest)} files, "
              f"{plays} play, {fails} do not; {len(false_fail)} false fails, "
              f"{len(false_pass)} false passes, {len(warn_not)} WARN not playing, "
              f"{len(warn_plays)} WARN playing")
        if args.verbose:
            for name, ok, verdict, why, result in rows:
                print(f"    {'plays' if ok else 'no   '} {verdict:4} {name}  {why}")
        for name, why in false_fail:
            print(f"  FALSE FAIL  {name}: mediacompat says fail, {browser} plays it")
        for name, why in false_pass:
            print(f"  FALSE PASS  {name}: mediacompat says pass, {browser}: {why}")
        for name, why, verdict in warn_not:
            reasons = "; ".join(f["reason"] for f in verdict["findings"])
            print(f"  warn, does not play here  {name}: {why} — mediacompat: {reasons}")
        if false_fail or false_pass:
            status = 1
        if args.require_all_play and fails:
            for name, ok, verdict, why, result in rows:
                if not ok:
                    print(f"  DOES NOT PLAY  {name}: {why} (mediacompat: {verdict})")
            status = 1
    print(f"browser oracle: played in {played_in:.1f} s, total {time.monotonic() - started:.1f} s")
    if args.refused:
        with open(args.refused, "w") as f:
            json.dump(refused, f, indent=1)
    if args.dump:
        with open(args.dump, "w") as f:
            json.dump([state.results.get((b, item["name"])) for b in browsers for item in manifest],
                      f, indent=1)
    return status


if __name__ == "__main__":
    sys.exit(main())
