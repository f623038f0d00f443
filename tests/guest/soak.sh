#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# soak.sh - make soak: everything at once for soak_secs seconds, then a
# check that nothing drifted.
#   - stress-ng: fork, exec, switch, futex, mmap and pipe stressors;
#   - CPU hotplug: every CPU but the boot CPU offline and online in turn;
#   - percpu allocation churn and per-CPU sums: the percpu_soak module
#     (tests/modules/percpu_soak), loaded again every 300 s at most; each
#     load checks its own sums and fails on a mismatch;
#   - core text patching: a tracepoint's static key, a kprobe and the
#     function tracer in a loop (the ktext_stress module, every 120 s).
# Afterwards every CPU comes back and the pcpu_pgtable and ktext_replication
# suites run again: this_cpu ops and their sums on every CPU, every text
# copy identical to the original, every CPU on its node's copy. The line
# "# soak: key=value ..." says what ran (bench/soak_record.py keeps it for
# docs/results.md). Kernel splats fail the lane on the host side.
#   soak_secs=N   seconds of load (default 60; make soak MINUTES=M sets it)
#   soak_ng=0|1   stress-ng or not; default 1, but 0 on the lockdep kernel
#                 (an upstream 6.12 WARN under hotplug churn: ktext_stress.sh)
. /harness/lib/ktap.sh
SYS=/sys/devices/system/cpu
MODS=/harness/modules
P=/sys/kernel/debug/pcpu_pgtable/status
KRES=/sys/kernel/debug/kunit/ktext_stress/results
PARAMS=/sys/module/percpu_soak/parameters
SECS=$(cmdline_param soak_secs)
SECS=${SECS:-60}
NG=$(cmdline_param soak_ng)
if [ -z "$NG" ] && [ -e /proc/lockdep ]; then
	ktap_diag "debug kernel (lockdep): no stress-ng"
	NG=0
fi
NG=${NG:-1}
bad=
case "$SECS" in
''|*[!0-9]*|0) bad="soak_secs=$SECS is not a positive number of seconds" ;;
esac
case "$NG" in
0|1) ;;
*) bad="soak_ng=$NG is neither 0 nor 1" NG=1 ;;
esac
CASES="percpu_sums percpu_chunks_churned text_patch_loop $([ "$NG" = 1 ] && echo stress_ng_exit_status)
	hotplug_churned cpus_back pcpu_pgtable_after_soak ktext_replication_after_soak modules_unloaded"
ktap_plan $(echo $CASES | wc -w)
for m in percpu_soak ktext_stress_kunit; do
	[ -f $MODS/$m.ko ] || bad="${bad:+$bad; }$MODS/$m.ko missing (the harness ships it with kernels that build it)"
done
if [ -n "$bad" ]; then
	ktap_diag "$bad"
	for c in $CASES; do ktap_fail "$c"; done
	exit 1
fi

now() { date +%s; }
END=$(($(now) + SECS))
rm -f /tmp/stop-churn /tmp/soak.* 2>/dev/null

# percpu_soak, once per 300 s at most, until the deadline; the sums of its
# counts, or the first failure, in /tmp/soak.percpu
percpu_loop() {
	loads=0 objects=0 updates=0 migrations=0 timer=0 created=0 destroyed=0 why=
	while [ "$(now)" -lt $END ] && [ -z "$why" ]; do
		chunk=$((END - $(now)))
		[ $chunk -gt 300 ] && chunk=300
		[ $chunk -lt 1 ] && break
		loads=$((loads + 1))
		if ! insmod $MODS/percpu_soak.ko secs=$chunk 2>/tmp/soak.insmod; then
			sed 's/^/# percpu_soak insmod: /' /tmp/soak.insmod
			why="load $loads failed: $(dmesg | grep 'percpu_soak: ' | tail -n 6 | tr '\n' ';')"
			break
		fi
		p() { cat $PARAMS/$1; }
		objects=$((objects + $(p objects))) updates=$((updates + $(p updates)))
		migrations=$((migrations + $(p migrations))) timer=$((timer + $(p timer_hits)))
		if [ "$(p chunks_created)" -lt 0 ]; then
			why="load $loads: the percpu chunk tracepoints were not found"
		fi
		created=$((created + $(p chunks_created))) destroyed=$((destroyed + $(p chunks_destroyed)))
		rmmod percpu_soak 2>>/tmp/soak.rmmod || why="rmmod percpu_soak failed after load $loads"
	done
	echo "percpu_loads=$loads objects=$objects updates=$updates migrations=$migrations" \
		"timer_updates=$timer chunks_created=$created chunks_destroyed=$destroyed" >/tmp/soak.percpu
	echo "$why" >/tmp/soak.percpu-why
}

