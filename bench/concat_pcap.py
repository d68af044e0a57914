"""Writes COPIES copies of a libpcap capture of Ethernet frames (as tcplab writes them) one after
the other into one file: copy k's timestamps shifted past the end of copy k-1 and its TCP ports
raised by k, so each copy is a connection of its own (the checksums are not redone; the analyzer
does not check them). For measuring the capture analyzer on files larger than one run writes
(bench/budgets.sh).

    python bench/concat_pcap.py IN.pcap COPIES OUT.pcap
"""

from __future__ import annotations

import struct
import sys


def main(src: str, copies: int, dst: str) -> None:
    with open(src, "rb") as f:
        head = f.read(24)
        magic, linktype = struct.unpack("<I", head[:4])[0], struct.unpack("<I", head[20:24])[0]
        if magic not in (0xA1B2C3D4, 0xA1B23C4D) or linktype != 1:
            sys.exit(f"{src}: expected a little-endian libpcap file of Ethernet frames")
        scale = 1_000_000 if magic == 0xA1B2C3D4 else 1_000_000_000
        first = last = None
        with open(dst, "wb") as out:
            out.write(head)
            for k in range(copies):
                f.seek(24)
                shift = 0 if first is None or last is None else last - first + scale
                while rec := f.read(16):
                    sec, frac, incl, orig = struct.unpack("<IIII", rec)
                    frame = bytearray(f.read(incl))
                    t = sec * scale + frac
                    first = t if first is None else first
                    if k == 0:
                        last = t
                    t += shift * k
                    if len(frame) >= 38 and frame[12:14] == b"\x08\x00":
                        tcp = 14 + (frame[14] & 0x0F) * 4
                        for at in (tcp, tcp + 2):
                            port = struct.unpack(">H", frame[at : at + 2])[0]
                            frame[at : at + 2] = struct.pack(">H", (port + k) & 0xFFFF)
                    out.write(struct.pack("<IIII", t // scale, t % scale, incl, orig))
                    out.write(frame)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
