"""`tcplab trace analyze` and `tcplab trace plot`: packet captures (docs/pcap.md) and a run's
--trace-out directory."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import typer

from tcplab.cli.common import fail, seconds_option, write_atomically

trace_app = typer.Typer(
    help="Packet captures: the papers' instruments on pcap/pcapng files, and their graphs.",
    no_args_is_help=True,
)

KINDS = ("seq", "cwnd", "rtt")


def _load(file: Path, start: str | None, end: str | None, conn: int | None = None):
    from tcplab.capture.analysis import CaptureError, analyze

    try:
        a = analyze(
            file, start=seconds_option(start, "--from") or 0.0, end=seconds_option(end, "--to"), conn=conn
        )
    except CaptureError as e:
        fail(str(e))
    for w in a.warnings:
        typer.echo(f"warning: {w}", err=True)
    for n in a.notes:
        typer.echo(f"note: {n}", err=True)
    return a


def _clean(x):
    return None if isinstance(x, float) and not math.isfinite(x) else x


def _print_tables(a, df) -> None:
    from rich.console import Console

    from tcplab.tables import Column, num, print_table

    console = Console()
    s = a.summary
    console.print(
        f"{a.path}: {s['tcp_packets']} TCP segments of {s['records']} records, {s['connections']} "
        f"connections, {s['duration_s']:.3f} s"
        + ("" if a.complete else "  [INCOMPLETE: the file ends inside a record]"),
        highlight=False,
    )
    for r in df.iter_rows(named=True):
        console.print(
            f"  {r['conn']}.{r['dir']}: {r['src']} -> {r['dst']}"
            + ("" if r["handshake"] else " (no handshake seen)"),
            highlight=False,
        )
    cols = [
        Column("conn", True),
        Column("goodput\nMbit/s"),
        Column("RTT\nms"),
        Column("rtx"),
        Column("fast"),
        Column("RTO"),
        Column("CA"),
        Column("non-CA"),
        Column("other"),
        Column("loss\nevents"),
        Column("p"),
    ]
    rows = []
    for r in df.iter_rows(named=True):
        rtt = r["ts_mean_rtt_s"] if r["ts_rtt_samples"] else r["mean_rtt_s"]
        rows.append(
            [
                f"{r['conn']}.{r['dir']}",
                num(r["goodput_bps"] / 1e6, ".3f"),
                num(rtt * 1e3, ".1f"),
                str(r["segments_retransmitted"]),
                str(r["fast_retransmits"]),
                str(r["timeouts"]),
                str(r["ca_events"]),
                str(r["non_ca_events"]),
                str(r["other_losses"]),
                str(r["loss_events"]),
                num(r["p"], ".4g"),
            ]
        )
    print_table(console, None, cols, rows)
    pcols = [
        Column("conn", True),
        Column("measured\nMbit/s"),
        Column("Mathis\nMbit/s"),
        Column("PFTK\nMbit/s"),
        Column("NoTO\nMbit/s"),
        Column("Full\nMbit/s"),
        Column("loss ev.\nrate"),
        Column("q"),
        Column("RTO\ns"),
    ]
    prow = []
    notes = []
    for r in df.iter_rows(named=True):
        m = lambda k: num(r[k] / 1e6 if r[k] is not None else None, ".3f")  # noqa: E731, B023 -- called in this iteration only
        prow.append(
            [
                f"{r['conn']}.{r['dir']}",
                m("goodput_bps"),
                m("mathis_bps"),
                m("pftk_full_bps"),
                m("parvez_noto_bps"),
                m("parvez_full_bps"),
                num(r["loss_event_rate"], ".4g"),
                num(r["q"], ".3g"),
                num(r["rto_used_s"], ".3f"),
            ]
        )
        if r["model_notes"]:
            notes.append(f"  {r['conn']}.{r['dir']}: {r['model_notes']}")
    print_table(
        console,
        "Model predictions from each direction's measured p, RTT and RTO",
        pcols,
        prow,
        caption="\n".join(["notes:"] + notes) if notes else None,
    )
    _print_ecn(console, df)


def _print_ecn(console, df) -> None:
    """The ECN table, for the directions that show any ECN (docs/pcap.md)."""
    from tcplab.tables import Column, num, print_table

    rows = []
    for r in df.iter_rows(named=True):
        keys = (
            "ect0_segments",
            "ect1_segments",
            "ce_segments",
            "accecn_ce_packets",
            "ece_acks",
            "cwr_segments",
            "ecn_reductions",
        )
        counts = [r[k] for k in keys]
        if not any(counts) and r["ecn_handshake"] in ("unseen", "off"):
            continue
        mbps = r["mathis_ecn_bps"]
        rows.append(
            [f"{r['conn']}.{r['dir']}", r["ecn_handshake"]]
            + [str(x) for x in counts]
            + [
                num(r["marks_per_rtt"], ".3g"),
                num(r["marking_rate"], ".4g"),
                num(r["p_ecn"], ".4g"),
                num(mbps / 1e6 if mbps is not None else None, ".3f"),
            ]
        )
    if not rows:
        return
    cols = [
        Column("conn", True),
        Column("handshake"),
        Column("ECT(0)"),
        Column("ECT(1)"),
        Column("CE"),
        Column("AccECN\nCE fed back"),
        Column("ECE\nACKs"),
        Column("CWR"),
        Column("ECN\nreductions"),
        Column("marks\n/RTT"),
        Column("marking\nrate"),
        Column("p (ECN)"),
        Column("Mathis\nECN Mbit/s"),
    ]
    print_table(console, "ECN: data segments by IP ECN field, the echo and the reductions", cols, rows)


@trace_app.command("analyze")
def analyze_cmd(
    file: Path = typer.Argument(..., help="A pcap or pcapng capture."),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON document: summary and connections."),
    out: Path | None = typer.Option(
        None,
        "--out",
        help="Write DIR/connections.parquet (with the predictions), "
        "DIR/summary.json, and with --conn DIR/segments.parquet and DIR/rtt.parquet.",
    ),
    start: str | None = typer.Option(
        None, "--from", help="Start of the window, after the first packet (e.g. 20s)."
    ),
    end: str | None = typer.Option(
        None, "--to", help="End of the window, after the first packet (e.g. 300s)."
    ),
    conn: int | None = typer.Option(
        None, "--conn", help="Keep this connection's segments and RTT samples (--out)."
    ),
) -> None:
    """Per connection and data direction: goodput, RTT, retransmissions by cause, Mathis' CA and
    non-CA events and p, Parvez's loss events, ECN (CE marks, ECE, CWR, the marking rate), and
    the models' predictions from them."""

    if out is not None and out.exists() and not out.is_dir():
        fail(f"--out {out}: exists and is not a directory")
    a = _load(file, start, end, conn)
    df = a.with_predictions()
    summary = {k: _clean(v) for k, v in a.summary.items()} | {"file": str(file), "complete": a.complete}
    if out is not None:
        write_atomically(out / "connections.parquet", lambda tmp: df.write_parquet(tmp))
        if conn is not None:
            write_atomically(out / "segments.parquet", lambda tmp: a.segments.write_parquet(tmp))
            write_atomically(out / "rtt.parquet", lambda tmp: a.rtt.write_parquet(tmp))
        text = json.dumps(summary, indent=1)
        write_atomically(out / "summary.json", lambda tmp: Path(tmp).write_text(text + "\n"))
    if json_out:
        doc = {
            "summary": summary,
            "connections": [{k: _clean(v) for k, v in r.items()} for r in df.iter_rows(named=True)],
        }
        sys.stdout.write(json.dumps(doc) + "\n")
    else:
        _print_tables(a, df)


