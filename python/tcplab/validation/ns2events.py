"""ns-2's tcpVariants reference and tcplab's runs of its tests, as comparable data.

The reference (README, traces/*.tr.gz, vars/*.csv.gz, summary.csv) ships with the package
(tcplab/validation/data/ns2-tcpVariants); $NS2_TCPVARIANTS names another copy. Here: the test names
and their tcplab scenarios, the bottleneck events and sender variables read from ns-2's traces and
from tcplab's, and summary.csv's columns derived from a tcplab run. `tcplab.validation.ns2ref`
compares them and reports.
"""

from __future__ import annotations

import csv
import gzip
import os
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from tcplab.simulation import NS2_EVENT


def _default_reference() -> Path:
    """$NS2_TCPVARIANTS, else the copy shipped as package data."""
    if "NS2_TCPVARIANTS" in os.environ:
        return Path(os.environ["NS2_TCPVARIANTS"])
    return Path(__file__).resolve().parent / "data" / "ns2-tcpVariants"


REFERENCE = _default_reference()

DROPS = {
    "onedrop": [14],
    "twodrops": [14, 28],
    "threedrops": [14, 26, 28],
    "fourdrops": [14, 24, 26, 28],
    "multiple": [11, 12, 13, 14, 16, 17, 18, 19],
    "multiple2": [11, 12, 13, 14, 16],
}
VARIANTS = {
    "tahoe": "tahoe",
    "reno": "reno",
    "newreno": "newreno",
    "sack": "sack",
    "fack": "fack",
    "sackRH": "sackrh",
}
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


