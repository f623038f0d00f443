# SPDX-License-Identifier: GPL-2.0
"""harness.py's lane selection: an unknown KERNEL= fails before anything is
built, naming the kernels; a lane made up from TOPO=/KERNEL= takes the
options its kernel needs."""

from __future__ import annotations

import argparse
import importlib.util
import os
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location('harness_main', os.path.join(TOP, 'scripts',
                                                                          'harness.py'))
harness = importlib.util.module_from_spec(spec)
spec.loader.exec_module(harness)


def select(topo: str = '', kernel: str = ''):
    return harness.select(argparse.Namespace(topo=topo, kernel=kernel))


class SelectTest(unittest.TestCase):
    """Against tests/matrix, whatever MATRIX= the run was started with."""

    def setUp(self) -> None:
        self.saved = (harness.MATRIX, os.environ.pop('SOAK_MINUTES', None))
        harness.MATRIX = os.path.join(TOP, 'tests', 'matrix')

    def tearDown(self) -> None:
        harness.MATRIX = self.saved[0]
        if self.saved[1] is not None:
            os.environ['SOAK_MINUTES'] = self.saved[1]

    def test_unknown_kernel(self) -> None:
        with self.assertRaises(harness.runner.MatrixError) as cm:
            select(kernel='bogus')
        self.assertIn("unknown kernel 'bogus' (known: vanilla", str(cm.exception))

    def test_unknown_topology(self) -> None:
        with self.assertRaises(harness.runner.MatrixError) as cm:
            select(topo='bogus')
        self.assertIn('available: ', str(cm.exception))

    def test_made_up_lane_takes_the_kernels_options(self) -> None:
        # no kseq lane on 1node: kseq's own lane, singlestep and all, moved there
        lane, = select('1node', 'kseq')
        self.assertEqual((lane.kernel, lane.topo), ('kseq', '1node'))
        self.assertTrue(lane.singlestep)
        self.assertIn('kseq', lane.tests)
        self.assertEqual(lane.skip, [])
        lane, = select('8node', 'nokpti')
        self.assertIn('expect_kpti=off', lane.append)

    def test_topology_no_lane_uses(self) -> None:
        lane, = select('16cpu-2node')
        self.assertEqual((lane.kernel, lane.tests), ('patched', ['topology', 'hotplug']))

    def test_existing_lanes_are_kept(self) -> None:
        lanes = select('4node-asym', 'patched')
        self.assertTrue(lanes)
        self.assertTrue(all(l.topo == '4node-asym' and l.kernel == 'patched' for l in lanes))


class SoakMinutesTest(unittest.TestCase):
    """make soak MINUTES=M: every soak lane's minutes=, checked before any build."""

    def setUp(self) -> None:
        self.saved = (harness.MATRIX, os.environ.get('SOAK_MINUTES'))
        harness.MATRIX = os.path.join(TOP, 'tests', 'matrix-soak')

    def tearDown(self) -> None:
        harness.MATRIX = self.saved[0]
        if self.saved[1] is None:
            os.environ.pop('SOAK_MINUTES', None)
        else:
            os.environ['SOAK_MINUTES'] = self.saved[1]

    def test_default_minutes(self) -> None:
        os.environ.pop('SOAK_MINUTES', None)
        self.assertTrue(all(l.minutes for l in select()))

    def test_minutes_override(self) -> None:
        os.environ['SOAK_MINUTES'] = '30'
        self.assertEqual({l.minutes for l in select()}, {30})

    def test_bad_minutes(self) -> None:
        for bad in ('abc', '0', '-5', '1.5'):
            os.environ['SOAK_MINUTES'] = bad
            with self.assertRaises(harness.runner.MatrixError) as cm:
                select()
            self.assertIn(f'MINUTES={bad!r} is not a positive number of minutes',
                          str(cm.exception))

    def test_minutes_without_soak_lanes(self) -> None:
        harness.MATRIX = os.path.join(TOP, 'tests', 'matrix')
        os.environ['SOAK_MINUTES'] = '5'
        with self.assertRaises(harness.runner.MatrixError) as cm:
            select()
        self.assertIn('has no soak lane', str(cm.exception))


if __name__ == '__main__':
    unittest.main()


class RecapTest(unittest.TestCase):
    """The failures again above the closing line: a truncated log keeps its end."""

    def result(self, lane: str, verdict: str, tests, reasons=(), diags=None):
        return harness.runner.Result(lane=lane, verdict=verdict, reasons=list(reasons),
                                     seconds=1.0, log=f'build/runs/{lane}/console.log',
                                     tests=list(tests), diags=diags or {})

    def test_only_failed_lanes_and_cases(self) -> None:
        ok = self.result('a', 'PASS', [('x.y', 'pass', '')])
        bad = self.result('b', 'FAIL', [('s.one', 'pass', ''), ('s.two', 'fail', ''),
                                        ('s.three', 'skip', 'why')],
                          reasons=['hang: timeout before power-off'],
                          diags={'s.two': ['# ASSERTION FAILED at f.c:1', 'more']})
        self.assertEqual(harness.failure_recap([ok, bad]), [
            '  b: log build/runs/b/console.log',
            '    not ok s.two -- # ASSERTION FAILED at f.c:1',
            '    hang: timeout before power-off'])

    def test_nothing_failed(self) -> None:
        self.assertEqual(harness.failure_recap([self.result('a', 'PASS', [])]), [])
