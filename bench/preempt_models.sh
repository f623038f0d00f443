#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# preempt_models.sh - what a this_cpu op costs under each preemption model,
# for the three this_cpu choices: the numbers behind the Kconfig default
# (second per-CPU table review, point 6).
#
# Full preemption is the test kernels' model (stock, patched, kseq: built by
# make kernels). Voluntary without PREEMPT_DYNAMIC (Debian's, no preempt
# count) and PREEMPT_DYNAMIC (the count kept whatever preempt= says) are
# configured from the same fragments plus configs/preempt-MODEL.config and
# only prepared for module builds (KERNEL_TARGETS=modules_prepare, a
# minute or two each): bench/this_cpu_ops is compiled against every tree
# and each op's common path counted by bench/path_count.py, as
# bench/disasm.sh does for the built kernels. Also prints which choice
# Kconfig picks by default under each model. Output: a table on stdout.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/lib.sh"

models=(voluntary dynamic full)
choices=(stock patched kseq)
out_dir=$BUILD/bench/preempt
mkdir -p "$out_dir"

kname() { [ "$2" = full ] && echo "$1" || echo "$1-$2"; }

for m in "${models[@]}"; do
	for c in "${choices[@]}"; do
		k=$(kname "$c" "$m")
		obj=$OUT/$k
		if [ "$m" = full ]; then
			[ -f "$obj/Module.symvers" ] || die "kernel $k not built (make kernels)"
		else
			KERNEL_TARGETS=modules_prepare bash "$TOP/scripts/kernel.sh" "$k" >&2
			if grep -q '^CONFIG_ARM64_THIS_CPU_ALIAS=y' "$obj/.config"; then
				make -s -C "$SRC" O="$obj" arch/arm64/kernel/percpu_stock.o \
					>"$out_dir/$k.stock.log" 2>&1 ||
					die "percpu_stock.o of $k failed; see $out_dir/$k.stock.log"
			fi
		fi
		d=$out_dir/$k
		rm -rf "$d"; mkdir -p "$d"
		cp "$TOP/bench/this_cpu_ops/this_cpu_ops.c" "$TOP/bench/this_cpu_ops/Kbuild" "$d/"
		# prepared trees have no Module.symvers: modpost may only warn
		KBUILD_MODPOST_WARN=1 make -s -C "$SRC" O="$obj" M="$d" modules >"$d/build.log" 2>&1 ||
			die "module build against $k failed; see $d/build.log"
		"${CROSS_COMPILE}objdump" -d --no-show-raw-insn "$d/this_cpu_ops.o" >"$d/this_cpu_ops.dis"
		: >"$d/callees.dis"
		if [ -f "$obj/arch/arm64/kernel/percpu_stock.o" ] &&
		   grep -q '^CONFIG_ARM64_THIS_CPU_ALIAS=y' "$obj/.config"; then
			"${CROSS_COMPILE}objdump" -d --no-show-raw-insn \
				"$obj/arch/arm64/kernel/percpu_stock.o" >"$d/callees.dis"
		fi
		grep -q "^CONFIG_PREEMPT_COUNT=y" "$obj/.config" && echo y >"$d/count" || echo n >"$d/count"
	done
done

# Kconfig's default choice under each model: base fragments + the model only
defaults=()
for m in "${models[@]}"; do
	cfg=$out_dir/default-$m
	rm -rf "$cfg"; mkdir -p "$cfg"
	frags=("$TOP/configs/base.config" "$TOP/configs/kunit.config")
	[ "$m" = full ] || frags+=("$TOP/configs/preempt-$m.config")
	(cd "$SRC" && scripts/kconfig/merge_config.sh -n -O "$cfg" "${frags[@]}") >"$cfg.log" 2>&1 ||
		die "merge_config.sh failed for the $m default; see $cfg.log"
	d=$(grep -oE '^CONFIG_ARM64_THIS_CPU_(PREEMPT|ALIAS|KSEQ)=y' "$cfg/.config" | sed 's/^CONFIG_ARM64_THIS_CPU_//; s/=y//')
	[ -n "$d" ] || die "no this_cpu choice in $cfg/.config"
	defaults+=("$m=$d")
done

echo "this_cpu op cost per preemption model (bench/preempt_models.sh)"
echo "executed on the common path (bench/path_count.py): instructions / memory accesses"
echo "model: voluntary = PREEMPT_VOLUNTARY without PREEMPT_DYNAMIC (Debian's);"
echo "dynamic = PREEMPT_DYNAMIC (any preempt= at boot); full = PREEMPT (the test kernels)"
echo
printf '%-26s' function
for m in "${models[@]}"; do for c in "${choices[@]}"; do printf ' %14s' "${c/patched/alias}/${m:0:3}"; done; done
echo
for f in $(grep -o '<bench_[a-z0-9_]*>:' "$out_dir/stock/this_cpu_ops.dis" | tr -d '<>:'); do
	printf '%-26s' "$f"
	for m in "${models[@]}"; do
		for c in "${choices[@]}"; do
			k=$(kname "$c" "$m")
			printf ' %14s' "$(python3 "$TOP/bench/path_count.py" --alias on \
				--callees "$out_dir/$k/callees.dis" \
				"$out_dir/$k/this_cpu_ops.dis" "$f" | tr ' ' /)"
		done
	done
	echo
done
echo
printf '%-26s' "PREEMPT_COUNT"
for m in "${models[@]}"; do for c in "${choices[@]}"; do printf ' %14s' "$(cat "$out_dir/$(kname "$c" "$m")/count")"; done; done
echo
echo "Kconfig default: ${defaults[*]}"
