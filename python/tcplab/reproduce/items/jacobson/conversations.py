"""Jacobson & Karels 1988: four conversations (Figs 7-9) and their bandwidth over time (Figs 10-12)."""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
import polars as pl

from tcplab.reproduce.core import Check, Context, Item, Job, Outcome, fmt, register
from tcplab.reproduce.items.jacobson.startup import FOUR, PAPER, figure

# ---- Figs 7-9: four conversations -------------------------------------------------------------------

CA = {f"flows.{i}.cc": "aimd" for i in range(4)}
LINK_KBPS = 230.4 * 512 / 552 / 8  # the link's data rate, KBps (1000 bytes)


#: The bottleneck's two directions, traced for Figs 10-12 (data offered and data acknowledged).
FOUR_TRACE = {"trace.links": ["bottleneck.fwd", "bottleneck.rev"]}


def _four_jobs(quick: bool) -> list[Job]:
    return [Job(FOUR, FOUR_TRACE, traces=True), Job(FOUR, {**CA, **FOUR_TRACE}, traces=True)]


#: What Fig. 7 leaves open, tried with congestion avoidance (Fig. 9): the propagation delay on the
#: link (the paper gives none) and which conversations talk to old receivers (it says two did, not
#: which). The scenario's (20 ms; flows 2 and 4, zero-based 1 and 3) is the first.
DELAYS = ("20ms", "50ms", "100ms")
OLD_PAIRS = ((1, 3), (0, 1), (2, 3), (0, 2))
SETUPS = [(d, olds) for d in DELAYS for olds in OLD_PAIRS]


def _setup_sets(delay: str, olds: tuple[int, ...]) -> dict:
    sets: dict = {**CA, "network.dumbbell.bottleneck.delay": delay, "trace.links": ["bottleneck.fwd"]}
    for i in range(4):
        sets[f"flows.{i}.ack"] = "bsd43" if i in olds else "delayed"
    return sets


def _four_jobs_79(quick: bool) -> list[Job]:
    return _four_jobs(quick) + [Job(FOUR, _setup_sets(d, o), traces=True) for d, o in SETUPS[1:]]


def bursts(packets: pl.DataFrame, flow: int, gap: float = 1e-3, link: str = "bottleneck.fwd") -> pl.DataFrame:
    """The data packets of `flow` arriving at `link` (admitted or dropped), each with the size of the
    burst it came in (`burst`: packets arriving less than `gap` s after the one before, back to back
    from the 10 Mbit/s access link) and whether it was dropped (`dropped`)."""
    x = packets.filter(
        (pl.col("link_name") == link)
        & (pl.col("kind") == "data")
        & (pl.col("flow") == flow)
        & pl.col("event").is_in(["enqueue", "drop"])
    ).sort("time_ns")
    if x.height == 0:
        return pl.DataFrame({"burst": [], "dropped": []}, schema={"burst": pl.Int64, "dropped": pl.Boolean})
    t = x["time_s"].to_numpy()
    bid = np.cumsum(np.diff(t, prepend=-math.inf) > gap)
    size = np.bincount(bid)[bid]
    return pl.DataFrame({"burst": size.astype(np.int64), "dropped": (x["event"] == "drop").to_numpy()})


