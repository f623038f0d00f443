# SPDX-License-Identifier: GPL-2.0
"""The run overlay ships the test modules a kernel built, and only those;
the cross-boot check of the percpu column region's placement."""

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



def boot(name: str, topo: str, base: str, places: int) -> tuple[runner.Lane, str]:
    lane = runner.Lane('patched', topo, ['pcpu_pgtable'])
    lane.append = name
    return lane, (f'# region_start {base}\n'
                  f'# region_start {base}, one of {places} places\nok 7 region_randomised\n')


class RegionAcrossBoots(unittest.TestCase):
    def test_different_places_pass(self) -> None:
        res = runner.region_check([boot('a', '2node', '0xfffffc0040000000', 126000),
                                   boot('b', '2node', '0xfffff9c000000000', 126000)])
        self.assertEqual(len(res), 1)
        self.assertTrue(res[0][1], res)
        self.assertEqual(res[0][0], 'region_differs_between_boots patched 2node')

    def test_same_place_fails(self) -> None:
        res = runner.region_check([boot('a', '2node', '0xfffffc0040000000', 126000),
                                   boot('b', '2node', '0xfffffc0040000000', 126000)])
        self.assertFalse(res[0][1])

    def test_resumed_kernel_is_the_same_boot(self) -> None:
        # a hibernate lane prints the place before hibernating and again
        # after resume: one boot, not two at the same place
        lane, text = boot('h', '2node', '0xfffffc0040000000', 126000)
        twice = text + runner.SECOND_BOOT + '\n' + text
        res = runner.region_check([(lane, twice),
                                   boot('b', '2node', '0xfffff9c000000000', 126000)])
        self.assertTrue(res[0][1], res)
        self.assertEqual(res[0][2].count('0xfffffc0040000000'), 1, res)

    def test_not_randomised_or_alone_not_compared(self) -> None:
        # nokaslr boots (one place) sit at the top every time, as they must;
        # one boot per topology has nothing to be compared with
        self.assertEqual(runner.region_check([
            boot('a', '2node', '0xfffffcfec0000000', 1),
            boot('b', '2node', '0xfffffcfec0000000', 1),
            boot('c', '4node', '0xfffffc0040000000', 126000),
            boot('d', '2node', '0xfffffc0040000000', 126000)]), [])


if __name__ == '__main__':
    unittest.main()
