"""`tcplab emulate`: a scenario's flows through real kernel TCP (and `--compare`, `--self-check`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer


def _selfcheck_lines(c: dict) -> list[str]:
    late, wake = c["lateness"], c["wakeup"]
    ms = lambda s: f"{s * 1e3:.3f}" if s == s else "-"  # noqa: E731
    return [
        f"packets: {c['packets_in']:,} in, {c['packets_out']:,} delivered, {c['packets_dropped']:,} dropped by the "
        f"model, {c['packets_in_flight']:,} in the model at the end; outside the model: "
        f"{c['kernel_tx_dropped'] + c['kernel_rx_dropped'] + c['write_errors']} lost"
        + (
            f"; {c['ce_marked']:,} marked CE by the model (IP ECN field rewritten)"
            if c.get("ce_marked")
            else ""
        ),
        f"lateness of delivery (ms): median {ms(late['p50_s'])}, p99 {ms(late['p99_s'])}, "
        f"p99.9 {ms(late['p999_s'])}, max {ms(late['max_s'])}; timer wake-ups: median {ms(wake['p50_s'])}, "
        f"p99 {ms(wake['p99_s'])}",
        f"emulator busy {c['busy_fraction'] * 100:.1f}% of {c['wall_s']:.1f} s, "
        f"{'SCHED_FIFO' if c['realtime'] else 'normal scheduling'}, {c['events']:,} events; endpoint "
        f"threads: {c.get('endpoints_realtime', 0)} SCHED_FIFO, {c.get('endpoints_normal', 0)} normal",
    ]


def print_emulation(r, console=None, wide: bool = False) -> None:
    from rich.console import Console

    from tcplab.report import links_rows
    from tcplab.tables import Column, num, print_table

    console = console or Console()
    console.print(
        f"[bold]{r.duration_s:g} s emulated[/bold] (measured from {r.warmup_s:g} s), real kernel TCP "
        f"through the modeled network"
    )
    for w in r.warnings:
        console.print(f"[bold yellow]warning:[/bold yellow] {w}", highlight=False)
    cols = [
        Column("#"),
        Column("cc", left=True),
        Column("goodput\nMbit/s"),
        Column("RTT\nms"),
        Column("p\nCA/seg"),
        Column("losses"),
        Column("time\nouts"),
        Column("kernel\nretrans"),
        Column("kernel\nRTOs"),
    ]
    rows = []
    for f in r.flows.iter_rows(named=True):
        rtt = f["mean_rtt_s"]
        losses = (
            f"{f['ca_events']}+{f['non_ca_events']}+{f['other_losses']}"
            if f["ca_events"] is not None
            else "-"
        )
        rows.append(
            [
                str(f["flow"]),
                f"{f['cc']}/{f['tcp']}",
                num(f["goodput_bps"] / 1e6, ".3f"),
                num(rtt * 1e3, ".1f") if rtt is not None else "-",
                num(f["p"], ".2e") if f["p"] else "0",
                losses,
                str(f["timeouts"]),
                str(f["kernel_retrans"]),
                str(f["kernel_rto_events"]),
            ]
        )
    print_table(
        console,
        "Flows (measurement window; from the capture at the senders and TCP_INFO)",
        cols,
        rows,
        caption="losses: CA+nonCA+other (Mathis' instruments on the capture). kernel: TCP_INFO deltas.",
    )
    cols, rows, hidden = links_rows(r, wide)
    print_table(
        console,
        "Links (measurement window, the modeled network)",
        cols,
        rows,
        caption=f"{hidden} more link directions: --wide or --json." if hidden else None,
    )
    console.print("[bold]Self-check[/bold]")
    for line in _selfcheck_lines(r.selfcheck):
        console.print(f"  {line}", highlight=False)
    for n in r.notes:
        console.print(f"[dim]note: {n}[/dim]", highlight=False)


def print_comparison(sim, emu, console=None, wide: bool = False) -> None:
    from rich.console import Console

    from tcplab.tables import Column, num, print_table

    console = console or Console()
    cols = [
        Column("#"),
        Column("what", left=True),
        Column("simulated"),
        Column("emulated"),
        Column("emu/sim"),
    ]
    rows = []
    metrics = (
        ("goodput Mbit/s", "goodput_bps", 1e-6, ".3f"),
        ("mean RTT ms", "mean_rtt_s", 1e3, ".1f"),
        ("p (CA/segment)", "p", 1.0, ".2e"),
        ("loss events", "loss_events", 1.0, ".0f"),
        ("timeouts", "timeouts", 1.0, ".0f"),
        ("retransmitted segs", "segments_retransmitted", 1.0, ".0f"),
    )
    for s, e in zip(sim.flows.iter_rows(named=True), emu.flows.iter_rows(named=True), strict=True):
        for label, key, scale, fmt in metrics:
            a, b = s.get(key), e.get(key)
            ratio = b / a if a and b is not None and a == a else float("nan")
            rows.append(
                [
                    str(s["flow"]),
                    label,
                    num(a * scale if a is not None else None, fmt),
                    num(b * scale if b is not None else None, fmt),
                    num(ratio, ".2f"),
                ]
            )
    from tcplab.report import MAX_LINK_ROWS

    pairs = [
        (s, e)
        for s, e in zip(sim.links.iter_rows(named=True), emu.links.iter_rows(named=True), strict=True)
        if s["packets_in"] or e["packets_in"]
    ]
    # The busiest link directions first (drops, then utilization), as tcplab run lists them.
    pairs.sort(key=lambda se: (-(se[1]["drops_queue"] + se[1]["drops_loss"]), -se[1]["utilization"]))
    hidden = max(len(pairs) - MAX_LINK_ROWS, 0) if not wide else 0
    for s, e in pairs[: None if wide else MAX_LINK_ROWS]:
        for label, key in (
            ("utilization", "utilization"),
            ("queue drops", "drops_queue"),
            ("mean queue packets", "mean_queue_packets"),
        ):
            a, b = s[key], e[key]
            rows.append(
                [s["link"], label, num(a, ".3g"), num(b, ".3g"), num(b / a if a else float("nan"), ".2f")]
            )
    print_table(
        console,
        "Simulated vs emulated (same scenario, same seed for the network)",
        cols,
        rows,
        caption=f"{hidden} quieter link directions left out: --wide or --json." if hidden else None,
    )


def _self_check(json_out: bool, spin_us: float, realtime: bool) -> None:
    from rich.console import Console

    from tcplab.cli.common import fail
    from tcplab.emulate import EmulationError
    from tcplab.emulate.run import CAPACITY_FILE
    from tcplab.emulate.selfcheck import ladder, table

    console = Console(stderr=json_out)
    try:
        record = ladder(
            spin_us,
            realtime,
            progress=lambda m: console.print(f"self-check: {m} Mbit/s ...", highlight=False),
        )
    except EmulationError as e:
        fail(str(e))
    held = record["max_rate_bps"] // 1_000_000
    if held:
        CAPACITY_FILE.parent.mkdir(parents=True, exist_ok=True)
        CAPACITY_FILE.write_text(json.dumps(record, indent=1) + "\n")
    if json_out:
        sys.stdout.write(json.dumps(record) + "\n")
        return
    from tcplab.tables import Column, print_table

    header, rows = table(record)
    print_table(
        console,
        "Emulator self-check (one Linux-profile flow, 5 ms path)",
        [Column(h, left=(h == "held")) for h in header],
        rows,
        caption=record["criterion"],
    )
    if held:
        console.print(
            f"highest rate held: {held} Mbit/s (saved to {CAPACITY_FILE}; faster links are refused "
            "without --force)",
            highlight=False,
        )
    else:
        console.print("[bold red]the emulator could not hold even the lowest rate on this machine[/bold red]")


def register(app: typer.Typer) -> None:
    @app.command()
    def emulate(
        scenario: str | None = typer.Argument(None, help="Scenario file (TOML)."),
        set_: list[str] = typer.Option([], "--set", help="Override a field: dotted.path=value (repeatable)."),
        json_out: bool = typer.Option(False, "--json", help="Print one JSON document."),
        out: Path | None = typer.Option(
            None,
            "--out",
            help="Also write the run as a one-row-per-flow results "
            "store (.parquet), as tcplab run --out (column mode = emulated).",
        ),
        capture: Path | None = typer.Option(
            None,
            "--capture",
            help="Keep the capture at the senders (pcap of raw IP, simulated-time stamps) at this path.",
        ),
        compare: bool = typer.Option(
            False,
            "--compare",
            help="Also simulate the scenario and print both side by side with their ratio.",
        ),
        self_check: bool = typer.Option(
            False,
            "--self-check",
            help="Measure the highest rate this machine "
            "emulates faithfully (no scenario needed) and remember it.",
        ),
        force: bool = typer.Option(False, "--force", help="Run links faster than the self-check held."),
        spin_us: float = typer.Option(
            20.0,
            "--spin-us",
            help="Busy-poll this long (microseconds) before each event: lower jitter, more CPU (a SCHED_FIFO thread spinning all the time is throttled by the kernel).",
        ),
        no_realtime: bool = typer.Option(False, "--no-realtime", help="Do not ask for SCHED_FIFO."),
        wide: bool = typer.Option(False, "--wide", help="Print every link."),
        tcp_ecn: int | None = typer.Option(
            None,
            "--tcp-ecn",
            help="net.ipv4.tcp_ecn in every flow's namespaces instead of what the flows' ecn maps to: "
            "0 off, 1 request and accept ECN, 2 accept only (the simulated side of --compare keeps the scenario's).",
        ),
    ) -> None:
        """Run a scenario's flows with this machine's kernel TCP through tcplab's modeled network in
        real time (needs root and /dev/net/tun); the same tables as tcplab run."""
        from tcplab.cli.common import fail, interrupted, parse_sets, write_atomically
        from tcplab.emulate import EmulationError
        from tcplab.emulate import emulate as run_emulation
        from tcplab.simulation import ScenarioError

        if spin_us < 0 or spin_us != spin_us:
            fail(f"--spin-us {spin_us}: expected a number of microseconds >= 0")
        if self_check:
            try:
                return _self_check(json_out, spin_us, not no_realtime)
            except KeyboardInterrupt:
                interrupted()
        if scenario is None:
            fail("SCENARIO: expected a scenario file (or --self-check)")
        if out is not None and out.suffix != ".parquet":
            fail(f"--out {out}: expected a .parquet file name")
        if capture is not None and capture.suffix not in (".pcap", ".cap"):
            fail(f"--capture {capture}: expected a .pcap file name")
        sets = dict(parse_sets(set_))
        path = Path(scenario)
        try:
            r = run_emulation(
                path,
                sets,
                capture=capture,
                spin_us=spin_us,
                realtime=not no_realtime,
                force=force,
                tcp_ecn=tcp_ecn,
            )
            sim = None
            if compare:
                from tcplab.simulation import run as simulate

                sim = simulate(path, sets)
        except (EmulationError, ScenarioError) as e:
            message = str(e)
            fail(message if message.startswith(scenario) else f"{scenario}: {message}")
        except KeyboardInterrupt:
            interrupted()
        if out is not None:
            import polars as pl

            from tcplab import results
            from tcplab.sweep import run_key

            flows = r.flows.with_columns(pl.lit("emulated").alias("mode"))
            rows = results.table_rows(
                f"emulated-{run_key(r.resolved)}",
                r.resolved,
                flows,
                r.selfcheck["events"],
                r.links,
                r.traffic,
            )
            write_atomically(out, lambda tmp: results.write_file(rows, tmp))
        if json_out:
            doc = json.loads(r.to_json())
            if sim is not None:
                doc["simulated"] = json.loads(sim.to_json())
            sys.stdout.write(json.dumps(doc) + "\n")
            return
        print_emulation(r, wide=wide)
        if sim is not None:
            print_comparison(sim, r, wide=wide)
