#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hotplug.sh - take every non-boot CPU offline and back online, twice, and
# check each transition is seen in sysfs and that the CPU's node is unchanged.
. /harness/lib/ktap.sh
SYS=/sys/devices/system/cpu

cpus=$(ls -d $SYS/cpu[0-9]* | sed 's/.*cpu//' | sort -n | grep -v '^0$')
n=$(echo $cpus | wc -w)
if [ "$n" = 0 ]; then
	ktap_plan 1
	ktap_skip cpu_hotplug "only one CPU"
	ktap_finish
fi
ktap_plan "$n"

node_of() { basename "$(ls -d $SYS/cpu$1/node* 2>/dev/null)" 2>/dev/null; }

for c in $cpus; do
	ok=1
	node=$(node_of "$c")
	for round in 1 2; do
		echo 0 >$SYS/cpu$c/online || { ktap_diag "cpu$c: offline write failed (round $round)"; ok=0; }
		[ "$(cat $SYS/cpu$c/online)" = 0 ] || { ktap_diag "cpu$c: still online"; ok=0; }
		echo 1 >$SYS/cpu$c/online || { ktap_diag "cpu$c: online write failed (round $round)"; ok=0; }
		[ "$(cat $SYS/cpu$c/online)" = 1 ] || { ktap_diag "cpu$c: still offline"; ok=0; }
	done
	[ "$(node_of "$c")" = "$node" ] || { ktap_diag "cpu$c moved from $node to $(node_of "$c")"; ok=0; }
	if [ $ok = 1 ]; then ktap_ok "cpu${c}_offline_online"; else ktap_fail "cpu${c}_offline_online"; fi
done
ktap_finish
