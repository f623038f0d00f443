#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ktext_summary.sh [RUN...] - per lane, what tests/guest/ktext.sh saw: copies,
# text, rodata and table bytes per replicated node, and the shares of (CPU,
# sampled text page) and (CPU, sampled rodata page) translations in the
# CPU's node's copy, next to the share a stock
# kernel gets (CPUs on the image's node, or falling back to it). Reads the
# console logs of the last `make check` (build/runs/*/console.log).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

runs=("$@")
if [ ${#runs[@]} = 0 ]; then
	for d in "$BUILD"/runs/*/; do runs+=("$(basename "$d")"); done
fi
printf '| lane | copies | text bytes per copy | rodata bytes per copy | table bytes per copy | node-local text translations | node-local rodata translations | stock: CPUs on the image node |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for r in "${runs[@]}"; do
	log=$BUILD/runs/$r/console.log
	[ -r "$log" ] && grep -q '# replica_bytes_total' "$log" || continue
	awk -v lane="$r" '
	{ sub(/\r$/, "") }
	/^ +# copies / { copies = $3 }
	/^ +# image_node / { image = $3 }
	/^ +# node [0-9]+ cpus / {
		if ($11 > 0) { text = $11; table = $13; rodata = $15 }
		n = split($5, parts, ",")
		c = 0
		for (i = 1; i <= n; i++) {
			if (parts[i] == "-") continue
			if (split(parts[i], ab, "-") == 2) c += ab[2] - ab[1] + 1; else c++
		}
		cpus += c
		if ($3 == image) oncpu += c
	}
	/sampled text page\) translations in the CPU.s node.s copy/ { local = $2; total = $4 }
	/sampled rodata page\) translations in the CPU.s node.s copy/ { rlocal = $2; rtotal = $4 }
	END {
		printf "| %s | %d | %s | %s | %s | %s/%s | %s/%s | %d/%d |\n", lane, copies,
			text ? text : "-", rodata ? rodata : "-", table ? table : "-",
			local, total, rlocal, rtotal, oncpu, cpus
	}' "$log"
done
