#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# resumed.sh - the first test after a hibernation round trip (init's
# guest_then=hibernate:...): this is the kernel that hibernated, restored
# from the swap disk by a second boot of the same kernel (itself on
# per-CPU tables and text copies), not a fresh boot; and every CPU is
# checked again: the KUnit suites pcpu_pgtable (each CPU on its own table,
# the alias right on every CPU) and ktext_replication (each node's CPUs on
# their node's copy) rerun through debugfs, and the CPUs that hibernation
# took offline are back.
. /harness/lib/ktap.sh
ktap_plan 5
before=$(cat /tmp/boot_id.hibernated 2>/dev/null)
now=$(cat /proc/sys/kernel/random/boot_id)
ktap_diag "boot id before hibernation: ${before:-none}, now: $now"
ktap_diag "hibernated on CPU ${guest_hibernate_cpu:-0} (guest_hibernate_cpu)"
ktap_diag "seconds since hibernation: $(( $(date +%s) - $(cat /tmp/time.hibernated 2>/dev/null || echo 0) ))"
dmesg | grep -E 'PM: (hibernation|Image|Restoring|Basic|Using)' | tail -n 8 | sed 's/^/# /'
ktap_check same_kernel_resumed eval '[ -n "$before" ] && [ "$before" = "$now" ] &&
	dmesg_has "hibernation exit"'
if ! tables_wanted; then
	# the lane that hibernates as stock: every case of the suite skips
	ktap_skip pcpu_pgtable_after_resume "percpu_pgtable=off: no tables to check"
else
	ktap_kunit_rerun pcpu_pgtable_after_resume pcpu_pgtable pcpu_pgtable
fi
if [ -d /sys/kernel/debug/kunit/ktext_replication ]; then
	ktap_kunit_rerun ktext_replication_after_resume ktext_replication ktext_replication
else
	ktap_fail "ktext_replication_after_resume # suite not built"
fi
ktap_check cpus_online_after_resume [ "$(cat /sys/devices/system/cpu/online)" = \
	"$(cat /sys/devices/system/cpu/present)" ]
ktap_tables_as_booted tables_still_in_use
ktap_finish
