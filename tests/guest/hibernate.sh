#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hibernate.sh - hibernation stays configurable: while per-CPU page tables
# are in use, making an image is refused at once with a message (and the
# system carries on); without them (stock, kseq, percpu_pgtable=off) the
# series does not get in the way: with no swap device the snapshot is
# taken and writing it fails for want of swap, as on vanilla.
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
if [ $tables = 1 ]; then
	ktap_check hibernate_answer answer_is 'not supported'
	ktap_check hibernate_message dmesg_has 'percpu_pgtable: hibernation refused'
else
	ktap_check hibernate_answer answer_is 'No such device'
	if dmesg_has 'hibernation refused'; then
		ktap_fail hibernate_message
	else
		ktap_check hibernate_message dmesg_has 'Cannot find swap device'
	fi
fi
ktap_finish
