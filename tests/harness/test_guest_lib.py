# SPDX-License-Identifier: GPL-2.0
"""tests/guest/lib/ktap.sh on the host. ktap_kunit_rerun against fake
debugfs results: a failed case fails it, and so does a suite whose every
case skipped (it proved nothing); some skips next to passes do not.
bool_param against the kernel's kstrtobool() and early_param rules."""

from __future__ import annotations

import os
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.path.join(TOP, 'tests', 'guest', 'lib', 'ktap.sh')


def rerun(results: str) -> str:
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, 's'))
        with open(os.path.join(d, 's', 'results'), 'w', encoding='utf-8') as f:
            f.write(results)
        open(os.path.join(d, 's', 'run'), 'w', encoding='utf-8').close()
        out = subprocess.run(['sh', '-c', f'. {LIB}; ktap_kunit_rerun c s s'],
                             env={'KUNIT_DEBUGFS': d, 'PATH': os.environ['PATH']},
                             capture_output=True, text=True, check=False)
        return [l for l in out.stdout.splitlines() if not l.startswith('#')][-1]


def suite(*cases: str) -> str:
    return ('KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: s\n'
            f'    1..{len(cases)}\n' + ''.join(f'    {c}\n' for c in cases) + 'ok 1 s\n')


class KunitRerun(unittest.TestCase):
    def test_passes(self) -> None:
        self.assertEqual(rerun(suite('ok 1 a', 'ok 2 b # SKIP no copy')), 'ok 1 c')

    def test_failed_case(self) -> None:
        self.assertEqual(rerun(suite('ok 1 a', 'not ok 2 b')), 'not ok 1 c # failed: b ')

    def test_every_case_skipped(self) -> None:
        self.assertEqual(rerun(suite('ok 1 a # SKIP off', 'ok 2 b # SKIP off')),
                         'not ok 1 c # every case of s skipped')

    def test_unfinished(self) -> None:
        self.assertEqual(rerun('KTAP version 1\n    ok 1 a\n'),
                         'not ok 1 c # failed: the suite did not finish')


def bool_param(cmdline: str, name: str = 'percpu_pgtable') -> str:
    with tempfile.NamedTemporaryFile('w', suffix='.cmdline') as f:
        f.write(cmdline + '\n')
        f.flush()
        out = subprocess.run(['sh', '-c', f'. {LIB}; bool_param {name}; '
                              f'tables_wanted && echo wanted || echo unwanted'],
                             env={'HARNESS_CMDLINE': f.name, 'PATH': os.environ['PATH']},
                             capture_output=True, text=True, check=True)
        return ' '.join(out.stdout.split())


class BoolParam(unittest.TestCase):
    def test_kstrtobool(self) -> None:
        # lib/kstrtox.c: the first character, or "o" and the second
        for arg, want in (('percpu_pgtable=y', 'on'), ('percpu_pgtable=Yes', 'on'),
                          ('percpu_pgtable=t', 'on'), ('percpu_pgtable=1', 'on'),
                          ('percpu_pgtable=on', 'on'), ('percpu_pgtable=ON', 'on'),
                          ('percpu_pgtable=n', 'off'), ('percpu_pgtable=no', 'off'),
                          ('percpu_pgtable=false', 'off'), ('percpu_pgtable=0', 'off'),
                          ('percpu_pgtable=off', 'off'), ('percpu_pgtable=Of', 'off'),
                          ('percpu_pgtable=disable', 'invalid'), ('percpu_pgtable=o', 'invalid'),
                          ('percpu_pgtable=bogus', 'invalid'), ('percpu_pgtable=', 'invalid'),
                          # bare: early_param's handler gets NULL
                          ('percpu_pgtable', 'invalid'),
                          ('', 'default'), ('percpu_pgtable_x=0 xpercpu_pgtable=0', 'default'),
                          # the last one counts
                          ('percpu_pgtable=off percpu_pgtable=on', 'on')):
            with self.subTest(arg=arg):
                self.assertEqual(bool_param('console=ttyAMA0 ' + arg).split()[0], want)

    def test_tables_wanted(self) -> None:
        self.assertEqual(bool_param('a'), 'default wanted')
        self.assertEqual(bool_param('percpu_pgtable=no'), 'off unwanted')
        self.assertEqual(bool_param('percpu_pgtable=disable'), 'invalid wanted')
        self.assertEqual(bool_param('percpu_alloc=embed'), 'default unwanted')
        self.assertEqual(bool_param('percpu_alloc=page'), 'default wanted')


class KtextExpect(unittest.TestCase):
    def expect(self, topo: str, image: int = 0, failed: str = '') -> list[str]:
        exp = subprocess.run(['python3', os.path.join(TOP, 'scripts', 'harness.py'), 'topo',
                              topo, '--expect'], capture_output=True, text=True, check=True)
        with tempfile.NamedTemporaryFile('w', suffix='.topo') as f:
            f.write(exp.stdout)
            f.flush()
            out = subprocess.run(['sh', '-c', f'. {LIB}; ktext_expect {image} {f.name} "{failed}"'],
                                 capture_output=True, text=True, check=True)
        return sorted(out.stdout.splitlines())

    def test_rules(self) -> None:
        # a memory-less node runs its nearest node's copy; no copy for the image's node
        self.assertEqual(self.expect('memless'), ['source 0 0', 'source 1 0'])
        self.assertEqual(self.expect('memless-far'),
                         ['copy 1', 'source 0 0', 'source 1 1', 'source 2 1'])
        # a node without CPUs needs nothing
        self.assertEqual(self.expect('cpuless'), ['source 0 0'])
        self.assertEqual(len([l for l in self.expect('8node', 3) if l.startswith('copy')]), 7)

    def test_failed_reservations(self) -> None:
        # ktext_fail_reserve=: a failed node and the nodes it served run the original
        self.assertEqual(self.expect('memless-far', failed='1'),
                         ['source 0 0', 'source 1 0', 'source 2 0'])
        four = self.expect('4node-asym', failed='1,3')
        self.assertEqual(four, ['copy 2', 'source 0 0', 'source 1 0', 'source 2 2',
                                'source 3 0'])
        self.assertEqual(len([l for l in self.expect('8node', failed='2-5')
                              if l.startswith('copy')]), 3)


if __name__ == '__main__':
    unittest.main()
