"""The queueless grid of `tcplab validate linux`: Mathis' random-loss path over p x RTT x
congestion control x seed, several cells per emulated run.

Every cell and seed is a link of its own between a sender node and a receiver node (a graph
network of disjoint paths; the receivers also join an idle hub, as a graph must be connected),
so one emulated run measures many cells at once: the flows share no link, only this machine's
cores. A link is named after its cell and seed and the simulator draws a link's losses from
(the run's seed, the link's name), so a cell's loss pattern does not depend on the other cells
of its run; tcplab's side simulates the same scenario, every flow of the run.

Runs are grouped by round trip: the short round trips' epochs are short and their packet rates
high, so their runs are short and hold one seed; the long ones run longer, to hold enough
congestion epochs (loss events) in the window, and their low rates let several seeds share a run.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

#: The grid: loss rates, round trips (ms), (kernel module, tcplab controller), seeds.
P_GRID = (0.0003, 0.003, 0.01, 0.03, 0.1)
RTT_MS = (20, 50, 80, 120, 200)
CCS = (("reno", "aimd"), ("cubic", "cubic"))
SEEDS = (1, 2, 3)
#: The emulated runs: (round trips in ms, duration s, seeds per run at most). A run holds every
#: p and cc of its round trips for each of its seeds.
GROUPS = (((20,), 90, 1), ((50,), 150, 3), ((80, 120, 200), 390, 3))
#: The warm-up of every run, s: slow start and the first epochs are left out.
WARMUP_S = 15
#: --quick: one short run of a few cells.
QUICK_GROUPS = (((20,), 20, 1),)
QUICK_P = (0.003, 0.03)

#: A flow of a run: (p, RTT ms, kernel module, seed).
Flow = tuple[float, int, str, int]


def link_name(p: float, rtt_ms: int, module: str, seed: int) -> str:
    """The link of a cell and seed: `cubic-r20-p300-seed1` for cubic, 20 ms, p = 300 ppm."""
    return f"{module}-r{rtt_ms}-p{round(p * 1e6)}-seed{seed}"


def groups(quick: bool) -> tuple[tuple[tuple[int, ...], int, int], ...]:
    return QUICK_GROUPS if quick else GROUPS


def group_flows(group: int, seeds: Iterable[int], quick: bool) -> list[Flow]:
    """The flows of one run of group `group` holding `seeds`, in the order of its flows."""
    rtts = groups(quick)[group][0]
    ps = QUICK_P if quick else P_GRID
    return [(p, r, module, s) for s in seeds for r in rtts for p in ps for module, _ in CCS]


def plan(seeds: list[int], quick: bool) -> list[tuple[int, list[int]]]:
    """The runs that measure `seeds`: (group, the seeds of the run)."""
    out = []
    for g, (_, _, per_run) in enumerate(groups(quick)):
        out += [(g, seeds[i : i + per_run]) for i in range(0, len(seeds), per_run)]
    return out


def scenario(flows: Iterable[Flow], seed: int, duration_s: int, warmup_s: int = WARMUP_S) -> dict:
    """One run: a disjoint path per flow (100 Mbit/s, a 10,000-packet queue that never fills,
    Bernoulli loss p on the data direction), one `profile = "linux"` flow on each."""
    cc_of = dict(CCS)
    links, ends, specs = [], [], []
    for p, rtt, module, s in flows:
        name = link_name(p, rtt, module, s)
        links.append(
            {
                "from": f"{name}-snd",
                "to": f"{name}-rcv",
                "name": name,
                "rate": "100Mbit/s",
                "delay": f"{rtt / 2:g}ms",
                "queue": {"limit": 10000},
                "loss": {"model": "bernoulli", "p": p},
            }
        )
        links.append(
            {"from": f"{name}-rcv", "to": "hub", "name": f"{name}-hub", "rate": "100Mbit/s", "delay": "1ms"}
        )
        ends.append({"from": f"{name}-snd", "to": f"{name}-rcv"})
        specs.append({"profile": "linux", "cc": cc_of[module]})
    return {
        "name": "linux-queueless-grid",
        "seed": seed,
        "duration": f"{duration_s}s",
        "warmup": f"{warmup_s}s",
        "network": {"graph": {"links": links, "flows": ends}},
        "flows": specs,
    }


def load() -> str:
    """This machine's load averages (1, 5, 15 min), as `uptime` prints them."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def simulate_run(flows: list[Flow], seed: int, duration_s: int, warmup_s: int) -> list[dict]:
    """tcplab's side of one run: each flow's row."""
    from tcplab.simulation import run as simulate

    sim = simulate(scenario(flows, seed, duration_s, warmup_s))
    return list(sim.flows.iter_rows(named=True))


