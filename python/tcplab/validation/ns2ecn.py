"""ns-2's ECN against tcplab's `ns2` profile, event for event.

    python -m tcplab.validation.ns2ecn             # compare with the stored ns-2 traces
    python -m tcplab.validation.ns2ecn --run-ns2   # rerun ns-2 (needs `ns`), rewrite them

The scenarios are the tcpVariants set-up (`tcplab.validation.ns2events`) with ECN in the agent
(`Agent/TCP set ecn_ 1`) and a RED queue with `setbit_` on the bottleneck r1 -> k1, set so that
no decision depends on RED's random draw (data/ns2-ecn/README.md states them; ecn.tcl beside it
is the ns-2 script). Compared, as for the 58 tcpVariants tests: the `+`, `-` and `d` events of
data packets at r1 -> k1 and the sink's ACKs, in microseconds; the sender's ns-2 variables at
every change; and, for ECN, the CE marks (the `-` of a marked packet at r1) and the number of
ACKs carrying ECE after the SYN's.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tcplab.validation.ns2events import Events, tcplab_vars, trace_events, var_changes
from tcplab.validation.ns2events import scenario as tcpvariants_scenario

DATA = Path(__file__).resolve().parent / "data" / "ns2-ecn"
TCL = DATA / "ecn.tcl"

#: test: (tcplab variant, ns-2 agent, ns-2 sink, singledup_, ns-2 drop list, duration in s)
TESTS = {
    "ecn_tahoe": ("tahoe", "TCP", "TCPSink", False, [], 10.0),
    "ecn_reno": ("reno", "TCP/Reno", "TCPSink", False, [], 10.0),
    "ecn_newreno": ("newreno", "TCP/Newreno", "TCPSink", False, [], 10.0),
    "ecn_sack": ("sack", "TCP/Sack1", "TCPSink/Sack1", False, [], 10.0),
    "ecn_SA_reno": ("reno", "TCP/Reno", "TCPSink", True, [], 10.0),
    "ecn_onedrop_tahoe": ("tahoe", "TCP", "TCPSink", False, [14], 10.0),
    "ecn_onedrop_reno": ("reno", "TCP/Reno", "TCPSink", False, [14], 10.0),
    "ecn_onedrop_newreno": ("newreno", "TCP/Newreno", "TCPSink", False, [14], 10.0),
    "ecn_onedrop_sack": ("sack", "TCP/Sack1", "TCPSink/Sack1", False, [14], 10.0),
}

#: The bottleneck's RED (ecn.tcl): the average is the queue an arrival finds; 4 waiting packets
#: mark an ECT arrival (p_b = 0.5, p_a = 1), 5 or more drop it (p_b = 1), 3 or fewer pass.
RED = {
    "discipline": "red",
    "limit": 8,  # red.cc drops an arrival that finds qlen >= qlim waiting
    "red": {
        "min_th": 3,
        "max_th": 5,
        "max_p": 1.0,
        "w_q": 1.0,
        "wait": False,
        "gentle": False,
        "ecn": True,
        "mark_p": 1.0,
    },
}


def scenario(test: str) -> dict:
    """The tcplab scenario of an ECN test."""
    variant, _, _, sa, drops, duration = TESTS[test]
    name = f"onedrop_{'SA_' if sa else ''}{'sackRH' if variant == 'sackrh' else variant}"
    s = tcpvariants_scenario(name, drops=drops, duration=duration)
    s["name"] = test
    hop = s["network"]["path"]["hops"][1]
    hop["queue"] = RED
    hop["reverse_rate"] = "25.6kbit/s"  # ecn.tcl: ACKs spaced by the return link
    hop["reverse_queue"] = {"limit": 99}  # ns-2 DropTail limit 100 holds 99 waiting
    if not drops:
        del hop["loss"]
    s["flows"][0]["ecn"] = "classic"
    return s


def run_ns2(test: str, workdir: Path) -> Path:
    """Runs the test with the local `ns` binary; returns the trace (OUT.vars beside it)."""
    ns = shutil.which("ns")
    if ns is None:
        raise RuntimeError("no `ns` binary (apt-get install ns2)")
    _, agent, sink, sa, drops, duration = TESTS[test]
    out = workdir / f"{test}.tr"
    subprocess.run(
        [ns, str(TCL), agent, sink, str(int(sa)), " ".join(map(str, drops)), str(duration), str(out)],
        check=True,
        capture_output=True,
        cwd=workdir,
    )
    return out


def store(test: str, trace: Path, dest: Path = DATA) -> None:
    """Writes ns-2's trace (gzip, no time stamp) and its variables as CSV (time_s,var,value)."""
    (dest / "traces").mkdir(parents=True, exist_ok=True)
    (dest / "vars").mkdir(parents=True, exist_ok=True)
    with (
        open(trace, "rb") as src,
        open(dest / "traces" / f"{test}.tr.gz", "wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz,
    ):
        gz.write(src.read())
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["time_s", "var", "value"])
    for line in Path(f"{trace}.vars").read_text().splitlines():
        f = line.split()
        if len(f) >= 7:
            w.writerow([f[0], f[5], f[6]])
    with (
        open(dest / "vars" / f"{test}.csv.gz", "wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz,
    ):
        gz.write(buf.getvalue().encode())


def _ns2_lines(test: str) -> list[str]:
    with gzip.open(DATA / "traces" / f"{test}.tr.gz", "rt") as f:
        return f.readlines()


def ns2_marks(lines) -> tuple[list[tuple[int, int]], int]:
    """(time in us, seq) of each `-` at r1 -> k1 of a packet marked CE (ns-2's flag `E`), and
    the ACKs the sink sent with ECE (flag `C`) after the first (the SYN's answer)."""
    marks, ece = [], 0
    for line in lines:
        w = line.split()
        if len(w) < 11 or w[7] != "1":
            continue
        if (w[2], w[3]) == ("2", "3") and w[0] == "-" and w[4] == "tcp" and "E" in w[6]:
            marks.append((round(float(w[1]) * 1e6), int(w[10])))
        elif (w[2], w[3]) == ("3", "2") and w[0] == "+" and w[4] == "ack" and w[6].startswith("C"):
            ece += 1
    return marks, max(ece - 1, 0)


def reference(test: str):
    """ns-2's events, marks, ECE ACKs and variable changes of a stored test."""
    lines = _ns2_lines(test)
    with gzip.open(DATA / "vars" / f"{test}.csv.gz", "rt") as f:
        rows = [(r["time_s"], r["var"], r["value"]) for r in csv.DictReader(f)]
    initial = {n: v for t, n, v in rows if float(t) < 1.0}
    marks, ece = ns2_marks(lines)
    return trace_events(lines), marks, ece, var_changes(rows, initial), initial


def tcplab_run(test: str):
    """tcplab's events, marks, ECE ACKs and the run."""
    import polars as pl

    import tcplab

    r = tcplab.run(scenario(test))
    names = r.links["link"].to_list()
    fwd, rev = names.index("hop1.fwd"), names.index("hop1.rev")
    pk = r.trace("packets").with_columns(
        time=(pl.col("time_ns") + 500) // 1000,
        ev=pl.col("event").cast(pl.String),
        k=pl.col("kind").cast(pl.String),
        e=pl.col("ecn").cast(pl.String),
    )
    ev, marks = Events(), []
    for us, link, e, k, seq, ack, ecn in pk.select("time", "link", "ev", "k", "seq", "ack", "e").rows():
        if link == fwd and k == "data":
            if e in ("enqueue", "dequeue"):
                ev.packets.append((us, "+" if e == "enqueue" else "-", seq))
                if e == "dequeue" and ecn == "ce":
                    marks.append((us, seq))
            elif e in ("drop", "lost"):
                ev.drops.append((us, seq))
        elif link == rev and k == "ack" and e == "enqueue":
            ev.acks.append((us, ack))
    ece = int(r.flows["ece_acks"][0])
    return ev, marks, ece, r


def _sorted(p):
    return sorted(p, key=lambda e: (e[0], e[1] != "-", e[2]))


def compare(test: str) -> dict:
    """One row: the verdicts and counts (tcplab, ns-2) of a test."""
    ref, ref_marks, ref_ece, ref_vars, initial = reference(test)
    ours, marks, ece, r = tcplab_run(test)
    ours_vars = tcplab_vars(r, initial)
    events = (
        _sorted(ours.packets) == _sorted(ref.packets) and ours.drops == ref.drops and ours.acks == ref.acks
    )
    first = ""
    for what, a, b in (
        ("packets", _sorted(ours.packets), _sorted(ref.packets)),
        ("drops", ours.drops, ref.drops),
        ("acks", ours.acks, ref.acks),
        ("marks", marks, ref_marks),
    ):
        d = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
        if d is None and len(a) != len(b):
            d = min(len(a), len(b))
        if d is not None:
            first = f"{what}[{d}]: tcplab {a[d] if d < len(a) else '-'} ns-2 {b[d] if d < len(b) else '-'}"
            break
    vars_diff = next((n for n in sorted(ref_vars) if ours_vars.get(n, []) != ref_vars[n]), "")
    return {
        "test": test,
        "events": events,
        "marks": marks == ref_marks,
        "ece": ece == ref_ece,
        "vars": not vars_diff,
        "exact": events and marks == ref_marks and ece == ref_ece and not vars_diff,
        "counts": {
            "+": (sum(e[1] == "+" for e in ours.packets), sum(e[1] == "+" for e in ref.packets)),
            "drops": (len(ours.drops), len(ref.drops)),
            "marks": (len(marks), len(ref_marks)),
            "ece": (ece, ref_ece),
        },
        "first_mismatch": first or (f"var {vars_diff}" if vars_diff else ""),
    }


def table(rows: list[dict]) -> str:
    head = f"{'test':22} {'verdict':7} {'+ at r1':>9} {'drops':>7} {'CE marks':>9} {'ECE ACKs':>9} first mismatch"
    lines = [head, "-" * len(head)]
    for r in rows:
        c = r["counts"]
        cell = lambda k, w: f"{c[k][0]}/{c[k][1]}".rjust(w)  # noqa: B023,E731 -- this row's counts
        lines.append(
            f"{r['test']:22} {'exact' if r['exact'] else 'DIFF':7} {cell('+', 9)} {cell('drops', 7)} "
            f"{cell('marks', 9)} {cell('ece', 9)} {r['first_mismatch']}"
        )
    n = sum(r["exact"] for r in rows)
    lines.append(
        f"\n{n} of {len(rows)} ECN tests identical to ns-2 (events, CE marks, ECE ACKs, sender variables)"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tcplab.validation.ns2ecn", description=__doc__.split("\n")[0]
    )
    ap.add_argument("tests", nargs="*", help="tests to compare (default: all)")
    ap.add_argument("--run-ns2", action="store_true", help="rerun ns-2 (`ns`) and rewrite the stored traces")
    a = ap.parse_args(argv)
    unknown = [t for t in a.tests if t not in TESTS]
    if unknown:
        print(f"error: unknown test {unknown[0]!r} (expected one of {', '.join(TESTS)})", file=sys.stderr)
        return 2
    names = a.tests or list(TESTS)
    if a.run_ns2:
        with tempfile.TemporaryDirectory() as tmp:
            for t in names:
                store(t, run_ns2(t, Path(tmp)))
    rows = [compare(t) for t in names]
    print('tcplab profile = "ns2" against ns-2 2.35 with ECN; counts are tcplab/ns-2')
    print(table(rows))
    return 0 if all(r["exact"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
