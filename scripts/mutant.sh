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
	IFS=$'\t' read -r topo tests append expect kernel cpu then < <(python3 "$TOP/scripts/harness/mutate.py" --lane "$m")
	bash "$TOP/scripts/kernel.sh" "$kernel"
	if [ "$topo" = codegen ]; then
		# not booted: the this_cpu code of the mutant against the budget
		bash "$TOP/bench/disasm.sh" mutant stock kseq >/dev/null
		out=$(python3 "$TOP/bench/codegen_check.py" --alias-kernel mutant \
			"$BUILD/bench/disasm" 2>&1 || true)
		if echo "$out" | grep -qE "^not ok [0-9]+ .*$expect\$"; then
			echo "killed   $n: $expect failed"; killed=$((killed + 1))
		else
			echo "SURVIVED $n: $expect passed"; survived=$((survived + 1))
		fi
		continue
	fi
	[ "$append" = - ] && append=
	cpuopt=()
	[ "$cpu" = - ] || cpuopt=(--cpu "$cpu")
	[ "$then" = - ] || cpuopt+=("$then")
	out=$(python3 "$TOP/scripts/harness.py" boot "$kernel" "$topo" "$tests" --append "$append" \
		"${cpuopt[@]}" --name "mutant-$n" 2>&1 || true)
	r=$BUILD/runs/mutant-$n/result.json
	verdict=$(python3 - "$r" "$expect" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
hit = [s for p, s, _ in r['tests'] if p.endswith(sys.argv[2])]
others = [p for p, s, _ in r['tests'] if s == 'fail' and not p.endswith(sys.argv[2])]
if 'fail' in hit:
    print('test')
elif r['verdict'] == 'FAIL':
    print('lane: ' + '; '.join(r['reasons'][:2] + ['failed: ' + ', '.join(others)] * bool(others)))
else:
    print('none')
PY
)
	case "$verdict" in
	test) echo "killed   $n: $expect failed"; killed=$((killed + 1)) ;;
	lane:*) echo "killed   $n: the lane failed before $expect could (${verdict#lane: })"; killed=$((killed + 1)) ;;
	*) echo "SURVIVED $n: $expect passed ($(echo "$out" | head -n1))"; survived=$((survived + 1)) ;;
	esac
done
git -C "$MUTANT_SRC" checkout -q -- .
echo "$killed killed, $survived survived"
