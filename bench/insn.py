#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""insn.py - kernel instructions per op, per variant, counted from outside
the guest by the kinsn TCG plugin.

  insn.py run [--matrix FILE] [--runs R] [--kernel K] [--out DIR]
      boot each lane of the matrix (default tests/matrix-bench) R times;
      each boot runs tests/guest/bench.sh; one JSON per boot in DIR
      (default build/bench/insn): the windows, with the stressor and ops
      each counted, and the plugin's totals.
  insn.py table [DIR]
      per stressor and lane: kernel instructions per op (mean, and the
      spread over the runs), the ratio to the vanilla lane, as a KTAP-free
      Markdown table on stdout.

A stressor's per-op figure is (K(2N) - K(N)) / N, K being the kernel
instructions all vCPUs executed in the window: stress-ng's own start and
exit cancel out.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
from harness import runner  # noqa: E402

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
            rec = {'lane': lane.name, 'kernel': lane.kernel, 'topology': lane.topo,
                   'append': lane.append, 'run': run + 1, 'verdict': res.verdict,
                   'reasons': res.reasons, 'seconds': round(res.seconds, 1),
                   'date': time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}
            rec.update(res.kinsn or {})
            if res.verdict != 'PASS' or 'per_op' not in rec:
                print(f'  FAIL     {lane.name} run {run + 1}: '
                      f'{"; ".join(res.reasons) or "a bench case failed"}', flush=True)
                rec['verdict'], failed = 'FAIL', failed + 1
            with open(os.path.join(args.out, f'{lane.name}.run{run + 1}.json'), 'w',
                      encoding='utf-8') as f:
                json.dump(rec, f, indent=1)
    print(f'{total - failed} passed, {failed} failed')
    return 1 if failed else 0


def load(d: str) -> dict[str, list[dict]]:
    runs: dict[str, list[dict]] = {}
    for p in sorted(glob.glob(os.path.join(d, '*.run*.json'))):
        with open(p, encoding='utf-8') as f:
            r = json.load(f)
        if r['verdict'] == 'PASS':
            runs.setdefault(r['lane'], []).append(r)
    return runs


def cmd_table(args: argparse.Namespace) -> int:
    runs = load(args.dir)
    if not runs:
        print(f'error: no passing bench runs under {args.dir} (insn.py run)', file=sys.stderr)
        return 2
    lanes = sorted(runs, key=lambda l: (not l.startswith('vanilla'), l))
    stressors = sorted({s for rs in runs.values() for r in rs for s in r['per_op']})
    base = next((l for l in lanes if l.startswith('vanilla')), None)
    print('| stressor | ' + ' | '.join(lanes) + ' |')
    print('|---' * (len(lanes) + 1) + '|')
    for s in stressors:
        cells = []
        ref = statistics.mean(r['per_op'][s] for r in runs[base]) if base else None
        for l in lanes:
            v = [r['per_op'][s] for r in runs[l] if s in r['per_op']]
            if not v:
                cells.append('-')
                continue
            m = statistics.mean(v)
            cell = f'{m:,.0f}'
            if len(v) > 1:
                cell += f' ± {statistics.stdev(v):,.0f}'
            if ref and l != base:
                cell += f' ({m / ref:.3f})'
            cells.append(cell)
        print(f'| {s} | ' + ' | '.join(cells) + ' |')
    print(f'\nkernel instructions per op, all vCPUs; mean ± stdev over '
          f'{min(len(r) for r in runs.values())}-{max(len(r) for r in runs.values())} runs; '
          f'(ratio to {base})' if base else '')
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('run')
    p.add_argument('--matrix', default=os.path.join(TOP, 'tests', 'matrix-bench'))
    p.add_argument('--runs', type=int, default=1)
    p.add_argument('--kernel', default='')
    p.add_argument('--out', default=os.path.join(BUILD, 'bench', 'insn'))
    p = sub.add_parser('table')
    p.add_argument('dir', nargs='?', default=os.path.join(BUILD, 'bench', 'insn'))
    args = ap.parse_args()
    if args.cmd == 'run':
        if args.runs < 1:
            print(f'error: --runs {args.runs}: at least one', file=sys.stderr)
            return 2
        return cmd_run(args)
    return cmd_table(args)


if __name__ == '__main__':
    sys.exit(main())
