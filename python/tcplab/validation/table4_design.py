"""Mathis et al. 1997 Table 4: the paper's values, the simulator profiles and the designs, and the
two sweeps each design generates (kept in sweeps/, `write_sweeps`). `tcplab.validation.mathis_table4`
runs them, fits and reports; see its docstring for the experiment.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Where `--write-sweeps` writes the sweep files (run from a checkout's root) and the base they
#: name, relative to that folder. Running needs neither: the base is the package's copy
#: (`tcplab/reproduce/scenarios/mathis/queueless-random-loss.toml`, equal to the checkout's
#: scenarios/queueless-random-loss.toml; tests/test_reproduce.py holds them equal).
SWEEPS = Path("sweeps")
BASE = "../scenarios/queueless-random-loss.toml"
PACKAGE_BASE = "mathis/queueless-random-loss.toml"

VARIANTS = ("fack", "sack", "reno", "newreno", "tahoe")  # the paper's row order
ACKS = ("immediate", "delayed")
LABEL = {"fack": "FACK", "sack": "SACK", "reno": "Reno", "newreno": "NewReno", "tahoe": "Tahoe"}
AT = (0.01, 0.033, 0.1)


@dataclass(frozen=True)
class PaperRow:
    n: int
    c_half: float  # Eq. 3 (k = -1/2)
    c_half_ci: float  # the +- the paper prints
    k: float  # Eq. 5
    c: float
    c_ci: float
    success: tuple[float, float, float]  # at p = .01, .033, .1


#: Table 4 of the paper (rows without a DA suffix: an ACK for every segment).
PAPER: dict[tuple[str, str], PaperRow] = {
    ("fack", "immediate"): PaperRow(16, 1.352, 0.090, -0.513, 1.205, 0.047, (0.996, 0.985, 0.738)),
    ("sack", "immediate"): PaperRow(11, 1.346, 0.052, -0.508, 1.247, 0.033, (0.992, 0.822, 0.497)),
    ("reno", "immediate"): PaperRow(12, 1.331, 0.054, -0.521, 1.096, 0.009, (0.935, 0.765, 0.331)),
    ("newreno", "immediate"): PaperRow(12, 1.357, 0.055, -0.516, 1.167, 0.020, (0.983, 0.896, 0.517)),
    ("tahoe", "immediate"): PaperRow(11, 1.254, 0.079, -0.534, 0.920, 0.015, (0.974, 0.796, 0.367)),
    ("fack", "delayed"): PaperRow(15, 0.928, 0.086, -0.519, 0.783, 0.045, (1.000, 0.929, 0.725)),
    ("sack", "delayed"): PaperRow(10, 0.938, 0.036, -0.518, 0.792, 0.012, (0.952, 0.664, 0.112)),
    ("reno", "delayed"): PaperRow(10, 0.939, 0.046, -0.524, 0.752, 0.015, (0.919, 0.595, 0.157)),
    ("newreno", "delayed"): PaperRow(11, 0.935, 0.045, -0.526, 0.738, 0.006, (0.942, 0.635, 0.176)),
    ("tahoe", "delayed"): PaperRow(11, 0.883, 0.076, -0.542, 0.596, 0.012, (0.919, 0.590, 0.173)),
}
ROWS = [(t, a) for a in ACKS for t in VARIANTS]

#: Simulator options. "ns1" is the main one: the paper used "ns version 1" (Sec. 3) and says
#: nothing more about its timers or ssthresh. ns's TCP agents halve the window (cwnd), not the
#: flight size; their retransmit timer is Jacobson's estimator on a coarse clock, `tcpTick_` =
#: 100 ms in ns's 1997 defaults (ns-default.tcl), floored at two ticks (TcpAgent::rtt_timeout).
#: The others are for the sensitivity table only.
PROFILES: dict[str, dict[str, Any]] = {
    "ns1": {
        "flows.0.cc.ssthresh_rule": "cwnd",
        "flows.0.rto_estimator": "jacobson88",
        "flows.0.clock_tick": "100ms",
        "flows.0.min_rto": "200ms",
    },
    "ns1-flightsize": {
        "flows.0.cc.ssthresh_rule": "flight_size",
        "flows.0.rto_estimator": "jacobson88",
        "flows.0.clock_tick": "100ms",
        "flows.0.min_rto": "200ms",
    },
    "bsd-500ms": {
        "flows.0.cc.ssthresh_rule": "cwnd",
        "flows.0.rto_estimator": "jacobson88",
        "flows.0.clock_tick": "500ms",
        "flows.0.min_rto": "1s",
    },
    "tcplab-default": {
        "flows.0.cc.ssthresh_rule": "flight_size",
        "flows.0.rto_estimator": "rfc6298",
        "flows.0.min_rto": "1s",
    },
}
PROFILE_TEXT = {
    "ns1": "ssthresh = cwnd/2, Jacobson88 on a 100 ms tick, min RTO 200 ms (main)",
    "ns1-flightsize": "as ns1 but ssthresh = FlightSize/2 (RFC 5681)",
    "bsd-500ms": "ssthresh = cwnd/2, Jacobson88 on BSD's 500 ms tick, min RTO 1 s",
    "tcplab-default": "tcplab defaults: FlightSize/2, RFC 6298 fine clock, min RTO 1 s",
}


@dataclass(frozen=True)
class Design:
    """What to simulate. `draws` values of p per (MSS, delay) in the fit sweep."""

    name: str
    mss: tuple[int, ...] = (536, 1460, 4312)
    delays_ms: tuple[float, ...] = (3, 10, 30, 100, 300)
    draws: int = 8
    p_range: tuple[float, float] = (3e-5, 0.3)
    cycles: float = 60  # measured congestion-avoidance cycles (nominal, C = 1)
    warmup_cycles: float = 10
    min_measure_s: float = 20.0
    success_at: tuple[float, ...] = AT
    success_rtts: float = 2000  # success sweep: measure at least this many RTTs
    variants: tuple[str, ...] = VARIANTS
    acks: tuple[str, ...] = ACKS
    profile: str = "ns1"
    seed: int = 1997  # seeds the draws of p (not the simulations)
    explicit_p: tuple[tuple[int, float, float], ...] = ()  # (mss, delay_ms, p) instead of draws
    c_tolerance: float = 0.15  # C (Eq. 3) within this fraction of the paper's row
    k_range: tuple[float, float] = (-0.56, -0.48)  # k (Eq. 5) inside this interval
    fack_first_at: tuple[float, ...] = (0.033, 0.1)  # p where FACK must keep its self-clock longest


#: The full regeneration: 10 variants x 15 (MSS, delay) x 8 draws = 1200 fit runs, plus
#: 10 x 15 x 3 = 450 success runs.
FULL = Design("mathis-table4")

#: The CI version: one MSS, three delays, p in the range where most runs keep their self-clock,
#: four p per delay; one run per (variant, p0) for the success proportion.
QUICK = Design(
    "mathis-table4-quick",
    mss=(1460,),
    delays_ms=(10, 30, 100),
    draws=4,
    p_range=(1e-4, 3e-3),
    cycles=40,
    warmup_cycles=8,
    min_measure_s=10.0,
    success_rtts=1500,
    c_tolerance=0.20,
    k_range=(-0.60, -0.44),
    fack_first_at=(0.1,),
)


def _uniform(*identity: Any) -> float:
    digest = hashlib.sha256(json.dumps(identity, separators=(",", ":")).encode()).digest()
    return (int.from_bytes(digest[:8], "big") >> 11) * 2.0**-53


def _sig(x: float, digits: int = 4) -> float:
    return float(f"{x:.{digits}g}")


def _window(p: float, delay_ms: float, design: Design, success: bool) -> tuple[float, float]:
    """(warmup, duration) in seconds: a nominal cycle lasts RTT / sqrt(p) (C = 1)."""
    rtt = 2 * delay_ms / 1000
    cycle = rtt / math.sqrt(p)
    warmup = max(design.warmup_cycles * cycle, 5.0)
    measure = max(design.cycles * cycle, design.min_measure_s)
    if success:
        measure = max(measure, design.success_rtts * rtt)
    return _sig(warmup, 3), _sig(warmup + measure, 3)


def fit_points(design: Design) -> list[tuple[int, float, float]]:
    """(mss, delay_ms, p) of the fit sweep."""
    if design.explicit_p:
        return list(design.explicit_p)
    lo, hi = design.p_range
    out = []
    for mss in design.mss:
        for d in design.delays_ms:
            for i in range(design.draws):
                u = _uniform("mathis-table4", design.seed, mss, d, i)
                out.append((mss, d, float(f"{math.exp(math.log(lo) + u * math.log(hi / lo)):.6g}")))
    return out


def _toml_list(values: Sequence[Any]) -> str:
    items = [json.dumps(v) if isinstance(v, str) else repr(v) for v in values]
    lines, line = [], "  "
    for it in items:
        if len(line) + len(it) + 2 > 100:
            lines.append(line.rstrip())
            line = "  "
        line += it + ", "
    lines.append(line.rstrip())
    return "[\n" + "\n".join(lines) + "\n]"


def sweep_text(design: Design, kind: str = "fit", base: str = BASE) -> str:
    """The sweep file (TOML) of `design`: kind "fit" (random p) or "success" (p at `success_at`)."""
    if kind == "fit":
        points = [(m, d, p) + _window(p, d, design, False) for m, d, p in fit_points(design)]
    elif kind == "success":
        points = [
            (m, d, p) + _window(p, d, design, True)
            for m in design.mss
            for d in design.delays_ms
            for p in design.success_at
        ]
    else:
        raise ValueError(f"kind {kind!r}: expected fit or success")
    name = design.name + ("" if kind == "fit" else "-success")
    opts = PROFILES[design.profile]
    head = [
        f"# Generated by tcplab.validation.mathis_table4 (design {design.name!r}, profile {design.profile!r});",
        "# do not edit: `python -m tcplab.validation.mathis_table4 --write-sweeps` rewrites it.",
        "# Mathis et al. 1997 Sec. 3.1 / Table 4: one flow on the queueless random-loss path.",
    ]
    if kind == "fit":
        head.append(
            f"# p log-uniform over [{design.p_range[0]:g}, {design.p_range[1]:g}], {design.draws} fresh draws per "
            "(MSS, delay);"
        )
        head.append(
            f"# each run measures {design.cycles:g} nominal CA cycles (RTT/sqrt(p)) after {design.warmup_cycles:g}, "
            f"and at least {design.min_measure_s:g} s."
        )
    else:
        head.append(
            "# p exactly at the points of Table 4's right-hand columns, for the proportion of successful"
        )
        head.append(f"# W/2 adjustments; each run measures at least {design.success_rtts:g} RTTs.")
    lines = head + [
        "",
        "[sweep]",
        f'name = "{name}"',
        f'base = "{base}"',
        "",
        "[set]",
        '"network.path.hops.0.rate" = "10Gbit/s"   # >10x the largest window-limited rate (footnote 5)',
    ]
    lines += [f'"{k}" = {json.dumps(v)}' for k, v in opts.items()]
    lines += ["", "[[axis]]  # variant x receiver"]
    rows = [(t, a) for a in design.acks for t in design.variants]
    lines.append(f'zip."flows.0.tcp" = {_toml_list([t for t, _ in rows])}')
    lines.append(f'zip."flows.0.ack" = {_toml_list([a for _, a in rows])}')
    lines += ["", "[[axis]]  # (MSS, one-way delay, p, warmup, duration), one entry per point"]
    cols: list[tuple[str, list]] = [
        ("flows.0.mss", [m for m, *_ in points]),
        ("network.path.hops.0.delay", [f"{d:g}ms" for _, d, *_ in points]),
        ("network.path.hops.0.loss.p", [p for _, _, p, *_ in points]),
        ("warmup", [f"{w:g}s" for *_, w, _ in points]),
        ("duration", [f"{t:g}s" for *_, t in points]),
    ]
    for path, values in cols:
        lines.append(f'zip."{path}" = {_toml_list(values)}')
    return "\n".join(lines) + "\n"


def sweep_path(design: Design, kind: str, folder: Path = SWEEPS) -> Path:
    return Path(folder) / f"{design.name}{'' if kind == 'fit' else '-success'}.toml"


def sweep(design: Design, kind: str):
    """The parsed sweep of `design` (a `tcplab.sweep.Sweep`), its base the package's copy of the
    queueless random-loss scenario: the same runs, keys and numbers as the committed file."""
    from tcplab.reproduce.core import scenario_dir
    from tcplab.sweep import parse

    name = f"{design.name}{'' if kind == 'fit' else '-success'}"
    return parse(sweep_text(design, kind, base=PACKAGE_BASE), f"<sweep {name}>", scenario_dir())


def write_sweeps(designs: Sequence[Design] = (FULL, QUICK), folder: Path = SWEEPS) -> list[Path]:
    out = []
    for d in designs:
        for kind in ("fit", "success"):
            path = sweep_path(d, kind, folder)
            path.write_text(sweep_text(d, kind))
            out.append(path)
    return out
