"""Parvez Sec. V's stored kernel runs: what the page says of how each run's endpoint threads were
scheduled and of the load, from the rows as stored (synthetic rows, no kernel run)."""

from __future__ import annotations

from tcplab.reproduce.items.parvez import kernel as k


def _row(realtime: int | None = None, normal: int | None = None, load: str = "1.00 1.00 1.00") -> dict:
    r: dict = {"stack": "reno", "p": 0.01, "seed": 1, "load_before": load, "load_after": load}
    if realtime is not None:
        r["endpoints_realtime"], r["endpoints_normal"] = realtime, normal
    return r


def test_all_runs_at_sched_fifo():
    assert k.scheduling([_row(2, 0), _row(2, 0), _row(2, 0)]) == (
        "Endpoint threads: 3 of the 3 runs that record it had all their endpoint threads "
        "(the sender and the sink) at SCHED_FIFO."
    )


def test_runs_with_a_thread_at_normal_priority_are_counted_apart():
    text = k.scheduling([_row(2, 0), _row(1, 1), _row(0, 2)])
    assert "1 of the 3 runs that record it had all their endpoint threads" in text
    assert "2 had some at normal priority" in text


def test_rows_without_the_record_are_said_to_predate_it():
    text = k.scheduling([_row(2, 0), _row(), _row()])
    assert "1 of the 1 runs that record it" in text
    assert "2 runs predate that record" in text
    only_old = k.scheduling([_row(), _row()])
    assert (
        only_old.startswith("Endpoint threads: 2 runs predate that record") and "SCHED_FIFO" not in only_old
    )


def test_load_range_orders_by_number_not_text():
    rows = [_row(load="9.03 11.39 8.01"), _row(load="10.55 9.19 7.98"), _row(load="1.20 1.00 0.90")]
    assert k.load_range(rows) == ("1.20 1.00 0.90", "10.55 9.19 7.98")
    assert k.load_range([]) == ("?", "?")


def test_a_measured_row_keeps_the_self_checks_endpoint_counts(monkeypatch):
    """measure_one stores the run's `endpoints_realtime` and `endpoints_normal` as the emulator's
    self-check reports them (a stand-in for the emulator: no kernel run)."""
    import types

    import polars as pl

    import tcplab.emulate

    flow = {"goodput_bps": 1e6, "bytes_delivered": 1, "fast_retransmits": 2, "timeouts": 0, "loss_events": 2,
            "segments_sent": 9, "segments_retransmitted": 2, "mean_rtt_s": 0.05, "kernel_rtt_s": 0.05,
            "kernel_retrans": 2, "kernel_rto_events": 0}  # fmt: skip
    check = {"lateness": {"p99_s": 1e-4}, "endpoints_realtime": 1, "endpoints_normal": 1}
    fake = types.SimpleNamespace(flows=pl.DataFrame([flow]), selfcheck=check, duration_s=60.0, warmup_s=10.0,
                                 warnings=[])  # fmt: skip
    monkeypatch.setattr(tcplab.emulate, "emulate", lambda text, sets: fake)
    row = k.measure_one("reno", 0.01, 1, {})
    assert (row["endpoints_realtime"], row["endpoints_normal"]) == (1, 1)
    assert k.scheduling([row]).startswith("Endpoint threads: 0 of the 1 runs")
