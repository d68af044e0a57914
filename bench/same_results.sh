#!/usr/bin/env bash
# Do two builds of the simulator give the same results? Runs every case of
# bench/same_results_cases.txt with the `digest` example of the tree it is run in and of a base
# commit (built in a temporary worktree), and compares every table and trace of every run;
# only the event counts may differ, and fields the base does not have must hold their defaults
# (0, false, empty, Not-ECT: bench/same_results_compare.py).
# Usage: bench/same_results.sh [BASE_COMMIT] (default: main)
set -euo pipefail
base=${1:-main}
root=$(git rev-parse --show-toplevel)
cd "$root"
work=$(mktemp -d)
trap 'git worktree remove --force "$work/base" 2>/dev/null || true; rm -rf "$work"' EXIT
mapfile -t cases < <(grep -v '^#' bench/same_results_cases.txt | grep -v '^$')
git worktree add -q --detach "$work/base" "$base"
# The digest example of this tree, built against the base's library.
mkdir -p "$work/base/crates/tcplab-sim/examples"
cp crates/tcplab-sim/examples/digest.rs "$work/base/crates/tcplab-sim/examples/"
run() { # tree out
    (cd "$1" && cargo run -q --release -p tcplab-sim --example digest -- "$2" "${cases[@]/#/$root/}")
}
CARGO_TARGET_DIR=${BASE_TARGET_DIR:-$root/target/same-results-base} run "$work/base" "$work/a" > "$work/a.txt"
run "$root" "$work/b" > "$work/b.txt"
paste -d'|' "$work/a.txt" "$work/b.txt" | awk -F'|' '{print $1 "  ->  " $2}' | sed 's|'"$root"'/||g'
# A field the base does not write (a column added since) must hold its default in every case.
if python3 "$root/bench/same_results_compare.py" "$work/a" "$work/b"; then
    echo "same results: ${#cases[@]} cases identical (event counts aside; new fields at their defaults)"
else
    echo "RESULTS DIFFER"; exit 1
fi
