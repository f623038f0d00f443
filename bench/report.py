#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""report.py - docs/results.md from the console logs of the last `make check`.

What it measures: the memory per-CPU page tables cost (the status file the
pcpu_pgtable guest test prints, per lane, i.e. per topology) and what the
KUnit this_cpu stress cases did (ops, migrations, preemptions, hotplugs).
It only reads build/runs/*/console.log; rerun `make check` to refresh them.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import subprocess
import sys

STATUS = re.compile(r'^\s*# (enabled|possible_cpus|pgd_block_pages|pgtable_levels|alias_mapped_pages|'
                    r'region_pmd_pages|region_pte_pages|'
                    r'table_bytes_total|table_bytes_per_cpu) (\d+)\s*$')
HAMMER = re.compile(r'# (pcpu_this_cpu_ops_\w+): (\d+) ops, (\d+) owner RMWs, (\d+) migrations, '
                    r'(\d+) preemptions, (\d+) hotplugs, ops (\w+)')
KSEQ = re.compile(r'# kseq_forced_restart_test: (\d+) ops, (\d+) interrupt iterations, '
                  r'(\d+) restarts, (\d+) preemptions')
KSEQ_TABLE = re.compile(r'# kseq_table_test: (\d+) sequences \((\S+)\)')
TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
# the boot message; before the region was randomised it also named the window
BOOT = re.compile(r'per-CPU page tables: (?:alias window \S+, )?(\d+) KiB for (\d+) CPUs')


def lane_facts(log: str) -> tuple[dict[str, int], list[tuple[str, ...]], list[str]]:
    status: dict[str, int] = {}
    hammers = []
    kseq: list[str] = []
    with open(log, encoding='utf-8', errors='replace') as f:
        for raw in f:
            line = TS.sub('', raw.rstrip('\n'))
            m = BOOT.search(line)
            if m:
                status['boot_bytes'] = int(m.group(1)) * 1024
                status['boot_cpus'] = int(m.group(2))
            m = STATUS.match(line)
            if m and m.group(1) not in status:
                status[m.group(1)] = int(m.group(2))
            m = HAMMER.search(line)
            if m:
                hammers.append(m.groups())
            m = KSEQ_TABLE.search(line)
            if m:
                kseq[:0] = list(m.groups())
            m = KSEQ.search(line)
            if m:
                kseq += list(m.groups())
    return status, hammers, kseq


def previous_layout(rev: str, now: dict[str, tuple]) -> list[str]:
    """Bytes per CPU of the previous layout (docs/results.md at REV) next to now."""
    import subprocess
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    r = subprocess.run(['git', '-C', top, 'show', f'{rev}:docs/results.md'],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    old = {}
    for line in r.stdout.splitlines():
        w = [c.strip() for c in line.strip('|').split('|')]
        if len(w) == 8 and w[0].startswith('patched-') and w[1] == '1':
            old[w[0]] = (w[2], w[4], w[7])
    out = ['', f'### Against the previous layout (private alias PMD/PTE pages; docs/results.md at {rev})', '']
    if not old:
        return out + [f'(`git show {rev}:docs/results.md` not available in this clone)']
    out += ['| lane | CPUs | before: at boot | before: after tests | now: at boot | now: after tests |',
            '|---|---|---|---|---|---|']
    for lane, (cpus, boot, after) in old.items():
        if lane in now:
            out.append(f'| {lane} | {cpus} | {boot} | {after} | {now[lane][1]} | {now[lane][2]} |')
    return out + ['', 'Bytes per possible CPU. 16 CPUs on the previous layout were measured once',
                  'outside the harness (about 94 KiB per CPU after the suite): not regenerated here.',
                  '"now: after tests" includes the four 1 GiB blocks per column that the',
                  'fault-injection case (patch 35) populates, which the previous layout\'s suite',
                  'did not: compare the boot columns, or subtract 4 pages per CPU.']


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--runs', default=os.path.join(os.path.dirname(__file__), '..', 'build', 'runs'))
    ap.add_argument('--disasm', default='', help='output of bench/disasm.sh to include')
    ap.add_argument('--size', default='', help='output of bench/size.sh to include')
    ap.add_argument('--codegen', default='', help='KTAP of bench/codegen_check.py to include')
    ap.add_argument('--preempt', default='', help='output of bench/preempt_models.sh to include')
    ap.add_argument('--mutants', default=os.path.join(os.path.dirname(__file__), '..', 'docs',
                                                      'data', 'mutants'),
                    help='the results of scripts/mutant.sh (one JSON file per mutant)')
    ap.add_argument('--bench', default=os.path.join(os.path.dirname(__file__), '..', 'docs',
                                                    'data', 'bench', 'insn'),
                    help='the runs bench/insn.py recorded (one JSON file per boot)')
    ap.add_argument('--previous', default='e9b1355',
                    help='commit whose docs/results.md has the previous layout (private alias tables)')
    args = ap.parse_args()

    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    sys.path.insert(0, os.path.join(top, 'scripts'))
    from harness import runner  # noqa: E402
    with open(os.path.join(top, 'tests', 'matrix'), encoding='utf-8') as f:
        matrix = runner.parse_matrix(f.read())
    ci = list(matrix)       # the lanes of make check itself
    # make check-big lanes too, when they have been run
    with open(os.path.join(top, 'tests', 'matrix-big'), encoding='utf-8') as f:
        matrix += [b for b in runner.parse_matrix(f.read(), 'tests/matrix-big')
                   if b.name not in [m.name for m in matrix]]
    lanes = [lane.name for lane in matrix]
    # a lane whose log is older than its kernel or the series ran an earlier build
    series = os.path.join(top, 'patches', 'series')
    image = {lane.name: os.path.join(top, 'build', 'out', lane.kernel, 'arch/arm64/boot/Image')
             for lane in matrix}
    logs = [os.path.join(args.runs, lane, 'console.log') for lane in lanes
            if os.path.exists(os.path.join(args.runs, lane, 'console.log'))]
    if not logs:
        print(f'error: no console logs under {args.runs}: run make check first', file=sys.stderr)
        return 2
    out = ['# Results', '',
           'Generated by `bench/report.py` from the console logs of the last `make check`',
           '(`build/runs/*/console.log`), and of `make check-big` (16 and 64 CPUs, no NUMA)',
           'when it has been run; regenerate with `make results`. QEMU TCG:',
           'functional and structural facts, no NUMA latency.', '',
           '## Page-table memory per lane', '',
           'At boot: the kernel message "per-CPU page tables: ... N KiB for M CPUs".',
           'After tests: the status file read by the pcpu_pgtable guest test, after the',
           'KUnit suite has created and freed more than 100 chunks and forced one chunk',
           'past 1 GiB of every column and one into the columns\' last slot',
           '(pcpu_alias_far_slot_test): two more region PMD pages per column than at boot,',
           'and one for the last column\'s tail block; and, since patch 35, a chunk in four',
           'more 1 GiB blocks of every column (pcpu_alias_table_alloc_error_test: four more',
           'PMD and PTE pages per column, kept as all column tables are). Block pages: each',
           "CPU's own pages (trampoline copy with KPTI, image slot PUD, top level, and with",
           'five levels its P4D page). Levels: of the kernel tables at run time (5 only',
           'with 52-bit VA on a CPU with LPA2: the va52 lanes). Region PMD',
           "pages: swapper's PMD pages of the percpu columns, which the aliases share",
           '(counted in the totals). Region PTE pages: the percpu mappings themselves,',
           'shared by the aliases too (not counted: stock needs PTE pages for percpu',
           'memory as well, though fewer, as it packs all units together).',
           '"(earlier build)": the lane\'s log is older than its kernel or than',
           'patches/series, so it ran an earlier state of the series (make check-big',
           'was not rerun).', '',
           '| lane | enabled | CPUs | levels | block pages | at boot, bytes/CPU | '
           'after tests: alias PTEs | region PMD pages | region PTE pages | total bytes | '
           'bytes/CPU |',
           '|---|---|---|---|---|---|---|---|---|---|---|']
    rows, kseq_rows, now = [], [], {}
    stale = []
    for log in logs:
        lane = os.path.basename(os.path.dirname(log))
        st, hammers, kseq = lane_facts(log)
        built = [os.path.getmtime(f) for f in (image[lane], series) if os.path.exists(f)]
        if built and os.path.getmtime(log) < max(built):
            stale.append(lane)
        if len(kseq) == 6:
            kseq_rows.append((lane,) + tuple(kseq))
        if st:
            boot = (st['boot_bytes'] // st['boot_cpus']) if st.get('boot_cpus') else 0
            now[lane] = (st.get('possible_cpus', '-'), boot, st.get('table_bytes_per_cpu', '-'))
            name = f'{lane} (earlier build)' if lane in stale else lane
            out.append(f'| {name} | {st.get("enabled", "-")} | {st.get("possible_cpus", "-")} | '
                       f'{st.get("pgtable_levels", "-")} | '
                       f'{st.get("pgd_block_pages", "-")} | {boot} | '
                       f'{st.get("alias_mapped_pages", "-")} | '
                       f'{st.get("region_pmd_pages", "-")} | {st.get("region_pte_pages", "-")} | '
                       f'{st.get("table_bytes_total", "-")} | {st.get("table_bytes_per_cpu", "-")} |')
        rows += [(lane,) + h for h in hammers]
    out += previous_layout(args.previous, now)
    out += lane_table(args.runs, ci)
    out += ['', '## KUnit this_cpu stress (pcpu_pgtable suite)', '',
            '| lane | case | ops | owner RMWs | migrations | preemptions | hotplugs | ops via |',
            '|---|---|---|---|---|---|---|---|']
    out += [f'| {" | ".join(r)} |' for r in rows]
    out += ['', '## KUnit forced restarts (pcpu_kseq suite)', '',
            'Sequences in the kernel table and their form; ops of the forced-restart',
            'case, hrtimer interrupt iterations (each runs ops of its own on the same',
            'variables), restarts taken, and involuntary context switches of the workers.', '',
            '| lane | sequences | form | ops | interrupt iterations | restarts | preemptions |',
            '|---|---|---|---|---|---|---|']
    out += [f'| {" | ".join(r)} |' for r in kseq_rows]
    if args.disasm:
        with open(args.disasm, encoding='utf-8') as f:
            out += ['', '## Instructions per this_cpu op (`bench/disasm.sh`)', '', '```',
                    f.read().rstrip(), '```']
    if args.preempt:
        with open(args.preempt, encoding='utf-8') as f:
            out += ['', '## this_cpu ops per preemption model (`bench/preempt_models.sh`)', '',
                    'The numbers behind the Kconfig default of the this_cpu choice: the',
                    'alias where the preempt count is kept (full and dynamic preemption),',
                    'preempt_disable() where it is not (voluntary or none without',
                    'PREEMPT_DYNAMIC): there the stock op is already the shortest.', '',
                    '```', f.read().rstrip(), '```']
    if args.codegen:
        with open(args.codegen, encoding='utf-8') as f:
            out += ['', '## Code checks of make check (`bench/codegen_check.py`, budgets in '
                    '`bench/codegen.budget`)', '', '```', f.read().rstrip(), '```']
    if args.size:
        with open(args.size, encoding='utf-8') as f:
            out += ['', '## Code size per kernel (`bench/size.sh`)', '', '```',
                    f.read().rstrip(), '```']
    out += structure_section(os.path.join(top, 'docs', 'data', 'bench', 'structure.json'), top)
    out += bench_section(args.bench, top)
    out += real_section(os.path.join(top, 'docs', 'data', 'bench', 'real'), top)
    out += distro_section(os.path.join(top, 'docs', 'data', 'bench', 'distro'),
                          os.path.join(top, 'docs', 'data', 'bench', 'structure-distro.json'), top)
    out += topo_section([os.path.join(top, 'docs', 'data', 'bench', d)
                         for d in ('topo', 'topo-big')], top)
    out += site_table(os.path.join(top, 'build', 'sites.json'))
    out += kill_matrix(args.mutants, top)
    out += soak_table(os.path.join(top, 'docs', 'data', 'soak'), top)
    print('\n'.join(out))
    return 0


