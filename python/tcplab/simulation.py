"""Running one scenario: `tcplab.run(path_or_dict, **overrides) -> RunResult`."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

import polars as pl

from tcplab import _core
from tcplab.inputs import InputTooLarge, not_found, read_scenario_bytes

ScenarioError = _core.ScenarioError

#: Mathis et al. 1997 Table 1 constants used for the per-flow prediction in `tcplab run`:
#: periodic loss, C = sqrt(3/2) with an ACK per segment, sqrt(3/4) with delayed ACKs.
MATHIS_C = {"immediate": 1.22, "delayed": 0.87}


def toml_literal(value: Any) -> str:
    """A Python value as the TOML literal `--set` expects."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            raise ScenarioError(f"{value!r} is not a finite number")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_literal(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_literal(v)}" for k, v in value.items()) + "}"
    raise ScenarioError(f"{value!r} ({type(value).__name__}) cannot be written into a scenario")


def override_pairs(sets: Mapping[str, Any] | None, kwargs: Mapping[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for key, value in (sets or {}).items():
        out.append((key, value if isinstance(value, str) else toml_literal(value)))
    for key, value in kwargs.items():
        out.append((key.replace("__", "."), toml_literal(value)))
    return out


def _without_nones(value: Any, at: str = "") -> Any:
    """A dict's None values left out (TOML has no null): None means "the default", as in the
    optional fields of a resolved scenario, which can thus be run again. A NaN or an infinity
    (which neither TOML nor JSON holds) is refused naming its field, as the simulator names
    the fields it refuses (`flows[0].mss`)."""
    if isinstance(value, Mapping):
        return {
            k: _without_nones(v, f"{at}.{k}" if at else str(k)) for k, v in value.items() if v is not None
        }
    if isinstance(value, (list, tuple)):
        return [_without_nones(v, f"{at}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioError(f"{at or 'scenario'}: {value!r} is not a number (expected a finite number)")
    return value


def scenario_document(scenario: str | Path | Mapping[str, Any]) -> tuple[str, str]:
    """(text, format) of a scenario given as a path, TOML text, or a dict."""
    if isinstance(scenario, Mapping):
        return json.dumps(_without_nones(scenario)), "json"
    path = Path(scenario)
    if isinstance(scenario, Path) or (
        isinstance(scenario, str) and "\n" not in scenario and "=" not in scenario
    ):
        try:
            return read_scenario_bytes(path).decode("utf-8"), "toml"
        except InputTooLarge as e:
            raise ScenarioError(f"{path}: {e}") from None
        except FileNotFoundError:
            raise ScenarioError(f"{path}: {not_found(path)}") from None
        except IsADirectoryError:
            raise ScenarioError(f"{path}: is a directory (expected a scenario file)") from None
        except OSError as e:
            raise ScenarioError(f"{path}: cannot read the scenario ({e.strerror})") from None
        except UnicodeDecodeError as e:
            raise ScenarioError(
                f"{path}: not UTF-8 text (byte {e.start}: {e.reason}); a scenario is a TOML file in UTF-8"
            ) from None
    return str(scenario), "toml"


def resolve(
    scenario: str | Path | Mapping[str, Any], sets: Mapping[str, Any] | None = None, **overrides: Any
) -> dict:
    """The validated scenario with every default filled in, as a dict. Quantities are numbers
    in SI base units under the scenario's own keys: durations in seconds (float), rates in
    bit/s and sizes in bytes (int), probabilities as floats (docs/traces.md, "Units")."""
    text, fmt = scenario_document(scenario)
    return json.loads(_core.resolve_json(text, fmt, override_pairs(sets, overrides)))


def table_count(table: Mapping[str, Any]) -> int:
    """How many flows a resolved [[flows]] table stands for (its `count`, 1 when left out)."""
    return int(table.get("count", 1))


def flow_specs(resolved: Mapping[str, Any]) -> list[dict]:
    """The flows of a resolved scenario one by one: each [[flows]] table `count` times, in
    order, so item i is the table of the run's flow i."""
    return [f for f in resolved.get("flows") or [] for _ in range(table_count(f))]


#: The result tables of a run and the traces it may record (columns: docs/traces.md).
TABLES = ("flows", "traffic", "links", "totals")
TRACES = ("packets", "cwnd", "queue", "ns2_vars")

#: ns-2's letter for each packet event (the `event` column of the packets trace).
NS2_EVENT = {"enqueue": "+", "dequeue": "-", "drop": "d", "receive": "r", "lost": "l", "mark": "m"}


def json_records(df: pl.DataFrame) -> list[dict]:
    """Rows as dicts for JSON: a NaN (a mean of nothing) becomes null, as JSON has no NaN."""
    return [
        {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
        for row in df.iter_rows(named=True)
    ]


class RunResult:
    """What one simulation reports: per-flow and per-link tables over the measurement window,
    background groups, conservation totals, and opt-in traces, as polars DataFrames built from
    the simulator's Arrow record batches (the columns of docs/traces.md)."""

    def __init__(self, frames: Mapping[str, pl.DataFrame]):
        run = frames["run"].row(0, named=True)
        self.seed: int = run["seed"]
        # The core converts whole nanoseconds with ns * 1e-9 (60 s -> 60.00000000000001): these
        # are whole nanoseconds, so rounding to 9 decimals gives the exact value back.
        self.duration_s: float = round(run["duration_s"], 9)
        self.warmup_s: float = round(run["warmup_s"], 9)
        #: The measurement window's length (0: the run ended before warm-up).
        self.window_s: float = round(run["window_s"], 9)
        self.events: int = run["events"]
        #: True if a trace reached `trace.max_points` and stopped recording.
        self.truncated: bool = run["traces_truncated"]
        self._frames = {name: frames[name] for name in (*TABLES, *TRACES)}

    @classmethod
    def from_tables(cls, tables: Mapping[str, Any]) -> RunResult:
        """From `_core.run_tables`: Arrow tables (PyCapsule interface) to polars, no copy."""
        return cls({name: pl.DataFrame(table) for name, table in tables.items()})

    @property
    def warnings(self) -> list[str]:
        """What makes this run's numbers unfit to use, in words (empty when nothing does): an
        empty measurement window, one shorter than a round trip, a flow with no RTT sample."""
        out = []
        if self.window_s <= 0:
            out.append(
                f"the measurement window is empty: the run ended at {self.duration_s:g} s (every finite "
                f"transfer had completed), before warm-up at {self.warmup_s:g} s; rates and means are "
                "NaN (lower `warmup`, or transfer more `bytes`)"
            )
            return out
        rtts = [r for r in self.flows["mean_rtt_s"].to_list() if r is not None and r == r]
        if rtts and self.window_s < max(rtts):
            out.append(
                f"the measurement window ({self.window_s:g} s) is shorter than a round trip "
                f"({max(rtts) * 1e3:.1f} ms): its rates and means describe a fraction of one window"
            )
        silent = [
            f["flow"]
            for f in self.flows.iter_rows(named=True)
            if f["mean_rtt_s"] is None or f["mean_rtt_s"] != f["mean_rtt_s"]
        ]
        if silent:
            which = ", ".join(map(str, silent[:10])) + (" ..." if len(silent) > 10 else "")
            out.append(
                f"flow {which}: no RTT sample in the measurement window (no ACK came back): "
                "no mean RTT, no Mathis prediction"
            )
        return out

    def __repr__(self) -> str:
        from tcplab.report import result_repr

        return result_repr(self)

    def _repr_html_(self) -> str:  # Jupyter
        from tcplab.report import result_html

        return result_html(self)

    @property
    def flows(self) -> pl.DataFrame:
        """One row per flow over the measurement window (mean_rtt_s is NaN without samples;
        completion_time_s is null unless the flow is a finite transfer that completed)."""
        return self._frames["flows"]

    @property
    def links(self) -> pl.DataFrame:
        """One row per link direction over the measurement window; row i is link index i."""
        return self._frames["links"]

    @property
    def traffic(self) -> pl.DataFrame:
        """Background traffic, one row per `[[traffic]]` group (aggregated over its sources)."""
        return self._frames["traffic"]

    @property
    def totals(self) -> pl.DataFrame:
        """Conservation totals per link direction over the whole run."""
        return self._frames["totals"]

    def trace(self, name: str) -> pl.DataFrame:
        """A recorded trace (empty, with its columns, if it was not enabled): "packets"
        (`trace.links`), "cwnd" (`trace.cwnd`), "queue" (`trace.queue`) or "ns2_vars"
        (`trace.cwnd` with profile = "ns2"). Columns and units: docs/traces.md."""
        if name not in TRACES:
            raise KeyError(f"trace {name!r} does not exist (expected one of {', '.join(TRACES)})")
        return self._frames[name]

    def without_traces(self) -> RunResult:
        """The same result with the traces emptied (what the sweep store keeps)."""
        frames = {name: (df.clear() if name in TRACES else df) for name, df in self._frames.items()}
        out = RunResult.__new__(RunResult)
        out.__dict__.update(self.__dict__, _frames=frames)
        return out

    def with_predictions(self) -> pl.DataFrame:
        """The flows table plus the Mathis prediction from each flow's own p and RTT
        (C = 1.22 with an ACK per segment, 0.87 with delayed ACKs) and the ratio sim/model."""
        from tcplab.models import mathis

        rows = []
        for f in self.flows.iter_rows(named=True):
            c = MATHIS_C.get(f["ack"], float("nan"))
            rtt = f["mean_rtt_s"]
            pred = float("nan")
            if f["p"] and rtt and c == c:  # no Table 1 constant for this ACK policy: no prediction
                pred = float(mathis.throughput(mss=f["mss_bytes"], rtt=rtt, p=f["p"], c=c))
            rows.append(
                {
                    "flow": f["flow"],
                    "mathis_c": c,
                    "mathis_bps": pred,
                    "ratio": f["goodput_bps"] / pred if pred == pred and pred > 0 else float("nan"),
                }
            )
        extra = pl.DataFrame(
            rows,
            schema={"flow": pl.UInt32, "mathis_c": pl.Float64, "mathis_bps": pl.Float64, "ratio": pl.Float64},
        )
        return self.flows.join(extra, on="flow", how="left", maintain_order="left")

    def to_json(self) -> str:
        """The tables and the run's figures as one JSON document (what `tcplab run --json`
        prints): NaN is written as null."""
        out = io.StringIO()
        self.write_json(out)
        return out.getvalue()

    def write_json(self, out: TextIO) -> None:
        """`to_json`'s document, the same bytes, written to `out` record by record: a run of a
        million flows never holds its document or a dict per flow (docs/limits.md)."""
        tables = {"flows": self.flows, "links": self.links, "totals": self.totals, "traffic": self.traffic}
        values = {
            "seed": self.seed,
            "duration_s": self.duration_s,
            "warmup_s": self.warmup_s,
            "window_s": self.window_s,
            "events": self.events,
            "warnings": self.warnings,
        }
        out.write("{")
        for i, key in enumerate(sorted([*tables, *values])):
            out.write(("" if i == 0 else ", ") + json.dumps(key) + ": ")
            if key not in tables:
                out.write(json.dumps(values[key], sort_keys=True, allow_nan=False))
                continue
            out.write("[")
            for j, row in enumerate(tables[key].iter_rows(named=True)):
                record = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
                out.write(("" if j == 0 else ", ") + json.dumps(record, sort_keys=True, allow_nan=False))
            out.write("]")
        out.write("}")


def run(
    scenario: str | Path | Mapping[str, Any], sets: Mapping[str, Any] | None = None, **overrides: Any
) -> RunResult:
    """Runs one simulation.

    `scenario` is a path to a TOML file, TOML text, or a dict of the same shape. Overrides use the
    dotted paths of `--set`: pass them as `sets={"flows.0.tcp": "tahoe"}` or as keyword arguments
    with `__` for dots (`flows__0__tcp="tahoe"`, `seed=3`). Raises `ScenarioError` (a ValueError)
    naming the field for any invalid input. What makes the numbers unfit to use (an empty
    measurement window, one shorter than a round trip, a flow with no RTT sample) is issued as a
    `RunWarning`, as the command line prints it, and stays listed in `.warnings`.
    """
    import warnings

    text, fmt = scenario_document(scenario)
    result = RunResult.from_tables(_core.run_tables(text, fmt, override_pairs(sets, overrides)))
    for w in result.warnings:
        warnings.warn(w, RunWarning, stacklevel=2)
    return result


class RunWarning(UserWarning):
    """A run's numbers are unfit to use as they stand (see `RunResult.warnings`)."""
