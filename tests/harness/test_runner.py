# SPDX-License-Identifier: GPL-2.0
"""The run overlay ships the test modules a kernel built, and only those."""

from __future__ import annotations

import os
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
from harness import runner  # noqa: E402


class GuestModules(unittest.TestCase):
    def test_none_built(self) -> None:
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(runner.module_entries(out), [])

    def test_built_module_shipped(self) -> None:
        with tempfile.TemporaryDirectory() as out:
            rel = runner.GUEST_MODULES[0]
            os.makedirs(os.path.join(out, os.path.dirname(rel)))
            with open(os.path.join(out, rel), 'wb') as f:
                f.write(b'\x7fELF module')
            entries = runner.module_entries(out)
            self.assertEqual(entries[0][0], 'harness/modules')
            self.assertEqual(entries[1], (f'harness/modules/{os.path.basename(rel)}',
                                          0o100644, b'\x7fELF module'))
            self.assertEqual(len(entries), 2)


if __name__ == '__main__':
    unittest.main()
