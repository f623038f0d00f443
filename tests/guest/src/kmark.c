// SPDX-License-Identifier: GPL-2.0
/*
 * kmark [-p FILE] PROGRAM [ARG]... - run PROGRAM between two markers that
 * the kinsn TCG plugin (bench/plugin/kinsn.c) sees from outside the guest:
 * HINT #126 before the fork, HINT #127 after the wait. Both are
 * architectural no-ops, so on a QEMU without the plugin this only runs
 * PROGRAM. Exits with PROGRAM's status (128 + signal if it was killed).
 *
 * -p FILE: also count, with the kernel's own perf events (the CPU's PMU,
 * as "perf stat -e instructions:k,instructions:u" would), the instructions
 * kmark and every task it starts executed in the kernel and in user
 * space, from the fork to the wait, and write them to FILE as
 * "instructions:k K" and "instructions:u U". Unlike the plugin's window,
 * this leaves out other tasks, interrupts taken in idle and other CPUs'
 * idle loops. Fails if the events cannot be opened (no PMU driver).
 */
#define SYS_clone 220
#define SYS_execve 221
#define SYS_wait4 260
#define SYS_openat 56
#define SYS_close 57
#define SYS_read 63
#define SYS_write 64
#define SYS_exit 93
#define SYS_perf_event_open 241
#define SIGCHLD 17
#define AT_FDCWD -100
#define O_WRONLY 01
#define O_CREAT 0100
#define O_TRUNC 01000

#include "sys.h"

/* struct perf_event_attr as of PERF_ATTR_SIZE_VER0 (include/uapi/linux/perf_event.h) */
struct perf_attr {
	unsigned int type;
	unsigned int size;
	unsigned long config;
	unsigned long sample_period;
	unsigned long sample_type;
	unsigned long read_format;
	unsigned long flags;
	unsigned int wakeup_events;
	unsigned int bp_type;
	unsigned long config1;
};

#define PERF_TYPE_HARDWARE		0
#define PERF_COUNT_HW_INSTRUCTIONS	1
#define ATTR_INHERIT			(1UL << 1)
#define ATTR_EXCLUDE_USER		(1UL << 4)
#define ATTR_EXCLUDE_KERNEL		(1UL << 5)
#define ATTR_EXCLUDE_HV			(1UL << 6)

/* instructions of this task and of the tasks it starts, counted from now */
static long open_counter(unsigned long exclude)
{
	struct perf_attr a = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.flags = ATTR_INHERIT | ATTR_EXCLUDE_HV | exclude,
	};

	return sc(SYS_perf_event_open, (long)&a, 0, -1, -1, 0);
}

static char *put_num(char *p, unsigned long v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

int main(int argc, char **argv)
{
	long pid, fd_k = -1, fd_u = -1;
	int status = 0, first = 1;
	const char *out = 0;

	if (argc > 2 && argv[1][0] == '-' && argv[1][1] == 'p' && !argv[1][2]) {
		out = argv[2];
		first = 3;
	}
	if (argc <= first) {
		say("usage: kmark [-p FILE] PROGRAM [ARG]...\n");
		return 2;
	}
	if (out) {
		fd_k = open_counter(ATTR_EXCLUDE_USER);
		fd_u = open_counter(ATTR_EXCLUDE_KERNEL);
		if (fd_k < 0 || fd_u < 0) {
			say("kmark: -p: perf_event_open(instructions) failed: no PMU driver, or "
			    "CONFIG_PERF_EVENTS off\n");
			return 1;
		}
	}
	__asm__ volatile("hint #126" ::: "memory");
	pid = sc(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	if (pid == 0) {
		/* the environment follows argv's terminating NULL */
		sc(SYS_execve, (long)argv[first], (long)(argv + first), (long)(argv + argc + 1), 0, 0);
		say("kmark: cannot execute the program\n");
		sc(SYS_exit, 127, 0, 0, 0, 0);
	}
	if (pid < 0) {
		say("kmark: cannot fork\n");
		return 1;
	}
	if (sc(SYS_wait4, pid, (long)&status, 0, 0, 0) != pid) {
		say("kmark: wait failed\n");
		return 1;
	}
	__asm__ volatile("hint #127" ::: "memory");
	if (out) {
		unsigned long k = 0, u = 0;
		char buf[96], *p = buf;
		long fd;

		/* the counts of exited children are folded into the parent's */
		if (sc(SYS_read, fd_k, (long)&k, sizeof(k), 0, 0) != sizeof(k) ||
		    sc(SYS_read, fd_u, (long)&u, sizeof(u), 0, 0) != sizeof(u)) {
			say("kmark: -p: cannot read the counters\n");
			return 1;
		}
		p = put_num(put_str(p, "instructions:k "), k);
		p = put_num(put_str(p, "\ninstructions:u "), u);
		p = put_str(p, "\n");
		fd = sc(SYS_openat, AT_FDCWD, (long)out, O_WRONLY | O_CREAT | O_TRUNC, 0644, 0);
		if (fd < 0 || sc(SYS_write, fd, (long)buf, p - buf, 0, 0) != p - buf) {
			say("kmark: -p: cannot write the counts\n");
			return 1;
		}
		sc(SYS_close, fd, 0, 0, 0, 0);
	}
	if (status & 0x7f)
		return 128 + (status & 0x7f);
	return (status >> 8) & 0xff;
}
