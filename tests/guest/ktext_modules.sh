#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ktext_modules.sh - module text replication under churn: a module (the
# bench's this_cpu_ops.ko) is loaded and unloaded ROUNDS times, from a
# CPU of each node in turn, and every tenth round a CPU goes offline
# before the load and comes back after the unload. While it is loaded,
# its text and rodata must have a copy on every replicated node
# (debugfs ktext_replication/modules), and every online CPU must map
# each page of them (debugfs ktext_replication/translate, AT S1E1R on
# that CPU): CPUs with one source node to one page, CPUs of different
# source nodes to different pages. On the tenth rounds the CPU taken
# offline comes back while the module is loaded and must map it too
# (on 8node it is its node's only CPU: the module was loaded while all
# of that node's CPUs were offline).
# After the loop no CPU may map any page the module had, and the module
# totals of the status file and the window's table bytes must be back
# where they were before it: every copy freed, no table page kept.
#   ktext_modules_rounds=N   rounds (default 100)
. /harness/lib/ktap.sh
ST=/sys/kernel/debug/ktext_replication/status
MODS=/sys/kernel/debug/ktext_replication/modules
TRANS=/sys/kernel/debug/ktext_replication/translate
MOD=/harness/modules/this_cpu_ops.ko
NAME=this_cpu_ops
ROUNDS=$(cmdline_param ktext_modules_rounds)
ROUNDS=${ROUNDS:-100}
CASES="modules_window module_rounds module_translations module_cpu_offline
	module_totals_back freed_copies_unmapped"
ktap_plan 6
case "$ROUNDS" in
''|*[!0-9]*|0) ktap_diag "ktext_modules_rounds=$ROUNDS is not a positive number"; ROUNDS=bad ;;
esac
if [ "$ROUNDS" = bad ] || [ ! -r $ST ] || [ ! -w $TRANS ] || [ ! -f "$MOD" ]; then
	[ -r $ST ] || ktap_diag "$ST missing"
	[ -w $TRANS ] || ktap_diag "$TRANS missing"
	[ -f "$MOD" ] || ktap_diag "$MOD missing (the harness ships it with kernels that build it)"
	for c in $CASES; do ktap_fail "$c"; done
	exit 1
fi
val() { awk -v k="$1" '$1 == k { print $2 }' $ST; }
# cpus_of LIST: the CPUs of a cpulist ("0-1,4"), one a line
cpus_of() {
	echo "$1" | tr ',' '\n' | while IFS=- read -r a b; do
		[ -n "$a" ] && seq "$a" "${b:-$a}"
	done
}

# module_pages NAME: the first address of every page of NAME's text and
# rodata with copies, from the modules file
module_pages() {
	awk -v m="$1" '$1 == m && ($2 == "text" || $2 == "rodata") { print $3, $5 }' $MODS |
	while read -r addr bytes; do
		o=0
		while [ $o -lt "$bytes" ]; do
			printf '%#x\n' $((addr + o))
			o=$((o + 4096))
		done
	done
}
# check_translations PAGES: every online CPU maps every page; one page
# per source node, a different one for each source node. Prints what is
# wrong; fails on it.
check_translations() {
	echo $1 >$TRANS || { ktap_diag "write to $TRANS failed"; return 1; }
	awk -v pages="$(echo $1 | wc -w)" -v want_cpus="$(online_cpus)" '
		NR == FNR { if ($1 == "node") src[$2] = $6; next }
		{ cpu = $2; node = $4; va = $6; pa = $8; seen[cpu]++
		  if (pa == "-") { printf "# CPU%s (node %s): %s unmapped\n", cpu, node, va; bad = 1; next }
		  s = src[node]; key = va " " s
		  if (key in page && page[key] != pa) {
			printf "# CPU%s (node %s): %s -> %s, another CPU of source node %s -> %s\n",
				cpu, node, va, pa, s, page[key]; bad = 1 }
		  page[key] = pa
		  if ((va " " pa) in owner && owner[va " " pa] != s) {
			printf "# %s -> %s on source nodes %s and %s\n", va, pa, owner[va " " pa], s; bad = 1 }
		  owner[va " " pa] = s }
		END { n = 0; for (c in seen) { n++; if (seen[c] != pages) bad = 1 }
		      if (n != want_cpus) { printf "# %d CPUs answered, %d online\n", n, want_cpus; bad = 1 }
		      exit bad }' $ST $TRANS
}
# the number of online CPUs
online_cpus() {
	cpus_of "$(cat /sys/devices/system/cpu/online)" | grep -c .
}

# A lane running this test is one where replication must be on.
copies=$(val copies)
ktap_diag "copies $copies, module window $(val module_window_start)-$(val module_window_end)"
ktap_check modules_window [ "$(val enabled)" = 1 -a "$(val module_window_end)" != 0x0 ]

pre=""
for k in modules module_areas module_bytes module_replica_bytes module_table_bytes module_pages_short; do
	pre="$pre $k=$(val $k)"
done
ktap_diag "before:$pre"

