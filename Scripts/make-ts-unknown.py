#!/usr/bin/env python3
"""Writes a small MPEG transport stream whose PMT declares one elementary stream of a codec that
FFmpeg 5.1 cannot decode or parse, carrying N PES packets of arbitrary bytes (issue 26, class 7).

    Scripts/make-ts-unknown.py KIND N OUT.ts

KIND chooses how the PMT identifies the stream (ISO/IEC 13818-1 Table 2-34, ETSI EN 300 468):
  mpegh    stream_type 0x2D (MPEG-H 3D audio main stream), stream_id 0xC0
  ac4      stream_type 0x06 (PES private data), stream_id 0xBD, with the DVB AC-4 descriptor
           (extension descriptor 0x7F, extension tag 0x15) stating channel mode "stereo"
  dtsuhd   stream_type 0x06, stream_id 0xBD, with the DVB DTS-UHD descriptor (0x7F, tag 0x21)
  vvc      stream_type 0x33 (VVC video), stream_id 0xE0

Every PES packet starts a TS packet with payload_unit_start_indicator set, carries a PTS
(packets 1/50 s apart, as 20 ms audio frames or 50 fps pictures would be) and a payload of
arbitrary bytes whose length varies so that a PES packet spans one to three TS packets: the
number of access units is N by construction, whatever a TS packet count would say.
"""

import struct
import sys

PID_PMT = 0x1000
PID_ES = 0x0100


def crc32_mpeg(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else crc << 1
            crc &= 0xFFFFFFFF
    return crc


def section(table_id: int, extension: int, body: bytes) -> bytes:
    # section_syntax_indicator=1, '0', reserved '11', section_length (body + 5 header + 4 CRC)
    length = 5 + len(body) + 4
    head = bytes([table_id, 0xB0 | (length >> 8), length & 0xFF])
    head += struct.pack(">H", extension) + bytes([0xC1, 0x00, 0x00])  # version 0, current
    data = head + body
    return data + struct.pack(">I", crc32_mpeg(data))


def psi_packet(pid: int, sec: bytes, counter: int) -> bytes:
    payload = b"\x00" + sec  # pointer_field
    header = struct.pack(">BHB", 0x47, 0x4000 | pid, 0x10 | (counter & 0xF))
    return (header + payload).ljust(188, b"\xff")


def pts_bytes(pts: int) -> bytes:
    return bytes([
        0x21 | ((pts >> 29) & 0x0E),
        (pts >> 22) & 0xFF, 0x01 | ((pts >> 14) & 0xFE),
        (pts >> 7) & 0xFF, 0x01 | ((pts << 1) & 0xFE),
    ])


def pcr_field(pcr_base: int) -> bytes:
    return struct.pack(">IH", (pcr_base >> 1) & 0xFFFFFFFF, ((pcr_base & 1) << 15) | 0x7E00)


def es_packets(stream_id: int, payloads: list, start_counter: int = 0) -> list:
    out = []
    counter = start_counter
    for i, payload in enumerate(payloads):
        pts = 90000 + i * 1800  # 20 ms apart
        header = bytes([0x80, 0x80, 5]) + pts_bytes(pts)
        pes_len = len(header) + len(payload)
        pes = b"\x00\x00\x01" + bytes([stream_id]) + struct.pack(">H", pes_len if pes_len < 65536 else 0)
        pes += header + payload
        first = True
        while pes:
            pusi = 0x4000 if first else 0
            if first:
                # an adaptation field with the PCR (the stream is the program's PCR PID)
                adaptation = bytes([0x10]) + pcr_field(pts - 9000)
            else:
                adaptation = None
            room = 184 - (len(adaptation) + 1 if adaptation is not None else 0)
            chunk = pes[:room]
            pes = pes[room:]
            if len(chunk) < room:
                # stuff the rest with the adaptation field
                fill = room - len(chunk)
                if adaptation is None:
                    if fill == 1:
                        adaptation = b""
                    else:
                        adaptation = bytes([0x00]) + b"\xff" * (fill - 2)
                else:
                    adaptation += b"\xff" * fill
            control = 0x30 if adaptation is not None else 0x10
            head = struct.pack(">BHB", 0x47, pusi | PID_ES, control | (counter & 0xF))
            body = (bytes([len(adaptation)]) + adaptation if adaptation is not None else b"") + chunk
            packet = head + body
            assert len(packet) == 188, len(packet)
            out.append(packet)
            counter += 1
            first = False
    return out


def main() -> None:
    kind, count, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if kind == "mpegh":
        es_info = b""
        stream_type, stream_id = 0x2D, 0xC0
    elif kind == "ac4":
        # AC-4_descriptor: extension tag 0x15, ac4_config_flag 1, ac4_toc_flag 0, reserved,
        # then ac4_dialog_enhancement_enabled 0, ac4_channel_mode 01 (stereo), reserved.
        body = bytes([0x15, 0x80, 0x01 << 5])
        es_info = bytes([0x7F, len(body)]) + body
        stream_type, stream_id = 0x06, 0xBD
    elif kind == "dtsuhd":
        # DTS-UHD_descriptor: extension tag 0x21, DecoderProfileCode 0, FrameDurationCode 1,
        # MaxPayloadCode 2, StreamIndex 0 (one byte), no codec_selector bytes.
        body = bytes([0x21, (0 << 2) | 1, (2 << 5)])
        es_info = bytes([0x7F, len(body)]) + body
        stream_type, stream_id = 0x06, 0xBD
    elif kind == "vvc":
        es_info = b""
        stream_type, stream_id = 0x33, 0xE0
    else:
        raise SystemExit(f"unknown kind {kind}")

    pat = section(0x00, 1, struct.pack(">HH", 1, 0xE000 | PID_PMT))
    pmt_body = struct.pack(">HH", 0xE000 | PID_ES, 0xF000)  # PCR PID, program_info_length 0
    pmt_body += bytes([stream_type]) + struct.pack(">HH", 0xE000 | PID_ES, 0xF000 | len(es_info))
    pmt_body += es_info
    pmt = section(0x02, 1, pmt_body)

    # Arbitrary payload bytes (no codec syntax at all), 100 to 499 bytes per packet.
    payloads = []
    for i in range(count):
        size = 100 + (i * 137) % 400
        payloads.append(bytes(((i * 31 + j * 7) & 0xFF) for j in range(size)))

    packets = [psi_packet(0, pat, 0), psi_packet(PID_PMT, pmt, 0)]
    packets += es_packets(stream_id, payloads)
    # PAT/PMT repeated once at the end, as muxers repeat them.
    packets += [psi_packet(0, pat, 1), psi_packet(PID_PMT, pmt, 1)]
    with open(path, "wb") as f:
        f.write(b"".join(packets))


if __name__ == "__main__":
    main()
