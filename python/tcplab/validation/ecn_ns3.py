"""docs/validation/ecn.md, part 1: tcplab's DCTCP against ns-3 3.44's, per run.

Every case of bench/ns3_dctcp/reference.json (its README states each case; the ns-3 program is
bench/ns3_dctcp/dctcp_cases.cc) is built here as a tcplab scenario, field by field, and run; the
comparison is per run: the flows' goodput and their time-averaged alpha (`ecn_alpha_mean`),
with the bottleneck's marks and mean queue beside them.

Where the two cannot be set the same way the scenario says so in `APPROXIMATIONS`, and the page
lists them.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

#: bench/ns3_dctcp in a checkout (the reference runs are not package data).
BENCH = Path(__file__).resolve().parents[3] / "bench" / "ns3_dctcp"

#: Wire bytes per packet: 1448 payload + 52 TCP/IP with timestamps + ns-3's 2-byte PPP header.
HEADER_BYTES = 54

#: fig17's device rings: ns-3's PointToPointNetDevice default TxQueue, a DropTailQueue of 100
#: packets (Queue's MaxSize default), which dctcp-example.cc keeps.
DEVICE_RING_FIG17 = 100


def _dctcp_flow(start_s: float, **extra: Any) -> dict:
    """A DCTCP flow with the settings every dumbbell case shares (README, "TCP")."""
    flow = {
        # TcpDctcp grows as its parent TcpLinuxReno: by the segments each ACK acknowledges
        # (tcp-linux-reno.cc, SlowStart and CongestionAvoidance take segmentsAcked), which is
        # byte counting without a limit; tcplab's default counts ACKs (half as fast with
        # delayed ACKs).
        "cc": {"algorithm": "dctcp", "growth": "abc", "abc_limit": 65535},
        "ecn": "classic",
        "tcp": {"variant": "sack", "prr": True},
        # TcpPrrRecovery lowers cwnd to the new ssthresh by PRR in CA_CWR too
        # (TcpSocketBase::EnterCwr, then DoRecovery on every ACK): Linux's CWR.
        "cwr_reduction": "prr",
        "mss": 1448,
        "timestamps": True,
        "header_bytes": HEADER_BYTES,
        "initial_window": 10,
        "rwnd": 32768000,
        "limited_transmit": True,
        "start": f"{start_s * 1e3:g}ms",
    }
    flow.update(extra)
    return flow


def _arg(args: list[str], name: str) -> str:
    return next(a.split("=", 1)[1] for a in args if a.startswith(f"--{name}="))


def dumbbell(case: dict, name: str) -> dict:
    """`red-k<K>-n<N>` and `codel-ce*-n<N>`: N flows, 1 Gbit/s, 1 ms base RTT."""
    args = case["args"]
    n = int(_arg(args, "flows"))
    if _arg(args, "aqm") == "red":
        # RED with MinTh = MaxTh = K, QW = 1, UseEcn, no hard drop: a forced mark of every ECT
        # arrival that finds K or more in the queue disc: tcplab's step queue (docs/queues.md).
        queue = {"discipline": "step", "limit": 1000, "step": {"threshold": int(_arg(args, "k"))}}
    else:
        ce = _arg(args, "ceThreshold")
        queue = {
            "discipline": "codel",
            "limit": 1000,
            "codel": {"target": "5ms", "interval": "100ms", "ecn": True, "ce_threshold": ce},
        }
    return {
        "name": f"ns3-dctcp-{name}",
        "seed": 1,
        "duration": "3s",
        "warmup": "1s",
        "network": {
            "dumbbell": {
                "bottleneck": {"rate": "1Gbit/s", "delay": "498us", "queue": queue, "device_queue": 1},
                "access_rate": "10Gbit/s",
                "access_delay": "1us",
                "access_queue": {"limit": 1000},
            }
        },
        "flows": [
            _dctcp_flow(i * 1e-3, ack="immediate", min_rto="200ms", rto_granularity="1ms") for i in range(n)
        ],
    }


def validation(case: dict, name: str) -> dict:
    """tcp-validation.cc's dctcp-10ms and dctcp-80ms: one flow, 50 Mbit/s, CoDel + CE 1 ms."""
    args = case["args"]
    rtt_ms = float(_arg(args, "baseRtt").removesuffix("ms"))
    lo, hi = case["window"]
    return {
        "name": f"ns3-dctcp-{name}",
        "seed": 1,
        "duration": f"{hi}s",
        "warmup": f"{lo}s",
        "network": {
            "dumbbell": {
                "bottleneck": {
                    "rate": "50Mbit/s",
                    "delay": f"{rtt_ms / 2:g}ms",
                    "queue": {
                        "discipline": "codel",
                        "limit": 1000,
                        "codel": {"target": "5ms", "interval": "100ms", "ecn": True, "ce_threshold": "1ms"},
                    },
                    # ns-3's ring: a 3-packet DropTail under DynamicQueueLimits, HoldTime 1 ms,
                    # on both devices of this link (the bottleneck's CoDel and the far end's
                    # FQ-CoDel); ns-3 counts each packet with its 2-byte PPP header, as
                    # HEADER_BYTES does here.
                    "device_queue": 3,
                    "bql": {"hold_time": "1ms"},
                },
                "access_rate": "1Gbit/s",
                "access_delay": "1us",
            }
        },
        "flows": [
            _dctcp_flow(5.0, ack="delayed", delack_timeout="200ms", min_rto="1s", rto_granularity="1ms")
        ],
    }


