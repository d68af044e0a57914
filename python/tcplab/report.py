"""Tables for a run's results (what `tcplab run` prints), readable at 80 columns.

The default columns fit 80 columns; `wide=True` (`tcplab run --wide`) adds the rest. A table
that still does not fit the terminal is printed vertically (`tcplab.tables`)."""

from __future__ import annotations

from rich.console import Console

from tcplab.simulation import RunResult
from tcplab.tables import Column, num, print_table

#: At most this many link directions are printed; the rest are in --json / --out.
MAX_LINK_ROWS = 12
#: More flows than this are printed as their distribution (--wide prints every one).
MAX_FLOW_ROWS = 32

FLOWS_CAPTION = (
    "Mathis: BW = MSS/RTT * C/sqrt(p) from each flow's own p and mean RTT, C = 1.22 "
    "(ACK every segment) or 0.87 (delayed ACKs). losses: CA+nonCA+other."
)


def flows_rows(result: RunResult, wide: bool = False) -> tuple[list[Column], list[list[str]]]:
    cols = [
        Column("#"),
        Column("tcp/ack", left=True),
        Column("goodput\nMbit/s"),
        Column("RTT\nms"),
        Column("p\nCA/seg"),
        Column("losses"),
        Column("time\nouts"),
        Column("Mathis\nMbit/s"),
        Column("sim/\nmodel"),
    ]
    if wide:
        cols += [
            Column("loss ev.\nrate"),
            Column("retrans\nsegments"),
            Column("mean cwnd\nbytes"),
            Column("done\ns"),
        ]
    return cols, [_flow_row(f, wide) for f in result.with_predictions().iter_rows(named=True)]


def _flow_row(f: dict, wide: bool) -> list[str]:
    rtt = f["mean_rtt_s"]
    row = [
        str(f["flow"]),
        f"{f['tcp']}/{f['ack'][:3]}",
        num(f["goodput_bps"] / 1e6, ".3f"),
        num(rtt * 1e3 if rtt == rtt else float("nan"), ".1f"),
        num(f["p"], ".2e") if f["p"] else "0",
        f"{f['ca_events']}+{f['non_ca_events']}+{f['other_losses']}",
        str(f["timeouts"]),
        num(f["mathis_bps"] / 1e6, ".3f"),
        num(f["ratio"], ".2f"),
    ]
    if wide:
        row += [
            num(f.get("loss_event_rate"), ".2e"),
            str(f.get("segments_retransmitted", "-")),
            num(f.get("mean_cwnd_bytes"), ".0f"),
            num(f.get("completion_time_s"), ".3f"),
        ]
    return row


def flow_summary_rows(result: RunResult) -> tuple[list[Column], list[list[str]], str]:
    """Many flows as their distribution: the minimum, deciles 1, 5 and 9 and the maximum of
    each column (each taken over the flows on its own), the mean, and Jain's fairness index of
    the goodputs in the caption."""
    import polars as pl

    df = result.with_predictions().with_columns(
        (pl.col("ca_events") + pl.col("non_ca_events") + pl.col("other_losses")).alias("losses")
    )
    cols = [
        Column("", left=True),
        Column("goodput\nMbit/s"),
        Column("RTT\nms"),
        Column("p\nCA/seg"),
        Column("losses"),
        Column("time\nouts"),
        Column("Mathis\nMbit/s"),
        Column("sim/\nmodel"),
    ]
    fields = [
        ("goodput_bps", 1e-6, ".3f"),
        ("mean_rtt_s", 1e3, ".1f"),
        ("p", 1, ".2e"),
        ("losses", 1, ".0f"),
        ("timeouts", 1, ".0f"),
        ("mathis_bps", 1e-6, ".3f"),
        ("ratio", 1, ".2f"),
    ]
    stats = [
        ("min", lambda c: c.min()),
        ("10%", lambda c: c.quantile(0.1, "nearest")),
        ("median", lambda c: c.quantile(0.5, "nearest")),
        ("90%", lambda c: c.quantile(0.9, "nearest")),
        ("max", lambda c: c.max()),
        ("mean", lambda c: c.mean()),
    ]
    summary = df.select(
        [
            (f(pl.col(name).fill_nan(None)) * scale).alias(f"{label}:{name}")
            for label, f in stats
            for name, scale, _ in fields
        ]
    ).row(0, named=True)
    rows = [[label] + [num(summary[f"{label}:{name}"], fmt) for name, _, fmt in fields] for label, _ in stats]
    g = df["goodput_bps"].fill_nan(None).drop_nulls()
    total, squares = float(g.sum()), float((g**2).sum())
    jain = (total**2 / (len(g) * squares)) if len(g) and squares > 0 else float("nan")
    kinds = (
        df.select(pl.concat_str("tcp", pl.col("ack").str.slice(0, 3), separator="/"))
        .to_series()
        .unique()
        .sort()
    )
    caption = (
        f"{df.height:,} flows ({', '.join(kinds.head(4))}{', ...' if len(kinds) > 4 else ''}); "
        f"Jain's fairness index of the goodputs {num(jain, '.3f')}. Each column's statistics are over "
        "the flows on their own. Every flow: --wide, --json or --out."
    )
    return cols, rows, caption