def _four_evaluate(ctx: Context) -> Outcome:
    old, new = ctx.rows(0).to_dicts(), ctx.rows(1).to_dicts()

    def tot(fl, k):
        return sum(f[k] for f in fl)

    def frac(fl):
        return tot(fl, "segments_retransmitted") / tot(fl, "segments_sent")

    min_old = min(f["active_goodput_bps"] for f in old) / 8e3
    agg = lambda fl: tot(fl, "bytes_delivered") / 1e3 / max(f["completion_time_s"] for f in fl)  # noqa: E731
    kbps = lambda fl: ", ".join(f"{f['active_goodput_bps'] / 8e3:.1f}" for f in fl)  # noqa: E731
    head = ["quantity", "without CA (Fig 8)", "paper", "with CA (Fig 9)", "paper"]
    body = [
        [
            "data packets sent",
            str(tot(old, "segments_sent")),
            "11,000",
            str(tot(new, "segments_sent")),
            "8,281",
        ],
        [
            "retransmissions",
            f"{tot(old, 'segments_retransmitted')} ({frac(old):.1%})",
            "4,000 (36%)",
            f"{tot(new, 'segments_retransmitted')} ({frac(new):.1%})",
            "89 (1.1%)",
        ],
        ["timeouts", str(tot(old, "timeouts")), "-", str(tot(new, "timeouts")), "-"],
        [
            "each conversation's bandwidth, KBps (flows 1-4)",
            kbps(old),
            "8, 5, 5, 0.5",
            kbps(new),
            "8, 8, 4.5, 4.5",
        ],
        [
            "all data / time until the last transfer ends, KBps",
            f"{agg(old):.1f}",
            "-",
            f"{agg(new):.1f}",
            "-",
        ],
        [
            "the same, share of the link's data rate",
            f"{agg(old) / LINK_KBPS:.0%}",
            "75% (Fig 11)",
            f"{agg(new) / LINK_KBPS:.0%}",
            "about 100% (Fig 11)",
        ],
    ]
    checks = [
        Check(
            "without congestion avoidance: share of retransmissions",
            f"{frac(old):.1%}",
            "within 10 points of the paper's 36%",
            abs(frac(old) - 4000 / 11000) <= 0.10,
        ),
        Check(
            "with congestion avoidance: share of retransmissions",
            f"{frac(new):.1%}",
            "at most 3% (the paper: 1.1%)",
            frac(new) <= 0.03,
        ),
    ]
    # Fig. 9's receivers: two old (4.3BSD, an ACK per 35% of the window) and two new.
    olds = [f for f in new if f["ack"] == "bsd43"]
    news = [f for f in new if f["ack"] != "bsd43"]
    loss = lambda fl: tot(fl, "segments_retransmitted") / tot(fl, "segments_sent")  # noqa: E731
    body.append(
        [
            "with CA: retransmitted share, old / new receivers",
            "-",
            "-",
            f"{loss(olds):.1%} / {loss(news):.1%}",
            "1.8% / 0.5%",
        ]
    )
    body.append(
        [
            "with CA: mean bandwidth, old / new receivers, KBps",
            "-",
            "-",
            f"{tot(olds, 'active_goodput_bps') / 16e3:.1f} / {tot(news, 'active_goodput_bps') / 16e3:.1f}",
            "4.5 / 8",
        ]
    )
    checks.append(
        Check(
            "Fig 9 with CA: retransmitted share, old receivers over new (the paper: 1.8% / 0.5% = 3.6)",
            fmt(loss(olds) / loss(news) if loss(news) else math.inf, 2),
            "at least 2",
            loss(olds) >= 2 * loss(news),
        )
    )
    # The set-ups the paper leaves open (job 1 is the first), and the paper's mechanism counted over
    # all of them: the bursts each receiver's ACKs release, and how often a packet in one is dropped.
    alt = [
        [
            "delay on the link",
            "old (4.3BSD) receivers: flows",
            "retransmitted, old / new receivers",
            "old over new (the paper: 3.6)",
            "mean bandwidth, old / new, KBps (the paper: 4.5 / 8)",
        ]
    ]
    ratios: list[float] = []
    pooled: dict[str, list[pl.DataFrame]] = {"old": [], "new": []}
    for j, (delay, pair) in enumerate(SETUPS):
        k = 1 + j  # job 1 is the scenario's set-up, the others follow the two shared jobs
        fl = ctx.rows(k).to_dicts()
        o = [f for f in fl if f["ack"] == "bsd43"]
        nw = [f for f in fl if f["ack"] != "bsd43"]
        r = loss(o) / loss(nw) if loss(nw) else math.inf
        ratios.append(r)
        alt.append(
            [
                delay + (" (the scenario's)" if j == 0 else ""),
                ", ".join(str(i + 1) for i in pair),
                f"{loss(o):.2%} / {loss(nw):.2%}",
                fmt(r, 2),
                f"{tot(o, 'active_goodput_bps') / 16e3:.1f} / {tot(nw, 'active_goodput_bps') / 16e3:.1f}",
            ]
        )
        pk = ctx.trace(k, "packets")
        for f in fl:
            pooled["old" if f["ack"] == "bsd43" else "new"].append(bursts(pk, f["flow"]))
    b_old, b_new = (pl.concat(v) if v else pl.DataFrame() for v in (pooled["old"], pooled["new"]))

    def mean_burst(b: pl.DataFrame) -> float:
        # per burst, not per packet: a burst of k packets counts once
        return float(b.height / (b["burst"].cast(pl.Float64).pow(-1).sum())) if b.height else math.nan

    def drop_rate(b: pl.DataFrame, big: bool) -> float:
        x = b.filter(pl.col("burst") >= 5) if big else b.filter(pl.col("burst") <= 2)
        return float(x["dropped"].mean()) if x.height else math.nan  # type: ignore[arg-type]

    every = pl.concat([b_old, b_new])
    d_big, d_small = drop_rate(every, True), drop_rate(every, False)
    m_old, m_new = mean_burst(b_old), mean_burst(b_new)
    meeting = sum(r >= 2 for r in ratios)
    checks += [
        Check(
            "the old receivers' ACKs release longer bursts (the paper's premise): mean burst at the link, "
            "old / new receivers' flows, every set-up",
            f"{m_old:.1f} / {m_new:.1f} packets",
            "old at least 1.5 x new",
            m_old >= 1.5 * m_new,
            paper=False,
        ),
        Check(
            "a packet arriving in a burst of 5 or more is dropped no more often than one in a burst of 2 or "
            "fewer (the paper: 'the probability of loss increases rapidly with burst size'), every set-up",
            f"{d_big:.2%} vs {d_small:.2%}",
            "bursts of 5+ at most as often",
            d_big <= d_small,
            paper=False,
        ),
    ]
    explanation = (
        f"The retransmissions are the paper's: {frac(old):.0%} without congestion avoidance (paper 36%), "
        f"{frac(new):.1%} with it (paper 1.1%); the link carries {agg(old) / LINK_KBPS:.0%} of its data rate in "
        f"useful data without and {agg(new) / LINK_KBPS:.0%} with congestion avoidance (paper, Fig. 11: 75% and "
        "the full link). Not reproduced: the paper's split of Fig. 9 by receiver. There the two senders talking "
        "to 4.3BSD receivers lost three times as often (1.8% vs 0.5%) and got 4.5 KBps against 8; here the old "
        f"receivers' flows lose {loss(olds):.1%} against {loss(news):.1%} and get "
        f"{tot(olds, 'active_goodput_bps') / 16e3:.1f} against {tot(news, 'active_goodput_bps') / 16e3:.1f} KBps. "
        "The paper gives neither the link's delay nor which two conversations had old receivers: over the "
        f"{len(SETUPS)} set-ups of the alternatives table the old receivers' loss over the new ones' is "
        f"{fmt(min(ratios), 2)} to {fmt(max(ratios), 2)} (median {fmt(float(np.median(ratios)), 2)}), at least "
        f"2 in {meeting} of them: the receivers do not decide who loses here. The paper's mechanism is counted "
        f"over every set-up: the old receivers' ACKs do release longer bursts ({m_old:.1f} packets on average "
        f"against {m_new:.1f}; the paper: 5-7 against at most 2), but a packet arriving in a burst of 5 or more "
        f"is dropped {d_big:.2%} of the time against {d_small:.2%} in a burst of 2 or fewer. With this 50-packet "
        "queue a drop happens when the queue has filled, to whichever packet arrives then, not to the longer "
        "bursts: the paper's 'probability of loss increases rapidly with burst size' does not hold in this "
        "gateway, whose other behaviour the paper does not give. "
        + (
            f"Without congestion avoidance the smallest conversation gets {min_old:.1f} KBps (paper 0.5: one "
            "conversation is all but shut out in Fig. 8). "
        )
        + "Bandwidths are in KBps of 1000 bytes."
    )
    notes = (
        "Four 1 MB transfers (2048 packets of 512 data bytes), 16 KB windows, started 3 s apart through one "
        "230.4 kbit/s link with a 50-packet queue. Flows 1 and 3 talk to new (4.3+BSD) receivers, 2 and 4 to "
        "old (4.3BSD) ones. Fig. 8: 4.3BSD senders; Fig. 9: the same with slow start and congestion avoidance. "
        "Bandwidth: each transfer's data over its own lifetime. Fig. 9 again with the link's delay at "
        f"{', '.join(DELAYS)} and the old receivers on flows "
        + ", ".join(" and ".join(str(i + 1) for i in o) for o in OLD_PAIRS)
        + " (the alternatives table); a burst is the data packets of one flow arriving at the link less than "
        "1 ms apart (back to back from the 10 Mbit/s access link)."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        notes=notes,
        extra=[
            (
                "What the paper leaves open in Fig. 7: the link's delay, which conversations have old receivers (with CA)",
                alt,
            )
        ],
        numbers={
            "retransmitted_share": {"no_ca": frac(old), "ca": frac(new)},
            "setups_old_over_new": ratios,
            "mean_burst": {"old": m_old, "new": m_new},
            "drop_rate": {"burst_5_or_more": d_big, "burst_2_or_fewer": d_small},
            "ca_old_receivers": loss(olds),
            "ca_new_receivers": loss(news),
        },
    )


