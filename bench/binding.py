"""Time to get a run's results into polars: the flows frame of a 10,000-flow dumbbell and a
1,000,000-event packet trace. Prints, per case, the time of the core call (simulation and
building the Arrow tables) and of the conversion to a polars frame (median of 3).

Run: .venv/bin/python bench/binding.py  (figures in bench/README.md)."""

from __future__ import annotations

import json
import statistics
import time

import polars as pl

from tcplab import _core


def dumbbell(n: int) -> dict:
    """n Reno flows for 2 ms: the run is mostly set-up, the flows table has n rows."""
    return {
        "duration": "2ms",
        "seed": 1,
        "network": {
            "dumbbell": {
                "bottleneck": {"rate": "10Gbit/s", "delay": "10ms", "queue": {"limit": 1000}},
                "access_rate": "10Gbit/s",
                "access_delay": "1ms",
            }
        },
        "flows": [{"tcp": "reno"}] * n,
    }


def traced(points: int) -> dict:
    """Four Reno flows over one 100 Mbit/s hop, both directions traced, until `points` events."""
    return {
        "duration": "60s",
        "seed": 1,
        "trace": {"links": ["hop0.fwd", "hop0.rev"], "max_points": points},
        "network": {"path": {"hops": [{"rate": "100Mbit/s", "delay": "10ms", "queue": {"limit": 100}}]}},
        "flows": [{"tcp": "reno"}] * 4,
    }


def timed(f, reps: int = 3):
    walls, value = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        value = f()
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls), value


def main() -> None:
    for label, doc, table in [
        ("10,000-flow flows frame", dumbbell(10_000), "flows"),
        ("1,000,000-event packet trace", traced(1_000_000), "packets"),
    ]:
        text = json.dumps(doc)
        t_core, tables = timed(lambda: _core.run_tables(text, "json", []))  # noqa: B023 -- called in this iteration only
        t_frame, df = timed(lambda: pl.DataFrame(tables[table]))  # noqa: B023 -- called in this iteration only
        print(f"{label}: {df.height} rows, core call {t_core:.3f} s, to polars {t_frame:.4f} s")


if __name__ == "__main__":
    main()
