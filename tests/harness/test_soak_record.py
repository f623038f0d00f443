# SPDX-License-Identifier: GPL-2.0
"""bench/soak_record.py: the "# soak:" line of tests/guest/soak.sh read back."""

from __future__ import annotations

import importlib.util
import os
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location('soak_record',
                                              os.path.join(TOP, 'bench', 'soak_record.py'))
soak_record = importlib.util.module_from_spec(spec)
spec.loader.exec_module(soak_record)


class ParseSummary(unittest.TestCase):
    LINE = ('    # soak: secs=1800 cpus=8 nodes=4 hotplug_cycles=912 '
            'stress_ng=fork:100,exec:20,switch:3000,futex:7,mmap:2,pipe:55 '
            'text_loads=15 patch_rounds=4000 percpu_loads=6 objects=10 updates=300 '
            'migrations=4 timer_updates=99 chunks_created=12 chunks_destroyed=-1 '
            'alias_pages=40-96\n')

    def test_fields(self) -> None:
        s = soak_record.parse_summary('boot\n    # soak: secs=1\n' + self.LINE)
        # the last line wins
        self.assertEqual(s['secs'], 1800)
        self.assertEqual(s['stress_ng'], {'fork': 100, 'exec': 20, 'switch': 3000,
                                          'futex': 7, 'mmap': 2, 'pipe': 55})
        self.assertEqual((s['chunks_destroyed'], s['alias_pages']), (-1, '40-96'))

    def test_stress_ng_off(self) -> None:
        s = soak_record.parse_summary('# soak: secs=60 stress_ng=off patch_rounds=3\n')
        self.assertEqual((s['stress_ng'], s['patch_rounds']), ({}, 3))

    def test_no_line(self) -> None:
        self.assertIsNone(soak_record.parse_summary('# soakage: x=1\nok 1 soak\n'))


if __name__ == '__main__':
    unittest.main()
