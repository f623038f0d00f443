// SPDX-License-Identifier: GPL-2.0
/*
 * kexec_reboot KERNEL INITRD CMDLINE - kexec_file_load() KERNEL with INITRD
 * and CMDLINE, then reboot(LINUX_REBOOT_CMD_KEXEC) into it.
 *
 * The guest userland is busybox-static alone: Debian's kexec-tools would
 * need its C library in the initramfs. This needs nothing: it is built
 * static and freestanding (scripts/initramfs.sh), with raw system calls.
 */
#define SYS_openat 56
#define SYS_exit 93
#define SYS_reboot 142
#define SYS_kexec_file_load 294
#define AT_FDCWD -100

#include "sys.h"

int main(int argc, char **argv)
{
	long k, i, r;

	if (argc != 4) {
		say("usage: kexec_reboot KERNEL INITRD CMDLINE\n");
		return 2;
	}
	k = sc(SYS_openat, AT_FDCWD, (long)argv[1], 0, 0, 0);
	i = sc(SYS_openat, AT_FDCWD, (long)argv[2], 0, 0, 0);
	if (k < 0 || i < 0) {
		say("kexec_reboot: cannot open kernel or initrd\n");
		return 1;
	}
	r = sc(SYS_kexec_file_load, k, i, len(argv[3]) + 1, (long)argv[3], 0);
	if (r < 0) {
		say("kexec_reboot: kexec_file_load failed\n");
		return 1;
	}
	/* LINUX_REBOOT_MAGIC1, MAGIC2, LINUX_REBOOT_CMD_KEXEC */
	r = sc(SYS_reboot, 0xfee1dead, 672274793, 0x45584543, 0, 0);
	say("kexec_reboot: reboot failed\n");
	return 1;
}