def lane_table(runs: str, matrix: list) -> list[str]:
    """Per lane of tests/matrix: what its last run counted (result.json)."""
    import json
    out = ['', '## Lanes of the last `make check`', '',
           'Passed, failed and skipped test cases per lane (`build/runs/*/result.json`);',
           'every skip is one the lane expects (`skip=` in `tests/matrix`), any other',
           'fails the lane. The harness self-tests, the cross-boot region check, the',
           'code checks and each lane\'s clean boot add to the totals `make check` prints.', '',
           '| lane | passed | failed | skipped | seconds | verdict |', '|---|---|---|---|---|---|']
    tot = [0, 0, 0, 0.0]
    for lane in matrix:
        path = os.path.join(runs, lane.name, 'result.json')
        if not os.path.exists(path):
            continue
        with open(path, encoding='utf-8') as f:
            r = json.load(f)
        c = {'pass': 0, 'fail': 0, 'skip': 0}
        for _, st, _ in r['tests']:
            c[st] += 1
        out.append(f'| {lane.name} | {c["pass"]} | {c["fail"]} | {c["skip"]} | '
                   f'{r["seconds"]:.0f} | {r["verdict"]} |')
        for i, k in enumerate(('pass', 'fail', 'skip')):
            tot[i] += c[k]
        tot[3] += r['seconds']
    out.append(f'| all lanes | {tot[0]} | {tot[1]} | {tot[2]} | {tot[3]:.0f} | |')
    return out


