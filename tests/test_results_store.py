"""The results store: atomic run files, compaction, recovery from a killed writer, the lock, inputs."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import polars as pl
import pytest

from tcplab import results
from tcplab.results import Store, StoreError

ROOT = Path(__file__).resolve().parents[1]


def rows(key: str, flows: int = 1, **extra) -> pl.DataFrame:
    return pl.DataFrame({"run_key": [key] * flows, "flow": list(range(flows)), "goodput_bps": [1.0] * flows,
                         **{k: [v] * flows for k, v in extra.items()}})


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
    assert results.flatten_inputs({"network": {"p": 0.01}, "name": "1e3"}) == {"network.p": 0.01, "name": "1e3"}


def test_write_compact_and_read(tmp_path):
    with Store(tmp_path / "s") as s:
        s.write_run("b", rows("b", 2, x=1))
        s.write_run("a", rows("a", 1, y="z"))  # a column the other run does not have
        assert sorted(p.name for p in (tmp_path / "s").glob("*.parquet")) == ["run-a.parquet", "run-b.parquet"]
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


def test_write_is_atomic_when_the_write_fails(tmp_path, monkeypatch):
    d = tmp_path / "s"
    with Store(d) as s:
        def boom(self, path, **kw):
            Path(path).write_bytes(b"partial")
            raise OSError("disk full")
        monkeypatch.setattr(pl.DataFrame, "write_parquet", boom)
        with pytest.raises(OSError, match="disk full"):
            s.write_run("a", rows("a"))
    assert os.listdir(d) == [".lock"]


def test_one_writer_at_a_time_and_clear_errors(tmp_path):
    d = tmp_path / "s"
    with Store(d):
        with pytest.raises(StoreError, match="another tcplab sweep is writing to this store"):
            Store(d).open_for_writing()
    with Store(d):  # the lock was released
        pass
    with pytest.raises(StoreError, match="no such results store"):
        results.load(tmp_path / "nope")
    (tmp_path / "file.parquet").write_bytes(b"x")
    with pytest.raises(StoreError, match="not a results store"):
        results.load(tmp_path / "file.parquet")
    assert results.load(d).height == 0
