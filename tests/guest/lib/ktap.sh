# SPDX-License-Identifier: GPL-2.0
# ktap.sh - KTAP output for guest tests, after the kernel's
# tools/testing/selftests/kselftest/ktap_helpers.sh. Source it, call
# ktap_plan N, then ktap_ok/ktap_fail/ktap_skip per case, then ktap_finish.
KTAP_N=0
KTAP_FAILED=0
KTAP_PASSED=0

ktap_plan() {
	echo "KTAP version 1"
	echo "1..$1"
}
ktap_diag() { echo "# $*"; }
ktap_ok() { KTAP_N=$((KTAP_N + 1)); KTAP_PASSED=$((KTAP_PASSED + 1)); echo "ok $KTAP_N $*"; }
ktap_fail() { KTAP_N=$((KTAP_N + 1)); KTAP_FAILED=$((KTAP_FAILED + 1)); echo "not ok $KTAP_N $*"; }
ktap_skip() { KTAP_N=$((KTAP_N + 1)); echo "ok $KTAP_N $1 # SKIP $2"; }
# ktap_check NAME CONDITION...: ok if the command succeeds
ktap_check() {
	name=$1
	shift
	if "$@"; then ktap_ok "$name"; else ktap_fail "$name"; fi
}
# ktap_skip_all REASON NAME...: skip every named case and finish, e.g. when
# the kernel lacks the feature the cases look at
ktap_skip_all() {
	why=$1
	shift
	for name in "$@"; do ktap_skip "$name" "$why"; done
	ktap_finish
}
# Exit status for init: 1 if any case failed, 4 if none ran, else 0.
ktap_finish() {
	[ "$KTAP_FAILED" -gt 0 ] && exit 1
	[ "$KTAP_PASSED" -eq 0 ] && exit 4
	exit 0
}

# Boolean boot parameters, read as the kernel reads them: the last NAME on
# the command line goes to an early_param handler that takes kstrtobool()'s
# answer (first character y/Y/t/T/1 or n/N/f/F/0, or on/of...) and reports
# anything else, NAME= with nothing after it, and a bare NAME (the handler
# gets NULL) as invalid, keeping the default.
# (HARNESS_CMDLINE: another file, for the host's tests.)
# cmdline_param NAME: the value of the last NAME= (empty if none).
cmdline_param() { tr ' ' '\n' <"${HARNESS_CMDLINE:-/proc/cmdline}" | sed -n "s/^$1=//p" | tail -n 1; }
# bool_param NAME: on, off, invalid, or default (not on the command line).
bool_param() {
	_a=$(tr ' ' '\n' <"${HARNESS_CMDLINE:-/proc/cmdline}" | grep -E "^$1(=|\$)" | tail -n 1)
	case "$_a" in
	'') echo default ;;
	"$1") echo invalid ;;
	*)
		case "${_a#"$1"=}" in
		[yYtT1]*|[oO][nN]*) echo on ;;
		[nNfF0]*|[oO][fF]*) echo off ;;
		*) echo invalid ;;
		esac ;;
	esac
}
param_off() { [ "$(bool_param "$1")" = off ]; }
# The per-CPU tables are wanted unless percpu_pgtable= says off or
# percpu_alloc=embed asks for the embedded first chunk they cannot use.
tables_wanted() { ! param_off percpu_pgtable && [ "$(cmdline_param percpu_alloc)" != embed ]; }
# ktap_invalid_param_reported CASE NAME: an invalid NAME was reported on
# the console as the kernel words it, and a valid or absent one was not.
ktap_invalid_param_reported() {
	if [ "$(bool_param "$2")" = invalid ]; then
		ktap_diag "$2: invalid on the command line, must be reported"
		ktap_check "$1" dmesg_has "invalid $2=$(cmdline_param "$2") (expected on or off)"
	else
		ktap_diag "$2: $(bool_param "$2"), nothing to report"
		ktap_check "$1" eval "! dmesg_has 'invalid $2='"
	fi
}

# ktap_tables_as_booted CASE: the per-CPU tables are in use (debugfs
# status "enabled 1") unless the command line turns them off (then the
# stock layout, "enabled 0": tables_wanted); the status's main keys as diagnostic.
ktap_tables_as_booted() {
	_st=/sys/kernel/debug/pcpu_pgtable/status
	ktap_diag "$(grep -E '^(enabled|pgtable_levels|this_cpu_choice) ' $_st 2>&1 | tr '\n' ' ')"
	_want=1
	tables_wanted || _want=0
	ktap_check "$1" [ "$(awk '$1 == "enabled" { print $2 }' $_st 2>/dev/null)" = $_want ]
}

