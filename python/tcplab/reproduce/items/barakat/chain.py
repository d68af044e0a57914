"""Barakat & Altman 1999, Fig. 4: a chain of n nodes against the two-node and one-node models."""

from __future__ import annotations

from tcplab.reproduce.core import Check, Context, Item, Job, Outcome, pct, register, rel
from tcplab.reproduce.items.barakat.shared import KINDS, MU, NS, PAPER, SIZE, T, chain


def _paths(n: int):
    from tcplab.models import multibottleneck as mb

    rates = list(mb.uniform_rates(MU, n))
    mu_p, b_p = mb.equivalent_node(MU, rates, [17] * n)
    return (
        {
            "full": [(r, 17) for r in rates] + [(MU, 20)],
            "two": [(mu_p, max(1, round(b_p))), (MU, 20)],
            "one": [(MU, 20)],
        },
        rates,
        mu_p,
        b_p,
    )


def _jobs(quick: bool) -> list[Job]:
    return [Job(chain(_paths(n)[0][k], "3000s")) for n in NS for k in KINDS]


def _evaluate(ctx: Context) -> Outcome:
    from tcplab.models import multibottleneck as mb

    head = [
        "n",
        "Eq. 1 first overflow",
        "full chain kb/s",
        "two-node sim kb/s (B')",
        "one-node sim kb/s",
        "two-node model kb/s",
        "one-node model kb/s",
        "full vs two-node",
        "model vs full",
    ]
    body, full, two, one, model = [], {}, {}, {}, {}
    i = 0
    for n in NS:
        paths, rates, mu_p, b_p = _paths(n)
        s_i, s = mb.overflow_bursts(MU, rates, [17] * n, 20)
        where = f"node {int(min(range(n), key=lambda j: s_i[j])) + 1}" if min(s_i) < s else "bottleneck"
        sim = []
        for _ in KINDS:
            # In 512-byte packets, as the model counts them (goodput counts the 472 payload bytes).
            sim.append(ctx.rows(i)["goodput_bps"][0] * SIZE / (SIZE - 40) / 1e3)
            i += 1
        full[n], two[n], one[n] = sim
        model[n] = float(mb.throughput(MU, T, 20, mu_p, b_p, SIZE)) / 1e3
        m_one = float(mb.throughput(MU, T, 20, 2 * MU * (1 - 1e-12), 1e12, SIZE)) / 1e3
        body.append(
            [
                str(n),
                where,
                f"{sim[0]:.0f}",
                f"{sim[1]:.0f} ({b_p:.1f})",
                f"{sim[2]:.0f}",
                f"{model[n]:.0f}",
                f"{m_one:.0f}",
                pct(rel(sim[0], sim[1])),
                pct(rel(model[n], sim[0])),
            ]
        )
    worst = max(abs(rel(full[n], two[n])) for n in NS)
    low = [full[n] for n in NS if n <= 4]
    high = [full[n] for n in NS if n >= 5]
    rise = min(high) / max(low) - 1
    checks = [
        Check(
            "full chain against the equivalent two-node model (Eq. 2), worst n",
            pct(worst),
            "within 2%",
            worst <= 0.02,
        ),
        Check(
            "throughput rises when the double slow start disappears ('five nodes and more'): the lowest for "
            "n >= 5 over the highest for n <= 4",
            pct(rise),
            "at least +5%",
            rise >= 0.05,
        ),
        Check(
            "the one-node model is below the full chain for every n",
            f"{sum(one[n] < full[n] for n in NS)} of {len(NS)}",
            "every n",
            all(one[n] < full[n] for n in NS),
        ),
    ]
    errs = [rel(model[n], full[n]) for n in NS]
    up = next(
        (n for n in NS if min(full[m] for m in NS if m >= n) > 1.05 * max(full[m] for m in NS if m <= 3)),
        None,
    )
    explanation = (
        "As in Fig. 4, the full chain and its equivalent two-node model agree, the throughput rises once the "
        'intermediate nodes take the first slow-start loss (the paper: "five nodes and more"; here '
        + (
            f"from n = {up} on: more than 5% above every n <= 3"
            if up
            else "no n from which on it stays 5% above n <= 3"
        )
        + "), and feeding the "
        f"bottleneck directly underestimates the throughput. The analytic Sec. 6 throughput is {pct(min(errs))} to "
        f"{pct(max(errs))} from the full-chain simulation: it ignores the timeouts Tahoe takes when a "
        "retransmission is lost (their Sec. 7). Eq. 1 names where the first slow-start overflow happens; the "
        "simulation's first drop is at an intermediate node wherever Eq. 1 names one, but for n = 2, 3 also where "
        "Eq. 1 names the bottleneck: S_i counts the packets entering node i and decides whether a node can "
        "overflow, not which overflows first (every intermediate queue fills at 17(n+1)/mu, before the "
        "bottleneck's 20(n+1)/mu); `barakat_first_slow_start_drop_is_where_the_queues_say` in "
        "crates/tcplab-sim/tests/networks.rs asserts this rule for n = 1..8. The paper's figure is a plot without a table, so the check is on its shape, "
        "not on its values."
    )
    notes = (
        "T = 560 ms, mu = 1.5 Mbit/s, B = 20, n nodes before it with mu_i = 2 mu - i mu/(n+1) and B_i = 17, "
        "512-byte packets, Tahoe, an ACK per packet, 3000 s (first 100 s warm-up), seed 1; throughputs in "
        "kb/s of whole 512-byte packets, as the model counts them. Two-node: the "
        "equivalent node of Eq. 2 (mu' = mu_n, B' = 8.5 n (n+3)/(n+1), rounded); one-node: the bottleneck "
        "alone. Models: `tcplab.models.multibottleneck.throughput`. The scenario file is the n = 4 chain; "
        "the item generates the others (`tcplab.reproduce.items.barakat.chain`)."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        notes=notes,
        numbers={"full": full, "two_node": two, "one_node": one, "model": model},
    )


register(
    Item(
        "barakat-fig4",
        PAPER,
        "Fig 4",
        "throughput through a chain of n nodes",
        "TCP throughput against the number n of nodes before the bottleneck, simulated and from the equivalent "
        "two-node model: when n is large enough the first slow-start loss moves to an intermediate node, the double "
        "slow start disappears and the throughput rises; the single-node model underestimates it.",
        ("barakat/barakat-chain.toml",),
        _jobs,
        _evaluate,
    )
)
