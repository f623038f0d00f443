#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mutant.sh [NAME...] - break the series on purpose and show a test catches it.
# Each tests/mutants/NAME.mutation names a file, a Python regex replacement,
# the lane to boot and the test that must fail. The mutation is applied to a
# worktree of the patched tree (build/mutant), built incrementally as kernel
# "mutant", booted, and reverted. Prints "killed" or "SURVIVED" per mutant.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no $SRC: make tree first"
names=("$@")
if [ ${#names[@]} = 0 ]; then
	for f in "$TOP"/tests/mutants/*.mutation; do names+=("$(basename "$f" .mutation)"); done
fi
if [ ! -d "$MUTANT_SRC" ]; then
	git -C "$SRC" worktree add -q --detach "$MUTANT_SRC" HEAD
fi
git -C "$MUTANT_SRC" checkout -q --detach "$(git -C "$SRC" rev-parse HEAD)"
killed=0 survived=0
for n in "${names[@]}"; do
	m=$TOP/tests/mutants/$n.mutation
	[ -r "$m" ] || die "no mutation $m (known: $(cd "$TOP/tests/mutants" && ls | sed 's/\.mutation$//' | tr '\n' ' '))"
	git -C "$MUTANT_SRC" checkout -q -- .
	python3 "$TOP/scripts/harness/mutate.py" "$m" "$MUTANT_SRC" || die "mutation $n does not apply"
	IFS=$'\t' read -r topo tests append expect < <(python3 "$TOP/scripts/harness/mutate.py" --lane "$m")
	bash "$TOP/scripts/kernel.sh" mutant
	[ "$append" = - ] && append=
	out=$(python3 "$TOP/scripts/harness.py" boot mutant "$topo" "$tests" --append "$append" \
		--name "mutant-$n" 2>&1 || true)
	if python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if any(p.endswith(sys.argv[2]) and s=='fail' for p,s,_ in r['tests']) else 1)" \
		"$BUILD/runs/mutant-$n/result.json" "$expect"; then
		echo "killed   $n: $expect failed"
		killed=$((killed + 1))
	else
		echo "SURVIVED $n: $expect did not fail ($(echo "$out" | head -n1))"
		survived=$((survived + 1))
	fi
done
git -C "$MUTANT_SRC" checkout -q -- .
echo "$killed killed, $survived survived"
