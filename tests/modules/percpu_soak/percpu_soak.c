// SPDX-License-Identifier: GPL-2.0
/*
 * percpu_soak - per-CPU allocation churn and per-CPU sums, for make soak.
 *
 * "insmod percpu_soak.ko secs=N" works for N seconds in module init. One
 * kthread per online CPU, plus one, none of them bound to a CPU (the
 * scheduler, forced migrations and the soak's CPU hotplug churn move them),
 * allocates percpu objects of 32 bytes to 8 KiB in waves of up to
 * RING objects, updates them through this_cpu ops and frees them all: the
 * allocator populates, depopulates, creates and destroys chunks, and on a
 * per-CPU page table kernel every CPU's alias window follows. What must
 * hold, on any kernel:
 *
 *  - a new object reads zero on every possible CPU, through per_cpu_ptr()
 *    and, for its first and last word, through this_cpu_read();
 *  - a value this_cpu_write() stores with preemption off is what
 *    per_cpu_ptr(ptr, smp_processor_id()) reads back;
 *  - the sum over possible CPUs of each counter is the number of updates
 *    its owner made (this_cpu_inc/add/add_return on 1, 2, 4 and 8 bytes,
 *    the last word of the object too), and xchg/cmpxchg moves between two
 *    counters keep their total, wherever the thread migrated between the
 *    two operations;
 *  - one static per-CPU counter, incremented by every thread and by an
 *    hrtimer in interrupt context, sums to the total of increments: a lost
 *    update shows a this_cpu op that is not atomic against preemption or
 *    interrupts on its CPU.
 *
 * The counts (objects, updates, chunks created and destroyed, through the
 * percpu tracepoints) are read-only module parameters. Init fails with
 * -EIO after the first mismatch (the first few are printed), so a failed
 * soak is a failed insmod.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#define RING		64
#define UPDATES		32
#define MAX_REPORTS	5

static unsigned int secs = 10;
module_param(secs, uint, 0444);
MODULE_PARM_DESC(secs, "seconds of churn (1-3600)");

/* Results: read back by tests/guest/soak.sh from /sys/module/ */
static unsigned long objects, updates, migrations, timer_hits;
static long chunks_created = -1, chunks_destroyed = -1;
static unsigned int mismatches;
module_param(objects, ulong, 0444);
module_param(updates, ulong, 0444);
module_param(migrations, ulong, 0444);
module_param(timer_hits, ulong, 0444);
module_param(chunks_created, long, 0444);
module_param(chunks_destroyed, long, 0444);
module_param(mismatches, uint, 0444);

struct soak_obj {
	u64 inc;	/* this_cpu_inc */
	u64 add;	/* this_cpu_add, this_cpu_add_return */
	u64 from;	/* moved to 'to' by this_cpu_xchg and this_cpu_cmpxchg */
	u64 to;
	u64 scratch;	/* this_cpu_write, read back through per_cpu_ptr() */
	u32 w32;	/* 4-byte ops */
	u16 w16;	/* 2-byte ops */
	u8 w8;		/* 1-byte ops */
};

struct soak_slot {
	struct soak_obj __percpu *obj;
	size_t size;
	/* what the owner did to it: the expected sums */
	u64 inc, add, from_in, w32, w16, w8, tail;
};

static DEFINE_PER_CPU(u64, shared_count);
static atomic64_t shared_expected = ATOMIC64_INIT(0);
static atomic_long_t nr_objects, nr_updates, nr_migrations, nr_timer;
static atomic_long_t nr_created, nr_destroyed;
static atomic_t nr_mismatches;
static struct hrtimer soak_timer;

static __printf(1, 2) void mismatch(const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (atomic_inc_return(&nr_mismatches) > MAX_REPORTS)
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_err("%pV (on CPU %d)\n", &vaf, raw_smp_processor_id());
	va_end(args);
}

/* one sum over possible CPUs against what the owner did */
static void check_sum(const char *what, struct soak_slot *s, u64 got, u64 want)
{
	if (got != want)
		mismatch("%s: %llu, expected %llu (object of %zu bytes)",
			 what, got, want, s->size);
}

static u64 __percpu *tail_word(struct soak_slot *s)
{
	return (u64 __percpu *)((char __percpu *)s->obj + s->size - sizeof(u64));
}

