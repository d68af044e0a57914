"""docs/validation/ecn.md part 4 (`tcplab.validation.ecn_dualq`): the L and C sojourn times it
reads from a packet trace, its checks, and the links table's DualPI2 columns it shows beside them."""

import polars as pl

import tcplab
from tcplab.validation import ecn_dualq, ecn_prague


def _trace(rows: list[tuple]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=["flow", "event", "time_s", "ecn", "cause"], orient="row")


def test_lane_delays_pair_each_flows_departures_with_its_arrivals_in_order():
    # Flow 0 (Not-ECT, C): arrivals at 0, 1, 2; the second is dropped at dequeue (sojourn), so
    # the departures at 3 and 5 are the first and third: waits 3 and 3. Flow 1 (ECT(1), L):
    # arrivals at 0.5 and 1, departures at 1.5 and 4: waits 1 and 3, but the first left before
    # the warm-up (1.6) and is not counted.
    t = _trace(
        [
            (0, "enqueue", 0.0, "not_ect", None),
            (1, "enqueue", 0.5, "ect1", None),
            (0, "enqueue", 1.0, "not_ect", None),
            (1, "enqueue", 1.0, "ect1", None),
            (1, "dequeue", 1.5, "ect1", None),
            (0, "enqueue", 2.0, "not_ect", None),
            (0, "dequeue", 3.0, "not_ect", None),
            (0, "drop", 3.5, "not_ect", "sojourn"),
            (0, "drop", 3.6, "not_ect", "overflow"),
            (1, "mark", 4.0, "ce", "threshold"),
            (1, "dequeue", 4.0, "ce", None),
            (0, "dequeue", 5.0, "not_ect", None),
        ]
    )
    assert ecn_dualq.lane_delays(t, 1.6) == {"L": [3.0], "C": [3.0, 3.0]}


def _row(ratio: float, l_p99: float, scaling: str = ecn_dualq.DEFAULT) -> dict:
    return {
        "rtt_ms": 10,
        "classic": "cubic",
        "rtt_scaling": scaling,
        "endpoints": ecn_dualq.LINUX,
        "ratio": ratio,
        "L_p99_ms": l_p99,
    }


def test_checks_fail_where_the_targets_are_missed_and_skip_the_rows_without_the_default():
    got = ecn_dualq.checks([_row(1.2, 0.5), _row(0.4, 2.5), _row(0.1, 9.0, "none")])
    assert [ok for _, ok, _ in got] == [True, True, False, False]
    assert got[2][2] == "0.40" and got[3][2] == "2.50 ms"


def test_the_grid_runs_prague_at_its_default_and_without_scaling():
    cells = ecn_dualq.grid(quick=False)
    assert {(s, e) for _, _, s, e in cells} == {
        (ecn_dualq.DEFAULT, ecn_dualq.LINUX),
        ("none", ecn_dualq.LINUX),
        (ecn_dualq.DEFAULT, ecn_dualq.RFC),
    }
    assert len(cells) == 21
    # The default is the key left out, so the page runs what `cc = "prague"` gives.
    flows = ecn_dualq.scenario(5, "cubic", ecn_dualq.DEFAULT, quick=True)["flows"]
    assert flows[1]["cc"] == {"algorithm": "prague"}
    # Both flows are Linux endpoints: the profile's variant (SACK), not one the file names.
    assert [f.get("profile") for f in flows] == ["linux", "linux"]
    assert all("tcp" not in f for f in flows)
    resolved = tcplab.resolve(ecn_dualq.scenario(5, "reno", ecn_dualq.DEFAULT, quick=True))
    assert resolved["flows"][0]["cc"]["growth"] == "abc"
    rfc = ecn_dualq.scenario(10, "reno", ecn_dualq.DEFAULT, quick=True, endpoints=ecn_dualq.RFC)["flows"]
    assert [f.get("tcp") for f in rfc] == ["reno", "reno"] and all("profile" not in f for f in rfc)
    assert ecn_dualq.scenario(5, "cubic", "none", quick=True)["flows"][1]["cc"]["rtt_scaling"] == "none"
    # The warm-up covers 600 base round trips.
    assert ecn_dualq.durations(False, 100) == (260.0, 60.0)
    assert ecn_dualq.durations(False, 10) == (60.0, 20.0)


