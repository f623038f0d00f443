#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""plot.py - the PNG plots of docs/results.md, from the recorded bench runs.

  /usr/bin/python3 bench/plot.py [--data DIR] [--out DIR]

Reads the runs `bench/insn.py record` keeps (default docs/data/bench/insn)
and writes into DIR (default docs/img):
  bench-ops.png       instructions per this_cpu op call, per variant, next
                      to the floor (the in-kernel loops of bench/this_cpu_ops)
  bench-locality.png  per vCPU, the share of kernel instructions fetched
                      from the vCPU's own node, per variant
and from the runs of make bench-topo and bench-topo-big (default
docs/data/bench/topo and topo-big, bench/topo.py's numbers):
  bench-topo-locality.png  per topology and vCPU, the share fetched from
                      the home node during fork, vanilla and the series
  bench-memory.png    table bytes per CPU against vCPUs, with the Ampere
                      series' figure (about 2 MB for 160 CPUs), and the
                      bytes of one text copy and of all copies against nodes
  bench-price.png     the series' kernel instructions over vanilla's, per
                      price case, per topology
Debian's python3-matplotlib (make bench installs it) is a module of
Debian's /usr/bin/python3, hence the interpreter named above.
"""

from __future__ import annotations

import argparse
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, 'bench'))
import insn  # noqa: E402
import topo  # noqa: E402

# "about 2 MB on 160 cores": the per-CPU page tables of the Ampere series
# (prior-art.md), drawn for comparison
AMPERE_BYTES, AMPERE_CPUS = 2 << 20, 160


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--data', default=os.path.join(TOP, 'docs', 'data', 'bench', 'insn'))
    ap.add_argument('--topo', nargs='*', default=[os.path.join(TOP, 'docs', 'data', 'bench', d)
                                                  for d in ('topo', 'topo-big')])
    ap.add_argument('--out', default=os.path.join(TOP, 'docs', 'img'))
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        print(f'error: no matplotlib for {sys.executable}: make bench installs Debian\'s '
              'python3-matplotlib, for /usr/bin/python3', file=sys.stderr)
        return 2
    runs = insn.load(args.data)
    truns = topo.load(args.topo)
    if not runs and not truns:
        print(f'error: no recorded bench runs in {args.data} or {args.topo} '
              '(bench/insn.py record)', file=sys.stderr)
        return 2
    lanes = insn.order(runs)
    os.makedirs(args.out, exist_ok=True)
    written = topo_plots(plt, truns, args.out) if truns else []

    # 1. this_cpu ops: floor, then one bar per variant
    ops = [op for op in insn.OPS
           if any(insn.op_cost(r['per_op'], op) is not None for rs in runs.values() for r in rs)]
    if ops:
        series = [('floor', [insn.op_cost(runs[lanes[0]][0]['per_op'], insn.floor_of(op)) or 0
                             for op in ops])]
        series += [(insn.label(runs, l), [insn.op_cost(runs[l][0]['per_op'], op) or 0
                                          for op in ops]) for l in lanes]
        fig, ax = plt.subplots(figsize=(11, 4.5))
        width = 0.8 / len(series)
        for i, (name, vals) in enumerate(series):
            ax.bar([x + i * width for x in range(len(ops))], vals, width, label=name)
        ax.set_xticks([x + width * (len(series) - 1) / 2 for x in range(len(ops))])
        ax.set_xticklabels([f'this_cpu_{op}' for op in ops], rotation=20, ha='right')
        ax.set_ylabel('instructions per call')
        ax.set_title('this_cpu ops: kernel instructions per call (kinsn, exact), '
                     'the empty call subtracted')
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = os.path.join(args.out, 'bench-ops.png')
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)

    # 2. locality: per vCPU, one bar per variant
    with_nodes = [l for l in lanes if all('vcpu_node' in r for r in runs[l])]
    if with_nodes:
        ncpu = len(runs[with_nodes[0]][0]['vcpu_node'])
        fig, ax = plt.subplots(figsize=(9, 4))
        width = 0.8 / len(with_nodes)
        for i, l in enumerate(with_nodes):
            shares = [insn.locality(r) for r in runs[l]]
            vals = [100 * sum(s[c] for s in shares) / len(shares) for c in range(ncpu)]
            ax.bar([x + i * width for x in range(ncpu)], vals, width, label=insn.label(runs, l))
        nodes = runs[with_nodes[0]][0]['vcpu_node']
        ax.set_xticks([x + width * (len(with_nodes) - 1) / 2 for x in range(ncpu)])
        ax.set_xticklabels([f'vCPU {c}\nnode {nodes[c]}' for c in range(ncpu)])
        ax.set_ylabel('% of kernel instructions from own node')
        ax.set_ylim(0, 100)
        ax.set_title(f'Kernel instruction fetches from the vCPU\'s own node '
                     f'({runs[with_nodes[0]][0]["topology"]}, power-on to power-off)')
        ax.legend(fontsize=8, loc='lower right')
        fig.tight_layout()
        path = os.path.join(args.out, 'bench-locality.png')
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    for p in written:
        print(f'  PLOT     {os.path.relpath(p, TOP)}')
    return 0


def topo_plots(plt, runs: dict[str, list[dict]], out: str) -> list[str]:
    """The plots of make bench-topo, from bench/topo.py's numbers."""
    data: dict = {}
    topos = topo.topologies(runs)
    topo.locality(runs, topos, data)
    topo.memory(runs, topos, data)
    topo.price(runs, topos, data)
    written = []

    loc = data.get('locality', {})
    if loc:
        fig, axes = plt.subplots(len(loc), 1, figsize=(11, 2.2 * len(loc)), squeeze=False)
        for ax, (t, by) in zip(axes[:, 0], loc.items()):
            for i, k in enumerate(('vanilla', 'patched')):
                if k not in by:
                    continue
                vals = [100 * x for x in (by[k]['fork'] or by[k]['boot'])]
                ax.bar([c - 0.2 + 0.4 * i for c in range(len(vals))], vals, 0.4,
                       label='vanilla' if k == 'vanilla' else 'series')
                n = len(vals)
            ax.set_xticks(range(0, n, max(1, n // 16)))
            ax.set_ylim(0, 105)
            ax.set_ylabel('%')
            when = 'during fork' if any(by[k]['fork'] for k in by) else 'power-on to power-off'
            ax.set_title(f'{t}: kernel fetches from the home node {when}, per vCPU',
                         fontsize=9)
            ax.tick_params(labelsize=7)
        axes[0, 0].legend(fontsize=8, loc='lower right')
        axes[-1, 0].set_xlabel('vCPU')
        fig.tight_layout()
        written.append(save(plt, fig, out, 'bench-topo-locality.png'))

    mem = data.get('memory', {})
    if mem:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
        pts = sorted((m['cpus'], m['after_per_cpu'] or 0, t) for t, m in mem.items())
        a1.plot([p[0] for p in pts], [p[1] for p in pts], 'o-', label='series, after the bench')
        for c, b, t in pts:
            a1.annotate(t, (c, b), fontsize=7, xytext=(3, 3), textcoords='offset points')
        a1.axhline(AMPERE_BYTES / AMPERE_CPUS, color='grey', linestyle='--',
                   label=f'Ampere series: about 2 MB / {AMPERE_CPUS} CPUs')
        a1.set_xscale('log', base=2)
        a1.set_xlabel('vCPUs')
        a1.set_ylabel('table bytes per CPU')
        a1.set_ylim(bottom=0)
        a1.legend(fontsize=8)
        a1.set_title('per-CPU tables', fontsize=10)
        pts = sorted((m['nodes'], m['copies_total'], m['copies'], t) for t, m in mem.items())
        a2.plot([p[0] for p in pts], [p[1] / 2**20 for p in pts], 'o', label='all copies')
        a2.plot([p[0] for p in pts], [p[1] / p[2] / 2**20 if p[2] else 0 for p in pts], 'x',
                label='one copy')
        for n, b, _, t in pts:
            a2.annotate(t, (n, b / 2**20), fontsize=7, xytext=(3, 3), textcoords='offset points')
        a2.set_xlabel('nodes')
        a2.set_ylabel('MiB (text + rodata + node tables)')
        a2.legend(fontsize=8)
        a2.set_title('text and rodata copies', fontsize=10)
        fig.tight_layout()
        written.append(save(plt, fig, out, 'bench-memory.png'))

    price = data.get('price', {})
    if price:
        fig, ax = plt.subplots(figsize=(11, 4))
        cases = [p for p in topo.PRICE if p in price] + (['init'] if 'init' in price else [])
        width = 0.8 / len(topos)
        for i, t in enumerate(topos):
            vals = [price[p][t]['patched'] / price[p][t]['vanilla'] if t in price[p] else 0
                    for p in cases]
            ax.bar([x + i * width for x in range(len(cases))], vals, width, label=t)
        ax.axhline(1, color='grey', linewidth=0.8)
        ax.set_xticks([x + width * (len(topos) - 1) / 2 for x in range(len(cases))])
        ax.set_xticklabels(cases)
        ax.set_ylabel("series / vanilla")
        ax.set_title('The price: kernel instructions per operation, series over vanilla')
        ax.legend(fontsize=7, ncol=2)
        fig.tight_layout()
        written.append(save(plt, fig, out, 'bench-price.png'))
    return written


def save(plt, fig, out: str, name: str) -> str:
    path = os.path.join(out, name)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


if __name__ == '__main__':
    sys.exit(main())
