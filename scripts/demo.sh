#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh - boot the patched kernel on the default 2-node topology and print
# what the guest reports: topology, per-CPU page tables, text replicas.
# Then boot the kseq kernel (this_cpu ops as kernel restartable sequences)
# and show its restarts. The console logs stay under build/runs/.
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

echo
echo "Booting the kseq kernel (QEMU -singlestep, so interrupts can land inside"
echo "a sequence) on the same topology:"
set +e
kout=$(python3 "$TOP/scripts/harness.py" boot --singlestep --name "demo-kseq-$TOPO" kseq "$TOPO" demo)
krc=$?
set -e
klog=$BUILD/runs/demo-kseq-$TOPO/console.log
sed -n '/kseq\/status:/,/----- DEMO END -----/p' "$klog" |
	sed -e '/----- DEMO END/d' -e 's/^ *# \{0,1\}//' || true
grep -E '^ {4}# (kseq_table_test|kseq_forced_restart_test|pcpu_this_cpu_ops_\w+): ' "$klog" |
	sed 's/^ *# /KUnit: /' || true
echo "$kout"
[ "$rc" = 0 ] || exit $rc
exit $krc
