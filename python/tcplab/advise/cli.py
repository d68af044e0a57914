"""`tcplab advise`: the regime of a path or of a captured connection, the models that apply, the
spread tcplab's validation measured there, and the simulation that settles it (docs/advise.md)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path as FsPath
from typing import Any

import typer


def _fail(message: str) -> None:
    from tcplab.cli.common import fail

    fail(message)


def _parse(flag: str, kind: str, text: str | None) -> Any:
    """`text` as a quantity of `kind` (the catalog's rules: a duration or rate needs its unit);
    errors name the option."""
    if text is None:
        return None
    from tcplab.models.catalog import Param

    try:
        value = Param(flag.lstrip("-"), kind, "").parse(text)
    except ValueError as e:
        _fail(f"{flag}: {e}")
    return value


def _mbit(x: float | None) -> str:
    if x is None:
        return "-"
    return "unbounded" if math.isinf(x) else f"{x / 1e6:.4g} Mbit/s"


def _value(k: str, v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        if k.endswith("_bps"):
            return _mbit(v)
        if k.endswith("_s"):
            return f"{v * 1e3:.4g} ms"
        return f"{v:.4g}"
    return str(v)


def _finite(x: Any) -> Any:
    """JSON has no infinity or NaN: an unbounded or unknown number is null."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finite(v) for v in x]
    return x


def _print(doc: dict[str, Any], scenario_out: FsPath | None) -> None:
    echo = typer.echo
    inp = doc["input"]
    echo(f"regime: {doc['regime_name']}")
    echo(f"  because {doc['rule']}")
    echo("  decisive: " + ", ".join(f"{k} = {_value(k, v)}" for k, v in doc["decisive"].items()))
    echo(
        f"  inputs: RTT {inp['rtt'] * 1e3:.4g} ms, MSS {inp['mss']} B, loss {inp['loss']:.4g}, RTO "
        f"{inp['rto_used_s']:.4g} s, {inp['variant']}, {inp['ack']} ACKs (b = {inp['b']:g})"
    )
    echo("models:")
    for m in doc["models"]:
        verdict = "applies" if m["domain_applies"] else "outside its domain"
        echo(f"  {m['label']:<15} {_mbit(m['prediction_bps']):>16}  {verdict}")
        for n in m["notes"]:
            echo(f"      - {n}")
    if doc["regime"] == "slow-start":
        s = doc["slow_start"]
        echo(
            f"  {'slow start':<15} {_mbit(s['rate_bps']):>16}  {s['rounds']} round trips, {s['seconds']:.4g} s "
            "(no loss, window growing 1 + 1/b per RTT)"
        )
    v = doc["validation"]
    echo("tcplab's validation in this regime:")
    if not v["entries"]:
        echo(f"  none: {v['missing']}")
    for e in v["entries"]:
        f = "+.1%" if e["signed"] else ".1%"
        span = f"{e['min']:{f}}"
        if e["n"] > 1:
            span += f" to {e['max']:{f}} (mean {e['mean']:{f}}, {e['n']} points)"
        echo(f"  {e['model']}: {'' if e['signed'] else '|error| '}{span}")
        echo(f"      {e['measure']}")
        echo(f"      from {e['validation']}")
    echo("settle it by simulation:")
    if scenario_out is not None:
        echo(f"  tcplab run {scenario_out}")
    else:
        echo("  tcplab advise ... --scenario-out FILE.toml, then: tcplab run FILE.toml")


def _from_trace(trace: FsPath, conn: int | None, direction: int | None, variant: str, ack: str | None):
    from tcplab.advise import path_from_capture
    from tcplab.capture import CaptureError, analyze

    try:
        a = analyze(trace)
    except CaptureError as e:
        _fail(str(e))
    for w in a.warnings:
        typer.echo(f"warning: {w}", err=True)
    df = a.with_predictions()
    n = a.summary["connections"]
    c = 0 if conn is None else conn
    if not 0 <= c < n:
        _fail(f"--conn {c}: the capture has connections 0 to {n - 1}")
    rows = [
        r for r in df.iter_rows(named=True) if r["conn"] == c and (direction is None or r["dir"] == direction)
    ]
    if not rows:
        _fail(
            f"--conn {c}"
            + (f" --dir {direction}" if direction is not None else "")
            + ": no data in that direction"
        )
    row = max(rows, key=lambda r: r["bytes_acked"])
    try:
        path = path_from_capture(row, variant=variant, ack=ack)
    except ValueError as e:
        _fail(f"{trace}: connection {c}: {e}")
    measured = {
        k: row[k]
        for k in (
            "conn",
            "dir",
            "src",
            "dst",
            "goodput_bps",
            "loss_event_rate",
            "p",
            "min_rtt_s",
            "mean_rtt_s",
            "ts_mean_rtt_s",
            "rto_used_s",
            "max_flight_bytes",
            "bytes_acked",
            "handshake",
        )
    }
    return path, {
        k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in measured.items()
    }


def advise_cmd(
    rate: str | None = typer.Option(None, "--rate", help="Bottleneck rate, e.g. 10Mbit/s."),
    rtt: str | None = typer.Option(None, "--rtt", help="Base (propagation) round-trip time, e.g. 80ms."),
    mss: str = typer.Option("1460", "--mss", help="Segment size (bytes)."),
    loss: str = typer.Option("0", "--loss", help="Random loss rate per segment, e.g. 1% or 0.01."),
    queue: int | None = typer.Option(None, "--queue", help="Drop-tail buffer of the bottleneck (packets)."),
    rwnd: str | None = typer.Option(None, "--rwnd", help="Receiver window, e.g. 64KiB."),
    size: str | None = typer.Option(
        None, "--size", help="Bytes of a finite transfer (default: a long transfer)."
    ),
    variant: str = typer.Option("newreno", "--variant", help="reno, newreno, sack or cubic."),
    ack: str | None = typer.Option(None, "--ack", help="delayed (default for a path) or immediate."),
    iw: int = typer.Option(1, "--iw", help="Initial window (segments; the simulator's default is 1)."),
    rto: str | None = typer.Option(None, "--rto", help="Retransmission timeout (default max(1s, 3 RTT))."),
    trace: FsPath | None = typer.Option(None, "--trace", help="A pcap or pcapng capture instead of a path."),
    conn: int | None = typer.Option(None, "--conn", help="With --trace: the connection (default 0)."),
    direction: int | None = typer.Option(
        None,
        "--dir",
        help="With --trace: the data direction (default: the one with more bytes acknowledged).",
    ),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON document."),
    scenario_out: FsPath | None = typer.Option(
        None,
        "--scenario-out",
        help="Write the scenario that settles it by simulation (TOML), to run with `tcplab run FILE`.",
    ),
) -> None:
    """Say which regime a connection is in (window-limited, loss-limited square-root,
    timeout-dominated, slow-start-dominated short transfer, queue-dominated) and why, which
    models apply and what they predict, the spread tcplab's validation measured in that regime,
    and the simulation that would settle it. Input: a path (--rate --rtt --loss ...) or --trace."""
    from tcplab.advise import Path, advise
    from tcplab.cli.common import write_atomically

    measured = None
    if trace is not None:
        given = [
            f
            for f, v in (
                ("--rate", rate),
                ("--rtt", rtt),
                ("--queue", queue),
                ("--rwnd", rwnd),
                ("--size", size),
                ("--rto", rto),
            )
            if v is not None
        ]
        if given or loss != "0" or mss != "1460":
            _fail(
                f"--trace: give either a capture or a path, not both ({', '.join(given) or '--loss/--mss'} given)"
            )
        path, measured = _from_trace(trace, conn, direction, variant, ack)
    else:
        if conn is not None or direction is not None:
            _fail("--conn/--dir: only with --trace FILE")
        if rtt is None:
            _fail("--rtt: required (the base round-trip time, e.g. --rtt 80ms), or give --trace FILE")
        size_b = _parse("--size", "size", size)
        rwnd_b = _parse("--rwnd", "size", rwnd)
        mss_b = _parse("--mss", "size", mss)
        path = Path(
            rtt=_parse("--rtt", "duration", rtt),
            mss=mss_b,
            loss=_parse("--loss", "probability", loss),
            rate=_parse("--rate", "rate", rate),
            queue=queue,
            rwnd=rwnd_b,
            size=size_b,
            variant=variant,
            ack=ack or "delayed",
            initial_window=iw,
            rto=_parse("--rto", "duration", rto),
        )
    if iw < 1:
        _fail(f"--iw: {iw} (expected at least 1 segment)")
    try:
        doc = advise(path)
    except ValueError as e:
        _fail(str(e))
    if measured is not None:
        doc["measured"] = measured | {"file": str(trace)}
    if scenario_out is not None:
        text = doc["scenario"]
        write_atomically(scenario_out, lambda tmp: FsPath(tmp).write_text(text))
        doc["simulate"] = f"tcplab run {scenario_out}"
    else:
        doc["simulate"] = None
    if json_out:
        sys.stdout.write(json.dumps(_finite(doc)) + "\n")
    else:
        if measured is not None:
            typer.echo(
                f"{trace}: connection {measured['conn']}.{measured['dir']}, {measured['src']} -> "
                f"{measured['dst']}: goodput {_mbit(measured['goodput_bps'])}"
            )
        _print(doc, scenario_out)


def register(app: typer.Typer) -> None:
    app.command("advise")(advise_cmd)
