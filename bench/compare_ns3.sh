#!/usr/bin/env bash
# tcplab, ns-2 2.35 and ns-3 3.44 on the same dumbbell (16 and 128 Reno flows), alternating, in
# one command; then, with --scale, the 1,000 / 10,000 / 100,000-flow scale benchmark. See
# bench/compare_peers.py for the method and options (--rounds, --flows, --skip ns-2 ns-3).
#
# The peers are benchmark companions, never tcplab dependencies:
#   ns-2: Debian's `ns` (apt-get install ns2; NS2_BIN, default `ns` on PATH), runs
#         bench/ns2_dumbbell.tcl;
#   ns-3: an interpreter with `pip install ns3` in its own venv (NS3_PYTHON, no default),
#         runs bench/ns3_dumbbell.py.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec python3 "$HERE/compare_peers.py" "$@"
