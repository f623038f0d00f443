#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pcpu_pgtable.sh - the per-CPU page table status file agrees with the
# command line: enabled unless percpu_pgtable=off, an invalid value is
# reported and ignored, the memory cost is what the tables need, and after
# boot the tables are read-only and the pcpu_pgtable_sync KUnit suite,
# rerun through debugfs, passes on the fixmap path. With 52-bit VA the
# levels are five where the CPU has LPA2 and four where it falls back to
# 48 bits; a lane states which with pcpu_expect_levels=N.
. /harness/lib/ktap.sh
ST=/sys/kernel/debug/pcpu_pgtable/status
ktap_plan 13
[ -r $ST ] || ktap_skip_all "$ST missing: kernel without per-CPU page tables" \
	status_file enabled_matches_cmdline invalid_value_iff_reported alias_mapped table_bytes_floor \
	tables_ro kunit_sync_after_boot alias_linked tramp_iff_kpti alias_ops_live \
	region_randomised private_slots levels
sed 's/^/# /' $ST
val() { awk -v k="$1" '$1 == k { print $2 }' $ST; }

ok=1
for k in enabled private_slots alias_start alias_end column_bytes unit_bytes region_start region_end region_places \
	region_pmd_pages region_pte_pages table_bytes_total table_bytes_per_cpu tables_ro \
	pgtable_levels va_bits this_cpu_choice; do
	[ -n "$(val $k)" ] || { ktap_diag "key $k missing"; ok=0; }
done
[ $ok = 1 ] && ktap_ok status_file || ktap_fail status_file

want=1
tables_wanted || want=0
ktap_diag "percpu_pgtable $(bool_param percpu_pgtable), percpu_alloc=$(cmdline_param percpu_alloc): expect enabled $want"
ktap_check enabled_matches_cmdline [ "$(val enabled)" = "$want" ]
ktap_invalid_param_reported invalid_value_iff_reported percpu_pgtable

# The ops really use the alias exactly when the tables are on and the
# alias is the this_cpu choice built in (text replication builds the
# tables with any choice): the capability was detected and the status
# file agrees.
CAP='detected: Per-CPU page tables: preemption-free this_cpu ops'
ops=$(val this_cpu_ops)
choice=$(val this_cpu_choice)
ktap_diag "this_cpu_ops $ops, this_cpu_choice $choice; capability detected: $(dmesg_has "$CAP" && echo yes || echo no)"
if [ "$want" = 1 ] && [ "$choice" = alias ]; then
	ktap_check alias_ops_live eval '[ "$ops" = alias ] && dmesg_has "$CAP"'
else
	ktap_check alias_ops_live eval '[ -n "$choice" ] && [ "$ops" != alias ] && ! dmesg_has "$CAP"'
fi

# Five levels exactly when the kernel runs 52-bit VA (LPA2 found), and
# then each CPU has its own P4D page too; what the lane expects, if it says.
levels=$(val pgtable_levels)
vabits=$(val va_bits)
pin=$(cmdline_param pcpu_expect_levels)
ktap_diag "pgtable_levels $levels, va_bits $vabits, LPA2 in use: $(dmesg_has '52-bit Virtual Addressing (LPA2)' && echo yes || echo no), lane expects ${pin:-any}"
ktap_check levels eval '{ [ "$levels" = 5 ] && [ "$vabits" = 52 ] &&
	dmesg_has "52-bit Virtual Addressing (LPA2)"; } ||
	{ [ "$levels" = 4 ] && [ "$vabits" = 48 ] &&
	! dmesg_has "52-bit Virtual Addressing (LPA2)"; } &&
	[ "${pin:-$levels}" = "$levels" ]'
p4d=$(( levels == 5 ? 1 : 0 ))