def fig17(case: dict, name: str) -> dict:
    """dctcp-example.cc (the DCTCP paper's Fig. 17) on the README's shortened schedule."""
    startup = float(_arg(case["args"], "startup"))
    lo, hi = case["window"]

    def red(min_th: float, max_th: float) -> dict:
        # ns-3: QW 1 (the queue an arrival finds), LInterm 50 (max_p 0.02),
        # gentle, UseEcn with no hard drop (UseHardDrop false: ECT arrivals are marked above
        # max_th too, tcplab's `harddrop = false`); mark_p 1 marks wherever RED decides.
        return {
            "discipline": "red",
            "limit": 2666,
            "red": {
                "min_th": min_th,
                "max_th": max_th,
                "w_q": 1.0,
                "max_p": 0.02,
                "gentle": True,
                "ecn": True,
                "mark_p": 1.0,
                "harddrop": False,
                "mean_packet": "1500B",
            },
        }

    host = {"discipline": "fq_codel", "fq_codel": {"ecn": True}}
    # Every device keeps the point-to-point default ring, a 100-packet DropTail under its queue disc
    # (fig17.h sets none): the queue disc holds packets only once the ring is full.
    ring = DEVICE_RING_FIG17
    links = [
        {
            "from": "T1",
            "to": "T2",
            "rate": "10Gbit/s",
            "delay": "10us",
            "queue": red(50, 150),
            "device_queue": ring,
        }
    ]
    links.append(
        {
            "from": "R1",
            "to": "T2",
            "rate": "1Gbit/s",
            "delay": "10us",
            "queue": host,
            "reverse_queue": red(20, 60),
            "device_queue": ring,
        }
    )
    flows_at: list[tuple[str, str, float]] = []
    for i in range(10):
        flows_at.append((f"S1_{i}", "R1", i * startup / 10 + i * 5e-3))
    for i in range(20):
        flows_at.append((f"S2_{i}", f"R2_{i}", i * startup / 20 + i * 5e-3))
    for i in range(10):
        flows_at.append((f"S3_{i}", "R1", i * startup / 10 + (i + 10) * 5e-3))
    for i in range(10):
        links.append(_host_link(f"S1_{i}", "T1", host, red(20, 60)))
    for i in range(20):
        links.append(_host_link(f"S2_{i}", "T1", host, red(20, 60)))
        links.append(_host_link(f"R2_{i}", "T2", host, red(20, 60)))
    for i in range(10):
        links.append(_host_link(f"S3_{i}", "T2", host, red(20, 60)))
    return {
        "name": f"ns3-dctcp-{name}",
        "seed": 1,
        "duration": f"{hi:g}s",
        "warmup": f"{lo:g}s",
        "network": {"graph": {"links": links, "flows": [{"from": s, "to": r} for s, r, _ in flows_at]}},
        "flows": [
            _dctcp_flow(
                t,
                ack="delayed",
                delack_timeout="200ms",
                min_rto="1s",
                rto_granularity="1ms",
                rwnd=131072,
                tcp={"variant": "sack"},
                # ns-3's default TcpClassicRecovery: cwnd = ssthresh at once in CWR.
                cwr_reduction="immediate",
            )
            for _, _, t in flows_at
        ],
    }


def _host_link(host: str, switch: str, host_queue: dict, switch_queue: dict) -> dict:
    return {
        "from": host,
        "to": switch,
        "rate": "1Gbit/s",
        "delay": "10us",
        "queue": host_queue,
        "reverse_queue": switch_queue,
        "device_queue": DEVICE_RING_FIG17,
    }


def scenario(name: str, case: dict) -> dict:
    if name.startswith("validation-"):
        return validation(case, name)
    if name == "fig17":
        return fig17(case, name)
    return dumbbell(case, name)


