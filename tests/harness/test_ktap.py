# SPDX-License-Identifier: GPL-2.0
"""Unit tests for scripts/harness/ktap.py and runner.judge on fixture logs."""

import os
import sys
import tempfile
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


    def test_nested_plan(self) -> None:
        # a suite that plans ten cases and reports one did not pass
        text = ('KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: s\n    1..10\n'
                '    ok 1 a\nok 1 s\n')
        c = ktap.parse_console(text)
        self.assertEqual(c.docs[0].problems, ["subtest 's': plan says 10 tests, 1 reported"])
        self.assertIn(('s.missing 9 of 10 tests', F), [(p, st) for p, st, _ in c.leaves()])
        # more results than planned is a problem too, and a kept plan passes
        text = text.replace('1..10', '1..0')
        self.assertEqual(ktap.parse_console(text).docs[0].problems,
                         ["subtest 's': plan says 0 tests, 1 reported"])
        self.assertEqual(ktap.parse_console(text.replace('1..0', '1..1')).docs[0].problems, [])
        # a parameterised case prints no plan of its own
        text = ('KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: s\n    1..1\n'
                '        KTAP version 1\n        # Subtest: p\n        ok 1 x\n        ok 2 y\n'
                '    ok 1 p\nok 1 s\n')
        self.assertEqual(ktap.parse_console(text).docs[0].problems, [])

    def test_more_splats(self) -> None:
        for line, kind in (('WARNING: bad unlock balance detected!', 'lockdep'),
                           ('INFO: trying to register non-static key.', 'lockdep'),
                           ('stress-ng invoked oom-killer: gfp_mask=0x140cca', 'OOM kill'),
                           ('Out of memory: Killed process 123 (stress-ng)', 'OOM kill'),
                           ('CPU3: failed to come online', 'CPU bring-up failure'),
                           ('CPU2: failed to boot: -5', 'CPU bring-up failure'),
                           ('Call trace:', 'backtrace')):
            with self.subTest(line=line):
                c = ktap.parse_console(f'[    1.0] {line}\n[    2.0] reboot: Power down\n')
                self.assertEqual([k for _, k, _ in c.splats], [kind])
        # the stack dump of a WARNING is the WARNING's, not a second splat
        text = ('[ 1.0] WARNING: CPU: 1 PID: 1 at mm/x.c:1 f+0x0/0x4\n'
                + '[ 1.0] x0 : 0\n' * 30 + '[ 1.0] Call trace:\n[ 1.0]  f+0x0/0x4\n')
        self.assertEqual([k for _, k, _ in ktap.parse_console(text).splats], ['WARNING'])
        # and a diagnostic that only mentions the words is not a splat
        c = ktap.parse_console('# no "Call trace:" in dmesg\n')
        self.assertEqual(c.splats, [])