register(
    Item(
        "jacobson-figs7-9",
        PAPER,
        "Figs 7-9",
        "four conversations through one gateway, without and with CA",
        "Four 1 MB transfers through a 230.4 kbit/s link with a 50-packet queue: without congestion avoidance "
        "(Fig. 8) 4,000 of 11,000 packets are retransmissions and bandwidth vanishes; with it (Fig. 9) 89 of 8,281, "
        "the link is fully used, and the senders talking to old 4.3BSD receivers lose more and get less.",
        (FOUR,),
        _four_jobs_79,
        _four_evaluate,
    )
)


# ---- Figs 10-12: the four conversations' bandwidth over time ----------------------------------------


def offered_and_acked(packets: pl.DataFrame, link: str = "bottleneck") -> tuple[pl.DataFrame, pl.DataFrame]:
    """The data bytes arriving at `link`.fwd (admitted or dropped: what the senders put on the
    wire toward it) and the data newly acknowledged by the ACKs leaving `link`.rev (per flow, the
    advance of the highest cumulative ACK), each with `time_s` and `bytes`."""
    fwd = packets.filter(
        (pl.col("link_name") == f"{link}.fwd")
        & (pl.col("kind") == "data")
        & pl.col("event").is_in(["enqueue", "drop"])
    )
    offered = fwd.filter((pl.col("event") == "enqueue") | (pl.col("cause") == "overflow"))
    acks = packets.filter(
        (pl.col("link_name") == f"{link}.rev") & (pl.col("kind") == "ack") & (pl.col("event") == "receive")
    ).sort("time_ns")
    acks = acks.with_columns(pl.col("ack").cast(pl.Int64).cum_max().over("flow").alias("high"))
    acks = acks.with_columns(
        (pl.col("high") - pl.col("high").shift(1, fill_value=0).over("flow")).alias("bytes")
    )
    return offered.select("time_s", pl.col("len").cast(pl.Int64).alias("bytes")), acks.select(
        "time_s", "bytes"
    )