def bench_section(data: str, top: str) -> list[str]:
    """The recorded runs of make bench-insn: bench/insn.py's tables, and the
    plots bench/plot.py drew from the same runs."""
    if not glob.glob(os.path.join(data, '*.json')):
        return []
    table = bench_script(top, 'insn.py', 'table', data)
    out = ['', '## Kernel instructions, counted from outside the guest (`make bench-insn`)', '',
           'Every variant boots the same topology on one TCG thread with an',
           'instruction-counting clock (`-icount`), KUnit off, and runs',
           'tests/guest/bench.sh under the kinsn TCG plugin (bench/plugin/kinsn.c),',
           'which counts the instructions each vCPU executes at EL1 and EL0 and,',
           "for the kernel's, the node whose memory each was fetched from. Each",
           'measurement runs with N and with 2N operations between two markers',
           '(HINT #126 and #127, no-ops for the CPU): the difference over N is the',
           'cost of one operation, without what starts and ends the run.',
           '',
           '* **this_cpu ops**: the loops of bench/this_cpu_ops, run in the kernel',
           '  with interrupts off on one CPU (debugfs `this_cpu_ops/run`): that',
           "  vCPU's count is the loop's and nothing else, so the figure is exact",
           '  and repeats in every run (the harness fails a lane where it is not a',
           '  whole number). The floor is the same call on a plain global:',
           '  `adrp` (+ `add`) and the one load, store or LSE atomic.',
           '* **stressors**: stress-ng 0.15.06, one worker, fixed bogo-op counts,',
           '  every vCPU counted. TCG has no pipeline, caches or NUMA latency:',
           '  these are instruction counts, not time.',
           '* **locality**: what share of each vCPU\'s kernel instructions came',
           "  from its own node's memory over the whole boot.",
           '', 'Regenerate: `make bench-insn` (RUNS boots per variant, 5 by default;',
           'the line under this paragraph says how many ran; then',
           '`bench/insn.py record` into docs/data/bench/insn/ and `bench/plot.py`',
           'into docs/img/), then `make results`.', '']
    out += table
    for png, what in (('bench-ops.png', 'this_cpu ops: instructions per call'),
                      ('bench-locality.png', 'kernel instruction fetches from the own node')):
        if os.path.exists(os.path.join(top, 'docs', 'img', png)):
            out += ['', f'![{what}](img/{png})']
    return out


