#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# topology.sh - does the booted NUMA topology match the topology file?
# Compares /etc/harness/topology (written by the host from numa-topologies/)
# with /sys/devices/system/node: nodes, CPUs per node, memory, distances.
. /harness/lib/ktap.sh
EXP=/etc/harness/topology
SYS=/sys/devices/system

nodes=$(awk '$1 == "nodes" { print $2 }' $EXP)
cpus=$(awk '$1 == "cpus" { print $2 }' $EXP)
ktap_plan $((2 + 3 * nodes))

# Online node ids as a count: "0-3" or "0,2" style lists.
count_list() {
	echo "$1" | tr ',' '\n' | awk -F- 'NF == 2 { n += $2 - $1 + 1; next } NF == 1 && $1 != "" { n++ } END { print n + 0 }'
}
got=$(count_list "$(cat $SYS/node/online)")
ktap_diag "nodes online: $(cat $SYS/node/online) (expected $nodes)"
ktap_check nodes_online [ "$got" = "$nodes" ]
got=$(count_list "$(cat $SYS/cpu/online)")
ktap_diag "CPUs online: $(cat $SYS/cpu/online) (expected $cpus)"
ktap_check cpus_online [ "$got" = "$cpus" ]

awk '$1 == "node"' $EXP | while read -r _ nid _ want_cpus _ want_mb _ want_dist; do
	d=$SYS/node/node$nid
	if [ ! -d "$d" ]; then
		ktap_fail "node${nid}_cpus # $d missing"
		ktap_fail "node${nid}_memory # $d missing"
		ktap_fail "node${nid}_distance # $d missing"
		continue
	fi
	have_cpus=$(cat $d/cpulist)
	[ -z "$have_cpus" ] && have_cpus=-
	ktap_diag "node$nid cpus: $have_cpus (expected $want_cpus)"
	ktap_check "node${nid}_cpus" [ "$have_cpus" = "$want_cpus" ]

	kb=$(awk '/MemTotal/ { print $4 }' $d/meminfo)
	ktap_diag "node$nid MemTotal: $kb kB (configured $want_mb MiB)"
	if [ "$want_mb" = 0 ]; then
		ktap_check "node${nid}_memory" [ "$kb" = 0 ]
	else
		# Firmware, kernel image and reservations take some; never more
		# than half, and never more than configured.
		ktap_check "node${nid}_memory" in_range "$kb" $((want_mb * 512)) $((want_mb * 1024))
	fi

	have_dist=$(cat $d/distance)
	ktap_diag "node$nid distance: $have_dist (expected $want_dist)"
	ktap_check "node${nid}_distance" [ "$have_dist" = "$want_dist" ]
done | tee /tmp/topology.out
grep -q '^not ok' /tmp/topology.out && exit 1
exit 0
