"""Jacobson & Karels 1988: start-up (Figs 3-4) and retransmit timers on one RTT series (Figs 5-6)."""

from __future__ import annotations

import math
from typing import cast

import numpy as np
import polars as pl

from tcplab.reproduce.core import Check, Context, Item, Job, Outcome, register, rel

PAPER = "jacobson"
STARTUP = "jacobson/startup.toml"
FOUR = "jacobson/four-conversations.toml"
RTTS = "jacobson/rtt-series.toml"
#: 4.3+BSD (Jacobson's 1988 TCP): slow start and congestion avoidance (App. B), a receiver that
#: ACKs at most every other packet. The shipped scenarios are the 4.3BSD side.
NEW_STARTUP = {"flows.0.cc": "aimd", "flows.0.ack": "delayed"}


def figure(ncols: int = 1, nrows: int = 1, w: float = 6.4, h: float = 4.0):
    from matplotlib.figure import Figure

    return Figure(figsize=(w * ncols, h * nrows), layout="constrained")


# ---- Figs 3-4: start-up ---------------------------------------------------------------------------


#: What the paper leaves open about Figs 3-4's path and timer, each run for 4.3BSD and for slow start
#: (the first is the scenario's): the propagation delay (none given; the pipe and the queue must hold a
#: window), what "the 20 KBps bandwidth available for this connection" is, and the timer's clock.
WINDOW = 32  # packets: the 16 KB window
STARTUP_SETUPS: tuple[tuple[str, dict], ...] = (
    ("20 ms on the slow link, the link's whole rate (the scenario's)", {}),
    ("100 ms on the slow link", {"network.path.hops.1.delay": "100ms"}),
    ("200 ms on the slow link", {"network.path.hops.1.delay": "200ms"}),
    ("20 KBps available: the slow link's data rate 20 KBps", {"network.path.hops.1.rate": "172.5kbit/s"}),
    ("20 KBps available: constant-rate traffic takes the rest", {"cross": "57.9kbit/s"}),
    (
        "RFC 793's timer without BSD's 500 ms tick, at least 0.2 s",
        {"flows.0.clock_tick": "0s", "flows.0.min_rto": "0.2s"},
    ),
)


def _startup_job(sets: dict, new: bool) -> Job:
    sets = {**sets, **(NEW_STARTUP if new else {})}
    if "cross" not in sets:
        return Job(STARTUP, sets, traces=True)
    import tomllib

    from tcplab.reproduce.core import scenario_text

    sc = tomllib.loads(scenario_text(STARTUP))
    sc["traffic"] = [{"name": "cross", "kind": "cbr", "rate": sets.pop("cross"), "packet": "552B"}]
    return Job(sc, sets, traces=True)


def _startup_jobs(quick: bool) -> list[Job]:
    return [_startup_job(sets, new) for _, sets in STARTUP_SETUPS for new in (False, True)]


def go_back_n(packets: pl.DataFrame, out: str = "hop0.fwd", queue: str = "hop1.fwd") -> dict:
    """4.3BSD's timeouts counted from a packet trace: when each fired (a data packet sent below the
    highest sequence sent before it, after 0.1 s without one), the packets waiting at the bottleneck
    `queue` then (enqueued less dequeued), and the most times one packet was sent."""
    if packets.height == 0:
        return {"fired": [], "waiting": [], "most": 0}
    s = packets.filter(
        (pl.col("link_name") == out) & (pl.col("event") == "enqueue") & (pl.col("kind") == "data")
    ).sort("time_ns")
    if s.height == 0:
        return {"fired": [], "waiting": [], "most": 0}
    seq, t = s["seq"].to_numpy(), s["time_s"].to_numpy()
    back = t[seq <= np.maximum.accumulate(np.concatenate([[-1], seq[:-1]]))]
    fired = [float(x) for i, x in enumerate(back) if i == 0 or x - back[i - 1] > 0.1]
    q = packets.filter(pl.col("link_name") == queue)
    enq = np.sort(q.filter(pl.col("event") == "enqueue")["time_s"].to_numpy())
    deq = np.sort(q.filter(pl.col("event") == "dequeue")["time_s"].to_numpy())
    waiting = [int(np.searchsorted(enq, x, "right") - np.searchsorted(deq, x, "right")) for x in fired]
    return {"fired": fired, "waiting": waiting, "most": int(cast(int, s.group_by("seq").len()["len"].max()))}


