"""Point-by-point check of tcplab's `ns2` profile against ns-2's `tcpVariants` reference.

The reference folder (README, traces/*.tr.gz, summary.csv) lives outside the repository,
by default at /work/shared/reference/ns2-tcpVariants (override with $NS2_TCPVARIANTS).
Each of its tests is rebuilt as a tcplab scenario (profile = "ns2"), run, and its events on
the bottleneck r1 -> k1 (enqueue "+", dequeue "-", drop "d" of data packets, and the send
instants of the sink's ACKs) are compared with ns-2's, in integer microseconds.

    python -m tcplab.ns2ref            # all tests, one line each, then the summary table
    python -m tcplab.ns2ref onedrop_reno --detail
"""

from __future__ import annotations

import argparse
import csv
import gzip
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

REFERENCE = Path(os.environ.get("NS2_TCPVARIANTS", "/work/shared/reference/ns2-tcpVariants"))

DROPS = {
    "onedrop": [14],
    "twodrops": [14, 28],
    "threedrops": [14, 26, 28],
    "fourdrops": [14, 24, 26, 28],
    "multiple": [11, 12, 13, 14, 16, 17, 18, 19],
    "multiple2": [11, 12, 13, 14, 16],
}
VARIANTS = {"tahoe": "tahoe", "reno": "reno", "newreno": "newreno", "sack": "sack", "fack": "fack", "sackRH": "sackrh"}
#: ns-2's boot_time_ (RTT clock phase) in every test, rounded to the nanosecond.
CLOCK_PHASE_NS = 5558807


def tests() -> list[str]:
    """The 58 reference tests, in summary.csv order."""
    with open(REFERENCE / "summary.csv") as f:
        return [row["test"] for row in csv.DictReader(f)]


def parse_test(test: str) -> tuple[str, str, bool, bool]:
    """(scenario, variant, limited transmit, partial_ack) of a test name."""
    parts = test.split("_")
    scenario, variant = parts[0], parts[-1]
    return scenario, variant, "SA" in parts[1:-1], "partial" in parts[1:-1]


def scenario(test: str) -> dict:
    """The tcplab scenario of a reference test."""
    name, variant, sa, partial = parse_test(test)
    flow = {
        "profile": "ns2",
        "tcp": VARIANTS[variant],
        "ack": "immediate",
        "mss": 1000,
        "header_bytes": 40,
        "initial_window": 2,
        "rwnd": 28000,  # window_ 28 packets
        "start": "1s",
        "initial_rto": "6s",
        "min_rto": "1s",
        "max_rto": "60s",
        "clock_tick": "10ms",
        "clock_phase": f"{CLOCK_PHASE_NS}ns",
        "limited_transmit": sa,
    }
    if partial:
        flow["partial_ack"] = True
    # ns-2's list entry n (0-based, the SYN is 0) is the (n+1)-th arrival at the link.
    loss = {"model": "script", "packets": [n + 1 for n in DROPS[name]]}
    return {
        "name": test,
        "seed": 1,
        "duration": "6s",
        "trace": {"links": ["hop1.fwd", "hop1.rev"], "max_points": 1_000_000},
        "network": {
            "path": {
                "hops": [
                    # ns-2 DropTail limit L holds at most L-1 waiting packets.
                    {"rate": "8Mbit/s", "delay": "0ms", "queue": {"limit": 49}},
                    {"rate": "800kbit/s", "delay": "100ms", "queue": {"limit": 7}, "loss": loss},
                ]
            }
        },
        "flows": [flow],
    }


@dataclass
class Events:
    """Bottleneck events in integer microseconds: (time, kind, seq)."""

    packets: list[tuple[int, str, int]] = field(default_factory=list)  # "+" / "-"
    drops: list[tuple[int, int]] = field(default_factory=list)
    acks: list[tuple[int, int]] = field(default_factory=list)  # sink's ACK send instants


def reference_events(test: str) -> Events:
    ev = Events()
    with gzip.open(REFERENCE / "traces" / f"{test}.tr.gz", "rt") as f:
        for line in f:
            w = line.split()
            if len(w) < 11 or w[7] != "1":
                continue
            t = round(float(w[1]) * 1e6)
            link = (w[2], w[3])
            if link == ("2", "3") and w[4] == "tcp":
                if w[0] in "+-":
                    ev.packets.append((t, w[0], int(w[10])))
                elif w[0] == "d":
                    ev.drops.append((t, int(w[10])))
            elif link == ("3", "2") and w[4] == "ack" and w[0] == "+":
                ev.acks.append((t, int(w[10])))
    return ev


def tcplab_events(test: str):
    import tcplab

    r = tcplab.run(scenario(test))
    names = [l["link"] for l in r.raw["links"]]
    fwd, rev = names.index("hop1.fwd"), names.index("hop1.rev")
    ev = Events()
    for t, link, kind, flow, typ, seq, ack, size, rtx in r.raw["traces"]["packets"]:
        us = round(t * 1e6)
        if link == fwd and typ == "data":
            if kind in "+-":
                ev.packets.append((us, kind, seq))
            elif kind in "dl":
                ev.drops.append((us, seq))
        elif link == rev and typ == "ack" and kind == "+":
            ev.acks.append((us, ack))
    return ev, r


