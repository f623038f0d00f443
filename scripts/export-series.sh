#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# export-series.sh - write the commits base..dev of build/dev (the developers'
# worktree) to patches/ and patches/series, keeping the hand-written cover
# letter, then mark build/linux as already carrying them (no re-apply).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$DEV_SRC" ] || die "no $DEV_SRC (create it with: make dev-tree)"
git -C "$DEV_SRC" diff --quiet HEAD || die "$DEV_SRC has uncommitted changes"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$DEV_SRC" format-patch -q --zero-commit --no-signature --cover-letter \
	-o "$tmp" base..HEAD
n=$(find "$tmp" -name '0[0-9][0-9][0-9]-*.patch' ! -name '0000-*' | wc -l)
[ "$n" -gt 0 ] || die "no commits between base and $DEV_SRC HEAD"

# Replace the numbered patches; keep a written cover letter.
find "$TOP/patches" -maxdepth 1 -name '0[0-9][0-9][0-9]-*.patch' ! -name '0000-cover-letter.patch' -delete
cover=$TOP/patches/0000-cover-letter.patch
if [ -f "$cover" ]; then
	# Keep the written body; the patch count in the subject, the shortlog
	# and the diffstat come from the commits, so they cannot go stale.
	grep -qE '^[^ ].* \([0-9]+\):$' "$cover" ||
		die "$cover has no shortlog line ('Author (N):') to regenerate from"
	{
		sed -E -n '/^[^ ].* \([0-9]+\):$/q; s|^Subject: \[PATCH 0/[0-9]+\]|Subject: [PATCH 0/'"$n"']|; p' "$cover"
		sed -E -n '/^[^ ].* \([0-9]+\):$/,$p' "$tmp/0000-cover-letter.patch"
	} >"$tmp/cover"
	mv "$tmp/cover" "$cover"
else
	cp "$tmp/0000-cover-letter.patch" "$cover"
fi
for p in "$tmp"/0[0-9][0-9][0-9]-*.patch; do
	case "$p" in */0000-cover-letter.patch) continue ;; esac
	cp "$p" "$TOP/patches/"
done
{
	sed -n '/^#/p' "$TOP/patches/series"
	for p in "$tmp"/0[0-9][0-9][0-9]-*.patch; do
		case "$p" in */0000-cover-letter.patch) continue ;; esac
		basename "$p"
	done
} >"$tmp/series"
mv "$tmp/series" "$TOP/patches/series"
info EXPORT "$n patches to patches/ (series updated)"

# build/linux gets the same commits, and the stamp tree.sh keeps says so:
# only files that differ are rewritten, so the patched build stays incremental.
if [ -d "$SRC/.git" ]; then
	git -C "$SRC" reset -q --hard "$(git -C "$DEV_SRC" rev-parse HEAD)"
	mkdir -p "$STAMPS"
	: >"$STAMPS/series.new"
	# format-patch numbers the files in rev-list order
	mapfile -t commits < <(git -C "$DEV_SRC" rev-list --reverse base..HEAD)
	i=0
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		echo "$(sha256sum <"$TOP/patches/$p" | cut -d' ' -f1) ${commits[i]}" >>"$STAMPS/series.new"
		i=$((i + 1))
	done <"$TOP/patches/series"
	[ "$i" = "${#commits[@]}" ] || die "patches/series and build/dev disagree"
	mv "$STAMPS/series.new" "$STAMPS/series"
fi
