"""RED on a plain dumbbell, tcplab against ns-2 2.35 (issue #18).

    python -m tcplab.validation.red [--workers N] [--run-ns2]

N = 2, 8 and 32 long-lived SACK flows (1000-byte segments + 42 header bytes, an ACK per segment)
share a 10 Mbit/s, 20 ms bottleneck; access links are 100 Mbit/s with one-way delays 1..5 ms
spread evenly, receiver links 100 Mbit/s, 1 ms. The bottleneck queue is drop-tail (limit 100, the
control) or RED (packet mode, limit 100, min_th 5, max_th 15, max_p 0.1, w_q 0.002, mean packet
1000 bytes, wait, no ECN) with gentle off and on. Flows start uniformly in [0, 1] s; 100 s runs,
measured after 20 s, seeds 1-3.

The ns-2 side is `data/red_dumbbell.tcl` (Floyd's `queue/red.cc`, `Agent/TCP/Sack1`); its outputs
are stored in `data/red_ns2.csv` so that the table can be regenerated without ns-2 (`--run-ns2`
reruns it with the local `ns`). The report's version of this table, with its checks, is the item
`ns2-red` of `tcplab reproduce ns2` (docs/validation/ns2.md). tcplab runs each cell with the `ns2`
profile's Sack1 agent and with the native `sack` sender. Targets (issue #18): the ns2 profile
within 5% of ns-2 on goodput, mean queue, mean RED average and drops (means over the seeds); the
native sender within 10%.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
TCL = DATA / "red_dumbbell.tcl"
NS2_CSV = DATA / "red_ns2.csv"

NS = (2, 8, 32)
QUEUES = (("droptail", 0), ("red", 0), ("red", 1))  # (discipline, gentle)
SEEDS = (1, 2, 3)
DURATION, WARMUP = 100, 20
METRICS = ("goodput", "mean_queue", "mean_avg", "drops")
LABEL = {
    "goodput": "goodput Mbit/s",
    "mean_queue": "mean queue (pkts)",
    "mean_avg": "mean RED average (pkts)",
    "drops": "drops",
}
TARGET = {"ns2": 0.05, "native": 0.10, "native-ns2-timers": 0.10}
#: The tcplab senders of the table: ns-2's Sack1 (the profile), the native RFC sender at its
#: defaults (RFC 6298 timer, 1 s minimum RTO), and the same sender with ns-2's agent settings.
SENDERS = ("ns2", "native", "native-ns2-timers")
#: Sack1's settings in data/red_dumbbell.tcl, given to the native sender: a 200 ms minimum RTO
#: on a 10 ms timer tick (ns-2's tcpTick_ with the Jacobson estimator), IW 2, limited transmit.
NS2_TIMERS = {
    "initial_window": 2,
    "limited_transmit": True,
    "initial_rto": "3s",
    "min_rto": "200ms",
    "max_rto": "60s",
    "rto_estimator": "jacobson88",
    "clock_tick": "10ms",
}
FIELDS = ("n", "disc", "gentle", "seed", *METRICS)


def delays(n: int) -> list[str]:
    return [f"{1.0 + 4.0 * i / (n - 1) if n > 1 else 1.0:g}ms" for i in range(n)]


def scenario(
    n: int, disc: str, gentle: int, seed: int, sender: str, duration: float = DURATION, warmup: float = WARMUP
) -> dict:
    """The tcplab scenario of one cell; `sender` is "ns2" (the profile's Sack1) or "native"."""
    queue: dict = {"discipline": disc, "limit": 100}
    if disc == "red":
        queue["red"] = {
            "min_th": 5,
            "max_th": 15,
            "max_p": 0.1,
            "w_q": 0.002,
            "mean_packet": 1000,
            "gentle": bool(gentle),
        }
    flow: dict = {
        "tcp": "sack",
        "ack": "immediate",
        "mss": 1000,
        "header_bytes": 42,
        "rwnd": "100MB",
        "start": ["0s", "1s"],
    }
    if sender == "ns2":
        flow.update(
            {
                "profile": "ns2",
                "initial_window": 2,
                "limited_transmit": True,
                "initial_rto": "3s",
                "min_rto": "200ms",
                "max_rto": "60s",
                "clock_tick": "10ms",
            }
        )
    elif sender == "native-ns2-timers":
        flow.update(NS2_TIMERS)
    return {
        "name": f"red-dumbbell-{n}-{disc}{'-gentle' if gentle else ''}",
        "seed": seed,
        "duration": f"{duration}s",
        "warmup": f"{warmup}s",
        "network": {
            "dumbbell": {
                "bottleneck": {"rate": "10Mbit/s", "delay": "20ms", "queue": queue},
                "access_rate": "100Mbit/s",
                "access_delays": delays(n),
                "egress_delay": "1ms",
            }
        },
        "flows": [dict(flow) for _ in range(n)],
    }


def run_tcplab(args: tuple) -> dict:
    import polars as pl

    import tcplab

    n, disc, gentle, seed, sender, duration, warmup = args
    r = tcplab.run(scenario(n, disc, gentle, seed, sender, duration, warmup))
    link = r.links.filter(pl.col("link") == "bottleneck.fwd").row(0, named=True)
    avg = link.get("mean_red_avg")
    return {
        "n": n,
        "disc": disc,
        "gentle": gentle,
        "seed": seed,
        "sender": sender,
        "goodput": float(r.flows["goodput_bps"].sum()),
        "mean_queue": link["mean_queue_packets"],
        "mean_avg": avg if avg is not None else 0.0,
        "drops": float(link["drops_queue"]),
    }


def run_ns2(args: tuple) -> dict:
    n, disc, gentle, seed, duration, warmup = args
    out = subprocess.run(
        ["ns", str(TCL), str(n), disc, str(gentle), str(seed), str(duration), str(warmup)],
        capture_output=True,
        text=True,
        check=True,
        cwd="/tmp",
    )
    vals = dict(kv.split("=") for kv in out.stdout.split())
    return {"n": n, "disc": disc, "gentle": gentle, "seed": seed, **{m: float(vals[m]) for m in METRICS}}


def cells():
    return [(n, d, g) for n in NS for d, g in QUEUES]


def load_ns2() -> list[dict]:
    with open(NS2_CSV) as f:
        return [
            {
                "n": int(r["n"]),
                "disc": r["disc"],
                "gentle": int(r["gentle"]),
                "seed": int(r["seed"]),
                **{m: float(r[m]) for m in METRICS},
            }
            for r in csv.DictReader(f)
        ]


def mean(rows, m):
    return sum(r[m] for r in rows) / len(rows)


def table(ns2: list[dict], tl: list[dict]) -> tuple[str, list[str]]:
    """The markdown table and the list of targets missed."""
    lines = [
        "| N | queue | metric | ns-2 2.35 | tcplab ns2 profile (diff) | tcplab native sack (diff) "
        "| native sack, ns-2's timers (diff) |",
        "|---|---|---|---|---|---|---|",
    ]
    missed = []
    for n, d, g in cells():
        key = lambda r: (r["n"], r["disc"], r["gentle"]) == (n, d, g)  # noqa: B023 -- called in this iteration only
        ref = [r for r in ns2 if key(r)]
        qname = "droptail" if d == "droptail" else f"RED gentle {'on' if g else 'off'}"
        for m in METRICS:
            if d == "droptail" and m == "mean_avg":
                continue
            scale = 1e-6 if m == "goodput" else 1.0
            fmt = ".3f" if m == "goodput" else (".0f" if m == "drops" else ".2f")
            cols = [f"{mean(ref, m) * scale:{fmt}}"]
            for sender in SENDERS:
                rows = [r for r in tl if key(r) and r["sender"] == sender]
                v, base = mean(rows, m), mean(ref, m)
                diff = (v - base) / base if base else 0.0
                mark = "" if abs(diff) <= TARGET[sender] else " **"
                if mark:
                    missed.append(f"N={n} {qname} {m} {sender}: {diff:+.1%}")
                cols.append(f"{v * scale:{fmt}} ({diff:+.1%}){mark}")
            lines.append(f"| {n} | {qname} | {LABEL[m]} | " + " | ".join(cols) + " |")
    return "\n".join(lines), missed


def check(*, workers: int = 2, run_ns2_too: bool = False) -> int:
    """`tcplab validate red`: tcplab's runs (and ns-2's again with `run_ns2_too`) and the table."""
    with ProcessPoolExecutor(workers) as pool:
        if run_ns2_too:
            if shutil.which("ns") is None:
                print("no `ns` on PATH", file=sys.stderr)
                return 2
            ns2_jobs = [(n, d, g, s, DURATION, WARMUP) for n, d, g in cells() for s in SEEDS]
            ns2 = list(pool.map(run_ns2, ns2_jobs))
            with open(NS2_CSV, "w", newline="") as f:
                w = csv.DictWriter(f, FIELDS)
                w.writeheader()
                w.writerows(ns2)
        ns2 = load_ns2()
        jobs = [(n, d, g, s, snd, DURATION, WARMUP) for n, d, g in cells() for s in SEEDS for snd in SENDERS]
        tl = list(pool.map(run_tcplab, jobs))
    text, missed = table(ns2, tl)
    stalled = [
        f"N={r['n']} {r['disc']} gentle={r['gentle']} seed={r['seed']} {r['sender']}"
        for r in tl
        if r["goodput"] <= 0
    ]
    summary = [
        f"Runs with no goodput: {', '.join(stalled) if stalled else 'none'} "
        f"(of {len(tl)} tcplab runs, {len(ns2)} ns-2 runs).",
        "Targets (ns2 profile within 5%, native senders within 10%; ** marks a miss): "
        + ("all met." if not missed else f"{len(missed)} missed: " + "; ".join(missed) + "."),
    ]
    print(text)
    print()
    print("\n".join(summary))
    return 0


def main(argv: list[str] | None = None) -> int:
    """`python -m tcplab.validation.red [ARGS]`: `tcplab validate red [ARGS]`, its exit status returned."""
    from tcplab.validation.cli import standalone

    return standalone("red", argv, prog="python -m tcplab.validation.red")


if __name__ == "__main__":
    sys.exit(main())
