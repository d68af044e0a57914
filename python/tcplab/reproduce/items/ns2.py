"""tcplab against ns-2: the tcpVariants reference (event for event) and RED on a dumbbell (issue #18)."""

from __future__ import annotations

import math

from tcplab.reproduce.core import Check, Context, Item, Job, Outcome, register

PAPER = "ns2"


def _variants_evaluate(ctx: Context) -> Outcome:
    from tcplab.validation import ns2ref

    comps = [ns2ref.compare(t) for t in ns2ref.tests()]
    rows = [c.row() for c in comps]
    head = [
        "test",
        "events",
        "data + at r1 (ns-2)",
        "drops (ns-2)",
        "retransmissions (ns-2)",
        "sender variables",
        "summary.csv row",
    ]
    body = [
        [
            r["test"],
            r["status"],
            f"{r['+'][0]} ({r['+'][1]})",
            f"{r['drops'][0]} ({r['drops'][1]})",
            f"{r['rtx'][0]} ({r['rtx'][1]})",
            r["vars"] if r["vars"] == "same" else "DIFF",
            r["summary"] if r["summary"] in ("same", "-") else "DIFF",
        ]
        for r in rows
    ]
    n = len(rows)
    exact = sum(r["status"] == "exact" for r in rows)
    vars_same = sum(r["vars"] == "same" for r in rows)
    summ = sum(r["summary"] == "same" for r in rows)
    checks = [
        Check(
            "tests whose bottleneck events (enqueue, dequeue, drop, ACK send times) are identical to ns-2's",
            f"{exact} of {n}",
            "every test, to the microsecond",
            exact == n and n == 58,
        ),
        Check(
            "tests whose sender variables (cwnd_, ssthresh_, rtt_, ...) change identically",
            f"{vars_same} of {n}",
            "every test",
            vars_same == n,
        ),
        Check(
            "tests whose summary.csv row (drops, retransmissions, RTOs, first cut) is identical",
            f"{summ} of {n}",
            "every test",
            summ == n,
        ),
    ]
    notes = (
        "The 58 tests of ns-2's `tcpVariants` suite (one to four drops in a window, and two many-drops cases, for "
        "Tahoe, Reno, NewReno, SACK, FACK and SACK with rate halving, with and without limited transmit), "
        'rebuilt as tcplab scenarios with `profile = "ns2"` and compared with the reference traces shipped '
        "with tcplab (`tcplab/validation/data/ns2-tcpVariants`). `python -m tcplab.ns2ref --summary` prints "
        "the reference README's per-test table from tcplab's runs."
    )
    return Outcome([head] + body, checks, notes=notes, numbers={"rows": rows})


register(
    Item(
        "ns2-tcpvariants",
        PAPER,
        "ns-2 tcpVariants",
        "the ns2 profile against ns-2, event for event",
        "Fall & Floyd's 1996 comparison of Tahoe, Reno, NewReno and SACK with one to four drops in a window, as "
        "ns-2's validation suite runs it: the simulator the papers' results come from.",
        (),
        None,
        _variants_evaluate,
    )
)


# ---- RED dumbbell --------------------------------------------------------------------------------------


def _red_jobs(quick: bool) -> list[Job]:
    from tcplab.validation import red

    return [
        Job(red.scenario(n, d, g, s, snd))
        for n, d, g in red.cells()
        for s in red.SEEDS
        for snd in red.SENDERS
    ]


