"""How large must Table 4's quick form be for its rows to land within 10% (C, Eq. 3) and 0.03 (k)
of the paper? Runs the quick design's fit sweep for some rows with other sizes and other draws of
p (`seed`), and prints C and k against the paper's, with each design's wall time.

    python bench/table4_quick_sizing.py [--rows tahoe,fack] [--designs quick,c80,...] [--workers N]

Designs (all the quick design with one change): `quick`; `sN` other draws of p (seed N);
`c80`, `c160` 80 or 160 measured cycles per run (quick: 40); `w16` a 16-cycle warm-up (quick: 8);
`d8`, `d16` 8 or 16 values of p per delay (quick: 4); combined with `-`, e.g. `c80-s2`.
The runs go to a temporary folder; nothing in the repository changes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path


def design(name: str):
    from tcplab.validation import mathis_table4 as t4

    d = t4.QUICK
    for part in name.split("-"):
        if part == "quick":
            continue
        kind, n = part[0], int(part[1:])
        d = {
            "s": lambda d, n: replace(d, seed=n),
            "c": lambda d, n: replace(d, cycles=n),
            "w": lambda d, n: replace(d, warmup_cycles=n),
            "d": lambda d, n: replace(d, draws=n),
        }[kind](d, n)
    return replace(d, name=f"sizing-{name}")


def main(argv: list[str] | None = None) -> int:
    from tcplab import results
    from tcplab.fit import fit
    from tcplab.sweep import run_sweep
    from tcplab.validation import mathis_table4 as t4

    ap = argparse.ArgumentParser(prog="python bench/table4_quick_sizing.py")
    ap.add_argument("--rows", default="tahoe,fack", help="variants (both ACK strategies each)")
    ap.add_argument("--designs", default="quick,s2,s3,c80,c80-s2,c80-s3,c160,c160-s2")
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args(argv)
    variants = tuple(a.rows.split(","))
    print("| design | row | N | C (Eq. 3) | vs paper | k | vs paper | runs | wall s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.designs.split(","):
            d = replace(design(name), variants=variants)
            t = time.monotonic()
            store = Path(tmp) / f"{name}.parquet"
            outcome = run_sweep(t4.sweep(d, "fit"), results.Store(store), workers=a.workers, progress=False)
            if outcome.failed or outcome.interrupted:
                print(f"error: {name}: {len(outcome.failed)} runs failed", file=sys.stderr)
                return 1
            df = results.load(store)
            wall = time.monotonic() - t
            fitted, _ = fit(df, by=("tcp", "ack"), p="configured", min_ca_events=0)
            for r in sorted(fitted.to_dicts(), key=lambda r: (r["ack"], r["tcp"])):
                paper = t4.PAPER[(r["tcp"], r["ack"])]
                label = t4.LABEL[r["tcp"]] + (" DA" if r["ack"] == "delayed" else "")
                print(
                    f"| {name} | {label} | {r['n']} | {r['c_half']:.3f} | {r['c_half'] / paper.c_half - 1:+.1%} | "
                    f"{r['k']:.3f} | {r['k'] - paper.k:+.3f} | {df.height} | {wall:.0f} |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
