"""Parvez et al.: the set-ups the papers leave open (Figs 9, 10, 12, 13 and Sec. V) and the measured
reasons that replaced Fig 12's "PFTK over the model above the band" and Fig 13's "Limited Transmit
still off" checks: synthetic rows fed to the items' evaluations, no simulation."""

from __future__ import annotations

import math

import polars as pl
import pytest

from tcplab.reproduce import core
from tcplab.reproduce.core import Context
from tcplab.reproduce.items.parvez import emulation as e
from tcplab.reproduce.items.parvez import open_setups as o
from tcplab.reproduce.items.parvez import variations as v
from tcplab.reproduce.items.parvez.shared import flow_models


def _item(item_id: str) -> core.Item:
    return next(i for i in core.items("parvez") if i.id == item_id)


class Runs(Context):
    """A context whose job i has the flow rows `rows[i]`."""

    def __init__(self, item, rows: list[list[dict]]):
        super().__init__(item, True, [], [], None, None)
        self._r = rows

    def rows(self, job=None):
        assert isinstance(job, int)
        return pl.DataFrame(self._r[job])


def _flow(tcp: str, p: float, err: float, non_ca: float, rtt: float = 0.08) -> dict:
    """A foreground flow at loss event rate p whose model (the NewReno model for the NewReno flow,
    PFTK for the Reno flow) overestimates it by `err`; `non_ca` the share of its loss episodes with a
    timeout or a second window cut."""
    f = {
        "tcp": tcp,
        "loss_event_rate": p,
        "mean_rtt_s": rtt,
        "mss_bytes": 960,
        "segments_sent": 100_000,
        "segments_retransmitted": int(100_000 * p * 1.5),
        "ca_events": round(1000 * (1 - non_ca)),
        "non_ca_events": round(1000 * non_ca),
        "link.bottleneck.fwd.drop_rate": 0.05,
    }
    nr, pftk = flow_models(f)
    f["goodput_bps"] = (nr if tcp == "newreno" else pftk) / (1 + err)
    return f


def _run(p: float, e_model: float, e_reno: float, reno_non_ca: float = 0.6) -> list[dict]:
    # The Reno flow's RTT longer (its queueing): NewReno gets about 1.25 times its throughput.
    return [_flow("newreno", p, e_model, 0.15), _flow("reno", p, e_reno, reno_non_ca, 0.1)]


def _fig12(main: list[dict], control: list[dict]):
    item = _item("parvez-fig12")
    n_main = len(v.FIG12_QUICK)
    rows = [main] * n_main + [control] + [main] * len(v._scale_open(True))
    assert len(rows) == len(v._scale_jobs(True))
    assert item.evaluate is not None
    out = item.evaluate(Runs(item, rows))
    return out, {c.name.split(":")[0]: c for c in out.checks}


def test_fig12_explained_by_a_lighter_load_and_renos_timeouts():
    """tcplab's counts give p = 2%: PFTK is far off the paper's 11%; the control at p = 0.35% gives
    both of the paper's numbers, and the Reno flow takes more timeouts than PFTK's Q."""
    out, checks = _fig12(_run(0.02, 0.06, 0.7), _run(0.0035, 0.02, 0.5))
    assert not checks["PFTK's average error on the NewReno flow (the paper"].passed
    assert checks["control"].passed and not checks["control"].paper
    assert out.status == core.EXPLAINED
    assert any("the paper leaves open" in title for title, _ in out.extra)


@pytest.mark.parametrize(
    "control, reno_non_ca, failing",
    [
        # The control's NewReno flow at p = 2% too: PFTK about 30% off, not the paper's 11%.
        (_run(0.02, 0.03, 0.5), 0.6, "control"),
        # The Reno flow times out less often than PFTK's Q = 3 sqrt(3p/8) (26% at 2%).
        (_run(0.0035, 0.02, 0.5), 0.1, "every run"),
    ],
)
def test_fig12_reasons_fail_on_a_contradicting_result(control, reno_non_ca, failing):
    out, checks = _fig12(_run(0.02, 0.06, 0.7, reno_non_ca), control)
    assert not checks[failing].passed
    assert out.status == core.FAILED


def test_fig12_reproduced_at_the_papers_loss_rates():
    out, _ = _fig12(_run(0.0035, 0.04, 0.17), _run(0.0035, 0.04, 0.17))
    assert out.status == core.REPRODUCED


def test_open_jobs_try_the_agents_and_gentle_red_without_traces():
    from tcplab.reproduce.items.parvez.anatomy import TRACE_SETS

    base = {"traffic.0.count": 75, **TRACE_SETS}
    tries = o.open_jobs(
        [("droptail", core.Job("parvez/background.toml", base)), ("droptail", core.Job("x", {})),
         ("red", core.Job("parvez/background.toml", {**base, "q": "red"}))],
        ("network.dumbbell.bottleneck",),
    )  # fmt: skip
    assert [(q, label) for q, label, _ in tries] == [
        ("droptail", o.AGENTS[0][0]),
        ("droptail", o.AGENTS[1][0]),
        ("red", o.AGENTS[0][0]),
        ("red", o.AGENTS[1][0]),
        ("red", o.GENTLE),
    ]
    for _, _, job in tries:
        assert job.scenario == "parvez/background.toml" and job.sets["traffic.0.count"] == 75
        assert not set(TRACE_SETS) & set(job.sets)
    assert tries[0][2].sets["flows.0.limited_transmit"] is True
    assert tries[-1][2].sets["network.dumbbell.bottleneck.queue.red.gentle"] is True


