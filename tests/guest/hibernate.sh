#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hibernate.sh - hibernating with no swap device, with or without the
# per-CPU tables: the snapshot is taken (on the tables, when in use) and
# writing it fails for want of swap, as on vanilla, and the system carries
# on. The round trip with a swap disk is the hibernate= lanes' (init's
# guest_then=hibernate:, then resumed.sh).
. /harness/lib/ktap.sh
ST=/sys/kernel/debug/pcpu_pgtable/status
ktap_plan 3
[ -w /sys/power/state ] && grep -qw disk /sys/power/state ||
	{ ktap_diag "/sys/power/state: $(cat /sys/power/state 2>&1)"; ktap_fail disk_state_offered;
	  ktap_fail hibernate_answer; ktap_fail hibernate_message; ktap_finish; }
ktap_ok disk_state_offered
tables=0
[ -r $ST ] && [ "$(awk '$1 == "enabled" { print $2 }' $ST)" = 1 ] && tables=1
ktap_diag "per-CPU page tables in use: $tables"
err=$( (echo disk >/sys/power/state) 2>&1 )
rc=$?
ktap_diag "echo disk >/sys/power/state: status $rc: $err"
dmesg | grep -E 'PM: |hibernation' | tail -n 8 | sed 's/^/# /'
answer_is() { [ "$rc" != 0 ] && case "$err" in *"$1"*) true ;; *) false ;; esac; }
ktap_check hibernate_answer answer_is 'No such device'
ktap_check hibernate_message dmesg_has 'Cannot find swap device'
ktap_finish