def test_dualpi2_links_columns_split_the_bottleneck_by_queue_and_are_zero_elsewhere():
    # The grid's scenario, briefly: the columns add up to the link's own counters.
    sc = ecn_dualq.scenario(10, "reno", "none", quick=True)
    sc.update(duration="3s", warmup="1s")
    sc.pop("trace")
    links = tcplab.run(sc).links
    b = links.filter(pl.col("link") == "bottleneck.fwd").row(0, named=True)
    assert b["l_packets"] > 0 and b["c_packets"] > 0
    # Dequeued (the queue's count) and fully sent (the link's) differ by the packet on the wire
    # at either edge of the window.
    assert abs(b["l_packets"] + b["c_packets"] - b["packets_sent"]) <= 1
    assert b["l_drops"] + b["c_drops"] == b["drops_queue"]
    assert b["l_marks"] + b["c_marks"] == b["marks"]
    assert 0 < b["l_sojourn_mean_s"] <= b["l_sojourn_p99_s"] * 1.02
    assert 0 < b["c_sojourn_mean_s"] <= b["c_sojourn_p99_s"] * 1.02
    access = links.filter(pl.col("link") == "access0.fwd").row(0, named=True)
    assert all(access[f"{q}_{k}"] == 0 for q in "lc" for k in ("packets", "drops", "marks"))


def test_prague_s_response_is_read_from_its_counters():
    # 1000 reductions in 10 s at a mean RTT of 10 ms: f = 1 per round trip; p_L = 0.05, alpha
    # 0.05: the balance 2 x 0.95 / 0.05 = 38 segments, and a window of 40 is 40 / 38 of it.
    flow = {
        "mean_rtt_s": 0.01,
        "goodput_bps": 40 * 8 * 1448 / 0.01,
        "ecn_reductions": 1000,
        "ecn_alpha_mean": 0.05,
    }
    link = {"l_marks": 50, "l_packets": 1000}
    r = ecn_prague.response(flow, link, 10.0, 1448)
    assert abs(r["f"] - 1) < 1e-12 and abs(r["w_l"] - 40) < 1e-9 and abs(r["w_p_2"] - 1) < 1e-9
    assert abs(r["w_balance"] - 40 / 38) < 1e-12
    # Without alpha (a controller that keeps none): no balance, no error.
    r = ecn_prague.response(flow | {"ecn_alpha_mean": None}, link, 10.0, 1448)
    assert r["w_balance"] != r["w_balance"]


def test_prague_alone_keeps_a_steady_p_and_its_window_is_its_balance():
    # The control, briefly (10 ms, recur): no step marks, and W p_L / 2 near the 1.21 of a
    # response held for a round trip (tcplab.validation.ecn_prague's doc).
    rows = ecn_prague.run(quick=True, log=lambda _: None)
    (r,) = rows
    assert r["step_marks"] == 0 and r["util"] > 0.99
    assert abs(r["w_p_2"] / ecn_prague.EXPECTED["recur"] - 1) < 0.05, r
    assert abs(r["w_balance"] - 1) < 0.03, r
    assert 0.7 < r["f"] < 0.9, r