# ktext_stress, once per 120 s at most (KUnit stops a case after 300 s)
text_loop() {
	loads=0 rounds=0 why=
	while [ "$(now)" -lt $END ] && [ -z "$why" ]; do
		chunk=$((END - $(now)))
		[ $chunk -gt 120 ] && chunk=120
		[ $chunk -lt 1 ] && break
		loads=$((loads + 1))
		if ! insmod $MODS/ktext_stress_kunit.ko secs=$chunk 2>/tmp/soak.kinsmod; then
			sed 's/^/# ktext_stress insmod: /' /tmp/soak.kinsmod
			why="insmod failed (load $loads)"
			break
		fi
		line=$(grep -E '^[[:space:]]*(not )?ok [0-9]+ ktext_stress_patch_loop_test' $KRES 2>/dev/null)
		case "$line" in
		*"# SKIP"*) why="skipped: ${line#*# SKIP}" ;;
		*"not ok"*) why="failed in load $loads" ; sed "s/^/# load $loads: /" $KRES ;;
		*ok*) ;;
		*) why="not in $KRES (load $loads)" ;;
		esac
		r=$(sed -n 's/.* \([0-9][0-9]*\) rounds$/\1/p' $KRES | tail -n 1)
		rounds=$((rounds + ${r:-0}))
		rmmod ktext_stress_kunit 2>>/tmp/soak.rmmod || why="rmmod ktext_stress_kunit failed after load $loads"
	done
	echo "text_loads=$loads patch_rounds=$rounds" >/tmp/soak.text
	echo "$why" >/tmp/soak.text-why
}

pv() { awk -v k="$1" '$1 == k { print $2 }' $P 2>/dev/null; }

ktap_diag "${SECS}s: percpu churn, text patching, CPU hotplug churn$([ "$NG" = 1 ] && echo ', stress-ng')"
# the KUnit output of ktext_stress goes to debugfs; keep the console quiet
lvl=$(cut -f1 /proc/sys/kernel/printk)
echo 1 >/proc/sys/kernel/printk
hotplug_churn /tmp/soak.churn &
cpid=$!
if [ "$NG" = 1 ]; then
	# 1M per mmap instance: see stress.sh
	stress-ng --fork 1 --switch 1 --futex 1 --mmap 1 --mmap-bytes 1M \
		--pipe 1 --timeout "${SECS}s" --metrics-brief >/tmp/soak.ng 2>&1 &
	spid=$!
	# the exec stressor skips itself when run as root: as nobody
	(cd /tmp && /harness/bin/runas 65534 /usr/bin/stress-ng --exec 1 --temp-path /tmp \
		--timeout "${SECS}s" --metrics-brief) >/tmp/soak.ngx 2>&1 &
	xpid=$!
fi
percpu_loop &
ppid_=$!
text_loop &
tpid=$!

# alias pages mapped, sampled while it runs
amin= amax=
while kill -0 $ppid_ 2>/dev/null || kill -0 $tpid 2>/dev/null; do
	a=$(pv alias_mapped_pages)
	if [ -n "$a" ]; then
		[ -z "$amin" ] || [ "$a" -lt "$amin" ] && amin=$a
		[ -z "$amax" ] || [ "$a" -gt "$amax" ] && amax=$a
	fi
	sleep 5