# The CPU that goes offline: the last CPU, never the boot CPU.
victim=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | sed 's|.*/cpu||' | sort -n | tail -n 1)
[ "$victim" = 0 ] && victim=
# CPUs to load from: a CPU of each node other than the victim, in turn.
loaders=$(for n in /sys/devices/system/node/node[0-9]*; do
	for c in $(cpus_of "$(cat "$n/cpulist")"); do
		[ "$c" != "$victim" ] && { echo "$c"; break; }
	done
done)
nload=$(echo "$loaders" | wc -l)
# a victim alone on its node: every tenth load happens with all of that
# node's CPUs offline, and the node must still get its copies
vnode=$(ls -d /sys/devices/system/cpu/cpu${victim:-none}/node[0-9]* 2>/dev/null | sed 's|.*/node||')
[ -n "$vnode" ] && [ "$(cpus_of "$(cat /sys/devices/system/node/node$vnode/cpulist)" | grep -c .)" = 1 ] &&
	ktap_diag "CPU$victim is node $vnode's only CPU: every tenth load with all of node $vnode's CPUs offline"

bad=0 offline_bad=0 trans_bad=0 i=0
: >/tmp/modloop.pages
while [ $i -lt "$ROUNDS" ]; do
	cpu=$(echo "$loaders" | sed -n "$((i % nload + 1))p")
	off=0
	if [ $((i % 10)) = 9 ] && [ -n "$victim" ]; then
		if echo 0 >/sys/devices/system/cpu/cpu$victim/online; then off=1; else offline_bad=1; fi
	fi
	if ! taskset -c "$cpu" insmod $MOD 2>/tmp/modloop.err; then
		ktap_diag "round $i: insmod on CPU$cpu failed: $(cat /tmp/modloop.err)"
		bad=1
	else
		[ $i = 0 ] && grep "^$NAME " $MODS | sed 's/^/# loaded: /'
		for kind in text rodata; do
			line=$(awk -v m=$NAME -v k=$kind '$1 == m && $2 == k' $MODS)
			set -- $line
			if [ -z "$line" ] || [ "$7" != $(($5 * copies)) ]; then
				ktap_diag "round $i (CPU$cpu): $kind line '${line:-none}', want bytes x $copies copies"
				bad=1
			fi
		done
		pages=$(module_pages $NAME)
		echo "$pages" >>/tmp/modloop.pages
		if ! check_translations "$pages"; then
			ktap_diag "round $i (CPU$cpu): translations of $(echo $pages)"
			trans_bad=1
		fi
		# the CPU taken offline comes back with the module loaded
		if [ $off = 1 ]; then
			echo 1 >/sys/devices/system/cpu/cpu$victim/online || offline_bad=1
			off=0
			if ! check_translations "$pages"; then
				ktap_diag "round $i: translations after CPU$victim came back"
				trans_bad=1
			fi
		fi
		taskset -c "$cpu" rmmod $NAME 2>/tmp/modloop.err ||
			{ ktap_diag "round $i: rmmod failed: $(cat /tmp/modloop.err)"; bad=1; }
	fi
	if [ $off = 1 ] && ! echo 1 >/sys/devices/system/cpu/cpu$victim/online; then
		offline_bad=1
	fi
	[ $bad = 1 ] && break
	i=$((i + 1))
done
ktap_diag "$i of $ROUNDS rounds from CPUs $(echo $loaders), CPU${victim:-none} offline every tenth"
ktap_check module_rounds [ $bad = 0 -a $i = "$ROUNDS" ]
ktap_check module_translations [ $bad = 0 -a $trans_bad = 0 ]
ktap_check module_cpu_offline [ -n "$victim" -a $offline_bad = 0 \
	-a "$(cat /sys/devices/system/cpu/cpu${victim:-0}/online)" = 1 ]

post=""
for k in modules module_areas module_bytes module_replica_bytes module_table_bytes module_pages_short; do
	post="$post $k=$(val $k)"
done
ktap_diag "after: $post"
ktap_check module_totals_back [ "$pre" = "$post" -a -z "$(grep "^$NAME " $MODS)" ]

# No CPU maps a page the module had in any round: the nodes' entries for
# it went with the copies. Eight addresses a read.
sort -u /tmp/modloop.pages | grep . >/tmp/modloop.freed
nfreed=$(grep -c . /tmp/modloop.freed)
ncpus=$(online_cpus)
lines=0 mapped=0
while [ -s /tmp/modloop.freed ]; do
	chunk=$(head -n 8 /tmp/modloop.freed)
	sed -i '1,8d' /tmp/modloop.freed
	echo $chunk >$TRANS || { mapped=1; break; }
	lines=$((lines + $(grep -c . $TRANS)))
	if grep -qv ' pa -$' $TRANS; then
		grep -v ' pa -$' $TRANS | head -n 5 | sed 's/^/# still mapped: /'
		mapped=1
	fi
done
echo >$TRANS
ktap_diag "$nfreed pages of the module's text and rodata over the rounds, $lines translations after the loop"
ktap_check freed_copies_unmapped [ $mapped = 0 -a "$nfreed" -gt 0 -a $lines = $((nfreed * ncpus)) ]
ktap_finish
