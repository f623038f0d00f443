// SPDX-License-Identifier: GPL-2.0
/*
 * runas ID PROGRAM [ARG]... - run PROGRAM with user and group ID ID and no
 * supplementary groups. soak.sh runs stress-ng's exec stressor with it:
 * stress-ng skips that stressor when it runs as root. Built static and
 * freestanding like kexec_reboot (scripts/initramfs.sh): busybox-static's
 * su needs a passwd file, this needs nothing.
 */
#define SYS_setgid 144
#define SYS_setuid 146
#define SYS_setgroups 159
#define SYS_execve 221

#include "sys.h"

int main(int argc, char **argv)
{
	const char *p;
	long id = 0;

	if (argc < 3) {
		say("usage: runas ID PROGRAM [ARG]...\n");
		return 2;
	}
	for (p = argv[1]; *p; p++) {
		if (*p < '0' || *p > '9' || id > 100000000) {
			say("runas: the ID is not a number\n");
			return 2;
		}
		id = id * 10 + *p - '0';
	}
	if (sc(SYS_setgroups, 0, 0, 0, 0, 0) < 0 || sc(SYS_setgid, id, 0, 0, 0, 0) < 0 ||
	    sc(SYS_setuid, id, 0, 0, 0, 0) < 0) {
		say("runas: cannot change to that ID\n");
		return 1;
	}
	/* the environment follows argv's terminating NULL */
	sc(SYS_execve, (long)argv[2], (long)(argv + 2), (long)(argv + argc + 1), 0, 0);
	say("runas: cannot execute the program\n");
	return 127;
}
