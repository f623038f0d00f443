/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sys.h - what the freestanding guest programs share (built static with
 * -nostdlib by scripts/initramfs.sh): a raw arm64 system call, strlen and
 * a message on stderr, and the entry point that calls main(argc, argv).
 */
#ifndef GUEST_SYS_H
#define GUEST_SYS_H

static long sc(long n, long a, long b, long c, long d, long e)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4) : "memory");
	return x0;
}

static unsigned long len(const char *s)
{
	unsigned long n = 0;

	while (s[n])
		n++;
	return n;
}

/* SYS_write to stderr */
static void say(const char *s)
{
	sc(64, 2, (long)s, len(s), 0, 0);
}

int main(int argc, char **argv);
void _start(void);
__asm__(".global _start\n_start:\n ldr x0, [sp]\n add x1, sp, #8\n bl main\n mov x8, #93\n svc #0\n");

#endif
