"""An item's status comes from its checks (`tcplab.reproduce.core.status_of`), and the checks the
reproduction rests on fail on results that contradict them: synthetic results fed to the items'
evaluations, no simulation."""

from __future__ import annotations

import math

import polars as pl
import pytest

from tcplab.reproduce import core
from tcplab.reproduce.core import Check, Context, status_of


def check(passed: bool, paper: bool = True) -> Check:
    return Check("c", 1, "t", passed, paper=paper)


@pytest.mark.parametrize(
    "checks, explanation, status",
    [
        ([], "", core.NOT_YET),
        ([check(True)], "", core.REPRODUCED),
        ([check(True), check(False, paper=False)], "why", core.REPRODUCED),  # nothing to account for
        ([check(False), check(True, paper=False)], "why", core.EXPLAINED),
        ([check(False), check(True, paper=False)], "", core.NOT_YET),  # a reason, no explanation
        ([check(False)], "why", core.NOT_YET),  # a difference without a measured reason
        ([check(False), check(True, paper=False), check(False, paper=False)], "why", core.FAILED),
        ([check(True, paper=False)], "why", core.FAILED),  # nothing checked against the paper
    ],
)
def test_status_is_computed_from_the_checks(checks, explanation, status):
    assert status_of(checks, explanation) == status
    o = core.Outcome([["x"]], checks, explanation)
    assert o.status == status
    assert o.agrees == all(c.passed for c in checks if c.paper)


def test_no_item_sets_its_status_by_hand():
    """`Outcome` has no `agrees` argument any more: an item that passed one would not construct."""
    with pytest.raises(TypeError):
        core.Outcome([["x"]], [check(True)], "", agrees=False)  # type: ignore[call-arg]


# ---- Barakat Fig 4: the rise with n, n = 4 included --------------------------------------------------


class FakeContext(Context):
    """A context whose job i has one row with the given columns."""

    def __init__(self, item, rows: list[dict]):
        super().__init__(item, True, [], [], None, None)
        self._fake = rows

    def rows(self, job=None):
        assert isinstance(job, int)
        return pl.DataFrame([self._fake[job]])


def _chain_result(full: dict[int, float]) -> list[dict]:
    """Goodputs (bit/s) for Fig 4's runs: the full chain as given, the two-node model equal to it,
    the one-node model lower."""
    from tcplab.reproduce.items.barakat.shared import KINDS, NS

    rows = []
    for n in NS:
        for k in KINDS:
            rows.append({"goodput_bps": full[n] * (0.8 if k == "one" else 1.0)})
    return rows


def _fig4(full):
    item = next(i for i in core.items("barakat") if i.id == "barakat-fig4")
    assert item.evaluate is not None
    out = item.evaluate(FakeContext(item, _chain_result(full)))
    return {c.name.split(":")[0].split(" (")[0]: c.passed for c in out.checks}, out


def test_barakat_fig4_rise_passes_on_the_papers_shape():
    checks, out = _fig4({n: (1.0e6 if n <= 4 else 1.2e6) for n in range(1, 9)})
    assert all(checks.values()), out.checks
    assert out.status == core.REPRODUCED


@pytest.mark.parametrize(
    "full",
    [
        {n: 1.0e6 for n in range(1, 9)},  # no rise at all
        {n: (1.0e6 if n <= 3 else 1.2e6) for n in range(1, 9)},  # the rise already at n = 4
        {n: (1.0e6 if n <= 4 else 1.2e6) if n != 6 else 0.9e6 for n in range(1, 9)},  # a dip at n = 6
    ],
)
def test_barakat_fig4_rise_fails_on_a_contradicting_result(full):
    _, out = _fig4(full)
    rise = [c for c in out.checks if c.name.startswith("throughput rises")]
    assert len(rise) == 1 and not rise[0].passed
    assert out.status != core.REPRODUCED


# ---- Parvez Figs 9, 10, 13: the Eq. 29 reason --------------------------------------------------------


def _run(e_model: float, sim: float, qz: float, sqz: float) -> dict:
    return {
        "e_model": e_model,
        "p": 0.01,
        "sim": sim,
        "eq29_bps": {"QZ": sim * (1 + qz), "SQZ": sim * (1 + sqz)},
    }


@pytest.mark.parametrize(
    "qz, sqz, passed",
    [
        (0.02, 0.30, True),  # the timeout terms account for the difference
        (0.40, 0.03, True),  # with the numerator too
        (0.40, 0.30, False),  # neither: the reason does not hold
        (-0.40, -0.30, False),
    ],
)
def test_parvez_eq29_reason_can_fail(qz, sqz, passed):
    from tcplab.reproduce.items.parvez.anatomy import eq29_checks

    runs = [_run(0.05, 1e6, 0.0, 0.0), _run(0.30, 1e6, qz, sqz)]
    (c,) = eq29_checks(runs, _run(0.01, 1e6, 0.0, 0.0), {"droptail": (0.034, 0.25), "red": (0.075, 0.27)})
    assert c.paper is False and c.passed is passed


def test_check_values_are_json_numbers():
    c = Check("x", math.nan, "t", True, paper=False)
    assert c.to_json() == {"name": "x", "value": None, "target": "t", "passed": True, "kind": "reason"}


# ---- Parvez Figs 9-10: PFTK's difference and its reason ----------------------------------------------


@pytest.mark.parametrize(
    "e_pftk, ratio, passed",
    [
        (0.35, 1.40, True),  # the ratio outside what the paper's averages allow (1.209 to 1.294)
        (0.33, 1.244, True),  # inside, and with the paper's model error PFTK's is 28.6%: the model's
        (0.45, 1.29, False),  # inside, and with the paper's model error still 33.4%: neither holds
    ],
)
def test_parvez_pftk_reason_can_fail(e_pftk, ratio, passed):
    from tcplab.reproduce.items.parvez.shared import pftk_checks

    gs = [{"e_pftk": e_pftk, "pftk": ratio * 1e6, "model": 1e6}]
    paper, reason = pftk_checks(gs, 0.034, 0.25, "droptail: ")
    assert paper.paper and not paper.passed
    assert reason.paper is False and reason.passed is passed


def test_parvez_pftk_reason_only_where_pftk_differs():
    from tcplab.reproduce.items.parvez.shared import pftk_checks

    (paper,) = pftk_checks([{"e_pftk": 0.27, "pftk": 1.3e6, "model": 1e6}], 0.034, 0.25, "")
    assert paper.passed
