#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench.sh - fixed amounts of kernel work, each between the two markers of
# kmark (tests/guest/src/kmark.c), for the kinsn TCG plugin counting from
# outside the guest (lane option kinsn; bench/insn.py reads both).
#
# Each stressor runs twice, with N and with 2N bogo ops, one stress-ng
# worker: the difference of the two windows' kernel instructions over N is
# the kernel cost of one op, without stress-ng's own start and exit.
#   bench_ops=K     scale every N by K (default 1)
#   bench_only=S,.. only these stressors
# A line "# bench: window W STRESSOR OPS" names plugin window W (the
# plugin numbers windows from 0 in the order kmark ran them).
. /harness/lib/ktap.sh

# stressor and N at bench_ops=1. Debian 12's stress-ng (0.15.06) has no
# getpid or cpu-sched stressor: get (getpid and the other get* calls) and
# yield (sched_yield) stand in for them.
TABLE="fork:200 exec:50 switch:4000 futex:4000 mmap:8 pipe:4000 get:200 yield:4000"
scale=$(cmdline_param bench_ops)
scale=${scale:-1}
only=$(cmdline_param bench_only)
case "$scale" in
'' | *[!0-9]* | 0) ktap_plan 1; ktap_fail "bench_ops # bench_ops=$scale is not a positive integer"; ktap_finish ;;
esac
list=
for e in $TABLE; do
	s=${e%%:*}
	if [ -n "$only" ]; then
		case ",$only," in *",$s,"*) ;; *) continue ;; esac
	fi
	list="$list $e"
done
for s in $(echo "$only" | tr ',' ' '); do
	case " $TABLE" in *" $s:"*) ;; *)
		ktap_plan 1; ktap_fail "bench_only # no stressor $s here (known: $TABLE)"; ktap_finish ;;
	esac
done
set -- $list
ktap_plan $#
known=$(stress-ng --stressors 2>/dev/null)
window=0
cd /tmp || exit 1
for e in "$@"; do
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
		if ! /harness/bin/kmark $run /usr/bin/stress-ng --"$s" 1 --"$s"-ops "$ops" \
			--temp-path /tmp --quiet >/dev/null 2>&1; then
			ktap_diag "stress-ng --$s 1 --$s-ops $ops failed"
			ok=0
		fi
	done
	if [ $ok = 1 ]; then ktap_ok "$s"; else ktap_fail "$s"; fi
done
ktap_finish
