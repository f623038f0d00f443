#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# layout.sh - a kernel that does not use the per-CPU page tables keeps the
# stock percpu layout: for lanes of the vanilla, stock and kseq kernels and
# of the patched kernel booted percpu_pgtable=off (with the alias choice
# only the alias selects the tables; off must undo the layout too). Only
# listed in such lanes: here tables in use are a failure, not a skip.
. /harness/lib/ktap.sh
ST=/sys/kernel/debug/pcpu_pgtable/status
ktap_plan 3
if [ -r $ST ]; then
	sed 's/^/# /' $ST
	ktap_check no_tables [ "$(awk '$1 == "enabled" { print $2 }' $ST)" = 0 ]
else
	ktap_diag "$ST missing: per-CPU page tables not built"
	ktap_ok no_tables
fi
# pcpu_embed_first_chunk(), as on vanilla; the column layout needs the
# page-mapped first chunk ("percpu: N 4K pages/cpu ...")
dmesg | grep 'percpu: ' | sed 's/^/# /'
ktap_check embedded_first_chunk dmesg_has 'percpu: Embedded '
if dmesg | grep -q 'per-CPU page tables:'; then
	ktap_fail no_alias_window
else
	ktap_ok no_alias_window
fi
ktap_finish