done
wait $ppid_
wait $tpid
touch /tmp/stop-churn
wait $cpid
echo "$lvl" >/proc/sys/kernel/printk

# percpu_soak: sums, then chunks
why=$(cat /tmp/soak.percpu-why 2>/dev/null)
ktap_diag "percpu_soak: $(cat /tmp/soak.percpu 2>/dev/null)"
if [ -s /tmp/soak.percpu ] && [ -z "$why" ]; then
	ktap_ok percpu_sums
else
	ktap_fail "percpu_sums # ${why:-no result}"
fi
pp() { sed -n "s/.*$1=\([0-9-]*\).*/\1/p" /tmp/soak.percpu 2>/dev/null; }
ktap_check percpu_chunks_churned [ "$(pp chunks_created)" -gt 0 -a "$(pp chunks_destroyed)" -gt 0 ]

why=$(cat /tmp/soak.text-why 2>/dev/null)
ktap_diag "ktext_stress: $(cat /tmp/soak.text 2>/dev/null)"
if [ -s /tmp/soak.text ] && [ -z "$why" ]; then
	ktap_ok text_patch_loop
else
	ktap_fail "text_patch_loop # ${why:-no result}"
fi

ops=
if [ "$NG" = 1 ]; then
	wait $spid
	src=$?
	wait $xpid
	xrc=$?
	[ $xrc = 0 ] || src="$src, exec: $xrc"
	for f in /tmp/soak.ng /tmp/soak.ngx; do
		grep -E 'metrc: .*\] *[a-z]+ +[0-9]' $f | sed 's/^/# /'
		grep -iE 'fail|error|abort|killed|untrustworthy|skipp' $f | tail -n 5 | sed 's/^/# /'
	done
	# metrics-brief: "stress-ng: metrc: [pid] NAME BOGO-OPS ..."
	for s in fork exec switch futex mmap pipe; do
		o=$(sed -n "s/.*\] *$s  *\([0-9][0-9]*\) .*/\1/p" /tmp/soak.ng /tmp/soak.ngx | head -n 1)
		ops="$ops${ops:+,}$s:${o:-0}"
		[ -n "$o" ] && [ "$o" -gt 0 ] || { ktap_diag "stress-ng $s: no bogo ops"; src="$src, $s: no ops"; }
	done
	[ "$src" = 0 ] || ktap_diag "stress-ng exit status: $src"
	ktap_check stress_ng_exit_status [ "$src" = 0 ]
fi

cycles=$(cat /tmp/soak.churn 2>/dev/null)
ktap_diag "${cycles:-no} CPU offline/online cycles"
ktap_check hotplug_churned [ "${cycles:-0}" -gt 0 ]
for c in $(ls -d $SYS/cpu[1-9]* 2>/dev/null | sed 's/.*cpu//'); do
	echo 1 >$SYS/cpu$c/online 2>/dev/null
done
ktap_check cpus_back [ "$(cat $SYS/online)" = "$(cat $SYS/present)" ]

ktap_kunit_rerun pcpu_pgtable_after_soak pcpu_pgtable "after soak"
ktap_kunit_rerun ktext_replication_after_soak ktext_replication "after soak"
ktap_check modules_unloaded [ ! -e /sys/module/percpu_soak -a ! -e /sys/module/ktext_stress_kunit ]

nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
ktap_diag "soak: secs=$SECS cpus=$(ls -d $SYS/cpu[0-9]* | wc -l) nodes=$nodes" \
	"hotplug_cycles=${cycles:-0} stress_ng=${ops:-off} $(cat /tmp/soak.text) $(cat /tmp/soak.percpu)" \
	"alias_pages=${amin:-?}-${amax:-?}"
ktap_finish
