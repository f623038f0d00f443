// SPDX-License-Identifier: GPL-2.0
/*
 * One noinline function per this_cpu operation, built as a module against
 * each kernel, so that bench/disasm.sh can count the instructions each op
 * compiles to (stock: preempt_disable/enable around the access; per-CPU
 * page tables: a patched branch, then the access through the alias).
 *
 * The same functions run as a microbenchmark: writing "OP N" to
 * /sys/kernel/debug/this_cpu_ops/run calls OP's function N times with
 * interrupts off, between the two markers of the kinsn TCG plugin
 * (bench/plugin/kinsn.c): HINT #126 and HINT #127, no-ops for the CPU.
 * The plugin counts the instructions the CPU executed in between; with
 * interrupts off they are the loop's and nothing else, so runs of N and
 * 2N calls give the instructions of one call exactly. Reading "run"
 * gives the CPU of the last run, whose count is the one to read.
 *
 * Next to each op, a floor: the same call on a plain global variable
 * whose body is the address materialisation plus the one memory or
 * atomic (LSE) instruction, what a this_cpu op cannot go below. "empty"
 * calls a function that only returns: the loop and the call.
 *
 * And the price the series pays elsewhere, run the same way but with
 * interrupts on, as they sleep and other CPUs take part: a percpu
 * allocation and free; new chunks populated and destroyed again; a
 * kprobe armed and disarmed on core text (every text copy is patched).
 * Their windows count every CPU.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/* exported, so that each stays whole under its own name (no clones) */
void bench_this_cpu_inc(void);
void bench_this_cpu_inc_ptr(unsigned long __percpu *p);
unsigned long bench_this_cpu_read(void);
void bench_this_cpu_write(unsigned long v);
unsigned long bench_this_cpu_add_return(unsigned long v);
unsigned long bench_this_cpu_xchg(unsigned long v);
unsigned long bench_this_cpu_cmpxchg(unsigned long o, unsigned long n);
u128 bench_this_cpu_cmpxchg128(u128 o, u128 n);

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

/* ---- the floors: adrp (+ add), then one instruction ---- */

/* static, named in the asm below: __used keeps them */
static unsigned long this_cpu_ops_floor_word __used;
static u128 this_cpu_ops_floor_wide __used __aligned(16);

#define FLOOR_ADDR(reg, sym) \
	"adrp	" reg ", " sym "\n\tadd	" reg ", " reg ", :lo12:" sym "\n\t"

static noinline void floor_empty(void)
{
	/* a side effect for the compiler, so that its calls are kept */
	asm volatile("");
}

static noinline unsigned long floor_read(void)
{
	unsigned long v;

	asm volatile("adrp	%0, this_cpu_ops_floor_word\n\t"
		     "ldr	%0, [%0, :lo12:this_cpu_ops_floor_word]"
		     : "=r" (v) : : "memory");
	return v;
}

static noinline void floor_write(unsigned long v)
{
	unsigned long a;

	asm volatile("adrp	%0, this_cpu_ops_floor_word\n\t"
		     "str	%1, [%0, :lo12:this_cpu_ops_floor_word]"
		     : "=&r" (a) : "r" (v) : "memory");
}

static noinline void floor_inc(void)
{
	unsigned long a, one;

	asm volatile(".arch_extension lse\n\t"
		     FLOOR_ADDR("%0", "this_cpu_ops_floor_word")
		     "mov	%1, #1\n\t"
		     "stadd	%1, [%0]"
		     : "=&r" (a), "=&r" (one) : : "memory");
}

/* ldadd or swp: the old value into a register; add_return adds v to it */
#define FLOOR_RMW(name, insn, result)					\
static noinline unsigned long floor_##name(unsigned long v)		\
{									\
	unsigned long a, old;						\
									\
	asm volatile(".arch_extension lse\n\t"				\
		     FLOOR_ADDR("%0", "this_cpu_ops_floor_word")		\
		     insn "	%2, %1, [%0]"				\
		     : "=&r" (a), "=&r" (old) : "r" (v) : "memory");	\
	return result;							\
}

FLOOR_RMW(add_return, "ldadd", old + v)
FLOOR_RMW(xchg, "swp", old)

