"""Figures: both kinds, three formats by extension, open markers for timeouts, clear errors."""

from __future__ import annotations

import subprocess
import sys

import matplotlib
import polars as pl
import pytest

from tcplab import plots

matplotlib.use("Agg")


def frame() -> pl.DataFrame:
    p = [1e-4, 1e-3, 1e-2, 3e-2, 1e-1, 2e-1]
    return pl.DataFrame({
        "run_key": [str(i) for i in range(6)], "flow": 0, "tcp": ["reno", "reno", "reno", "tahoe", "tahoe", "tahoe"],
        "ack": "delayed", "mss_bytes": 1460, "mean_rtt_s": 0.06, "p": p, "timeouts": [0, 0, 1, 0, 2, 5],
        "goodput_bps": [0.9 / x**0.5 * 1460 * 8 / 0.06 for x in p], "ca_events": 1, "non_ca_events": 0,
    })


@pytest.mark.parametrize("kind", plots.KINDS)
@pytest.mark.parametrize("ext, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_each_kind_in_each_format(tmp_path, kind, ext, magic):
    out = plots.plot(frame(), tmp_path / f"fig{ext}", kind=kind, show_fit=True)
    assert out.read_bytes()[:5].startswith(magic)
    assert not list(tmp_path.glob(".*.tmp"))


def test_timeouts_are_open_markers_and_groups_are_labelled(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    seen = {}
    original = plt.close

    def capture(fig=None):
        seen["fig"] = fig
    monkeypatch.setattr(plt, "close", capture)
    plots.plot(frame(), tmp_path / "f.png", kind="window-vs-p")
    monkeypatch.setattr(plt, "close", original)
    ax = seen["fig"].axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["reno, delayed (no timeouts)", "reno, delayed (timeouts)", "tahoe, delayed (no timeouts)",
                      "tahoe, delayed (timeouts)", "model, C = 1"]
    open_ = [c for c in ax.collections if c.get_label().endswith("(timeouts)")]
    assert open_ and all(len(c.get_facecolor()) == 0 or c.get_facecolor()[0][3] == 0 for c in open_)
    assert sum(len(c.get_offsets()) for c in open_) == 3
    assert ax.get_xscale() == ax.get_yscale() == "log"
    plt.close(seen["fig"])


def test_errors(tmp_path):
    with pytest.raises(plots.FitError, match=r"unknown figure format '.jpg'"):
        plots.plot(frame(), tmp_path / "f.jpg")
    with pytest.raises(plots.FitError, match="--kind fig9"):
        plots.plot(frame(), tmp_path / "f.png", kind="fig9")
    with pytest.raises(plots.FitError, match="nothing to plot"):
        plots.plot(frame().with_columns(goodput_bps=pl.lit(0.0)), tmp_path / "f.png")
    store = tmp_path / "s.parquet"
    store.mkdir()
    frame().write_parquet(store / "part-a.parquet")
    r = subprocess.run([sys.executable, "-m", "tcplab.cli", "plot", store, "-o", tmp_path / "x.gif"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("error: ") and "'.gif'" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "tcplab.cli", "plot", store, "-o", tmp_path / "x.svg", "--kind",
                        "model-vs-sim", "--p", "measured"], capture_output=True, text=True)
    assert r.returncode == 0 and (tmp_path / "x.svg").exists()
