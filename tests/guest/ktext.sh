#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ktext.sh - kernel text and rodata replication, checked from outside its
# KUnit suite: the status file against an expectation computed here from
# the topology file (which nodes have CPUs and memory, distances) and the
# command line, every online CPU's translation of sampled text and rodata
# addresses (debugfs translations, AT S1E1R on that CPU) against the copy
# its node must use, and the suite run again once mark_rodata_ro() has
# made rodata and ro_after_init read-only.
. /harness/lib/ktap.sh
ST=/sys/kernel/debug/ktext_replication/status
TR=/sys/kernel/debug/ktext_replication/translations
EXP=/etc/harness/topology
MOD=/harness/modules/ktext_module_kunit.ko
MOD_CASES="ktext_module_mapping_test ktext_module_static_key_test ktext_module_kprobe_test
	ktext_module_ftrace_test"
ktap_plan 18
if [ ! -r $ST ]; then
	# this test is only run on kernels built with replication
	for c in status_file enabled_matches status_agrees_with_log invalid_value_iff_reported sources copies \
		translations_node_local rodata_node_local accounting suite_after_boot \
		module_loaded $MOD_CASES module_replicated module_unloaded module_copies_freed; do
		ktap_fail "$c # $ST missing"
	done
	exit 1
fi
sed 's/^/# /' $ST
val() { awk -v k="$1" '$1 == k { print $2 }' $ST; }

ok=1
for k in enabled text_start text_end rodata_end ro_after_init_start ro_after_init_end \
	image_node copies replica_bytes_total rodata_bytes_total table_bytes_total; do
	[ -n "$(val $k)" ] || { ktap_diag "key $k missing"; ok=0; }
done
[ $ok = 1 ] && ktap_ok status_file || ktap_fail status_file

image=$(val image_node)
ktext_expect "$image" $EXP "$(cmdline_param ktext_fail_reserve)" >/tmp/ktext.want
sed 's/^/# expected: /' /tmp/ktext.want
ncopies=$(grep -c '^copy' /tmp/ktext.want)

want=1
param_off ktext_replication && want=0
tables_wanted || want=0
[ "$ncopies" = 0 ] && want=0
ktap_diag "ktext_replication $(bool_param ktext_replication), per-CPU tables wanted: $(tables_wanted && echo yes || echo no), $ncopies copies expected: enabled $want"
ktap_check enabled_matches [ "$(val enabled)" = "$want" ]
# The boot log says the same as the status file: "N replicas of ..." with
# its number of copies when on, one "off..." line and no replicas when off.
log=$(dmesg | grep -E 'ktext_replication: ([0-9]+ replicas of|off)')
ktap_diag "boot log: ${log:-nothing}"
if [ "$(val enabled)" = 1 ]; then
	ktap_check status_agrees_with_log eval \
		'[ "$(echo "$log" | wc -l)" = 1 ] && echo "$log" | grep -q "ktext_replication: $(val copies) replicas of"'
else
	ktap_check status_agrees_with_log eval \
		'[ "$(echo "$log" | wc -l)" = 1 ] && echo "$log" | grep -q "ktext_replication: off"'
fi

ktap_invalid_param_reported invalid_value_iff_reported ktext_replication

# Per node: source and whether it holds a copy.
ok=1
while read -r _ n src; do
	line=$(awk -v n="$n" '$1 == "node" && $2 == n' $ST)
	[ -n "$line" ] || { ktap_diag "node $n: no line in status"; ok=0; continue; }
	set -- $line
	got_src=$6 bytes=${10}
	if [ "$want" = 1 ]; then
		[ "$got_src" = "$src" ] || { ktap_diag "node $n: source $got_src, expected $src"; ok=0; }
	else
		[ "$got_src" = "$image" ] || { ktap_diag "node $n: source $got_src while off"; ok=0; }
	fi
	has=0
	[ "$want" = 1 ] && grep -q "^copy $n\$" /tmp/ktext.want && has=1
	if { [ $has = 1 ] && [ "$bytes" = 0 ]; } || { [ $has = 0 ] && [ "$bytes" != 0 ]; }; then
		ktap_diag "node $n: replica_bytes $bytes, copy expected: $has"
		ok=0
	fi
