"""The models the CLI knows: their parameters (with unit kinds) and what they print.

Each :class:`Model` maps parsed SI inputs to a list of :class:`Row` results. Parameter names
are the CLI flags with ``-`` for ``_`` (``packet_loss`` is ``--packet-loss``); ``aliases`` maps
the library's argument names (``p``, ``rtt``...) to flags so domain errors name the flag.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tcplab import units
from tcplab.models import cubic, gateways, jacobson, mathis, multibottleneck, newreno, pftk

REQUIRED = object()


_EXAMPLE = {"duration": "100ms or 0.1s", "rate": "10Mbit/s"}


def _unit_required(text: str, kind: str) -> None:
    """On the command line a duration or a rate takes its unit: a bare `--rtt 100` (100 s, not
    100 ms) or `--mu 1.5` (1.5 bit/s) is the slip this refuses."""
    try:
        float(text)
    except ValueError:
        return
    raise ValueError(f"{text!r} has no unit (write the {kind} with its unit, e.g. {_EXAMPLE[kind]})")


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # duration | rate | size | probability | number | integer | flag | durations
    help: str
    default: Any = REQUIRED  # REQUIRED, None (optional) or an SI value

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def describe_default(self) -> str:
        if self.kind == "flag":
            return "flag"
        if self.default is REQUIRED:
            return "required"
        if self.default is None:
            return "optional"
        return f"{self.default:g}" if isinstance(self.default, float) else str(self.default)

    def parse(self, text: str) -> Any:
        if self.kind == "size":
            return units.parse_size(text)
        if self.kind in ("duration", "rate"):
            _unit_required(text, self.kind)
        if self.kind in ("duration", "rate", "probability"):
            return units.parse_quantity(text, self.kind)
        if self.kind == "durations":
            items = [t for t in text.split(",") if t.strip()]
            if not items:
                raise ValueError(f"{text!r}: expected a comma-separated list of durations")
            for t in items:
                _unit_required(t, "duration")
            return [units.parse_duration(t) for t in items]
        if self.kind in ("number", "integer"):
            try:
                value = float(text)
            except ValueError:
                raise ValueError(f"{text!r} is not a number") from None
            if not math.isfinite(value):
                raise ValueError(f"{text!r} is not a finite number")
            if self.kind == "integer":
                if value != int(value):
                    raise ValueError(f"{text!r} is not an integer")
                return int(value)
            return value
        raise ValueError(f"{self.flag} takes no value")


@dataclass(frozen=True)
class Row:
    key: str  # machine name (JSON)
    label: str  # human label
    value: Any  # float, int, bool or str
    unit: str  # '', 'bit/s', 's', 'packets', 'segments', ...
    source: str  # equation / section


@dataclass(frozen=True)
class Model:
    name: str
    summary: str
    source: str
    params: tuple[Param, ...]
    compute: Callable[[dict[str, Any]], list[Row]]
    aliases: dict[str, str] = field(default_factory=dict)
    #: The model's stated domain: from the inputs and the computed outputs, what makes this
    #: answer one the model does not claim (empty when none).
    domain: Callable[[dict[str, Any], dict[str, Any]], list[str]] = lambda a, out: []

    def outside_domain(self, inputs: dict[str, Any], rows: list[Row]) -> list[str]:
        """Warnings naming the model's stated domain where these inputs leave it."""
        return self.domain(inputs, {r.key: r.value for r in rows})

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None


