"""ECN's validation: writes docs/validation/ecn.md.

    python -m tcplab.validation.ecn [--quick] [--docs DIR] [--kernel-data FILE] [--redo-tcplab]
    python -m tcplab.validation.ecn --kernel [--cc reno|cubic] [--rtt MS] [--quick] [--kernel-data FILE]

1. tcplab's DCTCP against ns-3 3.44's (bench/ns3_dctcp/: tcp-validation's dctcp-10ms and
   dctcp-80ms, the DCTCP dumbbell through RED with min = max = K and through CoDel's CE
   threshold, dctcp-example.cc's Fig. 17), per run: goodput and time-averaged alpha
   (`tcplab.validation.ecn_ns3`).
2. The DCTCP analysis (Alizadeh et al. 2010 Sec. 3.3, `tcplab.models.dctcp`) against step
   marking at 10 Gbit/s and 100 us (`tcplab.validation.ecn_analysis`).
3. This machine's kernel with classic ECN through `tcplab emulate` against `profile = "linux"`
   (`tcplab.validation.ecn_kernel`): real time, so its runs are stored (`--kernel` runs them,
   merged into the data file by cell and seed) and the page is rendered from the stored data;
   `--redo-tcplab` simulates tcplab's side of the stored runs again, keeping the kernel's.

Parts 1 and 2 are simulated by every invocation (about ten minutes; `--quick` runs a few small
cases in seconds, the form the test suite runs). The exit status is 1 when a target is not met.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

#: The stored kernel measurements (package data).
KERNEL_DATA = Path(__file__).parent / "data" / "ecn_kernel.json"


def load_kernel(path: Path) -> dict:
    if not path.exists():
        return {"rows": []}
    return json.loads(path.read_text())


def kernel_batch(path: Path, quick: bool, ccs: list[str] | None, rtts: list[int] | None) -> int:
    """Runs part of the kernel grid (real time) and merges it into `path`."""
    from tcplab.emulate.netns import missing_requirements
    from tcplab.emulate.validate import machine
    from tcplab.validation import ecn_kernel as k

    try:
        data = load_kernel(path)
    except ValueError as e:
        print(f"error: {path}: not kernel runs saved by --kernel ({e})", file=sys.stderr)
        return 2
    if data.get("rows") and data.get("quick", False) != quick:
        kind = "quick" if data.get("quick") else "full"
        print(
            f"error: {path} holds {kind} runs; a {'quick' if quick else 'full'} batch is another grid "
            "(--kernel-data FILE: another file)",
            file=sys.stderr,
        )
        return 2
    missing = missing_requirements()
    if missing:
        print(f"error: {missing}", file=sys.stderr)
        return 2
    cells = [c for c in k.grid(quick) if (not ccs or c[3] in ccs) and (not rtts or c[0] in rtts)]
    started = time.monotonic()
    rows = k.run_kernel(cells, k.SEEDS, quick, lambda m: print(m, file=sys.stderr, flush=True))
    data = load_kernel(path)  # again: another batch may have written it meanwhile
    data.update(k.kernel_facts())
    data["quick"] = quick
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for r in rows:
        r["batch"] = stamp
    data["rows"] = k.merge(data.get("rows", []), rows)
    data.setdefault("batches", []).append(
        {
            "date": stamp,
            "machine": machine(),
            "cells": len(cells),
            "minutes": round((time.monotonic() - started) / 60, 1),
        }
    )
    data["batches"] = current_batches(data)
    data["header"] = header(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path} ({len(data['rows'])} runs)", file=sys.stderr)
    return 0


def current_batches(data: dict) -> list[dict]:
    """The batches whose runs are still stored: a batch all of whose runs a later one replaced
    is dropped. Runs stored without their batch's stamp keep every batch."""
    rows = data.get("rows", [])
    batches = data.get("batches", [])
    if any("batch" not in r for r in rows):
        return batches
    used = {r["batch"] for r in rows}
    return [b for b in batches if b["date"] in used]


def header(data: dict) -> str:
    batches = data.get("batches", [])
    if not batches:
        return "No kernel runs stored: run `python -m tcplab.validation.ecn --kernel` (root)."
    dates = sorted({b["date"][:10] for b in batches})
    return (
        f"Kernel runs by `python -m tcplab.validation.ecn --kernel{' --quick' if data.get('quick') else ''}` "
        f"on {', '.join(dates)} in {len(batches)} batches ({sum(b['minutes'] for b in batches):.0f} min): "
        f"{batches[-1]['machine']}. Real time: rerun to refresh; the page is rendered from the stored "
        "runs, the test suite does not rerun them." + data.get("redone", "")
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tcplab.validation.ecn", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a few small cases (seconds): the test suite's form")
    ap.add_argument("--docs", type=Path, default=Path("docs/validation"), help="where ecn.md goes")
    ap.add_argument("--kernel-data", type=Path, default=KERNEL_DATA, help="the stored kernel runs (JSON)")
    ap.add_argument(
        "--kernel", action="store_true", help="run the kernel grid (root, real time) into --kernel-data"
    )
    ap.add_argument(
        "--cc", action="append", choices=["reno", "cubic"], help="with --kernel: only this module"
    )
    ap.add_argument("--rtt", action="append", type=int, help="with --kernel: only this RTT (ms)")
    ap.add_argument(
        "--redo-tcplab", action="store_true", help="simulate tcplab's side of the stored kernel runs again"
    )
    a = ap.parse_args(argv)
    from tcplab.validation.ecn_kernel import RTT_MS

    bad = sorted(set(a.rtt or ()) - set(RTT_MS))
    if bad:
        ap.error(f"--rtt {bad[0]}: expected one of {', '.join(map(str, RTT_MS))} (ms)")
    if a.kernel:
        return kernel_batch(a.kernel_data, a.quick, a.cc, a.rtt)
    from tcplab.validation import ecn_page

    return ecn_page.write(a.docs, a.quick, a.kernel_data, a.redo_tcplab)


if __name__ == "__main__":
    sys.exit(main())