done <<EOF
$(grep '^source' /tmp/ktext.want)
EOF
[ $ok = 1 ] && ktap_ok sources || ktap_fail sources

[ "$want" = 1 ] || ncopies=0
ktap_check copies [ "$(val copies)" = "$ncopies" ]

# CPUs not brought up at boot (maxcpus=) come up now, after the copies were
# made: they must start on their node's copy too.
for f in /sys/devices/system/cpu/cpu[0-9]*/online; do
	[ "$(cat "$f")" = 1 ] && continue
	ktap_diag "bringing ${f%/online} online"
	echo 1 >"$f" || ktap_diag "${f%/online}: online failed"
done

# Every CPU's translation of every sampled address lands in its node's
# copy (replica_phys of its node line) at the address's offset from
# text_start: text, and rodata (the samples at and above text_end; none
# is in ro_after_init, which the KUnit suite samples).
start=$(val text_start)
tend=$(val text_end)
total=0 local=0 rtotal=0 rlocal=0
while read -r _ cpu _ node _ va _ pa; do
	base=$(awk -v n="$node" '$1 == "node" && $2 == n { print $8 }' $ST)
	ok=0
	[ -n "$base" ] && [ $((pa - base)) = $((va - start)) ] && ok=1
	[ $ok = 1 ] || ktap_diag "CPU$cpu (node $node): $va -> $pa, expected copy at ${base:-?}"
	if [ $((va)) -ge $((tend)) ]; then
		rtotal=$((rtotal + 1)) rlocal=$((rlocal + ok))
	else
		total=$((total + 1)) local=$((local + ok))
	fi
done <$TR
ktap_diag "$local of $total (CPU, sampled text page) translations in the CPU's node's copy"
ktap_check translations_node_local test "$total" -gt 0 -a "$local" = "$total"
ktap_diag "$rlocal of $rtotal (CPU, sampled rodata page) translations in the CPU's node's copy"
ktap_check rodata_node_local test "$rtotal" -gt 0 -a "$rlocal" = "$rtotal"

text=$(( tend - start ))
rodata=$(( $(val rodata_end) - tend - ($(val ro_after_init_end) - $(val ro_after_init_start)) ))
tables=$(awk '$1 == "node" { s += $12 } END { print s + 0 }' $ST)
rnodes=$(awk '$1 == "node" { s += $14 } END { print s + 0 }' $ST)
ktap_diag "text $text bytes, rodata $rodata bytes replicated; replica_bytes_total $(val replica_bytes_total); rodata_bytes_total $(val rodata_bytes_total) (nodes: $rnodes); table_bytes_total $(val table_bytes_total) (nodes: $tables)"
ktap_check accounting test "$(val replica_bytes_total)" = $((ncopies * text)) \
	-a "$(val rodata_bytes_total)" = $((ncopies * rodata)) -a "$rnodes" = $((ncopies * rodata)) \
	-a "$(val table_bytes_total)" = "$tables"

# The suite again, now that mark_rodata_ro() has run: the original rodata
# and ro_after_init are read-only too, which its cases then require.
ktap_kunit_rerun suite_after_boot ktext_replication "after boot"

# The module: its KUnit output goes to debugfs, not the console (printk
# level 1 while it loads, so a failing case cannot interleave with this
# document); every case of the suite is required, a skip fails.
RES=/sys/kernel/debug/kunit/ktext_module/results
if [ ! -f "$MOD" ]; then
	ktap_fail "module_loaded # $MOD missing (the harness ships it with kernels that build it)"
	for c in $MOD_CASES; do ktap_fail "$c # module not loaded"; done
	ktap_fail "module_replicated # module not loaded"
	ktap_fail "module_unloaded # module not loaded"
	ktap_fail "module_copies_freed # module not loaded"
	ktap_finish
