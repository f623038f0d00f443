#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kseq.sh - the kernel restartable sequence status file: the table is there,
# the per-CPU restart counters add up, and the form of the sequences (LSE or
# LL/SC) matches the CPU.
. /harness/lib/ktap.sh
ST=/sys/kernel/debug/kseq/status
ktap_plan 3
[ -r $ST ] || ktap_skip_all "$ST missing: this_cpu ops are not kernel restartable sequences" \
	status_file restart_counters form_matches_cpu
snap=$(cat $ST)
echo "$snap" | grep -v '^restarts_cpu' | sed 's/^/# /'
val() { echo "$snap" | awk -v k="$1" '$1 == k { print $2 }'; }

ok=1
for k in sequences lse restarts; do
	[ -n "$(val $k)" ] || { ktap_diag "key $k missing"; ok=0; }
done
[ $ok = 1 ] && [ "$(val sequences)" -gt 0 ] && ktap_ok status_file || ktap_fail status_file

# one counter per possible CPU, and the total is their sum
possible=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
lines=$(echo "$snap" | grep -c '^restarts_cpu')
sum=$(echo "$snap" | awk '/^restarts_cpu/ { s += $2 } END { print s + 0 }')
ktap_diag "$lines per-CPU counters for $possible CPUs, sum $sum, total $(val restarts)"
counters_ok() { [ "$lines" = "$possible" ] && [ "$sum" = "$(val restarts)" ]; }
ktap_check restart_counters counters_ok

want=0
grep -qw atomics /proc/cpuinfo && want=1
ktap_diag "CPU has LSE atomics: $want"
ktap_check form_matches_cpu [ "$(val lse)" = "$want" ]
ktap_finish