class PolicyTest(unittest.TestCase):
    DOC = ('KTAP version 1\n1..2\n    KTAP version 1\n    # Subtest: suite\n    1..2\n'
           '    ok 1 a\n    ok 2 b # SKIP needs two CPUs\nok 1 suite\nok 2 other\n'
           'KTAP version 1\n1..1\n    KTAP version 1\n    1..1\n    ok 1 c # SKIP off\n'
           'ok 1 g\n')

    def run_policy(self, lane: runner.Lane, suites: list[str] | None = None):
        c = ktap.parse_console(self.DOC)
        tests = [(p, s.value, r) for p, s, r in c.leaves()]
        return runner.apply_policy(lane, c, ['suite'] if suites is None else suites, tests)

    def test_skip_not_allowed_fails_with_its_name(self) -> None:
        tests, reasons = self.run_policy(runner.Lane('patched', '2node', ['g']))
        self.assertEqual(reasons, [])
        self.assertIn(('suite.b', 'fail', 'skipped, and the lane allows no such skip: '
                       'needs two CPUs'), tests)
        self.assertIn(('g.c', 'fail', 'skipped, and the lane allows no such skip: off'), tests)

    def test_allowed_skips(self) -> None:
        tests, reasons = self.run_policy(runner.Lane('patched', '2node', ['g'],
                                                     skip=['suite.b', 'g.*']))
        self.assertEqual(reasons, [])
        self.assertEqual([st for _, st, _ in tests], ['pass', 'skip', 'pass', 'skip'])

    def test_stale_skip_pattern(self) -> None:
        _, reasons = self.run_policy(runner.Lane('patched', '2node', ['g'],
                                                 skip=['suite.b', 'g.c', 'suite.a']))
        self.assertEqual(len(reasons), 1)
        self.assertIn('skip=suite.a: no test skipped', reasons[0])

    def test_required_suite_and_guest_test(self) -> None:
        _, reasons = self.run_policy(runner.Lane('patched', '2node', ['g', 'h'],
                                                 skip=['suite.b', 'g.c']),
                                     ['suite', 'pcpu_pgtable'])
        self.assertEqual(reasons, ['required KUnit suite pcpu_pgtable did not run '
                                   '(KTAP document 1)',
                                   'guest test h reported nothing (KTAP document 2)'])
        _, reasons = self.run_policy(runner.Lane('bogus', '2node', ['g'],
                                                 skip=['suite.b', 'g.c']), [])
        self.assertEqual(reasons, [])

    def test_required_table(self) -> None:
        table = runner.load_required('# c\nkseq,kseq-* cpumask pcpu_kseq\n'
                                     'patched*,debug cpumask pcpu_pgtable\n')
        self.assertEqual(runner.required_suites('kseq-dynamic', table), ['cpumask', 'pcpu_kseq'])
        self.assertEqual(runner.required_suites('debug', table), ['cpumask', 'pcpu_pgtable'])
        self.assertIsNone(runner.required_suites('vanilla', table))
        with self.assertRaises(runner.MatrixError):
            runner.load_required('patched\n')
        # the repository's own table covers every kernel lib.sh knows
        with open(os.path.join(HERE, '..', 'required'), encoding='utf-8') as f:
            table = runner.load_required(f.read())
        for k in ('vanilla', 'vanilla-debug', 'vanilla-va52', 'patched', 'kseq', 'stock', 'debug',
                  'nonuma', 'nokpti', 'va52', 'voluntary', 'distro', 'distro-dynamic', 'dev',
                  'dev-va52', 'dev-voluntary', 'mutant', 'mutant-va52', 'patched-dynamic',
                  'kseq-voluntary', 'stock-dynamic'):
            self.assertIsNotNone(runner.required_suites(k, table), k)


class QemuTest(unittest.TestCase):
    def test_singlestep_follows_version(self) -> None:
        self.assertIn('-singlestep', runner.singlestep_args((7, 2)))
        new = runner.singlestep_args((9, 0))
        self.assertNotIn('-singlestep', new)
        self.assertIn('tcg,thread=single,one-insn-per-tb=on', new)

    def test_version(self) -> None:
        self.assertEqual(runner.qemu_version('QEMU emulator version 7.2.22 (Debian 1:7.2)'),
                         (7, 2))
        with self.assertRaises(runner.QemuError):
            runner.qemu_version('QEMU emulator version 6.2.0')
        with self.assertRaises(runner.QemuError):
            runner.qemu_version('garbage')


