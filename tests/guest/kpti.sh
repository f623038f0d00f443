#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kpti.sh - KPTI is on exactly when the lane expects it: expect_kpti=on|off
# on the command line (a kernel built without KPTI says off), else kpti=
# (read as the kernel's kstrtobool() reads it), else on when KASLR is in
# use and the CPU lacks E0PD (QEMU 7.2's max, cortex-a76 and cortex-a57
# all do; none of them is Meltdown-affected), else off. Every lane that
# runs it proves the state it is named for.
# (The meltdown file under /sys/devices/system/cpu/vulnerabilities says
# "Not affected" on such CPUs even when KPTI is forced: use the log.)
. /harness/lib/ktap.sh
ktap_plan 2
if dmesg_has 'detected: Kernel page table isolation (KPTI)'; then
	state=on
else
	state=off
fi
want=$(cmdline_param expect_kpti)
if [ -n "$want" ]; then
	why="expect_kpti=$want"
elif [ "$(bool_param kpti)" = on ] || [ "$(bool_param kpti)" = off ]; then
	want=$(bool_param kpti)
	why="kpti=$(cmdline_param kpti)"
elif dmesg_has 'KASLR enabled' && ! dmesg_has 'detected: E0PD'; then
	want=on
	why="KASLR enabled, no E0PD"
else
	want=off
	why="KASLR $(dmesg_has 'KASLR enabled' && echo on || echo off), E0PD $(dmesg_has 'detected: E0PD' && echo yes || echo no)"
fi
ktap_diag "KPTI $state; expected $want ($why)"
ktap_check kpti_as_expected [ "$state" = "$want" ]
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
