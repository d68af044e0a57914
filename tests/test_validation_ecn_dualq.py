"""docs/validation/ecn.md part 4 (`tcplab.validation.ecn_dualq`): the L and C sojourn times it
reads from a packet trace, its checks, and the links table's DualPI2 columns it shows beside them."""

import polars as pl

import tcplab
from tcplab.validation import ecn_dualq


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


def _row(ratio: float, l_p99: float, scaling: str = "none") -> dict:
    return {
        "rtt_ms": 10,
        "classic": "cubic",
        "rtt_scaling": scaling,
        "ack": "delayed",
        "ratio": ratio,
        "L_p99_ms": l_p99,
    }


def test_checks_fail_where_the_targets_are_missed_and_skip_the_scaling_rows():
    got = ecn_dualq.checks([_row(1.2, 0.5), _row(0.4, 2.5), _row(0.1, 9.0, "rate")])
    assert [ok for _, ok, _ in got] == [True, True, False, False]
    assert got[2][2] == "0.40" and got[3][2] == "2.50 ms"


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


def _full(classic: str, rtt: int, scaling: str, ratio: float, seen: float, ack: str = "delayed") -> dict:
    r = {"classic": classic, "rtt_ms": rtt, "rtt_scaling": scaling, "ratio": ratio, "model_base": 1.22}
    r["ack"] = ack
    r.update(model_seen=seen, classic_bps=30e6, l4s_bps=30e6 / ratio, classic_rtt_s=0.02, l4s_rtt_s=0.005)
    r.update(p_c=1e-3, p_l=0.06, k_seen=1.9, classic_loss_events=50, w_c=26.0, w_c_model=40.0)
    r.update(w_l=38.0, w_l_model=34.0)
    for q in ("L", "C"):
        r.update({f"{q}_{k}": 1.0 for k in ("p50_ms", "p99_ms", "col_p99_ms")})
        r.update({f"{q}_{k}": 10 for k in ("packets", "drops", "marks")})
    return r


def test_the_section_says_where_the_targets_are_missed_from_the_numbers():
    rows = [
        _full("reno", 5, "none", 0.19, 0.34),
        _full("reno", 100, "none", 0.9, 1.1),
        _full("reno", 5, "rate", 0.56, 0.37),
        _full("reno", 5, "none", 0.3, 0.34, ack="immediate") | {"w_c": 38.0},
    ]
    text = "\n".join(ecn_dualq.section(rows, quick=True))
    assert "| reno | 5 ms | none | 30.0 | 157.9 | 0.19 | 1.22 / 0.34 |" in text
    assert "below 0.5 at 5 ms" in text
    assert "(reno at 5 ms: 0.19 -> 0.56)" in text
    assert "In 2 of the 2 cells without it" in text
    assert "reno's window is 0.65 x its Reno response, Prague's 1.12 x 2 / p_L" in text
    assert "Outside [0.5, 2]: reno at 5 ms (0.19)." in text
    # The ACK-every-segment trace row is no cell of the targets, and is read against its twin.
    assert "| reno, ACK every segment | 5 ms | none |" in text
    assert "reno's window at 5 ms is 0.95 x its response, against 0.65 with delayed ACKs" in text
    assert "and the ratio 0.30 against 0.19" in text
    assert len(ecn_dualq.checks(rows)) == 4