#: What could not be set as ns-3 has it, per case prefix (the page lists them).
APPROXIMATIONS = {
    "validation": "none on the bottleneck: ns-3's device ring, a 3-packet DropTail under BQL "
    '(DynamicQueueLimits, HoldTime 1 ms), is `device_queue = 3` with `bql = { hold_time = "1ms" }` '
    "(docs/queues.md). The access devices' rings, BQL and FQ-CoDel are not modelled (their links "
    "never queue), nor the ping application (0.016 % of the link).",
    "red": "RED with MinTh = MaxTh = K and QW = 1 is the step queue at K (docs/queues.md, `step`): "
    "the same rule, no approximation.",
    "codel": "none: CoDel's law with ECN and its CE threshold at dequeue, the 1-packet device queue.",
    "fig17": "none: RED's QW = 1 is `w_q = 1`; above max_th ECT arrivals are marked as ns-3 "
    "(UseHardDrop false) marks them (`harddrop = false`); every device's 100-packet ring under its "
    "queue disc (ns-3's point-to-point default) is `device_queue = 100`; ns-3's classic recovery "
    '(no PRR) as ns-3\'s default, so `cwr_reduction = "immediate"` here.',
}


def load_reference() -> dict:
    return json.loads((BENCH / "reference.json").read_text())


QUICK_CASES = ("red-k65-n2",)


def run_cases(quick: bool, log) -> list[dict]:
    """tcplab's side of every reference case (the quick form: one), beside ns-3's numbers."""
    from tcplab.simulation import run as simulate

    reference = load_reference()
    ref, classic = reference["cases"], reference.get("classic_recovery", {})
    rows = []
    for name, case in ref.items():
        if quick and name not in QUICK_CASES:
            continue
        sc = scenario(name, case)
        res = simulate(sc)
        flows = res.flows
        links = res.links
        bl = _bottleneck_row(links, name)
        lo, hi = case["window"]
        rows.append(
            {
                "case": name,
                "flows": len(case["goodput_bps"]),
                "ns3_goodput": case["goodput_bps"],
                "tcplab_goodput": flows["goodput_bps"].to_list(),
                "ns3_alpha": case["alpha_mean"],
                "tcplab_alpha": flows["ecn_alpha_mean"].to_list(),
                "ns3_marks_per_s": case["marks"] / (hi - lo),
                "tcplab_marks_per_s": bl["marks"] / (hi - lo),
                "ns3_queue": case["queue_pkts"]["mean"],
                "tcplab_queue": bl["mean_queue_packets"],
                "ns3_drops": case["drops"],
                "tcplab_drops": bl["drops_queue"],
            }
        )
        r = rows[-1]
        if name in classic:
            # Beside ns-3 rerun with TcpClassicRecovery: tcplab cutting at once as well.
            for f in sc["flows"]:
                f["cwr_reduction"] = "immediate"
            r["tcplab_alpha_immediate"] = simulate(sc).flows["ecn_alpha_mean"].to_list()
        log(
            f"{name}: goodput ns-3 {sum(r['ns3_goodput']) / 1e6:.1f} tcplab {sum(r['tcplab_goodput']) / 1e6:.1f} "
            f"Mbit/s; alpha ns-3 {statistics.mean(r['ns3_alpha']):.4f} tcplab {statistics.mean(r['tcplab_alpha']):.4f}"
        )
    return rows


def _bottleneck_row(links, name: str) -> dict:
    names = links["link"].to_list()
    want = "T1-T2.fwd" if name == "fig17" else next(x for x in names if x.startswith("bottleneck"))
    return links.filter(links["link"] == want).row(0, named=True)


