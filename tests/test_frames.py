"""The result tables and traces as polars frames: column names and types exactly as
docs/traces.md documents them, trace contents, determinism, the Arrow binding and its stub."""

from __future__ import annotations

import ast
import io
import json
import re
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest

import tcplab
from tcplab import _core
from tcplab.simulation import NS2_EVENT, TABLES, TRACES

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "traces.md"
TYPES = {
    "u32": pl.UInt32,
    "u64": pl.UInt64,
    "f64": pl.Float64,
    "bool": pl.Boolean,
    "str": pl.String,
    "cat": pl.Categorical,
}

#: One hop with a 5-packet queue (slow start overflows it), a 0.3% Bernoulli loss module, a CBR
#: source beside the TCP flow, and every trace on.
SCENARIO = """
duration = "3s"
seed = 4
trace = { cwnd = true, queue = true, links = ["hop0.fwd", "hop0.rev"] }
[network.path]
hops = [{ rate = "10Mbit/s", delay = "20ms", queue = { limit = 5 }, loss = { model = "bernoulli", p = "0.3%" } }]
[[flows]]
tcp = "reno"
mss = 1000
[[traffic]]
kind = "cbr"
rate = "500kbit/s"
"""


def documented() -> dict[str, list[tuple[str, str, bool]]]:
    """{table: [(column, type, nullable)]} from the `### name` sections of docs/traces.md."""
    out: dict[str, list[tuple[str, str, bool]]] = {}
    section = None
    for line in DOC.read_text().splitlines():
        if m := re.match(r"^### (\w+)$", line):
            section = m.group(1)
        elif section and (m := re.match(r"^\| (\w+) \| (\w+)(\??) \|", line)) and m.group(1) != "column":
            out.setdefault(section, []).append((m.group(1), m.group(2), m.group(3) == "?"))
    return out


@pytest.fixture(scope="module")
def result():
    return tcplab.run(SCENARIO)


def test_the_doc_documents_every_table_and_trace():
    assert set(documented()) == {"run", *TABLES, *TRACES}


@pytest.mark.parametrize("name", [*TABLES, *TRACES])
def test_frames_have_the_documented_columns_and_types(result, name):
    frame = result.trace(name) if name in TRACES else getattr(result, name)
    doc = documented()[name]
    assert frame.columns == [c for c, _, _ in doc]
    assert [frame.schema[c] for c, _, _ in doc] == [TYPES[t] for _, t, _ in doc]
    for column, _, nullable in doc:
        if not nullable:
            assert frame[column].null_count() == 0, column


def test_the_run_table_is_documented_and_read_into_the_result(result):
    tables = _core.run_tables(SCENARIO)
    run = pl.DataFrame(tables["run"])
    assert run.columns == [c for c, _, _ in documented()["run"]]
    assert run.height == 1
    assert (result.seed, result.events, result.truncated) == (4, run["events"][0], False)
    assert result.duration_s == pytest.approx(3.0)


def test_packet_events_carry_their_kinds_and_causes(result):
    pk = result.trace("packets").with_columns(pl.col("event", "kind", "cause", "link_name").cast(pl.String))
    assert set(pk["event"]) == set(NS2_EVENT) - {"mark"}  # a drop-tail queue marks nothing
    assert set(pk["ecn"].cast(pl.String)) == {"not_ect"}
    assert set(pk["kind"]) == {"data", "ack", "udp"}
    causes = pk.group_by("event").agg(pl.col("cause").unique()).rows()
    assert sorted((e, sorted(c, key=str)) for e, c in causes) == [
        ("dequeue", [None]),
        ("drop", ["overflow"]),
        ("enqueue", [None]),
        ("lost", ["loss"]),
        ("receive", [None]),
    ]
    # link_name is the links table's name of the link index.
    names = result.links["link"].to_list()
    assert all(names[i] == n for i, n in pk.select("link", "link_name").unique().rows())
    assert (pk["time_s"] == pk["time_ns"] * 1e-9).all()
    # The events agree with the link's counters over the whole run.
    for t in result.totals.iter_rows(named=True):
        mine = pk.filter(pl.col("link_name") == t["link"])
        n = lambda ev: mine.filter(pl.col("event") == ev).height  # noqa: E731, B023 -- called in this iteration only
        assert t["arrivals"] == n("enqueue") + n("drop") + n("lost")
        assert t["delivered"] == n("receive")