def binned(events: pl.DataFrame, width: float, end: float) -> np.ndarray:
    """Bytes per interval of `width` seconds from 0 to `end`, in KBps (1000 bytes)."""
    n = max(1, math.ceil(end / width - 1e-9))
    out = np.zeros(n)
    idx = np.minimum((events["time_s"].to_numpy() // width).astype(int), n - 1)
    np.add.at(out, idx, events["bytes"].to_numpy().astype(float))
    return out / width / 1e3


def _between(events: pl.DataFrame, t0: float, t1: float) -> float:
    """KBps over [t0, t1)."""
    return (
        float(events.filter((pl.col("time_s") >= t0) & (pl.col("time_s") < t1))["bytes"].sum())
        / (t1 - t0)
        / 1e3
    )


def spikes(series: np.ndarray, depth: float) -> tuple[int, int, list[float]]:
    """Fig. 12's signature in a series of data acknowledged per interval: dips more than `depth`
    below the series' median, how many of them the next interval answers with a rise of at least
    half the dip above the median (the out-of-order data cached at the receiver, acknowledged by
    the retransmission), and the dips' depths."""
    med = float(np.median(series))
    dips = [i for i in range(len(series) - 1) if med - series[i] > depth]
    answered = [i for i in dips if series[i + 1] - med >= (med - series[i]) / 2]
    return len(dips), len(answered), [med - series[i] for i in dips]


def _bw_evaluate(ctx: Context) -> Outcome:
    import tomllib

    from tcplab.reproduce.core import scenario_text
    from tcplab.units import parse_duration

    start_all = max(parse_duration(f["start"]) for f in tomllib.loads(scenario_text(FOUR))["flows"])
    runs: dict[str, dict[str, Any]] = {}
    for i, name in ((0, "old"), (1, "new")):
        rows = ctx.rows(i)
        first_end = float(cast(float, rows["completion_time_s"].min()))
        last_end = float(cast(float, rows["completion_time_s"].max()))
        off, acked = offered_and_acked(ctx.trace(i, "packets"))
        t0 = start_all + 1.0  # all four conversations running
        runs[name] = {
            "off": off,
            "acked": acked,
            "t0": t0,
            "t1": first_end,
            "end": last_end,
            "offered": _between(off, t0, first_end) / LINK_KBPS,
            "effective": _between(acked, t0, first_end) / LINK_KBPS,
        }
    old, new = runs["old"], runs["new"]
    s3 = binned(new["acked"], 3.0, new["t1"])[int(math.ceil(new["t0"] / 3)) :]
    depth = 0.1 * 3 * LINK_KBPS  # a dip of 10% of the link's data in a 3 s interval (about 16 packets)
    n_dips, n_answered, depths = spikes(s3 * 3, depth)
    head = ["quantity", "without CA (old)", "paper", "with CA (new)", "paper"]
    body = [
        [
            "Fig 10: data sent toward the link / its data rate",
            f"{old['offered']:.2f}",
            "1.25",
            f"{new['offered']:.2f}",
            'about 1 ("at the wire bandwidth")',
        ],
        [
            "Fig 11: data acknowledged / the link's data rate",
            f"{old['effective']:.2f}",
            "0.75",
            f"{new['effective']:.2f}",
            "about 1",
        ],
        [
            "Fig 12: 3 s intervals with a dip (> 10% of the link below the median)",
            "-",
            "-",
            str(n_dips),
            "3 (at 15, 33, 57 s)",
        ],
        ["Fig 12: of them followed by a rise of at least half the dip", "-", "-", str(n_answered), "all"],
        [
            "Fig 12: mean dip, packets of 512 bytes",
            "-",
            "-",
            fmt(float(np.mean(depths)) * 1e3 / 512 if depths else math.nan, 1),
            "a window (at most 32)",
        ],
    ]
    checks = [
        Check(
            "Fig 10: old TCPs send more than the link carries",
            f"{old['offered']:.2f}",
            "1.25 +- 0.15 of the link's data rate",
            abs(old["offered"] - 1.25) <= 0.15,
        ),
        Check(
            "Fig 11: old TCPs' effective bandwidth",
            f"{old['effective']:.2f}",
            "0.75 +- 0.10 of the link's data rate",
            abs(old["effective"] - 0.75) <= 0.10,
        ),
        Check(
            "Figs 10-11: new TCPs send and deliver at the link's rate",
            f"{new['offered']:.2f} / {new['effective']:.2f}",
            "both within 0.95-1.05",
            0.95 <= new["offered"] <= 1.05 and 0.95 <= new["effective"] <= 1.05,
        ),
        Check(
            "Fig 12: a dip in the data acknowledged is answered by a rise in the next interval",
            f"{n_answered} of {n_dips}",
            "at least 2 dips, 80% of them answered",
            n_dips >= 2 and n_answered >= 0.8 * n_dips,
        ),
    ]
    figs = []
    try:
        fig = figure(3, 1, 4.6, 3.6)
        for j, (key, title) in enumerate(
            (("off", "Fig 10: total bandwidth (5 s)"), ("acked", "Fig 11: effective bandwidth (5 s)"))
        ):
            ax = fig.add_subplot(1, 3, j + 1)
            for name, lw in (("old", 0.8), ("new", 2.2)):
                r = runs[name]
                y = binned(r[key], 5.0, r["end"]) / LINK_KBPS
                ax.step(
                    np.arange(len(y)) * 5.0 + 5.0,
                    y,
                    where="pre",
                    lw=lw,
                    label="no CA (Fig 8)" if name == "old" else "CA (Fig 9)",
                )
            ax.axhline(1.0, ls=":", color="grey")
            ax.set_title(title)
            ax.set_xlabel("time (s)")
            ax.set_ylabel("relative bandwidth")
            ax.legend(fontsize=7)
        ax = fig.add_subplot(1, 3, 3)
        y = binned(new["acked"], 3.0, new["end"]) * 3 * 1e3 / 512
        ax.step(np.arange(len(y)) * 3.0 + 3.0, y, where="pre", lw=1.2)
        ax.set_title("Fig 12: data acked per 3 s (CA)")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("packets")
        figs.append(fig)
    except Exception:  # noqa: BLE001
        pass
    explanation = (
        f"Figs 10-11 are the paper's: without congestion avoidance the four senders put {old['offered']:.2f} times "
        f"the link's data rate on the wire toward it (paper 1.25) and {old['effective']:.2f} of it arrives as new "
        f"data (paper 0.75): the rest is retransmissions of packets that were not lost (go-back-N after each "
        f"timeout). With it they send {new['offered']:.2f} and deliver {new['effective']:.2f}. Fig. 12's "
        "mechanism is there too: a drop stalls its sender until the timeout (a dip in the data acknowledged), "
        "and the retransmission then acknowledges the data cached behind it (the rise that follows) "
        f"({n_answered} of {n_dips} dips). Not reproduced: the paper's reading of the spikes as one window "
        "decaying with a 28 s time constant (six events of one connection in its trace); here four "
        "conversations' dips overlap in the sum, and the paper itself ties the time constant to its gateway. "
        "Unlike the paper, the old senders here stall together once (all four in exponential backoff at the "
        "same time) before the last one finishes alone: the averages are over the time all four run."
    )
    notes = (
        "The runs of Figs 7-9 with the bottleneck traced. Averages over the time all four conversations run "
        f"(from {new['t0']:.0f} s to the first one's end: {old['t1']:.0f} s without and {new['t1']:.0f} s "
        f"with congestion avoidance). The link's data rate is {LINK_KBPS:.1f} KBps (512 of every 552 bytes; "
        "the paper rounds to 25). Sent: data segments arriving at the link, admitted or dropped; acknowledged: "
        "the advance of each flow's cumulative ACK leaving it."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        figures=figs,
        notes=notes,
        numbers={
            "offered": {"old": old["offered"], "new": new["offered"]},
            "effective": {"old": old["effective"], "new": new["effective"]},
            "fig12_dips": n_dips,
            "fig12_answered": n_answered,
        },
    )


register(
    Item(
        "jacobson-figs10-12",
        PAPER,
        "Figs 10-12",
        "total and effective bandwidth over time, window detail",
        "Figs 8 and 9's runs averaged over 5 s: without congestion avoidance the senders send 25% more than the "
        "link carries (Fig. 10) and only 75% of the link carries new data (Fig. 11); with it both are at the link's "
        "rate. Fig. 12: data acknowledged per 3 s, where each drop shows as a dip and a rise of a window's size.",
        (FOUR,),
        _four_jobs,
        _bw_evaluate,
    )
)
