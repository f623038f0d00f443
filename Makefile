# SPDX-License-Identifier: GPL-2.0
# Build, boot and test the arm64 per-CPU page table series in QEMU.
# Thin by design: every target calls a script in scripts/. `make help`.

SHELL := /bin/bash
TOPO ?=
KERNEL ?=
H := python3 scripts/harness.py
SEL := $(if $(TOPO),--topo $(TOPO)) $(if $(KERNEL),--kernel $(KERNEL))

.PHONY: help deps tree kernels kernel-% initramfs demo check selftest \
	checkpatch topologies clean distclean check-big check-distro soak dev-tree export results bisect-build mutants \
	bench-insn bench-smoke bench-topo bench-structure bench-real bench-distro bench-topo-big bench

help:
	@echo 'make demo               build, boot the default 2-node topology, show a report'
	@echo 'make check              harness self-tests + the CI matrix (tests/matrix)'
	@echo 'make check TOPO=name    only lanes on numa-topologies/name.topo'
	@echo 'make check KERNEL=k     only lanes of kernel k (vanilla, patched, kseq, stock, debug, va52)'
	@echo 'make check-big          the lanes of tests/matrix-big (64 vCPUs, slow)'
	@echo 'make soak [MINUTES=M]   everything at once for M minutes a lane (tests/matrix-soak)'
	@echo 'make check-distro       the series on Debian'"'"'s own arm64 config (tests/matrix-distro, slow build)'
	@echo 'make selftest           harness self-tests only (seconds)'
	@echo 'make bench-smoke        the benchmark code on a short run (make check runs it too)'
	@echo 'make deps               apt-get install what is missing (idempotent)'
	@echo 'make tree               unpack the Debian source, apply patches/series'
	@echo 'make kernel-NAME        build one kernel into build/out/NAME'
	@echo 'make initramfs          guest userland + tests/guest overlay'
	@echo 'make checkpatch         checkpatch.pl --strict on patches/'
	@echo 'make dev-tree           a git worktree build/dev (branch dev) to work on the series'
	@echo 'make kernel-dev         build build/dev into build/out/dev'
	@echo 'make export             write build/dev commits since base to patches/'
	@echo 'make bisect-build       build and boot every prefix of the series (slow; BISECT_ONLY="3 4" for some)'
	@echo 'make mutants [FORCE=1]  break the series on purpose (tests/mutants/), show a test fails'
	@echo 'make results            docs/results.md from the last make check, bench/disasm.sh and bench/preempt_models.sh'
	@echo 'make topologies         validate every numa-topologies/ file'
	@echo 'make clean              remove build/out, build/runs (keep source, userland)'
	@echo 'make distclean          remove build/'

deps:
	@bash scripts/deps.sh

tree: deps
	@bash scripts/tree.sh

kernel-%: tree
	@bash scripts/kernel.sh $*

# The kernels the selected lanes boot, built one after the other.
kernels: tree
	@ks=$$($(H) kernels $(SEL)) || exit 2; \
	for k in $$ks; do bash scripts/kernel.sh $$k || exit 1; done

initramfs: deps
	@bash scripts/initramfs.sh

selftest:
	@set -o pipefail; python3 -m unittest discover -s tests/harness -t . 2>&1 | tail -n 3