# --------------------------------------------------------------------------------- mathis
def _mathis(a: dict[str, Any]) -> list[Row]:
    k = a["k"]
    if a["inverse"]:
        if a["rate"] is None:
            raise ValueError("--rate: required with --inverse (the target rate)")
        c = 1.0 if a["c"] is None else a["c"]
        p = mathis.loss_for_rate(mss=a["mss"], rtt=a["rtt"], rate=a["rate"], c=c, k=k)
        return [
            Row("c", "constant C", c, "", "Eq. 14 uses C = 1"),
            Row("max_loss", "largest loss rate p", p, "", "Eq. 14"),
            Row(
                "average_window",
                "average window at that p",
                mathis.average_window(p, c, k),
                "packets",
                "Eq. 3/5",
            ),
        ]
    if a["loss"] is None:
        raise ValueError("--loss: required (or use --inverse with --rate)")
    c = mathis.C_PERIODIC_PER_SEGMENT_ACK if a["c"] is None else a["c"]
    p = a["loss"]
    return [
        Row("c", "constant C", c, "", "Table 1"),
        Row(
            "throughput",
            "throughput",
            mathis.throughput(mss=a["mss"], rtt=a["rtt"], p=p, c=c, k=k),
            "bit/s",
            "Eq. 3/5",
        ),
        Row("average_window", "average window C p^k", mathis.average_window(p, c, k), "packets", "Eq. 3/5"),
        Row("peak_window", "peak window sqrt(8/3p)", mathis.peak_window(p), "packets", "Eq. 1"),
        Row(
            "equilibrium_packets",
            "packets to equilibrium (C=1)",
            mathis.equilibrium_packets(p),
            "packets",
            "App. B",
        ),
        Row(
            "equilibrium_round_trips",
            "round trips to equilibrium (C=1)",
            mathis.equilibrium_round_trips(p),
            "RTT",
            "App. B (derived)",
        ),
    ]


def _fast_retransmit_needs(w: float, name: str, paper: str) -> list[str]:
    if w < 4:
        return [
            f"{name} = {w:.3g} packets is below 4: three duplicate ACKs cannot signal a loss, so losses "
            f"end in timeouts, outside this model's domain ({paper})"
        ]
    return []


def _mathis_domain(a: dict[str, Any], out: dict[str, Any]) -> list[str]:
    if "peak_window" not in out:  # --inverse
        w = mathis.peak_window(out["max_loss"])
        return _fast_retransmit_needs(
            w,
            "the peak window at that p",
            "Mathis et al. 1997 Sec. 2-4: periodic loss recovered by fast retransmit; use pftk for timeouts",
        )
    return _fast_retransmit_needs(
        out["peak_window"],
        "the peak window sqrt(8/3p)",
        "Mathis et al. 1997 Sec. 2-4: periodic loss recovered by fast retransmit; use pftk for timeouts",
    )


# ----------------------------------------------------------------------------------- pftk
def _rto(a: dict[str, Any]) -> float:
    return 3 * a["rtt"] if a["rto"] is None else a["rto"]


def _pftk(a: dict[str, Any]) -> list[Row]:
    wmax = math.inf if a["wmax"] is None else a["wmax"]
    rto = _rto(a)
    kw = dict(mss=a["mss"], rtt=a["rtt"], p=a["loss"], b=a["b"], wmax=wmax)
    return [
        Row("rto", "RTO used", rto, "s", "default 3 RTT"),
        Row("simple", "PFTK simple", pftk.simple(**kw), "bit/s", "Parvez Table I"),
        Row("full", "PFTK full (timeouts)", pftk.full(rto=rto, **kw), "bit/s", "Parvez Table I"),
    ]


# -------------------------------------------------------------------------------- newreno
def _newreno(a: dict[str, Any]) -> list[Row]:
    p, rtt, mss, rto = a["loss"], a["rtt"], a["mss"], _rto(a)
    rows = []
    if a["packet_loss"] is not None:
        if a["q"] is not None:
            raise ValueError("--q: give either --q or --packet-loss, not both")
        q = newreno.q_from_packet_loss(p, a["packet_loss"])
        rows.append(Row("q", "q from packet loss rate", q, "", "Eq. 30"))
    else:
        q = p if a["q"] is None else a["q"]
        rows.append(Row("q", "q (default q = p)", q, "", "loss model"))
    w = newreno.window(p, q)
    rows += [
        Row("rto", "RTO used", rto, "s", "default 3 RTT"),
        Row("window", "peak window W", w, "segments", "Eq. 14"),
        Row("s_cafr", "segments per CAFR period", newreno.cafr_segments(p, q), "segments", "Eq. 7"),
        Row("d_cafr", "CAFR period duration", newreno.cafr_duration(rtt, p, q), "s", "Eq. 18"),
        Row("p_to", "timeout probability", newreno.timeout_probability(p, q), "", "Eq. 24"),
        Row(
            "d_to", "timeout duration", newreno.timeout_duration(rto, p) if p < 1 else math.inf, "s", "Eq. 26"
        ),
        Row("noto", "NoTO throughput", newreno.throughput_noto(mss, rtt, p, q), "bit/s", "Eq. 19"),
        Row("full", "Full throughput", newreno.throughput_full(mss, rtt, p, q, rto), "bit/s", "Eq. 29"),
    ]
    return rows