def _first_diff(a: list, b: list):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i, x, y
    if len(a) != len(b):
        i = min(len(a), len(b))
        return i, (a[i] if i < len(a) else None), (b[i] if i < len(b) else None)
    return None


def _within(a: list, b: list, tol_us: int) -> bool:
    """Same events (kind, seq) in the same order, every time within tol_us."""
    return len(a) == len(b) and all(x[1:] == y[1:] and abs(x[0] - y[0]) <= tol_us for x, y in zip(a, b))


@dataclass
class Comparison:
    test: str
    ours: Events
    ref: Events
    note: str = ""

    @staticmethod
    def _sorted(p):
        return sorted(p, key=lambda e: (e[0], e[1] != "-", e[2]))

    @property
    def exact(self) -> bool:
        return (
            self._sorted(self.ours.packets) == self._sorted(self.ref.packets)
            and self.ours.drops == self.ref.drops
            and self.ours.acks == self.ref.acks
        )

    @property
    def within_1ms(self) -> bool:
        return (
            _within(self._sorted(self.ours.packets), self._sorted(self.ref.packets), 1000)
            and _within(self.ours.drops, self.ref.drops, 1000)
            and _within(self.ours.acks, self.ref.acks, 1000)
        )

    def retransmissions(self, ev: Events) -> list[tuple[int, int]]:
        """(seq, time of its `+` at r1) of every packet that reached r1 before."""
        arrivals = sorted([(t, s) for t, k, s in ev.packets if k == "+"] + list(ev.drops))
        seen, out = set(), []
        for t, s in arrivals:
            if s in seen:
                out.append((s, t))
            seen.add(s)
        return out

    def first_mismatch(self) -> str:
        d = _first_diff(self._sorted(self.ours.packets), self._sorted(self.ref.packets))
        if d:
            return f"packets[{d[0]}]: tcplab {d[1]} ns-2 {d[2]}"
        d = _first_diff(self.ours.drops, self.ref.drops)
        if d:
            return f"drops[{d[0]}]: tcplab {d[1]} ns-2 {d[2]}"
        d = _first_diff(self.ours.acks, self.ref.acks)
        if d:
            return f"acks[{d[0]}]: tcplab {d[1]} ns-2 {d[2]}"
        return ""

    def row(self) -> dict:
        o, r = self.ours, self.ref
        n = lambda ev, k: sum(1 for e in ev.packets if e[1] == k)
        return {
            "test": self.test,
            "status": "exact" if self.exact else ("1ms" if self.within_1ms else "DIFF"),
            "+": (n(o, "+"), n(r, "+")),
            "-": (n(o, "-"), n(r, "-")),
            "drops": (len(o.drops), len(r.drops)),
            "acks": (len(o.acks), len(r.acks)),
            "rtx": (len(self.retransmissions(o)), len(self.retransmissions(r))),
            "same_rtx": self.retransmissions(o) == self.retransmissions(r),
            "first_mismatch": self.first_mismatch(),
        }


def compare(test: str) -> Comparison:
    name, variant, _, _ = parse_test(test)
    ref = reference_events(test)
    ours, _ = tcplab_events(test)
    return Comparison(test, ours, ref)


def table(rows: list[dict]) -> str:
    head = f"{'test':28} {'status':6} {'+ tcplab/ns-2':>14} {'- tcplab/ns-2':>14} {'acks':>10} {'rtx':>7} {'d':>5}  first mismatch"
    lines = [head, "-" * len(head)]
    for r in rows:
        pair = lambda k: f"{r[k][0]}/{r[k][1]}"
        diff = lambda k: r[k][0] - r[k][1]
        lines.append(
            f"{r['test']:28} {r['status']:6} {pair('+'):>9}({diff('+'):+d}) {pair('-'):>9}({diff('-'):+d}) "
            f"{pair('acks'):>10} {pair('rtx'):>7} {pair('drops'):>5}  {r['first_mismatch']}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tcplab.ns2ref", description=__doc__.splitlines()[0])
    ap.add_argument("tests", nargs="*", help="test names (default: all 58)")
    ap.add_argument("--detail", action="store_true", help="print both event lists around the first mismatch")
    a = ap.parse_args(argv)
    names = a.tests or tests()
    rows = []
    for t in names:
        c = compare(t)
        row = c.row()
        if c.note:
            row["status"], row["first_mismatch"] = "n/a", c.note
        rows.append(row)
        if a.detail and not c.exact and not c.note:
            o, r = Comparison._sorted(c.ours.packets), Comparison._sorted(c.ref.packets)
            d = _first_diff(o, r)
            if d:
                i = d[0]
                for j in range(max(0, i - 5), min(max(len(o), len(r)), i + 8)):
                    print(f"  {j:4} tcplab {o[j] if j < len(o) else '-'!s:24} ns-2 {r[j] if j < len(r) else '-'}")
    print(table(rows))
    exact = sum(r["status"] == "exact" for r in rows)
    within = sum(r["status"] in ("exact", "1ms") for r in rows)
    same = sum(r["same_rtx"] and r["drops"][0] == r["drops"][1] for r in rows if r["status"] != "n/a")
    print(f"\n{len(rows)} tests: {exact} identical, {within} within 1 ms, {same} with the same drops and retransmissions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