static noinline unsigned long floor_cmpxchg(unsigned long o, unsigned long n)
{
	unsigned long a;

	asm volatile(".arch_extension lse\n\t"
		     FLOOR_ADDR("%0", "this_cpu_ops_floor_word")
		     "cas	%1, %2, [%0]"
		     : "=&r" (a), "+r" (o) : "r" (n) : "memory");
	return o;
}

static noinline u128 floor_cmpxchg128(u128 o, u128 n)
{
	register unsigned long x0 asm ("x0") = (unsigned long)o;
	register unsigned long x1 asm ("x1") = (unsigned long)(o >> 64);
	register unsigned long x2 asm ("x2") = (unsigned long)n;
	register unsigned long x3 asm ("x3") = (unsigned long)(n >> 64);
	unsigned long a;

	asm volatile(".arch_extension lse\n\t"
		     FLOOR_ADDR("%2", "this_cpu_ops_floor_wide")
		     "casp	%0, %1, %3, %4, [%2]"
		     : "+r" (x0), "+r" (x1), "=&r" (a) : "r" (x2), "r" (x3) : "memory");
	return ((u128)x1 << 64) | x0;
}

/* ---- the runner ---- */

static unsigned long __percpu *dyn_counter;
static unsigned long sink;
static int last_cpu = -1;

#define MARK_START()	asm volatile("hint #126" ::: "memory")
#define MARK_STOP()	asm volatile("hint #127" ::: "memory")

/*
 * One loop per op, so that the calls and their arguments are the same for
 * an op and its floor; results go to a sink, so that nothing is elided.
 */
#define LOOP(name, call)					\
static noinline void loop_##name(unsigned long n)		\
{								\
	unsigned long i, acc = 0;				\
								\
	MARK_START();						\
	for (i = 0; i < n; i++)					\
		acc += (unsigned long)(call);			\
	MARK_STOP();						\
	WRITE_ONCE(sink, acc);					\
}

#define LOOP_VOID(name, call)					\
static noinline void loop_##name(unsigned long n)		\
{								\
	unsigned long i;					\
								\
	MARK_START();						\
	for (i = 0; i < n; i++)					\
		call;						\
	MARK_STOP();						\
}

LOOP_VOID(empty, floor_empty())
LOOP(read, bench_this_cpu_read())
LOOP(floor_read, floor_read())
LOOP_VOID(write, bench_this_cpu_write(i))
LOOP_VOID(floor_write, floor_write(i))
LOOP_VOID(inc, bench_this_cpu_inc())
LOOP_VOID(inc_ptr, bench_this_cpu_inc_ptr(dyn_counter))
LOOP_VOID(floor_inc, floor_inc())
LOOP(add_return, bench_this_cpu_add_return(i))
LOOP(floor_add_return, floor_add_return(i))
LOOP(xchg, bench_this_cpu_xchg(i))
LOOP(floor_xchg, floor_xchg(i))
LOOP(cmpxchg, bench_this_cpu_cmpxchg(i, i + 1))
LOOP(floor_cmpxchg, floor_cmpxchg(i, i + 1))
LOOP(cmpxchg128, bench_this_cpu_cmpxchg128(i, i + 1))
LOOP(floor_cmpxchg128, floor_cmpxchg128(i, i + 1))

/* ---- the price: interrupts on, every CPU's count ---- */

static noinline int price_alloc_free(void)
{
	unsigned long __percpu *p = alloc_percpu(unsigned long);

	if (!p)
		return -ENOMEM;
	free_percpu(p);
	return 0;
}

/*
 * Objects of the largest size percpu allows, more than any unit holds:
 * new chunks, populated. Freed, they are empty, and the percpu balance
 * work destroys them (all but one); the sleep lets it run inside the
 * window. The sleep itself is the idle loop's, the same on every kernel.
 */
#define CHUNK_OBJS	16

static noinline int price_chunk(void)
{
	void __percpu *p[CHUNK_OBJS];
	int i, ret = 0;

	for (i = 0; i < CHUNK_OBJS; i++) {
		p[i] = __alloc_percpu(PCPU_MIN_UNIT_SIZE, PAGE_SIZE);
		if (!p[i]) {
			ret = -ENOMEM;
			break;
		}
	}
	while (i--)
		free_percpu(p[i]);
	msleep(10);
	return ret;
}