def _newreno_domain(a: dict[str, Any], out: dict[str, Any]) -> list[str]:
    notes = _fast_retransmit_needs(
        out["window"],
        "the peak window W",
        "Parvez et al. 2010 Sec. III-A: a loss event of m <= W - 3 losses enters fast recovery",
    )
    if out["q"] > 0.1:
        notes.append(
            f"q = {out['q']:.3g} is not small: Parvez et al. 2010 approximate with q small "
            "(Sec. III-A, footnote 2), so these values are extrapolated"
        )
    if out["full"] > out["noto"] * (1 + 1e-9):
        notes.append(
            "Full (with timeouts) exceeds NoTO (without): a sign that the inputs are outside the "
            "model's domain (Parvez et al. 2010: small p and q)"
        )
    return notes


# ---------------------------------------------------------------------------------- cubic
def _cubic(a: dict[str, Any]) -> list[Row]:
    mss, rtt, p, c, beta = a["mss"], a["rtt"], a["loss"], a["c"], a["beta"]
    w_cubic = cubic.average_window(rtt, p, c, beta)
    w_est = cubic.reno_friendly_window(p, beta)
    return [
        Row(
            "w_max",
            "window at each loss W_max",
            cubic.w_max(rtt, p, c, beta),
            "segments",
            "Sec. 5.1 (derived)",
        ),
        Row("k", "time back to W_max K", cubic.k_seconds(rtt, p, c, beta), "s", "Figure 2"),
        Row("avg_w_cubic", "average window, cubic curve", w_cubic, "segments", "Sec. 5.1"),
        Row("avg_w_est", "average window, Reno-friendly", w_est, "segments", "Sec. 5.1"),
        Row("region", "region in force", "cubic" if w_cubic > w_est else "Reno-friendly", "", "Sec. 4.2-4.3"),
        Row("throughput", "CUBIC throughput", cubic.throughput(mss, rtt, p, c, beta), "bit/s", "Sec. 5.1"),
        Row(
            "reno",
            "Reno (Mathis, C = sqrt(3/2))",
            mathis.throughput(mss=mss, rtt=rtt, p=p),
            "bit/s",
            "Mathis Eq. 3",
        ),
    ]


def _cubic_domain(a: dict[str, Any], out: dict[str, Any]) -> list[str]:
    # The peak window of the region in force: W_max on the curve, or Reno's 2 avg / (1 + beta).
    peak = max(out["w_max"], 2 * out["avg_w_est"] / (1 + a["beta"]))
    return _fast_retransmit_needs(
        a["beta"] * peak,
        "the window after a loss",
        "RFC 9438 Sec. 5: periodic losses recovered by fast retransmit",
    )


