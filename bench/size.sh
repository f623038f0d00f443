#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# size.sh [KERNEL...] - code size of each built kernel (default: vanilla
# stock patched kseq): the sum of the sizes of the function symbols of
# vmlinux, and the kseq table with the number of this_cpu op sites that are
# kernel restartable sequences (8 bytes each).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/lib.sh"

kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(vanilla stock patched kseq)
printf '%-10s %16s %14s %10s\n' kernel "function bytes" "__kseq_table" sequences
for k in "${kernels[@]}"; do
	v=$OUT/$k/vmlinux
	[ -f "$v" ] || die "kernel $k not built (make kernel-$k)"
	"${CROSS_COMPILE}nm" -S "$v" | python3 -c '
import sys
fn, sym = 0, {}
for line in sys.stdin:
    w = line.split()
    if len(w) == 4 and w[2] in "tT":
        fn += int(w[1], 16)
    elif len(w) >= 3:
        sym[w[-1]] = int(w[0], 16)
t = sym.get("__stop___kseq_table", 0) - sym.get("__start___kseq_table", 0)
print(f"{sys.argv[1]:10s} {fn:16d} {t:14d} {t // 8:10d}")' "$k"
done
