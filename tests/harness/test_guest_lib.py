# SPDX-License-Identifier: GPL-2.0
"""tests/guest/lib/ktap.sh's ktap_kunit_rerun on the host, against fake
debugfs results: a failed case fails it, and so does a suite whose every
case skipped (it proved nothing); some skips next to passes do not."""

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


if __name__ == '__main__':
    unittest.main()
