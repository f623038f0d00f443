#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bisect-build.sh - build the kernel at every prefix of patches/series (the
# patched config) in build/out/bisect, so a bisection never lands on a patch
# that does not build. Slow: one incremental build per patch.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

wt=$BUILD/bisect-src
out=$OUT/bisect
mkdir -p "$out" "$LOGS"
[ -d "$wt" ] || git -C "$SRC" worktree add -q --detach "$wt" base
mapfile -t commits < <(git -C "$SRC" rev-list --reverse base..HEAD)
[ ${#commits[@]} -gt 0 ] || die "no patches applied in $SRC (make tree)"

cc=${CROSS_COMPILE}gcc
command -v ccache >/dev/null && cc="ccache $cc"
read -r -a frags <<<"$(kernel_fragments patched)"
i=0
for c in "${commits[@]}"; do
	i=$((i + 1))
	git -C "$wt" checkout -q --detach "$c"
	subject=$(git -C "$wt" log -1 --format=%s)
	# options a later patch introduces are simply absent here
	(cd "$wt" && scripts/kconfig/merge_config.sh -n -O "$out" "${frags[@]}") \
		>"$LOGS/bisect-config.log" 2>&1 || die "config failed at patch $i"
	if make -C "$wt" O="$out" CC="$cc" -j"$(nproc_build)" Image modules \
		>"$LOGS/bisect-$i.log" 2>&1; then
		echo "ok $i $subject"
	else
		echo "not ok $i $subject (see $LOGS/bisect-$i.log)"
		exit 1
	fi
done
echo "all ${#commits[@]} prefixes of the series build"
