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
for f in /sys/kernel/debug/pcpu_pgtable/status /sys/kernel/debug/ktext_replication/status \
	/sys/kernel/debug/kseq/status; do
	echo "#"
	if [ -r "$f" ]; then
		echo "# $f:"
		sed 's/^/#   /' "$f"
	else
		echo "# $f: not present in this kernel"
	fi
done
P=/sys/kernel/debug/pcpu_pgtable/status K=/sys/kernel/debug/ktext_replication/status
if [ -r $P ] && [ -r $K ]; then
	pt=$(awk '$1 == "table_bytes_total" { print $2 }' $P)
	kr=$(awk '$1 == "replica_bytes_total" { print $2 }' $K)
	kd=$(awk '$1 == "rodata_bytes_total" { print $2 }' $K)
	kt=$(awk '$1 == "table_bytes_total" { print $2 }' $K)
	# the module window's tables, every node's
	km=$(awk '$1 == "module_table_bytes" { print $2 }' $K)
	km=${km:-0}
	echo "#"
	echo "# extra memory: per-CPU tables $((pt / 1024)) KiB + text replicas $((kr / 1024)) KiB + rodata replicas $((kd / 1024)) KiB + their tables $((kt / 1024)) KiB + module window tables $((km / 1024)) KiB = $(((pt + kr + kd + kt + km) / 1024)) KiB"
fi
echo "# ----- DEMO END -----"
ktap_ok demo_report
ktap_finish
