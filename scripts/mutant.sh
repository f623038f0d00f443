#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mutant.sh [NAME...] - break the series on purpose and show a test catches it.
# Each tests/mutants/NAME.mutation names a file, a Python regex replacement,
# the lane to boot and the test that must fail. The mutation is applied to a
# worktree of the patched tree (build/mutant), built incrementally as kernel
# "mutant", booted, and reverted. Prints "killed" or "SURVIVED" per mutant,
# and writes each result to docs/data/mutants/ (make results: the kill matrix).
# Without names: every mutation, the qemu-blind/ ones last, except those
# whose record already holds a verdict for this series and this mutation
# file (an interrupted run resumes where it stopped); FORCE=1 reruns them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no $SRC: make tree first"
names=("$@")
case ${FORCE:-0} in
0|1) ;;
*) die "FORCE=$FORCE: say FORCE=1 to rerun mutations whose record is up to date" ;;
esac
resume=0
if [ ${#names[@]} = 0 ]; then
	[ "${FORCE:-0}" = 1 ] || resume=1
	for f in "$TOP"/tests/mutants/*.mutation; do names+=("$(basename "$f" .mutation)"); done
	# what QEMU cannot show: expected to survive, run for the record
	for f in "$TOP"/tests/mutants/qemu-blind/*.mutation; do
		names+=("qemu-blind/$(basename "$f" .mutation)")
	done
fi
if [ ! -d "$MUTANT_SRC" ]; then
	git -C "$SRC" worktree add -q --detach "$MUTANT_SRC" HEAD
fi
git -C "$MUTANT_SRC" checkout -q --detach "$(git -C "$SRC" rev-parse HEAD)"
git -C "$MUTANT_SRC" checkout -q -- .
# every mutation must still apply to the series, before an hour of builds
stale=
for n in "${names[@]}"; do
	m=$TOP/tests/mutants/$n.mutation
	[ -r "$m" ] || die "no mutation $m (known: $(cd "$TOP/tests/mutants" && ls | sed 's/\.mutation$//' | tr '\n' ' '))"
	python3 "$TOP/scripts/harness/mutate.py" --check "$m" "$MUTANT_SRC" || stale="$stale $n"
done
[ -z "$stale" ] || die "mutations that no longer apply to the series (update their find:):$stale"
killed=0 survived=0 current=0
# One JSON file per mutant under docs/data/mutants/ (committed: a full run
# takes over an hour), for the kill matrix of docs/results.md (make
# results): the series it ran against, the verdict and the test that
# caught it.
RES=${MUTANT_RESULTS:-$TOP/docs/data/mutants}
mkdir -p "$RES"
series=$(sed -e 's/#.*//' "$TOP/patches/series" | while read -r p; do
	[ -z "$p" ] || cat "$TOP/patches/$p"; done | sha256sum | cut -c1-12)
mhash() { sha256sum "$TOP/tests/mutants/$1.mutation" | cut -c1-12; }
# the verdict of NAME's record if it was made against this series and
# this mutation file, else nothing
up_to_date() {
	python3 - "$RES/${1//\//+}.json" "$series" "$(mhash "$1")" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(0)
if r.get('series') == sys.argv[2] and r.get('mutation') == sys.argv[3]:
    print(r['verdict'])
PY
}
record() {	# NAME VERDICT DETAIL
	python3 - "$TOP/tests/mutants/$1.mutation" "$RES/${1//\//+}.json" "$1" "$2" "$3" "$series" \
		"$(mhash "$1")" <<'PY'
import json, sys, time
sys.path.insert(0, sys.argv[1].rsplit('/tests/', 1)[0] + '/scripts/harness')
import mutate
m = mutate.load(sys.argv[1])
json.dump({'name': sys.argv[3], 'verdict': sys.argv[4], 'detail': sys.argv[5],
           'why': m.get('why', ''), 'file': m['file'], 'expect': m['expect'],
           'lane': ' '.join(x for x in (m.get('config', ''), m.get('topo', ''),
                                        m.get('append', ''), m.get('kexec', '') and 'kexec',
                                        m.get('hibernate', '') and 'hibernate',
                                        m.get('boot', ''))
                            if x and x != '-'),
           'series': sys.argv[6], 'mutation': sys.argv[7],
           'date': time.strftime('%Y-%m-%d')},
          open(sys.argv[2], 'w'), indent=1)
PY
}
for n in "${names[@]}"; do
	m=$TOP/tests/mutants/$n.mutation
	if [ $resume = 1 ]; then
		v=$(up_to_date "$n")
		if [ -n "$v" ]; then
			echo "current  $n: $v against this series (FORCE=1 reruns it)"
			current=$((current + 1))
			continue
		fi
	fi
	git -C "$MUTANT_SRC" checkout -q -- .
	python3 "$TOP/scripts/harness/mutate.py" "$m" "$MUTANT_SRC" || die "mutation $n does not apply"
	IFS=$'\t' read -r topo tests append expect kernel cpu then skip bootopts < <(python3 "$TOP/scripts/harness/mutate.py" --lane "$m")
	bash "$TOP/scripts/kernel.sh" "$kernel"
	if [ "$topo" = codegen ]; then
		# not booted: the this_cpu code of the mutant against the budget
		bash "$TOP/bench/disasm.sh" mutant stock kseq >/dev/null
		out=$(python3 "$TOP/bench/codegen_check.py" --alias-kernel mutant \
			"$BUILD/bench/disasm" 2>&1 || true)
		if echo "$out" | grep -qE "^not ok [0-9]+ .*$expect\$"; then
			echo "killed   $n: $expect failed"; killed=$((killed + 1))
			record "$n" killed "$expect failed"
		else
			echo "SURVIVED $n: $expect passed"; survived=$((survived + 1))
			record "$n" survived "$expect passed"
		fi
		continue
	fi
	[ "$append" = - ] && append=
	cpuopt=()
	[ "$cpu" = - ] || cpuopt=(--cpu "$cpu")
	[ "$then" = - ] || cpuopt+=("$then")
	[ "$skip" = - ] || cpuopt+=(--skip "$skip")
	# shellcheck disable=SC2206 # boot: is a list of harness.py boot options
	[ "$bootopts" = - ] || cpuopt+=($bootopts)
	out=$(python3 "$TOP/scripts/harness.py" boot "$kernel" "$topo" "$tests" --append "$append" \
		"${cpuopt[@]}" --name "mutant-$n" 2>&1 || true)
	r=$BUILD/runs/mutant-$n/result.json
	verdict=$(python3 - "$r" "$expect" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
# the case itself, or one of its parameters (SUITE.CASE.PARAM)
def ours(p): return p.endswith(sys.argv[2]) or '.' + sys.argv[2] + '.' in p
hit = [s for p, s, _ in r['tests'] if ours(p)]
others = [p for p, s, _ in r['tests'] if s == 'fail' and not ours(p)]
if 'fail' in hit:
    print('test')
elif r['verdict'] == 'FAIL':
    print('lane: ' + '; '.join(r['reasons'][:2] + ['failed: ' + ', '.join(others)] * bool(others)))
else:
    print('none')
PY
)
	case "$verdict" in
	test) echo "killed   $n: $expect failed"; killed=$((killed + 1))
		record "$n" killed "$expect failed" ;;
	lane:*) echo "killed   $n: the lane failed before $expect could (${verdict#lane: })"; killed=$((killed + 1))
		record "$n" killed "the lane failed first: ${verdict#lane: }" ;;
	*) echo "SURVIVED $n: $expect passed ($(echo "$out" | head -n1))"; survived=$((survived + 1))
		record "$n" survived "$expect passed" ;;
	esac
done
git -C "$MUTANT_SRC" checkout -q -- .
echo "$killed killed, $survived survived, $current already current"
