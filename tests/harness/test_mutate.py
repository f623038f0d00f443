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
