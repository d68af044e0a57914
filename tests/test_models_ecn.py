"""The ECN models: DCTCP's steady state (Alizadeh et al. 2010 Sec. 3.3-3.4), the scalable
response W = 2/p beside classic ECN's, and the DualQ coupling (RFC 9332).

Known answers are computed by hand here from the formulas, on the paper's example: 10 Gbit/s,
100 us, 1500-byte packets (C x RTT = 83.33 packets), N = 2, 10, 40 and K = 40, 65.
"""

from __future__ import annotations

import json
import math
import re

import pytest
import typer
from typer.testing import CliRunner

from tcplab.models import dctcp, dualq, scalable
from tcplab.models.catalog import MODELS, run_model
from tcplab.models.cli import register

BDP = 10e9 * 100e-6 / (8 * 1500)  # 83.333... packets


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(app)
    return app


def cli(app, *args: str):
    return CliRunner().invoke(app, list(args))


# ---------------------------------------------------------------------------------- dctcp
def test_bdp_of_the_papers_example() -> None:
    assert dctcp.bdp_packets(10e9, 100e-6, 1500) == pytest.approx(250 / 3, rel=1e-12)  # 83.33
    assert dctcp.bdp_packets(1e9, 1e-3) == pytest.approx(BDP, rel=1e-12)  # the ns-3 dumbbell's


@pytest.mark.parametrize("k", [40, 65])
@pytest.mark.parametrize("n", [2, 10, 40])
def test_sec_3_3_known_answers(n: int, k: int) -> None:
    w = (BDP + k) / n  # W* = (C x RTT + K) / N
    assert dctcp.critical_window(BDP, n, k) == pytest.approx(w, rel=1e-12)
    a = math.sqrt(2 / w)  # Eq. 7
    assert dctcp.alpha(w) == pytest.approx(a, rel=1e-12)
    d = (w + 1) * a / 2  # Eq. 8
    assert dctcp.window_amplitude(BDP, n, k) == pytest.approx(d, rel=1e-12)
    assert dctcp.period_rtts(BDP, n, k) == pytest.approx(d, rel=1e-12)  # Eq. 10
    assert dctcp.queue_amplitude(BDP, n, k) == pytest.approx(n * d, rel=1e-12)  # Eq. 9
    closed = 0.5 * math.sqrt(2 * n * (BDP + k))
    assert dctcp.queue_amplitude_closed(BDP, n, k) == pytest.approx(closed, rel=1e-12)
    # N D against the closed form: N (W*+1)/2 sqrt(2/W*) = (1/2) sqrt(2 N^2 W*) (W*+1)/W*.
    assert n * d / closed == pytest.approx((w + 1) / w, rel=1e-12)
    assert dctcp.q_max(BDP, n, k) == pytest.approx(k + n, rel=1e-12)  # Eq. 11: K + N
    assert dctcp.q_min(BDP, n, k) == pytest.approx(k + n - n * d, rel=1e-12)  # Eq. 12


def test_hand_values_of_the_example() -> None:
    # N = 2, K = 40: W* = 123.333/2 = 61.667, alpha = 0.18009, D = 5.6429, Q_max = 42.
    assert dctcp.critical_window(BDP, 2, 40) == pytest.approx(61.6667, abs=1e-4)
    assert dctcp.alpha(61.6666667) == pytest.approx(0.180090, abs=1e-6)
    assert dctcp.window_amplitude(BDP, 2, 40) == pytest.approx(5.64283, abs=1e-5)
    assert dctcp.queue_amplitude_closed(BDP, 2, 40) == pytest.approx(11.1056, abs=1e-4)
    assert [dctcp.q_max(BDP, n, 65) for n in (2, 10, 40)] == pytest.approx([67, 75, 105])
    assert [dctcp.q_max(BDP, n, 40) for n in (2, 10, 40)] == pytest.approx([42, 50, 80])


@pytest.mark.parametrize("w", [1.0, 2.0, 3.0833, 12.333, 61.667, 1000.0])
def test_exact_alpha_solves_eq_6(w: float) -> None:
    a = dctcp.alpha_exact(w)
    assert 0 < a <= 1
    assert a * a * (1 - a / 4) == pytest.approx((2 * w + 1) / (w + 1) ** 2, rel=1e-12)


def test_alpha_approximation_converges_to_the_root() -> None:
    gaps = [abs(dctcp.alpha(w) / dctcp.alpha_exact(w) - 1) for w in (10.0, 100.0, 1000.0, 1e5)]
    assert gaps == sorted(gaps, reverse=True) and gaps[-1] < 1e-3
    assert dctcp.alpha_exact(1.0) == pytest.approx(1.0)  # W* = 1: every packet marked


