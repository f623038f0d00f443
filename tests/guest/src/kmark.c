// SPDX-License-Identifier: GPL-2.0
/*
 * kmark PROGRAM [ARG]... - run PROGRAM between two markers that the kinsn
 * TCG plugin (bench/plugin/kinsn.c) sees from outside the guest: HINT #126
 * before the fork, HINT #127 after the wait. Both are architectural
 * no-ops, so on a QEMU without the plugin this only runs PROGRAM. Exits
 * with PROGRAM's status (128 + signal if it was killed).
 */
#define SYS_clone 220
#define SYS_execve 221
#define SYS_wait4 260
#define SIGCHLD 17

#include "sys.h"

int main(int argc, char **argv)
{
	long pid;
	int status = 0;

	if (argc < 2) {
		say("usage: kmark PROGRAM [ARG]...\n");
		return 2;
	}
	__asm__ volatile("hint #126" ::: "memory");
	pid = sc(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	if (pid == 0) {
		/* the environment follows argv's terminating NULL */
		sc(SYS_execve, (long)argv[1], (long)(argv + 1), (long)(argv + argc + 1), 0, 0);
		say("kmark: cannot execute the program\n");
		sc(93, 127, 0, 0, 0, 0);
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
	if (status & 0x7f)
		return 128 + (status & 0x7f);
	return (status >> 8) & 0xff;
}
