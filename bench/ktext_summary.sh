#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ktext_summary.sh [RUN...] - per lane, what tests/guest/ktext.sh saw: copies,
# text, rodata and table bytes per replicated node, and the shares of (CPU,
# sampled text page) and (CPU, sampled rodata page) translations in the
# CPU's node's copy, next to the share a stock
# kernel gets (CPUs on the image's node, or falling back to it). Reads the
# console logs of the last `make check` (build/runs/*/console.log).
# --modules [RUN...]: instead, per lane and module the guest loaded, the
# bytes of its text and rodata with copies and the bytes of their copies
# per replicated node (debugfs ktext_replication/modules, as the guest
# tests print it), and the module window's table bytes per node.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

modules=0
if [ "${1:-}" = --modules ]; then
	modules=1
	shift
fi
runs=("$@")
if [ ${#runs[@]} = 0 ]; then
	for d in "$BUILD"/runs/*/; do runs+=("$(basename "$d")"); done
fi

# each_log PATTERN PROGRAM: the awk PROGRAM (lane set to the run) over the
# console log of every run whose log has a line matching PATTERN
each_log() {
	local r log
	for r in "${runs[@]}"; do
		log=$BUILD/runs/$r/console.log
		[ -r "$log" ] && grep -q "$1" "$log" || continue
		awk -v lane="$r" "$2" "$log"
	done
}
if [ $modules = 1 ]; then
	printf '| lane | copies | module | text bytes | rodata bytes | replica bytes per node | window table bytes per node |\n'
	printf '|---|---|---|---|---|---|---|\n'
	each_log '# modules: \|# loaded: ' '
	{ sub(/\r$/, "") }
	/^ +# copies / && !copies { copies = $3 }
	/module_table_bytes [0-9]+/ {
		for (i = 1; i < NF; i++) if ($i == "module_table_bytes") tables = $(i + 1) + 0
	}
	/# (modules|loaded): [^ ]+ (text|rodata) 0x/ {
		for (i = 1; i < NF; i++) if ($i == "modules:" || $i == "loaded:") break
		m = $(i + 1); k = $(i + 2); key = m " " k
		if (key in seen) next
		seen[key] = 1; bytes[key] = $(i + 5); rep[key] = $(i + 7)
		if (!(m in mods)) { mods[m] = 1; order[++n] = m }
	}
	END {
		for (j = 1; j <= n; j++) {
			m = order[j]; t = bytes[m " text"] + 0; ro = bytes[m " rodata"] + 0
			r = rep[m " text"] + rep[m " rodata"]
			printf "| %s | %d | %s | %d | %d | %s | %s |\n", lane, copies, m, t, ro,
				copies ? r / copies : "-", copies ? tables / copies : "-"
		}
	}'
	exit 0
fi
printf '| lane | copies | text bytes per copy | rodata bytes per copy | table bytes per copy | node-local text translations | node-local rodata translations | stock: CPUs on the image node |\n'
printf '|---|---|---|---|---|---|---|---|\n'
each_log '# replica_bytes_total' '
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
}'
