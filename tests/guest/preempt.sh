#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# preempt.sh - the kernel runs the preemption model its lane is named for
# (expect_preempt=none|voluntary|full on the command line), and the
# this_cpu ops are the ones the choice built in says, so a lane for a
# model cannot pass on another. With PREEMPT_DYNAMIC the model is the
# boot-time preempt= choice, shown in /sys/kernel/debug/sched/preempt
# (SCHED_DEBUG) or else by the boot log's "Dynamic Preempt:"; without,
# uname -v says PREEMPT for full preemption and nothing for
# voluntary or none (which this test cannot tell apart: the lane names
# voluntary then).
. /harness/lib/ktap.sh
ktap_plan 2
want=$(cmdline_param expect_preempt)
D=/sys/kernel/debug/sched/preempt
if [ -r $D ]; then
	# "none voluntary (full)": the running one in parentheses
	model=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' $D)
	how="PREEMPT_DYNAMIC, $D: $(cat $D)"
elif uname -v | grep -qw PREEMPT_DYNAMIC; then
	# without SCHED_DEBUG there is no $D: the boot log names each switch
	model=$(dmesg | sed -n 's/.*Dynamic Preempt: \([a-z]*\).*/\1/p' | tail -n 1)
	how="PREEMPT_DYNAMIC, boot log"
elif uname -v | grep -qw PREEMPT; then
	model=full
	how="uname -v: $(uname -v)"
else
	model=voluntary
	how="uname -v: $(uname -v)"
fi
ktap_diag "preemption model $model ($how); lane expects ${want:-nothing}"
if [ -z "$want" ]; then
	ktap_fail preempt_model
	ktap_diag "no expect_preempt= on the command line: the lane must say"
else
	ktap_check preempt_model [ "$model" = "$want" ]
fi
# Whatever the model, the ops are the choice's while the tables are on:
# through the alias with the alias choice, with preempt_disable() with the
# stock one (with percpu_pgtable=off every choice but kseq runs the stock
# ops).
ST=/sys/kernel/debug/pcpu_pgtable/status
if [ -r $ST ]; then
	ops=$(awk '$1 == "this_cpu_ops" { print $2 }' $ST)
	choice=$(awk '$1 == "this_cpu_choice" { print $2 }' $ST)
	on=$(awk '$1 == "enabled" { print $2 }' $ST)
	[ "$on" = 1 ] || [ "$choice" = kseq ] || choice=${choice:+preempt}
	ktap_diag "this_cpu_choice ${choice:-missing} (tables enabled ${on:-?}), this_cpu_ops ${ops:-missing}"
	ktap_check ops_follow_choice eval '[ -n "$choice" ] && [ "$ops" = "$choice" ]'
elif [ -r /sys/kernel/debug/kseq/status ]; then
	# kseq without the tables: its status counts the sequences in use
	n=$(awk '$1 == "sequences" { print $2 }' /sys/kernel/debug/kseq/status)
	ktap_diag "no per-CPU tables; kseq status: ${n:-no} sequences"
	ktap_check ops_follow_choice [ "${n:-0}" -gt 0 ]
else
	ktap_skip ops_follow_choice "neither $ST nor the kseq status: stock ops, nothing to check"
fi
ktap_finish