def test_ssthresh_is_null_before_the_first_loss_and_a_window_after(result):
    cw = result.trace("cwnd").filter(pl.col("flow") == 0)
    ss = cw["ssthresh_bytes"]
    assert ss[0] is None
    first = ss.is_not_null().arg_true()[0]
    assert ss[first:].null_count() == 0
    assert ss.max() < 100_000, "a window of a few segments, not 2^62"
    assert result.trace("queue")["packets"].max() == 5


def test_an_empty_trace_keeps_its_columns():
    r = tcplab.run(SCENARIO, sets={"trace": {}})
    for name in TRACES:
        assert r.trace(name).height == 0
        assert r.trace(name).columns == [c for c, _, _ in documented()[name]]


def test_same_seed_identical_frames_and_parquet_bytes(result):
    again = tcplab.run(SCENARIO)

    def parquet(df: pl.DataFrame) -> bytes:
        buf = io.BytesIO()
        df.write_parquet(buf)
        return buf.getvalue()

    for name in (*TABLES, *TRACES):
        a = result.trace(name) if name in TRACES else getattr(result, name)
        b = again.trace(name) if name in TRACES else getattr(again, name)
        assert a.equals(b), name
        assert parquet(a) == parquet(b), name
    other = tcplab.run(SCENARIO, seed=5).trace("packets")
    assert not other.equals(result.trace("packets"))


def test_arrow_tables_read_with_pyarrow_too_and_more_than_once():
    t = _core.run_tables(SCENARIO)["flows"]
    assert len(t) == 1 and t.column_names[0] == "flow"
    a, b = pa.table(t), pa.record_batch(t)
    assert a.num_rows == b.num_rows == 1
    assert pa.table(t).equals(a)
    assert pl.DataFrame(t).equals(pl.from_arrow(a))


def test_results_survive_pickling_for_the_sweep_workers(result):
    import pickle

    slim = pickle.loads(pickle.dumps(result.without_traces()))
    assert slim.flows.equals(result.flows) and slim.events == result.events
    assert slim.trace("packets").height == 0 and result.trace("packets").height > 0


def test_json_output_has_no_nan(result):
    doc = json.loads(result.to_json())
    assert set(doc) == {
        "flows",
        "links",
        "totals",
        "traffic",
        "seed",
        "duration_s",
        "warmup_s",
        "window_s",
        "events",
        "warnings",
    }
    assert doc["flows"][0]["completion_time_s"] is None
    assert doc["traffic"][0]["mean_response_bytes"] is None  # a CBR group has no responses: NaN


def test_resolved_inputs_are_si_numbers():
    r = tcplab.resolve(SCENARIO)
    hop = r["network"]["path"]["hops"][0]
    assert (r["duration"], hop["delay"], hop["rate"], hop["loss"]["p"]) == (3.0, 0.02, 10_000_000, 0.003)
    assert isinstance(r["flows"][0]["rwnd"], int) and r["flows"][0]["min_rto"] == 1.0
    # A resolved scenario is a scenario: it resolves to itself.
    assert tcplab.resolve(r) == r


def test_the_stub_names_what_the_extension_has():
    tree = ast.parse((ROOT / "python" / "tcplab" / "_core.pyi").read_text())
    stub = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    stub |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}
    public = {n for n in dir(_core) if not n.startswith("_")} | {"__version__"}
    assert stub == public
    arrow = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ArrowTable")
    methods = {n.name for n in arrow.body if isinstance(n, ast.FunctionDef)}
    assert methods <= set(dir(_core.ArrowTable))
