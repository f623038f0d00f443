# SPDX-License-Identifier: GPL-2.0
"""Every tests/mutants/*.mutation parses and names a lane and a test."""

from __future__ import annotations

import glob
import os
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
from harness import mutate  # noqa: E402


class MutationFiles(unittest.TestCase):
    def test_all_parse(self) -> None:
        files = glob.glob(os.path.join(TOP, 'tests', 'mutants', '*.mutation'))
        self.assertGreater(len(files), 0)
        topos = {os.path.basename(p)[:-5] for p in glob.glob(os.path.join(TOP, 'numa-topologies', '*.topo'))}
        for f in files:
            m = mutate.load(f)
            if m.get('check') == 'codegen':
                self.assertEqual(m['topo'], 'codegen', f)
            else:
                self.assertIn(m['topo'], topos, f)
            self.assertTrue(m['expect'], f)

    def test_more_edits(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            for name, text in (('a', 'x = 1;\n'), ('b', 'y = 2;\n')):
                with open(os.path.join(d, name), 'w', encoding='utf-8') as f:
                    f.write(text)
            m = os.path.join(d, 'm.mutation')
            with open(m, 'w', encoding='utf-8') as f:
                f.write('file: a\nfind: x = 1\nreplace: x = 3\nfile2: b\nfind2: y\n'
                        'replace2: z\ntopo: 2node\ntests: -\nhibernate: resumed\n'
                        'expect: t\n')
            sys.argv = ['mutate.py', m, d]
            self.assertEqual(mutate.main(), 0)
            with open(os.path.join(d, 'a'), encoding='utf-8') as f:
                self.assertEqual(f.read(), 'x = 3;\n')
            with open(os.path.join(d, 'b'), encoding='utf-8') as f:
                self.assertEqual(f.read(), 'z = 2;\n')
            with open(m, 'a', encoding='utf-8') as f:
                f.write('find3: q\n')
            with self.assertRaises(SystemExit):
                mutate.load(m)

    def test_check_writes_nothing(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, 'a'), 'w', encoding='utf-8') as f:
                f.write('x = 1;\n')
            m = os.path.join(d, 'm.mutation')
            with open(m, 'w', encoding='utf-8') as f:
                # the second edit matches only after the first: checked in order
                f.write('file: a\nfind: x = 1\nreplace: x = 3\nfile2: a\nfind2: x = 3\n'
                        'replace2: x = 4\ntopo: 2node\ntests: -\nexpect: t\n')
            sys.argv = ['mutate.py', '--check', m, d]
            self.assertEqual(mutate.main(), 0)
            with open(os.path.join(d, 'a'), encoding='utf-8') as f:
                self.assertEqual(f.read(), 'x = 1;\n')
            with open(os.path.join(d, 'a'), 'w', encoding='utf-8') as f:
                f.write('x = 2;\n')      # stale: find no longer matches
            self.assertEqual(mutate.main(), 1)

    def test_missing_key(self) -> None:
        with tempfile.NamedTemporaryFile('w', suffix='.mutation', delete=False) as t:
            t.write('file: x\nfind: y\n')
        try:
            with self.assertRaises(SystemExit):
                mutate.load(t.name)
        finally:
            os.unlink(t.name)


if __name__ == '__main__':
    unittest.main()