fi
# Loaded and unloaded from a CPU of the image's node, whose tables share
# swapper's entries of the image slot, so the loader does not depend on
# the node copies; the suite's cases run in KUnit kthreads on any CPU and
# reach the other nodes with smp_call_on_cpu().
lcpu=$(sed 's/[-,].*//' /sys/devices/system/node/node$image/cpulist)
lvl=$(cut -f1 /proc/sys/kernel/printk)
pre_bytes=$(val module_replica_bytes) pre_mods=$(val modules)
echo 1 >/proc/sys/kernel/printk
taskset -c "$lcpu" insmod "$MOD" 2>/tmp/insmod.err
rc=$?
echo "$lvl" >/proc/sys/kernel/printk
[ $rc = 0 ] || sed 's/^/# insmod: /' /tmp/insmod.err
ktap_check module_loaded [ $rc = 0 -a -r $RES ]
[ -r $RES ] && cp $RES /tmp/ktext_module.results || : >/tmp/ktext_module.results
grep -E '^[[:space:]]*# .*(module text|Expected|CPU[0-9])' /tmp/ktext_module.results | sed 's/^[[:space:]]*/# module: /'
for c in $MOD_CASES; do
	line=$(grep -E "^[[:space:]]*(not )?ok [0-9]+ $c( |\$)" /tmp/ktext_module.results)
	case "$line" in
	*"# SKIP"*) ktap_fail "$c # skipped: ${line#*# SKIP}" ;;
	*"not ok"*) ktap_fail "$c" ;;
	*ok*) ktap_ok "$c" ;;
	*) ktap_fail "$c # not in $RES" ;;
	esac
done
# With replication on, the kernel has a module window, and the module's
# text and rodata have a copy on every replicated node while it is loaded
# (debugfs modules: one line per memory with copies); off, no copies.
MODS=/sys/kernel/debug/ktext_replication/modules
sed 's/^/# modules: /' $MODS
window=0
[ "$(val module_window_end)" != "0x0" ] && [ -n "$(val module_window_end)" ] && window=1
ktap_diag "module window: $(val module_window_start)-$(val module_window_end); $(val modules) modules, $(val module_areas) areas, module_replica_bytes $(val module_replica_bytes), module_table_bytes $(val module_table_bytes)"
mod_ok() {
	for kind in text rodata; do
		line=$(awk -v k=$kind '$1 == "ktext_module_kunit" && $2 == k' $MODS)
		[ -n "$line" ] || { ktap_diag "no $kind line"; return 1; }
		set -- $line
		[ "$7" = $(($5 * ncopies)) ] || { ktap_diag "$kind: replica_bytes $7, want $5 x $ncopies"; return 1; }
	done
}
if [ "$want" = 1 ]; then
	ktap_check module_replicated eval '[ $window = 1 ] && mod_ok'
else
	ktap_check module_replicated [ -z "$(grep ktext_module_kunit $MODS 2>/dev/null)" ]
fi
loaded_bytes=$(val module_replica_bytes)
taskset -c "$lcpu" rmmod ktext_module_kunit 2>/tmp/rmmod.err
rc=$?
[ $rc = 0 ] || sed 's/^/# rmmod: /' /tmp/rmmod.err
ktap_check module_unloaded [ $rc = 0 -a ! -e /sys/module/ktext_module_kunit ]
# Unloading frees every copy: no module line left, and the totals back
# where they were before the load.
ktap_diag "module_replica_bytes $pre_bytes before, $loaded_bytes loaded, $(val module_replica_bytes) unloaded"
ktap_check module_copies_freed [ -z "$(grep ktext_module_kunit $MODS 2>/dev/null)" \
	-a "$(val module_replica_bytes)" = "$pre_bytes" -a "$(val modules)" = "$pre_mods" ]
ktap_finish
