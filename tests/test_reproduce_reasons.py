"""The measured reasons of Jacobson's Figs 3-4 and 7-9 and Barakat's Figs 9-11 hold on results shaped
like tcplab's and fail on results that contradict them: synthetic rows and traces fed to the items'
evaluations, no simulation. (Barakat's Fig. 4 is in tests/test_reproduce_checks.py.)"""

from __future__ import annotations

import polars as pl
import pytest

from tcplab.reproduce import core
from tcplab.reproduce.core import Context


def _item(item_id: str) -> core.Item:
    return next(i for i in core.items("all") if i.id == item_id)


class Runs(Context):
    """A context whose job i has the rows `rows[i]` (a list of flow dicts) and the traces `traces[i]`."""

    def __init__(self, item, rows: list[list[dict]], traces: dict[int, dict[str, pl.DataFrame]]):
        super().__init__(item, True, [], [], None, None)
        self._r, self._t = rows, traces

    def rows(self, job=None):
        assert isinstance(job, int)
        return pl.DataFrame(self._r[job])

    def trace(self, job, name):
        return self._t.get(job, {}).get(name, pl.DataFrame())


def _packets(events: list[tuple[float, str, str, str, int]]) -> pl.DataFrame:
    """A packet trace from (time_s, link, event, kind, seq) with the columns the items read."""
    rows = [
        {
            "time_s": t,
            "time_ns": int(round(t * 1e9)),
            "link_name": link,
            "event": ev,
            "kind": kind,
            "seq": seq,
            "flow": 0,
        }
        for t, link, ev, kind, seq in events
    ]
    return pl.DataFrame(rows).sort("time_ns")


# ---- Jacobson Figs 3-4: go-back-N's timeouts ----------------------------------------------------------


def _bsd43_trace(timeouts: int, resent: int, queued: int) -> pl.DataFrame:
    """4.3BSD's window of 32 sent at 0 s; at each of `timeouts` instants 1, 2, ... s the first
    `resent` packets again, the bottleneck then holding `queued` packets (enqueued, not yet out)."""
    ev: list[tuple[float, str, str, str, int]] = []
    for k in range(32):
        ev.append((k * 1e-3, "hop0.fwd", "enqueue", "data", 512 * k))
    for j in range(1, timeouts + 1):
        for q in range(queued):
            ev.append((j - 0.5 + q * 1e-3, "hop1.fwd", "enqueue", "data", 0))
        for k in range(resent):
            ev.append((j + k * 1e-3, "hop0.fwd", "enqueue", "data", 512 * k))
    return _packets(ev)


