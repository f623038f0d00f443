#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench.sh - fixed amounts of kernel work, each between two markers that
# the kinsn TCG plugin sees from outside the guest (lane option kinsn;
# bench/insn.py reads both):
#  - stress-ng stressors, run by kmark (tests/guest/src/kmark.c), one
#    worker each: the plugin counts every vCPU;
#  - the this_cpu op loops of the this_cpu_ops module
#    (bench/this_cpu_ops), run in the kernel with interrupts off on one
#    CPU: the plugin's count of that vCPU is the loop's and nothing else.
#
# Each runs twice, with N and with 2N ops: the difference of the two
# windows' kernel instructions over N is the cost of one op, without
# stress-ng's start and exit or the loop's entry.
#   bench_ops=K     scale every N by K (default 1)
#   bench_only=S,.. only these (stressors, op:NAME for an op, or ops for
#                   every op)
# A line "# bench: window W NAME OPS [cpu C]" names plugin window W (the
# plugin numbers windows from 0 in the order they closed).
. /harness/lib/ktap.sh

# stressor and N at bench_ops=1. Debian 12's stress-ng (0.15.06) has no
# getpid or cpu-sched stressor: get (getpid and the other get* calls)
# stands in for the first; its yield stressor does not stop at --yield-ops
# (its parent sleeps on after the workers exit), so there is none for the
# second. Nor futex: its waits time out after microseconds, so its count
# follows the clock, and with -icount boots of vanilla and of the series
# alike ended in a soft lockup in the timer softirq (seen once in switch
# on vanilla too): docs/design.md section 15. The soak and stress tests
# run futex.
# exec: one child at a time (stress-ng's default keeps up to 4096, each a
# fork and exec of stress-ng itself, a big dynamic binary); mmap: 4 MiB a
# mapping (the default, 256 MiB, takes minutes an op under TCG).
TABLE="fork:200 exec:50 switch:4000 mmap:32 pipe:4000 get:200"
extra_args() {
	case $1 in
	exec) echo "--exec-max 1" ;;
	mmap) echo "--mmap-bytes 4m" ;;
	esac
}
# the module's loops (its debugfs file "ops" lists them), N calls each
OPS="empty read floor_read write floor_write inc inc_ptr floor_inc add_return
floor_add_return xchg floor_xchg cmpxchg floor_cmpxchg cmpxchg128 floor_cmpxchg128"
OPS_N=1000
MOD=/harness/modules/this_cpu_ops.ko
RUN=/sys/kernel/debug/this_cpu_ops/run
scale=$(cmdline_param bench_ops)
scale=${scale:-1}
only=$(cmdline_param bench_only)
case "$scale" in
'' | *[!0-9]* | 0) ktap_plan 1; ktap_fail "bench_ops # bench_ops=$scale is not a positive integer"; ktap_finish ;;
esac
list=
for e in $TABLE $(for o in $OPS; do echo "op:$o:$OPS_N"; done); do
	s=${e%:*}
	if [ -n "$only" ]; then
		case ",$only," in *",$s,"*) ;; *",ops,"*) case $s in op:*) ;; *) continue ;; esac ;;
		*) continue ;; esac
	fi
	list="$list $e"
done
for s in $(echo "$only" | tr ',' ' '); do
	case $s in
	ops) continue ;;
	op:*) case " $(echo $OPS) " in *" ${s#op:} "*) continue ;; esac ;;
	*) case " $TABLE" in *" $s:"*) continue ;; esac ;;
	esac
	ktap_plan 1
	ktap_fail "bench_only # no stressor or op $s here (stressors: $TABLE; op:NAME for: $(echo $OPS); ops for all)"
	ktap_finish
done
set -- $list
ktap_plan $#
case "$list" in *" op:"*)
	if ! insmod $MOD 2>/tmp/bench.insmod; then
		sed 's/^/# insmod: /' /tmp/bench.insmod
		for e in "$@"; do ktap_fail "${e%:*} # cannot load $MOD"; done
		ktap_finish
	fi ;;
esac
known=$(stress-ng --stressors 2>/dev/null)
window=0
cd /tmp || exit 1
# op:NAME:N - the module's loop NAME, N calls, then 2N
run_op() {
	name=${1#op:}
	name=${name%:*}
	n=$((${1##*:} * scale))
	ok=1
	for ops in $n $((2 * n)); do
		if ! echo "$name $ops" >$RUN 2>/tmp/bench.op; then
			ktap_diag "$name $ops: $(cat /tmp/bench.op)"
			ok=0
			continue
		fi
		ktap_diag "bench: window $window op:$name $ops cpu $(cat $RUN)"
		window=$((window + 1))
	done
	if [ $ok = 1 ]; then ktap_ok "op:$name"; else ktap_fail "op:$name"; fi
}

for e in "$@"; do
	case $e in op:*) run_op "$e"; continue ;; esac
	s=${e%%:*}
	n=$((${e#*:} * scale))
	case " $known " in *" $s "*) ;; *)
		ktap_fail "$s # stress-ng $(stress-ng --version 2>/dev/null | cut -d' ' -f3) has no $s stressor"
		continue ;;
	esac
	ok=1
	for ops in $n $((2 * n)); do
		ktap_diag "bench: window $window $s $ops"
		window=$((window + 1))
		# exec refuses to run as root: as nobody, like soak.sh
		run=
		[ "$s" = exec ] && run="/harness/bin/runas 65534"
		if ! /harness/bin/kmark $run /usr/bin/stress-ng --"$s" 1 --"$s"-ops "$ops" $(extra_args "$s") \
			--temp-path /tmp --quiet >/dev/null 2>&1; then
			ktap_diag "stress-ng --$s 1 --$s-ops $ops failed"
			ok=0
		fi
	done
	if [ $ok = 1 ]; then ktap_ok "$s"; else ktap_fail "$s"; fi
done
ktap_finish