class MatrixTest(unittest.TestCase):
    def test_parse(self) -> None:
        lanes = runner.parse_matrix('# c\npatched 2node topology,hotplug cpu=cortex-a76\n'
                                    'vanilla 1node - append="a=1 b"\n')
        self.assertEqual(lanes[0].name, 'patched-2node-cortex-a76')
        self.assertEqual(lanes[0].tests, ['topology', 'hotplug'])
        self.assertEqual((lanes[1].tests, lanes[1].append), ([], 'a=1 b'))

    def test_include(self) -> None:
        with tempfile.TemporaryDirectory(dir=runner.REPO) as d:
            rel = os.path.relpath(d, runner.REPO)
            with open(os.path.join(d, 'inner'), 'w', encoding='utf-8') as f:
                f.write('vanilla 2node bench kinsn\n')
            lanes = runner.parse_matrix('patched 1node -\ninclude inner\nkseq 2node -\n',
                                        os.path.join(rel, 'outer'))
            self.assertEqual([l.kernel for l in lanes], ['patched', 'vanilla', 'kseq'])
            self.assertTrue(lanes[1].kinsn)
            with open(os.path.join(d, 'inner'), 'w', encoding='utf-8') as f:
                f.write('include outer\n')
            with open(os.path.join(d, 'outer'), 'w', encoding='utf-8') as f:
                f.write('include inner\n')
            with self.assertRaises(runner.MatrixError) as cm:
                runner.parse_matrix('include inner\n', os.path.join(rel, 'outer'))
            self.assertIn('includes itself', str(cm.exception))
            for text, msg in (('include\n', 'expected "include FILE"'),
                              ('include a b\n', 'expected "include FILE"'),
                              ('include nothere\n', 'cannot read')):
                with self.assertRaises(runner.MatrixError) as cm:
                    runner.parse_matrix(text, os.path.join(rel, 'outer'))
                self.assertIn(msg, str(cm.exception))

    def test_kunit_off(self) -> None:
        lane = runner.parse_matrix('patched 8node status kunit=off\n')[0]
        self.assertEqual((lane.kunit, lane.name), (False, 'patched-8node-nokunit'))
        self.assertEqual(runner.doc_roles(lane), [('guest', ['status'])])
        with self.assertRaises(runner.MatrixError):
            runner.parse_matrix('patched 8node status kunit=on\n')
        # no KUnit document, so no required suite is looked for
        c = ktap.parse_console('KTAP version 1\n1..1\nok 1 status\n')
        _, reasons = runner.apply_policy(lane, c, ['pcpu_pgtable'], [('status', 'pass', '')])
        self.assertEqual(reasons, [])

    def test_skip_and_tcg(self) -> None:
        lane = runner.parse_matrix('patched 2node x skip=a.b,c.* tcg=single skip=d\n')[0]
        self.assertEqual((lane.skip, lane.tcg_single, lane.name),
                         (['a.b', 'c.*', 'd'], True, 'patched-2node-tcg1'))
        lane = runner.parse_matrix('patched 64cpu-4node x tcg=icount\n')[0]
        self.assertEqual((lane.tcg_single, lane.tcg_icount, lane.name),
                         (False, True, 'patched-64cpu-4node-icount'))

    def test_disk(self) -> None:
        lane = runner.parse_matrix('patched-real 2node bench kinsn disk=cc\n')[0]
        self.assertEqual((lane.disk, lane.name), ('cc', 'patched-real-2node-kinsn-cc'))
        for text, msg in (('patched 2node x disk=ext4\n', "disk='ext4'"),
                          ('patched 2node x disk=cc hibernate=resumed\n', 'one of them')):
            with self.subTest(text=text):
                with self.assertRaises(runner.MatrixError) as cm:
                    runner.parse_matrix(text)
                self.assertIn(msg, str(cm.exception))

    def test_op_budget(self) -> None:
        lane = runner.parse_matrix('patched 2node bench kinsn op_budget=5\n')[0]
        self.assertEqual(lane.op_budget, 5)
        for bad in ('patched 2node bench op_budget=5', 'patched 2node get kinsn op_budget=5',
                    'patched 2node bench kinsn op_budget=-1'):
            with self.assertRaises(runner.MatrixError):
                runner.parse_matrix(bad + '\n')

    def test_seed(self) -> None:
        lane = runner.parse_matrix('patched 2node pcpu_pgtable seed=14 append=x=2\n')[0]
        self.assertEqual((lane.seed, lane.name), (14, 'patched-2node-seed14-x-2'))

    def test_timeout(self) -> None:
        lane = runner.parse_matrix('patched 2node ktext_stress timeout=900\n')[0]
        # not in the name: the same lane with more time is the same lane
        self.assertEqual((lane.timeout, lane.name), (900, 'patched-2node'))
        self.assertIsNone(runner.parse_matrix('patched 2node x\n')[0].timeout)

    def test_minutes(self) -> None:
        lane = runner.parse_matrix('patched 8node soak minutes=30\n')[0]
        # -soak: never the run directory of make check's patched-8node; the
        # minutes are not in the name: a longer soak of the same lane
        self.assertEqual((lane.minutes, lane.name), (30, 'patched-8node-soak'))
        for bad in ('0', 'x', '-1', ''):
            with self.assertRaises(runner.MatrixError) as cm:
                runner.parse_matrix(f'patched 8node soak minutes={bad}\n')
            self.assertIn('is not a positive number of minutes', str(cm.exception))

    def test_kinsn(self) -> None:
        lane = runner.parse_matrix('patched 2node bench tcg=icount kinsn\n')[0]
        self.assertEqual((lane.kinsn, lane.name), (True, 'patched-2node-icount-kinsn'))
        self.assertFalse(runner.parse_matrix('patched 2node x\n')[0].kinsn)

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
                           ('patched 2node x timeout=1m\n', "timeout='1m' is not"),
                           ('patched 2node x skip=\n', 'skip= names no test'),
                           ('patched 2node x tcg=multi\n', "tcg='multi': expected"),
                           ('patched 2node x tcg=single singlestep\n', 'drop tcg='),
                           ('patched 2node x tcg=icount singlestep\n', 'drop tcg='),
                           ('patched 2node x kinsn kexec=y\n', 'kinsn counts one boot'),
                           ('patched 2node x hibernate=y kinsn\n', 'kinsn counts one boot')):
            with self.subTest(text=text):
                with self.assertRaises(runner.MatrixError) as cm:
                    runner.parse_matrix(text, 'm')
                self.assertIn(what, str(cm.exception))


if __name__ == '__main__':
    unittest.main()
