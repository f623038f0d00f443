#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# disasm.sh [KERNEL...] - what one this_cpu op costs in instructions.
# Builds bench/this_cpu_ops as a module against each kernel (default:
# vanilla patched kseq stock) and prints, per op, the static instruction
# count of its function and the instructions executed on the common path
# (bench/path_count.py), with the listing of this_cpu_inc to check by eye.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/lib.sh"

kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(vanilla patched kseq stock)
out_dir=$BUILD/bench/disasm
mkdir -p "$out_dir"

for k in "${kernels[@]}"; do
	src=$(kernel_src "$k")
	obj=$OUT/$k
	[ -f "$obj/Module.symvers" ] || die "kernel $k not built (make kernel-$k)"
	m=$out_dir/$k
	rm -rf "$m"; mkdir -p "$m"
	cp "$TOP/bench/this_cpu_ops/this_cpu_ops.c" "$TOP/bench/this_cpu_ops/Kbuild" "$m/"
	make -s -C "$src" O="$obj" M="$m" modules >"$m/build.log" 2>&1 ||
		die "module build against $k failed; see $m/build.log"
	"${CROSS_COMPILE}objdump" -d --no-show-raw-insn "$m/this_cpu_ops.o" >"$m/this_cpu_ops.dis"
	# the out-of-line stock ops of an alias kernel, followed by path_count.py
	: >"$m/callees.dis"
	if [ -f "$obj/arch/arm64/kernel/percpu_stock.o" ]; then
		"${CROSS_COMPILE}objdump" -d --no-show-raw-insn \
			"$obj/arch/arm64/kernel/percpu_stock.o" >"$m/callees.dis"
	fi
	# call sites of preempt_schedule_notrace() in the whole kernel
	"${CROSS_COMPILE}objdump" -d --no-show-raw-insn "$obj/vmlinux" |
		grep -c 'bl[[:space:]].*<preempt_schedule_notrace>' >"$m/preempt_sites" || true
done

printf '%-28s' "function"
for k in "${kernels[@]}"; do printf ' %10s' "$k"; done
echo "   (static instructions, incl. 2 ftrace nops)"
for f in $(grep -o '<bench_[a-z0-9_]*>:' "$out_dir/${kernels[0]}/this_cpu_ops.dis" | tr -d '<>:'); do
	printf '%-28s' "$f"
	for k in "${kernels[@]}"; do
		n=$(awk -v f="<$f>:" '$2 == f { on = 1; next } on && /^$/ { exit } on && /:\t/ { n++ } END { print n + 0 }' \
			"$out_dir/$k/this_cpu_ops.dis")
		printf ' %10s' "$n"
	done
	echo
done
echo
echo "executed on the common path (bench/path_count.py): instructions / memory accesses"
echo "(K-off: kernel K booted with percpu_pgtable=off, its out-of-line stock op included)"
cols=()
for k in "${kernels[@]}"; do
	cols+=("$k")
	case "$k" in patched|dev) cols+=("$k-off") ;; esac
done
printf '%-28s' function
for c in "${cols[@]}"; do printf ' %12s' "$c"; done
echo
for f in $(grep -o '<bench_[a-z0-9_]*>:' "$out_dir/${kernels[0]}/this_cpu_ops.dis" | tr -d '<>:'); do
	printf '%-28s' "$f"
	for c in "${cols[@]}"; do
		k=${c%-off} alias=on
		[ "$c" = "$k" ] || alias=off
		printf ' %12s' "$(python3 "$TOP/bench/path_count.py" --alias $alias \
			--callees "$out_dir/$k/callees.dis" \
			"$out_dir/$k/this_cpu_ops.dis" "$f" | tr ' ' /)"
	done
	echo
done
echo
echo "calls of preempt_schedule_notrace() in vmlinux (objdump -d | grep -c)"
for k in "${kernels[@]}"; do printf '%-12s %6s\n' "$k" "$(cat "$out_dir/$k/preempt_sites")"; done
for k in "${kernels[@]}"; do
	echo
	echo "== $k: bench_this_cpu_inc =="
	awk '/<bench_this_cpu_inc>:/ { on = 1 } on && /^$/ { exit } on' "$out_dir/$k/this_cpu_ops.dis"
done
