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
