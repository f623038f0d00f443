#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kpti.sh - KPTI is on exactly when the lane's command line says so:
# kpti=on forces it, nokaslr (without kpti=) leaves it off on the CPUs QEMU
# models here (none is Meltdown-affected). A lane named for KPTI proves it.
# (The meltdown file under /sys/devices/system/cpu/vulnerabilities says
# "Not affected" on such CPUs even when KPTI is forced: use the log.)
. /harness/lib/ktap.sh
ktap_plan 2
if dmesg | grep -q 'detected: Kernel page table isolation (KPTI)'; then
	state=on
else
	state=off
fi
ktap_diag "KPTI $state"
cmd=$(cat /proc/cmdline)
arg=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^kpti=//p' | tail -n 1)
case "$arg" in
on|1|y|yes) ktap_check kpti_matches_cmdline [ "$state" = on ] ;;
off|0|n|no) ktap_check kpti_matches_cmdline [ "$state" = off ] ;;
*)
	case " $cmd " in
	*" nokaslr "*) ktap_check kpti_matches_cmdline [ "$state" = off ] ;;
	*) ktap_skip kpti_matches_cmdline "no kpti= or nokaslr on the command line" ;;
	esac ;;
esac
# With KPTI on, the KUnit walk of every CPU's alias leaves must have run,
# not skipped: a lane named for KPTI proves the nG check happened.
R=/sys/kernel/debug/kunit/pcpu_pgtable/results
if [ "$state" = off ]; then
	ktap_skip kpti_ng_walk_ran "KPTI is off"
elif [ ! -r $R ]; then
	ktap_skip kpti_ng_walk_ran "no pcpu_pgtable suite in this kernel"
else
	line=$(grep -E 'ok [0-9]+ pcpu_alias_kpti_ng_test' $R | sed 's/^[[:space:]]*//' || true)
	ktap_diag "${line:-pcpu_alias_kpti_ng_test missing}"
	case "$line" in
	"ok "*"# SKIP"*|"") ktap_fail kpti_ng_walk_ran ;;
	"ok "*) ktap_ok kpti_ng_walk_ran ;;
	*) ktap_fail kpti_ng_walk_ran ;;
	esac
fi
ktap_finish