def test_quick_forms_leave_out_the_tick_and_full_forms_keep_every_reading():
    from tcplab.reproduce.items.parvez import background as b

    for quick in (True, False):
        labels = {label for _, label, _ in b._bg_open(quick)} | {
            label for _, label, _ in v._scale_open(quick)
        }
        assert (o.TICK in labels) is not quick
        assert o.AGENTS[0][0] in labels
    assert [(q, label) for q, label, _ in b._multi_open(True)] == [
        ("droptail", o.AGENTS[0][0]),
        ("red", o.GENTLE),
    ]
    assert len(b._multi_open(False)) == 5  # both agents' settings on each queue, and gentle RED
    assert len(b._bg_jobs(True)) == len(b._bg_main(True)) + 1 + len(b._bg_open(True)) + len(b.PAPER_FIG9)


def test_open_row_holds_only_when_both_averages_are_the_papers():
    g = {"nr": {"goodput_bps": 4e5}, "reno": {"goodput_bps": 3e5}, "p": 0.01, "to_meas": 0.1}
    _, holds = o.open_row("droptail", "x", {**g, "e_model": 0.05, "e_pftk": 0.22}, (0.044, 0.20))
    assert holds
    _, holds = o.open_row("droptail", "x", {**g, "e_model": 0.05, "e_pftk": 0.26}, (0.044, 0.20))
    assert not holds
    _, holds = o.open_row("droptail", "x", {**g, "e_model": 0.10, "e_pftk": 0.20}, (0.044, 0.20))
    assert not holds


def _sim(rate_scale: dict[str, float], model_over: float) -> dict:
    """Simulated cells of every reading: goodput Table III's times the reading's scale, Eq. 29
    `model_over` above it."""
    out = {}
    for label, _, _ in e.OPEN:
        for p, (dur, nbytes) in e.TABLE3.items():
            g = nbytes * 8 / dur * rate_scale.get(label, 1.0)
            out[(label, p)] = {"goodput": g, "model": g * (1 + model_over)}
    return out


def test_sec5_open_table_says_which_readings_give_the_papers_numbers():
    rows, holding, closest = e._open_table(_sim({"per-ack": 1.02}, 0.10), tuple(e.TABLE3))
    assert closest == e.OPEN[1][1]  # every reading on Table III but the first, 2% above it
    assert len(rows) == 1 + len(e.OPEN) and all(r[-1] == "yes" for r in rows[1:])
    assert holding == [what for _, what, _ in e.OPEN]
    # Eq. 29 30% off every reading: its average error is beyond 15%.
    _, holding, _ = e._open_table(_sim({}, 0.30), tuple(e.TABLE3))
    assert holding == []
    # One reading 1.5 times Table III: 1.42 Mbit/s at 1.5% is not within 15% on it.
    _, holding, closest = e._open_table(_sim({"per-ack-every-segment": 1.5}, 0.10), tuple(e.TABLE3))
    assert len(holding) == len(e.OPEN) - 1 and all("every segment" not in h for h in holding)
    assert math.isfinite(float(rows[1][2]))


# ---- PFTK's reason: the model's difference, or a lighter-load control that gives the paper's errors ----


def _pftk_run(r: float, e_model: float, e_pftk: float, p: float = 0.004) -> dict:
    return {"pftk": r * 1e6, "model": 1e6, "e_model": e_model, "e_pftk": e_pftk, "p": p}


@pytest.mark.parametrize(
    "control, passed",
    [
        # Fig 9 with RED (the paper: 8.9% and 9.9%, so r within 1.009 to 1.206): the runs' r = 1.216
        # is outside, and with the paper's model error PFTK would be 32.4% off, so only the control can
        # hold the reason; it does where its r is inside and both its errors are the paper's.
        (_pftk_run(1.15, 0.042, 0.099), True),
        (None, False),  # no control: r outside the paper's range is not a reason by itself
        (_pftk_run(1.25, 0.042, 0.099), False),  # the control's r outside the range
        (_pftk_run(1.15, 0.160, 0.099), False),  # the NewReno model's error not the paper's there
        (_pftk_run(1.15, 0.042, 0.200), False),  # PFTK's error not the paper's there
    ],
)
def test_parvez_pftk_reason_rests_on_a_measurement(control, passed):
    from tcplab.reproduce.items.parvez.shared import pftk_checks

    gs = [_pftk_run(1.216, 0.011, 0.202, p=0.011)]
    paper, reason = pftk_checks(gs, 0.089, 0.099, "red: ", control)
    assert paper.paper and not paper.passed
    assert reason.paper is False and reason.passed is passed
