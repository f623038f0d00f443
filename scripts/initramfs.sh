#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# initramfs.sh - the arm64 guest userland: Debian's busybox-static, stress-ng
# and numactl unpacked with mmdebstrap --variant=extract (no foreign binary
# runs) into build/guest/base.cpio (cached), plus tests/guest as overlay.cpio.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

GUEST=$BUILD/guest
PKGS=busybox-static,stress-ng,numactl
MIRROR=${MIRROR:-http://deb.debian.org/debian}
mkdir -p "$GUEST"

# Applets the guest scripts use; busybox cannot be run here to --install.
APPLETS="sh ash mount umount mkdir cat echo ls sleep poweroff reboot grep sed awk
	tr cut head tail wc seq sort uniq date dmesg printf test [ true false expr
	basename dirname find xargs timeout kill ps uname nproc sync rm cp mv ln
	insmod rmmod lsmod taskset mkswap swapon swapoff ip chroot"

build_base() {
	local root=$GUEST/rootfs.tmp key
	key=$(echo "$PKGS $MIRROR" $APPLETS)
	if [ -f "$GUEST/base.cpio" ] && [ "$(cat "$GUEST/base.key" 2>/dev/null)" = "$key" ]; then
		return 0
	fi
	info GUEST "mmdebstrap $PKGS (arm64, extract only)"
	rm -rf "$root"
	mmdebstrap --variant=extract --architectures=arm64 --include="$PKGS" \
		--mode=root bookworm "$root" "$MIRROR" >"$LOGS/mmdebstrap.log" 2>&1 ||
		die "mmdebstrap failed; see $LOGS/mmdebstrap.log"
	[ -x "$root/bin/busybox" ] || die "busybox missing from the extracted userland"
	[ -x "$root/usr/bin/stress-ng" ] || die "stress-ng missing from the extracted userland"
	rm -rf "$root"/usr/share/{doc,man,info,locale,lintian,bug} "$root"/var/cache/apt/* \
		"$root"/var/lib/apt/lists/*
	mkdir -p "$root"/{proc,sys,dev,tmp,run,sys/kernel/debug}
	for a in $APPLETS; do
		[ -e "$root/bin/$a" ] || [ -e "$root/usr/bin/$a" ] || ln -s busybox "$root/bin/$a"
	done
	(cd "$root" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --quiet) >"$GUEST/base.cpio.tmp"
	mv "$GUEST/base.cpio.tmp" "$GUEST/base.cpio"
	echo "$key" >"$GUEST/base.key"
	rm -rf "$root"
}

# Guest programs in C (tests/guest/src/*.c), built static and freestanding:
# they use raw system calls, so the guest needs no C library for them.
build_programs() {
	local c
	mkdir -p "$GUEST/bin"
	for c in "$TOP"/tests/guest/src/*.c; do
		"${CROSS_COMPILE}gcc" -O2 -Wall -Werror -static -nostdlib -ffreestanding \
			-fno-stack-protector -o "$GUEST/bin/$(basename "$c" .c)" "$c" ||
			die "cannot build the guest program $c"
	done
}

build_overlay() {
	python3 - "$TOP/tests/guest" "$GUEST/overlay.cpio" "$GUEST/bin" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(sys.argv[1]), '..', 'scripts'))
from harness import cpio
src, dst, progs = sys.argv[1], sys.argv[2], sys.argv[3]
entries = [('init', 0o100755, open(os.path.join(src, 'init'), 'rb').read())]
entries += [e for e in cpio.tree(src, 'harness')
            if not e[0].endswith('/init') and not e[0].startswith('harness/src')]
entries += [('harness/bin', 0o040755, b'')]
entries += [(f'harness/bin/{p}', 0o100755, open(os.path.join(progs, p), 'rb').read())
            for p in sorted(os.listdir(progs))]
with open(dst + '.tmp', 'wb') as f:
    f.write(cpio.archive(entries))
os.replace(dst + '.tmp', dst)
PY
}

mkdir -p "$LOGS"
build_base
build_programs
build_overlay
