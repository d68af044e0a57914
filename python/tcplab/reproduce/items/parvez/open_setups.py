"""Parvez et al. 2010, Sec. IV: the set-ups the background-traffic figures (Figs 9, 10, 12, 13) leave
open, each run beside the item's reading at one of its points, with the paper's numbers checked on it.

Sec. IV states the network, the background (counts, the HTTP model's means, 64 KB windows, 1 KB
packets, RTTs) and RED's thresholds; it does not state its ns-2 agents' settings nor RED's other
parameters (footnote 6: "our modeling results are consistent for other reasonable settings").
"""

from __future__ import annotations

import math
from typing import Any

from tcplab.reproduce.core import Job
from tcplab.reproduce.items.parvez.anatomy import TRACE_SETS
from tcplab.reproduce.items.parvez.shared import foreground

#: Limited Transmit on both foreground agents: ns-2's default (singledup_ 1); the scenarios have
#: the tcpVariants suite's singledup_ 0.
LT_SETS = {"flows.0.limited_transmit": True, "flows.1.limited_transmit": True}
#: The foreground agents' timer on ns-2's older 100 ms tick (tcpTick_ 0.1) instead of 10 ms.
TICK_SETS = {"flows.0.clock_tick": "100ms", "flows.1.clock_tick": "100ms"}
#: The set-ups tried on every queue: (label, --set overrides).
AGENTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("Limited Transmit on the foreground agents (ns-2's default singledup_ 1)", LT_SETS),
    ("the foreground agents' timer on a 100 ms tick (ns-2's older tcpTick_)", TICK_SETS),
)
#: The 100 ms tick's label. The quick forms of Figs 9, 10 and 12 leave it out to keep CI's budget (Fig 10's
#: runs cost about 3 s each); their full forms, and Fig 13's both forms, run it.
TICK = AGENTS[1][0]
GENTLE = "gentle RED (ns-2.35's default gentle_ true)"

OPEN_HEAD = [
    "queue",
    "set-up the paper does not state",
    "NewReno kb/s",
    "p",
    "NewReno loss events ending in a timeout",
    "NewReno model error (paper's average)",
    "PFTK error (paper's average)",
    "NewReno / Reno",
    "the paper's numbers within 5 points",
]


def gentle_sets(links: tuple[str, ...]) -> dict[str, Any]:
    """Gentle RED on each of the given links (their `queue.red.gentle`)."""
    return {f"{link}.queue.red.gentle": True for link in links}


def open_jobs(
    points: list[tuple[str, Job]], red_links: tuple[str, ...], quick: bool = False
) -> list[tuple[str, str, Job]]:
    """The set-ups the paper leaves open at each queue's first point (`points`: (queue, the item's
    job) in the item's order): each of AGENTS (the quick form without TICK), and gentle RED where
    the queue is RED; without the item's traces. Returns (queue, label, job)."""
    firsts: dict[str, Job] = {}
    for q, job in points:
        firsts.setdefault(q, job)
    out = []
    for q, job in firsts.items():
        base = {k: v for k, v in job.sets.items() if k not in TRACE_SETS}
        tries = [a for a in AGENTS if not quick or a[0] != TICK] + (
            [(GENTLE, gentle_sets(red_links))] if q == "red" else []
        )
        out += [(q, label, Job(job.scenario, {**base, **sets})) for label, sets in tries]
    return out


def open_row(q: str, label: str, g: dict, paper: tuple) -> tuple[list[str], bool]:
    """One row: the run's NewReno flow and the models' errors on it against the paper's averages (the
    item's paper checks, within 5 points, on this one point), and whether both hold."""
    holds = abs(g["e_model"] - paper[0]) <= 0.05 and abs(g["e_pftk"] - paper[1]) <= 0.05
    ratio = g["nr"]["goodput_bps"] / g["reno"]["goodput_bps"] if g["reno"]["goodput_bps"] > 0 else math.nan
    return [
        q,
        label,
        f"{g['nr']['goodput_bps'] / 1e3:.0f}",
        f"{g['p']:.4f}",
        f"{g['to_meas']:.0%}",
        f"{g['e_model']:.1%} ({paper[0]:.1%})",
        f"{g['e_pftk']:.1%} ({paper[1]:.1%})",
        f"{ratio:.2f}",
        "yes" if holds else "no",
    ], holds


def open_table(
    ctx,
    start: int,
    tries: list[tuple[str, str, Job]],
    reading: dict[str, dict],
    paper: dict[str, tuple],
    where: str = "",
) -> tuple[list[list[str]], list[str]]:
    """The table of the set-ups the paper leaves open: per queue the item's reading (`reading`: queue
    -> the foreground of its run at that point) then each set-up tried (jobs from index `start`);
    `where` follows the queue's name in its cells. Returns the table and the set-ups (other than the
    reading) on which the paper's numbers hold."""
    rows, holding = [OPEN_HEAD], []
    for q in reading:
        rows.append(open_row(q + where, "as the item runs it (the reading)", reading[q], paper[q][:2])[0])
        for j, (q2, label, _) in enumerate(tries):
            if q2 != q:
                continue
            row, holds = open_row(q + where, label, foreground(ctx.rows(start + j)), paper[q][:2])
            rows.append(row)
            if holds:
                holding.append(f"{q}: {label}")
    return rows, holding


def open_note(point: str, holding: list[str]) -> str:
    """The explanation's sentence on the table, from its rows."""
    return (
        f" The set-ups the paper leaves open (its ns-2 agents' settings, RED's parameters beyond the thresholds) "
        f"are run at {point} (the last table); those on which the paper's NewReno model and PFTK averages both "
        "hold there within 5 points: " + ("; ".join(holding) if holding else "none") + "."
    )
