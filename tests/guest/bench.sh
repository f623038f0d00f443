#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench.sh - fixed amounts of kernel work, each between two markers that
# the kinsn TCG plugin sees from outside the guest (lane option kinsn;
# bench/insn.py reads both):
#  - stress-ng stressors, run by kmark (tests/guest/src/kmark.c), one
#    worker each: the plugin counts every vCPU;
#  - the this_cpu op loops of the this_cpu_ops module
#    (bench/this_cpu_ops), run in the kernel with interrupts off on one
#    CPU: the plugin's count of that vCPU is the loop's and nothing else;
#  - the price of the series elsewhere (price:NAME), every vCPU counted:
#    the module's percpu alloc/free, chunk population and destruction,
#    and kprobe arm/disarm loops; and from here, a static key toggled
#    (sched_schedstats: its branches are in core text), a CPU taken
#    offline and online, the module loaded and unloaded.
#
# Each runs twice, with N and with 2N ops: the difference of the two
# windows' kernel instructions over N is the cost of one op, without
# stress-ng's start and exit or the loop's entry.
#   bench_ops=K     scale every N by K (default 1)
#   bench_only=S,.. only these (stressors, op:NAME for an op, ops for
#                   every op, price:NAME, price for every price)
#   bench_cgroup=1  run everything in a cgroup v2 with the memory
#                   controller on, as a service manager would
#   bench_perf=1    count each stressor window with the kernel's perf
#                   events too (kmark -p): "# bench: perf W K U", the
#                   instructions:k and :u of the stressor's own tasks
# A line "# bench: window W NAME OPS [cpu C]" names plugin window W (the
# plugin numbers windows from 0 in the order they closed). Before and
# after, "# bench: status boot|after FILE KEY VALUE" copy the debugfs
# status files of the series (memory of tables and copies), and
# "# bench: init_seconds T" gives the guest clock when init started.
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
	exec) echo "--exec-max 1 --temp-path /tmp" ;;
	mmap) echo "--mmap-bytes 4m --temp-path /tmp" ;;
	hdd) echo "--hdd-bytes 4m --temp-path $DATA/tmp" ;;
	*) echo "--temp-path /tmp" ;;
	esac
}
# only when bench_only names them: stressors that need the realistic
# configuration (configs/realistic.config): TCP over loopback; writes and
# reads on ext4 and a compile (gcc -O2 -c of eight preprocessed kernel
# files, the compiler in a chroot), both on the lane's disk (disk=cc:
# bench/cc-image.sh), mounted at $DATA
REAL="sock:20 hdd:400 cc:1"
DATA=/mnt/bench
# the module's loops (its debugfs file "ops" lists them), N calls each
OPS="empty read floor_read write floor_write inc inc_ptr floor_inc add_return
floor_add_return xchg floor_xchg cmpxchg floor_cmpxchg cmpxchg128 floor_cmpxchg128"
OPS_N=1000
# the price: NAME:N (module: the module's loops, the others from here)
PRICE="alloc_free:200 chunk:4 kprobe:10 static_key:10 online:4 modload:4"
PRICE_MODULE="alloc_free chunk kprobe"
SCHEDSTATS=/proc/sys/kernel/sched_schedstats
MOD=/harness/modules/this_cpu_ops.ko
RUN=/sys/kernel/debug/this_cpu_ops/run
scale=$(cmdline_param bench_ops)
scale=${scale:-1}
only=$(cmdline_param bench_only)
case "$scale" in
'' | *[!0-9]* | 0) ktap_plan 1; ktap_fail "bench_ops # bench_ops=$scale is not a positive integer"; ktap_finish ;;
esac
list=
for e in $TABLE $REAL $(for o in $OPS; do echo "op:$o:$OPS_N"; done) $(for p in $PRICE; do echo "price:$p"; done); do
	s=${e%:*}
	case " $REAL " in *" $e "*) case ",$only," in *",$s,"*) ;; *) continue ;; esac ;; esac
	if [ -n "$only" ]; then
		case ",$only," in
		*",$s,"*) ;;
		*",ops,"* | *",price,"*)
			case "$s,$only," in
			op:*",ops,"* | price:*",price,"*) ;;
			*) continue ;;
			esac ;;
		*) continue ;;
		esac
	fi
	list="$list $e"
