#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""topo.py [--json FILE] [DIR...] - the tables of make bench-topo (runs of
tests/matrix-bench-topo and -topo-big by insn.py run, one JSON per boot in
each DIR, default docs/data/bench/topo and topo-big), in Markdown on stdout:

  locality  per topology and variant, the share of each vCPU's kernel
            instructions fetched from its home node's memory (its own node,
            or for a node without memory the nearest node with memory, the
            node the series takes its text copy from): mean and lowest over
            the vCPUs, over the whole boot and over the fork windows;
  memory    per topology, what the series' tables and text copies take, at
            boot and after the benchmark (the debugfs status files);
  price     per price case and topology, kernel instructions per operation,
            every vCPU counted, vanilla and the series, and their ratio.

--json writes the numbers the plots (bench/plot.py) draw.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import insn  # noqa: E402

TOP = insn.TOP
PRICE = ['alloc_free', 'chunk', 'kprobe', 'static_key', 'online', 'modload']
PRICE_WHAT = {
    'alloc_free': 'alloc_percpu() + free_percpu() of 8 bytes',
    'chunk': 'new chunks: 16 x 32 KiB allocated and freed, balance work',
    'kprobe': 'kprobe on core text armed and disarmed',
    'static_key': 'sched_schedstats on and off (static key in core text)',
    'online': 'the last CPU offline and online again',
    'modload': 'insmod + rmmod of this_cpu_ops.ko (two execs)',
}


def load(dirs: list[str]) -> dict[str, list[dict]]:
    """The passing runs of every DIR (a lane in two of them: both's runs)."""
    runs: dict[str, list[dict]] = {}
    for d in dirs:
        for lane, rs in insn.load(d).items():
            runs.setdefault(lane, []).extend(rs)
    return runs


def topo_key(runs: dict[str, list[dict]], lane: str) -> tuple:
    r = runs[lane][0]
    return (len(r['vcpu_node']), len(r['node_home']), r['topology'])


def topologies(runs: dict[str, list[dict]]) -> list[str]:
    seen: dict[str, tuple] = {}
    for l in runs:
        seen.setdefault(runs[l][0]['topology'], topo_key(runs, l))
    return sorted(seen, key=lambda t: seen[t])


def lane_of(runs: dict[str, list[dict]], topo: str, kernel: str) -> str | None:
    for l in insn.order(runs):
        r = runs[l][0]
        if r['topology'] == topo and r['kernel'] == kernel:
            return l
    return None


def shares(r: dict, rows: list[dict]) -> list[float]:
    """Per vCPU, the share of its kernel instructions in ROWS (one per
    vCPU: {'kernel', 'nodes'}) fetched from its home node."""
    out = []
    for cpu, row in enumerate(rows):
        home = r['node_home'][r['vcpu_node'][cpu]]
        out.append(row['nodes'][home] / row['kernel'] if row['kernel'] else 0.0)
    return out


def workload_rows(r: dict, stressor: str) -> list[dict] | None:
    """Per vCPU, the counts of the stressor's windows added up."""
    ws = [w for w in r.get('windows', []) if w['stressor'] == stressor and 'vcpus' in w]
    if not ws:
        return None
    n = len(ws[0]['vcpus'])
    return [{'kernel': sum(w['vcpus'][c]['kernel'] for w in ws),
             'nodes': [sum(w['vcpus'][c]['nodes'][i] for w in ws)
                       for i in range(len(ws[0]['vcpus'][c]['nodes']))]} for c in range(n)]


def locality(runs: dict[str, list[dict]], topos: list[str], data: dict) -> list[str]:
    out = []
    out.append('| topology | vCPUs | nodes | variant | boot: mean | boot: lowest vCPU '
               '| fork: mean | fork: lowest vCPU |')
    out.append('|---' * 8 + '|')
    for t in topos:
        for k in ('vanilla', 'patched'):
            l = lane_of(runs, t, k)
            if not l:
                continue
            boot = [shares(r, r['total']) for r in runs[l]]
            fork = [shares(r, rows) for r in runs[l]
                    if (rows := workload_rows(r, 'fork')) is not None]
            b = [statistics.mean(s[c] for s in boot) for c in range(len(boot[0]))]
            f = [statistics.mean(s[c] for s in fork) for c in range(len(fork[0]))] if fork else []
            r0 = runs[l][0]
            data.setdefault('locality', {}).setdefault(t, {})[k] = {
                'boot': b, 'fork': f, 'vcpu_node': r0['vcpu_node'], 'node_home': r0['node_home']}
            cells = [f'{100 * statistics.mean(b):.1f}%', f'{100 * min(b):.1f}%']
            cells += [f'{100 * statistics.mean(f):.1f}%', f'{100 * min(f):.1f}%'] if f else ['-', '-']
            out.append(f'| {t} | {len(r0["vcpu_node"])} | {len(r0["node_home"])} | {k} | '
                       + ' | '.join(cells) + ' |')
    out.append('\nshare of each vCPU\'s kernel instructions fetched from its home node\'s memory '
               '(its own node, or for a node without memory the nearest node with memory); '
               'boot: power-on to power-off; fork: the two fork windows; mean over the vCPUs '
               'and the lowest vCPU, each the mean over the runs\n')
    return out