def _sent(ctx: Context, i: int) -> pl.DataFrame:
    pk = ctx.trace(i, "packets")
    return pk.filter(
        (pl.col("link_name") == "hop0.fwd") & (pl.col("event") == "enqueue") & (pl.col("kind") == "data")
    )


def _startup_evaluate(ctx: Context) -> Outcome:
    old, new = ctx.rows(0).row(0, named=True), ctx.rows(1).row(0, named=True)
    link = 230.4e3 * 512 / 552  # the link's data rate, bit/s
    dur = 10.0

    def frac(f):
        return f["segments_retransmitted"] / f["segments_sent"] if f["segments_sent"] else math.nan

    def max_sends(i):
        s = _sent(ctx, i)
        return int(cast(int, s.group_by("seq").len()["len"].max())) if s.height else 0

    # The paper: Fig. 3, 35% of the 20 KBps available used, data from 54 to 58 KB sent five
    # times; Fig. 4, 16 KBps effective ("two times better"), no retransmissions.
    eff = {k: f["goodput_bps"] / 8e3 for k, f in (("old", old), ("new", new))}
    head = ["quantity", "4.3BSD (Fig 3)", "paper", "slow start (Fig 4)", "paper"]
    body = [
        ["data packets sent in 10 s", str(old["segments_sent"]), "-", str(new["segments_sent"]), "-"],
        [
            "of them retransmissions",
            f"{old['segments_retransmitted']} ({frac(old):.0%})",
            'most ("almost everything is retransmitted at least once")',
            f"{new['segments_retransmitted']} ({frac(new):.0%})",
            "0",
        ],
        ["timeouts", str(old["timeouts"]), "-", str(new["timeouts"]), "-"],
        ["most times one packet was sent", str(max_sends(0)), "5", str(max_sends(1)), "1"],
        [
            "effective bandwidth, KBps (delivered data / 10 s)",
            f"{eff['old']:.1f}",
            "7",
            f"{eff['new']:.1f}",
            "16",
        ],
        [
            "share of the link's data rate",
            f"{8e3 * eff['old'] / link:.0%}",
            "35% (of 20 KBps)",
            f"{8e3 * eff['new'] / link:.0%}",
            "80% (of 20 KBps)",
        ],
    ]
    ratio = eff["new"] / eff["old"] if eff["old"] else math.inf
    checks = [
        Check(
            "slow start: share of retransmissions",
            f"{frac(new):.1%}",
            "at most 1% (the paper: none)",
            frac(new) <= 0.01,
        ),
        Check(
            "the paper's ratio: effective bandwidth, slow start over 4.3BSD",
            f"{ratio:.2f}",
            "16/7 = 2.29, within 25%",
            abs(rel(ratio, 16 / 7)) <= 0.25,
        ),
        Check(
            "4.3BSD: share of the data packets that are retransmissions, against the paper's",
            f"{frac(old):.0%}",
            'at least 50% (the paper: "almost everything is retransmitted at least once")',
            frac(old) >= 0.5,
        ),
    ]
    checks.append(
        Check(
            "4.3BSD: the most times one packet was sent",
            str(max_sends(0)),
            "at least 4 (the paper: data from 54 to 58 KB sent five times)",
            max_sends(0) >= 4,
        )
    )
    # The set-ups the paper leaves open, and the go-back-N mechanism counted in each 4.3BSD run.
    alt = [
        [
            "set-up",
            "4.3BSD: retransmitted",
            "timeouts",
            "retransmissions per timeout",
            "most sends of one packet",
            "timeouts finding > 3 packets queued",
            "KBps, 4.3BSD / slow start",
            "ratio (the paper: 2.29)",
        ]
    ]
    per_timeout, crowded, fired, shares, mosts = [], 0, 0, [], []
    for j, (label, _) in enumerate(STARTUP_SETUPS):
        o, n = ctx.rows(2 * j).row(0, named=True), ctx.rows(2 * j + 1).row(0, named=True)
        g = go_back_n(ctx.trace(2 * j, "packets"))
        k = o["segments_retransmitted"] / o["timeouts"] if o["timeouts"] else math.nan
        per_timeout.append(k)
        busy = sum(w > 3 for w in g["waiting"])
        crowded, fired = crowded + busy, fired + len(g["waiting"])
        shares.append(frac(o))
        mosts.append(g["most"])
        r = n["goodput_bps"] / o["goodput_bps"] if o["goodput_bps"] else math.inf
        alt.append(
            [
                label,
                f"{frac(o):.0%}",
                str(o["timeouts"]),
                f"{k:.1f}",
                str(g["most"]),
                f"{busy} of {len(g['waiting'])}",
                f"{o['goodput_bps'] / 8e3:.1f} / {n['goodput_bps'] / 8e3:.1f}",
                f"{r:.2f}",
            ]
        )
    worst_k = max(per_timeout, key=lambda x: abs(x / WINDOW - 1) if math.isfinite(x) else math.inf)
    checks += [
        Check(
            "go-back-N: each 4.3BSD timeout re-sends a window (retransmissions per timeout), worst set-up",
            f"{worst_k:.1f}",
            f"within 25% of the window ({WINDOW} packets)",
            all(math.isfinite(x) and abs(x / WINDOW - 1) <= 0.25 for x in per_timeout),
            paper=False,
        ),
        Check(
            "the 4.3BSD timer fires once the bottleneck queue has drained: timeouts finding more than 3 "
            "packets queued there, every set-up",
            f"{crowded} of {fired}",
            "at most 10%",
            fired > 0 and crowded <= 0.1 * fired,
            paper=False,
        ),
    ]
    figs = []
    try:
        fig = figure(2, 1, 5.2, 4.2)
        for j, (i, title) in enumerate(((0, "Fig 3: 4.3BSD, no slow start"), (1, "Fig 4: slow start"))):
            ax = fig.add_subplot(1, 2, j + 1)
            s = _sent(ctx, i)
            ax.plot(s["time_s"].to_numpy(), s["seq"].to_numpy() / 1024, ".", ms=2.5)
            ax.set_title(title)
            ax.set_xlabel("send time (s)")
            ax.set_ylabel("packet sequence (KB)")
            ax.set_xlim(0, dur)
            ax.plot([0, dur], [0, dur * link / 8 / 1024], "--", lw=0.8, color="grey")
        figs.append(fig)
    except Exception:  # noqa: BLE001
        pass
    g0 = go_back_n(ctx.trace(0, "packets"))
    explanation = (
        f"The story is the paper's: without slow start the sender blasts its 32-packet window into a 30-packet "
        f"queue, loses some of it, times out and resends everything after the loss (go-back-N): "
        f"{frac(old):.0%} of its packets are retransmissions and it delivers {eff['old']:.1f} KBps; with slow "
        f"start nothing is lost and it delivers {eff['new']:.1f} KBps ({ratio:.1f} times as much). Not "
        'reproduced: the paper\'s "almost everything is retransmitted at least once" and the data sent five '
        "times. Both need retransmissions that are lost again, and the item counts why they are not: each "
        f"timeout re-sends one window ({per_timeout[0]:.0f} packets per timeout, the window is {WINDOW}), and "
        f"every timeout fires once the bottleneck queue has drained ({sum(w <= 3 for w in g0['waiting'])} of "
        f"{len(g0['waiting'])} find at most 3 packets there; over every set-up {fired - crowded} of {fired}): "
        f"RFC 793's RTO is twice an SRTT that carries the full queue's {30 * 552 * 8 / 230.4e3:.2f} s (30 "
        "packets of 552 bytes at 230.4 kbit/s), so the re-sent window always "
        "fits, the share of retransmissions is about one window per timeout interval, and no packet is sent "
        f"more than {max(mosts)} times. The set-ups the paper leaves open (the alternatives table: the delay, "
        'what "20 KBps available" is, the timer\'s tick) move the share between '
        f"{min(shares):.0%} and {max(shares):.0%}, never to most of the packets. A timer that fires into a full "
        "queue needs an SRTT without the queueing delay: 4.3BSD predates Karn's rule and timed retransmitted "
        "segments too, whose early ACKs shorten it; tcplab's senders always apply Karn's rule, so that reading "
        "is not tried. The absolute figures differ too: tcplab delivers more in both cases (the link's data "
        f"rate here is {link / 8e3:.1f} KBps, the paper's connection had 20 KBps available)."
    )
    notes = (
        "One connection, 512 data bytes per packet, a 16 KB window (32 packets), 30 packets of buffer at the "
        "230.4 kbit/s bottleneck, 10 s. Fig. 3: the 4.3BSD sender (no slow start, RFC 793 timer, go-back-N "
        "after a timeout) and a 4.3BSD receiver; Fig. 4: the same with slow start and congestion avoidance "
        "and a receiver that ACKs every other packet (`--set flows.0.cc=aimd --set flows.0.ack=delayed`). "
        "The figure shows every data packet as sent (the dashed line: the link's data rate). The alternatives "
        "run both senders again: 100 and 200 ms on the slow link; the slow link at a 20 KBps data rate (172.5 "
        "kbit/s); constant-rate UDP of 57.9 kbit/s on it (20 KBps of data left); RFC 793's timer without the "
        "500 ms tick, at least 0.2 s. A timeout is counted where a packet is sent below the highest sequence "
        "sent before it."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        figures=figs,
        notes=notes,
        extra=[("What the paper leaves open: the path, the 20 KBps, the timer (4.3BSD and slow start)", alt)],
        numbers={
            "retransmissions_per_timeout": per_timeout,
            "timeouts_finding_a_queue": [crowded, fired],
            "old": {
                k: old[k] for k in ("segments_sent", "segments_retransmitted", "timeouts", "goodput_bps")
            },
            "new": {
                k: new[k] for k in ("segments_sent", "segments_retransmitted", "timeouts", "goodput_bps")
            },
        },
    )


