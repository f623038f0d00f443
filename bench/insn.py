#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""insn.py - kernel instructions per op, per variant, counted from outside
the guest by the kinsn TCG plugin.

  insn.py run [--matrix FILE] [--runs R] [--kernel K] [--out DIR]
      boot each lane of the matrix (default tests/matrix-bench) R times;
      each boot runs tests/guest/bench.sh; one JSON per boot in DIR
      (default build/bench/insn): the windows, with the stressor and ops
      each counted, and the plugin's totals.
  insn.py record [--out DIR] [--dest DIR]
      copy the passing runs of DIR into DEST (default docs/data/bench/insn,
      committed: docs/results.md is made from it), replacing what was there.
  insn.py table [DIR]
      the Markdown tables of docs/results.md on stdout: per this_cpu op and
      lane, the kernel instructions of one call next to its floor; per
      stressor and lane, kernel instructions per op (mean, and the spread
      over the runs), the ratio to the vanilla lane; per vCPU and lane, the
      share of kernel instructions fetched from the vCPU's own node.

A stressor's per-op figure is (K(2N) - K(N)) / N, K being the kernel
instructions all vCPUs executed in the window: stress-ng's own start and
exit cancel out.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import statistics
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
from harness import runner, topology  # noqa: E402

BUILD = os.environ.get('BUILD', os.path.join(TOP, 'build'))
def cmd_run(args: argparse.Namespace) -> int:
    with open(args.matrix, encoding='utf-8') as f:
        lanes = runner.parse_matrix(f.read(), os.path.relpath(args.matrix, TOP))
    if args.kernel:
        lanes = [l for l in lanes if l.kernel == args.kernel]
        if not lanes:
            print(f'error: no lane of kernel {args.kernel!r} in {args.matrix}', file=sys.stderr)
            return 2
    bad = [l.name for l in lanes if not l.kinsn or 'bench' not in l.tests]
    if bad:
        print(f'error: {args.matrix}: lanes without kinsn or the bench test: {", ".join(bad)}',
              file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    series, qemu = runner.series_hash(TOP), runner.qemu_banner()
    total, done, start, failed = len(lanes) * args.runs, 0, time.monotonic(), 0
    for run in range(args.runs):
        for lane in lanes:
            left = ''
            if done:
                left = f', about {(time.monotonic() - start) / done * (total - done) / 60:.0f} min left'
            print(f'  BENCH    {lane.name} run {run + 1}/{args.runs} ({done}/{total}{left})',
                  flush=True)
            res = runner.boot(lane, TOP, BUILD, quiet=True)
            done += 1
            with open(os.path.join(os.path.dirname(BUILD), res.log), encoding='utf-8',
                      errors='replace') as f:
                console = f.read()
            version = re.search(r'Linux version (\S+)', console)
            topo = topology.load(os.path.join(TOP, 'numa-topologies', lane.topo + '.topo'))
            rec = {'lane': lane.name, 'kernel': lane.kernel, 'topology': lane.topo,
                   'vcpu_node': [nid for _, nid in sorted((c, n.nid) for n in topo.nodes
                                                          for c in topo.cpus_of(n.nid))],
                   'node_home': [home_node(topo, n.nid) for n in topo.nodes],
                   'append': lane.append, 'run': run + 1, 'verdict': res.verdict,
                   'reasons': res.reasons, 'seconds': round(res.seconds, 1),
                   'date': time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
                   'linux': version.group(1) if version else 'unknown',
                   'series': series, 'qemu': qemu}
            rec.update(status_of(console))
            rec.update(res.kinsn or {})
            if 'perf' in rec:
                rec['perf_per_op'] = perf_per_op(rec)
            if res.verdict != 'PASS' or 'per_op' not in rec:
                print(f'  FAIL     {lane.name} run {run + 1}: '
                      f'{"; ".join(res.reasons) or "a bench case failed"}', flush=True)
                rec['verdict'], failed = 'FAIL', failed + 1
            with open(os.path.join(args.out, f'{lane.name}.run{run + 1}.json'), 'w',
                      encoding='utf-8') as f:
                json.dump(rec, f, indent=1)
    print(f'{total - failed} passed, {failed} failed')
    return 1 if failed else 0


def home_node(topo: topology.Topology, nid: int) -> int:
    """The node whose memory a node's CPUs should fetch text from: its own,
    or for a node without memory the nearest one with memory (the lowest
    id on a tie), as the series picks a copy's source node."""
    if topo.nodes[nid].mem_mb:
        return nid
    return min((topo.distance[nid][m.nid], m.nid) for m in topo.nodes if m.mem_mb)[1]


STATUS = re.compile(r'#\s*bench: status (boot|after) (\S+) (\S+) (-?\d+)\s*$')
INIT = re.compile(r'#\s*bench: init_seconds (\d+\.\d+)\s*$')
PERF = re.compile(r'#\s*bench: perf (\d+) (\d+) (\d+)\s*$')


def status_of(console: str) -> dict:
    """bench.sh's copies of the series' debugfs status files, at boot and
    after the benchmark ({'status': {'boot': {'pcpu_pgtable': {KEY: V}}}}),
    and the guest clock when init started ('init_seconds')."""
    out: dict = {}
    for line in console.splitlines():
        m = STATUS.search(line)
        if m:
            out.setdefault('status', {}).setdefault(m.group(1), {}).setdefault(
                m.group(2), {})[m.group(3)] = int(m.group(4))
        m = INIT.search(line)
        if m and 'init_seconds' not in out:
            out['init_seconds'] = float(m.group(1))
        m = PERF.search(line)
        if m:
            out.setdefault('perf', {})[m.group(1)] = [int(m.group(2)), int(m.group(3))]
    return out


def perf_per_op(rec: dict) -> dict[str, float]:
    """Stressor -> instructions:k per op as the guest's perf events counted
    them for the stressor's own tasks (bench_perf=1), (P(2N) - P(N)) / N
    over the same windows as the plugin's figure."""
    out = {}
    by: dict[str, list[dict]] = {}
    for w in rec.get('windows', []):
        by.setdefault(w['stressor'], []).append(w)
    for s, ws in by.items():
        if len(ws) == 2 and all(str(w['window']) in rec.get('perf', {}) for w in ws):
            k = [rec['perf'][str(w['window'])][0] for w in ws]
            out[s] = (k[1] - k[0]) / ws[0]['ops']
    return out


def load(d: str) -> dict[str, list[dict]]:
    runs: dict[str, list[dict]] = {}
    for p in sorted(glob.glob(os.path.join(d, '*.run*.json'))):
        with open(p, encoding='utf-8') as f:
            r = json.load(f)
        if r['verdict'] == 'PASS':
            runs.setdefault(r['lane'], []).append(r)
    return runs


# the this_cpu ops of the module's loops, and their floors (floor_NAME)
OPS = ['read', 'write', 'inc', 'inc_ptr', 'add_return', 'xchg', 'cmpxchg', 'cmpxchg128']


CONFIGS = {'': 'configs/base.config',
           'real': 'configs/base.config + configs/realistic.config',
           'distro': "Debian's config.arm64_none_arm64, modules dropped, + configs/distro.config",
           'distro-dynamic': "Debian's config.arm64_none_arm64, modules dropped, "
                             '+ configs/distro.config + configs/preempt-dynamic.config'}


def family(kernel: str) -> str:
    """The configuration a kernel is built from, whatever its source and
    this_cpu choice: '' (base), 'real', 'distro' or 'distro-dynamic'."""
    k = kernel.removeprefix('vanilla').lstrip('-')
    for v in ('patched', 'kseq', 'stock'):
        if k == v or k.startswith(v + '-'):
            return k[len(v) + 1:]
    return k


def config_of(runs: dict[str, list[dict]]) -> str:
    """The configuration the runs' kernels were built from."""
    fams = sorted({family(r['kernel']) for rs in runs.values() for r in rs})
    if len(fams) == 1:
        return CONFIGS.get(fams[0], fams[0])
    return '; '.join(f'{CONFIGS.get(f, f)} for the {f or "base"} kernels' for f in fams)


def count_range(counts: list[int]) -> str:
    """"3", or "2-3" when the lanes have different numbers of runs."""
    lo, hi = min(counts), max(counts)
    return f'{lo}' if lo == hi else f'{lo}-{hi}'


def series_of(runs: dict[str, list[dict]], lanes: list[str]) -> str:
    """The series the runs' patched kernels were built from (vanilla
    kernels have none): one hash, or each hash with the lanes built from
    it, when the lanes were recorded at different times."""
    seen: dict[str, list[str]] = {}
    for lane in lanes:
        if runs[lane][0]['kernel'].startswith('vanilla'):
            continue
        for h in dict.fromkeys(r.get('series', '?') for r in runs[lane]):
            seen.setdefault(h, []).append(label(runs, lane))
    if len(seen) <= 1:
        return next(iter(seen), runs[lanes[0]][0].get('series', '?'))
    return '; '.join(f'{h} ({", ".join(ls)})' for h, ls in seen.items())


def preempt_of(runs: dict[str, list[dict]], lane: str) -> str:
    """The preempt= boot option of a lane, if any."""
    return next((w for w in runs[lane][0].get('append', '').split()
                 if w.startswith('preempt=')), '')


def bases(runs: dict[str, list[dict]], lanes: list[str]) -> dict[str, str | None]:
    """Each lane's reference: the vanilla lane of the same configuration and
    preempt= boot option (the first in table order), or None."""
    out = {}
    for l in lanes:
        key = (family(runs[l][0]['kernel']), preempt_of(runs, l))
        out[l] = next((b for b in lanes if runs[b][0]['kernel'].startswith('vanilla') and
                       (family(runs[b][0]['kernel']), preempt_of(runs, b)) == key), None)
    return out


def label(runs: dict[str, list[dict]], lane: str) -> str:
    """A lane's variant: its kernel, and its boot options if any."""
    r = runs[lane][0]
    opts = [w for w in r.get('append', '').split() if not w.startswith('bench_')]
    return ' '.join([r['kernel']] + opts)


# variants in table order: the base, the stock choice, the series (its
# boot options after it), kseq; then any other kernel
KERNELS = ['vanilla', 'stock', 'patched', 'kseq']


def order(runs: dict[str, list[dict]]) -> list[str]:
    """Lanes in table order: by kernel as in KERNELS, then boot options."""
    def key(l: str) -> tuple:
        k = runs[l][0]['kernel']
        fam = family(k)
        v = k.removesuffix('-' + fam) if fam else k
        if fam and k == fam:
            v = 'patched'   # distro, distro-dynamic: the series
        return (fam, preempt_of(runs, l), KERNELS.index(v) if v in KERNELS else len(KERNELS),
                k, label(runs, l))
    return sorted(runs, key=key)


def floor_of(op: str) -> str:
    """The floor loop of an op: a dynamic pointer's inc has inc's."""
    return 'floor_' + ('inc' if op == 'inc_ptr' else op)


def op_cost(per_op: dict[str, float], name: str) -> float | None:
    """Instructions of one call of loop NAME beyond the empty loop's call."""
    if f'op:{name}' not in per_op or 'op:empty' not in per_op:
        return None
    return per_op[f'op:{name}'] - per_op['op:empty']


def op_table(runs: dict[str, list[dict]], lanes: list[str]) -> None:
    """The in-kernel loops: exact counts, so one run's figure per lane, and
    a lane whose runs disagree is reported, not averaged."""
    print('| this_cpu op | floor | ' + ' | '.join(label(runs, l) for l in lanes) + ' |')
    print('|---' * (len(lanes) + 2) + '|')
    for op in OPS:
        cells = []
        for name in (floor_of(op), op):
            for l in lanes if name == op else lanes[:1]:
                v = {op_cost(r['per_op'], name) for r in runs[l]} - {None}
                cells.append('-' if not v else
                             f'{v.pop():g}' if len(v) == 1 else
                             'runs differ: ' + ', '.join(f'{x:g}' for x in sorted(v)))
        print(f'| {op} | ' + ' | '.join(cells) + ' |')
    print('\nkernel instructions per call, the loop and call of an empty function '
          'subtracted; interrupts off, one CPU (exact: every run gives the same); floor: '
          'the address materialisation and the one memory or LSE instruction, on a plain '
          'global\n')


def perf_table(runs: dict[str, list[dict]], lanes: list[str], stressors: list[str]) -> None:
    """The plugin's count next to the guest's own perf events."""
    print('| stressor | ' + ' | '.join(label(runs, l) for l in lanes) + ' |')
    print('|---' * (len(lanes) + 1) + '|')
    for s in stressors:
        cells = []
        for l in lanes:
            pairs = [(r['per_op'][s], r['perf_per_op'][s]) for r in runs[l]
                     if s in r.get('perf_per_op', {}) and s in r['per_op']]
            if not pairs:
                cells.append('-')
                continue
            k = statistics.mean(p for _, p in pairs)
            share = statistics.mean(p / k_ for k_, p in pairs)
            cells.append(f'{k:,.0f} ({100 * share:.0f}%)')
        print(f'| {s} | ' + ' | '.join(cells) + ' |')
    print('\ninstructions:k per op counted in the guest by perf events (the PMU QEMU '
          'emulates; kmark -p) for the stressor\'s own tasks, and in brackets that as a '
          'share of the plugin\'s count of every vCPU over the same windows; mean over the '
          'runs\n')
    # a task's perf count can only be below every vCPU's count of the
    # same window, unless the PMU counts more than the task
    over = {}
    for rs in runs.values():
        for r in rs:
            for w in r.get('windows', []):
                p = r.get('perf', {}).get(str(w['window']))
                if p and w['user'] and p[1] > w['user']:
                    over.setdefault(w['stressor'], []).append(p[1] / w['user'])
    if over:
        print('instructions:u above the plugin\'s user instructions of every vCPU in the same '
              'window (impossible for a per-CPU counter): '
              + '; '.join(f'{s} in {len(v)} windows, {min(v):.3f} to {max(v):.3f} times'
                          for s, v in sorted(over.items())) + '.\n')


def locality(r: dict) -> list[float]:
    """Per vCPU: the share of its kernel instructions, over the whole boot
    (the plugin's total), fetched from its own node's memory."""
    out = []
    for cpu, row in enumerate(r['total']):
        node = r['vcpu_node'][cpu]
        out.append(row['nodes'][node] / row['kernel'] if row['kernel'] else 0.0)
    return out


def locality_table(runs: dict[str, list[dict]], lanes: list[str]) -> None:
    print('| lane | topology | ' + ' | '.join(f'vCPU {c} (node {n})' for c, n in
                                              enumerate(runs[lanes[0]][0]['vcpu_node'])) + ' |')
    print('|---' * (len(runs[lanes[0]][0]['vcpu_node']) + 2) + '|')
    for l in lanes:
        shares = [locality(r) for r in runs[l]]
        cells = [f'{100 * statistics.mean(s[c] for s in shares):.1f}%'
                 for c in range(len(shares[0]))]
        print(f'| {label(runs, l)} | {runs[l][0]["topology"]} | ' + ' | '.join(cells) + ' |')
    print('\nshare of each vCPU\'s kernel instructions, from power-on to power-off, '
          'fetched from its own node\'s memory (QEMU memory-backend-file per node, the '
          'kinsn plugin mapping each fetch\'s host address to its node), mean over the runs\n')


def cmd_record(args: argparse.Namespace) -> int:
    runs = load(args.out)
    if not runs:
        print(f'error: no passing bench runs under {args.out} (insn.py run)', file=sys.stderr)
        return 2
    os.makedirs(args.dest, exist_ok=True)
    # the lanes run here replace their earlier record; other lanes' runs
    # (make bench-distro KERNEL=distro-dynamic, say) stay
    for old in glob.glob(os.path.join(args.dest, '*.json')):
        if os.path.basename(old).rsplit('.run', 1)[0] in runs:
            os.unlink(old)
    n = 0
    for rs in runs.values():
        for r in rs:
            shutil.copy(os.path.join(args.out, f'{r["lane"]}.run{r["run"]}.json'), args.dest)
            n += 1
    kept = {os.path.basename(p).rsplit('.run', 1)[0]
            for p in glob.glob(os.path.join(args.dest, '*.json'))} - set(runs)
    print(f'  RECORD   {n} runs of {len(runs)} lanes in {os.path.relpath(args.dest, TOP)}'
          + (f' (kept the earlier runs of {len(kept)} other lanes)' if kept else ''))
    return 0


def cmd_table(args: argparse.Namespace) -> int:
    runs = load(args.dir)
    if not runs:
        print(f'error: no passing bench runs under {args.dir} (insn.py run)', file=sys.stderr)
        return 2
    lanes = order(runs)
    r0 = runs[lanes[0]][0]
    print(f'Linux {r0.get("linux", "?")}, series {series_of(runs, lanes)}, '
          f'{r0.get("qemu", "?")}, topology {r0["topology"]}, {config_of(runs)}; '
          f'{count_range([len(r) for r in runs.values()])} runs per lane, '
          f'the last on {max(r["date"] for rs in runs.values() for r in rs)}.\n')
    if any(s.startswith('op:') for rs in runs.values() for r in rs for s in r['per_op']):
        op_table(runs, lanes)
    stressors = sorted({s for rs in runs.values() for r in rs for s in r['per_op']
                        if ':' not in s})
    base = bases(runs, lanes)
    print('| stressor | ' + ' | '.join(label(runs, l) for l in lanes) + ' |')
    print('|---' * (len(lanes) + 1) + '|')
    for s in stressors:
        cells = []
        for l in lanes:
            v = [r['per_op'][s] for r in runs[l] if s in r['per_op']]
            if not v:
                cells.append('-')
                continue
            m = statistics.mean(v)
            cell = f'{m:,.0f}'
            if len(v) > 1:
                cell += f' ± {statistics.stdev(v):,.0f}'
            b = base[l]
            ref = [r['per_op'][s] for r in runs[b] if s in r['per_op']] if b else []
            if ref and l != b:
                cell += f' ({m / statistics.mean(ref):.3f})'
            cells.append(cell)
        print(f'| {s} | ' + ' | '.join(cells) + ' |')
    refs = sorted({b for b in base.values() if b}, key=lanes.index)
    print('\nkernel instructions per op, all vCPUs; mean ± stdev over the runs'
          + (f' (ratio to {label(runs, refs[0])})' if len(refs) == 1 else
             ' (ratio to the vanilla lane of the same configuration and preempt= option: '
             + ', '.join(label(runs, b) for b in refs) + ')' if refs else '') + '\n')
    if any(r.get('perf_per_op') for rs in runs.values() for r in rs):
        perf_table(runs, lanes, stressors)
    if all('vcpu_node' in r for rs in runs.values() for r in rs):
        locality_table(runs, lanes)
    reading(runs, lanes, stressors, base)
    return 0


def reading(runs: dict[str, list[dict]], lanes: list[str], stressors: list[str],
            base: dict[str, str | None]) -> None:
    """What the tables show, in numbers computed from them."""
    out = []
    floors = {op: op_cost(runs[lanes[0]][0]['per_op'], floor_of(op)) for op in OPS}
    spans = []
    for l in lanes:
        over = [op_cost(runs[l][0]['per_op'], op) - floors[op] for op in OPS
                if op_cost(runs[l][0]['per_op'], op) is not None and floors[op] is not None]
        if over:
            spans.append(f'{label(runs, l)} {min(over):g} to {max(over):g}')
    if spans:
        out.append('Per this_cpu op, instructions beyond the floor: ' + '; '.join(spans) + '.')
    for b in sorted({b for b in base.values() if b and len(runs[b]) > 1}, key=lanes.index):
        spread = {s: statistics.stdev(r['per_op'][s] for r in runs[b]) /
                  statistics.mean(r['per_op'][s] for r in runs[b]) for s in stressors
                  if all(s in r['per_op'] for r in runs[b])}
        steady = [s for s in spread if spread[s] < 0.02]
        noisy = [f'{s} ({100 * spread[s]:.1f}%)' for s in spread if s not in steady]
        out.append(f'Run to run, {label(runs, b)} varies by less than 2% (stdev over mean) '
                   f'on {", ".join(steady) or "no stressor"}'
                   + (f', and by more on {", ".join(noisy)}' if noisy else '') + '.')
        for l in lanes:
            if l == b or base[l] != b:
                continue
            ratios = [statistics.mean(r['per_op'][s] for r in runs[l]) /
                      statistics.mean(r['per_op'][s] for r in runs[b]) for s in steady
                      if all(s in r['per_op'] for r in runs[l])]
            if ratios:
                out.append(f'{label(runs, l)}: {min(ratios):.3f} to {max(ratios):.3f} times '
                           f'{label(runs, b)}\'s kernel instructions on those.')
    for l in lanes:
        if all('vcpu_node' in r for r in runs[l]):
            far = [c for c, n in enumerate(runs[l][0]['vcpu_node']) if n != 0]
            if far:
                own = statistics.mean(locality(r)[c] for r in runs[l] for c in far)
                out.append(f'{label(runs, l)}: the vCPUs outside node 0 (where the image is '
                           f'loaded) fetch {100 * own:.1f}% of their kernel instructions from '
                           'their own node.')
    print('\n'.join(out) + '\n')


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('run')
    p.add_argument('--matrix', default=os.path.join(TOP, 'tests', 'matrix-bench'))
    p.add_argument('--runs', type=int, default=1)
    p.add_argument('--kernel', default='')
    p.add_argument('--out', default=os.path.join(BUILD, 'bench', 'insn'))
    p = sub.add_parser('record')
    p.add_argument('--out', default=os.path.join(BUILD, 'bench', 'insn'))
    p.add_argument('--dest', default=os.path.join(TOP, 'docs', 'data', 'bench', 'insn'))
    p = sub.add_parser('table')
    p.add_argument('dir', nargs='?', default=os.path.join(BUILD, 'bench', 'insn'))
    args = ap.parse_args()
    if args.cmd == 'run':
        if args.runs < 1:
            print(f'error: --runs {args.runs}: at least one', file=sys.stderr)
            return 2
        return cmd_run(args)
    if args.cmd == 'record':
        return cmd_record(args)
    return cmd_table(args)


if __name__ == '__main__':
    sys.exit(main())
