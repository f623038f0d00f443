#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bisect-build.sh - build the kernel at every prefix of patches/series (the
# patched config) in build/out/bisect and boot it on the default topology
# (built-in KUnit suites of that prefix, no guest tests), so a bisection
# never lands on a patch that does not build or boot. Slow: one incremental
# build and one boot per patch. BISECT_BOOT=0 only builds. BISECT_ONLY="3 4"
# takes only those prefixes (patch numbers in patches/series), e.g. after
# splitting a patch. BISECT_CONFIG=fragment is merged after the patched
# config (configs/bisect-tables.config: the tables live at early prefixes).
# Each boot says whether the per-CPU tables were on.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

case "${BISECT_BOOT:-1}" in
0|1) ;;
*) die "BISECT_BOOT=${BISECT_BOOT} (expected 0 or 1)" ;;
esac
wt=$BUILD/bisect-src
out=$OUT/bisect
mkdir -p "$out" "$LOGS"
[ -d "$wt" ] || git -C "$SRC" worktree add -q --detach "$wt" base
mapfile -t commits < <(git -C "$SRC" rev-list --reverse base..HEAD)
[ ${#commits[@]} -gt 0 ] || die "no patches applied in $SRC (make tree)"
only=" "
for n in ${BISECT_ONLY:-}; do
	case "$n" in
	*[!0-9]* | 0*) die "BISECT_ONLY=\"$BISECT_ONLY\": $n is not a patch number" ;;
	esac
	[ "$n" -le ${#commits[@]} ] ||
		die "BISECT_ONLY=\"$BISECT_ONLY\": the series has ${#commits[@]} patches, not $n"
	only+="$n "
done

cc=${CROSS_COMPILE}gcc
command -v ccache >/dev/null && cc="ccache $cc"
read -r -a frags <<<"$(kernel_fragments patched)"
if [ -n "${BISECT_CONFIG:-}" ]; then
	[ -r "$BISECT_CONFIG" ] || die "BISECT_CONFIG=$BISECT_CONFIG: no such config fragment"
	frags+=("$(realpath "$BISECT_CONFIG")")
fi
i=0
for c in "${commits[@]}"; do
	i=$((i + 1))
	if [ "$only" != " " ] && [[ "$only" != *" $i "* ]]; then
		continue
	fi
	git -C "$wt" checkout -q --detach "$c"
	subject=$(git -C "$wt" log -1 --format=%s)
	# options a later patch introduces are simply absent here
	(cd "$wt" && scripts/kconfig/merge_config.sh -n -O "$out" "${frags[@]}") \
		>"$LOGS/bisect-config.log" 2>&1 || die "config failed at patch $i"
	if make -C "$wt" O="$out" CC="$cc" -j"$(nproc_build)" Image modules \
		>"$LOGS/bisect-$i.log" 2>&1; then
		:
	else
		echo "not ok $i $subject (see $LOGS/bisect-$i.log)"
		exit 1
	fi
	if [ "${BISECT_BOOT:-1}" = 1 ]; then
		if ! python3 "$TOP/scripts/harness.py" boot bisect 2node - \
			--name "bisect-$i" >"$LOGS/bisect-boot-$i.log" 2>&1; then
			echo "not ok $i $subject (boot: see $LOGS/bisect-boot-$i.log)"
			exit 1
		fi
		tables=$(grep -o 'per-CPU page tables: .* for [0-9]* CPUs' \
			"$BUILD/runs/bisect-$i/console.log" | head -n1 || true)
		echo "ok $i $subject ($(sed -n 's/^PASS [^:]*: //p' "$LOGS/bisect-boot-$i.log" | cut -d';' -f1); ${tables:-per-CPU page tables off})"
	else
		echo "ok $i $subject (built)"
	fi
done
what="all ${#commits[@]} prefixes of the series"
[ "$only" = " " ] || what="prefixes${only% } of the ${#commits[@]}-patch series"
if [ "${BISECT_BOOT:-1}" = 1 ]; then
	echo "$what build and boot"
else
	echo "$what build"
fi
