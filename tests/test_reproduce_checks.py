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
    the one-node model lower, then the quick form's full chains with the delay spread (as given)."""
    from tcplab.reproduce.items.barakat.chain import SPREAD_NS_QUICK
    from tcplab.reproduce.items.barakat.shared import KINDS, NS

    rows = []
    for n in NS:
        for k in KINDS:
            rows.append({"goodput_bps": full[n] * (0.8 if k == "one" else 1.0)})
    return rows + [{"goodput_bps": full[n]} for n in SPREAD_NS_QUICK]


def _fig4(full):
    item = next(i for i in core.items("barakat") if i.id == "barakat-fig4")
    assert item.evaluate is not None
    out = item.evaluate(FakeContext(item, _chain_result(full)))
    return {c.name.split(":")[0].split(" (")[0]: c.passed for c in out.checks}, out


def test_barakat_fig4_rise_passes_on_the_papers_shape():
    """The rise from n = 4: the network then holds five nodes, the bottleneck counted (the item's
    reading, where the paper's S_n < S puts it)."""
    checks, out = _fig4({n: (1.0e6 if n <= 3 else 1.2e6) for n in range(1, 9)})
    assert all(checks.values()), out.checks
    assert out.status == core.REPRODUCED


@pytest.mark.parametrize(
    "full",
    [
        {n: 1.0e6 for n in range(1, 9)},  # no rise at all
        {n: (1.0e6 if n <= 4 else 1.2e6) for n in range(1, 9)},  # the rise only at n = 5
        {n: (1.0e6 if n <= 3 else 1.2e6) if n != 6 else 0.9e6 for n in range(1, 9)},  # a dip at n = 6
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
        (0.35, 1.40, False),  # the ratio outside what the paper's averages allow: no longer a reason
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


# ---- Mathis Sec. 7: the modem and the R&E user ------------------------------------------------------


class RowsContext(Context):
    """A context whose jobs' rows are the given dicts (in job order), with a cwnd trace for job 0."""

    def __init__(self, item, rows: list[dict], cwnd: pl.DataFrame | None = None):
        super().__init__(item, True, [], [], None, None)
        self._all, self._cwnd = rows, cwnd

    def rows(self, job=None):
        assert job is None
        return pl.DataFrame(self._all)

    def trace(self, job, name):
        assert (job, name) == (0, "cwnd")
        return self._cwnd if self._cwnd is not None else pl.DataFrame()


def _sec7_rows(**change) -> list[dict]:
    """Results shaped as the paper says, in every reading of the modem's set-up: the modem at p = 4%
    with a 5-packet window, flat to 5% on L, down from 7%, the RTT and queue falling; the R&E user
    with C = 0.87 at a 100 ms RTT, with either delayed-ACK timer. `change` contradicts one part of
    the item's reading (see the test)."""
    from tcplab.reproduce.items.mathis import implications as m

    def modem() -> list[dict]:
        runs = []
        for p in m.MODEM_P:
            frac = (p - m.MODEM_P[0]) / (m.MODEM_P[-1] - m.MODEM_P[0])
            runs.append(
                {
                    "goodput_bps": 27648.0 * (1.0 if p < 0.07 else 0.8),
                    "p": 0.04,
                    "mean_window_bytes": 5.0 * 960,
                    "mss_bytes": 960,
                    "mean_rtt_s": 1.25 - 0.65 * frac,
                    "timeouts": 0,
                    m.MODEM_QUEUE: 0.8 * (1 - frac) + 0.01,
                    "ca_events": 100,
                    "non_ca_events": 0,
                }
            )
        return runs

    def re() -> list[dict]:
        runs = []
        for mss, p in m.re_points():
            c = 0.87 * (change.get("c4312", 1.0) if mss == 4312 else 1.0)
            runs.append(
                {
                    "goodput_bps": c * mss * 8 / (0.1 * math.sqrt(p)) * change.get(f"g{mss}", 1.0),
                    "p": p,
                    "mean_window_bytes": c / math.sqrt(p) * mss,
                    "mss_bytes": mss,
                    "mean_rtt_s": 0.1,
                    "timeouts": 0,
                    m.MODEM_QUEUE: 0.0,
                    "ca_events": 100,
                    "non_ca_events": 0,
                }
            )
        return runs

    readings = [modem() for _ in m.MODEM_READINGS]
    item = readings[0]
    if "left" in change:
        item[0].update(change["left"])
    if "at3" in change:
        item[m.MODEM_P.index(0.03)]["goodput_bps"] *= change["at3"]
    if "right" in change:
        item[-1].update(change["right"])
    return [f for runs in readings for f in runs] + [f for _ in m.RE_DELACKS for f in re()]


def _sec7(**change):
    item = next(i for i in core.items("mathis") if i.id == "mathis-sec7")
    assert item.evaluate is not None
    out = item.evaluate(RowsContext(item, _sec7_rows(**change)))
    return {c.name: c for c in out.checks}, out


def test_mathis_sec7_passes_on_the_papers_numbers():
    checks, out = _sec7()
    assert all(c.passed for c in checks.values()), [c for c in checks.values() if not c.passed]
    assert out.status == core.REPRODUCED


@pytest.mark.parametrize(
    "change, fails",
    [
        ({"left": {"p": 0.01}}, "modem, left edge (no loss on L): the flow's p"),
        ({"left": {"mean_window_bytes": 8.0 * 960}}, "modem, left edge: average window"),
        ({"left": {"mean_rtt_s": 2.0}}, "modem, left edge: mean RTT"),
        ({"at3": 0.5}, "modem, 3% loss on L"),
        ({"at3": 0.5}, "modem: the first p on L whose goodput"),  # the fall already at 3%
        ({"right": {"mean_rtt_s": 1.2}}, "modem, 0.3 loss on L: mean RTT"),
        # what remains of the right edge's RTT without the modem's queue: less than the path and the timer
        ({"right": {"link.hop1.fwd.mean_queue_delay_s": 0.3}}, "modem, 0.3 loss on L: the mean RTT less"),
        ({"g536": 2.0}, "R&E, MSS 536: the simulated p at 1 Mbit/s"),
        ({"g1460": 0.5}, "R&E, MSS 1460: the simulated p at 1 Mbit/s"),
        ({"g4312": 0.3}, "R&E, MSS 4312: the simulated p at 1 Mbit/s"),
        ({"g4312": 0.3}, "R&E: each factor of about 3 in MSS"),
        ({"g536": 3.0}, "R&E, MSS 536 at 3% loss"),
        ({"g4312": 0.3}, "R&E, MSS 4312: Eq. 14 with the measured C and RTT"),
    ],
)
def test_mathis_sec7_fails_on_a_contradicting_result(change, fails):
    checks, _ = _sec7(**change)
    (c,) = [c for name, c in checks.items() if name.startswith(fails)]
    assert not c.passed, c


def test_mathis_sec7_bound_check_fails_on_another_model(monkeypatch):
    from tcplab.reproduce.items.mathis import implications as m

    monkeypatch.setattr(m, "_bound", lambda mss: 2 * m.PAPER_BOUND[mss])
    checks, _ = _sec7()
    bound = [c for name, c in checks.items() if "Eq. 14's bound on p" in name]
    assert len(bound) == 3 and not any(c.passed for c in bound)


# ---- Parvez Sec. V: the model against kernel TCP ------------------------------------------------------


def _emulation_world(**change) -> tuple[dict, list[dict]]:
    """Kernel results and tcplab rows shaped as the paper's world: Eq. 29 (RTT chosen so that it
    gives Table III's rate) between a kernel 10% above it and tcplab's per-ACK control 10% below;
    tcplab's Linux equal to the kernel. `change` contradicts one part (see the test)."""
    from tcplab.reproduce.items.parvez import emulation as e
    from tcplab.reproduce.items.parvez import kernel as k

    def flow(p: float, goodput: float, rtt: float) -> dict:
        delivered = goodput * 50 / 8
        return {
            "goodput_bps": goodput,
            "bytes_delivered": delivered,
            "fast_retransmits": p * delivered / 1448,
            "timeouts": 0,
            "mean_rtt_s": rtt,
        }

    def rtt_for(p: float) -> float:  # Eq. 29 scales as 1/R: the R that gives Table III's rate
        if p == 0:
            return 0.05
        ref = e.model_bps(flow(p, 1e6, 0.058), 1448)
        return 0.058 * ref / (e.TABLE3[p][1] * 8 / e.TABLE3[p][0])

    kernel_rows, sim_rows = [], []
    for stack, p, seed, _ in k.runs():
        rtt = rtt_for(p)
        model = 9.6e6 if p == 0 else e.model_bps(flow(p, 1e6, rtt), 1448)
        g = model * (1.0 if p == 0 else 1.1) * (1.02 if seed == 2 else 1.0)
        g *= change.get("kernel", {}).get(p, 1.0)
        kernel_rows.append({**flow(p, g, rtt), "stack": stack, "p": p, "seed": seed, "load_before": "1.0",
                            "load_after": "1.0"})  # fmt: skip
        sim_rows.append(flow(p, g * change.get("sim", 1.0), rtt))
    for _stack, p, _seed, _ in e.sim_runs()[len(kernel_rows) :]:
        rtt = rtt_for(p)
        model = 9.6e6 if p == 0 else e.model_bps(flow(p, 1e6, rtt), 1448)
        sim_rows.append(flow(p, model * 0.9 * change.get("per_ack", 1.0), rtt))
    machine = {"kernel": "6.x", "cpu": "cpu", "cores": 2}
    return {"date": "2026-11-28", "machine": machine, "rows": kernel_rows}, sim_rows


def _emulation(monkeypatch, **change):
    from tcplab.reproduce.items.parvez import kernel as k

    item = next(i for i in core.items("parvez") if i.id == "parvez-emulation")
    assert item.evaluate is not None
    stored, rows = _emulation_world(**change)
    monkeypatch.setattr(k, "load_stored", lambda path=None: stored)
    out = item.evaluate(RowsContext(item, rows))
    return {c.name: c for c in out.checks}, out


def test_parvez_emulation_passes_in_the_papers_world(monkeypatch):
    checks, out = _emulation(monkeypatch)
    assert all(c.passed for c in checks.values()), [c for c in checks.values() if not c.passed]
    assert out.status == core.REPRODUCED


@pytest.mark.parametrize(
    "change, fails",
    [
        ({"kernel": {0.0: 0.8}}, "the kernel's NewReno without loss"),
        ({"kernel": {0.015: 1.5}}, "the kernel's NewReno at 1.5% loss"),
        ({"kernel": dict.fromkeys((0.005, 0.01, 0.015, 0.02, 0.025, 0.03), 1.5)}, "Eq. 29 against the kernel's NewReno: average"),
        ({"kernel": {0.03: 1.6}}, "Eq. 29 against the kernel's NewReno: largest"),
        ({"sim": 1.5}, "tcplab's Linux NewReno against the kernel's"),
        ({"per_ack": 0.5}, "tcplab's NewReno growing per ACK"),
        ({"kernel": dict.fromkeys((0.005, 0.01, 0.015, 0.02, 0.025, 0.03), 0.85)}, "the kernel's NewReno over tcplab's per-ACK"),
        ({"kernel": {0.02: 0.85}}, "Eq. 29 below the kernel's NewReno and above"),
    ],
)  # fmt: skip
def test_parvez_emulation_fails_on_a_contradicting_result(monkeypatch, change, fails):
    checks, _ = _emulation(monkeypatch, **change)
    (c,) = [c for name, c in checks.items() if name.startswith(fails)]
    assert not c.passed, c


def test_parvez_emulation_notes_say_how_the_endpoints_ran(monkeypatch):
    """The page's paragraph under the table counts the runs with all their endpoint threads at
    SCHED_FIFO, and says the rows without that record predate it."""
    from tcplab.reproduce.items.parvez import kernel as k

    stored, rows = _emulation_world()
    for i, r in enumerate(stored["rows"]):
        if i % 2:
            r["endpoints_realtime"], r["endpoints_normal"] = (2, 0) if i % 4 == 1 else (1, 1)
    monkeypatch.setattr(k, "load_stored", lambda path=None: stored)
    item = next(i for i in core.items("parvez") if i.id == "parvez-emulation")
    assert item.evaluate is not None
    out = item.evaluate(RowsContext(item, rows))
    n = len(stored["rows"])
    recorded, fifo = n // 2, len(range(1, n, 4))
    assert (
        f"{fifo} of the {recorded} runs that record it had all their endpoint threads (the sender and the "
        f"sink) at SCHED_FIFO, {recorded - fifo} had some at normal priority; {n - recorded} runs predate "
        "that record" in out.notes
    )


def test_parvez_emulation_without_kernel_results_has_no_checks(monkeypatch):
    from tcplab.reproduce.items.parvez import kernel as k

    item = next(i for i in core.items("parvez") if i.id == "parvez-emulation")
    _, rows = _emulation_world()
    monkeypatch.setattr(k, "load_stored", lambda path=None: None)
    out = item.evaluate(RowsContext(item, rows))
    assert out.checks == [] and out.status == core.NOT_YET


def test_parvez_emulation_asked_to_emulate_without_root_says_so(monkeypatch):
    from tcplab.emulate import netns
    from tcplab.reproduce.items.parvez import kernel as k

    item = next(i for i in core.items("parvez") if i.id == "parvez-emulation")
    stored, rows = _emulation_world()
    monkeypatch.setattr(k, "load_stored", lambda path=None: stored)
    monkeypatch.setattr(k, "measure", lambda *a, **kw: pytest.fail("must not run the kernel"))
    monkeypatch.setattr(netns, "missing_requirements", lambda: "emulation needs root")
    ctx = RowsContext(item, rows)
    ctx.emulate = True
    out = item.evaluate(ctx)
    assert "`--emulate` was asked, but emulation needs root" in out.notes
    assert out.status == core.REPRODUCED


def test_parvez_kernel_results_merge_by_stack_on_one_machine():
    from tcplab.reproduce.items.parvez import kernel as k

    machine = {"kernel": "6.x", "cpu": "cpu", "cores": 2}
    old = {
        "date": "2026-11-27",
        "machine": machine,
        "rows": [{"stack": "reno", "p": 0.01, "seed": 1, "g": 1}],
    }
    new = {"date": "2026-11-28", "machine": machine, "rows": [{"stack": "cubic-sack", "p": 0.01, "seed": 1}]}
    merged = k.merge(old, new)
    assert [r["stack"] for r in merged["rows"]] == ["reno", "cubic-sack"]
    assert merged["date"] == "2026-11-27 and 2026-11-28"
    again = k.merge(merged, {**new, "rows": [{"stack": "reno", "p": 0.01, "seed": 1, "g": 2}]})
    assert [r.get("g") for r in again["rows"]] == [2, None]
    with pytest.raises(ValueError, match="cannot merge"):
        k.merge(old, {**new, "machine": {**machine, "kernel": "5.x"}})
