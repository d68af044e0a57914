"""Parvez et al. 2010, Sec. V on this machine's kernel: the runs of the emulation scenario
(`parvez/emulation.toml`) through `tcplab emulate`, and the stored results the item falls back to.

The runs are in real time (each takes the scenario's `duration` of wall-clock time), so they are
made only when asked: `tcplab reproduce parvez --emulate` (root), or

    python -m tcplab.reproduce.items.parvez.kernel --stack reno --save FILE [--merge]

which writes (or adds to) a results file like the one shipped in the package
(`data/parvez-emulation.json`): every run with the date, the kernel and the machine it was made
on, the load (`/proc/loadavg`) before and after and how its endpoint threads were scheduled
(the self-check's `endpoints_realtime`, `endpoints_normal`). Nothing here is typed by hand: the item
reads the file as the runs wrote it.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from tcplab.reproduce.items.parvez.shared import EMULATION as SCENARIO

LOSS = "network.path.hops.2.loss.p"
#: The paper's imposed loss rates (Sec. V-C: 0.5% to 3% in steps of 0.5%).
RATES = (0.005, 0.01, 0.015, 0.02, 0.025, 0.03)
#: The kernel's stacks: (name, the scenario's flow fields). `reno` is the kernel's reno module
#: with net.ipv4.tcp_sack = 0 (its NewReno recovery, RFC 6582 with PRR), the closest to the
#: paper's NewReno sender; the other two are today's defaults with SACK (RACK-TLP, PRR).
STACKS: dict[str, dict[str, str]] = {
    "reno": {"flows.0.tcp": "newreno", "flows.0.cc": "aimd"},
    "reno-sack": {"flows.0.tcp": "sack", "flows.0.cc": "aimd"},
    "cubic-sack": {"flows.0.tcp": "sack", "flows.0.cc": "cubic"},
}
SEEDS = (1, 2)
#: The lossless run (the paper's 9.59 Mbit/s): one seed per stack, shorter (nothing to sample).
NO_LOSS_SETS = {"duration": "30s", "warmup": "10s"}
#: The file shipped in the package (what the item reads when it does not run the kernel).
STORED = "parvez-emulation.json"


def stored_path() -> Path:
    return Path(str(resources.files("tcplab.reproduce.items.parvez") / "data" / STORED))


def load_stored(path: Path | None = None) -> dict[str, Any] | None:
    p = path or stored_path()
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return None


def runs(stacks: tuple[str, ...] = tuple(STACKS)) -> list[tuple[str, float, int, dict[str, Any]]]:
    """Every kernel run: (stack, p, seed, --set overrides)."""
    out = []
    for stack in stacks:
        out.append((stack, 0.0, 1, {**STACKS[stack], LOSS: 0.0, **NO_LOSS_SETS}))
        for seed in SEEDS:
            for p in RATES:
                out.append((stack, p, seed, {**STACKS[stack], LOSS: p, "seed": seed}))
    return out


def machine() -> dict[str, Any]:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    return {"kernel": platform.release(), "cpu": cpu, "cores": len(os.sched_getaffinity(0))}


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def measure_one(stack: str, p: float, seed: int, sets: dict[str, Any]) -> dict[str, Any]:
    """One run through the kernel: the flow's numbers the item needs."""
    from tcplab.emulate import emulate
    from tcplab.reproduce.core import scenario_text

    started = time.time()
    r = emulate(scenario_text(SCENARIO), sets)
    f = r.flows.row(0, named=True)
    return {
        "stack": stack,
        "p": p,
        "seed": seed,
        "duration_s": r.duration_s,
        "warmup_s": r.warmup_s,
        "goodput_bps": f["goodput_bps"],
        "bytes_delivered": f["bytes_delivered"],
        "fast_retransmits": f["fast_retransmits"],
        "timeouts": f["timeouts"],
        "loss_events": f["loss_events"],
        "segments_sent": f["segments_sent"],
        "segments_retransmitted": f["segments_retransmitted"],
        "mean_rtt_s": f["mean_rtt_s"],
        "kernel_rtt_s": f["kernel_rtt_s"],
        "kernel_retrans": f["kernel_retrans"],
        "kernel_rto_events": f["kernel_rto_events"],
        "late_p99_ms": r.selfcheck["lateness"]["p99_s"] * 1e3,
        # How the run's sender and sink threads were scheduled (docs/emulation.md, "The
        # endpoints' scheduling"): how many got SCHED_FIFO, how many ran at normal priority.
        "endpoints_realtime": r.selfcheck["endpoints_realtime"],
        "endpoints_normal": r.selfcheck["endpoints_normal"],
        "warnings": r.warnings,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "load_before": None,
        "load_after": None,
    }