register(
    Item(
        "jacobson-figs3-4",
        PAPER,
        "Figs 3-4",
        "start-up of 4.3BSD against slow start",
        "Sequence-number plots of the first 10 s of a connection through a 230.4 kbit/s link with 30 packets of "
        "buffer and a 32-packet window: 4.3BSD (Fig. 3) retransmits almost everything and uses 35% of the bandwidth; "
        "with slow start (Fig. 4) nothing is retransmitted and the effective bandwidth is 16 KBps, twice as much.",
        (STARTUP,),
        _startup_jobs,
        _startup_evaluate,
    )
)


# ---- Figs 5-6: retransmit timers on one RTT series ------------------------------------------------

LOADS = (2, 3, 4)  # on-off sources of 28 kbit/s, on half the time: 50%, 75%, 100% of the 56 kbit/s link


#: The competing sources' on and off means, tried at 50% load beside the scenario's 2 s (the paper's
#: trace gives no such number): shorter periods make the RTT jump rather than drift.
PERIODS = ("1s", "0.5s")


def _rtt_jobs(quick: bool) -> list[Job]:
    sets = {"duration": "200s"} if quick else {}
    return [Job(RTTS, {**sets, "traffic.0.count": n}, traces=True) for n in LOADS] + [
        Job(
            RTTS,
            {**sets, "traffic.0.count": LOADS[0], "traffic.0.on_mean": d, "traffic.0.off_mean": d},
            traces=True,
        )
        for d in PERIODS
    ]


