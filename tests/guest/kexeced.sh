#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kexeced.sh - the first test of the second kernel of a kexec lane (init's
# guest_then=kexec:...): it was entered by kexec from the first (whose boot
# id its command line carries) and runs on per-CPU tables of its own; the
# suites after it check them (pcpu_pgtable.sh, ktext.sh, ...).
. /harness/lib/ktap.sh
ktap_plan 2
from=$(cmdline_param guest_kexec_from)
now=$(cat /proc/sys/kernel/random/boot_id)
ktap_diag "first kernel's boot id: ${from:-none}, this one's: $now"
ktap_check entered_by_kexec eval '[ -n "$from" ] && [ "$from" != "$now" ]'
ktap_tables_as_booted tables_in_use
ktap_finish