@trace_app.command("plot")
def plot_cmd(
    file: Path = typer.Argument(
        ..., help="A pcap or pcapng capture, or a simulated run's --trace-out directory."
    ),
    conn: int = typer.Option(0, "--conn", help="The connection (the conn column of trace analyze)."),
    flow: int | None = typer.Option(None, "--flow", help="With a run directory: the flow (default 0)."),
    kind: str = typer.Option(
        "seq", "--kind", help="seq (time-sequence graph), cwnd (bytes in flight) or rtt."
    ),
    direction: int = typer.Option(0, "--dir", help="The data direction: 0 from the initiator, 1 back."),
    output: Path = typer.Option(
        Path("trace.png"), "-o", "--output", help="Image file to write (.png, .svg, .pdf)."
    ),
    start: str | None = typer.Option(None, "--from", help="Start of the window, after the first packet."),
    end: str | None = typer.Option(None, "--to", help="End of the window, after the first packet."),
) -> None:
    """The time-sequence graph of a connection (data, ACK line, receive window, retransmissions
    and SACK blocks marked), its bytes in flight, or its RTT samples. Given a simulated run's
    --trace-out directory instead: flow --flow's time-sequence graph (drops marked), the
    sender's cwnd and ssthresh, or its RTT samples, from the simulator's traces."""
    from tcplab.capture.plots import plot

    if kind not in KINDS:
        fail(f"--kind {kind!r}: expected one of {', '.join(KINDS)}")
    if file.is_dir():
        if conn != 0 or direction != 0:
            fail(f"--conn/--dir: for a capture; {file} is a run directory: use --flow")
        _plot_run(
            file,
            0 if flow is None else flow,
            kind,
            output,
            seconds_option(start, "--from") or 0.0,
            seconds_option(end, "--to"),
        )
        return
    if flow is not None:
        fail(f"--flow: only with a run's --trace-out directory ({file} is a capture: use --conn)")
    if direction not in (0, 1):
        fail(f"--dir {direction}: expected 0 or 1")
    a = _load(file, start, end, conn)
    n = a.summary["connections"]
    if not 0 <= conn < n:
        fail(f"--conn {conn}: the capture has connections 0 to {n - 1}")
    try:
        fig = plot(a, conn=conn, direction=direction, kind=kind)
    except ValueError as e:
        fail(str(e))
    _write(fig, output)
    typer.echo(f"wrote {output}", err=True)


def _plot_run(directory: Path, flow: int, kind: str, output: Path, start: float, end: float | None) -> None:
    from tcplab.capture.run_plots import RunTraceError, plot

    if flow < 0:
        fail(f"--flow {flow}: expected a flow index >= 0")
    try:
        fig = plot(directory, flow=flow, kind=kind, start=start, end=end)
    except RunTraceError as e:
        fail(str(e))
    _write(fig, output)
    typer.echo(f"wrote {output}", err=True)


def _write(fig, output: Path) -> None:
    """The figure at `output` as `tcplab plot` writes one (its format and resolution)."""
    from tcplab.plots import DPI

    write_atomically(output, lambda tmp: fig.savefig(tmp, format=output.suffix.lstrip(".") or "png", dpi=DPI))


def register(app: typer.Typer) -> None:
    app.add_typer(trace_app, name="trace")