# ------------------------------------------------------------------------ multibottleneck
def _multibottleneck(a: dict[str, Any]) -> list[Row]:
    mu, t, b, mup, bp, size = a["mu"], a["rtt"], a["b"], a["mu_prime"], a["b_prime"], a["packet_size"]
    pipe = multibottleneck.pipe_size(mu, t, size)
    s, s_prime = multibottleneck.two_node_bursts(mu, mup, b, bp)
    s_b = min(s, s_prime)
    w_b = multibottleneck.loss_window(s_b)
    w_th = (pipe + b) / 2
    rows = [
        Row("pipe", "pipe size mu T", pipe, "packets", "Sec. 3"),
        Row("s", "burst overflowing B", s, "packets", "Eq. 3"),
        Row("s_prime", "burst overflowing B'", s_prime, "packets", "Eq. 2"),
        Row("s_b", "S_B = min(S, S')", s_b, "packets", "Sec. 4"),
        Row("n_b", "loss mini-cycle n_B", int(multibottleneck.loss_minicycle(s_b)), "", "Sec. 4"),
        Row("w_b", "loss window W_B", w_b, "packets", "Sec. 4"),
        Row("w_th", "threshold W_th = (mu T + B)/2", w_th, "packets", "Sec. 4"),
        Row(
            "double_slow_start",
            "double slow start",
            multibottleneck.double_slow_start(w_b, w_th),
            "",
            "Sec. 4",
        ),
        Row(
            "throughput", "throughput", multibottleneck.throughput(mu, t, b, mup, bp, size), "bit/s", "Sec. 6"
        ),
        Row(
            "min_b",
            "B needed (> mu T / 3)",
            multibottleneck.min_bottleneck_buffer(mu, t, size),
            "packets",
            "Eq. 4",
        ),
        Row(
            "min_b_prime",
            "B' needed (> (mu T + B)/4)",
            multibottleneck.min_equivalent_buffer(mu, t, b, size),
            "packets",
            "Eq. 4",
        ),
        Row(
            "no_slow_start_loss",
            "no slow-start loss for any mu'",
            multibottleneck.no_slow_start_loss(mu, t, b, bp, size),
            "",
            "Eq. 4",
        ),
    ]
    for policy in ("drop-tail", "random-drop", "drop-from-front"):
        rows.append(
            Row(
                f"w_s_{policy.replace('-', '_')}",
                f"W_S, {policy}",
                multibottleneck.start_window(w_th, s_b, policy),
                "packets",
                "Sec. 7.2",
            )
        )
    return rows


# ------------------------------------------------------------------------------- gateways
def _gateways(a: dict[str, Any]) -> list[Row]:
    n = a["n"]
    rows = [
        Row(
            "share_eq12",
            "B0/B, propagation RTTs",
            gateways.share_propagation(n),
            "",
            "Eq. 12 (reconstructed)",
        ),
        Row("share_eq13", "B0/B, overbuffered drop-tail", gateways.share_overbuffered(n), "", "Eq. 13"),
    ]
    if a["rtt_ratio"] is not None:
        rows.append(
            Row("share", "B0/B for given r0/r", gateways.bandwidth_share(n, a["rtt_ratio"]), "", "Sec. 6")
        )
    return rows


# ------------------------------------------------------------------------------- jacobson
def _jacobson(a: dict[str, Any]) -> list[Row]:
    rows = [
        Row(
            "degradation",
            "throughput factor (1+2pw)^-1",
            jacobson.damage_degradation(a["loss"], a["window"]),
            "",
            "footnote 6",
        ),
        Row(
            "equilibration",
            "equilibration w^2/3",
            jacobson.equilibration_packets(a["window"]),
            "packets",
            "Sec. 3",
        ),
        Row(
            "sensitivity",
            "loss sensitivity threshold 3/w^2",
            jacobson.loss_sensitivity_threshold(a["window"]),
            "",
            "Sec. 3",
        ),
    ]
    if a["samples"] is not None:
        ticks, rto = jacobson.rto_series_seconds(a["samples"], a["tick"])
        rows.append(Row("rto", f"RTO after {len(ticks)} samples", float(rto[-1]), "s", "App. A"))
    return rows


_MSS = Param("mss", "size", "segment size (bytes, e.g. 1460 or 1.5KB)", 1460)
_RTT = Param("rtt", "duration", "round-trip time (e.g. 100ms)")
_LOSS = Param("loss", "probability", "loss (event) rate p (e.g. 1% or 0.01)")
_RTO = Param("rto", "duration", "retransmission timeout (default 3 x rtt)", None)