topologies:
	@for t in numa-topologies/*.topo; do $(H) topo $$t >/dev/null || exit 2; done; \
	echo "all topologies valid"

# Fail early on a bad TOPO= or KERNEL= before anything is built.
check: deps
	@$(H) kernels $(SEL) >/dev/null
	@$(MAKE) --no-print-directory kernels initramfs
	@$(H) check --selftest $(SEL)

# Lanes kept out of make check (tests/matrix-big): 64 vCPUs under TCG.
check-big:
	@MATRIX=$(CURDIR)/tests/matrix-big $(MAKE) --no-print-directory check

# The series on Debian's own arm64 config, as shipped and with
# PREEMPT_DYNAMIC (tests/matrix-distro): two kernels far slower to build.
check-distro:
	@MATRIX=$(CURDIR)/tests/matrix-distro $(MAKE) --no-print-directory check

# Text replication under stress for 5-10 minutes a lane (tests/matrix-soak).
# MINUTES=M: every soak lane runs M minutes (default: each lane's minutes=)
soak:
	@rc=0; SOAK_MINUTES=$(MINUTES) MATRIX=$(CURDIR)/tests/matrix-soak \
		$(MAKE) --no-print-directory check || rc=$$?; \
	python3 bench/soak_record.py || rc=$$((rc ? rc : 1)); exit $$rc

demo: deps
	@$(MAKE) --no-print-directory kernel-patched kernel-kseq initramfs
	@bash scripts/demo.sh

checkpatch: tree
	@bash scripts/checkpatch.sh

# Developers: a worktree on branch "dev" to edit, build with `make kernel-dev`,
# then `make export` writes its commits to patches/.
dev-tree: tree
	@[ -d build/dev ] || git -C build/linux worktree add -B dev ../dev HEAD
	@# commits made there carry the series' author, as git am gave the others
	@git -C build/dev config user.name "$$(git -C build/dev log -1 --format=%an)"
	@git -C build/dev config user.email "$$(git -C build/dev log -1 --format=%ae)"

export:
	@bash scripts/export-series.sh

# Every prefix of the series builds and boots (slow: one build and one
# boot per patch; BISECT_BOOT=0 only builds).
bisect-build: tree initramfs
	@bash scripts/bisect-build.sh

# Each tests/mutants/*.mutation applied in turn to a worktree of the
# patched tree, built incrementally, booted: the named test must fail.
mutants: tree initramfs
	@FORCE=$(FORCE) bash scripts/mutant.sh

# The benchmark's code on a short run (tests/matrix-bench-smoke; make
# check runs the same lanes).
bench-smoke:
	@MATRIX=$(CURDIR)/tests/matrix-bench-smoke $(MAKE) --no-print-directory check

# $(call bench-lanes,MATRIX,VAR,NAME): build what the lanes of MATRIX
# boot, boot each $(VAR) times under the kinsn plugin (bench/insn.py run,
# with a progress line) into build/bench/NAME/, and record the passing
# runs in docs/data/bench/NAME/ (committed: docs/results.md reads them).
define bench-lanes
	@case '$($(2))' in ''|*[!0-9]*|0) echo "$(2)='$($(2))': not a positive number of boots" >&2; exit 2;; esac
	@MATRIX=$(CURDIR)/$(1) $(MAKE) --no-print-directory kernels initramfs
	@bash scripts/deps.sh bench
	@python3 bench/insn.py run --matrix $(1) --runs $($(2)) --out build/bench/$(3) \
		$(if $(KERNEL),--kernel $(KERNEL))
	@python3 bench/insn.py record --out build/bench/$(3) --dest docs/data/bench/$(3)
endef

# Kernel instructions per stress-ng op and per this_cpu op for each
# variant of tests/matrix-bench, counted by the kinsn TCG plugin from
# outside the guest, RUNS boots of each (default 5).
RUNS ?= 5
bench-insn: deps
	$(call bench-lanes,tests/matrix-bench,RUNS,insn)
	@/usr/bin/python3 bench/plot.py
	@python3 bench/insn.py table docs/data/bench/insn

# The same on the realistic configuration (tests/matrix-bench-real:
# configs/realistic.config, a memory cgroup, loopback TCP, ext4 on a
# virtio-blk disk, a compile with Debian's arm64 gcc from that disk
# (bench/cc-image.sh), the guest's perf events beside the plugin).
bench-real: deps
	@MATRIX=$(CURDIR)/tests/matrix-bench-real $(MAKE) --no-print-directory kernels
	@bash bench/cc-image.sh vanilla-real
	$(call bench-lanes,tests/matrix-bench-real,RUNS,real)
	@python3 bench/insn.py table docs/data/bench/real

# The same on Debian's own arm64 config (tests/matrix-bench-distro: the
# make check-distro kernels and vanilla on that config, under Debian's
# voluntary preemption and under PREEMPT_DYNAMIC booted with preempt=full),
# and the structure of those kernels (not with KERNEL=, which runs one
# kernel's lanes and keeps the others' recorded runs); four slow builds
# (20 to 35 minutes each from scratch here).
bench-distro: deps
	$(call bench-lanes,tests/matrix-bench-distro,RUNS,distro)
	$(if $(KERNEL),,@python3 bench/structure.py --json docs/data/bench/structure-distro.json \
		vanilla-distro distro vanilla-distro-dynamic distro-dynamic)
	@python3 bench/insn.py table docs/data/bench/distro

# Per topology (tests/matrix-bench-topo), vanilla and the series: text
# locality over boot and over a workload, the memory of tables and copies,
# and the price of the series (percpu alloc and chunks, kprobe, static key,
# CPU online, module load), TOPO_RUNS boots of each (default 2).
TOPO_RUNS ?= 2
bench-topo: deps
	$(call bench-lanes,tests/matrix-bench-topo,TOPO_RUNS,topo)
	@/usr/bin/python3 bench/plot.py
	@python3 bench/topo.py docs/data/bench/topo docs/data/bench/topo-big

# The memory and boot locality at 128 and 256 vCPUs
# (tests/matrix-bench-topo-big), BIG_RUNS boots of each (default 1),
# about 25 minutes a round; read with bench-topo's runs.
BIG_RUNS ?= 1
bench-topo-big: deps
	$(call bench-lanes,tests/matrix-bench-topo-big,BIG_RUNS,topo-big)
	@/usr/bin/python3 bench/plot.py
	@python3 bench/topo.py docs/data/bench/topo docs/data/bench/topo-big

# The whole kernel's structure per variant (bench/structure.py): text
# bytes, preempt_schedule*() call sites, preempt count writes, tpidr_el1
# reads, kseq entries.
bench-structure:
	@MATRIX=$(CURDIR)/tests/matrix-bench $(MAKE) --no-print-directory kernels
	@mkdir -p build/bench
	@python3 bench/structure.py --json docs/data/bench/structure.json vanilla stock patched kseq

# Everything above, then docs/results.md.
bench: bench-structure bench-insn bench-real bench-distro bench-topo bench-topo-big results

# docs/results.md from the last `make check` logs and a disassembly of the
# this_cpu ops built against the vanilla, patched, kseq and stock kernels.
results: kernels
	@mkdir -p build/bench
	@bash bench/disasm.sh vanilla patched kseq stock >build/bench/disasm.txt
	@bash bench/size.sh vanilla stock patched kseq >build/bench/size.txt
	@python3 bench/codegen_check.py build/bench/disasm >build/bench/codegen.ktap || true
	@bash bench/preempt_models.sh >build/bench/preempt_models.txt
	@python3 bench/report.py --disasm build/bench/disasm.txt --size build/bench/size.txt \
		--codegen build/bench/codegen.ktap --preempt build/bench/preempt_models.txt >docs/results.md
	@echo "docs/results.md written"

clean:
	rm -rf build/out build/runs build/stamps/series

distclean:
	rm -rf build
