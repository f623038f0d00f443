#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# status.sh - boot-only check for big machines (make check-big at 128 and
# 256 vCPUs, booted kunit=off: the suites would take hours under TCG):
# every CPU came up, the per-CPU tables and text replication are on as the
# topology says, both debugfs status files agree with the boot log, and
# what the tables and copies cost, as diagnostics for docs/results.md.
. /harness/lib/ktap.sh
P=/sys/kernel/debug/pcpu_pgtable/status
K=/sys/kernel/debug/ktext_replication/status
EXP=/etc/harness/topology
ktap_plan 5
pv() { awk -v k="$1" '$1 == k { print $2 }' $P 2>/dev/null; }
kv() { awk -v k="$1" '$1 == k { print $2 }' $K 2>/dev/null; }
cpus=$(awk '$1 == "cpus" { print $2 }' $EXP)
online=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | while read -r c; do
	[ ! -f "$c/online" ] || [ "$(cat "$c/online")" = 1 ] && echo "$c"; done | wc -l)
ktap_diag "$online of $cpus CPUs online"
ktap_check all_cpus_online [ "$online" = "$cpus" ]

ktap_diag "per-CPU tables: enabled $(pv enabled), $(pv possible_cpus) CPUs, $(pv table_bytes_per_cpu) bytes per CPU, $(pv table_bytes_total) bytes in all, $(pv pgd_block_pages) private pages per CPU, $(pv region_pmd_pages) region PMD pages"
ktap_check tables_on eval '[ "$(pv enabled)" = 1 ] && [ "$(pv possible_cpus)" = "$cpus" ]'
# "per-CPU page tables: X KiB for N CPUs": the status can only have grown
# since (a later chunk's region PMD page)
boot=$(dmesg | sed -n 's/.*per-CPU page tables: \([0-9]*\) KiB for \([0-9]*\) CPUs.*/\1 \2/p')
set -- $boot
# named: inside ktap_check's eval, $1 and $2 would be ktap_check's own
boot_kib=${1:-0} boot_cpus=${2:-?}
ktap_diag "boot log: ${1:-?} KiB for ${2:-?} CPUs"
ktap_check tables_agree_with_log eval '[ "$boot_cpus" = "$cpus" ] &&
	[ $((boot_kib * 1024)) -le "$(pv table_bytes_total)" ] && [ "$boot_kib" -gt 0 ]'

ktext_expect "$(kv image_node)" $EXP "$(cmdline_param ktext_fail_reserve)" >/tmp/ktext.want
n=$(grep -c '^copy' /tmp/ktext.want)
ktap_diag "text replication: enabled $(kv enabled), $(kv copies) copies ($n expected), $(kv replica_bytes_total) bytes of text, $(kv rodata_bytes_total) of rodata, $(kv table_bytes_total) of node tables"
ktap_check text_copies eval '[ "$(kv copies)" = "$n" ] &&
	[ "$(kv enabled)" = "$([ "$n" -gt 0 ] && echo 1 || echo 0)" ]'
if [ "$n" -gt 0 ]; then
	ktap_check text_agrees_with_log dmesg_has "ktext_replication: $n replicas of"
else
	ktap_check text_agrees_with_log dmesg_has "ktext_replication: off"
fi
ktap_finish