static bool alloc_slot(struct soak_slot *s)
{
	int cpu;

	/* 32 bytes to 8 KiB: page-crossing objects too */
	s->size = round_up(sizeof(struct soak_obj) + sizeof(u64) +
			   get_random_u32_below(8192 - 48), 8);
	s->obj = __alloc_percpu(s->size, 16);
	if (!s->obj)
		return false;
	s->inc = s->add = s->from_in = s->w32 = s->w16 = s->w8 = s->tail = 0;
	for_each_possible_cpu(cpu)
		if (memchr_inv(per_cpu_ptr(s->obj, cpu), 0, s->size))
			mismatch("new object of %zu bytes not zero on CPU %d (per_cpu_ptr())",
				 s->size, cpu);
	if (this_cpu_read(s->obj->inc) || this_cpu_read(*tail_word(s)))
		mismatch("new object of %zu bytes not zero through this_cpu_read()", s->size);
	atomic_long_inc(&nr_objects);
	return true;
}

static void update_slot(struct soak_slot *s)
{
	u64 v = get_random_u32_below(1000) + 1, old;

	this_cpu_inc(s->obj->inc);
	s->inc++;
	this_cpu_add(s->obj->add, v);
	s->add += v;
	s->add += v;
	if (this_cpu_add_return(s->obj->add, v) == 0)
		mismatch("this_cpu_add_return(%llu) returned 0", v);

	/* 'from' receives v; xchg and cmpxchg move it to 'to' */
	this_cpu_add(s->obj->from, v);
	s->from_in += v;
	old = this_cpu_xchg(s->obj->from, 0);
	this_cpu_add(s->obj->to, old);
	this_cpu_add(s->obj->from, v);
	s->from_in += v;
	old = this_cpu_read(s->obj->from);
	if (this_cpu_cmpxchg(s->obj->from, old, 0) == old)
		this_cpu_add(s->obj->to, old);

	this_cpu_add(s->obj->w32, (u32)v);
	s->w32 += (u32)v;
	this_cpu_inc(s->obj->w16);
	s->w16++;
	this_cpu_add(s->obj->w8, 3);
	s->w8 += 3;
	this_cpu_inc(*tail_word(s));
	s->tail++;

	preempt_disable();
	this_cpu_write(s->obj->scratch, v);
	old = *per_cpu_ptr(&s->obj->scratch, smp_processor_id());
	preempt_enable();
	if (old != v)
		mismatch("this_cpu_write(%llu) read back as %llu through per_cpu_ptr()", v, old);

	this_cpu_inc(shared_count);
	atomic_long_inc(&nr_updates);
}

static void check_free_slot(struct soak_slot *s)
{
	u64 inc = 0, add = 0, moved = 0, w32 = 0, w16 = 0, w8 = 0, tail = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct soak_obj *o = per_cpu_ptr(s->obj, cpu);

		inc += o->inc;
		add += o->add;
		moved += o->from + o->to;
		w32 += o->w32;
		w16 += o->w16;
		w8 += o->w8;
		tail += *per_cpu_ptr(tail_word(s), cpu);
	}
	check_sum("sum of this_cpu_inc (u64)", s, inc, s->inc);
	check_sum("sum of this_cpu_add/add_return (u64)", s, add, s->add);
	check_sum("sum moved by this_cpu_xchg/cmpxchg", s, moved, s->from_in);
	check_sum("sum of this_cpu_add (u32)", s, (u32)w32, (u32)s->w32);
	check_sum("sum of this_cpu_inc (u16)", s, (u16)w16, (u16)s->w16);
	check_sum("sum of this_cpu_add (u8)", s, (u8)w8, (u8)s->w8);
	check_sum("sum of the last word's this_cpu_inc", s, tail, s->tail);
	free_percpu(s->obj);
	s->obj = NULL;
}

/* Move to a random online CPU, or let the scheduler choose again */
static void migrate(bool pin)
{
	const struct cpumask *mask = cpu_possible_mask;

	if (pin) {
		unsigned int cpu = cpumask_nth(get_random_u32_below(num_online_cpus()),
					       cpu_online_mask);

		if (cpu >= nr_cpu_ids)
			return;
		mask = cpumask_of(cpu);
	}
	/* fails when that CPU just went offline: then stay */
	if (!set_cpus_allowed_ptr(current, mask) && pin)
		atomic_long_inc(&nr_migrations);
}

static int soak_thread(void *data)
{
	struct soak_slot *ring = data;
	u64 mine = 0;
	int n, i, r;

	while (!kthread_should_stop()) {
		n = 1 + get_random_u32_below(RING);
		for (i = 0; i < n; i++)
			if (!alloc_slot(&ring[i]))
				break;
		n = i;
		for (r = 0; r < UPDATES && !kthread_should_stop(); r++) {
			migrate(r == UPDATES / 2);
			for (i = 0; i < n; i++)
				update_slot(&ring[i]);
			mine += n;
			cond_resched();
		}
		migrate(false);
		for (i = 0; i < n; i++)
			check_free_slot(&ring[i]);
		cond_resched();
	}
	atomic64_add(mine, &shared_expected);
	return 0;
}

