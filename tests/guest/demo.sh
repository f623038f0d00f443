#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# demo.sh - what `make demo` shows: the NUMA topology the guest sees and,
# where the running kernel has them, the per-CPU page table and text
# replication status files. Prints a report between DEMO markers.
. /harness/lib/ktap.sh
ktap_plan 1
echo "# ----- DEMO BEGIN -----"
echo "# kernel: $(uname -r) $(uname -v)"
echo "# command line: $(cat /proc/cmdline)"
echo "# lane: $(cat /etc/harness/lane)"
echo "#"
echo "# boot messages of the series:"
dmesg | grep -E 'percpu_pgtable|Per-CPU page tables|ktext|kseq' | sed 's/^/#   /'
echo "#"
echo "# numactl --hardware:"
numactl --hardware 2>&1 | sed 's/^/#   /'
for f in /sys/kernel/debug/pcpu_pgtable/status /sys/kernel/debug/ktext/status \
	/sys/kernel/debug/kseq/status; do
	echo "#"
	if [ -r "$f" ]; then
		echo "# $f:"
		sed 's/^/#   /' "$f"
	else
		echo "# $f: not present in this kernel"
	fi
done
echo "# ----- DEMO END -----"
ktap_ok demo_report
ktap_finish
