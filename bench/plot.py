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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--data', default=os.path.join(TOP, 'docs', 'data', 'bench', 'insn'))
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
    if not runs:
        print(f'error: no recorded bench runs in {args.data} (bench/insn.py record)',
              file=sys.stderr)
        return 2
    lanes = insn.order(runs)
    os.makedirs(args.out, exist_ok=True)
    written = []

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


if __name__ == '__main__':
    sys.exit(main())