static enum hrtimer_restart soak_tick(struct hrtimer *t)
{
	this_cpu_inc(shared_count);
	atomic_long_inc(&nr_timer);
	hrtimer_forward_now(t, ms_to_ktime(1));
	return HRTIMER_RESTART;
}

static void chunk_created(void *data, void *base_addr)
{
	atomic_long_inc(&nr_created);
}

static void chunk_destroyed(void *data, void *base_addr)
{
	atomic_long_inc(&nr_destroyed);
}

static struct tracepoint *tp_create, *tp_destroy;

static void find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "percpu_create_chunk"))
		tp_create = tp;
	else if (!strcmp(tp->name, "percpu_destroy_chunk"))
		tp_destroy = tp;
}

static int __init percpu_soak_init(void)
{
	struct task_struct **threads;
	struct soak_slot *rings;
	unsigned int nthreads, i;
	unsigned long end;
	u64 sum = 0;
	bool counting;
	int cpu, ret = 0;

	if (!secs || secs > 3600) {
		pr_err("secs=%u is not 1-3600\n", secs);
		return -EINVAL;
	}
	for_each_kernel_tracepoint(find_tp, NULL);
	counting = tp_create && tp_destroy &&
		   !tracepoint_probe_register(tp_create, chunk_created, NULL);
	if (counting && tracepoint_probe_register(tp_destroy, chunk_destroyed, NULL)) {
		tracepoint_probe_unregister(tp_create, chunk_created, NULL);
		counting = false;
	}
	if (!counting)
		pr_warn("percpu chunk tracepoints not found: chunks not counted\n");

	/* the hotplug churn may have CPUs offline now: count possible ones */
	nthreads = num_possible_cpus() + 1;
	threads = kcalloc(nthreads, sizeof(*threads), GFP_KERNEL);
	rings = kvcalloc(nthreads * RING, sizeof(*rings), GFP_KERNEL);
	if (!threads || !rings) {
		ret = -ENOMEM;
		goto out_free;
	}

	hrtimer_init(&soak_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	soak_timer.function = soak_tick;
	hrtimer_start(&soak_timer, ms_to_ktime(1), HRTIMER_MODE_REL);

	for (i = 0; i < nthreads; i++) {
		threads[i] = kthread_run(soak_thread, &rings[i * RING], "percpu_soak/%u", i);
		if (IS_ERR(threads[i])) {
			ret = PTR_ERR(threads[i]);
			threads[i] = NULL;
			break;
		}
	}

	/* interruptible: a long soak is not a hung task */
	end = jiffies + secs * HZ;
	while (!ret && time_before(jiffies, end) && !atomic_read(&nr_mismatches))
		msleep_interruptible(200);

	for (i = 0; i < nthreads; i++)
		if (threads[i])
			kthread_stop(threads[i]);
	hrtimer_cancel(&soak_timer);

	atomic64_add(atomic_long_read(&nr_timer), &shared_expected);
	for_each_possible_cpu(cpu)
		sum += per_cpu(shared_count, cpu);
	if (sum != atomic64_read(&shared_expected))
		mismatch("sum of the shared counter (threads and hrtimer): %llu, expected %lld",
			 sum, atomic64_read(&shared_expected));

	if (counting) {
		tracepoint_probe_unregister(tp_destroy, chunk_destroyed, NULL);
		tracepoint_probe_unregister(tp_create, chunk_created, NULL);
		tracepoint_synchronize_unregister();
		chunks_created = atomic_long_read(&nr_created);
		chunks_destroyed = atomic_long_read(&nr_destroyed);
	}
	objects = atomic_long_read(&nr_objects);
	updates = atomic_long_read(&nr_updates);
	migrations = atomic_long_read(&nr_migrations);
	timer_hits = atomic_long_read(&nr_timer);
	mismatches = atomic_read(&nr_mismatches);
	pr_info("%u s, %u threads: %lu objects, %lu updates, %lu pinned migrations, %lu timer updates, chunks created %ld destroyed %ld, %u mismatches\n",
		secs, nthreads, objects, updates, migrations, timer_hits,
		chunks_created, chunks_destroyed, mismatches);
	if (!ret && mismatches)
		ret = -EIO;
out_free:
	kvfree(rings);
	kfree(threads);
	return ret;
}

static void __exit percpu_soak_exit(void)
{
}

module_init(percpu_soak_init);
module_exit(percpu_soak_exit);
MODULE_DESCRIPTION("per-CPU allocation churn and per-CPU sums for make soak");
MODULE_LICENSE("GPL");
