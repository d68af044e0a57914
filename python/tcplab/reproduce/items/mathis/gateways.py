"""Mathis et al. 1997 Sec. 6 (Eq. 12-13): multiple congested gateways."""

from __future__ import annotations

import tomllib

from tcplab.reproduce.core import Check, Context, Item, Job, Outcome, pct, register, rel, scenario_text
from tcplab.reproduce.items.mathis.table4 import PAPER

GW = "mathis/multiple-gateways.toml"
DELAY_KEYS = ("network.parking_lot.congested.delay", "network.parking_lot.between.delay")
QUEUE = "network.parking_lot.congested.queue"
#: The delay of every inter-gateway link, which Sec. 6 leaves open (its network is Floyd's, whose
#: delays and rates the extracted text does not give): from links so short that the RED queues'
#: delay is most of every round trip (Eq. 13's case) to links so long that propagation is (Eq.
#: 12's, with the propagation ratio 2n - 1). The scenario file's 20 ms is one of them.
DELAYS = (0.002, 0.005, 0.020, 0.050, 0.100, 0.200)
#: The readings adopted for each equation: the longest-but-one delay for Eq. 12 (propagation
#: dominates the round trips) and the shortest for Eq. 13 (queueing does).
EQ12_DELAY, EQ13_DELAY = 0.100, 0.002
#: Eq. 13 read literally as overbuffered drop-tail gateways, at the shortest delay: these limits.
DROPTAIL_LIMITS = (60, 200)
TOL = 0.15


def _sets(delay: float, droptail: int | None = None) -> dict:
    sets: dict = {k: f"{delay * 1e3:g}ms" for k in DELAY_KEYS}
    if droptail is not None:
        sets[f"{QUEUE}.discipline"] = "droptail"
        sets[f"{QUEUE}.limit"] = droptail
    return sets


def cases() -> list[tuple[float, int | None]]:
    return [(d, None) for d in DELAYS] + [(EQ13_DELAY, b) for b in DROPTAIL_LIMITS]


def _jobs(quick: bool) -> list[Job]:
    return [Job(GW, _sets(d, b)) for d, b in cases()]


def _access_delay() -> float:
    """The access links' one-way delay in seconds, from the scenario file."""
    from tcplab.units import parse_duration

    return parse_duration(tomllib.loads(scenario_text(GW))["network"]["parking_lot"]["access_delay"])


def _summary(flows: list[dict], delay: float, access: float) -> dict:
    from tcplab.models import gateways

    n = len(flows) - 1
    b0 = flows[0]["goodput_bps"]
    cross = sum(x["goodput_bps"] for x in flows[1:]) / n
    rtt0 = flows[0]["mean_rtt_s"]
    ratio = rtt0 / (sum(x["mean_rtt_s"] for x in flows[1:]) / n)
    prop0 = 2 * ((2 * n - 1) * delay + 2 * access)  # the through flow crosses 2n - 1 inter-gateway links
    return {
        "n": n,
        "through_bps": b0,
        "cross_bps": cross,
        "share": b0 / (b0 + cross),
        "ratio": ratio,
        "prop_share": prop0 / rtt0,
        "eq12": float(gateways.share_propagation(n)),
        "eq13": float(gateways.share_overbuffered(n)),
        "eq12_measured": float(gateways.bandwidth_share(n, ratio)),
        "timeouts": sum(x["timeouts"] for x in flows),
    }


def _ms(delays: list[float]) -> str:
    return ", ".join(f"{d * 1e3:g}" for d in delays) + " ms" if delays else "no delay"


def _label(delay: float, droptail: int | None) -> str:
    what = f"{delay * 1e3:g} ms, " + (f"drop-tail of {droptail} packets" if droptail else "RED")
    if droptail is None and delay == EQ12_DELAY:
        what += " (the item's for Eq. 12)"
    if droptail is None and delay == EQ13_DELAY:
        what += " (the item's for Eq. 13)"
    return what


