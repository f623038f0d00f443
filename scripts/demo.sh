#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh - boot the patched kernel on the default 2-node topology and print
# what the guest reports: topology, per-CPU page tables, text replicas.
# The full console log stays under build/runs/ for a closer look.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

TOPO=${TOPO:-2node}
echo "Booting the patched kernel on numa-topologies/$TOPO.topo:"
sed -n 's/^#/ /p' "$TOP/numa-topologies/$TOPO.topo" | head -n 3
set +e
out=$(python3 "$TOP/scripts/harness.py" boot --name "demo-$TOPO" patched "$TOPO" demo,topology)
rc=$?
set -e
log=$BUILD/runs/demo-$TOPO/console.log
echo
sed -n '/----- DEMO BEGIN -----/,/----- DEMO END -----/p' "$log" |
	sed -e 's/^ *# \{0,1\}//' -e '/----- DEMO/d'
echo
grep -E '^ *(ok|not ok) [0-9]+ node[0-9]+_|nodes_online|cpus_online' "$log" |
	sed 's/^ */topology check: /' || true
echo
echo "$out"
exit $rc
