"""docs/validation/ecn.md, part 2: the DCTCP analysis (Alizadeh et al., SIGCOMM 2010, Sec. 3.3;
`tcplab.models.dctcp`) against tcplab's DCTCP through a step-marking queue.

N = 2, 10 and 40 flows share a 10 Gbit/s bottleneck with a 100 us base RTT (C x RTT = 83.3
packets of 1500 bytes), marked at K = 40 or 65 packets; an ACK per segment, as the analysis
assumes. From the bottleneck's queue trace over the measurement window: the sawtooth's cycles
(the queue rising through its mean after falling below it, 1 packet of hysteresis on each side),
each cycle's peak and trough; the measured Q_max is the median peak, the amplitude the median
of peak - trough. Alpha is the flows' time-averaged `ecn_alpha_mean`.
"""

from __future__ import annotations

import statistics
from typing import Any

RATE_BPS, RTT_S, PACKET = 10e9, 100e-6, 1500
NS, KS = (2, 10, 40), (40, 65)
#: Targets at K = 65: Q_max within 10 %, amplitude within 20 %.
QMAX_TOL, AMPLITUDE_TOL = 0.10, 0.20


def scenario(n: int, k: int, quick: bool) -> dict:
    """N DCTCP flows, 10 Gbit/s bottleneck (100 Gbit/s access links), base RTT 100 us, a step
    at K; flow i starts at i x 10 us."""
    return {
        "name": f"dctcp-analysis-n{n}-k{k}",
        "seed": 1,
        "duration": "60ms" if quick else "250ms",
        "warmup": "20ms" if quick else "50ms",
        "network": {
            "dumbbell": {
                "bottleneck": {
                    "rate": "10Gbit/s",
                    "delay": "48us",
                    "queue": {"discipline": "step", "limit": 2000, "step": {"threshold": k}},
                },
                "access_rate": "100Gbit/s",
                "access_delay": "1us",
                "access_queue": {"limit": 2000},
            }
        },
        "flows": [
            {
                "cc": "dctcp",
                "ecn": "classic",
                "tcp": {"variant": "sack", "prr": True},
                "mss": 1460,
                "ack": "immediate",
                "initial_window": 10,
                "rwnd": 100_000_000,
                "min_rto": "10ms",
                "rto_granularity": "10us",
                "start": f"{i * 10}us",
            }
            for i in range(n)
        ],
        "trace": {"queue": True, "max_points": 20_000_000},
    }


def cycles(times: list[float], packets: list[int], level: float) -> list[tuple[int, int]]:
    """(peak, trough) of each sawtooth cycle of a queue trace: a cycle starts when the queue
    rises above level + 1 after having been below level - 1; its peak is the highest value
    before it falls below level - 1 again and its trough the lowest until the next start.
    Incomplete cycles at either end are left out."""
    out: list[tuple[int, int]] = []
    state, peak, trough, started = "low", 0, 10**9, False
    for q in packets:
        if state == "low":
            trough = min(trough, q)
            if q > level + 1:
                if started:
                    out.append((peak, trough))
                state, peak, started = "high", q, True
        else:
            peak = max(peak, q)
            if q < level - 1:
                state, trough = "low", q
    return out


def measure(res: Any, warmup_s: float) -> dict:
    links = res.links
    name = next(x for x in links["link"].to_list() if x.startswith("bottleneck") and x.endswith("fwd"))
    trace = res.trace("queue")
    q = trace.filter((trace["link_name"] == name) & (trace["time_s"] >= warmup_s))
    t, p = q["time_s"].to_list(), q["packets"].to_list()
    mean = links.filter(links["link"] == name).row(0, named=True)["mean_queue_packets"]
    cyc = cycles(t, p, mean)
    peaks = [a for a, _ in cyc]
    amps = [a - b for a, b in cyc]
    return {
        "cycles": len(cyc),
        "q_max": statistics.median(peaks) if peaks else float("nan"),
        "q_max_abs": max(p) if p else float("nan"),
        "amplitude": statistics.median(amps) if amps else float("nan"),
        "q_min": statistics.median([b for _, b in cyc]) if cyc else float("nan"),
        "mean_queue": mean,
        "alpha": statistics.mean(res.flows["ecn_alpha_mean"].to_list()),
        "goodput_bps": sum(res.flows["goodput_bps"].to_list()),
        "utilization": links.filter(links["link"] == name).row(0, named=True)["utilization"],
    }


def run(quick: bool, log) -> list[dict]:
    from tcplab.models import dctcp
    from tcplab.simulation import run as simulate

    bdp = float(dctcp.bdp_packets(RATE_BPS, RTT_S, PACKET))
    rows = []
    grid = [(n, 65) for n in (2,)] if quick else [(n, k) for k in KS for n in NS]
    for n, k in grid:
        sc = scenario(n, k, quick)
        m = measure(simulate(sc), float(sc["warmup"].removesuffix("ms")) * 1e-3)
        w = float(dctcp.critical_window(bdp, n, k))
        m.update(
            n=n,
            k=k,
            model_q_max=float(dctcp.q_max(bdp, n, k)),
            model_amplitude=float(dctcp.queue_amplitude(bdp, n, k)),
            model_q_min=float(dctcp.q_min(bdp, n, k)),
            model_alpha=float(dctcp.alpha(w)) if w >= 2 else float("nan"),
            model_alpha_exact=float(dctcp.alpha_exact(w)),
            w_star=w,
        )
        rows.append(m)
        log(
            f"analysis N={n} K={k}: Q_max {m['q_max']:.0f} (model {m['model_q_max']:.0f}), A {m['amplitude']:.1f} "
            f"(model {m['model_amplitude']:.1f}), alpha {m['alpha']:.3f} (model {m['model_alpha_exact']:.3f}), "
            f"{m['cycles']} cycles"
        )
    return rows


def checks(rows: list[dict]) -> list[tuple[str, bool, str]]:
    out = []
    for r in rows:
        if r["k"] != 65:
            continue
        dq = r["q_max"] / r["model_q_max"] - 1
        da = r["amplitude"] / r["model_amplitude"] - 1
        out.append((f"N = {r['n']}, K = 65: Q_max within 10%", abs(dq) <= QMAX_TOL, f"{dq:+.3f}"))
        out.append((f"N = {r['n']}, K = 65: amplitude within 20%", abs(da) <= AMPLITUDE_TOL, f"{da:+.3f}"))
    return out