def _evaluate(ctx: Context) -> Outcome:
    access = _access_delay()
    res = {case: _summary(ctx.rows(i).to_dicts(), case[0], access) for i, case in enumerate(cases())}
    e12, e13 = res[(EQ12_DELAY, None)], res[(EQ13_DELAY, None)]
    n = e12["n"]
    red = [res[(d, None)] for d in DELAYS]
    head = [
        "quantity",
        f"Eq. 12's case: {EQ12_DELAY * 1e3:g} ms links",
        f"Eq. 13's case: {EQ13_DELAY * 1e3:g} ms links",
    ]
    body = [
        ["through flow kb/s", f"{e12['through_bps'] / 1e3:.0f}", f"{e13['through_bps'] / 1e3:.0f}"],
        ["mean cross flow kb/s", f"{e12['cross_bps'] / 1e3:.0f}", f"{e13['cross_bps'] / 1e3:.0f}"],
        [
            "propagation's share of the through flow's RTT",
            f"{e12['prop_share']:.0%}",
            f"{e13['prop_share']:.0%}",
        ],
        [
            "RTT ratio through / cross",
            f"{e12['ratio']:.2f} (2n - 1 = {2 * n - 1})",
            f"{e13['ratio']:.2f} (n = {n})",
        ],
        ["B0 / (B0 + Bi)", f"{e12['share']:.3f}", f"{e13['share']:.3f}"],
        ["the equation", f"Eq. 12: {e12['eq12']:.3f}", f"Eq. 13: {e13['eq13']:.3f}"],
        ["difference", pct(rel(e12["share"], e12["eq12"])), pct(rel(e13["share"], e13["eq13"]))],
    ]
    open_head = [
        "inter-gateway links",
        "propagation's share of the through RTT",
        "RTT ratio (2n - 1 = 5; n = 3)",
        "B0 / (B0 + Bi)",
        f"against Eq. 12 ({e12['eq12']:.3f})",
        f"against Eq. 13 ({e12['eq13']:.3f})",
        "Eq. 12 with the measured ratio",
        "timeouts",
    ]
    open_body = [
        [
            _label(d, b),
            f"{r['prop_share']:.0%}",
            f"{r['ratio']:.2f}",
            f"{r['share']:.3f}",
            pct(rel(r["share"], r["eq12"])),
            pct(rel(r["share"], r["eq13"])),
            f"{r['eq12_measured']:.3f} ({pct(rel(r['share'], r['eq12_measured']))})",
            str(r["timeouts"]),
        ]
        for (d, b), r in res.items()
    ]
    worst_meas = max(red, key=lambda r: abs(rel(r["share"], r["eq12_measured"])))
    checks = [
        Check(
            f"Eq. 12 as the paper states it (propagation RTTs, ratio 2n - 1), {EQ12_DELAY * 1e3:g} ms links: "
            "the through flow's share",
            round(e12["share"], 3),
            f"within {TOL:.0%} of {e12['eq12']:.3f}",
            abs(rel(e12["share"], e12["eq12"])) <= TOL,
        ),
        Check(
            f"Eq. 13 (RTTs dominated by queueing, ratio n), {EQ13_DELAY * 1e3:g} ms links: the through flow's share",
            round(e13["share"], 3),
            f"within {TOL:.0%} of {e13['eq13']:.3f}",
            abs(rel(e13["share"], e13["eq13"])) <= TOL,
        ),
        Check(
            "the through flow gets less than a cross flow, every delay with RED (largest share)",
            round(max(r["share"] for r in red), 3),
            "below 0.5",
            all(r["share"] < 0.5 for r in red),
        ),
        Check(
            "Eq. 12's general form, 1/(1 + sqrt(n) RTT0/RTTi) with the measured RTT ratio, every delay with RED: "
            "worst",
            pct(rel(worst_meas["share"], worst_meas["eq12_measured"])),
            f"within {TOL:.0%}",
            all(abs(rel(r["share"], r["eq12_measured"])) <= TOL for r in red),
            paper=False,
        ),
    ]
    dts = [res[(EQ13_DELAY, b)] for b in DROPTAIL_LIMITS]
    within = {
        eq: [d for d, r in zip(DELAYS, red, strict=True) if abs(rel(r["share"], r[eq])) <= TOL]
        for eq in ("eq12", "eq13")
    }
    explanation = (
        f"Sec. 6 does not give the network's delays (Floyd's, of which the extracted text keeps n = {n} congested "
        "gateways), and they decide which of its two equations applies: Eq. 12's ratio 2n - 1 is that of "
        "propagation round trips, Eq. 13's n that of round trips made of the congested queues' delay. The item "
        "runs every inter-gateway link at "
        + ", ".join(f"{d * 1e3:g}" for d in DELAYS)
        + " ms (the table of the set-ups the paper leaves open) and checks each equation where its premise holds: "
        f"at {EQ12_DELAY * 1e3:g} ms propagation is {e12['prop_share']:.0%} of the through flow's round trip, the "
        f"RTT ratio is {e12['ratio']:.2f} and the share {e12['share']:.3f} is {pct(rel(e12['share'], e12['eq12']))} "
        f"from Eq. 12's {e12['eq12']:.3f}; at {EQ13_DELAY * 1e3:g} ms it is {e13['prop_share']:.0%}, the ratio "
        f"{e13['ratio']:.2f} and the share {e13['share']:.3f} is {pct(rel(e13['share'], e13['eq13']))} from Eq. 13's "
        f"{e13['eq13']:.3f}. Within {TOL:.0%}, Eq. 12 holds at {_ms(within['eq12'])} and Eq. 13 at "
        f"{_ms(within['eq13'])}; the general form with the measured ratio holds at every delay (worst "
        f"{pct(rel(worst_meas['share'], worst_meas['eq12_measured']))}). Drop-tail gateways at "
        f"{EQ13_DELAY * 1e3:g} ms give shares of "
        + " and ".join(f"{r['share']:.3f}" for r in dts)
        + f" with {' and '.join(str(b) for b in DROPTAIL_LIMITS)} packets of buffer (Eq. 13: {e13['eq13']:.3f}) "
        "and " + " and ".join(str(r["timeouts"]) for r in dts) + " timeouts (RED at the same delay: "
        f"{e13['timeouts']}); the checks use RED, whose drops are the random ones, with the same p at every "
        "gateway, that the equations assume. Reno flows, one seed."
    )
    notes = (
        f"Parking lot after Floyd 1991: n = {n} congested 1.5 Mbit/s links with RED (60 packets), one through "
        "flow and one cross flow per congested link, Reno, 960-byte segments, 250 s measured. Every "
        "inter-gateway link, congested or not, has the same delay (`--set "
        f"{DELAY_KEYS[0]}=... --set {DELAY_KEYS[1]}=...`): {EQ12_DELAY * 1e3:g} ms for Eq. 12, "
        f"{EQ13_DELAY * 1e3:g} ms for Eq. 13 (the scenario file has 20 ms). Propagation's share: the through "
        "flow's propagation round trip over its mean RTT."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        notes=notes,
        extra=[
            ("The link delays the paper leaves open (and Eq. 13 read as drop-tail)", [open_head] + open_body)
        ],
        numbers={
            "eq12_case": e12,
            "eq13_case": e13,
            "by_delay": {f"{d * 1e3:g}ms": res[(d, None)]["share"] for d in DELAYS},
        },
    )


register(
    Item(
        "mathis-eq12",
        PAPER,
        "Sec. 6, Eq. 12-13",
        "multiple congested gateways",
        "A flow crossing n congested gateways, each shared with a one-hop cross flow: its share of the bandwidth "
        "B0/(B0+Bi) = 1/(1 + sqrt(n) RTT0/RTTi) follows from the model when each gateway drops with the same p "
        "(Eq. 12; Eq. 13 for RTTs dominated by queueing).",
        (GW,),
        _jobs,
        _evaluate,
    )
)