def links_rows(result: RunResult, wide: bool = False) -> tuple[list[Column], list[list[str]], int]:
    links = result.links.to_dicts()
    busy = sorted(links, key=lambda k: (-(k["drops_queue"] + k["drops_loss"]), -k["utilization"]))
    shown = [k for k in busy if k["packets_in"] > 0]
    if not wide:
        shown = shown[:MAX_LINK_ROWS]
    cols = [
        Column("link", left=True),
        Column("rate\nMbit/s"),
        Column("delay\nms"),
        Column("sent\npackets"),
        Column("queue\ndrops"),
        Column("loss\ndrops"),
        Column("queue\npackets"),
        Column("queue\nms"),
        Column("util."),
    ]
    if wide:
        cols += [
            Column("overflow\ndrops"),
            Column("early\ndrops"),
            Column("sojourn\ndrops"),
            Column("queue\nbytes"),
        ]
    rows = []
    for link in shown:
        row = [
            link["link"],
            num(link["rate_bps"] / 1e6, ".4g"),
            num(link["delay_s"] * 1e3, ".3g"),
            str(link["packets_sent"]),
            str(link["drops_queue"]),
            str(link["drops_loss"]),
            num(link["mean_queue_packets"], ".2f"),
            num(link["mean_queue_delay_s"] * 1e3, ".2f"),
            num(link["utilization"], ".3f"),
        ]
        if wide:
            row += [
                str(link.get("drops_overflow", "-")),
                str(link.get("drops_early", "-")),
                str(link.get("drops_sojourn", "-")),
                num(link.get("mean_queue_bytes"), ".0f"),
            ]
        rows.append(row)
    return cols, rows, len(links) - len(shown)


def traffic_rows(result: RunResult) -> tuple[list[Column], list[list[str]]]:
    cols = [
        Column("group", left=True),
        Column("kind", left=True),
        Column("sources"),
        Column("goodput\nMbit/s"),
        Column("loss ev.\nrate"),
        Column("time\nouts"),
        Column("responses"),
        Column("response\ns"),
    ]
    rows = []
    for g in result.traffic.iter_rows(named=True):
        http = g["kind"] == "http"
        udp = g["kind"] in ("cbr", "on_off")
        rows.append(
            [
                g["name"],
                g["kind"],
                str(g["sources"]),
                num(g["goodput_bps"] / 1e6, ".3f"),
                "-" if udp else num(g["loss_event_rate"], ".2e"),
                "-" if udp else str(g["timeouts"]),
                str(g["responses"]) if http else "-",
                num(g["mean_response_time_s"], ".3f") if http else "-",
            ]
        )
    return cols, rows


def print_result(result: RunResult, console: Console | None = None, wide: bool = False) -> None:
    console = console or Console()
    console.print(
        f"[bold]{result.duration_s:g} s simulated[/bold] (measured from {result.warmup_s:g} s), "
        f"seed {result.seed}, {result.events:,} events"
    )
    for w in result.warnings:
        console.print(f"[bold yellow]warning:[/bold yellow] {w}", highlight=False)
    if result.flows.height > MAX_FLOW_ROWS and not wide:
        cols, rows, caption = flow_summary_rows(result)
        print_table(
            console,
            "Flows (measurement window): their distribution",
            cols,
            rows,
            caption=caption + " " + FLOWS_CAPTION,
        )
    else:
        cols, rows = flows_rows(result, wide)
        print_table(console, "Flows (measurement window)", cols, rows, caption=FLOWS_CAPTION)
    if result.traffic.height:
        cols, rows = traffic_rows(result)
        print_table(console, "Background traffic (per group, measurement window)", cols, rows)
    cols, rows, hidden = links_rows(result, wide)
    links_caption = (
        f"{hidden} more link directions (idle or quieter): --wide, --json or --out." if hidden else None
    )
    print_table(console, "Links (measurement window)", cols, rows, caption=links_caption)


