#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# suspend.sh - a system suspend and resume with the per-CPU tables and the
# text replicas in place, then every CPU is checked again: the KUnit suites
# pcpu_pgtable (each CPU on its own table, the alias right on every CPU)
# and ktext_replication (each node's CPUs on their node's copy) rerun
# through debugfs.
#
# QEMU's virt machine (7.2, TCG) can only suspend to idle: its PSCI
# emulation offers no SYSTEM_SUSPEND (mem_sleep lists s2idle alone) and its
# device tree has no idle-states, so no cpuidle state loses context and
# Linux never issues a powerdown CPU_SUSPEND: cpu_resume() never runs. The lines
# below print that evidence from the guest; the lane fails if QEMU ever
# offers more, so that the test is extended then. The wake-up source is the
# PL031 RTC's alarm (configs/base.config).
. /harness/lib/ktap.sh
ktap_plan 6
mem_sleep=$(cat /sys/power/mem_sleep 2>&1)
ktap_diag "mem_sleep: $mem_sleep"
ktap_diag "idle-states in the device tree: $(ls /proc/device-tree/cpus/idle-states 2>&1 | tr '\n' ' ')"
ktap_check only_s2idle_offered [ "$mem_sleep" = "[s2idle]" ]
ktap_check no_idle_states [ ! -e /proc/device-tree/cpus/idle-states ]

stats=/sys/power/suspend_stats/success
before=$(cat $stats 2>/dev/null)
if [ -e /sys/class/rtc/rtc0/wakealarm ]; then
	echo 0 >/sys/class/rtc/rtc0/wakealarm
	echo +2 >/sys/class/rtc/rtc0/wakealarm
	out=$( (echo freeze >/sys/power/state) 2>&1 )
	ktap_diag "echo freeze >/sys/power/state: status $?${out:+: $out}"
else
	ktap_diag "no RTC wake alarm: $(ls /sys/class/rtc/rtc0 2>&1 | tr "\n" " ")"
fi
after=$(cat $stats 2>/dev/null)
dmesg | grep -E 'PM: suspend|s2idle' | tail -n 4 | sed 's/^/# /'
ktap_diag "suspend_stats/success: $before -> $after"
ktap_check s2idle_round_trip eval '[ -n "$before" ] && [ "$after" = $((before + 1)) ] &&
	dmesg_has "PM: suspend exit"'

# The suites again, after resume: any failure or skip fails the check.
rerun() {
	K=/sys/kernel/debug/kunit/$1
	if [ ! -w $K/run ]; then
		ktap_diag "$K/run missing"
		return 1
	fi
	echo 1 >$K/run
	sed 's/^/# /' $K/results
	grep -q "^ok [0-9]* $1" $K/results && ! grep -q 'not ok' $K/results &&
		! grep -q '# SKIP' $K/results
}
ktap_check pcpu_pgtable_after_resume rerun pcpu_pgtable
ktap_check ktext_replication_after_resume rerun ktext_replication
ktap_check cpus_online_after_resume [ "$(cat /sys/devices/system/cpu/online)" = \
	"$(cat /sys/devices/system/cpu/present)" ]
ktap_finish