MODELS: dict[str, Model] = {
    m.name: m
    for m in (
        Model(
            "mathis",
            "square-root model BW = MSS/RTT C p^k; --inverse gives the largest p for a rate",
            "Mathis et al. 1997, Eq. 1-5, 14, Table 1, App. B",
            (
                _MSS,
                _RTT,
                Param("loss", "probability", "congestion signal rate p (forward model)", None),
                Param("c", "number", "constant C (default sqrt(3/2); 1 with --inverse)", None),
                Param("k", "number", "exponent k (Eq. 5)", -0.5),
                Param("rate", "rate", "target rate for --inverse (e.g. 1Mbit/s)", None),
                Param("inverse", "flag", "solve Eq. 14 for the largest loss rate"),
            ),
            _mathis,
            {"p": "loss"},
            _mathis_domain,
        ),
        Model(
            "pftk",
            "PFTK Reno model, simple and full (with timeouts)",
            "Padhye et al. 1998 via Parvez et al. Table I",
            (
                _MSS,
                _RTT,
                _LOSS,
                _RTO,
                Param("b", "number", "segments per ACK", 1.0),
                Param("wmax", "size", "receiver window (bytes)", None),
            ),
            _pftk,
            {"p": "loss"},
        ),
        Model(
            "newreno",
            "NewReno NoTO and Full models with the two-parameter loss model (p, q)",
            "Parvez, Mahanti & Williamson 2010, Eq. 4-30",
            (
                _MSS,
                _RTT,
                _LOSS,
                Param("q", "probability", "loss rate inside a loss event (default q = p; small q)", None),
                Param("packet_loss", "probability", "measured packet loss rate: q from Eq. 30", None),
                _RTO,
            ),
            _newreno,
            {"p": "loss"},
            _newreno_domain,
        ),
        Model(
            "cubic",
            "CUBIC's response function (p^-3/4 where the cubic curve rules) beside Reno's",
            "RFC 9438 Sec. 4-5",
            (
                _MSS,
                _RTT,
                _LOSS,
                Param("c", "number", "C of W(t) = C (t - K)^3 + W_max, segments/s^3", 0.4),
                Param("beta", "number", "beta_cubic, the decrease factor", 0.7),
            ),
            _cubic,
            {"p": "loss"},
            _cubic_domain,
        ),
        Model(
            "multibottleneck",
            "slow start through a two-node path (equivalent node mu', B' and bottleneck mu, B)",
            "Barakat & Altman 1999, Eq. 1-5, Sec. 4-7",
            (
                Param("mu", "rate", "main bottleneck rate (e.g. 1.5Mbit/s)"),
                Param("rtt", "duration", "minimum round-trip time T"),
                Param("b", "number", "bottleneck buffer B (packets)"),
                Param("mu_prime", "rate", "equivalent node rate mu', in (mu, 2 mu)"),
                Param("b_prime", "number", "equivalent node buffer B' (packets)"),
                Param("packet_size", "size", "packet size (bytes)", 512),
            ),
            _multibottleneck,
            {"t": "rtt", "s_b": "b", "w_b": "b", "packet_size": "packet_size"},
        ),
        Model(
            "gateways",
            "share of a connection crossing n congested gateways",
            "Mathis et al. 1997 Sec. 6, Eq. 12-13",
            (
                Param("n", "integer", "number of congested gateways"),
                Param("rtt_ratio", "number", "r0/r for the general form", None),
            ),
            _gateways,
        ),
        Model(
            "jacobson",
            "damage-loss degradation, window equilibration, App. A RTO estimator",
            "Jacobson & Karels 1988, footnote 6, App. A",
            (
                Param("loss", "probability", "damage loss probability p"),
                Param("window", "number", "window w (packets)"),
                Param("samples", "durations", "RTT samples for the RTO estimator (e.g. 100ms,120ms)", None),
                Param("tick", "duration", "estimator clock tick", 0.5),
            ),
            _jacobson,
            {"p": "loss", "w": "window"},
        ),
    )
}


def _register_ecn_models() -> None:
    """The ECN models (dctcp, scalable, dualq) live in catalog_ecn.py, which builds them from
    this module's Model, Param and Row."""
    from tcplab.models import catalog_ecn

    for m in catalog_ecn.models():
        MODELS[m.name] = m


_register_ecn_models()


def run_model(name: str, given: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Runs a catalog model on `given` (its other parameters at their defaults): its results
    by key and the notes where the inputs leave its stated domain."""
    m = MODELS[name]
    inputs = {p.name: (None if p.default is REQUIRED else p.default) for p in m.params}
    if "inverse" in inputs:
        inputs["inverse"] = False
    inputs.update(given)
    rows = m.compute(inputs)
    return {r.key: r.value for r in rows}, [f"{name}: {n}" for n in m.outside_domain(inputs, rows)]