# ktext_expect IMAGE_NODE TOPOLOGY [FAILED]: what text replication must do
# on the topology (/etc/harness/topology): "source N S" for every node N
# with CPUs (S: N if it has memory, else the nearest node with memory, ties
# to the lowest id) and "copy S" for every source that is not the image's
# node. FAILED, a node list as ktext_fail_reserve= takes it ("1,3-4"):
# nodes whose copy could not be reserved; their CPUs run the original.
ktext_expect() {
	awk -v image="$1" -v failed="$3" '
	BEGIN {
		n = split(failed, parts, ",")
		for (i = 1; i <= n; i++) {
			if (split(parts[i], r, "-") == 2)
				for (j = r[1]; j <= r[2]; j++) fail[j] = 1
			else if (parts[i] != "") fail[parts[i]] = 1
		}
	}
	$1 == "node" {
		n = $2; cpus[n] = $4; mem[n] = $6
		for (i = 8; i <= NF; i++) dist[n, i - 8] = $i
		ids[++count] = n
	}
	END {
		for (k = 1; k <= count; k++) {
			n = ids[k]
			if (cpus[n] == "-") continue
			src = -1
			if (mem[n] > 0) src = n
			else for (j = 1; j <= count; j++) {
				m = ids[j]
				if (mem[m] == 0) continue
				if (src < 0 || dist[n, m] < dist[n, src]) src = m
			}
			if (src in fail) src = image
			print "source", n, src
			if (src != image) copy[src] = 1
		}
		for (m in copy) print "copy", m
	}' "$2"
}

# helpers for conditions
in_range() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
dmesg_has() { dmesg | grep -qF -- "$1"; }

# ktap_kunit_rerun CASE SUITE LABEL: run built-in KUnit suite SUITE again
# through debugfs (KUNIT_DEBUGFS: another directory, for the host's tests), its results as diagnostics prefixed "LABEL: "; CASE
# passes if the suite finished with no failed case (failed ones named) and
# at least one case passed. Skipped cases are listed in a diagnostic, never
# passed over in silence.
ktap_kunit_rerun() {
	_k=${KUNIT_DEBUGFS:-/sys/kernel/debug/kunit}/$2
	if [ ! -w $_k/run ]; then
		ktap_fail "$1 # $_k/run missing"
		return
	fi
	echo 1 >$_k/run
	sed "s/^/# $3: /" $_k/results
	_bad=$(sed -n 's/^[[:space:]]*not ok [0-9]* \([a-z0-9_]*\).*/\1/p' $_k/results | tr '\n' ' ')
	_skip=$(sed -n 's/^[[:space:]]*ok [0-9]* \([a-z0-9_]*\) # SKIP.*/\1/p' $_k/results | tr '\n' ' ')
	[ -n "$_skip" ] && ktap_diag "$1: skipped in the $2 rerun: $_skip"
	# cases that ran and passed: a suite whose every case skipped proves nothing
	_ran=$(grep -cE '^[[:space:]]+ok [0-9]+ [a-z0-9_]+$' $_k/results)
	if ! grep -q "^ok [0-9]* $2" $_k/results || [ -n "$_bad" ]; then
		ktap_fail "$1 # failed: ${_bad:-the suite did not finish}"
	elif [ "$_ran" = 0 ]; then
		ktap_fail "$1 # every case of $2 skipped"
	else
		ktap_ok "$1"
	fi
}

# hotplug_churn COUNTFILE: every CPU but the boot CPU offline and online in
# turn until /tmp/stop-churn exists; then the number of completed cycles
# goes to COUNTFILE. Run it in the background.
hotplug_churn() {
	_n=0
	while [ ! -e /tmp/stop-churn ]; do
		for _c in $(ls -d /sys/devices/system/cpu/cpu[1-9]* 2>/dev/null | sed 's/.*cpu//'); do
			echo 0 >/sys/devices/system/cpu/cpu$_c/online 2>/dev/null &&
				echo 1 >/sys/devices/system/cpu/cpu$_c/online 2>/dev/null &&
				_n=$((_n + 1))
			[ -e /tmp/stop-churn ] && break
		done
		sleep 0.1
	done
	echo $_n >"$1"
}
