"""Running one scenario: `tcplab.run(path_or_dict, **overrides) -> RunResult`."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import polars as pl

from tcplab import _core

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


def _overrides(sets: Mapping[str, Any] | None, kwargs: Mapping[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for key, value in (sets or {}).items():
        out.append((key, value if isinstance(value, str) else toml_literal(value)))
    for key, value in kwargs.items():
        out.append((key.replace("__", "."), toml_literal(value)))
    return out


def _document(scenario: str | Path | Mapping[str, Any]) -> tuple[str, str]:
    """(text, format) of a scenario given as a path, TOML text, or a dict."""
    if isinstance(scenario, Mapping):
        return json.dumps(scenario), "json"
    path = Path(scenario)
    if isinstance(scenario, Path) or (isinstance(scenario, str) and "\n" not in scenario and "=" not in scenario):
        try:
            return path.read_text(), "toml"
        except FileNotFoundError:
            raise ScenarioError(f"{path}: no such scenario file") from None
        except OSError as e:
            raise ScenarioError(f"{path}: cannot read the scenario ({e.strerror})") from None
    return str(scenario), "toml"


def resolve(scenario: str | Path | Mapping[str, Any], sets: Mapping[str, Any] | None = None, **overrides: Any) -> dict:
    """The validated scenario with every default filled in, as a dict."""
    text, fmt = _document(scenario)
    return json.loads(_core.resolve_json(text, fmt, _overrides(sets, overrides)))


@dataclass
class RunResult:
    """What one simulation reports: per-flow and per-link tables over the measurement window,
    conservation totals, and opt-in traces."""

    raw: dict = field(repr=False)

    @property
    def flows(self) -> pl.DataFrame:
        df = pl.DataFrame(self.raw["flows"], infer_schema_length=None)
        return df.with_columns(pl.col(pl.Float64).fill_null(float("nan")))

    @property
    def links(self) -> pl.DataFrame:
        return pl.DataFrame(self.raw["links"], infer_schema_length=None)

    @property
    def traffic(self) -> pl.DataFrame:
        """Background traffic, one row per `[[traffic]]` group (aggregated over its sources)."""
        rows = self.raw.get("traffic", [])
        return pl.DataFrame(rows, infer_schema_length=None) if rows else pl.DataFrame()

    @property
    def totals(self) -> pl.DataFrame:
        return pl.DataFrame(self.raw["totals"], infer_schema_length=None)

    @property
    def events(self) -> int:
        return int(self.raw["events"])

    def trace(self, name: str) -> pl.DataFrame:
        """A recorded trace: "cwnd" (time_s, flow, cwnd_bytes, ssthresh_bytes) or "queue"
        (time_s, link, packets). Enable them with `trace.cwnd = true` / `trace.queue = true`."""
        columns = {
            "cwnd": ["time_s", "flow", "cwnd_bytes", "ssthresh_bytes"],
            "queue": ["time_s", "link", "packets"],
        }
        if name not in columns:
            raise KeyError(f"trace {name!r} does not exist (expected one of {sorted(columns)})")
        rows = self.raw["traces"][name]
        df = pl.DataFrame(rows, schema=columns[name], orient="row")
        if name == "queue":
            names = pl.Series("link_name", [self.raw["links"][i]["link"] for i in df["link"].to_list()], dtype=pl.String)
            df = df.with_columns(names)
        return df

    def with_predictions(self) -> pl.DataFrame:
        """The flows table plus the Mathis prediction from each flow's own p and RTT
        (C = 1.22 with an ACK per segment, 0.87 with delayed ACKs) and the ratio sim/model."""
        from tcplab.models import mathis

        rows = []
        for f in self.raw["flows"]:
            c = MATHIS_C.get(f["ack"], float("nan"))
            rtt = f["mean_rtt_s"]
            pred = float("nan")
            if f["p"] and rtt and c == c:  # no Table 1 constant for this ACK policy: no prediction
                pred = float(mathis.throughput(mss=f["mss_bytes"], rtt=rtt, p=f["p"], c=c))
            rows.append({"flow": f["flow"], "mathis_c": c, "mathis_bps": pred,
                         "ratio": f["goodput_bps"] / pred if pred == pred and pred > 0 else float("nan")})
        return self.flows.join(pl.DataFrame(rows), on="flow")

    def to_json(self) -> str:
        return json.dumps({"flows": self.raw["flows"], "links": self.raw["links"], "totals": self.raw["totals"],
                           "traffic": self.raw.get("traffic", []),
                           "seed": self.raw["seed"], "duration_s": self.raw["duration_s"],
                           "warmup_s": self.raw["warmup_s"], "events": self.raw["events"]}, sort_keys=True)


def run(scenario: str | Path | Mapping[str, Any], sets: Mapping[str, Any] | None = None, **overrides: Any) -> RunResult:
    """Runs one simulation.

    `scenario` is a path to a TOML file, TOML text, or a dict of the same shape. Overrides use the
    dotted paths of `--set`: pass them as `sets={"flows.0.tcp": "tahoe"}` or as keyword arguments
    with `__` for dots (`flows__0__tcp="tahoe"`, `seed=3`). Raises `ScenarioError` (a ValueError)
    naming the field for any invalid input.
    """
    text, fmt = _document(scenario)
    return RunResult(json.loads(_core.run_json(text, fmt, _overrides(sets, overrides))))