done
for s in $(echo "$only" | tr ',' ' '); do
	case $s in
	ops | price) continue ;;
	op:*) case " $(echo $OPS) " in *" ${s#op:} "*) continue ;; esac ;;
	price:*) case " $PRICE" in *" ${s#price:}:"*) continue ;; esac ;;
	*) case " $TABLE $REAL" in *" $s:"*) continue ;; esac ;;
	esac
	ktap_plan 1
	ktap_fail "bench_only # no stressor, op or price $s here (stressors: $TABLE $REAL; op:NAME for: $(echo $OPS); ops for all; price:NAME for: $(echo $PRICE | sed 's/:[0-9]*//g'); price for all)"
	ktap_finish
done
set -- $list
ktap_plan $#
# the module, loaded once for the first case that needs it (price:modload
# unloads it)
need_mod() {
	[ -d /sys/module/this_cpu_ops ] && return 0
	insmod $MOD 2>/tmp/bench.insmod && return 0
	sed 's/^/# insmod: /' /tmp/bench.insmod
	return 1
}
status() {
	for f in pcpu_pgtable ktext_replication kseq; do
		[ -r /sys/kernel/debug/$f/status ] || continue
		awk -v w="$1" -v f=$f 'NF == 2 { print "# bench: status " w " " f " " $1 " " $2 }' \
			/sys/kernel/debug/$f/status
	done
}
# the realistic configuration's setting: a memory cgroup, an ext4 disk
if [ "$(cmdline_param bench_cgroup)" = 1 ]; then
	CG=/sys/fs/cgroup
	if ! { mount -t cgroup2 none $CG && echo +memory >$CG/cgroup.subtree_control &&
		mkdir -p $CG/bench && echo $$ >$CG/bench/cgroup.procs; } 2>/tmp/bench.cg; then
		sed 's/^/# cgroup: /' /tmp/bench.cg
		for e in "$@"; do ktap_fail "${e%:*} # bench_cgroup=1: no memory cgroup (CONFIG_MEMCG)"; done
		ktap_finish
	fi
	ktap_diag "bench: in cgroup $(cat /proc/self/cgroup), controllers $(cat $CG/bench/cgroup.controllers)"
fi
case " $* " in *" sock:"*)
	# TCP over loopback: with lo down, stress-ng's sock connects nowhere
	# and still exits 0
	if ! ip link set lo up 2>/tmp/bench.lo; then
		sed 's/^/# ip: /' /tmp/bench.lo
		for e in "$@"; do ktap_fail "${e%:*} # sock: cannot bring up lo (CONFIG_INET)"; done
		ktap_finish
	fi ;;
esac
case " $* " in *" hdd:"* | *" cc:"*)
	mkdir -p $DATA
	if ! mount -t ext4 /dev/vda $DATA 2>/tmp/bench.mount; then
		sed 's/^/# mount: /' /tmp/bench.mount
		for e in "$@"; do ktap_fail "${e%:*} # hdd, cc: no ext4 on /dev/vda (disk=cc, CONFIG_EXT4_FS)"; done
		ktap_finish
	fi
	mkdir -p $DATA/tmp ;;
esac
perf=
[ "$(cmdline_param bench_perf)" = 1 ] && perf="-p /tmp/bench.perf"
status boot
# every record has a time; dmesg prints it only with printk.time on
T=/sys/module/printk/parameters/time
t=$(cat $T 2>/dev/null)
echo Y >$T 2>/dev/null
dmesg | sed -n 's/^\[ *\([0-9.]*\)\] Run .* as init process.*/# bench: init_seconds \1/p' | head -n 1
[ -n "$t" ] && echo "$t" >$T
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