def _timer_misses(rtt: np.ndarray) -> dict:
    """Each timer's share of samples exceeded, and the shape of the RTTs that decides RFC 793's:
    the share of samples above twice the mean, the minimum over the mean."""
    r793, ra = rfc793_rto(rtt)[1:], app_a_rto(rtt)[1:]
    m = rtt[1:]
    return {
        "e793": float(np.mean(m > r793)),
        "ea": float(np.mean(m > ra)),
        "above2": float(np.mean(rtt > 2 * np.mean(rtt))),
        "jump2": float(np.mean(rtt[1:] > 2 * rtt[:-1])) if len(rtt) > 1 else math.nan,
        "min_over_mean": float(np.min(rtt) / np.mean(rtt)),
    }


def rtt_series(packets: pl.DataFrame, flow: int = 0, out: str = "access0.fwd", back: str = "access0.rev"):
    """(send times, RTTs) of every data packet of `flow` sent once, from a packet trace: the time
    from its enqueue at the sender's first link to the arrival there of the first ACK that
    covers it (Karn: segments sent more than once give no sample)."""
    data = packets.filter(
        (pl.col("link_name") == out)
        & (pl.col("event") == "enqueue")
        & (pl.col("kind") == "data")
        & (pl.col("flow") == flow)
    )
    acks = packets.filter(
        (pl.col("link_name") == back)
        & (pl.col("event") == "receive")
        & (pl.col("kind") == "ack")
        & (pl.col("flow") == flow)
    ).sort("time_ns")
    again = data.filter(pl.col("retransmit"))["seq"].unique()
    once = data.filter(~pl.col("seq").is_in(again.implode()))
    at = acks["time_s"].to_numpy()
    covered = np.maximum.accumulate(acks["ack"].to_numpy()) if acks.height else np.array([])
    end = (once["seq"] + once["len"]).to_numpy()
    idx = np.searchsorted(covered, end, side="left")
    ok = idx < len(at)
    sent = once["time_s"].to_numpy()[ok]
    return sent, at[idx[ok]] - sent


