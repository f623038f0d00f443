#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# stress.sh - stress-ng fork/switch/futex/affinity/mmap stressors on all CPUs
# while non-boot CPUs are hotplugged in a loop. Passes when stress-ng
# reports success; kernel splats are caught by the host from the console.
. /harness/lib/ktap.sh
SYS=/sys/devices/system/cpu
SECS=${stress_secs:-10}
ktap_plan 2

churn() {
	while [ ! -e /tmp/stop-churn ]; do
		for c in $(ls -d $SYS/cpu[1-9]* 2>/dev/null | sed 's/.*cpu//'); do
			echo 0 >$SYS/cpu$c/online 2>/dev/null
			echo 1 >$SYS/cpu$c/online 2>/dev/null
			[ -e /tmp/stop-churn ] && break
		done
		sleep 0.2
	done
}

churn &
cpid=$!
ktap_diag "stress-ng ${SECS}s with CPU hotplug churn"
# 1M per mmap instance: with DEBUG_PAGEALLOC every page fault and unmap
# rewrites the linear map; 16M and 4M did not finish one bogo op in 15 s
# next to the other stressors (stress-ng then kills it at the timeout).
stress-ng --fork 2 --switch 2 --futex 2 --affinity 2 --mmap 1 --mmap-bytes 1M \
	--timeout "${SECS}s" --metrics-brief >/tmp/stress.out 2>&1
rc=$?
touch /tmp/stop-churn
wait $cpid
sed 's/^/# /' /tmp/stress.out | tail -n 12
# on failure the summary shows the last lines: put the verdict lines there
grep -iE 'fail|error|abort|killed|untrustworthy' /tmp/stress.out | tail -n 5 | sed 's/^/# /'
ktap_diag "stress-ng exit status $rc"
ktap_check stress_ng_exit_status [ "$rc" = 0 ]
for c in $(ls -d $SYS/cpu[1-9]* 2>/dev/null | sed 's/.*cpu//'); do
	echo 1 >$SYS/cpu$c/online 2>/dev/null
done
ktap_check all_cpus_back_online [ "$(cat $SYS/online)" = "$(cat $SYS/possible)" ]
ktap_finish
