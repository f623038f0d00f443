# SPDX-License-Identifier: GPL-2.0
"""Unit tests for scripts/harness/topology.py on fixture files."""

import glob
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
from harness import topology  # noqa: E402


def fixture(name: str) -> str:
    return os.path.join(HERE, 'fixtures', name)


class ParseTest(unittest.TestCase):
    def test_asymmetric_and_options(self) -> None:
        t = topology.load(fixture('asym.topo'))
        self.assertEqual(t.name, 'asym')
        self.assertEqual([(n.cpus, n.mem_mb) for n in t.nodes], [(1, 1024), (2, 256), (1, 0)])
        self.assertEqual(t.distance, [[10, 16, 20], [18, 10, 20], [20, 20, 10]])
        self.assertEqual((t.timeout, t.append), (42, 'foo=1 bar'))
        self.assertEqual(t.cpus_of(1), [1, 2])
        self.assertEqual(t.ncpus, 4)

    def test_qemu_args(self) -> None:
        args = topology.qemu_args(topology.load(fixture('asym.topo')))
        joined = ' '.join(args)
        self.assertIn('-smp 4,sockets=4,cores=1,threads=1', joined)
        self.assertIn('-m 1280M', joined)
        # memory-less node: no memdev; every CPU bound to its node's socket
        self.assertIn('-numa node,nodeid=2 ', joined + ' ')
        self.assertIn('-numa cpu,node-id=2,socket-id=3', joined)
        # QEMU refuses a partial matrix: all 6 ordered pairs are given
        self.assertEqual(joined.count('-numa dist,'), 6)
        self.assertIn('dist,src=1,dst=0,val=18', joined)

    def test_expectation(self) -> None:
        exp = topology.expectation(topology.load(fixture('asym.topo')))
        self.assertIn('node 1 cpus 1-2 mem_mb 256 distance 18 10 20', exp)
        self.assertIn('nodes 3\n', exp)

    def test_errors_name_file_and_line(self) -> None:
        cases = {
            'bad-unknown-key.topo': (':3:', "unknown statement 'nodes'"),
            'bad-mem.topo': (':2:', 'mem=<size>'),
            'bad-gap.topo': ('bad-gap.topo:', 'without gaps'),
            'bad-distance-node.topo': (':3:', 'names node 5'),
            'bad-distance-dup.topo': (':4:', 'already set on line 3'),
            'bad-empty-node.topo': (':2:', 'neither CPUs nor memory'),
        }
        for name, (where, what) in cases.items():
            with self.subTest(name=name):
                with self.assertRaises(topology.TopologyError) as cm:
                    topology.load(fixture(name))
                self.assertIn(name + where if where.startswith(':') else where, str(cm.exception))
                self.assertIn(what, str(cm.exception))

    def test_inline_errors(self) -> None:
        bad = {
            'node 0 cpus=2\n': 'expected "node <id>',
            'node 0 cpus=x mem=1G\n': 'cpus=<count>',
            'node 0 cpus=2 mem=1G\ndistance 0 0 10\n': 'itself',
            'node 0 cpus=2 mem=1G\nnode 1 cpus=1 mem=1G\ndistance 0 1 5\n': '11..255',
            '# nothing\n': 'no "node" lines',
            'node 0 cpus=0 mem=1G\nnode 1 cpus=2 mem=1G\n': 'node 0 must have CPUs',
            'node 0 cpus=300 mem=1G\n': '300 CPUs',
        }
        for text, what in bad.items():
            with self.subTest(text=text):
                with self.assertRaises(topology.TopologyError) as cm:
                    topology.parse(text, 'x.topo')
                self.assertIn(what, str(cm.exception))

    def test_missing_file(self) -> None:
        with self.assertRaises(topology.TopologyError) as cm:
            topology.load(fixture('does-not-exist.topo'))
        self.assertIn('cannot read', str(cm.exception))

    def test_shipped_topologies_valid(self) -> None:
        files = glob.glob(os.path.join(TOP, 'numa-topologies', '*.topo'))
        self.assertGreaterEqual(len(files), 8)
        for path in files:
            with self.subTest(path=os.path.basename(path)):
                topology.load(path)


class CpulistTest(unittest.TestCase):
    def test_ranges(self) -> None:
        self.assertEqual(topology._cpulist([0, 1, 2, 5, 7, 8]), '0-2,5,7-8')
        self.assertEqual(topology._cpulist([3]), '3')
        self.assertEqual(topology._cpulist([]), '')


if __name__ == '__main__':
    unittest.main()
