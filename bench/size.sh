#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# size.sh [KERNEL...] - code size of each built kernel (default: vanilla
# stock patched kseq): the .text section of vmlinux (page granular), the sum
# of the sizes of its function symbols (byte granular), the kseq table, and
# the number of this_cpu op sites that are kernel restartable sequences.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/lib.sh"

kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(vanilla stock patched kseq)
printf '%-10s %12s %16s %14s %10s\n' kernel ".text bytes" "function bytes" "__kseq_table" sequences
for k in "${kernels[@]}"; do
	v=$OUT/$k/vmlinux
	[ -f "$v" ] || die "kernel $k not built (make kernel-$k)"
	fn=$("${CROSS_COMPILE}nm" -S "$v" | awk '$3 ~ /^[tT]$/ { print $2 }' |
		python3 -c 'import sys; print(sum(int(x, 16) for x in sys.stdin))')
	"${CROSS_COMPILE}objdump" -h "$v" | python3 -c '
import sys
sizes = {}
for line in sys.stdin:
    w = line.split()
    if len(w) >= 3 and w[0].isdigit():
        sizes[w[1]] = int(w[2], 16)
k, fn = sys.argv[1], int(sys.argv[2])
t = sizes.get("__kseq_table", 0)
text = sizes[".text"]
print(f"{k:10s} {text:12d} {fn:16d} {t:14d} {t // 8:10d}")' "$k" "$fn"
done
