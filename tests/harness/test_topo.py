# SPDX-License-Identifier: GPL-2.0
"""bench/topo.py's tables from recorded runs of make bench-topo, and
bench/insn.py's readers of what bench.sh prints (status files, init time)
and of a topology (the home node of a node without memory)."""
from __future__ import annotations

import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, 'bench'))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
import insn  # noqa: E402
import topo  # noqa: E402
from harness import topology  # noqa: E402

CONSOLE = '''[    0.512345] Run /init as init process
# bench: status boot pcpu_pgtable table_bytes_per_cpu 16384
# bench: init_seconds 0.512345
# bench: status after pcpu_pgtable table_bytes_per_cpu 20480
# bench: status after pcpu_pgtable table_bytes_total 81920
# bench: status after ktext_replication copies 1
# bench: status after ktext_replication replica_bytes_total 1000
# bench: status after ktext_replication rodata_bytes_total 200
# bench: status after ktext_replication table_bytes_total 48
# bench: status after pcpu_pgtable alias_start 0xffff800000000000
'''


def run(kernel: str, per_op: dict, remote_share: float, status: bool) -> dict:
    # vCPUs 0, 1 on node 0 (memory), 2, 3 on node 1 (no memory: home 0)
    rows = [{'kernel': 100, 'nodes': [100, 0]}] * 2 + \
        [{'kernel': 100, 'nodes': [int(100 * remote_share), 100 - int(100 * remote_share)]}] * 2
    r = {'lane': f'{kernel}-memless', 'kernel': kernel, 'append': 'bench_only=fork,price',
         'topology': 'memless', 'vcpu_node': [0, 0, 1, 1], 'node_home': [0, 0],
         'per_op': per_op, 'total': rows, 'date': '2026-12-07 09:00 UTC', 'verdict': 'PASS',
         'windows': [{'window': 0, 'stressor': 'fork', 'ops': 1, 'kernel': 400, 'user': 0,
                      'vcpus': rows}]}
    if status:
        r.update(insn.status_of(CONSOLE))
    return r


class Readers(unittest.TestCase):
    def test_status(self) -> None:
        s = insn.status_of(CONSOLE)
        self.assertEqual(s['init_seconds'], 0.512345)
        self.assertEqual(s['status']['boot'], {'pcpu_pgtable': {'table_bytes_per_cpu': 16384}})
        self.assertEqual(s['status']['after']['ktext_replication']['copies'], 1)
        # hex values (addresses) are not sizes
        self.assertNotIn('alias_start', s['status']['after']['pcpu_pgtable'])
        self.assertEqual(insn.status_of('no bench here'), {})

    def test_perf(self) -> None:
        rec = insn.status_of('# bench: perf 4 1000 50\n    # bench: perf 5 1900 90\n')
        self.assertEqual(rec['perf'], {'4': [1000, 50], '5': [1900, 90]})
        rec['windows'] = [{'window': 4, 'stressor': 'sock', 'ops': 10},
                          {'window': 5, 'stressor': 'sock', 'ops': 20},
                          {'window': 6, 'stressor': 'pipe', 'ops': 10},
                          {'window': 7, 'stressor': 'pipe', 'ops': 20}]
        # pipe's windows have no perf counts: no figure, not a zero
        self.assertEqual(insn.perf_per_op(rec), {'sock': 90.0})

    def test_perf_above_plugin(self) -> None:
        import contextlib
        import io
        r = {'kernel': 'vanilla-real', 'append': '', 'per_op': {'sock': 10.0},
             'perf_per_op': {'sock': 8.0}, 'perf': {'0': [5, 110], '1': [9, 90]},
             'windows': [{'window': 0, 'stressor': 'sock', 'user': 100},
                         {'window': 1, 'stressor': 'sock', 'user': 100}]}
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            insn.perf_table({'v': [r]}, ['v'], ['sock'])
        self.assertIn('| sock | 8 (80%) |', out.getvalue())
        # one window of two counted more than every vCPU did
        self.assertIn('sock in 1 windows, 1.100 to 1.100 times', out.getvalue())

    def test_home_node(self) -> None:
        t = topology.load(os.path.join(TOP, 'numa-topologies', 'memless-far.topo'))
        # node 2 has no memory; node 1 is nearer to it (15) than node 0 (30)
        self.assertEqual([insn.home_node(t, n.nid) for n in t.nodes], [0, 1, 1])
        t = topology.load(os.path.join(TOP, 'numa-topologies', 'memless.topo'))
        self.assertEqual([insn.home_node(t, n.nid) for n in t.nodes], [0, 0])


class Tables(unittest.TestCase):
    RUNS = {'vanilla-memless': [run('vanilla', {'price:kprobe': 1000.0, 'fork': 5.0}, 1.0,
                                    False)],
            'patched-memless': [run('patched', {'price:kprobe': 3000.0, 'fork': 5.0}, 1.0,
                                    True)]}

    def test_locality_home(self) -> None:
        data: dict = {}
        lines = topo.locality(self.RUNS, ['memless'], data)
        # node 1's vCPUs fetch from node 0, their home: 100%
        self.assertEqual(data['locality']['memless']['patched']['fork'], [1.0] * 4)
        self.assertIn('| memless | 4 | 2 | patched | 100.0% | 100.0% | 100.0% | 100.0% |',
                      lines)
        runs = {'x': [run('vanilla', {}, 0.0, False)]}
        lines = topo.locality(runs, ['memless'], {})
        self.assertIn('| memless | 4 | 2 | vanilla | 50.0% | 0.0% | 50.0% | 0.0% |', lines)

    def test_memory(self) -> None:
        data: dict = {}
        lines = topo.memory(self.RUNS, ['memless'], data)
        self.assertIn('| memless | 4 | 2 | 1 | 16,384 | 20,480 | 81,920 | 1,248 | 1,248 |',
                      lines)
        self.assertEqual(data['memory']['memless']['copies_total'], 1248)

    def test_price(self) -> None:
        data: dict = {}
        lines = topo.price(self.RUNS, ['memless'], data)
        row = next(l for l in lines if l.startswith('| kprobe'))
        self.assertTrue(row.endswith('| 1,000 / 3,000 (3.00) |'), row)
        # a case no lane ran is a dash, not a zero
        row = next(l for l in lines if l.startswith('| chunk'))
        self.assertTrue(row.endswith('| - |'), row)
        self.assertEqual(data['price']['kprobe']['memless']['copies'], 1)


if __name__ == '__main__':
    unittest.main()