def _full(
    classic: str, rtt: int, scaling: str, ratio: float, seen: float, endpoints: str = ecn_dualq.LINUX
) -> dict:
    r = {"classic": classic, "rtt_ms": rtt, "rtt_scaling": scaling, "ratio": ratio, "model_base": 1.22}
    r["endpoints"] = endpoints
    r.update(model_seen=seen, classic_bps=30e6, l4s_bps=30e6 / ratio, classic_rtt_s=0.02, l4s_rtt_s=0.005)
    r.update(p_c=1e-3, p_l=0.06, k_seen=1.9, classic_loss_events=50, w_c=26.0, w_c_model=40.0)
    r.update(w_l=38.0, w_l_model=34.0, f=0.8, alpha=0.06, w_balance=0.95, step_marks=0)
    r.update(f_rtt=0.25, f_k=0.95, f_c=26.0 / 40.0, f_l=38.0 / 34.0)
    for q in ("L", "C"):
        r.update({f"{q}_{k}": 1.0 for k in ("p50_ms", "p99_ms", "col_p99_ms")})
        r.update({f"{q}_{k}": 10 for k in ("packets", "drops", "marks")})
    return r


def test_the_section_says_where_the_targets_are_missed_from_the_numbers():
    d = ecn_dualq.DEFAULT
    rows = [
        _full("reno", 5, d, 0.19, 0.34),
        _full("reno", 100, d, 0.9, 1.1),
        _full("reno", 5, "none", 0.3, 0.34) | {"f": 0.7},
        _full("reno", 5, d, 0.3, 0.34, endpoints=ecn_dualq.RFC) | {"w_c": 38.0, "f_c": 0.95},
    ]
    text = "\n".join(ecn_dualq.section(rows, quick=True))
    assert "| reno | 5 ms | rate (default) | 30.0 | 157.9 | 0.19 | 1.22 / 0.34 |" in text
    assert "| reno | 5 ms | none | 30.0 | 100.0 | 0.30 |" in text
    assert "below 0.5 at 5 ms" in text
    assert "reno at 5 ms 0.30 -> 0.19 (f 0.70 -> 0.80)" in text
    assert "(reno 5 ms: 5.0 ms" in text
    assert "0 step marks in 4 cells" in text
    assert "at f = 0.70 reductions per round trip with `none`" in text
    assert "| 0.80 | 1.00 | 0.95 |" in text
    assert "| reno | 5 ms | rate (default) | 0.19 | 0.25 | 0.95 | 0.65 | 1.12 |" in text
    assert (
        "Outside [0.5, 2], with each cell's factors: reno at 5 ms, 0.19 (RTT 0.25, coupling 0.95, "
        "Classic window 0.65, Prague window 1.12)." in text
    )
    # The RFC endpoints' trace row is no cell of the targets, and is read against its twin.
    assert "| reno, RFC endpoints | 5 ms | rate (default) |" in text
    assert "reno's window at 5 ms is 0.95 x its response, against 0.65 on Linux's" in text
    assert "and the ratio 0.30 against 0.19" in text
    assert len(ecn_dualq.checks(rows)) == 4


def _alone(marking: str, rtt: int, w_p_2: float, f: float) -> dict:
    return {
        "marking": marking,
        "rtt_ms": rtt,
        "rtt_l_s": rtt / 1e3,
        "util": 1.0,
        "p_l": 0.01,
        "step_marks": 0,
        "w_l": 200.0 * w_p_2,
        "w_p_2": w_p_2,
        "f": f,
        "alpha": 0.01,
        "w_balance": 1.0,
    }


def test_the_control_compares_f_off_the_expected_window_with_f_on_it_by_marking():
    rows = [
        _alone("recur", 5, 1.21, 0.81),
        _alone("recur", 10, 1.22, 0.80),
        _alone("recur", 50, 1.34, 0.74),
        _alone("random", 5, 1.37, 0.73),
        _alone("random", 50, 1.51, 0.66),
        _alone("random", 100, 1.57, 0.64),
    ]
    text = "\n".join(ecn_prague.section(rows))
    assert "within 3% of the expected value in 3 of 6 runs; above it in recur at 50 ms (1.34, f 0.74)" in text
    assert (
        "fewer responses per round trip than where it holds: random f 0.64 to 0.66 against 0.73 at 5 ms; "
        "recur f 0.74 against 0.80 to 0.81 at 5, 10 ms." in text
    )