def st(r: dict, when: str, f: str, key: str) -> int | None:
    return r.get('status', {}).get(when, {}).get(f, {}).get(key)


def memory(runs: dict[str, list[dict]], topos: list[str], data: dict) -> list[str]:
    out = []
    out.append('| topology | vCPUs | nodes | text copies | tables at boot: bytes/CPU '
               '| after: bytes/CPU | after: all tables | per copy: text + rodata + node tables '
               '| all copies |')
    out.append('|---' * 9 + '|')
    for t in topos:
        l = lane_of(runs, t, 'patched')
        if not l:
            continue
        r = runs[l][0]
        cpus, nodes = len(r['vcpu_node']), len(r['node_home'])
        boot = st(r, 'boot', 'pcpu_pgtable', 'table_bytes_per_cpu')
        after = st(r, 'after', 'pcpu_pgtable', 'table_bytes_per_cpu')
        total = st(r, 'after', 'pcpu_pgtable', 'table_bytes_total')
        copies = st(r, 'after', 'ktext_replication', 'copies') or 0
        repl = sum(st(r, 'after', 'ktext_replication', k) or 0
                   for k in ('replica_bytes_total', 'rodata_bytes_total', 'table_bytes_total'))
        data.setdefault('memory', {})[t] = {
            'cpus': cpus, 'nodes': nodes, 'copies': copies, 'boot_per_cpu': boot,
            'after_per_cpu': after, 'tables_total': total, 'copies_total': repl}
        per_copy = f'{repl // copies:,}' if copies else '-'
        out.append(f'| {t} | {cpus} | {nodes} | {copies} | {boot or 0:,} | {after or 0:,} '
                   f'| {total or 0:,} | {per_copy} | {repl:,} |')
    out.append('\nbytes, from debugfs pcpu_pgtable/status and ktext_replication/status read by '
               'tests/guest/bench.sh at boot and after its cases; a copy is one node\'s text and '
               'rodata, and the node tables that map it; the node of the kernel image runs the '
               'image itself and has no copy\n')
    return out


def price(runs: dict[str, list[dict]], topos: list[str], data: dict) -> list[str]:
    out = []
    out.append('| case | ' + ' | '.join(topos) + ' |')
    out.append('|---' * (len(topos) + 1) + '|')
    rows = [(p, PRICE_WHAT[p]) for p in PRICE] + [('init', 'guest clock at init, seconds')]
    for p, what in rows:
        cells = []
        for t in topos:
            lv, lp = lane_of(runs, t, 'vanilla'), lane_of(runs, t, 'patched')
            if p == 'init':
                vals = [[r['init_seconds'] for r in runs[l] if 'init_seconds' in r]
                        if l else [] for l in (lv, lp)]
            else:
                vals = [[r['per_op'][f'price:{p}'] for r in runs[l]
                         if f'price:{p}' in r['per_op']] if l else [] for l in (lv, lp)]
            if not vals[0] or not vals[1]:
                cells.append('-')
                continue
            v, s = statistics.mean(vals[0]), statistics.mean(vals[1])
            data.setdefault('price', {}).setdefault(p, {})[t] = {
                'vanilla': v, 'patched': s,
                'copies': st(runs[lp][0], 'after', 'ktext_replication', 'copies') or 0}
            fmt = (lambda x: f'{x:.3f}') if p == 'init' else (lambda x: f'{x:,.0f}')
            cells.append(f'{fmt(v)} / {fmt(s)} ({s / v:.2f})')
        out.append(f'| {p}: {what} | ' + ' | '.join(cells) + ' |')
    out.append('\nvanilla / series (ratio), kernel instructions per operation, every vCPU counted '
               '((K(2N) - K(N)) / N); init: the guest clock (-icount: instructions) when init '
               'started; mean over the runs\n')
    # what each text copy adds to a case that patches core text
    for p in ('static_key', 'kprobe'):
        per = [(t, (d['patched'] - d['vanilla']) / d['copies'])
               for t, d in data.get('price', {}).get(p, {}).items() if d['copies']]
        if per:
            out.append(f'{p}: the series minus vanilla, per text copy: '
                       + ', '.join(f'{t} {v:+,.0f}' for t, v in per) + '.')
    out.append('')
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--json', help='the plotted numbers, as JSON')
    ap.add_argument('dirs', nargs='*', metavar='DIR',
                    default=[os.path.join(TOP, 'docs', 'data', 'bench', d)
                             for d in ('topo', 'topo-big')])
    args = ap.parse_args()
    runs = load(args.dirs)
    if not runs:
        print(f'error: no passing runs under {", ".join(args.dirs)} (make bench-topo)',
              file=sys.stderr)
        return 2
    topos = topologies(runs)
    r0 = next(iter(runs.values()))[0]
    n = [len(rs) for rs in runs.values()]
    print(f'Linux {r0.get("linux", "?")}, series {r0.get("series", "?")}, {r0.get("qemu", "?")}, '
          f'configs/base.config; {min(n)}-{max(n)} runs per lane, the last on '
          f'{max(r["date"] for rs in runs.values() for r in rs)}.\n')
    data: dict = {}
    print('\n'.join(locality(runs, topos, data) + memory(runs, topos, data)
                    + price(runs, topos, data)))
    if args.json:
        with open(args.json, 'w', encoding='utf-8') as f:
            json.dump(data, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
