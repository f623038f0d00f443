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

# FILE_PATH_CHANGES asks whether MAINTAINERS needs updating: answer it.
# When every file the patch adds is already in a section other than THE
# REST (through a glob such as include/linux/percpu*.h), it does not, and
# the warning is listed with the sections instead of counted.
covered() {	# PATCH
	local f secs
	for f in $(awk '/^diff --git /{f = $4} /^new file mode/{sub(/^b\//, "", f); print f}' "$1"); do
		secs=$(cd "$SRC" && perl scripts/get_maintainer.pl --no-git --no-tree --sections \
			-f "$f" 2>/dev/null | grep -vE '^([A-Z]:	|$)' | grep -vx 'THE REST' || true)
		[ -n "$secs" ] || return 1
		echo "$f in: $(echo "$secs" | paste -sd, -)"
	done
}

n=0 findings=0
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	out=$(run "$TOP/patches/$p" | grep -E ': (ERROR|WARNING|CHECK):' || true)
	if echo "$out" | grep -q ':FILE_PATH_CHANGES:' && sections=$(covered "$TOP/patches/$p"); then
		echo "$p: new files already in MAINTAINERS: $sections"
		out=$(echo "$out" | grep -v ':FILE_PATH_CHANGES:' || true)
	fi
	if [ -n "$out" ]; then
		echo "$out"
		findings=$((findings + $(echo "$out" | wc -l)))
	fi
done <"$TOP/patches/series"
echo "checkpatch --strict: $n patches, $findings findings"
[ "$findings" = 0 ]
