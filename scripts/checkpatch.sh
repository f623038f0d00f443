#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.sh - scripts/checkpatch.pl --strict over patches/series. First
# proves the checker reports a known-bad patch (a relative path to a tracked
# file makes checkpatch print nothing), then checks every listed patch.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cp=$SRC/scripts/checkpatch.pl
[ -x "$cp" ] || die "$cp missing (make tree)"
run() { perl "$cp" --no-tree --strict --terse --show-types "$@" 2>&1 || true; }

bad=$TOP/tests/harness/fixtures/bad.patch
run "$bad" | grep -q ': ERROR:' ||
	die "checkpatch reported nothing on the known-bad $bad: the check itself is broken"

n=0 findings=0
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	out=$(run "$TOP/patches/$p" | grep -E ': (ERROR|WARNING|CHECK):' || true)
	if [ -n "$out" ]; then
		echo "$out"
		findings=$((findings + $(echo "$out" | wc -l)))
	fi
done <"$TOP/patches/series"
echo "checkpatch --strict: $n patches, $findings findings"
[ "$findings" = 0 ]
