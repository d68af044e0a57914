"""The emulator's self-check ladder: one Linux-profile flow over a 5 ms path at rising rates,
until a rate is not held (the flow does not fill 90% of the link, 1% of packets are written
more than 1 ms late, or a packet is lost outside the model)."""

from __future__ import annotations

import time
from collections.abc import Callable

from tcplab.emulate.run import LATE_P99_S

#: The rates tried, in order, until one is not held.
RATES_MBIT = (10, 50, 100, 200, 500, 1000, 2000)
CRITERION = (
    f"held: one flow fills >= 90% of the link, p99 lateness <= {LATE_P99_S * 1e3:g} ms, "
    "no packet lost outside the model"
)


def ladder(
    spin_us: float = 20.0,
    realtime: bool = True,
    progress: Callable[[int], None] | None = None,
    rates: tuple[int, ...] = RATES_MBIT,
) -> dict:
    from tcplab.emulate import emulate

    steps = []
    held = 0
    for mbit in rates:
        if progress is not None:
            progress(mbit)
        scenario = {
            "name": f"emulator-self-check-{mbit}",
            "duration": "5s",
            "warmup": "2s",
            "network": {
                "path": {
                    "hops": [
                        {"rate": f"{mbit}Mbit/s", "delay": "5ms", "queue": {"limit": max(100, mbit * 10)}}
                    ]
                }
            },
            "flows": [{"profile": "linux"}],
        }
        r = emulate(scenario, spin_us=spin_us, realtime=realtime, force=True)
        c = r.selfcheck
        link = r.links.filter(r.links["link"] == "hop0.fwd").row(0, named=True)
        outside = c["kernel_tx_dropped"] + c["kernel_rx_dropped"] + c["write_errors"]
        ok = c["lateness"]["p99_s"] <= LATE_P99_S and outside == 0 and link["utilization"] >= 0.9
        steps.append(
            {
                "rate_mbit": mbit,
                "held": ok,
                "utilization": link["utilization"],
                "goodput_mbit": r.flows["goodput_bps"][0] / 1e6,
                "lateness_p50_ms": c["lateness"]["p50_s"] * 1e3,
                "lateness_p99_ms": c["lateness"]["p99_s"] * 1e3,
                "lateness_max_ms": c["lateness"]["max_s"] * 1e3,
                "wakeup_p99_ms": c["wakeup"]["p99_s"] * 1e3,
                "busy_fraction": c["busy_fraction"],
                "lost_outside_model": outside,
                "realtime": c["realtime"],
            }
        )
        if not ok:
            break
        held = mbit
    return {
        "max_rate_bps": held * 1_000_000,
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "criterion": CRITERION,
        "steps": steps,
    }


def table(record: dict) -> tuple[list[str], list[list[str]]]:
    """The ladder as a table: header and rows of text."""
    from tcplab.tables import num

    header = [
        "rate\nMbit/s",
        "held",
        "util.",
        "goodput\nMbit/s",
        "late p50\nms",
        "late p99\nms",
        "late max\nms",
        "wake p99\nms",
        "busy",
    ]
    rows = [
        [
            str(s["rate_mbit"]),
            "yes" if s["held"] else "NO",
            num(s["utilization"], ".3f"),
            num(s["goodput_mbit"], ".2f"),
            num(s["lateness_p50_ms"], ".3f"),
            num(s["lateness_p99_ms"], ".3f"),
            num(s["lateness_max_ms"], ".3f"),
            num(s["wakeup_p99_ms"], ".3f"),
            num(s["busy_fraction"], ".2f"),
        ]
        for s in record["steps"]
    ]
    return header, rows
