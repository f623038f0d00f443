#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cc-image.sh [KERNEL] - the disk of make bench-real's compile workload (lane option
# disk=cc): an ext4 image holding Debian's arm64 gcc-12 and libc6-dev
# (mmdebstrap --variant=extract: no foreign binary runs here) and, in
# /src, kernel source files preprocessed against KERNEL's build (default
# vanilla-real; make FILE.i), which the guest compiles with gcc -O2 -c: a compile
# that needs no headers, the way a distcc helper gets its work.
# Writes build/bench/cc/cc.img; does nothing if it is newer than this script.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/lib.sh"

# the files of one compile op (bench.sh's cc): eight of lib/ that the base
# config builds, of different kinds (sorting, lists, parsing, formatting):
# 20 KiB to 0.5 MiB preprocessed, most of it kernel headers
FILES="lib/sort lib/ctype lib/bcd lib/plist lib/llist lib/list_sort lib/cmdline lib/hexdump"
MIRROR=${MIRROR:-http://deb.debian.org/debian}
dir=$BUILD/bench/cc
img=$dir/cc.img
kernel=${1:-vanilla-real}
src=$(kernel_src "$kernel")
[ -f "$img" ] && [ "$img" -nt "$0" ] && exit 0
[ -f "$OUT/$kernel/vmlinux" ] || die "cc-image: kernel $kernel is not built (make kernel-$kernel)"
command -v mke2fs >/dev/null || die "cc-image: no mke2fs (apt-get install e2fsprogs)"
mkdir -p "$dir" "$LOGS"
root=$dir/root
if [ ! -x "$root/usr/bin/gcc-12" ]; then
	info CC "mmdebstrap gcc-12,libc6-dev (arm64, extract only)"
	rm -rf "$root"
	mmdebstrap --variant=extract --architectures=arm64 --include=gcc-12,libc6-dev \
		--mode=root bookworm "$root" "$MIRROR" >"$LOGS/mmdebstrap-cc.log" 2>&1 ||
		die "mmdebstrap failed; see $LOGS/mmdebstrap-cc.log"
	[ -x "$root/usr/bin/gcc-12" ] || die "cc-image: gcc-12 missing from the extracted tree"
	rm -rf "$root"/usr/share/{doc,man,info,locale} "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/*
fi
rm -rf "$root/src"
mkdir -p "$root/src" "$root/tmp" "$root/dev" "$root/proc"
for f in $FILES; do
	make -s -C "$src" O="$OUT/$kernel" "$f.i" >"$LOGS/cc-$(basename "$f").log" 2>&1 ||
		die "cc-image: make $f.i failed; see $LOGS/cc-$(basename "$f").log"
	cp "$OUT/$kernel/$f.i" "$root/src/$(basename "$f").i"
done
info CC "$img ($(du -sm "$root" | cut -f1) MiB of files, $(echo $FILES | wc -w) sources)"
rm -f "$img.tmp"
mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 -d "$root" "$img.tmp" 1G >/dev/null
mv "$img.tmp" "$img"
