"""Rich tables for a run's results (what `tcplab run` prints)."""

from __future__ import annotations

import math

from rich.console import Console
from rich.table import Table

from tcplab.simulation import RunResult

#: At most this many link directions are printed; the rest are in --json / --out.
MAX_LINK_ROWS = 12


def _num(x: float, fmt: str) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, fmt)


def flows_table(result: RunResult) -> Table:
    t = Table(title="Flows (measurement window)", title_justify="left")
    for col in ["#", "tcp/ack", "goodput\nMbit/s", "RTT\nms", "p\nCA/seg", "losses CA\n+nonCA\n+other",
                "time-\nouts", "Mathis\nMbit/s", "sim/\nmodel"]:
        # Numbers wrap in narrow terminals rather than being cut ("1.68e-…"); p keeps its width.
        t.add_column(col, justify="left" if col == "tcp/ack" else "right", no_wrap=col == "tcp/ack",
                     overflow="fold", min_width=8 if col.startswith("p") else None)
    for f in result.with_predictions().iter_rows(named=True):
        rtt = f["mean_rtt_s"]
        t.add_row(
            str(f["flow"]), f"{f['tcp']}/{f['ack'][:3]}", _num(f["goodput_bps"] / 1e6, ".3f"),
            _num(rtt * 1e3 if rtt == rtt else float("nan"), ".1f"), _num(f["p"], ".2e") if f["p"] else "0",
            f"{f['ca_events']}+{f['non_ca_events']}+{f['other_losses']}", str(f["timeouts"]),
            _num(f["mathis_bps"] / 1e6, ".3f"), _num(f["ratio"], ".2f"),
        )
    t.caption = "Mathis prediction BW = MSS/RTT * C/sqrt(p) from each flow's own p and mean RTT, C = 1.22 (ACK every segment) or 0.87 (delayed ACKs)."
    return t


def links_table(result: RunResult) -> Table:
    links = result.links.to_dicts()
    busy = sorted(links, key=lambda l: (-(l["drops_queue"] + l["drops_loss"]), -l["utilization"]))
    shown = [l for l in busy if l["packets_in"] > 0][:MAX_LINK_ROWS]
    t = Table(title="Links (measurement window)", title_justify="left")
    for col in ["link", "rate\nMbit/s", "delay\nms", "packets\nsent", "queue\ndrops", "loss\ndrops",
                "mean queue\npackets", "queue\ndelay ms", "util."]:
        t.add_column(col, justify="left" if col == "link" else "right", no_wrap=col == "link", overflow="fold")
    for l in shown:
        t.add_row(l["link"], _num(l["rate_bps"] / 1e6, ".4g"), _num(l["delay_s"] * 1e3, ".3g"), str(l["packets_sent"]),
                  str(l["drops_queue"]), str(l["drops_loss"]), _num(l["mean_queue_packets"], ".2f"),
                  _num(l["mean_queue_delay_s"] * 1e3, ".2f"), _num(l["utilization"], ".3f"))
    hidden = len(links) - len(shown)
    if hidden:
        t.caption = f"{hidden} more link directions (idle or quieter) are in --json and --out."
    return t


def traffic_table(result: RunResult) -> Table:
    t = Table(title="Background traffic (per group, measurement window)", title_justify="left")
    for col in ["group", "kind", "sources", "goodput\nMbit/s", "loss event\nrate", "time-\nouts",
                "responses", "mean response\ntime s"]:
        t.add_column(col, justify="left" if col in ("group", "kind") else "right", no_wrap=col == "group",
                     overflow="fold")
    for g in result.traffic.iter_rows(named=True):
        http = g["kind"] == "http"
        udp = g["kind"] in ("cbr", "on_off")
        t.add_row(g["name"], g["kind"], str(g["sources"]), _num(g["goodput_bps"] / 1e6, ".3f"),
                  "-" if udp else _num(g["loss_event_rate"], ".2e"), "-" if udp else str(g["timeouts"]),
                  str(g["responses"]) if http else "-", _num(g["mean_response_time_s"], ".3f") if http else "-")
    return t


def print_result(result: RunResult, console: Console | None = None) -> None:
    console = console or Console()
    console.print(f"[bold]{result.duration_s:g} s simulated[/bold] (measured from {result.warmup_s:g} s), "
                  f"seed {result.seed}, {result.events:,} events")
    for w in result.warnings:
        console.print(f"[bold yellow]warning:[/bold yellow] {w}")
    console.print(flows_table(result))
    if result.traffic.height:
        console.print(traffic_table(result))
    console.print(links_table(result))
