#!/usr/bin/env python3
"""A loopback HTTP server for the network tests: serves the files of a folder with Range support
and counts the bytes it sends.

  range-server.py FOLDER [PORTFILE]   prints its port on the first line of stdout (and writes
                                it to PORTFILE), then serves until killed. Paths:
    /NAME                       the file (Range: bytes=A-B, A-, -N), HEAD too
    /__stats                    {"bytes": N, "requests": N} sent so far (not counted)
    /__reset                    zeroes the counters
    /redirect/NAME              302 to /NAME on this server
    /redirect-file              302 to file:///etc/passwd (must be refused by the client)
    /stall/NAME                 sends the headers and 1000 bytes, then nothing (for timeouts)
"""
import http.server
import json
import os
import re
import signal
import sys
import threading
import time

FOLDER = os.path.abspath(sys.argv[1])
# A parent may have blocked SIGTERM (test runners do): die when told to.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
signal.signal(signal.SIGTERM, signal.SIG_DFL)
counters = {"bytes": 0, "requests": 0}
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_bytes(self, data):
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            return
        with lock:
            counters["bytes"] += len(data)

    def do_HEAD(self):
        self.serve(head=True)

    def do_GET(self):
        self.serve(head=False)

    def serve(self, head):
        if self.path == "/__stats":
            body = json.dumps(counters).encode()
            self.reply(200, body, "application/json")
            return
        if self.path == "/__reset":
            with lock:
                counters.update(bytes=0, requests=0)
            self.reply(200, b"{}", "application/json")
            return
        with lock:
            counters["requests"] += 1
        if self.path.startswith("/redirect/"):
            self.redirect("/" + self.path[len("/redirect/"):])
            return
        if self.path == "/redirect-file":
            self.redirect("file:///etc/passwd")
            return
        stall = self.path.startswith("/stall/")
        name = self.path[len("/stall/"):] if stall else self.path[1:]
        path = os.path.join(FOLDER, os.path.basename(name))
        if not os.path.isfile(path):
            self.reply(404, b"not found", "text/plain")
            return
        size = os.path.getsize(path)
        start, end = 0, size - 1
        match = re.match(r"bytes=(\d*)-(\d*)$", self.headers.get("Range", ""))
        if match and (match.group(1) or match.group(2)):
            if match.group(1):
                start = int(match.group(1))
                end = int(match.group(2)) if match.group(2) else size - 1
            else:
                start = max(0, size - int(match.group(2)))
            end = min(end, size - 1)
            if start > end:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        else:
            self.send_response(200)
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        if head:
            return
        with open(path, "rb") as f:
            f.seek(start)
            left = end - start + 1
            if stall:
                self.send_bytes(f.read(min(1000, left)))
                time.sleep(30)
                return
            while left > 0:
                chunk = f.read(min(65536, left))
                if not chunk:
                    break
                self.send_bytes(chunk)
                left -= len(chunk)

    def redirect(self, location):
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def reply(self, status, body, kind):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
if len(sys.argv) > 2:
    with open(sys.argv[2] + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(sys.argv[2] + ".tmp", sys.argv[2])
server.serve_forever()
