// SPDX-License-Identifier: GPL-2.0
/*
 * One noinline function per this_cpu operation, built as a module against
 * each kernel, so that bench/disasm.sh can count the instructions each op
 * compiles to (stock: preempt_disable/enable around the access; per-CPU
 * page tables: a patched branch, then the access through the alias).
 */
#include <linux/module.h>
#include <linux/percpu.h>

static DEFINE_PER_CPU(unsigned long, bench_counter);
static DEFINE_PER_CPU(u128, bench_wide);

noinline void bench_this_cpu_inc(void)
{
	this_cpu_inc(bench_counter);
}
EXPORT_SYMBOL_GPL(bench_this_cpu_inc);

/* a dynamic percpu pointer (alloc_percpu()), not a static variable */
noinline void bench_this_cpu_inc_ptr(unsigned long __percpu *p)
{
	this_cpu_inc(*p);
}
EXPORT_SYMBOL_GPL(bench_this_cpu_inc_ptr);

noinline unsigned long bench_this_cpu_read(void)
{
	return this_cpu_read(bench_counter);
}
EXPORT_SYMBOL_GPL(bench_this_cpu_read);

noinline void bench_this_cpu_write(unsigned long v)
{
	this_cpu_write(bench_counter, v);
}
EXPORT_SYMBOL_GPL(bench_this_cpu_write);

noinline unsigned long bench_this_cpu_add_return(unsigned long v)
{
	return this_cpu_add_return(bench_counter, v);
}
EXPORT_SYMBOL_GPL(bench_this_cpu_add_return);

noinline unsigned long bench_this_cpu_xchg(unsigned long v)
{
	return this_cpu_xchg(bench_counter, v);
}
EXPORT_SYMBOL_GPL(bench_this_cpu_xchg);

noinline unsigned long bench_this_cpu_cmpxchg(unsigned long o, unsigned long n)
{
	return this_cpu_cmpxchg(bench_counter, o, n);
}
EXPORT_SYMBOL_GPL(bench_this_cpu_cmpxchg);

noinline u128 bench_this_cpu_cmpxchg128(u128 o, u128 n)
{
	return this_cpu_cmpxchg128(bench_wide, o, n);
}
EXPORT_SYMBOL_GPL(bench_this_cpu_cmpxchg128);

MODULE_DESCRIPTION("this_cpu op call sites for instruction counting");
MODULE_LICENSE("GPL");
