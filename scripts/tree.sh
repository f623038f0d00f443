#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tree.sh - unpack the Debian kernel source into build/linux as a git commit
# (tag "base"), keep a pristine worktree in build/linux-vanilla, and apply
# patches/series with git am. Only patches that changed are re-applied.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mkdir -p "$STAMPS"
GIT=(git -C "$SRC" -c user.name=harness -c user.email=harness@localhost
     -c advice.detachedHead=false -c gc.auto=0)

import_base() {
	local key tmp
	key=$(stat -c '%s %Y' "$TARBALL")
	if [ -f "$STAMPS/base" ] && [ "$(cat "$STAMPS/base")" = "$key" ] &&
	   "${GIT[@]}" rev-parse -q --verify base >/dev/null 2>&1; then
		return 0
	fi
	info IMPORT "$TARBALL -> $SRC"
	rm -rf "$SRC" "$VANILLA_SRC" "$STAMPS/series" "$BUILD/linux.tmp"
	tmp=$BUILD/linux.tmp
	mkdir -p "$tmp"
	tar -C "$tmp" -xf "$TARBALL" --strip-components=1
	git -C "$tmp" init -q -b base-import
	git -C "$tmp" -c user.name=harness -c user.email=harness@localhost \
		-c gc.auto=0 add -A -f >/dev/null
	git -C "$tmp" -c user.name=harness -c user.email=harness@localhost \
		commit -q -m "Import $(basename "$TARBALL") ($SRCPKG $(dpkg-query -W -f='${Version}' "$SRCPKG"))"
	git -C "$tmp" tag base
	mv "$tmp" "$SRC"      # only a complete import ever appears as $SRC
	"${GIT[@]}" worktree add -q --detach "$VANILLA_SRC" base
	echo "$key" >"$STAMPS/base"
}

# One line per applied patch: "<sha256 of patch file> <commit>".
apply_series() {
	local series=$TOP/patches/series applied=$STAMPS/series
	local -a want=() done_sums=() done_commits=()
	local p sum c i keep=0 target

	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		[ -f "$TOP/patches/$p" ] || die "patches/series lists '$p', which does not exist"
		want+=("$p")
	done <"$series"

	if [ -f "$applied" ]; then
		while read -r sum c; do done_sums+=("$sum"); done_commits+=("$c"); done <"$applied"
	fi
	# Longest unchanged prefix: keep those commits (and their file mtimes).
	for ((i = 0; i < ${#want[@]} && i < ${#done_sums[@]}; i++)); do
		sum=$(sha256sum <"$TOP/patches/${want[i]}" | cut -d' ' -f1)
		[ "$sum" = "${done_sums[i]}" ] || break
		keep=$((i + 1))
	done
	if [ "$keep" = "${#want[@]}" ] && [ "$keep" = "${#done_sums[@]}" ] &&
	   [ "$("${GIT[@]}" rev-parse HEAD)" = "$(tail -n1 "$applied" 2>/dev/null | cut -d' ' -f2 || true)" ] ||
	   { [ "${#want[@]}" = 0 ] && [ "${#done_sums[@]}" = 0 ] && [ -f "$applied" ]; }; then
		return 0
	fi

	"${GIT[@]}" am --abort >/dev/null 2>&1 || true
	target=base
	[ "$keep" -gt 0 ] && target=${done_commits[keep - 1]}
	"${GIT[@]}" reset -q --hard "$target"
	"${GIT[@]}" clean -q -fdx -e '.stamp*'
	head -n "$keep" "$applied" >"$applied.new" 2>/dev/null || : >"$applied.new"
	for ((i = keep; i < ${#want[@]}; i++)); do
		p=${want[i]}
		if ! "${GIT[@]}" am -q --3way "$TOP/patches/$p" >"$BUILD/git-am.log" 2>&1; then
			"${GIT[@]}" am --abort >/dev/null 2>&1 || true
			mv "$applied.new" "$applied"
			cat "$BUILD/git-am.log" >&2
			die "patch $((i + 1)) of ${#want[@]} does not apply: patches/$p (tree left at the previous patch)"
		fi
		echo "$(sha256sum <"$TOP/patches/$p" | cut -d' ' -f1) $("${GIT[@]}" rev-parse HEAD)" >>"$applied.new"
		info AM "$p"
	done
	mv "$applied.new" "$applied"
}

import_base
apply_series
