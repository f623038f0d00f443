# SPDX-License-Identifier: GPL-2.0
# lib.sh - shared helpers for the harness scripts (sourced, not run).
# Paths, logging and the "die with a reason" convention live here.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
SRC=$BUILD/linux                 # git tree: base import + series
VANILLA_SRC=$BUILD/linux-vanilla # worktree of the pristine import
DEV_SRC=$BUILD/dev               # developers' worktree (branch dev), see export-series.sh
MUTANT_SRC=$BUILD/mutant         # worktree of the patched tree, one mutation applied (mutant.sh)
OUT=$BUILD/out                   # O= build directories, one per kernel
STAMPS=$BUILD/stamps
LOGS=$BUILD/logs
TARBALL=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
SRCPKG=linux-source-6.12
CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-}
export ARCH=arm64 CROSS_COMPILE

info() { printf '  %-8s %s\n' "$1" "$2" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The kernels the harness knows: name -> source tree and config fragments.
# vanilla: pristine Debian source; patched: with patches/series applied;
# kseq, stock: patched with the other this_cpu choices; debug: patched plus
# configs/debug.config; vanilla-debug: vanilla plus configs/debug.config
# (to tell whether a debug splat is the series' or 6.12's; vanilla-va52
# likewise for 52-bit VA); nonuma: patched
# without CONFIG_NUMA (the generic setup_per_cpu_areas() path); nokpti:
# patched without KPTI and SW PAN compiled in (configs/nokpti.config); va52:
# patched with 52-bit VA and LPA2, as Debian's arm64 config (five levels
# on CPUs with LPA2, the 48-bit fallback on others); voluntary: patched
# with Debian's preemption model (voluntary, no preempt count) and the
# this_cpu choice Kconfig defaults to there (preempt_disable()), text
# replication on; dev-va52, dev-voluntary: the same from build/dev.
# patched-dynamic and kseq-dynamic (PREEMPT_DYNAMIC) are booted too.
# distro: Debian's own arm64 config with its modules dropped
# (scripts/distro-config.sh) plus configs/distro.config; distro-dynamic:
# the same with PREEMPT_DYNAMIC (make check-distro); vanilla-distro and
# vanilla-distro-dynamic: the Debian source on those configs (make
# bench-distro). vanilla-real,
# patched-real, kseq-real, stock-real: with configs/realistic.config
# (cgroups, memcg, loopback TCP, ext4, BPF, perf; make bench-real).
unknown_kernel() {
	echo "unknown kernel '$1' (known: vanilla vanilla-debug vanilla-va52 patched kseq stock debug nonuma nokpti va52 voluntary distro distro-dynamic vanilla-distro vanilla-distro-dynamic dev dev-va52 dev-voluntary mutant mutant-va52, and patched, kseq or stock with -voluntary or -dynamic, and vanilla, patched, kseq or stock with -real)"
}

kernel_src() {
	case "$1" in
	vanilla|vanilla-debug|vanilla-va52) echo "$VANILLA_SRC" ;;
	patched|debug|kseq|stock|nonuma|nokpti|va52|voluntary|distro|distro-dynamic) echo "$SRC" ;;
	patched-voluntary|kseq-voluntary|stock-voluntary|patched-dynamic|kseq-dynamic|stock-dynamic)
		echo "$SRC" ;;
	vanilla-real|vanilla-distro|vanilla-distro-dynamic) echo "$VANILLA_SRC" ;;
	patched-real|kseq-real|stock-real) echo "$SRC" ;;
	dev|dev-va52|dev-voluntary) [ -d "$DEV_SRC" ] || die "no $DEV_SRC: make dev-tree first"; echo "$DEV_SRC" ;;
	mutant|mutant-va52) [ -d "$MUTANT_SRC" ] || die "no $MUTANT_SRC: scripts/mutant.sh makes it"; echo "$MUTANT_SRC" ;;
	*) die "$(unknown_kernel "$1")" ;;
	esac
}

kernel_fragments() {
	local f="$TOP/configs/base.config $TOP/configs/kunit.config"
	case "$1" in
	vanilla) echo "$f" ;;
	vanilla-debug) echo "$f $TOP/configs/debug.config" ;;
	vanilla-va52) echo "$f $TOP/configs/va52.config" ;;
	patched|dev|mutant) echo "$f $TOP/configs/series.config" ;;
	kseq) echo "$f $TOP/configs/series.config $TOP/configs/kseq.config" ;;
	stock) echo "$f $TOP/configs/series.config $TOP/configs/stock.config" ;;
	debug) echo "$f $TOP/configs/series.config $TOP/configs/debug.config" ;;
	nonuma) echo "$f $TOP/configs/series.config $TOP/configs/nonuma.config" ;;
	nokpti) echo "$f $TOP/configs/series.config $TOP/configs/nokpti.config" ;;
	va52|dev-va52|mutant-va52) echo "$f $TOP/configs/series.config $TOP/configs/va52.config" ;;
	vanilla-distro) echo "$BUILD/distro/debian.config $TOP/configs/distro.config" ;;
	vanilla-distro-dynamic) echo "$(kernel_fragments vanilla-distro) $TOP/configs/preempt-dynamic.config" ;;
	distro) echo "$(kernel_fragments vanilla-distro) $TOP/configs/distro-series.config" ;;
	distro-dynamic) echo "$(kernel_fragments distro) $TOP/configs/preempt-dynamic.config" ;;
	voluntary|dev-voluntary) echo "$f $TOP/configs/series.config $TOP/configs/preempt-voluntary.config $TOP/configs/voluntary.config" ;;
	# the three this_cpu choices under two more preemption models
	# (bench/preempt_models.sh prepares them for module builds; the
	# dynamic alias and kseq kernels are booted by tests/matrix too)
	*-voluntary|*-dynamic)
		case "${1%-*}" in patched|kseq|stock) ;; *) die "unknown kernel '$1'" ;; esac
		echo "$(kernel_fragments "${1%-*}") $TOP/configs/preempt-${1##*-}.config" ;;
	# make bench's realistic configuration (configs/realistic.config)
	vanilla-real|patched-real|kseq-real|stock-real)
		echo "$(kernel_fragments "${1%-real}") $TOP/configs/realistic.config" ;;
	*) die "$(unknown_kernel "$1")" ;;
	esac
}

nproc_build() { echo "${JOBS:-$(nproc)}"; }
