"""docs/validation/ecn.md, part 3: this machine's kernel TCP with classic ECN (`tcp_ecn = 1`)
through `tcplab emulate`, against the same scenarios simulated with `profile = "linux"`.

A grid of round trip x marking queue x flow count x congestion control x seed: each scenario
runs once through the kernel (real time) and once in the simulator. The kernel's runs are kept
as data (a JSON file with the date, kernel, machine and load) so that the page can be rendered,
or tcplab's side simulated again, without rerunning the kernel (`tcplab.emulate.validate`'s
pattern; its machine description and median are reused).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

#: The grid: round trips (ms), marking queues, flow counts, Linux modules (the simulator's
#: controller for each), seeds.
RTT_MS = (10, 40)
AQMS = ("red", "codel", "step")
FLOWS = (1, 4)
CCS = (("reno", "aimd"), ("cubic", "cubic"))
SEEDS = (1, 2, 3)
RATE = "20Mbit/s"
LIMIT = 200

#: The marking queues: RED marking between 10 and 30 packets of its average, CoDel's control
#: law marking instead of dropping (RFC 8289 with `ecn`, as Linux's `codel ecn`), and a step
#: at 20 packets (the queue an arrival finds).
QUEUES: dict[str, dict[str, Any]] = {
    "red": {
        "discipline": "red",
        "limit": LIMIT,
        "red": {"min_th": 10, "max_th": 30, "w_q": 0.002, "max_p": 0.1, "ecn": True},
    },
    "codel": {"discipline": "codel", "limit": LIMIT, "codel": {"ecn": True}},
    "step": {"discipline": "step", "limit": LIMIT, "step": {"threshold": 20}},
}


def durations(quick: bool) -> tuple[int, int]:
    """(duration, warm-up) in seconds."""
    return (8, 2) if quick else (18, 3)


def scenario(
    rtt_ms: int, aqm: str, flows: int, cc: str, seed: int, quick: bool, cwr: str | None = None
) -> dict:
    """One cell's scenario: a dumbbell whose bottleneck marks, `flows` ECN flows of `cc`
    (the simulator's name) with the Linux profile; base RTT `rtt_ms` (1 ms access links);
    `cwr` overrides the profile's `cwr_reduction` ("prr")."""
    duration, warmup = durations(quick)
    flow = {"profile": "linux", "cc": cc, "ecn": "classic"} | ({"cwr_reduction": cwr} if cwr else {})
    return {
        "name": f"ecn-kernel-{aqm}-rtt{rtt_ms}-n{flows}-{cc}",
        "seed": seed,
        "duration": f"{duration}s",
        "warmup": f"{warmup}s",
        "network": {
            "dumbbell": {
                "bottleneck": {"rate": RATE, "delay": f"{rtt_ms / 2 - 2:g}ms", "queue": QUEUES[aqm]},
                "access_rate": "100Mbit/s",
                "access_delay": "1ms",
            }
        },
        "flows": [dict(flow) for _ in range(flows)],
    }


def grid(quick: bool) -> list[tuple[int, str, int, str]]:
    """(rtt_ms, aqm, flows, module) of every cell; the quick form keeps one RTT and reno."""
    cells = [(r, a, n, m) for m, _ in CCS for r in RTT_MS for a in AQMS for n in FLOWS]
    if quick:
        cells = [c for c in cells if c[0] == 10 and c[3] == "reno"]
    return cells


def _bottleneck(links) -> dict:
    name = next(x for x in links["link"].to_list() if x.startswith("bottleneck"))
    return links.filter(links["link"] == name).row(0, named=True)


def measure(result, warmup: float, duration: float) -> dict:
    """Goodput (sum of the flows), marks per second and mean queue of a run's tables."""
    link = _bottleneck(result.links)
    window = duration - warmup
    return {
        "goodput_bps": float(sum(result.flows["goodput_bps"].to_list())),
        "marks_per_s": link["marks"] / window,
        "mean_queue_pkts": link["mean_queue_packets"],
        "drops": link["drops_queue"],
    }


def simulate_cell(row: dict, quick: bool, cwr: str | None = None) -> dict:
    """tcplab's side of one run (`cwr`: another `cwr_reduction` than the profile's), with the
    sizes of its ACKs (`ecn_acks`) and its ECE responses (`ecn_episodes`, from a capture at
    each sender as the kernel's)."""
    import tempfile

    from tcplab.simulation import run as simulate
    from tcplab.validation import ecn_acks, ecn_episodes

    sim_cc = dict(CCS)[row["cc"]]
    sc = scenario(row["rtt_ms"], row["aqm"], row["flows"], sim_cc, row["seed"], quick, cwr)
    duration, warmup = durations(quick)
    with tempfile.TemporaryDirectory(prefix="tcplab-ecn-kernel-") as tmp:
        pcaps = [Path(tmp) / f"s{i}.pcap" for i in range(row["flows"])]
        sc["trace"] = {
            "links": ["bottleneck.rev"],
            "pcap": [{"node": f"s{i}", "file": str(p), "snaplen": 96} for i, p in enumerate(pcaps)],
        }
        result = simulate(sc)
        mss = int(result.flows["mss_bytes"][0])
        packets = sorted((p for f in pcaps for p in ecn_episodes.read_capture(f)), key=lambda p: p.time_s)
        episodes = ecn_episodes.summary(ecn_episodes.reductions(packets, mss), warmup, duration)
    out = measure(result, warmup, duration)
    out["ack_hist"] = ecn_acks.from_trace(result.trace("packets"), warmup, mss)
    out["episodes"] = episodes
    return out


def run_kernel(
    cells: Iterable[tuple[int, str, int, str]], seeds: Iterable[int], quick: bool, log: Callable[[str], None]
) -> list[dict]:
    """Every cell and seed through the kernel (real time) and the simulator."""
    import tempfile

    from tcplab.emulate import emulate
    from tcplab.validation import ecn_acks, ecn_episodes

    rows = []
    duration, warmup = durations(quick)
    for rtt, aqm, n, module in cells:
        for seed in seeds:
            row: dict[str, Any] = {"rtt_ms": rtt, "aqm": aqm, "flows": n, "cc": module, "seed": seed}
            t = time.monotonic()
            with tempfile.TemporaryDirectory(prefix="tcplab-ecn-kernel-") as tmp:
                pcap = Path(tmp) / "senders.pcap"
                emu = emulate(scenario(rtt, aqm, n, dict(CCS)[module], seed, quick), capture=pcap)
                row["linux"] = measure(emu, warmup, duration)
                mss = int(emu.flows["mss_bytes"][0])
                row["linux"]["ack_hist"] = ecn_acks.from_capture(pcap, n, warmup, duration, mss)
                row["linux"]["episodes"] = ecn_episodes.from_capture(pcap, warmup, duration, mss)
            row["endpoints_realtime"] = emu.selfcheck.get("endpoints_realtime", 0)
            row["late_p99_ms"] = emu.selfcheck["lateness"]["p99_s"] * 1e3
            row["warnings"] = emu.warnings
            row["load"] = os.getloadavg()[0]
            row["tcplab"] = simulate_cell(row, quick)
            rows.append(row)
            log(
                f"{module} rtt {rtt} ms {aqm} n={n} seed {seed}: Linux "
                f"{row['linux']['goodput_bps'] / 1e6:.2f} Mbit/s {row['linux']['marks_per_s']:.1f} marks/s "
                f"q {row['linux']['mean_queue_pkts']:.1f}; tcplab {row['tcplab']['goodput_bps'] / 1e6:.2f} "
                f"{row['tcplab']['marks_per_s']:.1f} q {row['tcplab']['mean_queue_pkts']:.1f} "
                f"; ACKs of > 2 segments {ecn_acks.stretch_shares(row['linux']['ack_hist'])[0]:.3f} / "
                f"{ecn_acks.stretch_shares(row['tcplab']['ack_hist'])[0]:.3f} "
                f"({time.monotonic() - t:.0f} s, load {row['load']:.2f})"
            )
    return rows


def key(row: dict) -> tuple:
    return (row["cc"], row["rtt_ms"], row["aqm"], row["flows"])


def merge(stored: list[dict], new: list[dict]) -> list[dict]:
    """`stored` with `new`'s runs replacing the same (cell, seed)."""
    fresh = {(*key(r), r["seed"]) for r in new}
    return [r for r in stored if (*key(r), r["seed"]) not in fresh] + new


def summarize(rows: list[dict]) -> list[dict]:
    """Per cell: the kernel's and tcplab's means over seeds, their ratios, the kernel's spread
    ((max - min) / mean over its seeds) of each quantity."""
    out = []
    order = {a: i for i, a in enumerate(AQMS)}
    for k in sorted({key(r) for r in rows}, key=lambda k: (k[0], k[1], order.get(k[2], 9), k[3])):
        rs = [r for r in rows if key(r) == k]
        cell: dict[str, Any] = {"cc": k[0], "rtt_ms": k[1], "aqm": k[2], "flows": k[3], "runs": len(rs)}
        for q in ("goodput_bps", "marks_per_s", "mean_queue_pkts"):
            lin = [r["linux"][q] for r in rs]
            sim = [r["tcplab"][q] for r in rs]
            m_lin, m_sim = statistics.mean(lin), statistics.mean(sim)
            cell[q] = (m_lin, m_sim)
            cell[q + "_ratio"] = m_sim / m_lin if m_lin else float("nan")
            cell[q + "_spread"] = (max(lin) - min(lin)) / m_lin if m_lin else float("nan")
        cell["drops"] = (sum(r["linux"]["drops"] for r in rs), sum(r["tcplab"]["drops"] for r in rs))
        cell.update(ack_sizes(rs))
        cell["late_p99_ms"] = max(r["late_p99_ms"] for r in rs)
        cell["load"] = max(r["load"] for r in rs)
        out.append(cell)
    return out


def ack_sizes(rs: list[dict]) -> dict[str, Any]:
    """A cell's ACK sizes (`ecn_acks`): the kernel's share of ACKs of more than 2 segments, of
    the segments they acknowledge, and of ACKs of 1 segment, each (mean, min, max) over the
    seeds whose runs stored their ACK sizes (None if none did), with tcplab's mean over the
    same seeds."""
    from tcplab.validation.ecn_acks import single_share, stretch_shares

    stored = [r for r in rs if r["linux"].get("ack_hist") and r["tcplab"].get("ack_hist")]
    if not stored:
        return {"stretch_runs": 0, "stretch_acks": None, "stretch_segments": None, "single_acks": None}
    lin = [(*stretch_shares(r["linux"]["ack_hist"]), single_share(r["linux"]["ack_hist"])) for r in stored]
    sim = [(*stretch_shares(r["tcplab"]["ack_hist"]), single_share(r["tcplab"]["ack_hist"])) for r in stored]
    out: dict[str, Any] = {"stretch_runs": len(stored)}
    for i, name in enumerate(("stretch_acks", "stretch_segments", "single_acks")):
        k = [x[i] for x in lin]
        out[name] = (statistics.mean(k), min(k), max(k), statistics.mean(x[i] for x in sim))
    return out


#: The targets: median and worst |goodput ratio - 1|; marks/s and mean queue, each cell.
GOODPUT_MEDIAN, GOODPUT_WORST, MARKS_QUEUE = 0.05, 0.15, 0.10


def checks(cells: list[dict]) -> list[tuple[str, bool, str]]:
    """(what, met, detail) for each of the kernel part's targets."""
    from tcplab.emulate.validate import median

    if not cells:
        return [("kernel runs stored", False, "none")]
    dev = [abs(c["goodput_bps_ratio"] - 1) for c in cells]
    out = [
        ("median |goodput ratio - 1| <= 0.05", median(dev) <= GOODPUT_MEDIAN, f"{median(dev):.3f}"),
        ("worst |goodput ratio - 1| <= 0.15", max(dev) <= GOODPUT_WORST, f"{max(dev):.3f}"),
    ]
    for q, label in (("marks_per_s", "marks/s"), ("mean_queue_pkts", "mean queue")):
        d = [abs(c[q + "_ratio"] - 1) for c in cells]
        n_in = sum(x <= MARKS_QUEUE for x in d)
        out.append(
            (
                f"{label} within 10% in every cell",
                n_in == len(d),
                f"{n_in} of {len(d)} cells; median |ratio - 1| {median(d):.3f}, worst {max(d):.3f}",
            )
        )
    return out


def section(data: dict) -> list[str]:
    """The page's kernel part (Markdown lines) from the stored measurements."""
    from tcplab.emulate.validate import median

    rows = data.get("rows", [])
    cells = summarize(rows)
    duration, warmup = durations(data.get("quick", False))
    lines = [
        '## 3. This machine\'s kernel (classic ECN) against `profile = "linux"`',
        "",
        data.get("header", ""),
        "",
        f"A dumbbell: {RATE} bottleneck with a {LIMIT}-packet buffer that marks, 100 Mbit/s access "
        "links with 1 ms delay, base RTT 10 or 40 ms; 1 or 4 flows of Linux's `reno` or `cubic` with "
        '`ecn = "classic"` (`net.ipv4.tcp_ecn = 1` in both namespaces of each flow) through `tcplab '
        'emulate`, and the same scenario simulated (`profile = "linux"`, `cc = "aimd"` or '
        f'`"cubic"`). {duration} s runs, the first {warmup} s left out; {len(SEEDS)} seeds per cell. '
        "The queues: RED marking between 10 and 30 packets of its average (w_q 0.002, max_p 0.1, "
        "`ecn = true`), CoDel (5 ms, 100 ms) whose control law marks instead of dropping "
        "(`ecn = true`), and a step queue marking every arrival that finds 20 or more waiting.",
        "",
        f"This kernel ({data.get('kernel', '?')}) has no `tcp_dctcp` module (available: "
        f"{data.get('available_cc', '?')}; {data.get('dctcp', '?')}), and refuses "
        f"`net.ipv4.tcp_ecn = 3` (AccECN): {data.get('tcp_ecn_3', '?')}. So no DCTCP and no AccECN "
        "runs against the kernel here (probed in a throwaway network namespace when the runs were made).",
        "",
        "Each column pair is kernel / tcplab (means over seeds), then tcplab / kernel; *spread* is "
        "the kernel's own (max - min) / mean over its seeds. Goodput is the flows' sum, marks/s "
        "the bottleneck's CE marks per second of the window, queue its time-average in packets.",
        "",
        "| cc | RTT ms | queue | flows | goodput Mbit/s | ratio | spread | marks/s | ratio | spread "
        "| mean queue pkts | ratio | spread | drops | p99 late ms |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in cells:
        g, m, q = c["goodput_bps"], c["marks_per_s"], c["mean_queue_pkts"]
        lines.append(
            f"| {c['cc']} | {c['rtt_ms']} | {c['aqm']} | {c['flows']} | {g[0] / 1e6:.2f} / {g[1] / 1e6:.2f} "
            f"| {c['goodput_bps_ratio']:.3f} | {c['goodput_bps_spread']:.3f} | {m[0]:.1f} / {m[1]:.1f} "
            f"| {c['marks_per_s_ratio']:.3f} | {c['marks_per_s_spread']:.3f} | {q[0]:.1f} / {q[1]:.1f} "
            f"| {c['mean_queue_pkts_ratio']:.3f} | {c['mean_queue_pkts_spread']:.3f} "
            f"| {c['drops'][0]} / {c['drops'][1]} | {c['late_p99_ms']:.2f} |"
        )
    lines += ack_table(cells, rows)
    lines += episode_table(rows)
    lines += ["", "Targets:", ""]
    lines += [f"- {what}: **{'met' if ok else 'NOT met'}** ({detail})" for what, ok, detail in checks(cells)]
    if cells:
        lines += [
            f"- the kernel's own median spread between seeds: goodput "
            f"{median([c['goodput_bps_spread'] for c in cells]):.3f}, marks/s "
            f"{median([c['marks_per_s_spread'] for c in cells]):.3f}, mean queue "
            f"{median([c['mean_queue_pkts_spread'] for c in cells]):.3f}; load average (1 min) "
            f"during the runs {min(r['load'] for r in rows):.2f} to {max(r['load'] for r in rows):.2f}.",
        ]
    if cells:
        lines += ["", *differences(cells), immediate_counterfactual(data)]
    warned = sorted({w for r in rows for w in r.get("warnings", [])})
    if warned:
        lines += ["", "Warnings of the emulator during these runs:", ""] + [f"- {w}" for w in warned]
    return lines + [""]


def ack_table(cells: list[dict], rows: list[dict]) -> list[str]:
    """The cells' stretch ACKs, kernel beside tcplab (Markdown lines)."""
    if not any(c["stretch_runs"] for c in cells):
        return ["", "No ACK sizes stored with these kernel runs (runs made before they were recorded)."]
    fifo = sum(1 for r in rows if r.get("endpoints_realtime", 0) == 2 * r["flows"])
    lines = [
        "",
        "ACK sizes: the share of the ACKs that newly acknowledge more than 2 segments (stretch "
        "ACKs), the share of the data segments acknowledged by them, and the share of the ACKs "
        "that acknowledge 1 segment, over the window; the "
        "kernel's mean over its seeds with its own min - max, then tcplab's mean. From the "
        "histogram of ACK sizes stored with each run (`tcplab.validation.ecn_acks`: the kernel's "
        "from the capture at the senders, tcplab's from its packet trace). Runs whose sender and "
        f"sink threads all ran at SCHED_FIFO: {fifo} of {len(rows)} (docs/emulation.md, "
        '"The endpoints\' scheduling").',
        "",
        "| cc | RTT ms | queue | flows | runs | stretch ACKs kernel (min - max) | tcplab "
        "| segments in them kernel (min - max) | tcplab | ACKs of 1 segment kernel (min - max) | tcplab |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in cells:
        if not c["stretch_runs"]:
            lines.append(
                f"| {c['cc']} | {c['rtt_ms']} | {c['aqm']} | {c['flows']} | 0 | not stored | | | | | |"
            )
            continue
        shares = " | ".join(
            f"{x[0]:.4f} ({x[1]:.4f} - {x[2]:.4f}) | {x[3]:.4f}"
            for x in (c["stretch_acks"], c["stretch_segments"], c["single_acks"])
        )
        lines.append(
            f"| {c['cc']} | {c['rtt_ms']} | {c['aqm']} | {c['flows']} | {c['stretch_runs']} | {shares} |"
        )
    return lines


def episode_table(rows: list[dict]) -> list[str]:
    """The cells' ECE responses (`ecn_episodes`), kernel beside tcplab (Markdown lines): the
    runs whose kernel side was captured with them."""
    from tcplab.validation.ecn_episodes import mean_cwr_flight

    stored = [r for r in rows if r["linux"].get("episodes") and r["tcplab"].get("episodes")]
    if not stored:
        return ["", "No ECE responses stored with these kernel runs (runs made before they were recorded)."]
    duration, warmup = durations(False)

    def measures(e: dict) -> tuple[float, float, float, float]:
        first = e["reductions"] - e["second"]
        return (
            e["reductions"] / (duration - warmup),
            e["second"] / first if first else float("nan"),
            e["held"] / e["reductions"] if e["reductions"] else float("nan"),
            mean_cwr_flight(e),
        )

    lines = [
        "",
        "ECE responses, read from the capture at the senders on both sides (`tcplab.validation."
        "ecn_episodes`; tcplab's run captured at its sender's node): the reductions per second "
        "(entries into CWR), the second reductions per marking episode (a reduction entered on "
        "the very ACK that ended the one before: the receiver still echoed ECE because the "
        "segment carrying CWR, or one after it, arrived CE; a cut a few ACKs later counts as a "
        "first reduction), the share of reductions whose entering ACK "
        "released no data before the next ACK (held), and the mean data in flight in segments "
        "when the segment carrying CWR left (first reductions); the kernel's mean over its seeds "
        "with its own min - max, then tcplab's mean.",
        "",
        "| cc | RTT ms | queue | flows | runs | reductions/s kernel (min - max) | tcplab | second per "
        "episode kernel (min - max) | tcplab | held kernel | tcplab | flight at CWR kernel (min - max) "
        "| tcplab |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    order = {a: i for i, a in enumerate(AQMS)}
    for k in sorted({key(r) for r in stored}, key=lambda k: (k[0], k[1], order.get(k[2], 9), k[3])):
        rs = [r for r in stored if key(r) == k]
        lin = [measures(r["linux"]["episodes"]) for r in rs]
        sim = [measures(r["tcplab"]["episodes"]) for r in rs]
        cols = []
        for i in range(4):
            kv = [x[i] for x in lin]
            mean_sim = statistics.mean(x[i] for x in sim)
            spread = f" ({min(kv):.2f} - {max(kv):.2f})" if i != 2 else ""
            cols.append(f"{statistics.mean(kv):.2f}{spread} | {mean_sim:.2f}")
        lines.append(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {len(rs)} | {' | '.join(cols)} |")
    return lines + ["", STEP_EPISODES, delay_sensitivity()]


#: The bottleneck's one-way delays (ms) of `delay_sensitivity`: the 10 ms cell's 3 ms and
#: its neighbours.
NEAR_DELAYS_MS = (2.7, 2.8, 2.9, 3.0, 3.1, 3.2, 3.3)


def delay_sensitivity() -> str:
    """tcplab's reno 10 ms step cell (one flow, seed 1) with the bottleneck's delay moved a
    little: the mean queue of each."""
    from tcplab.simulation import run as simulate

    duration, warmup = durations(False)
    parts = []
    for d in NEAR_DELAYS_MS:
        sc = scenario(10, "step", 1, "aimd", 1, False)
        sc["network"]["dumbbell"]["bottleneck"]["delay"] = f"{d:g}ms"
        m = measure(simulate(sc), warmup, duration)
        parts.append(f"{d:g} ms: {m['mean_queue_pkts']:.1f}")
    base = scenario(10, "step", 1, "aimd", 1, False)["network"]["dumbbell"]["bottleneck"]["delay"]
    return (
        "- tcplab's mean queue (packets) in the reno 10 ms step cell, one flow, with the "
        f"bottleneck's one-way delay moved around its {base}: " + "; ".join(parts) + "."
    )


#: What the ECE responses of the single-flow step cells show (the table above gives the numbers).
STEP_EPISODES = (
    "- One flow through the step queue: whether a marking episode cuts the window once or twice "
    "depends on whether the segment carrying CWR finds 20 or more packets waiting, which one "
    "segment more or less in flight decides (the flight-at-CWR column). tcplab's run is "
    "deterministic and lands on one side in every episode; the kernel lands on both, so its "
    "mean queue lies between tcplab's two limit cycles, and a small change of the simulated "
    "path's delay moves tcplab from one to the other (below). Two kernel "
    "rules that tcplab does not model set the kernel's side. Its sender holds back a single "
    "segment when it transmitted less than 1 ms before and the window allows only one "
    "(`tcp_tso_should_defer`, tcp_output.c: GSO is always on), so when the first ECE arrives "
    "on a quick ACK of one segment (`__tcp_ecn_check_ce` enters quick-ACK mode) the CWR "
    "segment leaves one ACK later, one segment lower (the held column). Its receiver "
    "acknowledges a full-sized segment with PSH at once when the application's read empties "
    "the receive queue (`tcp_measure_rcv_mss` sets ICSK_ACK_PUSHED, `tcp_cleanup_rbuf` sends "
    "the ACK); the emulator's sender sets PSH on about every second segment, so these ACKs are "
    "the kernel's ACKs of 1 segment in the ACK-size table, and they shift which segments the "
    "receiver pairs into one ACK, hence whether the first ECE comes on an ACK of one or two "
    "segments. In the CUBIC step cells (a cut to 0.7 leaves the queue longer above the "
    "threshold) both cut twice per marking episode: tcplab on the ACK that ends the first "
    "reduction, as its segment carrying CWR arrived CE; the kernel's, sent a segment lower, "
    "usually escapes the mark while the next one does not, so its second cut comes an ACK "
    "or two later and counts above as a first reduction at the lower flight; their queues "
    "and marks agree."
)


def kernel_facts() -> dict[str, str]:
    """What this kernel offers for ECN: its congestion-control modules and whether it takes
    net.ipv4.tcp_ecn = 3 (tried in a throwaway namespace; needs root)."""
    import platform
    import subprocess

    facts = {"kernel": f"Linux {platform.release()}"}
    try:
        facts["available_cc"] = (
            Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().strip()
        )
    except OSError as e:
        facts["available_cc"] = f"unknown ({e})"
    for name, setting in (
        ("tcp_ecn_3", "net.ipv4.tcp_ecn=3"),
        ("dctcp", "net.ipv4.tcp_congestion_control=dctcp"),
    ):
        probe = subprocess.run(["unshare", "--net", "sysctl", "-w", setting], capture_output=True, text=True)
        facts[name] = (
            "accepted" if probe.returncode == 0 else f"`sysctl -w {setting}`: {probe.stderr.strip()}"
        )
    return facts


def differences(cells: list[dict]) -> list[str]:
    """The cells whose marks/s or mean queue differ by more than 10 %, by sign, each with the
    kernel's own spread, and the one difference between the senders we know of."""
    out: list[str] = []
    for q, label in (("mean_queue_pkts", "mean queue"), ("marks_per_s", "marks/s")):
        for word, pick in (
            ("below", lambda r: r < 1 - MARKS_QUEUE),
            ("above", lambda r: r > 1 + MARKS_QUEUE),
        ):
            group = [c for c in cells if pick(c[q + "_ratio"])]
            if group:
                names = ", ".join(
                    f"{c['cc']} {c['rtt_ms']} ms {c['aqm']} n={c['flows']} ({c[q + '_ratio']:.2f}, "
                    f"kernel spread {c[q + '_spread']:.2f})"
                    for c in group
                )
                out.append(
                    f"- tcplab's {label} more than 10 % {word} the kernel's in {len(group)} cells: {names}."
                )
    if out:
        out.append(TRACED)
    return out


#: What tracing the CoDel cells found (issue #32), before the endpoints ran at SCHED_FIFO.
TRACED = (
    "- Traced on the CoDel cells (cubic and reno at 10 ms, 1 and 4 flows) in earlier runs, made "
    "with the endpoints' threads at normal priority (those captures are not stored): replayed "
    "through the same CoDel queue, each capture's sending times gave that run's mean queue and "
    "marks, so the queue followed what the senders sent, not the emulator's timing; the kernel's "
    "receiver sent stretch ACKs in some runs, while nothing was lost, and the sender answered each "
    "with a burst. Their source was the sink thread running late on the loaded machine, which the "
    "kernel's receiver answers by deferring its ACKs (docs/emulation.md, \"The endpoints' "
    'scheduling"); the runs on this page were made with the sender and sink threads at '
    "SCHED_FIFO where the ACK-size table says so, and that table gives each cell's share of "
    "stretch ACKs, kernel and tcplab."
)


def immediate_counterfactual(data: dict) -> str:
    """tcplab's side again with the ECE response cut at once (`cwr_reduction = "immediate"`):
    the part of the agreement that Linux's reduction by PRR in CWR accounts for."""
    quick = data.get("quick", False)
    rows = [dict(r, tcplab=simulate_cell(r, quick, "immediate")) for r in data.get("rows", [])]
    found = "; ".join(f"{what}: {detail}" for what, _, detail in checks(summarize(rows)))
    return (
        "- tcplab's side reduces on ECE as Linux's CWR state does, by PRR over the round trip "
        '(`cwr_reduction = "prr"`, the linux profile\'s; `tcp_enter_cwr`, `tcp_cwnd_reduction`; '
        "docs/tcp-family.md, ECN). The same runs simulated with cwnd set to ssthresh at once "
        f'(`cwr_reduction = "immediate"`) give: {found}.'
    )