def test_k_guideline_is_where_q_min_first_touches_zero() -> None:
    """Sec. 3.4: with Q_min = K + N - (1/2) sqrt(2N(C RTT + K)), min over N is
    K - (C RTT + K)/8, zero at K = C RTT / 7."""
    k = dctcp.k_guideline(BDP)
    assert k == pytest.approx(BDP / 7, rel=1e-12)
    n_star = (BDP + k) / 8
    assert k + n_star - 0.5 * math.sqrt(2 * n_star * (BDP + k)) == pytest.approx(0, abs=1e-9)
    grid = [x / 10 for x in range(1, 5000)]
    assert min(k * 1.01 + n - 0.5 * math.sqrt(2 * n * (BDP + k * 1.01)) for n in grid) > 0
    assert min(k * 0.99 + n - 0.5 * math.sqrt(2 * n * (BDP + k * 0.99)) for n in grid) < 0


def test_g_bound() -> None:
    # 2 ln 2 / sqrt(2 (83.333 + 40)) = 1.386294 / 15.70563 = 0.088268
    assert dctcp.g_bound(BDP, 40) == pytest.approx(0.088268, abs=1e-6)
    assert dctcp.g_bound(BDP, 40) == pytest.approx(1.386 / math.sqrt(2 * (BDP + 40)), rel=3e-4)
    g = dctcp.g_bound_exact(BDP, 40)
    t_c = 0.5 * math.sqrt(2 * (BDP + 40))  # T_C at N = 1
    assert (1 - g) ** t_c == pytest.approx(0.5, rel=1e-12)
    assert g < dctcp.g_bound(BDP, 40) < g * 1.05


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: dctcp.critical_window(BDP, 0, 40), "n: 0 is outside an integer in [1, inf)"),
        (lambda: dctcp.critical_window(BDP, 2.5, 40), "n: 2.5 is outside an integer"),
        (lambda: dctcp.critical_window(BDP, 2, -1), "k: -1 is outside [0, inf)"),
        (lambda: dctcp.bdp_packets(-1e9, 1e-3), "capacity: -1e+09 is outside (0, inf)"),
        (lambda: dctcp.alpha(1.5), "w: 1.5 is outside [2, inf)"),
    ],
)
def test_library_errors_name_the_argument(call, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


def test_cli_dctcp_json(app) -> None:
    r = cli(
        app,
        "model",
        "dctcp",
        "--capacity",
        "10Gbit/s",
        "--rtt",
        "100us",
        "--flows",
        "10",
        "--k",
        "65",
        "--json",
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["model"] == "dctcp"
    assert doc["outputs"]["q_max"] == pytest.approx(75)
    assert doc["outputs"]["bdp"] == pytest.approx(BDP)
    assert doc["outputs"]["k_ok"] is True and doc["outputs"]["g_ok"] is True
    assert doc["outputs"]["period"] == pytest.approx(doc["outputs"]["period_rtts"] * 100e-6)
    assert doc["warnings"] == []
    assert doc["units"]["q_max"] == "packets"


def test_dctcp_domain_notes() -> None:
    _, notes = run_model("dctcp", {"capacity": 10e9, "rtt": 100e-6, "flows": 40, "k": 40})
    assert any("N = 40 >= K = 40" in n for n in notes)
    _, notes = run_model("dctcp", {"capacity": 10e9, "rtt": 100e-6, "flows": 10, "k": 5})
    assert any("the queue empties in each cycle" in n for n in notes)
    _, notes = run_model("dctcp", {"capacity": 10e9, "rtt": 100e-6, "flows": 2, "k": 65, "g": 0.2})
    assert any("g = 0.2 is above" in n for n in notes)
    _, notes = run_model("dctcp", {"capacity": 10e9, "rtt": 100e-6, "flows": 40, "k": 65})
    assert len(notes) == 1 and "alpha ~ sqrt(2/W*) is 9% above the root of Eq. 6" in notes[0]
    _, notes = run_model("dctcp", {"capacity": 10e9, "rtt": 100e-6, "flows": 2, "k": 65})
    assert notes == []


# ------------------------------------------------------------------------------- scalable
def test_scalable_and_classic_known_answers() -> None:
    assert scalable.scalable_window(0.01) == pytest.approx(200)  # 2/p
    assert scalable.classic_window(0.01) == pytest.approx(math.sqrt(1.5) / 0.1)  # 12.247
    assert scalable.step_window(0.1) == pytest.approx(200)  # 2/p^2
    assert scalable.rate(1460, 0.02, 200) == pytest.approx(8 * 1460 * 200 / 0.02)  # 116.8 Mbit/s
    out, notes = run_model("scalable", {"rtt": 0.02, "mark": 0.01})
    assert out["marks_per_rtt"] == pytest.approx(2)  # p W = 2 marks per round trip
    assert out["ratio"] == pytest.approx(200 / (math.sqrt(1.5) / 0.1))
    assert out["rate_scalable"] == pytest.approx(116.8e6)
    assert notes == []
    _, notes = run_model("scalable", {"rtt": 0.02, "mark": 0.5})
    assert any("below 2 segments" in n for n in notes)  # sqrt(3/2)/sqrt(0.5) = 1.73


# ---------------------------------------------------------------------------------- dualq
def test_dualq_coupling_and_rate_balance() -> None:
    assert dualq.classic_probability(0.1) == pytest.approx(0.0025)  # (0.1 / 2)^2
    assert dualq.l4s_probability(0.0025) == pytest.approx(0.1)
    assert dualq.classic_probability(0.1, k=1) == pytest.approx(0.01)
    # k = 2, equal RTTs: Reno gets sqrt(3/2) = 1.2247 times the scalable flow's rate.
    assert dualq.rate_ratio() == pytest.approx(math.sqrt(1.5))
    assert dualq.balancing_k() == pytest.approx(2 / math.sqrt(1.5))  # 1.633
    assert dualq.rate_ratio(k=dualq.balancing_k()) == pytest.approx(1.0)
    out, notes = run_model("dualq", {"rtt": 0.02, "p_l": 0.1})
    assert out["p_c"] == pytest.approx(0.0025) and out["p_base"] == pytest.approx(0.05)
    assert out["w_scalable"] == pytest.approx(20) and out["w_classic"] == pytest.approx(math.sqrt(1.5) * 20)
    assert out["rate_classic"] / out["rate_scalable"] == pytest.approx(out["ratio"])
    assert notes == []
    out, _ = run_model("dualq", {"rtt": 0.02, "rtt_classic": 0.04, "p_c": 0.0025})
    assert out["p_l"] == pytest.approx(0.1)
    assert out["ratio"] == pytest.approx(math.sqrt(1.5) / 2)
    assert out["rate_classic"] / out["rate_scalable"] == pytest.approx(out["ratio"])


def test_dualq_inverse_refuses_p_c_above_its_range() -> None:
    with pytest.raises(ValueError, match=r"p_c: 0.5 is above 1/k\^2 = 0.25"):
        dualq.l4s_probability(0.5)


# ------------------------------------------------------------------------------------ CLI
@pytest.mark.parametrize(
    "args",
    [
        ["model", "dctcp", "--capacity", "1Gbit/s", "--rtt", "1ms", "--flows", "2", "--k", "40"],
        ["model", "scalable", "--rtt", "20ms", "--mark", "1%"],
        ["model", "dualq", "--rtt", "20ms", "--p-l", "10%"],
        ["model", "dualq", "--rtt", "20ms", "--p-c", "0.25%", "--k", "1.633"],
    ],
)
def test_ecn_models_run_and_give_json(app, args) -> None:
    r = cli(app, *args)
    assert r.exit_code == 0, r.output
    r = cli(app, *args, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["model"] == args[1]


def test_listed(app) -> None:
    r = CliRunner().invoke(app, ["model", "--list"], terminal_width=200)
    assert r.exit_code == 0
    for name in ("dctcp", "scalable", "dualq"):
        assert name in MODELS and name in r.output


_DCTCP = ["model", "dctcp", "--capacity", "10Gbit/s", "--rtt", "100us"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ([*_DCTCP, "--flows", "0", "--k", "65"], "--flows (n): 0 is outside an integer in [1, inf)"),
        ([*_DCTCP, "--flows", "1.5", "--k", "65"], "--flows: '1.5' is not an integer"),
        ([*_DCTCP, "--flows", "2", "--k", "-1"], "--k: -1 is outside [0, inf)"),
        ([*_DCTCP, "--flows", "2", "--k", "65", "--g", "2"], "--g: 2 is outside (0, 1]"),
        ([*_DCTCP, "--flows", "100", "--k", "65"], "--flows: 100 flows leave W*"),
        ([*_DCTCP, "--flows", "2"], "--k: required"),
        (
            ["model", "dctcp", "--capacity", "-1Gbit/s", "--rtt", "1ms", "--flows", "2", "--k", "4"],
            "--capacity",
        ),
        (["model", "scalable", "--rtt", "20ms", "--mark", "150%"], '--mark: "150%" is above 1'),
        (["model", "scalable", "--rtt", "20ms", "--mark", "0"], "--mark (p): 0 is outside (0, 1]"),
        (["model", "dualq", "--rtt", "20ms"], "--p-l: give exactly one of --p-l"),
        (["model", "dualq", "--rtt", "20ms", "--p-l", "1%", "--p-c", "1%"], "--p-l: give exactly one"),
        (["model", "dualq", "--rtt", "20ms", "--p-c", "50%"], "--p-c: 0.5 is above 1/k^2 = 0.25"),
        (["model", "dualq", "--rtt", "20ms", "--p-l", "1%", "--k", "0"], "--k: 0 is outside (0, inf)"),
        (
            ["model", "dualq", "--rtt", "20ms", "--p-l", "1%", "--rtt-classic", "0s"],
            "--rtt-classic: 0 is outside",
        ),
    ],
)
def test_bad_input_is_one_line_naming_the_field(app, args, fragment: str) -> None:
    r = cli(app, *args)
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.output
    assert fragment in lines[0], lines[0]
