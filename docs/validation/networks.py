"""Regenerates the tables of docs/validation/networks.md:

    .venv/bin/python docs/validation/networks.py

Mathis et al. 1997 Tables 2-3 (phase effects) and Barakat & Altman 1999 Fig. 4 (chain of n nodes,
equivalent two-node model, single-node model), simulated with tcplab and set against the
analytic side in tcplab.models."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

import tcplab
from tcplab.models import gateways, multibottleneck as mb

ROOT = Path(__file__).resolve().parents[2]
C_TABLE2 = 0.8  # Mathis et al. 1997 footnote 11: the C used for every model value of Tables 2-3,
# "locally accurate" for p near 0.01, fitted to the paper's own simulator (its Fig. 6 data)
C_TABLE1 = 1.22  # Table 1, an ACK per segment (the flows' receivers): what `tcplab run` uses


def mathis(mss, rtt, p, c=C_TABLE2):
    return mss * 8 / rtt * c / math.sqrt(p) if p > 0 else math.inf


def phase_effects():
    print("| queue | discipline | flow | kb/s | CA+timeouts+other | p | RTT ms | TCP model C=0.8 kb/s (err) | TCP model C=1.22 kb/s (err) | link model C=0.8 kb/s (err) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for limit in (15, 100):
        for disc in ("droptail", "red"):
            r = tcplab.run(ROOT / "scenarios/phase-effects.toml", sets={
                "network.dumbbell.bottleneck.queue.limit": limit,
                "network.dumbbell.bottleneck.queue.discipline": disc})
            link = r.links.filter(pl.col("link") == "bottleneck.fwd").row(0, named=True)
            min_rtts = (0.2214, 0.2312)
            for f in r.flows.iter_rows(named=True):
                rtt_est = min_rtts[f["flow"]] + link["mean_queue_delay_s"]
                lm = mathis(f["mss_bytes"], rtt_est, link["drop_rate"])
                tm = mathis(f["mss_bytes"], f["mean_rtt_s"], f["p"])
                tm1 = mathis(f["mss_bytes"], f["mean_rtt_s"], f["p"], C_TABLE1)
                bw = f["goodput_bps"]
                err = lambda m: f"{m / 1e3:.0f} ({abs(m - bw) / bw:.0%})" if math.isfinite(m) else "no CA events"
                print(f"| {limit} | {disc} | {f['flow'] + 1} | {bw / 1e3:.0f} | "
                      f"{f['ca_events']}+{f['timeouts']}+{f['other_losses']} | {f['p']:.4f} | "
                      f"{f['mean_rtt_s'] * 1e3:.0f} | {err(tm)} | {err(tm1)} | {err(lm)} |")


def chain(hops, duration):
    """Barakat Sec. 5 path: the delay on the last hop makes T = 560 ms with the service times."""
    svc = sum((512 + 40) * 8 / r for r, _ in hops)
    d = (0.560 - svc) / 2
    spec = [{"rate": r, "delay": 0.0, "queue": {"limit": b}} for r, b in hops]
    spec[-1]["delay"] = round(d, 9)
    return {"seed": 1, "duration": duration, "warmup": "100s", "network": {"chain": {"hops": spec}},
            "flows": [{"tcp": "tahoe", "ack": "immediate", "mss": 472, "header_bytes": 40}]}


def barakat(duration="3000s"):
    mu, t, size = 1.5e6, 0.560, 512
    print("| n | Eq. 1 first overflow | full chain kb/s | two-node sim kb/s (B') | one-node sim kb/s | two-node model kb/s | one-node model kb/s |")
    print("|---|---|---|---|---|---|---|")
    for n in range(1, 9):
        rates = list(mb.uniform_rates(mu, n))
        full = [(r, 17) for r in rates] + [(mu, 20)]
        s_i, s = mb.overflow_bursts(mu, rates, [17] * n, 20)
        where = f"node {int(min(range(n), key=lambda i: s_i[i])) + 1}" if min(s_i) < s else "bottleneck"
        mu_p, b_p = mb.equivalent_node(mu, rates, [17] * n)
        two = [(mu_p, max(1, round(b_p))), (mu, 20)]
        one = [(mu, 20)]
        sim = [tcplab.run(chain(h, duration)).flows["goodput_bps"][0] / 1e3 for h in (full, two, one)]
        m_two = float(mb.throughput(mu, t, 20, mu_p, b_p, size)) / 1e3
        # One node fed directly by the source: mu' -> 2 mu gives S = 2B (Sec. 5), and an unbounded B'.
        m_one = float(mb.throughput(mu, t, 20, 2 * mu * (1 - 1e-12), 1e12, size)) / 1e3
        print(f"| {n} | {where} | {sim[0]:.0f} | {sim[1]:.0f} ({b_p:.1f}) | {sim[2]:.0f} | {m_two:.0f} | {m_one:.0f} |")


def parking_lot():
    r = tcplab.run(ROOT / "scenarios/multiple-gateways.toml")
    f = r.flows.to_dicts()
    n = 3
    b0 = f[0]["goodput_bps"]
    cross = sum(x["goodput_bps"] for x in f[1:]) / n
    print(f"through flow {b0 / 1e3:.0f} kb/s, mean cross flow {cross / 1e3:.0f} kb/s, "
          f"B0/(B0+Bi) = {b0 / (b0 + cross):.3f}; Eq. 12 as tcplab.models.gateways reads it: "
          f"{float(gateways.share_propagation(n)):.3f}; with the measured RTT ratio "
          f"{f[0]['mean_rtt_s'] / (sum(x['mean_rtt_s'] for x in f[1:]) / n):.2f}: "
          f"{float(gateways.bandwidth_share(n, f[0]['mean_rtt_s'] / (sum(x['mean_rtt_s'] for x in f[1:]) / n))):.3f}")


if __name__ == "__main__":
    phase_effects()
    print()
    barakat()
    print()
    parking_lot()