def bench_script(top: str, script: str, *args: str) -> list[str]:
    """The lines bench/SCRIPT ARGS prints; its error ends the report."""
    r = subprocess.run([sys.executable, os.path.join(top, 'bench', script), *args],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
    if r.returncode:
        raise SystemExit(f'bench/{script} {" ".join(args)}: {r.stderr.strip()}')
    return r.stdout.rstrip().splitlines()


def structure_table(path: str, top: str) -> tuple[str, list[str]]:
    """The series hash and table rows of a bench/structure.py --json file."""
    import json
    sys.path.insert(0, os.path.join(top, 'bench'))
    import structure
    with open(path, encoding='utf-8') as f:
        d = json.load(f)
    return d['series'], structure.table(d['counts']).rstrip().splitlines()


def structure_section(path: str, top: str) -> list[str]:
    """bench/structure.py's counts of the whole kernel, per variant."""
    if not os.path.exists(path):
        return []
    series, rows = structure_table(path, top)
    return ['', '## The whole kernel, per variant (`make bench-structure`)', '',
            'Counted in each vmlinux by `bench/structure.py` (objdump of the kernel\'s',
            'text, not of the alternatives\' replacements or .init.text), series',
            f'{series}; ratios to the first column. A preempt_count write is a',
            '32-bit store at TSK_TI_PREEMPT through a register holding `sp_el0`',
            '(current); those within a few instructions after a `tpidr_el1` read',
            'have the shape of a stock this_cpu op (or of this_cpu_ptr() use with',
            'preemption off). The register tracking is a heuristic, the same for',
            'every kernel; the script\'s header says how it works. Its call-site',
            'counts are lower than bench/disasm.sh\'s (the codegen checks above,',
            'and the cover letter), which count every section of vmlinux,',
            '.init.text and the alternatives\' replacements included.', ''] + rows


def real_section(data: str, top: str) -> list[str]:
    """The recorded runs of make bench-real: bench/insn.py's tables."""
    if not glob.glob(os.path.join(data, '*.json')):
        return []
    return ['', '## The realistic configuration (`make bench-real`)', '',
            'As the section above, on kernels built with configs/realistic.config',
            'added (cgroups and memcg, TCP over loopback, ext4, BPF, perf events),',
            'everything in a memory cgroup, with three more workloads: sock (TCP',
            'over loopback), hdd (ext4 on a virtio-blk disk) and cc (Debian\'s',
            'arm64 gcc-12 compiling eight preprocessed files of lib/ from that',
            'disk; one op is the eight). The guest\'s own perf events count each',
            'stressor window too (second table). QEMU\'s PMU reads one counter for',
            'the whole machine (`icount_get_raw()`), so those figures include other',
            'vCPUs\' instructions and cannot check the plugin: docs/design.md',
            'section 15. switch is bimodal (about 16,500 or 19,050 per op by where',
            'the pair runs) and exec varies by 13%: their ratios are placement and',
            'noise. sock\'s three vanilla runs agree within 1.3%, but boots of sock',
            'alone spread by about 10% on vanilla and the series alike (design.md',
            'section 15), so its ratio shows no difference either. Regenerate:',
            '`make bench-real` (RUNS boots per variant), then `make results`.', ''] + bench_script(top, 'insn.py', 'table', data)


def distro_section(data: str, structure_json: str, top: str) -> list[str]:
    """The recorded runs of make bench-distro and the structure of its
    kernels: Debian's own config, voluntary and preempt=full."""
    if not glob.glob(os.path.join(data, '*.json')):
        return []
    out = ['', '## Debian\'s own config (`make bench-distro`)', '',
           'As the sections above, on Debian\'s arm64 config for this source',
           '(`config.arm64_none_arm64` of linux-config-6.12, its modules dropped,',
           'configs/distro.config added: the kernels of `make check-distro`) and on',
           'the Debian source built with the same config. Two preemption models:',
           'Debian\'s own, voluntary without a preempt count, where the series',
           'keeps `preempt_disable()` for this_cpu ops (it costs nothing there: no',
           'count to write), so only the per-CPU tables and text replication can',
           'make a difference; and PREEMPT_DYNAMIC booted with `preempt=full`,',
           'where the alias is the this_cpu choice. Each lane\'s ratio is to the',
           'vanilla kernel of its own preemption model. Everything runs in a',
           'memory cgroup. Regenerate: `make bench-distro` (RUNS boots per',
           'variant), then `make results`.', ''] + bench_script(top, 'insn.py', 'table', data)
    if os.path.exists(structure_json):
        series, rows = structure_table(structure_json, top)
        out += ['', 'The same kernels\' structure (`bench/structure.py`, as in the',
                f'whole-kernel section above; series {series}), each kernel\'s ratio',
                'to the vanilla kernel of its own configuration:', ''] + rows
    return out


def topo_section(dirs: list[str], top: str) -> list[str]:
    """The recorded runs of make bench-topo (and -big): bench/topo.py's
    tables, and the plots bench/plot.py drew from them."""
    if not any(glob.glob(os.path.join(d, '*.json')) for d in dirs):
        return []
    table = bench_script(top, 'topo.py', *dirs)
    out = ['', '## Per topology: locality, memory and the price (`make bench-topo`)', '',
           'Vanilla and the series on each topology of tests/matrix-bench-topo, one',
           'TCG thread with `-icount`, KUnit off, tests/guest/bench.sh under the',
           'kinsn plugin: the fork stressor, and the price cases, each with N and',
           '2N operations, every vCPU counted. Interrupts are on in the price',
           'cases, so other work lands in their windows too: read them as sizes,',
           'not exact counts. Regenerate: `make bench-topo` (TOPO_RUNS boots per',
           'lane) and `make bench-topo-big` (128 and 256 vCPUs, boot-only), then',
           '`make results`.', '']
    out += table
    for png, what in (('bench-topo-locality.png', 'fetches from the home node per vCPU'),
                      ('bench-memory.png', 'memory of tables and copies'),
                      ('bench-price.png', 'the price, series over vanilla')):
        if os.path.exists(os.path.join(top, 'docs', 'img', png)):
            out += ['', f'![{what}](img/{png})']
    return out


def site_table(path: str) -> list[str]:
    """How often the lanes of the last make check ran each maintenance site."""
    import json
    out = ['', '## Maintenance sites reached by `make check`', '',
           'Each TLB, cache and ordering site of the series counts its visits',
           '(CONFIG_ARM64_PGTABLE_SITE_COUNTS, `/sys/kernel/debug/pgtable_sites`);',
           'init prints the counts after each document and the harness adds them',
           'up over the lanes (`build/sites.json`). A site no lane reached fails',
           '`make check` unless tests/sites says why QEMU cannot reach it.',
           'docs/design.md section 9 says what each site does.', '']
    if not os.path.exists(path):
        return out + ['No results: run a full `make check`.']
    with open(path, encoding='utf-8') as f:
        d = json.load(f)
    out += ['| site | visits | lanes | most visits in |', '|---|---|---|---|']
    for rule in d['rules']:
        lanes = d['sites'].get(rule['name'], {})
        if rule['unreachable']:
            out.append(f'| {rule["name"]} | {sum(lanes.values())} | {len(lanes)} | '
                       f'unreachable under QEMU: {rule["unreachable"]} |')
            continue
        top = max(lanes.items(), key=lambda kv: kv[1])[0] if lanes else 'none'
        out.append(f'| {rule["name"]} | {sum(lanes.values())} | {len(lanes)} | {top} |')
    return out


def kill_matrix(mutants: str, top: str) -> list[str]:
    """The results of scripts/mutant.sh: one row per mutant."""
    import glob
    import hashlib
    import json
    files = sorted(glob.glob(os.path.join(mutants, '*.json')))
    out = ['', '## Mutations: the kill matrix (`make mutants`)', '',
           'Each `tests/mutants/*.mutation` breaks one property or removes one TLB,',
           'cache or ordering site of the series (a scripted edit of a worktree under',
           'build/, built incrementally), boots the lane it names and requires the',
           'named test to fail. `qemu-blind/` mutants remove what QEMU TCG cannot',
           'observe (docs/design.md, section 9, says why each is still needed).',
           'Written by `scripts/mutant.sh` into docs/data/mutants/; "older series": the',
           'row was produced against an earlier state of patches/; "recovered": the',
           'row was read back from an earlier docs/results.md after its result file',
           'was lost (rerun `make mutants` to replace it).', '']
    if not files:
        return out + ['No results: run `make mutants`.']
    h = hashlib.sha256()
    with open(os.path.join(top, 'patches', 'series'), encoding='utf-8') as f:
        for name in (l.split('#', 1)[0].strip() for l in f):
            if not name:
                continue
            with open(os.path.join(top, 'patches', name), 'rb') as p:
                h.update(p.read())
    series = h.hexdigest()[:12]
    out += ['| mutant | file | what it breaks | lane | result | how |', '|---|---|---|---|---|---|']
    counts = {'killed': 0, 'survived': 0}
    for path in files:
        with open(path, encoding='utf-8') as f:
            r = json.load(f)
        if not os.path.exists(os.path.join(top, 'tests', 'mutants', r['name'] + '.mutation')):
            continue        # retired
        counts[r['verdict']] = counts.get(r['verdict'], 0) + 1
        when = '' if r['series'] == series else f' (older series, {r["date"]})'
        if r.get('recovered'):
            when += f' (recovered, {r["date"]})'
        out.append(f'| {r["name"]} | `{r["file"]}` | {r["why"]} | {r["lane"]} | '
                   f'{r["verdict"]}{when} | {r["detail"].replace("|", "/")[:160]} |')
    # a mutation written but not yet run through make mutants: said, not hidden
    seen = {os.path.basename(f)[:-5] for f in files}
    pending = []
    for mut in sorted(glob.glob(os.path.join(top, 'tests', 'mutants', '**', '*.mutation'),
                                recursive=True)):
        name = os.path.relpath(mut, os.path.join(top, 'tests', 'mutants'))[:-9]
        if name.replace('/', '+') not in seen:
            pending.append(name)
            out.append(f'| {name} | | | | not run yet | |')
    out += ['', f'{counts["killed"]} killed, {counts["survived"]} survived'
            + (f', {len(pending)} not run yet.' if pending else '.')]
    return out


def soak_table(soak: str, top: str) -> list[str]:
    """What the lanes of the last `make soak` did (bench/soak_record.py)."""
    import glob
    import json
    out = ['', '## Soak (`make soak MINUTES=M`)', '',
           'All at once for M minutes per lane (tests/guest/soak.sh): stress-ng',
           '(fork, exec, switch, futex, mmap, pipe; bogo ops), every CPU but the boot',
           'CPU offline and online in turn (cycles), the percpu_soak module',
           '(tests/modules/percpu_soak: objects of 32 B to 8 KiB allocated, updated',
           'through this_cpu ops from unbound threads and an hrtimer, their sums over',
           'CPUs checked, freed; chunks counted at the percpu tracepoints) and core',
           'text patching (the ktext_stress module: a tracepoint static key, a kprobe',
           'and an ftrace_ops per round). Then every CPU back online and the',
           'pcpu_pgtable and ktext_replication suites again. Alias pages: the range',
           'of `alias_mapped_pages` sampled every 5 s. Recorded by',
           '`bench/soak_record.py` in docs/data/soak/.', '']
    files = sorted(glob.glob(os.path.join(soak, '*.json')))
    if not files:
        return out + ['No results: run `make soak MINUTES=30`.']
    out += ['| lane | date | minutes | verdict (cases) | wall | CPUs, nodes | hotplug cycles | '
            'stress-ng bogo ops | text patch rounds (loads) | percpu objects, updates | '
            'chunks created, destroyed | alias pages |',
            '|---|---|---|---|---|---|---|---|---|---|---|---|']
    for path in files:
        with open(path, encoding='utf-8') as f:
            r = json.load(f)
        s = r.get('summary') or {}
        ng = s.get('stress_ng') or {}
        verdict = f'{r["verdict"]} ({r["passed"]} passed, {r["failed"]} failed, ' \
                  f'{r["skipped"]} skipped)'
        if r['reasons']:
            verdict += ': ' + '; '.join(r['reasons'])[:120].replace('|', '/')
        out.append(
            f'| {r["lane"]} | {r["date"]} | {s.get("secs", 0) // 60 if s else "?"} | {verdict} | '
            f'{r["wall_seconds"] // 60} min {r["wall_seconds"] % 60} s | '
            f'{s.get("cpus", "?")}, {s.get("nodes", "?")} | {s.get("hotplug_cycles", "?")} | '
            f'{", ".join(f"{k} {v}" for k, v in ng.items()) or "off"} | '
            f'{s.get("patch_rounds", "?")} ({s.get("text_loads", "?")}) | '
            f'{s.get("objects", "?")}, {s.get("updates", "?")} | '
            f'{s.get("chunks_created", "?")}, {s.get("chunks_destroyed", "?")} | '
            f'{s.get("alias_pages", "?")} |')
    # a lane of tests/matrix-soak with no record yet: said, not hidden
    sys.path.insert(0, os.path.join(top, 'scripts'))
    from harness import runner  # noqa: E402
    with open(os.path.join(top, 'tests', 'matrix-soak'), encoding='utf-8') as f:
        recorded = {os.path.basename(p)[:-5] for p in files}
        for lane in runner.parse_matrix(f.read(), 'tests/matrix-soak'):
            if lane.name not in recorded:
                out.append(f'| {lane.name} | | {lane.minutes} | not run yet | | | | | | | | |')
    with open(files[0], encoding='utf-8') as f:
        first = json.load(f)
    out += ['', f'Kernel {first["linux"]}, series {first["series"]}, {first["qemu"]}.']
    return out


if __name__ == '__main__':
    sys.exit(main())
