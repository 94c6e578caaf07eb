#!/usr/bin/env python3
"""Test oracle: an Ogg Opus file's pre-skip (the OpusHead packet, RFC 7845 §5.1) and the
granule position of its last page (§4), read from the pages directly, independently of
mediaprobe and libavformat; the samples it presents are the granule minus the pre-skip (§4: "the
PCM sample position is the granule position minus pre-skip"). Prints JSON: pre_skip,
last_granule, presented_samples (at 48 kHz).
"""
import json
import struct
import sys

data = open(sys.argv[1], "rb").read()
pre_skip = None
last_granule = None
at = 0
while at + 27 <= len(data) and data[at:at + 4] == b"OggS":
    granule = struct.unpack_from("<q", data, at + 6)[0]
    segments = data[at + 26]
    table = data[at + 27:at + 27 + segments]
    body = at + 27 + segments
    if pre_skip is None and data[body:body + 8] == b"OpusHead":
        pre_skip = struct.unpack_from("<H", data, body + 10)[0]
    if granule != -1:
        last_granule = granule
    at = body + sum(table)
print(json.dumps({"pre_skip": pre_skip, "last_granule": last_granule,
                  "presented_samples": last_granule - pre_skip}))