def _figs34(share: float, resent: int, queued: int):
    """Every set-up with the same result: 4.3BSD with `share` of its 400 packets retransmissions in
    timeouts that each re-send `resent` packets and find `queued` at the bottleneck."""
    from tcplab.reproduce.items.jacobson.startup import STARTUP_SETUPS

    item = _item("jacobson-figs3-4")
    rtx = round(share * 400)
    timeouts = max(1, rtx // resent)
    old = {"segments_sent": 400, "segments_retransmitted": rtx, "timeouts": timeouts, "goodput_bps": 13e3 * 8}
    new = {"segments_sent": 500, "segments_retransmitted": 0, "timeouts": 0, "goodput_bps": 25e3 * 8}
    rows, traces = [], {}
    for j in range(len(STARTUP_SETUPS)):
        rows += [[old], [new]]
        traces[2 * j] = {"packets": _bsd43_trace(timeouts, resent, queued)}
        traces[2 * j + 1] = {"packets": _bsd43_trace(0, 0, 0)}
    assert item.evaluate is not None
    return item.evaluate(Runs(item, rows, traces))


def _reasons(out) -> dict[str, bool]:
    return {c.name: c.passed for c in out.checks if not c.paper}


def test_go_back_n_counts_the_timeouts_and_the_queue_they_find():
    from tcplab.reproduce.items.jacobson.startup import go_back_n

    g = go_back_n(_bsd43_trace(timeouts=2, resent=5, queued=7))
    assert g["fired"] == pytest.approx([1.0, 2.0])
    assert g["waiting"] == [7, 14]  # nothing dequeued in this trace
    assert g["most"] == 3


def test_jacobson_figs34_explained_as_tcplab_runs():
    out = _figs34(share=0.40, resent=32, queued=0)
    assert all(_reasons(out).values()), out.checks
    assert out.status == core.EXPLAINED


@pytest.mark.parametrize(
    "resent, queued, failing",
    [
        (8, 0, "go-back-N"),  # a timeout re-sends a quarter of the window: not go-back-N
        (32, 20, "the 4.3BSD timer fires once"),  # the timer fires into a full queue
    ],
)
def test_jacobson_figs34_reasons_fail_on_a_contradicting_result(resent, queued, failing):
    out = _figs34(share=0.40, resent=resent, queued=queued)
    failed = [name for name, ok in _reasons(out).items() if not ok]
    assert len(failed) == 1 and failed[0].startswith(failing), failed
    assert out.status == core.FAILED


# ---- Jacobson Figs 7-9: bursts and their drops ---------------------------------------------------------


def _burst_trace(flows: dict[int, tuple[int, bool]]) -> pl.DataFrame:
    """Each flow sends 100 bursts of `size` back-to-back packets, 0.1 s apart; with `drop_last` the
    last packet of every burst is dropped at the link."""
    rows = []
    for flow, (size, drop_last) in flows.items():
        for b in range(100):
            for k in range(size):
                t = 1.0 + b * 0.1 + flow * 0.01 + k * 4e-4
                ev = "drop" if drop_last and k == size - 1 else "enqueue"
                rows.append(
                    {
                        "time_s": t,
                        "time_ns": int(round(t * 1e9)),
                        "link_name": "bottleneck.fwd",
                        "event": ev,
                        "kind": "data",
                        "seq": 512 * (b * size + k),
                        "flow": flow,
                    }
                )
    return pl.DataFrame(rows).sort("time_ns")


def test_bursts_sizes_and_drops():
    from tcplab.reproduce.items.jacobson.conversations import bursts

    b = bursts(_burst_trace({0: (6, True), 1: (2, False)}), flow=0)
    assert b.height == 600 and set(b["burst"].to_list()) == {6}
    assert b["dropped"].sum() == 100


def _flows(old_loss: float, new_loss: float, olds=(1, 3)) -> list[dict]:
    out = []
    for i in range(4):
        old = i in olds
        out.append(
            {
                "flow": i,
                "ack": "bsd43" if old else "delayed",
                "segments_sent": 2100,
                "segments_retransmitted": round(2100 * (old_loss if old else new_loss)),
                "timeouts": 1,
                "active_goodput_bps": 8e3 * (7.5 if old else 8.5),
                "bytes_delivered": 2**20,
                "completion_time_s": 150.0 + i,
            }
        )
    return out


def _figs79(big_dropped: bool):
    """Fig. 9's split as tcplab gets it (old receivers lose less) in every set-up; the old receivers'
    flows send bursts of 6, the new ones' of 2; `big_dropped`: the bursts of 6 lose a packet each
    (the paper's mechanism), else the bursts of 2 do."""
    from tcplab.reproduce.items.jacobson.conversations import SETUPS

    item = _item("jacobson-figs7-9")
    rows = [_flows(0.36, 0.36)]  # without congestion avoidance
    traces = {}
    for j, (_, olds) in enumerate(SETUPS):
        rows.append(_flows(0.002, 0.005, olds))
        shape = {i: ((6, big_dropped) if i in olds else (2, not big_dropped)) for i in range(4)}
        traces[1 + j] = {"packets": _burst_trace(shape)}
    assert item.evaluate is not None
    return item.evaluate(Runs(item, rows, traces))


def test_jacobson_figs79_explained_as_tcplab_runs():
    out = _figs79(big_dropped=False)
    assert all(_reasons(out).values()), out.checks
    assert out.status == core.EXPLAINED


def test_jacobson_figs79_burst_reason_fails_where_long_bursts_lose_more():
    out = _figs79(big_dropped=True)
    failed = [name for name, ok in _reasons(out).items() if not ok]
    assert len(failed) == 1 and failed[0].startswith("a packet arriving in a burst of 5"), failed
    assert out.status == core.FAILED


# ---- Barakat Figs 9-11: the readings of T and B --------------------------------------------------------


def _figs911(monkeypatch, lost_by_reading: dict[int, set[int]], dt_kbps_lost: float):
    """Every run's cycles made up: Drop Tail loses the retransmission at the B of `lost_by_reading`
    (reading index -> B), with `dt_kbps_lost` kb/s there and 900 elsewhere; Random Drop and
    Drop-from-Front never lose it and get 850 kb/s; W_D falls with alpha as the model says."""
    from tcplab.reproduce.items.barakat import policies as p

    jobs: list[dict] = []
    for b in p.BS_911:
        for a, _ in p.POLICIES:
            lost = a == "drop-tail" and b in lost_by_reading[0]
            w_d = p.model_911(b)[4][a]
            kb = (dt_kbps_lost if lost else 900.0) if a == "drop-tail" else 850.0
            jobs.append({"lost": lost, "w_d": w_d, "kbps": kb})
    for r in range(1, len(p.READINGS)):
        for b in p.BS_911:
            jobs.append({"lost": b in lost_by_reading[r], "w_d": 100.0, "kbps": 800.0})

    def cycles(trace):
        job = jobs[trace["job"][0]]
        return [
            {
                "rtx_lost": job["lost"],
                "w_d": job["w_d"],
                "w_s": 2.0 if job["lost"] else job["w_d"] / 2,
                "losses": 2,
            }
        ] * 8

    monkeypatch.setattr(p, "tahoe_cycles", cycles)
    item = _item("barakat-figs9-11")
    rows = [[{"goodput_bps": j["kbps"] * 1e3 * 472 / 512}] for j in jobs]
    traces = {i: {"cwnd": pl.DataFrame({"job": [i]})} for i in range(len(jobs))}
    assert item.evaluate is not None
    return item.evaluate(Runs(item, rows, traces))


TCPLAB_READINGS = {
    0: {12, 13, 14, 16, 18},
    1: {11, 12, 13, 16, 17, 18},
    2: {12, 13, 14, 17},
    3: {11, 12, 13, 16},
}


def test_barakat_figs911_explained_as_tcplab_runs(monkeypatch):
    out = _figs911(monkeypatch, TCPLAB_READINGS, 750.0)
    assert all(_reasons(out).values()), out.checks
    assert out.status == core.EXPLAINED


@pytest.mark.parametrize(
    "readings, kbps, failing",
    [
        ({r: {12, 13, 14, 16, 18} for r in range(4)}, 750.0, "the B that lose the retransmission turn"),
        (TCPLAB_READINGS, 850.0, "wherever Drop Tail loses the retransmission"),
    ],
)
def test_barakat_figs911_reasons_fail_on_a_contradicting_result(monkeypatch, readings, kbps, failing):
    out = _figs911(monkeypatch, readings, kbps)
    failed = [name for name, ok in _reasons(out).items() if not ok]
    assert len(failed) == 1 and failed[0].startswith(failing), failed
    assert out.status == core.FAILED


def test_barakat_figs911_reproduced_on_the_papers_numbers(monkeypatch):
    """The paper's B (13, 16, 18) under the item's reading and 717 kb/s there: every paper check passes."""
    readings = {**TCPLAB_READINGS, 0: {13, 16, 18}}
    out = _figs911(monkeypatch, readings, 717.0)
    assert out.status == core.REPRODUCED, [c for c in out.checks if c.paper and not c.passed]


# ---- Jacobson App. C: the set-ups the paper leaves open ----------------------------------------------


def _appc_trace(rtt: float, drops: int = 0, rtx: int = 0, pause: float = 0.0) -> pl.DataFrame:
    """The HTTP connection (flow 1) at the gateway: 100 data packets 80 ms apart, `drops` of them
    dropped there and `rtx` retransmissions afterwards; an ACK for every other packet `rtt` after
    it, the second half of them `pause` s later still."""
    base = {"flow": 1, "len": 512, "ack": 0, "retransmit": False, "cause": None}
    rows = [
        {
            **base,
            "time_s": k * 0.08,
            "link_name": "bottleneck.fwd",
            "event": "enqueue",
            "kind": "data",
            "seq": 512 * k,
        }
        for k in range(100)
    ]
    rows += [
        {
            **base,
            "time_s": j * 0.08 + 1e-3,
            "link_name": "bottleneck.fwd",
            "event": "drop",
            "kind": "data",
            "seq": 512 * j,
            "cause": "overflow",
        }  # fmt: skip
        for j in range(drops)
    ]
    rows += [
        {
            **base,
            "time_s": 8.0 + j * 0.08,
            "link_name": "bottleneck.fwd",
            "event": "enqueue",
            "kind": "data",
            "seq": 512 * j,
            "retransmit": True,
        }  # fmt: skip
        for j in range(rtx)
    ]
    rows += [
        {
            **base,
            "time_s": 2 * k * 0.08 + rtt + (pause if k >= 25 else 0.0),
            "link_name": "bottleneck.rev",
            "event": "receive",
            "kind": "ack",
            "seq": 0,
            "ack": 512 * (2 * k + 2),
        }  # fmt: skip
        for k in range(50)
    ]
    df = pl.DataFrame(rows, schema_overrides={"cause": pl.String})
    return df.with_columns((pl.col("time_s") * 1e9).round().cast(pl.Int64).alias("time_ns")).sort("time_ns")


def _appc(spurious: int = 0, pause_in: int | None = None):
    """App. C's runs shaped as tcplab's: the burst overflows the 8-packet queue without the restart,
    queues in the 100-packet one; `spurious` retransmissions without a drop there; a `pause_in`
    set-up of the paper's open ones whose ACKs stop for 5 s while data is outstanding."""
    from tcplab.reproduce.items.jacobson.appendices import IDLE_CASES, IDLE_OPEN

    item = _item("jacobson-appc")
    shapes = {
        (8, True): (0.5, 1, 1),
        (8, False): (0.8, 10, 10),
        (100, True): (0.5, 0, 0),
        (100, False): (1.5, 0, spurious),
    }
    traces = {i: {"packets": _appc_trace(*shapes[case])} for i, case in enumerate(IDLE_CASES)}
    for j in range(1, len(IDLE_OPEN)):
        pause = 5.0 if j == pause_in else 0.0
        traces[len(IDLE_CASES) + j - 1] = {"packets": _appc_trace(1.5, pause=pause)}
    assert item.evaluate is not None
    return item.evaluate(Runs(item, [], traces))


def test_jacobson_appc_explained_as_tcplab_runs():
    out = _appc()
    assert all(_reasons(out).values()), out.checks
    assert out.status == core.EXPLAINED
    (table,) = [t for title, t in out.extra if "the paper leaves open" in title]
    assert len(table) == 1 + 5 and all(row[3] == "0" for row in table[1:])  # no retransmission without a drop


def test_jacobson_appc_reproduced_with_spurious_timeouts():
    out = _appc(spurious=3)
    assert out.status == core.REPRODUCED, [c for c in out.checks if c.paper and not c.passed]


def test_jacobson_appc_open_setups_reason_fails_where_acks_stop():
    """A set-up whose ACKs stop for longer than its rto while data is outstanding: the timer could expire."""
    out = _appc(pause_in=1)
    failed = [name for name, ok in _reasons(out).items() if not ok]
    assert len(failed) == 1 and failed[0].startswith("the set-ups the paper leaves open"), failed
    assert out.status == core.FAILED


# ---- Mathis Sec. 6: the link delays the paper leaves open -------------------------------------------


def _gateway_flows(delay: float, scale: float = 1.0, queue: float = 0.1) -> list[dict]:
    """Three cross flows and the through flow, with RTTs of the parking lot's propagation and one
    `queue` s per congested gateway, and the share Eq. 12's general form gives for them (the through
    flow's goodput times `scale`)."""
    import math

    rtt0, rtti = 2 * 5 * delay + 3 * queue, 2 * delay + queue
    share = 1 / (1 + math.sqrt(3) * rtt0 / rtti)
    cross = 1.2e6
    through = cross * share / (1 - share) * scale
    return [{"goodput_bps": through, "mean_rtt_s": rtt0, "timeouts": 0}] + [
        {"goodput_bps": cross, "mean_rtt_s": rtti, "timeouts": 0} for _ in range(3)
    ]


def _gateways(scale_at: float | None = None):
    from tcplab.reproduce.items.mathis import gateways as g

    item = _item("mathis-eq12")
    rows = [_gateway_flows(d, 0.5 if d == scale_at and b is None else 1.0) for d, b in g.cases()]
    assert item.evaluate is not None
    return item.evaluate(Runs(item, rows, {}))


def test_mathis_eq12_reproduced_where_each_premise_holds():
    out = _gateways()
    assert out.status == core.REPRODUCED, [c for c in out.checks if not c.passed]
    assert any("the paper leaves open" in title for title, _ in out.extra)


def test_mathis_eq12_fails_on_a_contradicting_result():
    out = _gateways(scale_at=0.100)  # the through flow's goodput halved at Eq. 12's delay
    failed = {c.name.split(",")[0] for c in out.checks if not c.passed}
    assert failed == {"Eq. 12 as the paper states it (propagation RTTs", "Eq. 12's general form"}, failed
    assert out.status == core.FAILED