cpus=$(val possible_cpus)
if [ "$want" = 1 ]; then
	# every CPU maps at least its first-chunk unit through the alias
	ktap_check alias_mapped [ "$(val alias_mapped_pages)" -ge "$cpus" ]
	# At boot: [trampoline][image slot PUD][top level] per CPU (with five
	# levels [image slot PUD][trampoline][P4D][root]; and the
	# next slot's PUD page when the window reaches into it) and the PMD
	# page of its column's first 1 GiB block (two if a unit straddles a
	# block boundary: the window's phase plus a unit passes 1 GiB), shared
	# with swapper: 4 pages per CPU, 3 once the trampoline copy is freed
	# (no KPTI), one more with five levels. Later chunks add a PMD page per column only where they
	# reach a new GiB of it (the KUnit far-slot case does); the alias
	# shares the PTEs.
	boot=$(dmesg | sed -n 's/.*per-CPU page tables: \([0-9]*\) KiB for \([0-9]*\) CPUs.*/\1 \2/p')
	set -- $boot
	phase=$(( $(val alias_start) & 0x3fffffff ))
	blocks=$(( phase + $(val unit_bytes) > 0x40000000 ? 2 : 1 ))
	ktap_diag "at boot: $1 KiB for $2 CPUs, $blocks first-chunk PMD page(s) per column"
	slots=$(val private_slots)
	ktap_check table_bytes_floor [ $(($1 * 1024)) -le $(($2 * (2 + slots + p4d + blocks) * 4096)) ]
	ktap_diag "after the KUnit suite: $(val table_bytes_per_cpu) bytes per CPU, $(val pgd_block_pages) private pages per CPU, $(val region_pmd_pages) region PMD pages"
	# With KASLR the column region goes to one of many places (the harness
	# compares two boots); without, to the top of vmalloc space.
	places=$(val region_places)
	ktap_diag "region_start $(val region_start), one of $places places"
	if dmesg_has 'KASLR enabled'; then
		ktap_check region_randomised eval \
			'[ "$places" -gt 65536 ] && dmesg_has "column region randomised"'
	else
		ktap_check region_randomised eval \
			'[ "$places" = 1 ] && dmesg_has "column region not randomised"'
	fi
	# the window is where the percpu section is linked, 2 GiB above _text
	# (PCPU_WINDOW_DISTANCE), so it moves with the image under KASLR and a
	# percpu pointer is its own alias. kallsyms has _stext, not _text: the
	# image head before it is less than 2 MiB (KUnit checks the exact
	# distance).
	echo 0 >/proc/sys/kernel/kptr_restrict 2>/dev/null
	stext=$(awk '$3 == "_stext" { print "0x" $1 }' /proc/kallsyms)
	ktap_diag "alias_start $(val alias_start), _stext ${stext:-missing}"
	ktap_check alias_linked eval '[ -n "$stext" ] && [ $((stext)) -ne 0 ] &&
		d=$(($(val alias_start) - stext)) &&
		[ $d -le $((0x80000000)) ] && [ $d -gt $((0x80000000 - 0x200000)) ]'
	# The private slots run from the image's top-level slot to that of the
	# window's last 1 GiB block: 2 where the window crosses into the next
	# 512 GiB slot (1 in 8 KASLR positions). A lane that pins the image
	# there (QEMU -seed) says so with pcpu_expect_private_slots=N.
	wend=$(( ($(val alias_end) + 0x3fffffff) & ~0x3fffffff ))
	calc=$(( ((wend - 1) >> 39 & 0x1ff) - (stext >> 39 & 0x1ff) + 1 ))
	pin=$(cmdline_param pcpu_expect_private_slots)
	ktap_diag "private_slots $slots, from _stext and alias_end $calc, lane expects ${pin:-any}"
	ktap_check private_slots eval '[ "$slots" = "$calc" ] && [ "${pin:-$slots}" = "$slots" ]'
	if dmesg | grep -q 'detected: Kernel page table isolation (KPTI)'; then
		ktap_check tramp_iff_kpti [ "$(val pgd_block_pages)" = $((2 + slots + p4d)) ]
	else
		ktap_check tramp_iff_kpti [ "$(val pgd_block_pages)" = $((1 + slots + p4d)) ]
	fi
	# rodata=full is the arm64 default: the copies are read-only like swapper
	ktap_check tables_ro [ "$(val tables_ro)" = 1 ]
	# The suite of the top-level writers, again now that they use the fixmap.
	K=/sys/kernel/debug/kunit/pcpu_pgtable_sync
	if [ -w $K/run ]; then
		echo 1 >$K/run
		sed 's/^/# /' $K/results
		if grep -q 'not ok' $K/results || grep -q '# SKIP' $K/results ||
		   ! grep -q 'tables read-only' $K/results ||
		   ! grep -q 'fixmap path' $K/results; then
			ktap_fail kunit_sync_after_boot
		else
			ktap_ok kunit_sync_after_boot
		fi
	else
		ktap_diag "$K/run missing"
		ktap_fail kunit_sync_after_boot
	fi
else
	ktap_check alias_mapped [ "$(val alias_mapped_pages)" = 0 ]
	ktap_check table_bytes_floor [ "$(val table_bytes_total)" = 0 ]
	ktap_check tables_ro [ "$(val tables_ro)" = 0 ]
	ktap_skip kunit_sync_after_boot "per-CPU page tables are off"
	ktap_skip alias_linked "per-CPU page tables are off"
	ktap_skip private_slots "per-CPU page tables are off"
	ktap_skip tramp_iff_kpti "per-CPU page tables are off"
	ktap_skip region_randomised "per-CPU page tables are off"
fi
ktap_finish
