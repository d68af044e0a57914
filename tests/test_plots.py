"""Figures: both kinds, three formats by extension, open markers for timeouts, clear errors."""

from __future__ import annotations

import subprocess
import sys

import polars as pl
import pytest

from tcplab import plots


def frame() -> pl.DataFrame:
    p = [1e-4, 1e-3, 1e-2, 3e-2, 1e-1, 2e-1]
    return pl.DataFrame(
        {
            "run_key": [str(i) for i in range(6)],
            "flow": 0,
            "tcp": ["reno", "reno", "reno", "tahoe", "tahoe", "tahoe"],
            "ack": "delayed",
            "mss_bytes": 1460,
            "mean_rtt_s": 0.06,
            "p": p,
            "timeouts": [0, 0, 1, 0, 2, 5],
            "goodput_bps": [0.9 / x**0.5 * 1460 * 8 / 0.06 for x in p],
            "ca_events": 1,
            "non_ca_events": 0,
        }
    )


@pytest.mark.parametrize("kind", plots.KINDS)
@pytest.mark.parametrize("ext, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_each_kind_in_each_format(tmp_path, kind, ext, magic):
    fig = plots.plot(frame(), tmp_path / f"fig{ext}", kind=kind, show_fit=True)
    assert type(fig).__name__ == "Figure"
    assert (tmp_path / f"fig{ext}").read_bytes()[:5].startswith(magic)
    assert not list(tmp_path.glob(".*.tmp"))


def test_timeouts_are_open_markers_and_groups_are_labelled():
    fig = plots.plot(frame(), kind="window-vs-p")
    ax = fig.axes[0]
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[:5] == [
        "reno, delayed (no timeouts)",
        "reno, delayed (timeouts)",
        "tahoe, delayed (no timeouts)",
        "tahoe, delayed (timeouts)",
        "Mathis model, C = 1",
    ]
    open_ = [c for c in ax.collections if c.get_label().endswith("(timeouts)")]
    assert open_ and all(len(c.get_facecolor()) == 0 or c.get_facecolor()[0][3] == 0 for c in open_)
    assert sum(len(c.get_offsets()) for c in open_) == 3
    assert ax.get_xscale() == ax.get_yscale() == "log"


def test_reference_lines_name_their_constants():
    labels = [t.get_text() for t in plots.plot(frame()).legends[0].get_texts()]
    # delayed ACKs only in the data: Table 1's two delayed-ACK constants, and PFTK with b = 2
    assert "Table 1: C = 0.87 (periodic loss, delayed ACKs)" in labels
    assert "Table 1: C = 0.93 (random loss, delayed ACKs)" in labels
    assert not any("ACK each" in x for x in labels)
    assert any(x.startswith("PFTK full, b = 2, RTT = 60 ms") for x in labels)
    bare = [t.get_text() for t in plots.plot(frame(), reference=False).legends[0].get_texts()]
    assert not any(x.startswith(("Table 1", "PFTK")) for x in bare)


def many_groups() -> pl.DataFrame:
    rows = []
    for delay in [0.003, 0.01, 0.03, 0.1, 0.3]:
        for mss in (536, 1460, 4312):
            for tcp in ("reno", "tahoe", "sack"):
                for p in (1e-3, 1e-2):
                    rows.append(
                        {
                            "run_key": f"{len(rows)}",
                            "flow": 0,
                            "tcp": tcp,
                            "ack": "delayed",
                            "mss_bytes": mss,
                            "flows.0.mss": mss,
                            "network.path.hops.0.delay": delay,
                            "mean_rtt_s": 2 * delay,
                            "p": p,
                            "timeouts": 0,
                            "goodput_bps": 0.9 / p**0.5 * mss * 8 / (2 * delay),
                            "ca_events": 60,
                            "non_ca_events": 0,
                        }
                    )
    return pl.DataFrame(rows)


def test_many_groups_are_faceted_with_short_legends_and_units():
    fig = plots.plot(many_groups(), by=["network.path.hops.0.delay", "flows.0.mss", "tcp"])
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == 5  # one per delay
    assert [ax.get_title() for ax in panels] == [
        "delay = 3 ms",
        "delay = 10 ms",
        "delay = 30 ms",
        "delay = 100 ms",
        "delay = 300 ms",
    ]
    # One legend for the figure: the groups (the same in every panel) once.
    assert len(fig.legends) == 1 and not any(ax.get_legend() for ax in panels)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    groups = [x for x in labels if x.startswith("mss")]
    assert len(groups) == plots.MAX_GROUPS
    assert groups[0] == "mss = 536 B, reno"
    assert "... 1 more groups (narrow --by)" in labels


def test_plotting_leaves_the_global_backend_and_pyplot_alone(tmp_path):
    code = (
        "import matplotlib; matplotlib.use('pdf'); import matplotlib.pyplot as plt\n"
        "import polars as pl\n"
        "from tcplab import plots\n"
        "import tests.test_plots as t\n"
        "fig = plots.plot(t.frame())\n"
        "assert matplotlib.get_backend() == 'pdf', matplotlib.get_backend()\n"
        "assert plt.get_fignums() == [], plt.get_fignums()\n"
        "print(type(fig).__name__)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=plots_root())
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "Figure"


def plots_root():
    from pathlib import Path

    return Path(__file__).resolve().parent.parent


def test_trace_plots_from_a_run(tmp_path, cli):
    traces = tmp_path / "tr"
    r = cli(
        "run",
        "scenarios/quickstart.toml",
        "--set",
        "duration=12s",
        "--set",
        "warmup=2s",
        "--set",
        'trace.links=["hop1.fwd"]',
        "--set",
        "trace.cwnd=true",
        "--trace-out",
        str(traces),
    )
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in traces.iterdir()) == [
        "cwnd.parquet",
        "links.parquet",
        "packets.parquet",
        "run.parquet",
    ]
    for kind in plots.TRACE_KINDS[::2]:  # cwnd, seq
        out = tmp_path / f"{kind}.png"
        r = cli("plot", str(traces), "--kind", kind, "-o", str(out))
        assert r.returncode == 0, r.stderr
        assert out.read_bytes()[:4] == b"\x89PNG"
    r = cli("plot", str(traces), "--kind", "queue", "-o", str(tmp_path / "q.png"))
    assert r.returncode == 2 and r.stderr.startswith("error: --kind queue: no queue trace recorded")
    fig = plots.plot_trace(traces, "cwnd", mss=1460)
    assert fig.axes[0].get_ylabel() == "window (packets)"
    assert {t.get_text() for t in fig.legends[0].get_texts()} == {"flow 0 cwnd", "flow 0 ssthresh"}


def test_errors(tmp_path):
    with pytest.raises(plots.FitError, match=r"unknown figure format '.jpg'"):
        plots.plot(frame(), tmp_path / "f.jpg")
    with pytest.raises(plots.FitError, match="--kind fig9: expected one of window-vs-p, model-vs-sim, cwnd"):
        plots.plot(frame(), tmp_path / "f.png", kind="fig9")
    with pytest.raises(plots.FitError, match="nothing to plot"):
        plots.plot(frame().with_columns(goodput_bps=pl.lit(0.0)), tmp_path / "f.png")
    store = tmp_path / "s.parquet"
    store.mkdir()
    frame().write_parquet(store / "part-a.parquet")
    r = subprocess.run(
        [sys.executable, "-m", "tcplab.cli", "plot", store, "-o", tmp_path / "x.gif"],
        capture_output=True,
        text=True,
    )
    assert (
        r.returncode == 2
        and r.stderr.startswith("error: ")
        and "'.gif'" in r.stderr
        and "Traceback" not in r.stderr
    )
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "tcplab.cli",
            "plot",
            store,
            "-o",
            tmp_path / "x.svg",
            "--kind",
            "model-vs-sim",
            "--p",
            "measured",
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and (tmp_path / "x.svg").exists()
