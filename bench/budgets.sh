#!/usr/bin/env bash
# The budgets of docs/limits.md under load: peak memory (/usr/bin/time -v, "Maximum resident
# set size") and wall time of
#   1. a run of 1,000,000 flows (the connection budget) and one of 1,000,001 (refused);
#   2. a sweep of 1,000,000 runs planned (`tcplab check` expands and validates every run), one of
#      1,001,000 (refused), and a results store of 1,000,000 rows (one run's row repeated under
#      1,000,000 run keys, in 100 part files) read by `tcplab query` (DuckDB) and `tcplab fit`;
#   3. `tcplab trace analyze` on a capture of about 1 GB written by tcplab, and on four of them
#      concatenated (about 4 GB, four connections), to see whether the memory follows the file.
# Files go to a temporary folder (TMPDIR, at least 6 GB free), deleted at the end.
# Usage: nice -n 10 bench/budgets.sh [flows] [sweeps] [stores] [captures]   (with the venv active;
# the parts named, all four without an argument)
set -euo pipefail
parts=" ${*:-flows sweeps stores captures} "
want() { [[ $parts == *" $1 "* ]]; }
cd "$(dirname "$0")/.."
work=$(mktemp -d "${TMPDIR:-/tmp}/tcplab-budgets.XXXXXX")
trap 'rm -rf "$work"' EXIT

measure() {  # measure LABEL CMD...: the peak RSS, wall time and exit status of CMD
    local label=$1
    shift
    local log="$work/time.log"
    local status=0
    /usr/bin/time -v "$@" >"$work/out.txt" 2>"$log" || status=$?
    local rss wall
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log")
    printf '%-48s peak RSS %7.0f MiB  wall %s  exit %s\n' "$label" "$((rss / 1024))" "$wall" "$status"
    grep -m1 '^error' "$log" | cut -c1-200 || true
}

flows() {  # flows N: a dumbbell of N Reno flows, one simulated second
    cat <<TOML
duration = "1s"
warmup = "0s"
[network.dumbbell]
bottleneck = { rate = "10Gbit/s", delay = "10ms", queue = { limit = 10000 } }
access_rate = "10Gbit/s"
access_delay = "1ms"
[[flows]]
tcp = "reno"
count = $1
TOML
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(uptime | sed 's/.*load/load/'), parts:${parts% }"
want flows && for n in 1000 100000 1000000 1000001; do
    flows "$n" >"$work/flows-$n.toml"
    measure "run --json, $n flows (1 s simulated)" tcplab run "$work/flows-$n.toml" --json
done

sweep() {  # sweep POINTS REPLICATES
    cat <<TOML
[sweep]
base = "$PWD/scenarios/quickstart.toml"
replicates = $2
[[axis]]
path = "network.path.hops.1.delay"
uniform = [1, 100]
unit = "ms"
count = $1
TOML
}
want sweeps && for pr in "100 100" "100 1000" "100 10000" "100 10010"; do
    set -- $pr
    sweep "$1" "$2" >"$work/sweep-$1x$2.toml"
    measure "sweep of $(($1 * $2)) runs: tcplab check" tcplab check "$work/sweep-$1x$2.toml"
done
if want stores; then
    tcplab run scenarios/quickstart.toml --set duration=5s --set warmup=1s --out "$work/one-run.parquet" >/dev/null
    python - "$work/one-run.parquet" "$work/store" <<'PY'
import sys
from pathlib import Path

import polars as pl

row = pl.read_parquet(sys.argv[1])
out = Path(sys.argv[2])
out.mkdir()
for part in range(100):
    keys = [f"{part * 10_000 + i:016x}" for i in range(10_000)]
    pl.concat([row] * 10_000).with_columns(run_key=pl.Series(keys)).write_parquet(out / f"part-{part:03d}.parquet")
PY
    measure "store of 1M rows: tcplab query" tcplab query "$work/store" "SELECT count(*), avg(goodput_bps) FROM runs"
    measure "store of 1M rows: tcplab fit (reads it whole)" tcplab fit "$work/store" --min-ca-events 0
    rm -rf "$work/store"
fi

if want captures; then
    # A capture of about 1 GB: full frames of 1500 bytes at the sender's node.
    cat >"$work/cap.toml" <<TOML
duration = "100s"
warmup = "0s"
[network.path]
hops = [
  { rate = "1Gbit/s", delay = "1ms", queue = { limit = 1000 } },
  { rate = "100Mbit/s", delay = "10ms", queue = { limit = 100 } },
]
[[flows]]
tcp = "sack"
[trace]
pcap = { node = "n0", file = "$work/one.pcap", max_packets = 1000000, max_bytes = "2GB" }
TOML
    measure "run writing a capture" tcplab run "$work/cap.toml" --json
    python bench/concat_pcap.py "$work/one.pcap" 4 "$work/four.pcap"
    for f in one four; do
        size=$(stat -c %s "$work/$f.pcap")
        measure "trace analyze, $((size / 1000000)) MB capture" tcplab trace analyze "$work/$f.pcap" --json
    done
fi
