#!/usr/bin/env python3
"""A loopback HTTP server for the network tests: serves the files of a folder with Range support,
counts the bytes it sends, and misbehaves on request.

  range-server.py FOLDER [PORTFILE]   prints its port on the first line of stdout (and writes
                                it to PORTFILE), then serves until killed. Paths:
    /NAME                       the file (Range: bytes=A-B, A-, -N), HEAD too; ETag and
                                Last-Modified from the file's size and time
    /__stats                    {"bytes", "requests", "connections", "ranges", "headers"} since
                                the last reset (not counted): "ranges" lists each request's Range
                                header, "headers" each request's headers as [name, value] pairs
    /__reset                    zeroes the counters and forgets the faults already injected
    /redirect/NAME              302 to /NAME on this server
    /redirect-host/NAME         302 to /NAME on http://localhost:PORT (another origin)
    /redirect-file              302 to file:///etc/passwd (must be refused by the client)
    /redirect-loop              302 to itself
    /stall/NAME                 sends the headers and 1000 bytes, then nothing for 30 s
    /stall-once/NAME            the first request stalls so; later ones are whole
    /reset-at/OFFSET/NAME       the first answer whose body covers byte OFFSET sends the bytes
                                before it, waits 0.3 s, then resets the connection (RST); later
                                answers are whole
    /fail/N/STATUS/NAME         the first N requests answer STATUS (a 503: a retry), then /NAME
    /status/STATUS/NAME         every request answers STATUS (403, 404, 416, 500, ...)
    /norange/NAME               ignores Range: 200 and the whole body, in 64 KiB writes
    /change/NAME                after the first request, the file's bytes change (same size,
                                another ETag and Last-Modified)
    /grow/NAME                  after the first request, the file is 1000 bytes longer
    /badrange/NAME              206 answers whose Content-Range starts one byte later than asked
"""
import http.server
import json
import os
import re
import signal
import socket
import struct
import sys
import threading
import time

FOLDER = os.path.abspath(sys.argv[1])
# A parent may have blocked SIGTERM (test runners do): die when told to.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
signal.signal(signal.SIGTERM, signal.SIG_DFL)
lock = threading.Lock()


def fresh():
    return {"bytes": 0, "requests": 0, "connections": 0, "ranges": [], "headers": []}


counters = fresh()
# Faults injected once (reset-at) and requests seen per path (fail, change, grow).
state = {"reset_done": set(), "seen": {}}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        with lock:
            counters["connections"] += 1

    def log_message(self, *args):
        pass

    def send_bytes(self, data):
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            return False
        with lock:
            counters["bytes"] += len(data)
        return True

    def do_HEAD(self):
        self.serve(head=True)

    def do_GET(self):
        self.serve(head=False)

    def serve(self, head):
        if self.path == "/__stats":
            with lock:
                body = json.dumps(counters).encode()
            self.reply(200, body, "application/json")
            return
        if self.path == "/__reset":
            with lock:
                counters.clear()
                counters.update(fresh())
                state["reset_done"].clear()
                state["seen"].clear()
            self.reply(200, b"{}", "application/json")
            return
        with lock:
            counters["requests"] += 1
            counters["ranges"].append(self.headers.get("Range"))
            counters["headers"].append([[k, v] for k, v in self.headers.items()])
            seen = state["seen"].get(self.path, 0)
            state["seen"][self.path] = seen + 1
        path = self.path
        if path.startswith("/redirect/"):
            self.redirect("/" + path[len("/redirect/"):])
            return
        if path.startswith("/redirect-host/"):
            port = self.server.server_address[1]
            self.redirect(f"http://localhost:{port}/" + path[len("/redirect-host/"):])
            return
        if path == "/redirect-file":
            self.redirect("file:///etc/passwd")
            return
        if path == "/redirect-loop":
            self.redirect("/redirect-loop")
            return
        fault, argument = None, None
        match = re.match(r"/(stall|stall-once|norange|change|grow|badrange)/(.+)$", path)
        if match:
            fault, name = match.group(1), match.group(2)
        elif re.match(r"/reset-at/(\d+)/(.+)$", path):
            match = re.match(r"/reset-at/(\d+)/(.+)$", path)
            fault, argument, name = "reset-at", int(match.group(1)), match.group(2)
        elif re.match(r"/fail/(\d+)/(\d+)/(.+)$", path):
            match = re.match(r"/fail/(\d+)/(\d+)/(.+)$", path)
            if seen < int(match.group(1)):
                self.reply(int(match.group(2)), b"failing on purpose", "text/plain")
                return
            name = match.group(3)
        elif re.match(r"/status/(\d+)/(.+)$", path):
            match = re.match(r"/status/(\d+)/(.+)$", path)
            self.reply(int(match.group(1)), b"an error page", "text/plain")
            return
        else:
            name = path[1:]
        file = os.path.join(FOLDER, os.path.basename(name))
        if not os.path.isfile(file):
            self.reply(404, b"not found", "text/plain")
            return
        with open(file, "rb") as f:
            data = f.read()
        stamp = int(os.path.getmtime(file))
        if fault == "change" and seen > 0:
            data = bytes(b ^ 0x5A for b in data)
            stamp += 1000
        if fault == "grow" and seen > 0:
            data = data + bytes(1000)
            stamp += 1000
        size = len(data)
        etag = f'"{size:x}-{stamp:x}"'
        start, end = 0, size - 1
        match = re.match(r"bytes=(\d*)-(\d*)$", self.headers.get("Range", ""))
        partial = False
        if fault != "norange" and match and (match.group(1) or match.group(2)):
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
            partial = True
        if partial:
            self.send_response(206)
            shift = 1 if fault == "badrange" else 0
            self.send_header("Content-Range", f"bytes {start + shift}-{end}/{size}")
        else:
            self.send_response(200)
        if fault != "norange":
            self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag", etag)
        self.send_header(
            "Last-Modified", time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(stamp)))
        self.send_header("Content-Type", "application/octet-stream")
        length = end - start + 1 - (1 if fault == "badrange" and partial else 0)
        self.send_header("Content-Length", str(length))
        self.end_headers()
        if head:
            return
        body = data[start + (1 if fault == "badrange" and partial else 0):end + 1]
        if fault == "stall" or fault == "stall-once" and seen == 0:
            self.send_bytes(body[:1000])
            time.sleep(30)
            return
        cut = None
        if fault == "reset-at" and start <= argument <= end:
            with lock:
                if path not in state["reset_done"]:
                    state["reset_done"].add(path)
                    cut = argument - start
        sent = 0
        while sent < len(body):
            chunk = body[sent:sent + 65536]
            if cut is not None and sent + len(chunk) > cut:
                chunk = chunk[:cut - sent]
                if chunk:
                    self.send_bytes(chunk)
                self.reset_connection()
                return
            if not self.send_bytes(chunk):
                return
            sent += len(chunk)

    def reset_connection(self):
        """Closes the connection with a RST (SO_LINGER 0), as a dropped connection looks, once the
        client had time to take the bytes sent (a RST makes the receiver drop what it has not
        read yet: the resume must start at the cut, and the bytes counted are the bytes read)."""
        try:
            self.wfile.flush()
            time.sleep(0.3)
            self.connection.setsockopt(
                socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        except OSError:
            pass
        self.close_connection = True

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