def tcplab_fields(s: dict) -> dict:
    return {
        "tcplab_bps": s["goodput_bps"],
        "tcplab_rtos": s["timeouts"],
        "tcplab_p": s["p"],
        "tcplab_loss_events": s["loss_events"],
    }


def run_seeds(
    seeds: list[int],
    quick: bool,
    log: Callable[[str], None],
    captures: Path | None = None,
    done: Callable[[list[dict], dict], None] | None = None,
) -> tuple[list[dict], list[dict]]:
    """Every run of `seeds`, emulated and simulated: (rows, one per cell and seed; runs).
    `captures`: a directory that keeps each run's capture at the senders (`<run id>.pcap`,
    flow i of the run between 10.0.0.i+1 and 10.128.0.i+1, in the order of `group_flows`).
    `done(rows, run)` after each run, with that run's rows."""
    from tcplab.emulate import emulate

    rows: list[dict] = []
    runs: list[dict] = []
    for g, run_seeds_ in plan(seeds, quick):
        rtts, duration, _ = groups(quick)[g]
        flows = group_flows(g, run_seeds_, quick)
        run_id = f"run{g}-seed{'-'.join(map(str, run_seeds_))}"
        seed = run_seeds_[0]
        started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        before = load()
        t = time.monotonic()
        emu = emulate(
            scenario(flows, seed, duration), capture=captures / f"{run_id}.pcap" if captures else None
        )
        run = {
            "id": run_id,
            "seed": seed,
            "seeds": run_seeds_,
            "group": g,
            "rtt_ms": list(rtts),
            "duration_s": duration,
            "warmup_s": WARMUP_S,
            "started": started,
            "wall_s": round(time.monotonic() - t, 1),
            "load_before": before,
            "load_after": load(),
            "late_p99_ms": emu.selfcheck["lateness"]["p99_s"] * 1e3,
            # The flows' sender and sink threads: how many got SCHED_FIFO, how many did not.
            "endpoints_realtime": emu.selfcheck["endpoints_realtime"],
            "endpoints_normal": emu.selfcheck["endpoints_normal"],
            "warnings": emu.warnings,
        }
        runs.append(run)
        sims = simulate_run(flows, seed, duration, WARMUP_S)
        first = len(rows)
        for i, ((p, rtt, module, s), e, sim) in enumerate(
            zip(flows, emu.flows.iter_rows(named=True), sims, strict=True)
        ):
            rows.append(
                {
                    "p": p,
                    "rtt_ms": rtt,
                    "cc": module,
                    "seed": s,
                    "run": run_id,
                    "linux_bps": e["goodput_bps"],
                    "linux_rtos": e["kernel_rto_events"],
                    "linux_p": e["p"],
                    "linux_loss_events": e["loss_events"],
                    "late_p99_ms": run["late_p99_ms"],
                    "warnings": [w for w in emu.warnings if w.startswith(f"flows[{i}]")],
                    **tcplab_fields(sim),
                }
            )
        if done:
            done(rows[first:], run)
        log(
            f"{run_id}, RTT {'/'.join(map(str, rtts))} ms: {len(flows)} flows in {run['wall_s']:.0f} s, "
            f"p99 lateness {run['late_p99_ms']:.3f} ms, load {before} -> {run['load_after']}"
        )
    return rows, runs


def simulate_again(rows: list[dict], runs: list[dict]) -> None:
    """tcplab's side of every saved run, simulated again in place (the kernel's is kept)."""
    for run in runs:
        mine = [r for r in rows if r["run"] == run["id"]]
        flows = [(r["p"], r["rtt_ms"], r["cc"], r["seed"]) for r in mine]
        sims = simulate_run(flows, run["seed"], run["duration_s"], run["warmup_s"])
        for r, s in zip(mine, sims, strict=True):
            r.update(tcplab_fields(s))
