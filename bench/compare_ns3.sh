#!/usr/bin/env bash
# Compare tcplab's foundation benchmark with the same dumbbell scenario in ns-3, on this machine,
# in one run: tcplab first (`cargo bench -p tcplab-sim --bench dumbbell`), then
# bench/ns3_dumbbell.py, then the ratio of bottleneck packets per wall-second per flow count.
#
# ns-3 is NOT a tcplab dependency. It lives in its own venv, never in /work/main/.venv:
#     python3 -m venv /work/ns3venv && /work/ns3venv/bin/pip install ns3   # ns-3 3.44, cppyy
# (the first `from ns import ns` JIT-compiles bindings and takes ~10 s per process.)
#
# Environment:
#   NS3_PYTHON         interpreter with ns3 installed (default /work/ns3venv/bin/python)
#   FLOWS              flow counts (default "1 16 128")
#   REPS               repetitions, median reported (default 3; sets TCPLAB_BENCH_REPS too)
#   NS3_COUNT          ns-3 counting method: queue (default), native-trace, python-trace
#   OUT                directory for the raw outputs (default: a fresh mktemp -d)
set -euo pipefail

NS3_PYTHON="${NS3_PYTHON:-/work/ns3venv/bin/python}"
FLOWS="${FLOWS:-1 16 128}"
REPS="${REPS:-3}"
NS3_COUNT="${NS3_COUNT:-queue}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
OUT="${OUT:-$(mktemp -d /tmp/compare_ns3.XXXXXX)}"
mkdir -p "$OUT"

if ! "$NS3_PYTHON" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("ns") is None)' 2>/dev/null; then
    echo "error: $NS3_PYTHON cannot import ns-3 (module 'ns')." >&2
    echo "Create the separate ns-3 venv (never inside the tcplab venv):" >&2
    echo "    python3 -m venv /work/ns3venv && /work/ns3venv/bin/pip install ns3" >&2
    echo "or point NS3_PYTHON at an interpreter that has it." >&2
    exit 2
fi

echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -Is)"
echo "== tcplab: cargo bench -p tcplab-sim --bench dumbbell -- $FLOWS  (TCPLAB_BENCH_REPS=$REPS)"
(cd "$REPO" && TCPLAB_BENCH_REPS="$REPS" cargo bench -q -p tcplab-sim --bench dumbbell -- $FLOWS) \
    2>"$OUT/tcplab.stderr" | tee "$OUT/tcplab.txt"

echo
echo "== ns-3: $NS3_PYTHON bench/ns3_dumbbell.py --flows $FLOWS --reps $REPS --count $NS3_COUNT"
"$NS3_PYTHON" "$HERE/ns3_dumbbell.py" --flows $FLOWS --reps "$REPS" --count "$NS3_COUNT" \
    2>"$OUT/ns3.stderr" | tee "$OUT/ns3.txt"

echo
echo "== ratio (bottleneck packets per wall-second, tcplab / ns-3); raw outputs in $OUT"
python3 - "$OUT/tcplab.txt" "$OUT/ns3.txt" <<'EOF'
import sys

def table(path):
    """Rows of a right-aligned table keyed by flow count: {label: value} for header labels."""
    lines = [l.rstrip("\n") for l in open(path)]
    hi = next(i for i, l in enumerate(lines) if l.split()[:1] == ["flows"])
    header = lines[hi]
    labels = ["flows", "wall s", "bottleneck pkt/s", "peak MiB"]
    ends = {lab: header.index(lab) + len(lab) for lab in labels if lab in header}
    rows = {}
    for l in lines[hi + 1:]:
        if not l.strip() or not l.split()[0].isdigit():
            continue
        row = {}
        for lab, end in ends.items():
            start = l.rfind(" ", 0, end) + 1
            row[lab] = float(l[start:end])
        rows[int(row["flows"])] = row
    return rows

t, n = table(sys.argv[1]), table(sys.argv[2])
print(f"{'flows':>6} {'tcplab pkt/s':>13} {'ns-3 pkt/s':>11} {'ratio':>7} "
      f"{'tcplab wall s':>14} {'ns-3 wall s':>12} {'tcplab pkts~':>13} {'ns-3 pkts~':>11}")
for f in sorted(set(t) & set(n)):
    a, b = t[f]["bottleneck pkt/s"], n[f]["bottleneck pkt/s"]
    print(f"{f:>6} {a:>13.0f} {b:>11.0f} {a / b:>7.1f} {t[f]['wall s']:>14.3f} "
          f"{n[f]['wall s']:>12.3f} {a * t[f]['wall s']:>13.0f} {b * n[f]['wall s']:>11.0f}")
print("(pkts~ = pkt/s x wall s, bottleneck packets in the run, up to rounding of the columns)")
EOF