def example_checks() -> list:
    """tcp-validation.cc's own checks, as bench/ns3_dctcp.py states them (`EXAMPLE_CHECKS`)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("ns3_dctcp_bench", BENCH.parent / "ns3_dctcp.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return list(mod.EXAMPLE_CHECKS)


def _ns3_series(name: str) -> list[dict]:
    text = (BENCH / "series" / f"{name}.csv").read_text().split()[1:]
    return [dict(zip(("t", "goodput", "alpha"), map(float, ln.split(",")), strict=True)) for ln in text]


def tcplab_series(name: str, case: dict, step: float = 0.5, interval: float = 0.2) -> list[dict]:
    """tcplab's flow 0 every `step` s from its start: goodput and mean alpha over the
    `interval` ending there (one run per point, its window that interval)."""
    from tcplab.simulation import run as simulate

    base = validation(case, name)
    start, stop = 5.0, float(case["window"][1])
    out, t = [], start + step
    while t <= stop + 1e-9:
        sc = dict(base, warmup=f"{t - interval:g}s", duration=f"{t:g}s")
        f = simulate(sc).flows.row(0, named=True)
        out.append({"t": t, "goodput": f["goodput_bps"], "alpha": f["ecn_alpha_mean"]})
        t = round(t + step, 6)
    return out


def _verdict(samples: list[dict], what: str, t_range, v_range) -> str:
    picked = [s for s in samples if t_range[0] < s["t"] < t_range[1] and s["t"] > 5.0]
    vals = [s[what] / 1e6 if what == "goodput" else s[what] for s in picked]
    bad = sum(not v_range[0] <= v <= v_range[1] for v in vals)
    if not vals:
        return "no samples"
    return ("ok" if not bad else f"{bad} of {len(vals)} outside") + f" ({min(vals):.4g} .. {max(vals):.4g})"


def add_series_checks(rows: list[dict], log) -> None:
    """The example's checks on ns-3's series and on tcplab's, into the validation cases' rows."""
    ref = load_reference()["cases"]
    checks = example_checks()
    for r in rows:
        if not r["case"].startswith("validation-"):
            continue
        mine = tcplab_series(r["case"], ref[r["case"]])
        theirs = _ns3_series(r["case"])
        r["series_checks"] = [
            {
                "what": what,
                "t": list(t_range),
                "v": list(v_range),
                "ns3": _verdict(theirs, what, t_range, v_range),
                "tcplab": _verdict(mine, what, t_range, v_range),
            }
            for case, what, t_range, v_range in checks
            if case == r["case"]
        ]
        at = {round(p["t"], 3): p["goodput"] for p in theirs}
        devs = [abs(p["goodput"] / at[round(p["t"], 3)] - 1) for p in mine if at.get(round(p["t"], 3))]
        r["series_goodput_dev"] = statistics.median(devs) if devs else float("nan")
        log(f"{r['case']}: series checks done ({len(mine)} tcplab points)")


def ack_every_segment_alphas(name: str, case: dict, bql: bool = True) -> dict[str, float]:
    """tcplab's alpha of a validation case with an ACK per segment, by `cwr_reduction`; with
    `bql` False, its 3-packet ring without BQL (ns-3's `--no-bql` reruns)."""
    from tcplab.simulation import run as simulate

    out = {}
    for cwr in ("prr", "immediate"):
        sc = validation(case, name)
        if not bql:
            del sc["network"]["dumbbell"]["bottleneck"]["bql"]
        sc["flows"][0]["ack"] = "immediate"
        sc["flows"][0]["cwr_reduction"] = cwr
        out[cwr] = simulate(sc).flows.row(0, named=True)["ecn_alpha_mean"]
    return out


def device_queue_alphas(name: str, case: dict, rings=((3, False), (0, False), (6, True))) -> dict[str, float]:
    """tcplab's alpha of a validation case with other device queues than ns-3's 3-packet ring
    under BQL: (packets, BQL) pairs, keyed as "3 packets" or "6 packets with BQL"."""
    from tcplab.simulation import run as simulate

    out = {}
    for n, bql in rings:
        sc = validation(case, name)
        neck = sc["network"]["dumbbell"]["bottleneck"]
        neck["device_queue"] = n
        if not bql:
            del neck["bql"]
        key = f"{n} packets" + (" with BQL" if bql else "")
        out[key] = simulate(sc).flows.row(0, named=True)["ecn_alpha_mean"]
    return out


def fig17_alpha(
    case: dict, harddrop: bool = False, ack: str = "delayed", ring: int = DEVICE_RING_FIG17
) -> float:
    """tcplab's fig17: the flows' mean alpha with RED's `harddrop`, the receivers' `ack` and the
    devices' rings as given (controls: `harddrop = true` drops the ECT arrivals above max_th that
    ns-3 marks; `ack = "immediate"` beside ns-3 with an ACK per segment; `ring = 0` leaves out
    ns-3's 100-packet device rings)."""
    from tcplab.simulation import run as simulate

    sc = fig17(case, "fig17")
    for f in sc["flows"]:
        f["ack"] = ack
    for link in sc["network"]["graph"]["links"]:
        link["device_queue"] = ring
        for side in ("queue", "reverse_queue"):
            q = link.get(side)
            if q and q["discipline"] == "red":
                q["red"]["harddrop"] = harddrop
    return statistics.mean(simulate(sc).flows["ecn_alpha_mean"].to_list())


def marked_share(run: dict) -> float:
    """CE marks per packet delivered in an ns-3 run's window (reference.json's marks and goodput;
    1448-byte segments)."""
    lo, hi = run["window"]
    return run["marks"] / (run["goodput_total_bps"] * (hi - lo) / (1448 * 8))