def _red_evaluate(ctx: Context) -> Outcome:
    from tcplab.validation import red

    ns2 = red.load_ns2()
    tl = []
    i = 0
    for n, d, g in red.cells():
        for s in red.SEEDS:
            for snd in red.SENDERS:
                df = ctx.rows(i)
                avg = (
                    df["link.bottleneck.fwd.mean_red_avg"][0]
                    if "link.bottleneck.fwd.mean_red_avg" in df.columns
                    else None
                )
                tl.append(
                    {
                        "n": n,
                        "disc": d,
                        "gentle": g,
                        "seed": s,
                        "sender": snd,
                        "goodput": float(df["goodput_bps"].sum()),
                        "mean_queue": df["link.bottleneck.fwd.mean_queue_packets"][0],
                        "mean_avg": avg
                        if avg is not None and not (isinstance(avg, float) and math.isnan(avg))
                        else 0.0,
                        "drops": float(df["link.bottleneck.fwd.drops_queue"][0]),
                    }
                )
                i += 1
    text, missed = red.table(ns2, tl)
    rows = [
        [c.strip() for c in line.strip("|").split("|")]
        for line in text.splitlines()
        if not line.startswith("|---")
    ]
    # The ns2 profile (ns-2's own Sack1 agent on tcplab's RED) is the check of the queue.
    ns2_miss = [m for m in missed if " ns2: " in m]
    noise = []
    for m in ns2_miss:  # a drop count's miss within the seeds' own spread is stated, not hidden
        head, diff = m.rsplit(": ", 1)
        parts = head.split()
        n = int(parts[0][2:])
        metric = parts[-2]
        disc = "droptail" if "droptail" in head else "red"
        gentle = 1 if "gentle on" in head else 0
        ref = [r["drops"] for r in ns2 if (r["n"], r["disc"], r["gentle"]) == (n, disc, gentle)]
        mine = [
            r["drops"]
            for r in tl
            if (r["n"], r["disc"], r["gentle"], r["sender"]) == (n, disc, gentle, "ns2")
        ]
        if metric == "drops":
            se = _se_of_difference(ref, mine)
            ours, base = sum(mine) / len(mine), sum(ref) / len(ref)
            noise.append((m, abs(ours - base) <= NOISE_SE * se, ours, base, se))
        else:
            noise.append((m, False, math.nan, math.nan, math.nan))
    spread = []  # (the seeds' standard deviation of the drops over sqrt(N), cell), both simulators pooled
    for n, d, g in red.cells():
        ref = [r["drops"] for r in ns2 if (r["n"], r["disc"], r["gentle"]) == (n, d, g)]
        mine = [r["drops"] for r in tl if (r["n"], r["disc"], r["gentle"], r["sender"]) == (n, d, g, "ns2")]
        pooled = _se_of_difference(ref, mine) * math.sqrt(
            len(ref) / 2
        )  # equal sizes: sqrt((s1^2 + s2^2) / 2)
        name = f"N={n} " + ("droptail" if d == "droptail" else f"RED gentle {'on' if g else 'off'}")
        spread.append((pooled / math.sqrt(sum(ref) / len(ref)), name))
    (lo, lo_cell), (hi, _) = min(spread), max(spread)
    stalled = [r for r in tl if r["goodput"] <= 0]
    timers = [m for m in missed if " native-ns2-timers: " in m]
    checks = [
        Check(
            "ns2 profile: goodput, mean queue and mean RED average in every cell against ns-2 2.35 (means over "
            "seeds 1-3)",
            f"{sum(1 for m in ns2_miss if ' drops ' not in m)} misses",
            "within 5%",
            not any(" drops " not in m for m in ns2_miss),
        ),
        Check(
            "ns2 profile: drops in every cell",
            f"{len([m for m in ns2_miss if ' drops ' in m])} beyond 5%: "
            + (
                "; ".join(
                    f"{m} ({o:.0f} vs {b:.0f} drops, standard error {se:.1f})" for m, ok, o, b, se in noise
                )
                or "none"
            ),
            f"within 5%, or within {NOISE_SE:g} standard errors of the difference of the two means over seeds 1-3 "
            "(each simulator's own seed-to-seed spread)",
            all(n[1] for n in noise),
            paper=False,
        ),
        Check(
            "native sack with Sack1's timer settings, every metric and cell",
            f"{len(timers)} misses",
            "within 10%",
            not timers,
            paper=False,
        ),
        Check("runs with no goodput", len(stalled), "none", not stalled),
        Check(
            "every metric and cell against ns-2 2.35, both senders at their defaults",
            f"{len(missed)} misses",
            "within 5% (ns2 profile), 10% (native sack)",
            not missed,
        ),
    ]
    native = [m for m in missed if " native: " in m]
    explanation = (
        "Where the `ns2` profile misses the 5% target it is on a drop count: "
        + (
            "; ".join(
                f"{m.split(' ns2')[0]}: {o:.0f} against {b:.0f} drops, {abs(o - b) / se:.1f} standard errors"
                for m, _, o, b, se in noise
            )
            or "none"
        )
        + ". The standard error is Welch's, sqrt(s1^2/3 + s2^2/3) from the three seeds of each simulator: with "
        "about 4 degrees of freedom, 3 standard errors is a 96% two-sided interval, so the check fails a "
        "difference the seeds cannot explain. It replaces a Poisson allowance of 2 sqrt(N) drops, which is no "
        f"measure of this noise: the seeds' standard deviation is {lo:.2f} sqrt(N) to {hi:.2f} sqrt(N) across the "
        f"cells ({lo_cell} the smallest), so 2 sqrt(N) was up to {2 / lo:.0f} times the spread. The native `sack` sender at its defaults misses where its timer differs from ns-2's agent ("
        + (", ".join(native) or "nowhere")
        + "): RFC 6298's 1 s minimum RTO on a fine clock. With N = 32 each flow's share of the pipe is about two "
        "packets, most losses end in a timeout, and a flow that waits 1 s instead of 200 ms offers no packets "
        "meanwhile: fewer drops and a shorter queue for the same goodput. Given Sack1's settings (200 ms minimum "
        "RTO on a 10 ms Jacobson tick, IW 2, limited transmit; `NS2_TIMERS`) the same sender meets every target: "
        "the difference is the timer, not the queue or the SACK recovery. The two simulators draw start times from "
        "different streams, so cells are compared as means over the seeds."
    )
    notes = (
        "N = 2, 8, 32 SACK flows share a 10 Mbit/s, 20 ms bottleneck (drop-tail limit 100, or RED packet mode, "
        "min_th 5, max_th 15, max_p 0.1, w_q 0.002, gentle off and on), 100 s runs measured after 20 s, seeds "
        "1-3. The ns-2 column comes from `tcplab/validation/data/red_ns2.csv` (made by "
        "`python -m tcplab.validation.red --run-ns2` with Debian's ns-2 2.35). ** marks a miss of the target "
        "(ns2 profile 5%, native senders 10%). The quick form is the full form (81 short runs)."
    )
    return Outcome(rows, checks, explanation, notes=notes, numbers={"missed": missed})


#: The drop-count allowance, in standard errors of the difference of the two seed means.
NOISE_SE = 3.0


def _se_of_difference(a: list[float], b: list[float]) -> float:
    """Welch's standard error of mean(b) - mean(a) from the samples' own variances."""

    def var(x):
        m = sum(x) / len(x)
        return sum((v - m) ** 2 for v in x) / (len(x) - 1)

    return math.sqrt(var(a) / len(a) + var(b) / len(b))


register(
    Item(
        "ns2-red",
        PAPER,
        "RED dumbbell (issue #18)",
        "RED and drop-tail against ns-2 2.35",
        "Floyd's RED (queue/red.cc) with N long-lived SACK flows: goodput, mean queue, mean RED average and drops.",
        (),
        _red_jobs,
        _red_evaluate,
    )
)
