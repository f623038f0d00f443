#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ktext_stress.sh - text replication under stress: core kernel text is
# patched in a loop (a tracepoint's static key, a kprobe, the function
# tracer: the ktext_stress module's KUnit case) while every CPU but the
# boot CPU goes offline and online in a loop and stress-ng loads the
# CPUs. Afterwards every CPU is brought back, and the built-in
# ktext_replication suite runs again: every copy still identical to the
# original, every CPU (the replugged ones too) on its node's copy.
# Kernel splats during the run fail the lane on the host side.
#   ktext_stress_secs=N   seconds of patching (default 20); KUnit stops a case
#                         after 300 s, so the module is loaded once per 120 s
#   ktext_stress_ng=0|1   stress-ng or not; default 1, but 0 on a kernel
#                         with lockdep (the debug lane: see tests/matrix)
. /harness/lib/ktap.sh
SYS=/sys/devices/system/cpu
MOD=/harness/modules/ktext_stress_kunit.ko
RES=/sys/kernel/debug/kunit/ktext_stress/results
K=/sys/kernel/debug/kunit/ktext_replication
SECS=$(cmdline_param ktext_stress_secs)
SECS=${SECS:-20}
NG=$(cmdline_param ktext_stress_ng)
if [ -z "$NG" ] && [ -e /proc/lockdep ]; then
	# the debug kernel: stress-ng with hotplug churn hits an upstream WARN
	# there in about 1 of 6 boots, on vanilla 6.12 too (tests/matrix)
	ktap_diag "debug kernel (lockdep): hotplug churn without stress-ng"
	NG=0
fi
NG=${NG:-1}
case "$SECS" in
''|*[!0-9]*) ktap_diag "ktext_stress_secs=$SECS is not a number of seconds"; SECS=bad ;;
esac
case "$NG" in
0|1) ;;
*) ktap_diag "ktext_stress_ng=$NG is neither 0 nor 1"; SECS=bad NG=1 ;;
esac
# stress_ng_exit_status only where stress-ng runs
ktap_plan $((4 + NG))
if [ "$SECS" = bad ] || [ ! -f "$MOD" ] || [ ! -w $K/run ]; then
	[ -f "$MOD" ] || ktap_diag "$MOD missing (the harness ships it with kernels that build it)"
	[ -w $K/run ] || ktap_diag "$K/run missing"
	for c in patch_loop $([ "$NG" = 1 ] && echo stress_ng_exit_status) cpus_back \
		suite_after_stress module_unloaded; do
		ktap_fail "$c"
	done
	exit 1
fi

rm -f /tmp/stop-churn
hotplug_churn /tmp/churn-count &
cpid=$!
if [ "$NG" = 1 ]; then
	stress-ng --fork 2 --switch 2 --futex 2 --affinity 2 --timeout "$((SECS + 5))s" \
		--metrics-brief >/tmp/ktext-stress.out 2>&1 &
	spid=$!
fi
ktap_diag "${SECS}s of core text patching, CPU hotplug churn$([ "$NG" = 1 ] && echo ', stress-ng')"
# the suite runs while the module loads (output in debugfs, not the
# console); at most 120 s a load, the module unloaded between loads
lvl=$(cut -f1 /proc/sys/kernel/printk)
echo 1 >/proc/sys/kernel/printk
left=$SECS loads=0 ok=1 why=
while [ "$left" -gt 0 ] && [ $ok = 1 ]; do
	chunk=$left
	[ "$chunk" -gt 120 ] && chunk=120
	left=$((left - chunk)) loads=$((loads + 1))
	if ! insmod "$MOD" secs="$chunk" 2>/tmp/insmod.err; then
		sed 's/^/# insmod: /' /tmp/insmod.err
		ok=0 why="insmod failed (load $loads)"
		break
	fi
	[ -r $RES ] && sed "s/^/# load $loads: /" $RES
	[ $loads = 1 ] && grep '^ktext_stress_kunit ' /sys/kernel/debug/ktext_replication/modules \
		2>/dev/null | sed 's/^/# modules: /'
	line=$(grep -E '^[[:space:]]*(not )?ok [0-9]+ ktext_stress_patch_loop_test' $RES 2>/dev/null)
	case "$line" in
	*"# SKIP"*) ok=0 why="skipped: ${line#*# SKIP}" ;;
	*"not ok"*) ok=0 why="failed in load $loads" ;;
	*ok*) ;;
	*) ok=0 why="not in $RES (load $loads)" ;;
	esac
	[ $left -gt 0 ] && rmmod ktext_stress_kunit
done
echo "$lvl" >/proc/sys/kernel/printk
touch /tmp/stop-churn
wait $cpid
ktap_diag "$(cat /tmp/churn-count 2>/dev/null || echo ?) CPU offline/online cycles during $loads load(s) of the module"
if [ $ok = 1 ]; then
	ktap_ok patch_loop
else
	ktap_fail "patch_loop # $why"
fi

if [ "$NG" = 1 ]; then
	wait $spid
	src=$?
	tail -n 6 /tmp/ktext-stress.out | sed 's/^/# /'
	ktap_check stress_ng_exit_status [ "$src" = 0 ]
fi

for c in $(ls -d $SYS/cpu[1-9]* 2>/dev/null | sed 's/.*cpu//'); do
	echo 1 >$SYS/cpu$c/online 2>/dev/null
done
ktap_check cpus_back [ "$(cat $SYS/online)" = "$(cat $SYS/present)" ]

# identical copies, every CPU's translations: the suite again
ktap_kunit_rerun suite_after_stress ktext_replication "after stress"

rmmod ktext_stress_kunit 2>/tmp/rmmod.err
rc=$?
[ $rc = 0 ] || sed 's/^/# rmmod: /' /tmp/rmmod.err
ktap_check module_unloaded [ $rc = 0 -a ! -e /sys/module/ktext_stress_kunit ]
ktap_finish
