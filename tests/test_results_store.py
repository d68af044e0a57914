"""The results store: atomic run files, compaction, recovery from a killed writer, the lock, inputs."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import polars as pl
import pytest

from tcplab import results
from tcplab.results import Store, StoreError

ROOT = Path(__file__).resolve().parents[1]


def rows(key: str, flows: int = 1, **extra) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "run_key": [key] * flows,
            "flow": list(range(flows)),
            "goodput_bps": [1.0] * flows,
            **{k: [v] * flows for k, v in extra.items()},
        }
    )


def test_flatten_inputs_uses_dotted_paths_and_si_units():
    import tcplab

    resolved = tcplab.resolve(ROOT / "scenarios" / "dumbbell.toml")
    flat = results.flatten_inputs(resolved)
    assert flat["name"] == "dumbbell" and flat["seed"] == 1
    assert flat["duration"] == 120.0 and flat["network.dumbbell.bottleneck.delay"] == 0.01
    assert flat["network.dumbbell.bottleneck.rate"] == 20_000_000
    assert flat["network.dumbbell.access_delays.7"] == 0.04  # list entries by index, as --set
    assert flat["flows.3.tcp"] == "reno" and isinstance(flat["flows.0.mss"], int)
    assert isinstance(flat["duration"], float) and isinstance(flat["network.dumbbell.bottleneck.rate"], int)
    # Every quantity is a number: no string left that starts like one ("30000000ns", "0.01").
    assert not [k for k, v in flat.items() if isinstance(v, str) and v[:1].isdigit()]
    # A name that looks like a number stays what it is.
    assert results.flatten_inputs({"network": {"p": 0.01}, "name": "1e3"}) == {
        "network.p": 0.01,
        "name": "1e3",
    }


def test_write_compact_and_read(tmp_path):
    with Store(tmp_path / "s") as s:
        s.write_run("b", rows("b", 2, x=1))
        s.write_run("a", rows("a", 1, y="z"))  # a column the other run does not have
        assert sorted(p.name for p in (tmp_path / "s").glob("*.parquet")) == [
            "run-a.parquet",
            "run-b.parquet",
        ]
        assert s.keys() == {"a", "b"}
        assert s.compact() == 2
    names = sorted(p.name for p in (tmp_path / "s").glob("*.parquet"))
    assert len(names) == 1 and names[0].startswith("part-")
    df = results.load(tmp_path / "s")
    assert df.select("run_key", "flow").rows() == [("a", 0), ("b", 0), ("b", 1)]
    assert df["y"].to_list() == ["z", None, None] and df["x"].to_list() == [None, 1, 1]
    assert results.query(tmp_path / "s", "SELECT count(*) AS n, count(y) AS y FROM runs").rows() == [(3, 1)]


def test_a_killed_writer_leaves_nothing_half_visible(tmp_path):
    d = tmp_path / "s"
    with Store(d) as s:
        s.write_run("a", rows("a"))
        s.compact()
        s.write_run("b", rows("b"))
    # What a kill can leave: a temporary file being written, and (killed during compaction,
    # after the part was renamed in, before the run files were deleted) a run file also in a part.
    (d / ".run-c.parquet.999.tmp").write_bytes(b"PAR1 half a file")
    part = next(d.glob("part-*.parquet"))
    shutil.copy(part, d / "run-a.parquet")
    df = results.load(d)
    assert df["run_key"].to_list() == ["a", "b"]  # no duplicate, no partial run c
    assert results.query(d, "SELECT count(*) FROM runs").item() == 2
    assert Store(d).keys() == {"a", "b"}
    with Store(d) as s:  # the next writer cleans up
        assert not list(d.glob(".*.tmp")) and not (d / "run-a.parquet").exists()
        assert s.keys() == {"a", "b"}


def test_batches_are_one_file_each_and_merge_into_one_part(tmp_path):
    d = tmp_path / "s"
    with Store(d) as s:
        b = results.Batch(s, max_runs=3, max_seconds=3600)
        for k in "edcba":
            b.add(rows(k, 2))
        # Three runs made a batch; two are held (not on disk yet).
        assert len(b.written) == 1 and s.keys() == {"e", "d", "c"}
        assert sorted(p.name for p in d.glob("*.parquet")) == [b.written[0].name]
        b.flush()
        assert len(b.written) == 2 and s.keys() == set("abcde")
        assert b.compact() == 5
        assert b.written == []
    names = [p.name for p in d.glob("*.parquet")]
    assert len(names) == 1 and names[0].startswith("part-")
    df = results.load(d)
    assert df.select("run_key", "flow").rows() == [(k, f) for k in "abcde" for f in (0, 1)]
    # The merged part is named by the runs it holds: the same runs in other batches, the same file.
    with Store(tmp_path / "t") as s:
        b = results.Batch(s, max_runs=2, max_seconds=3600)
        for k in "abcde":
            b.add(rows(k, 2))
        b.compact()
    assert [p.name for p in (tmp_path / "t").glob("*.parquet")] == names
    # A batch is also written once its oldest run has waited max_seconds.
    with Store(tmp_path / "u") as s:
        b = results.Batch(s, max_runs=100, max_seconds=0.0)
        b.add(rows("a"))
        assert len(b.written) == 1 and s.keys() == {"a"}


def test_a_compaction_killed_before_deleting_its_batches_leaves_no_duplicate(tmp_path):
    d = tmp_path / "s"
    with Store(d) as s:
        b = results.Batch(s, max_runs=2, max_seconds=3600)
        for k in "abc":
            b.add(rows(k))
        b.flush()
        batches = [p.read_bytes() for p in b.written]
        b.compact()
    # What a kill between the merged part's rename and the batches' deletion leaves.
    for i, data in enumerate(batches):
        (d / f"part-batch{i}.parquet").write_bytes(data)
    assert len(list(d.glob("part-*.parquet"))) == 3
    assert results.load(d)["run_key"].to_list() == ["a", "b", "c"]
    assert results.query(d, "SELECT count(*) FROM runs").item() == 3
    with Store(d) as s:  # the next writer deletes the parts whose runs are all in another
        assert len(list(d.glob("part-*.parquet"))) == 1
        assert s.keys() == {"a", "b", "c"}


def test_write_is_atomic_when_the_write_fails(tmp_path, monkeypatch):
    d = tmp_path / "s"
    with Store(d) as s:

        def boom(self, target, **kw):  # a path, or the buffer the store encodes into
            if hasattr(target, "write"):
                target.write(b"partial")
            else:
                Path(target).write_bytes(b"partial")
            raise OSError("disk full")

        monkeypatch.setattr(pl.DataFrame, "write_parquet", boom)
        with pytest.raises(OSError, match="disk full"):
            s.write_run("a", rows("a"))
    assert os.listdir(d) == [".lock"]


def test_one_writer_at_a_time_and_clear_errors(tmp_path):
    d = tmp_path / "s"
    with Store(d), pytest.raises(StoreError, match="another tcplab sweep is writing to this store"):
        Store(d).open_for_writing()
    with Store(d):  # the lock was released
        pass
    with pytest.raises(StoreError, match="no such results store"):
        results.load(tmp_path / "nope")
    (tmp_path / "file.parquet").write_bytes(b"x")
    with pytest.raises(StoreError, match="file.parquet: not a Parquet file"):
        results.load(tmp_path / "file.parquet")
    assert results.load(d).height == 0
    with pytest.raises(StoreError, match="exists and is not a results store directory"):
        Store(tmp_path / "file.parquet").open_for_writing()


BAD_STORES = {
    "empty.parquet": (b"", "not a Parquet file (empty file)"),
    "text.parquet": (b"duration = 10s\n", "not a Parquet file"),
    "png.parquet": (b"\x89PNG\r\n\x1a\n" + bytes(200), "not a Parquet file"),
}


@pytest.mark.parametrize("command", [["fit"], ["plot", "-o", "f.png"], ["query", "_", "SELECT 1"]])
@pytest.mark.parametrize("name", [*BAD_STORES, "other.parquet", "dir-with-bad-part"])
def test_commands_on_what_is_not_a_store_say_so_in_one_line(cli, tmp_path, command, name):
    target = tmp_path / name
    if name == "other.parquet":
        pl.DataFrame({"a": [1, 2], "b": ["x", "y"]}).write_parquet(target)
        expected = "not a tcplab results store (a Parquet file without a run_key column"
    elif name == "dir-with-bad-part":
        target.mkdir()
        (target / "part-1.parquet").write_bytes(b"PAR1")
        expected = "part-1.parquet: not a Parquet file"
    else:
        content, expected = BAD_STORES[name]
        target.write_bytes(content)
    args = [command[0], str(target), *command[1:]]
    if command[0] == "query":
        args = ["query", str(target), "SELECT 1"]
    if command[0] == "plot":
        args = ["plot", str(target), "-o", str(tmp_path / "f.png")]
    r = cli(*args)
    assert r.returncode == 2, r.stdout
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ") and expected in r.stderr, r.stderr
    assert not (tmp_path / "f.png").exists()


def test_query_empty_sql_a_bad_statement_and_huge_results(cli, tmp_path):
    store = tmp_path / "s.parquet"
    store.mkdir()
    rows("a").write_parquet(store / "part-a.parquet")
    for sql in ("", "   ", "\n"):
        r = cli("query", str(store), sql)
        assert (
            r.returncode == 2 and r.stderr.startswith("error: query: empty SQL") and r.stderr.count("\n") == 1
        )
    r = cli("query", str(store), "SELEKT 1")
    assert r.returncode == 2 and r.stderr.startswith("error: query: ") and r.stderr.count("\n") == 1
    # ten million rows: a table shows a page and says so; csv and json stream every row
    big = "SELECT range AS i FROM range(10000000)"
    r = cli("query", str(store), big, timeout=60)
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 2 + 50 and "first 50 rows" in r.stderr
    r = cli("query", str(store), big, "--limit", "3")
    assert r.stdout.split() == ["i", "─" * 7, "0", "1", "2"] or r.stdout.split()[2:] == ["0", "1", "2"]
    r = cli("query", str(store), big, "--format", "csv", timeout=120)
    assert r.returncode == 0 and r.stdout.count("\n") == 10_000_001
    r = cli(
        "query", str(store), "SELECT range AS i, 'nan'::DOUBLE AS x FROM range(70000)", "--format", "json"
    )
    doc = json.loads(r.stdout)
    assert len(doc) == 70000 and doc[69999] == {"i": 69999, "x": None}
    r = cli("query", str(store), "SELECT 1 WHERE false", "--format", "json")
    assert json.loads(r.stdout) == []
    r = cli("query", "--help")
    assert "table|csv|json" in r.stdout.replace(" ", "")


MANY = """
seed = 2
duration = "2s"
[network.dumbbell]
bottleneck = { rate = "50Mbit/s", delay = "10ms", queue = { limit = 100 } }
"""


def test_a_runs_store_row_does_not_grow_with_its_flows(tmp_path):
    # A dumbbell's flows each have their own access and egress links: the store keeps the
    # shared links' columns only (the rest stay in the run's links table), and a per-flow list
    # of round trips is one list column. 40 flows and 4 flows give the same columns.
    import tcplab
    from tcplab.sweep import run_key

    def store_columns(n: int) -> list[str]:
        rtts = ", ".join(f'"{25 + i % 50}ms"' for i in range(n))
        text = MANY + f"rtts = [{rtts}]\n[[flows]]\ncount = {n}\n"
        resolved = tcplab.resolve(text)
        r = tcplab.run(text)
        assert r.links.filter(~pl.col("shared")).height == 4 * n
        df = results.rows(run_key(resolved), resolved, r)
        assert df.height == n
        return df.columns

    small, large = store_columns(4), store_columns(80)
    assert [c for c in small if not c.startswith("network.dumbbell.rtts")] == [
        c for c in large if not c.startswith("network.dumbbell.rtts")
    ]
    assert "network.dumbbell.rtts.3" in small and "network.dumbbell.rtts" in large
    assert any(c.startswith("link.bottleneck.fwd.") for c in large)
    assert not any(c.startswith("link.access") or c.startswith("link.egress") for c in large)


def test_a_scenario_too_wide_for_a_store_is_refused_before_it_runs(tmp_path):
    from conftest import run_cli

    scenario = tmp_path / "wide.toml"
    scenario.write_text(MANY + '[[flows]]\ntcp = "reno"\n' * 200)
    out = tmp_path / "wide.parquet"
    r = run_cli("run", str(scenario), "--out", str(out))
    assert r.returncode == 2 and not out.exists()
    assert "input columns" in r.stderr and "count = N" in r.stderr and "Traceback" not in r.stderr


def test_many_flows_print_as_their_distribution(tmp_path):
    from conftest import run_cli

    scenario = tmp_path / "many.toml"
    scenario.write_text(MANY + "[[flows]]\ncount = 40\n")
    r = run_cli("run", str(scenario))
    assert r.returncode == 0, r.stderr
    assert "their distribution" in r.stdout and "40 flows (reno/del)" in r.stdout
    assert "Jain's fairness index" in r.stdout
    for label in ("min", "10%", "median", "90%", "max", "mean"):
        assert any(line.startswith(label) for line in r.stdout.splitlines()), label
    wide = run_cli("run", str(scenario), "--wide")
    assert "their distribution" not in wide.stdout