static int price_kprobe_hit(struct kprobe *kp, struct pt_regs *regs)
{
	return 0;
}

/* core text that nothing runs during the benchmark: sync(2) */
static noinline int price_kprobe(void)
{
	struct kprobe kp = {
		.symbol_name = "ksys_sync",
		.pre_handler = price_kprobe_hit,
	};
	int ret = register_kprobe(&kp);

	if (ret)
		return ret;
	unregister_kprobe(&kp);
	return 0;
}

#define PRICE(name)						\
static noinline int price_loop_##name(unsigned long n)		\
{								\
	unsigned long i;					\
	int ret = 0;						\
								\
	MARK_START();						\
	for (i = 0; i < n && !ret; i++)				\
		ret = price_##name();				\
	MARK_STOP();						\
	return ret;						\
}

PRICE(alloc_free)
PRICE(chunk)
PRICE(kprobe)

/* loop: interrupts off, one CPU; price: interrupts on, may sleep */
static const struct {
	const char *name;
	void (*loop)(unsigned long n);
	int (*price)(unsigned long n);
} loops[] = {
#define L(x) { #x, loop_##x, NULL }
#define P(x) { #x, NULL, price_loop_##x }
	L(empty), L(read), L(floor_read), L(write), L(floor_write),
	L(inc), L(inc_ptr), L(floor_inc), L(add_return), L(floor_add_return),
	L(xchg), L(floor_xchg), L(cmpxchg), L(floor_cmpxchg),
	L(cmpxchg128), L(floor_cmpxchg128),
	P(alloc_free), P(chunk), P(kprobe),
#undef P
#undef L
};

/*
 * interrupts stay off for the whole of a loop: a few ms on hardware, at
 * most; the price runs are slower, but sleep
 */
#define MAX_CALLS	100000UL

static ssize_t run_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[64], *name, *arg;
	unsigned long n, flags;
	size_t i;
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	arg = strim(buf);
	name = strsep(&arg, " ");
	if (!arg || kstrtoul(skip_spaces(arg), 0, &n) || !n || n > MAX_CALLS) {
		pr_err("this_cpu_ops: run: \"OP N\", N from 1 to %lu\n", MAX_CALLS);
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(loops); i++)
		if (!strcmp(name, loops[i].name))
			break;
	if (i == ARRAY_SIZE(loops)) {
		pr_err("this_cpu_ops: run: no op %s\n", name);
		return -EINVAL;
	}
	if (loops[i].price) {
		/* no one CPU to read: "run" then reads -1 */
		WRITE_ONCE(last_cpu, -1);
		ret = loops[i].price(n);
		if (ret) {
			pr_err("this_cpu_ops: run: %s failed: %d\n", name, ret);
			return ret;
		}
		return len;
	}
	local_irq_save(flags);
	WRITE_ONCE(last_cpu, smp_processor_id());
	loops[i].loop(n);
	local_irq_restore(flags);
	return len;
}

static ssize_t run_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[16];
	int n = scnprintf(buf, sizeof(buf), "%d\n", READ_ONCE(last_cpu));

	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.write = run_write,
	.read = run_read,
	.llseek = default_llseek,
};

static ssize_t ops_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[512];
	size_t i;
	int n = 0;

	for (i = 0; i < ARRAY_SIZE(loops); i++)
		n += scnprintf(buf + n, sizeof(buf) - n, "%s\n", loops[i].name);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations ops_fops = {
	.owner = THIS_MODULE,
	.read = ops_read,
	.llseek = default_llseek,
};

static struct dentry *dir;

static int __init this_cpu_ops_init(void)
{
	dyn_counter = alloc_percpu(unsigned long);
	if (!dyn_counter)
		return -ENOMEM;
	dir = debugfs_create_dir("this_cpu_ops", NULL);
	debugfs_create_file("run", 0600, dir, NULL, &run_fops);
	debugfs_create_file("ops", 0400, dir, NULL, &ops_fops);
	return 0;
}
module_init(this_cpu_ops_init);

static void __exit this_cpu_ops_exit(void)
{
	debugfs_remove(dir);
	free_percpu(dyn_counter);
}
module_exit(this_cpu_ops_exit);

MODULE_DESCRIPTION("this_cpu op call sites for instruction counting");
MODULE_LICENSE("GPL");
