# SPDX-License-Identifier: GPL-2.0
"""bench/insn.py's tables from recorded runs: the order of the variants,
their labels, the op costs and the locality shares."""
from __future__ import annotations

import contextlib
import io
import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, 'bench'))
import insn  # noqa: E402


def run(kernel: str, append: str, per_op: dict, node1_share: float) -> dict:
    total = [{'kernel': 100, 'nodes': [100, 0]}, {'kernel': 200,
                                                 'nodes': [200 - int(200 * node1_share),
                                                           int(200 * node1_share)]}]
    return {'kernel': kernel, 'append': append, 'topology': '2node', 'vcpu_node': [0, 1],
            'per_op': per_op, 'total': total, 'date': '2026-12-07 07:00 UTC'}


OPS = {'op:empty': 7, 'op:floor_inc': 11, 'op:inc': 15, 'fork': 100.0}
RUNS = {
    'p-on': [run('patched', 'bench_only=ops', dict(OPS), 0.99)],
    'p-off': [run('patched', 'percpu_pgtable=off bench_ops=2', dict(OPS, **{'op:inc': 35}), 0)],
    'v': [run('vanilla', '', dict(OPS, **{'op:inc': 30, 'fork': 101.0}), 0),
          run('vanilla', '', dict(OPS, **{'op:inc': 30, 'fork': 99.0}), 0)],
    'k': [run('kseq', '', dict(OPS, **{'op:inc': 16}), 0)],
}


class Tables(unittest.TestCase):
    def test_order_and_labels(self) -> None:
        lanes = insn.order(RUNS)
        self.assertEqual(lanes, ['v', 'p-on', 'p-off', 'k'])
        # the workload's own options are not the variant's
        self.assertEqual([insn.label(RUNS, l) for l in lanes],
                         ['vanilla', 'patched', 'patched percpu_pgtable=off', 'kseq'])

    def test_costs(self) -> None:
        self.assertEqual(insn.op_cost(RUNS['p-on'][0]['per_op'], 'inc'), 8)
        self.assertEqual(insn.op_cost(RUNS['p-on'][0]['per_op'], insn.floor_of('inc_ptr')), 4)
        self.assertIsNone(insn.op_cost({'op:inc': 3}, 'inc'))
        self.assertEqual(insn.locality(RUNS['p-on'][0]), [1.0, 0.99])

    def test_reading(self) -> None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            insn.reading(RUNS, insn.order(RUNS), ['fork'], insn.bases(RUNS, insn.order(RUNS)))
        text = out.getvalue()
        self.assertIn('vanilla 19 to 19; patched 4 to 4; patched percpu_pgtable=off 24 to 24; '
                      'kseq 5 to 5', text)
        self.assertIn('vanilla varies by less than 2% (stdev over mean) on fork.', text)
        self.assertIn('patched: 1.000 to 1.000 times', text)
        self.assertIn('patched: the vCPUs outside node 0 (where the image is loaded) fetch '
                      '99.0%', text)

    def test_configurations(self) -> None:
        # each lane's ratio is to the vanilla kernel of its own configuration
        # and preempt= option
        runs = {
            'dd': [run('distro-dynamic', 'bench_cgroup=1 preempt=full', dict(OPS), 0.99)],
            'd': [run('distro', 'bench_cgroup=1', dict(OPS), 0.99)],
            'd-off': [run('distro', 'bench_cgroup=1 ktext_replication=off', dict(OPS), 0)],
            'vdd': [run('vanilla-distro-dynamic', 'bench_cgroup=1 preempt=full', dict(OPS), 0)],
            'vd': [run('vanilla-distro', 'bench_cgroup=1', dict(OPS), 0)],
        }
        lanes = insn.order(runs)
        self.assertEqual(lanes, ['vd', 'd', 'd-off', 'vdd', 'dd'])
        self.assertEqual(insn.bases(runs, lanes),
                         {'vd': 'vd', 'd': 'vd', 'd-off': 'vd', 'vdd': 'vdd', 'dd': 'vdd'})
        self.assertEqual([insn.family(k) for k in ('vanilla', 'patched', 'kseq-real', 'vanilla-real',
                                                   'distro', 'vanilla-distro-dynamic')],
                         ['', '', 'real', 'real', 'distro', 'distro-dynamic'])
        self.assertIn('for the distro-dynamic kernels', insn.config_of(runs))
        self.assertEqual(insn.config_of(RUNS), 'configs/base.config')
        # one series, or each with its lanes; vanilla lanes have none
        for lane, h in (('vd', 'aaa'), ('d', 'bbb'), ('d-off', 'bbb'), ('dd', 'ccc')):
            runs[lane][0]['series'] = h
        self.assertEqual(insn.series_of(runs, lanes),
                         'bbb (distro, distro ktext_replication=off); '
                         'ccc (distro-dynamic preempt=full)')
        runs['dd'][0]['series'] = 'bbb'
        self.assertEqual(insn.series_of(runs, lanes), 'bbb')
        self.assertEqual([insn.count_range([3, 3]), insn.count_range([3, 2, 3])], ['3', '2-3'])
        # no vanilla lane of a configuration: no ratio
        self.assertEqual(insn.bases({'d': runs['d']}, ['d']), {'d': None})


class Record(unittest.TestCase):
    def test_other_lanes_kept(self) -> None:
        import argparse
        import json
        import tempfile
        with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory() as dest:
            def put(d: str, lane: str, n: int, verdict: str = 'PASS') -> None:
                with open(os.path.join(d, f'{lane}.run{n}.json'), 'w', encoding='utf-8') as f:
                    json.dump({'lane': lane, 'run': n, 'verdict': verdict}, f)
            put(dest, 'a', 1)
            put(dest, 'a', 2)
            put(dest, 'b', 1)
            put(out, 'a', 1)
            put(out, 'c', 1, 'FAIL')
            with contextlib.redirect_stdout(io.StringIO()) as msg:
                self.assertEqual(insn.cmd_record(argparse.Namespace(out=out, dest=dest)), 0)
            # a's runs replaced (its old run 2 gone), b's kept, c failed: not recorded
            self.assertEqual(sorted(os.listdir(dest)), ['a.run1.json', 'b.run1.json'])
            self.assertIn('kept the earlier runs of 1 other lanes', msg.getvalue())


if __name__ == '__main__':
    unittest.main()