def _summary(result: RunResult) -> str:
    flows, links = result.flows.height, result.links.height
    return (
        f"RunResult: {result.duration_s:g} s simulated (measured from {result.warmup_s:g} s), seed {result.seed}, "
        f"{result.events:,} events, {flows} flow{'s' if flows != 1 else ''}, {links} link directions"
        + (", traces truncated" if result.truncated else "")
    )


_MAX_REPR_FLOWS = 8


def result_repr(result: RunResult) -> str:
    """What a RunResult shows in a REPL: its figures and each flow's headline numbers."""
    lines = [_summary(result)] + [f"  warning: {w}" for w in result.warnings]
    for f in result.flows.head(_MAX_REPR_FLOWS).iter_rows(named=True):
        rtt = f["mean_rtt_s"]
        lines.append(
            f"  flow {f['flow']} {f['tcp']}/{f['ack']}: goodput {num(f['goodput_bps'] / 1e6, '.3f')} Mbit/s, "
            f"RTT {num(rtt * 1e3 if rtt == rtt else None, '.1f')} ms, p {num(f['p'], '.3g')}, "
            f"CA events {f['ca_events']}, timeouts {f['timeouts']}"
        )
    if result.flows.height > _MAX_REPR_FLOWS:
        lines.append(f"  ... {result.flows.height - _MAX_REPR_FLOWS} more flows in .flows")
    lines.append("  tables: .flows .links .traffic .totals .with_predictions(); traces: .trace(name)")
    return "\n".join(lines)


def _figure_html(result: RunResult, kind: str, mss: int | None) -> str:
    import base64
    import io

    from tcplab.plots import plot_trace

    fig = plot_trace(result, kind, mss=mss)
    fig.set_size_inches(7.5, 3.6)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, metadata={"Software": None})
    data = base64.b64encode(buf.getvalue()).decode()
    return f'<img alt="{kind} trace" src="data:image/png;base64,{data}"/>'


#: The notebook view's flow table: (heading, column or function of the row, format).
_HTML_COLUMNS = (
    ("flow", lambda f: str(f["flow"])),
    ("tcp / ack", lambda f: f"{f['tcp']} / {f['ack']}"),
    ("goodput Mbit/s", lambda f: num(f["goodput_bps"] / 1e6, ".3f")),
    ("Mathis Mbit/s", lambda f: num(f["mathis_bps"] / 1e6, ".3f")),
    ("sim / Mathis", lambda f: num(f["ratio"], ".2f")),
    ("RTT ms", lambda f: num(None if f["mean_rtt_s"] is None else f["mean_rtt_s"] * 1e3, ".1f")),
    ("p", lambda f: num(f["p"], ".2e")),
    ("CA events", lambda f: str(f["ca_events"])),
    ("timeouts", lambda f: str(f["timeouts"])),
)


def result_html(result: RunResult) -> str:
    """What a RunResult shows in Jupyter: the cwnd and queue figures when those traces were
    recorded, then each flow's headline numbers with the Mathis prediction beside the measured
    goodput, every number of a column in one format."""
    import html

    flows = result.with_predictions()
    mss = flows["mss_bytes"][0] if flows.height and flows["mss_bytes"].n_unique() == 1 else None
    figures = [
        _figure_html(result, kind, mss if kind == "cwnd" else None)
        for kind in ("cwnd", "queue")
        if result.trace(kind).height
    ]
    head = "".join(f"<th>{html.escape(h)}</th>" for h, _ in _HTML_COLUMNS)
    body = "".join(
        "<tr>"
        + "".join(f'<td style="text-align:right">{html.escape(c(f))}</td>' for _, c in _HTML_COLUMNS)
        + "</tr>"
        for f in flows.head(_MAX_REPR_FLOWS * 4).iter_rows(named=True)
    )
    more = flows.height - _MAX_REPR_FLOWS * 4
    return (
        f"<p><b>{html.escape(_summary(result))}</b></p>"
        + "".join(f"<p><b>warning:</b> {html.escape(w)}</p>" for w in result.warnings)
        + "".join(figures)
        + f"<table><tr>{head}</tr>{body}</table>"
        + (f"<p>... {more} more flows in <code>.flows</code></p>" if more > 0 else "")
        + "<p>every column: <code>.flows</code>, <code>.with_predictions()</code>; <code>.links</code> "
        "<code>.traffic</code> <code>.totals</code>; traces: <code>.trace(name)</code></p>"
    )
