// SPDX-License-Identifier: GPL-2.0
/*
 * runas ID PROGRAM [ARG]... - run PROGRAM with user and group ID ID and no
 * supplementary groups. soak.sh runs stress-ng's exec stressor with it:
 * stress-ng skips that stressor when it runs as root. Built static and
 * freestanding like kexec_reboot (scripts/initramfs.sh): busybox-static's
 * su needs a passwd file, this needs nothing.
 */
#define SYS_write 64
#define SYS_setgid 144
#define SYS_setuid 146
#define SYS_setgroups 159
#define SYS_execve 221

static long sc(long n, long a, long b, long c)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	return x0;
}

static unsigned long len(const char *s)
{
	unsigned long n = 0;

	while (s[n])
		n++;
	return n;
}

static void say(const char *s)
{
	sc(SYS_write, 2, (long)s, len(s));
}

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
	if (sc(SYS_setgroups, 0, 0, 0) < 0 || sc(SYS_setgid, id, 0, 0) < 0 ||
	    sc(SYS_setuid, id, 0, 0) < 0) {
		say("runas: cannot change to that ID\n");
		return 1;
	}
	/* the environment follows argv's terminating NULL */
	sc(SYS_execve, (long)argv[2], (long)(argv + 2), (long)(argv + argc + 1));
	say("runas: cannot execute the program\n");
	return 127;
}

void _start(void);
__asm__(".global _start\n_start:\n ldr x0, [sp]\n add x1, sp, #8\n bl main\n mov x8, #93\n svc #0\n");