def scenario(test: str, drops: list[int] | None = None, duration: float = 6.0) -> dict:
    """The tcplab scenario of a reference test (or of a test name of the same form with
    another ns-2 drop list and run length)."""
    name, variant, sa, partial = parse_test(test)
    drops = DROPS[name] if drops is None else drops
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
    loss = {"model": "script", "packets": [n + 1 for n in drops]}
    return {
        "name": test,
        "seed": 1,
        "duration": f"{duration}s",
        "trace": {
            "links": ["hop0.fwd", "hop0.rev", "hop1.fwd", "hop1.rev"],
            "cwnd": True,
            "max_points": 1_000_000,
        },
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
    with gzip.open(REFERENCE / "traces" / f"{test}.tr.gz", "rt") as f:
        return trace_events(f)


def trace_events(lines) -> Events:
    """The bottleneck events of flow 1 in an ns-2 trace (all.tr format).

    A DropTail overflow appears in ns-2 as a `+` and a `d` of the same packet at the same
    instant; tcplab traces only the `d` (the packet never waits), so that `+` is left out."""
    ev = Events()
    packets: list[tuple[int, str, int] | None] = []  # None: a `+` left out
    plus_of_uid: dict[str, int] = {}
    for line in lines:
        w = line.split()
        if len(w) < 11 or w[7] != "1":
            continue
        t = round(float(w[1]) * 1e6)
        link = (w[2], w[3])
        if link == ("2", "3") and w[4] == "tcp":
            if w[0] in "+-":
                if w[0] == "+":
                    plus_of_uid[w[11]] = len(packets)
                packets.append((t, w[0], int(w[10])))
            elif w[0] == "d":
                i = plus_of_uid.get(w[11])
                if i is not None and packets[i] == (t, "+", int(w[10])):
                    packets[i] = None  # overflow: enqueued and dropped at once
                ev.drops.append((t, int(w[10])))
        elif link == ("3", "2") and w[4] == "ack" and w[0] == "+":
            ev.acks.append((t, int(w[10])))
    ev.packets = [e for e in packets if e is not None]
    return ev


VAR_DECIMALS = {"cwnd_": 3, "rtt_": 3, "srtt_": 3, "rttvar_": 3}


def var_changes(rows, initial: dict[str, str]) -> dict[str, list[tuple[str, str]]]:
    """Per variable, its changes after t = 1 s as (time "%.5f", value as ns-2 prints it): the
    last value at each time stamp, consecutive repeats dropped."""
    last_at: dict[str, dict[str, str]] = {}
    for t, name, value in rows:
        last_at.setdefault(name, {})[t] = value
    out = {}
    for name, by_time in last_at.items():
        prev, changes = initial.get(name), []
        for t in sorted(by_time, key=float):
            if float(t) < 1.0:
                continue
            v = by_time[t]
            if v != prev:
                changes.append((t, v))
            prev = v
        out[name] = changes
    return out


def reference_vars(test: str) -> tuple[dict[str, list[tuple[str, str]]], dict[str, str]]:
    with gzip.open(REFERENCE / "vars" / f"{test}.csv.gz", "rt") as f:
        rows = [(r["time_s"], r["var"], r["value"]) for r in csv.DictReader(f)]
    initial = {}
    for t, name, value in rows:
        if float(t) < 1.0:
            initial[name] = value
    return var_changes(rows, initial), initial


def tcplab_vars(r, initial: dict[str, str]) -> dict[str, list[tuple[str, str]]]:
    rows = []
    for t, name, x in r.trace("ns2_vars").select("time_s", "var", "value").iter_rows():
        d = VAR_DECIMALS.get(name)
        rows.append((f"{t:.5f}", name, f"{x:.{d}f}" if d else str(int(x))))
    return var_changes(rows, initial)


def _us(ns: int) -> int:
    """A trace time in integer microseconds, rounded (ns-2 prints times to the microsecond)."""
    return (ns + 500) // 1000


def _packets(r, *columns: str) -> list[tuple]:
    """The packet trace's rows, with `event` as ns-2's letter and `time` in microseconds."""
    pk = r.trace("packets").with_columns(
        pl.col("event").cast(pl.String).replace_strict(NS2_EVENT),
        time=(pl.col("time_ns") + 500) // 1000,
        kind=pl.col("kind").cast(pl.String),
    )
    return pk.select(columns).rows()


def tcplab_events(test: str, **kw):
    import tcplab

    r = tcplab.run(scenario(test, **kw))
    names = r.links["link"].to_list()
    fwd, rev = names.index("hop1.fwd"), names.index("hop1.rev")
    ev = Events()
    for us, link, kind, typ, seq, ack in _packets(r, "time", "link", "event", "kind", "seq", "ack"):
        if link == fwd and typ == "data":
            if kind in "+-":
                ev.packets.append((us, kind, seq))
            elif kind in "dl":
                ev.drops.append((us, seq))
        elif link == rev and typ == "ack" and kind == "+":
            ev.acks.append((us, ack))
    return ev, r


def _t(us: int) -> str:
    """A time in seconds as ns-2 prints it (no trailing zeros)."""
    return f"{us / 1e6:.6f}".rstrip("0").rstrip(".")


#: summary.csv columns reproduced from tcplab's run (the README's per-test table)
SUMMARY_COLUMNS = [
    "drop_list",
    "data_sent",
    "highest_seq_sent",
    "retransmissions",
    "spurious_retransmissions",
    "rto_times",
    "retransmitted_at_r1",
    "series_packets_plus",
    "series_packets_minus",
    "series_acks_points",
    "last_ack_sent",
    "first_cut_time",
    "ssthresh_after_first_cut",
    "cwnd_after_first_cut",
    "cwnd_at_end",
    "ssthresh_at_end",
]


def tcplab_summary(r, ev: Events) -> dict[str, str]:
    """summary.csv's columns, derived from tcplab's traces with the README's definitions."""
    names = r.links["link"].to_list()
    fwd0, rev0, fwd1 = names.index("hop0.fwd"), names.index("hop0.rev"), names.index("hop1.fwd")
    pk = _packets(r, "time", "link", "event", "kind", "seq")
    ack_arrivals = {t for t, link, e, kind, _ in pk if link == rev0 and e == "r" and kind == "ack"}
    sends = [(t, seq) for t, link, e, kind, seq in pk if link == fwd0 and e == "+" and kind == "data"]
    fate: dict[int, list[bool]] = {}
    for _, link, e, kind, seq in pk:
        if link == fwd1 and kind == "data" and e in "+l":
            fate.setdefault(seq, []).append(e == "l")
    maxseq, rtx, spurious, rto = -1, 0, 0, []
    nth: dict[int, int] = {}
    for t, seq in sends:
        k = nth.get(seq, 0)
        nth[seq] = k + 1
        if 0 < seq <= maxseq:
            rtx += 1
            if not all(fate.get(seq, [])[:k]):
                spurious += 1
        if t not in ack_arrivals and t != 1_000_000:
            rto.append(_t(t))
        maxseq = max(maxseq, seq)
    arrivals = sorted([(t, s) for t, k, s in ev.packets if k == "+"] + list(ev.drops))
    seen, rtx_r1 = set(), []
    for t, s in arrivals:
        if s in seen:
            rtx_r1.append(f"{s}@{_t(t)}")
        seen.add(s)
    vars_ = r.trace("ns2_vars").select("time_s", "time_ns", "var", "value").rows()
    cut = next((v for v in vars_ if v[2] == "ssthresh_" and v[0] > 1.5), None)
    cwnd_at = {}
    for v in vars_:
        if v[2] == "cwnd_":
            cwnd_at[_us(v[1])] = v[3]
    last = {v[2]: v[3] for v in vars_}
    return {
        "drop_list": " ".join(str(s) for _, s in ev.drops),
        "data_sent": str(sum(1 for _, s in sends if s > 0)),
        "highest_seq_sent": str(maxseq),
        "retransmissions": str(rtx),
        "spurious_retransmissions": str(spurious),
        "rto_times": " ".join(rto),
        "retransmitted_at_r1": " ".join(rtx_r1),
        "series_packets_plus": str(sum(1 for e in ev.packets if e[1] == "+")),
        "series_packets_minus": str(sum(1 for e in ev.packets if e[1] == "-")),
        "series_acks_points": str(2 * len(ev.acks)),
        "last_ack_sent": str(max((a for _, a in ev.acks), default=-1)),
        "first_cut_time": f"{cut[0]:.5f}" if cut else "",
        "ssthresh_after_first_cut": str(int(cut[3])) if cut else "",
        "cwnd_after_first_cut": f"{cwnd_at.get(_us(cut[1]), float('nan')):.3f}" if cut else "",
        "cwnd_at_end": f"{last.get('cwnd_', float('nan')):.3f}",
        "ssthresh_at_end": str(int(last.get("ssthresh_", -1))),
    }


def reference_summary() -> dict[str, dict[str, str]]:
    with open(REFERENCE / "summary.csv") as f:
        return {row["test"]: row for row in csv.DictReader(f)}