def rfc793_rto(rtt: np.ndarray, alpha: float = 0.9, beta: float = 2.0) -> np.ndarray:
    """RFC 793 p. 41: SRTT = alpha SRTT + (1 - alpha) RTT, RTO = beta SRTT; the timer in force
    when each sample is taken (from the samples before it; the first initialises SRTT). The
    RFC's bounds (1 s, 1 min) are left out: they would hide the estimator (the item says so)."""
    out = np.empty(len(rtt))
    srtt = rtt[0] if len(rtt) else 0.0
    for i, m in enumerate(rtt):
        out[i] = beta * srtt
        srtt = alpha * srtt + (1 - alpha) * m
    return out


def app_a_rto(rtt: np.ndarray, tick: float = 0.01) -> np.ndarray:
    """App. A (rto = a + 4v, integer arithmetic on a `tick`): the timer in force at each sample."""
    from tcplab.models import jacobson as jm

    _, after = jm.rto_series_seconds(rtt, tick)
    return np.concatenate([[np.nan], after[:-1]]) if len(after) else after


def _rtt_evaluate(ctx: Context) -> Outcome:
    head = [
        "load",
        "samples",
        "mean RTT s",
        "RTT std s",
        "exceed RFC 793 (beta 2)",
        "exceed App. A (a + 4v)",
        "mean RTO / RTT, RFC 793",
        "mean RTO / RTT, App. A",
    ]
    body, res = [], {}
    for i, n in enumerate(LOADS):
        t, rtt = rtt_series(ctx.trace(i, "packets"))
        r793, ra = rfc793_rto(rtt)[1:], app_a_rto(rtt)[1:]
        m = rtt[1:]
        res[n] = {
            "t": t,
            "rtt": rtt,
            "e793": float(np.mean(m > r793)),
            "ea": float(np.mean(m > ra)),
            "w793": float(np.mean(r793 / m)),
            "wa": float(np.mean(ra / m)),
            "n": len(rtt),
        }
        body.append(
            [
                f"{n * 25}%",
                str(len(rtt)),
                f"{rtt.mean():.3f}",
                f"{rtt.std():.3f}",
                f"{res[n]['e793']:.2%}",
                f"{res[n]['ea']:.2%}",
                f"{res[n]['w793']:.2f}",
                f"{res[n]['wa']:.2f}",
            ]
        )
    top = LOADS[-1]
    periods = [("2s (the scenario's)", _timer_misses(res[LOADS[0]]["rtt"]))] + [
        (d, _timer_misses(rtt_series(ctx.trace(len(LOADS) + j, "packets"))[1])) for j, d in enumerate(PERIODS)
    ]
    alt = [
        [
            "on and off means, 50% load",
            "exceed RFC 793",
            "exceed App. A",
            "samples above twice the mean RTT",
            "samples above twice the one before",
            "minimum RTT / mean RTT",
        ]
    ] + [
        [
            label,
            f"{x['e793']:.2%}",
            f"{x['ea']:.2%}",
            f"{x['above2']:.2%}",
            f"{x['jump2']:.2%}",
            f"{x['min_over_mean']:.2f}",
        ]
        for label, x in periods
    ]
    checks = [
        Check(
            "App. A's timer exceeded by an RTT sample (a spurious timeout), worst load",
            f"{max(res[n]['ea'] for n in LOADS):.2%}",
            "at most 1% at every load",
            max(res[n]["ea"] for n in LOADS) <= 0.01,
            paper=False,
        ),
        Check(
            f"at {top * 25}% load, RFC 793's timer exceeded more often than App. A's",
            f"{res[top]['e793']:.2%} vs {res[top]['ea']:.2%}",
            "RFC 793 > App. A",
            res[top]["e793"] > res[top]["ea"],
            paper=False,
        ),
        Check(
            "the paper: RFC 793's timer (beta = 2) fails above about 30% load: exceeded by more than 1% of "
            "the samples, least load",
            f"{res[LOADS[0]]['e793']:.2%} at {LOADS[0] * 25}%",
            "more than 1% at every load from 50%",
            all(res[n]["e793"] > 0.01 for n in LOADS),
        ),
        Check(
            "50% load, every on/off period: RTT samples above twice the sample before (a jump RFC 793's "
            "2 x SRTT cannot follow), worst",
            f"{max(x['jump2'] for _, x in periods):.2%}",
            "at most 1%",
            max(x["jump2"] for _, x in periods) <= 0.01,
            paper=False,
        ),
    ]
    figs = []
    try:
        fig = figure(1, 2, 9.0, 3.2)
        shown = LOADS[1]  # 75%: the highest load with a steady state
        r = res[shown]
        k = min(400, r["n"])
        x = np.arange(1, k + 1)
        for j, (rto, title) in enumerate(
            (
                (rfc793_rto(r["rtt"]), "Fig 5: RFC 793 timer (beta = 2)"),
                (app_a_rto(r["rtt"]), "Fig 6: mean + variance timer (App. A)"),
            )
        ):
            ax = fig.add_subplot(2, 1, j + 1)
            ax.plot(x, r["rtt"][:k], ".:", ms=3, lw=0.5, label="RTT of each packet")
            ax.plot(x, rto[:k], "-", lw=1.2, label="retransmit timer")
            ax.set_title(f"{title}, {shown * 25}% load, first {k} packets")
            ax.set_xlabel("packet")
            ax.set_ylabel("seconds")
            ax.legend(loc="upper left", fontsize=8)
        figs.append(fig)
    except Exception:  # noqa: BLE001
        pass
    jumps_ok = max(x["jump2"] for _, x in periods) <= 0.01
    e_a = ", ".join(f"{res[n]['ea']:.2%}" for n in LOADS)
    e_793 = ", ".join(f"{res[n]['e793']:.2%}" for n in LOADS)
    fails = ", ".join(f"{n * 25}%" for n in LOADS if res[n]["e793"] > 0.01)
    keeps = ", ".join(f"{n * 25}%" for n in LOADS if res[n]["e793"] <= 0.01)
    explanation = (
        "The paper's Figs. 5-6 are one Arpanet trace; its text says RFC 793's beta = 2 copes with loads up to "
        "about 30%, above which a connection retransmits packets that were only delayed, while a + 4v follows "
        f"the variation. Here App. A's timer is exceeded by {e_a} "
        f"of the samples at {', '.join(f'{n * 25}%' for n in LOADS)} load, RFC 793's by {e_793}: more than 1% "
        f"at {fails or 'no'} load, at most 1% at {keeps or 'no'} load. The competing sources' on and off periods "
        "do not decide it: at 50% load with means of "
        + ", ".join(f"{label.split(' ')[0]} RFC 793 is exceeded by {x['e793']:.2%}" for label, x in periods)
        + " (the alternatives table), so the competing traffic's time scale is not what keeps RFC 793 within. "
        "At 50% load "
        + ", ".join(f"{x['above2']:.2%}" for _, x in periods)
        + " of the samples are above twice the run's mean RTT and "
        + ", ".join(f"{x['jump2']:.2%}" for _, x in periods)
        + " above twice the sample before. "
        + (
            "So the RTT seldom jumps from one packet to the next: each packet of this 4-packet window queues "
            "behind the one before it, consecutive RTTs share most of their queueing, and 2 x SRTT (alpha = "
            "0.9) stays above the next sample. The paper's 30% rests on a queueing-theory argument for delays "
            "independent from packet to packet, which is not how one connection's packets see a queue. "
            if jumps_ok
            else "The RTT does jump from packet to packet, so why RFC 793 keeps up here is not established. "
        )
        + "The RFC's 1 s lower bound is not applied (it would hide the estimator); App. A runs on a 10 ms tick."
    )
    notes = (
        "One connection (a 4-packet window, 512 data bytes) over a 56 kbit/s link shared with 2, 3 or 4 on-off "
        "UDP sources (28 kbit/s when on, Pareto on and off periods of 2 s mean: 50%, 75%, 100% of the link on "
        "average), no drops. Each RTT is a packet sent once, from its send to the first ACK covering it; "
        "each timer is the one in force when that packet was sent, computed from the samples before it. "
        "'Exceed' = the share of samples longer than the timer: each would have been retransmitted "
        "although it was only delayed. At 100% load the queue has no steady state (it grows through the run). "
        f"At 50% load the run is repeated with on and off means of {' and '.join(PERIODS)}."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        figures=figs,
        notes=notes,
        extra=[
            (
                "The competing traffic's on and off periods, which the paper leaves open (its trace gives none)",
                alt,
            )
        ],
        numbers={str(n): {k: v for k, v in res[n].items() if k not in ("t", "rtt")} for n in LOADS},
    )


register(
    Item(
        "jacobson-figs5-6",
        PAPER,
        "Figs 5-6",
        "RFC 793's timer against mean + variance on the same RTTs",
        "Per-packet RTTs of one connection with the retransmit timer of RFC 793 (SRTT with alpha = 0.9, RTO = 2 SRTT; "
        "Fig. 5) and of App. A (a + 4v; Fig. 6) drawn over them: the mean + variance timer follows the variation.",
        (RTTS,),
        _rtt_jobs,
        _rtt_evaluate,
        quick="200 s per load instead of 600 s",
    )
)