def measure(stacks: tuple[str, ...], log: Callable[[str], None] = lambda m: None) -> dict[str, Any]:
    """Every run of `stacks` through the kernel (real time: about 12.5 minutes per stack)."""
    rows = []
    for stack, p, seed, sets in runs(stacks):
        before = _load()
        row = measure_one(stack, p, seed, sets)
        row["load_before"], row["load_after"] = before, _load()
        rows.append(row)
        log(
            f"{stack} p={p:g} seed {seed}: {row['goodput_bps'] / 1e6:.3f} Mbit/s, "
            f"{row['fast_retransmits']} FR, {row['timeouts']} TO (load {row['load_after']})"
        )
    return {
        "date": time.strftime("%Y-%m-%d"),
        "machine": machine(),
        "scenario": SCENARIO,
        "rows": rows,
    }


def merge(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """`new`'s runs in place of `old`'s of the same stacks; the machine must be the same."""
    if not old:
        return new
    if old["machine"] != new["machine"]:
        raise ValueError(f"cannot merge runs of {new['machine']} into runs of {old['machine']}")
    stacks = {r["stack"] for r in new["rows"]}
    rows = [r for r in old["rows"] if r["stack"] not in stacks] + new["rows"]
    dates = sorted({old["date"], new["date"]})
    return {**new, "date": " and ".join(dates), "rows": sorted(rows, key=_order)}


def _order(r: dict[str, Any]) -> tuple:
    return (list(STACKS).index(r["stack"]), r["seed"] if r["p"] else 0, r["p"])


def scheduling(rows: list[dict[str, Any]]) -> str:
    """How the runs' endpoint threads (each flow's sender and sink) were scheduled, as their rows
    record it: the runs with all of them at SCHED_FIFO, and the rows made before it was recorded
    (docs/emulation.md, "The endpoints' scheduling")."""
    known = [r for r in rows if "endpoints_realtime" in r and "endpoints_normal" in r]
    parts = []
    if known:
        fifo = sum(1 for r in known if r["endpoints_normal"] == 0 and r["endpoints_realtime"] > 0)
        parts.append(
            f"{fifo} of the {len(known)} runs that record it had all their endpoint threads (the sender "
            "and the sink) at SCHED_FIFO"
            + (f", {len(known) - fifo} had some at normal priority" if fifo < len(known) else "")
        )
    if len(known) < len(rows):
        parts.append(
            f"{len(rows) - len(known)} runs predate that record (made before the endpoint threads' "
            "scheduling was stored with each run)"
        )
    return "Endpoint threads: " + "; ".join(parts) + "."


def load_range(rows: list[dict[str, Any]]) -> tuple[str, str]:
    """The lowest and highest load averages recorded before and after the runs (by the 1-minute
    figure; `/proc/loadavg`'s three numbers as stored)."""
    loads = {r[k] for r in rows for k in ("load_before", "load_after") if r.get(k) and r[k] != "?"}
    if not loads:
        return "?", "?"
    order = sorted(loads, key=lambda s: [float(x) for x in s.split()])
    return order[0], order[-1]


def main(argv: list[str] | None = None) -> int:
    import argparse

    from tcplab.emulate.netns import missing_requirements

    ap = argparse.ArgumentParser(prog="python -m tcplab.reproduce.items.parvez.kernel")
    ap.add_argument("--stack", action="append", choices=list(STACKS), help="(repeatable; default: all)")
    ap.add_argument("--save", type=Path, required=True, help="the results file to write")
    ap.add_argument("--merge", action="store_true", help="replace only these stacks' runs in --save")
    a = ap.parse_args(argv)
    missing = missing_requirements()
    if missing:
        print(f"error: {missing}", file=sys.stderr)
        return 2
    stacks = tuple(a.stack or STACKS)
    new = measure(stacks, log=lambda m: print(m, file=sys.stderr, flush=True))
    try:
        res = merge(load_stored(a.save) if a.merge else None, new)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    a.save.write_text(json.dumps(res, indent=1) + "\n")
    print(f"wrote {a.save}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
