# SPDX-License-Identifier: GPL-2.0
"""Unit tests for scripts/harness/ktap.py and runner.judge on fixture logs."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), 'scripts'))
from harness import ktap, runner  # noqa: E402

P, F, S = ktap.Status.PASS, ktap.Status.FAIL, ktap.Status.SKIP


def console(name: str) -> ktap.Console:
    with open(os.path.join(HERE, 'fixtures', name), encoding='utf-8') as f:
        return ktap.parse_console(f.read())


class ParseTest(unittest.TestCase):
    def test_pass_log(self) -> None:
        c = console('pass.log')
        self.assertEqual(len(c.docs), 2)
        self.assertTrue(c.powered_off)
        self.assertEqual(c.splats, [])
        leaves = {p: s for p, s, _ in c.leaves()}
        self.assertEqual(leaves, {
            'cpumask.test_cpumask_weight': P, 'cpumask.test_cpumask_first': P,
            'param.per_cpu.cpu0': P, 'param.per_cpu.cpu1': P,
            'param.needs_two_nodes': S,
            'topology.nodes_online': P, 'topology.cpus_online': P,
            'hotplug.cpu1_offline_online': P})
        self.assertEqual(runner.judge(c, 0, False, 2), [])

    def test_panic_log(self) -> None:
        c = console('panic.log')
        kinds = {k for _, k, _ in c.splats}
        self.assertEqual(kinds, {'Oops', 'panic'})
        self.assertFalse(c.powered_off)
        reasons = runner.judge(c, 0, False, 2)
        self.assertTrue(any(r.startswith('Oops at console line 8') for r in reasons), reasons)
        self.assertTrue(any('panic' in r for r in reasons))
        self.assertTrue(any('power-off' in r for r in reasons))
        # the suite that crashed is a failure, not silently missing
        self.assertIn(('pcpu_pgtable', F), [(p, s) for p, s, _ in c.leaves()])

    def test_truncated_log(self) -> None:
        c = console('truncated.log')
        doc = c.docs[0]
        self.assertTrue(any('truncated' in p for p in doc.problems), doc.problems)
        leaves = [(p, s) for p, s, _ in c.leaves()]
        self.assertIn(('cpumask.test_cpumask_weight', P), leaves)
        self.assertIn(('slow.a', P), leaves)
        self.assertIn(('slow', F), leaves)
        reasons = runner.judge(c, None, True, 1)
        self.assertIn('hang: timeout before power-off', reasons)

    def test_warning_and_failed_leaf(self) -> None:
        c = console('warning.log')
        self.assertEqual([k for _, k, _ in c.splats], ['WARNING', 'WARNING'])
        reasons = runner.judge(c, 0, False, 2)
        self.assertEqual(len(reasons), 1)
        self.assertIn('WARNING at console line 10', reasons[0])
        # a parent "ok" does not hide its failing leaf
        self.assertIn(('stress.stress_ng_exit_status', F), [(p, s) for p, s, _ in c.leaves()])
        # the guest's diagnostics before the failed result are kept for the summary
        self.assertEqual(c.diagnostics()['stress.stress_ng_exit_status'],
                         ["stress-ng: fail:  [352] mmap: child died: signal 9 'SIGKILL'", 'rc=2'])

    def test_lockdep_report(self) -> None:
        text = ('[ 5.1] ======================================================\n'
                '[ 5.1] WARNING: possible circular locking dependency detected\n'
                '[ 5.2] reboot: Power down\n')
        c = ktap.parse_console(text)
        self.assertEqual([k for _, k, _ in c.splats], ['lockdep'])

    def test_missing_documents(self) -> None:
        c = ktap.parse_console('[    1.0] reboot: Power down\n')
        self.assertEqual(runner.judge(c, 0, False, 2),
                         ['2 KTAP documents expected (KUnit, guest tests), 0 found'])

    def test_plan_shortfall(self) -> None:
        c = ktap.parse_console('KTAP version 1\n1..3\nok 1 a\nnot ok 2 b # boom\n')
        self.assertEqual(c.docs[0].problems, ['plan says 3 tests, 2 reported'])
        leaves = c.leaves()
        self.assertEqual(leaves[1], ('b', F, 'boom'))
        self.assertEqual(leaves[2][1], F)

    def test_suite_fail_without_failing_leaf(self) -> None:
        text = ('KTAP version 1\n1..1\n    KTAP version 1\n    1..1\n'
                '    ok 1 a\nnot ok 1 suite # init failed\n')
        self.assertIn(('suite', F, 'init failed'), ktap.parse_console(text).leaves())


class MatrixTest(unittest.TestCase):
    def test_parse(self) -> None:
        lanes = runner.parse_matrix('# c\npatched 2node topology,hotplug cpu=cortex-a76\n'
                                    'vanilla 1node - append="a=1 b"\n')
        self.assertEqual(lanes[0].name, 'patched-2node-cortex-a76')
        self.assertEqual(lanes[0].tests, ['topology', 'hotplug'])
        self.assertEqual((lanes[1].tests, lanes[1].append), ([], 'a=1 b'))

    def test_seed(self) -> None:
        lane = runner.parse_matrix('patched 2node pcpu_pgtable seed=14 append=x=2\n')[0]
        self.assertEqual((lane.seed, lane.name), (14, 'patched-2node-seed14-x-2'))

    def test_timeout(self) -> None:
        lane = runner.parse_matrix('patched 2node ktext_stress timeout=900\n')[0]
        # not in the name: the same lane with more time is the same lane
        self.assertEqual((lane.timeout, lane.name), (900, 'patched-2node'))
        self.assertIsNone(runner.parse_matrix('patched 2node x\n')[0].timeout)

    def test_second_kernel(self) -> None:
        lane = runner.parse_matrix('patched 2node topology hibernate=resumed,ktext\n')[0]
        self.assertEqual((lane.hibernate, lane.kexec, lane.name),
                         (['resumed', 'ktext'], None, 'patched-2node-hibernate'))
        lane = runner.parse_matrix('va52 2node - kexec=kexeced append=x\n')[0]
        self.assertEqual((lane.kexec, lane.name), (['kexeced'], 'va52-2node-kexec-x'))

    def test_errors(self) -> None:
        for text, what in (('patched 2node\n', ':1: expected'),
                           ('patched 2node x kexec=\n', 'kexec= names no guest test'),
                           ('patched 2node x hibernate=-\n', 'hibernate= names no guest test'),
                           ('patched 2node x kexec=a hibernate=b\n', 'one of kexec= and'),
                           ('patched 2node x colour=red\n', "unknown option 'colour'"),
                           ('patched 2node x append="a\n', 'No closing quotation'),
                           ('patched 2node x seed=-1\n', "seed='-1' is not"),
                           ('patched 2node x seed=ab\n', "seed='ab' is not"),
                           ('patched 2node x timeout=0\n', "timeout='0' is not"),
                           ('patched 2node x timeout=1m\n', "timeout='1m' is not")):
            with self.subTest(text=text):
                with self.assertRaises(runner.MatrixError) as cm:
                    runner.parse_matrix(text, 'm')
                self.assertIn(what, str(cm.exception))


if __name__ == '__main__':
    unittest.main()