# price:NAME:N - N of the thing, then 2N, every vCPU counted
run_price() {
	name=${1#price:}
	name=${name%:*}
	n=$((${1##*:} * scale))
	ok=1
	case " $PRICE_MODULE " in *" $name "*)
		need_mod || { ktap_fail "price:$name # cannot load $MOD"; return; } ;;
	esac
	case $name in
	static_key)
		if [ ! -w $SCHEDSTATS ]; then
			ktap_fail "price:$name # no $SCHEDSTATS (CONFIG_SCHEDSTATS)"
			return
		fi
		was=$(cat $SCHEDSTATS) ;;
	online)
		cpu=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | sed 's/.*cpu//' | sort -n | tail -n 1)
		if [ ! -w /sys/devices/system/cpu/cpu$cpu/online ]; then
			ktap_fail "price:$name # CPU $cpu cannot go offline (one CPU, or no hotplug)"
			return
		fi ;;
	modload)
		if [ -d /sys/module/this_cpu_ops ] && ! rmmod this_cpu_ops; then
			ktap_fail "price:$name # cannot unload this_cpu_ops"
			return
		fi ;;
	esac
	for ops in $n $((2 * n)); do
		case $name in
		static_key)
			/harness/bin/kmark /bin/sh -c "i=0; while [ \$i -lt $ops ]; do
				echo 1 >$SCHEDSTATS && echo 0 >$SCHEDSTATS || exit 1; i=\$((i + 1)); done" ;;
		online)
			f=/sys/devices/system/cpu/cpu$cpu/online
			/harness/bin/kmark /bin/sh -c "i=0; while [ \$i -lt $ops ]; do
				echo 0 >$f && echo 1 >$f || exit 1; i=\$((i + 1)); done" ;;
		modload)
			/harness/bin/kmark /bin/sh -c "i=0; while [ \$i -lt $ops ]; do
				insmod $MOD && rmmod this_cpu_ops || exit 1; i=\$((i + 1)); done" ;;
		*)
			echo "$name $ops" >$RUN 2>/tmp/bench.op ;;
		esac
		if [ $? != 0 ]; then
			ktap_diag "price:$name $ops failed"
			ok=0
		fi
		# named even when it failed: the plugin counted the window
		ktap_diag "bench: window $window price:$name $ops"
		window=$((window + 1))
	done
	[ "$name" = static_key ] && echo "$was" >$SCHEDSTATS
	if [ $ok = 1 ]; then ktap_ok "price:$name"; else ktap_fail "price:$name"; fi
}

# cc:N - N times, gcc -O2 -c of every file of $DATA/src, in a chroot
run_cc() {
	n=$((${1#cc:} * scale))
	ok=1
	if [ ! -x $DATA/usr/bin/gcc-12 ]; then
		ktap_fail "cc # no gcc-12 on /dev/vda (disk=cc, bench/cc-image.sh)"
		return
	fi
	for ops in $n $((2 * n)); do
		ktap_diag "bench: window $window cc $ops"
		w=$window
		window=$((window + 1))
		rm -f /tmp/bench.perf
		if ! /harness/bin/kmark $perf /bin/sh -c "i=0; while [ \$i -lt $ops ]; do
			for f in $DATA/src/*.i; do
				chroot $DATA /usr/bin/gcc-12 -O2 -w -c /src/\${f##*/} -o /tmp/cc.o || exit 1
			done; i=\$((i + 1)); done" >/tmp/bench.err 2>&1; then
			ktap_diag "cc $ops failed: $(tail -n 1 /tmp/bench.err)"
			ok=0
		elif [ -n "$perf" ]; then
			ktap_diag "bench: perf $w $(awk '{ printf "%s ", $2 }' /tmp/bench.perf)"
		fi
	done
	if [ $ok = 1 ]; then ktap_ok cc; else ktap_fail cc; fi
}

for e in "$@"; do
	case $e in
	cc:*) run_cc "$e"; continue ;;
	op:*)
		if need_mod; then run_op "$e"; else ktap_fail "${e%:*} # cannot load $MOD"; fi
		continue ;;
	price:*) run_price "$e"; continue ;;
	esac
	s=${e%%:*}
	n=$((${e#*:} * scale))
	case " $known " in *" $s "*) ;; *)
		ktap_fail "$s # stress-ng $(stress-ng --version 2>/dev/null | cut -d' ' -f3) has no $s stressor"
		continue ;;
	esac
	ok=1
	for ops in $n $((2 * n)); do
		ktap_diag "bench: window $window $s $ops"
		w=$window
		window=$((window + 1))
		# exec refuses to run as root: as nobody, like soak.sh
		run=
		[ "$s" = exec ] && run="/harness/bin/runas 65534"
		rm -f /tmp/bench.perf
		if ! /harness/bin/kmark $perf $run /usr/bin/stress-ng --"$s" 1 --"$s"-ops "$ops" \
			$(extra_args "$s") --quiet >/dev/null 2>/tmp/bench.err; then
			ktap_diag "stress-ng --$s 1 --$s-ops $ops failed: $(tail -n 1 /tmp/bench.err)"
			ok=0
		elif [ -n "$perf" ]; then
			ktap_diag "bench: perf $w $(awk '{ printf "%s ", $2 }' /tmp/bench.perf)"
		fi
	done
	if [ $ok = 1 ]; then ktap_ok "$s"; else ktap_fail "$s"; fi
done
status after
ktap_finish
