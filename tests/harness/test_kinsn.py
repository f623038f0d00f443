# SPDX-License-Identifier: GPL-2.0
"""The kinsn plugin's output as the harness reads it, and the plugin
built from its source (a host C compiler is one of make check's tools)."""

from __future__ import annotations

import os
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
from harness import kinsn, topology  # noqa: E402

GOOD = '''kinsn 0 0 user=10 kernel=100 node0=60 node1=40 other=0
kinsn 0 1 user=5 kernel=50 node0=0 node1=49 other=1
kinsn total 0 user=20 kernel=300 node0=200 node1=100 other=0
kinsn total 1 user=9 kernel=90 node0=10 node1=80 other=0
'''


class Parse(unittest.TestCase):
    def test_windows(self) -> None:
        w = kinsn.parse(GOOD)
        self.assertEqual(sorted(w), ['0', 'total'])
        self.assertEqual(w['0'][1], {'user': 5, 'kernel': 50, 'nodes': [0, 49], 'other': 1})
        self.assertEqual(len(w['total']), 2)

    def test_bad(self) -> None:
        for text, what in ((GOOD.replace('node1=40', 'node1=41'), 'do not add up'),
                           (GOOD.replace('kinsn 0 1', 'kinsn 0 2'), 'out of order'),
                           (GOOD + 'garbage\n', 'not a kinsn line'),
                           ('\n'.join(GOOD.splitlines()[:2]) + '\n', 'no "total" window')):
            with self.subTest(what=what):
                with self.assertRaises(ValueError) as cm:
                    kinsn.parse(text)
                self.assertIn(what, str(cm.exception))


W = {'0': [{'kernel': 1000, 'user': 5, 'nodes': [900, 100]},
           {'kernel': 100, 'user': 1, 'nodes': [0, 100]}],
     '1': [{'kernel': 1900, 'user': 9, 'nodes': [1900, 0]},
           {'kernel': 200, 'user': 1, 'nodes': [0, 200]}],
     'total': [{'kernel': 9999, 'user': 99}]}
CONSOLE = """# bench: window 0 fork 100
    # bench: window 1 fork 200
"""


class Bench(unittest.TestCase):
    def test_per_op(self) -> None:
        ws = kinsn.bench_windows(CONSOLE, W)
        self.assertEqual([(w['stressor'], w['ops'], w['kernel']) for w in ws],
                         [('fork', 100, 1100), ('fork', 200, 2100)])
        self.assertEqual(kinsn.per_op(ws), {'fork': 10.0})
        # every vCPU's counts of an all-vCPU window, for its locality
        self.assertEqual(ws[0]['vcpus'], [{'kernel': 1000, 'nodes': [900, 100]},
                                          {'kernel': 100, 'nodes': [0, 100]}])

    def test_one_cpu(self) -> None:
        console = '# bench: window 0 op:inc 100 cpu 1\n# bench: window 1 op:inc 200 cpu 1\n'
        ws = kinsn.bench_windows(console, W)
        self.assertEqual([(w['kernel'], w['cpu']) for w in ws], [(100, 1), (200, 1)])
        self.assertNotIn('vcpus', ws[0])
        self.assertEqual(kinsn.per_op(ws), {'op:inc': 1.0})
        with self.assertRaises(ValueError) as cm:
            kinsn.bench_windows(console.replace('cpu 1', 'cpu 2'), W)
        self.assertIn('names CPU 2; the plugin counted 2 vCPUs', str(cm.exception))
        ws[1]['kernel'] = 201
        with self.assertRaises(ValueError) as cm:
            kinsn.per_op(ws)
        self.assertIn('not a whole number per call', str(cm.exception))

    def test_below_floor(self) -> None:
        per_op = {'op:empty': 7.0, 'op:inc': 15.0, 'op:floor_inc': 11.0, 'op:inc_ptr': 14.0,
                  'op:read': 11.0, 'op:floor_read': 10.0, 'fork': 5.0}
        self.assertEqual(kinsn.below_floor(per_op), [])
        per_op['op:inc_ptr'] = 10.0
        per_op['op:read'] = 7.0
        self.assertEqual(kinsn.below_floor(per_op),
                         ["op:inc_ptr: 10 instructions per call, below its floor's 11",
                          "op:read: 7 instructions per call, below its floor's 10",
                          "op:read: 7 instructions per call, no more than the empty call's 7"])

    def test_over_budget(self) -> None:
        per_op = {'op:empty': 7.0, 'op:inc': 15.0, 'op:floor_inc': 11.0, 'op:inc_ptr': 16.0,
                  'op:read': 11.0, 'op:floor_read': 10.0, 'fork': 5.0}
        self.assertEqual(kinsn.over_budget(per_op, 5), [])
        self.assertEqual(kinsn.over_budget(per_op, 4),
                         ['op:inc_ptr: 5 instructions per call beyond its floor, over the '
                          'budget of 4'])
        del per_op['op:floor_read']
        self.assertIn('op:read: no floor loop (op:floor_read) to judge it by',
                      kinsn.over_budget(per_op, 5))
        self.assertEqual(kinsn.over_budget({'fork': 5.0}, 5),
                         ['no this_cpu op loop was counted (bench_only= without ops?)'])

    def test_mismatch(self) -> None:
        with self.assertRaises(ValueError) as cm:
            kinsn.bench_windows(CONSOLE + '# bench: window 2 pipe 5\n', W)
        self.assertIn('did not count it', str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            kinsn.bench_windows(CONSOLE.splitlines()[0], W)
        self.assertIn("did not name: ['1']", str(cm.exception))
        ws = kinsn.bench_windows(CONSOLE.replace('200', '300'), W)
        with self.assertRaises(ValueError) as cm:
            kinsn.per_op(ws)
        self.assertIn('two windows of N and 2N', str(cm.exception))
        ws[1]['ops'], ws[1]['kernel'] = 200, 1000
        with self.assertRaises(ValueError) as cm:
            kinsn.per_op(ws)
        self.assertIn('no more kernel instructions', str(cm.exception))


class Build(unittest.TestCase):
    def test_builds_and_exports_the_api_version(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            so = kinsn.build(TOP, d)
            with open(so, 'rb') as f:
                data = f.read()
            self.assertIn(b'qemu_plugin_install', data)
            self.assertIn(b'qemu_plugin_version', data)
            # built once: a second call reuses it
            mtime = os.path.getmtime(so)
            self.assertEqual(kinsn.build(TOP, d), so)
            self.assertEqual(os.path.getmtime(so), mtime)


class Memory(unittest.TestCase):
    def test_file_backed_nodes(self) -> None:
        topo = topology.parse('node 0 cpus=1 mem=256M\nnode 1 cpus=1 mem=0\n', 't', 't')
        args = ' '.join(topology.qemu_args(topo, mem_prefix='/dev/shm/x.node'))
        self.assertIn('memory-backend-file,id=mem0,size=256M,mem-path=/dev/shm/x.node0,share=on',
                      args)
        self.assertNotIn('mem1', args)      # memory-less: no backend at all
        self.assertIn('memory-backend-ram', ' '.join(topology.qemu_args(topo)))


if __name__ == '__main__':
    unittest.main()
