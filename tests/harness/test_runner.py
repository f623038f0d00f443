# SPDX-License-Identifier: GPL-2.0
"""The run overlay ships the test modules a kernel built, and only those;
the cross-boot check of the percpu column region's placement; the
coverage of the maintenance sites across lanes (tests/sites)."""

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


class SiteCoverage(unittest.TestCase):
    RULES = runner.load_sites('a\nb\nc unreachable no such state in QEMU\n')

    @staticmethod
    def lane(name: str, **kw) -> runner.Lane:
        return runner.Lane('patched', '2node', ['x'], label=name, **kw)

    def test_every_site_reached(self) -> None:
        cov, per_site = runner.site_coverage(
            [(self.lane('l1'), 'pgtable_sites: a=3 b=0 c=0 \n'),
             (self.lane('l2'), 'boot\npgtable_sites: a=1 b=2 c=0\n'),
             (self.lane('vanilla'), 'no counters here\n')], self.RULES)
        self.assertEqual([(n, ok) for n, ok, _ in cov],
                         [('site_coverage.a', True), ('site_coverage.b', True),
                          ('site_coverage.c', True)])
        self.assertEqual(per_site['a'], {'l1': 3, 'l2': 1})
        self.assertIn('unreachable under QEMU: no such state', cov[2][2])

    def test_site_nobody_reached(self) -> None:
        cov, _ = runner.site_coverage([(self.lane('l1'), 'pgtable_sites: a=3 b=0 c=0\n')],
                                      self.RULES)
        self.assertEqual(cov[1], ('site_coverage.b', False, 'no lane reached it'))

    def test_unreachable_site_reached(self) -> None:
        cov, _ = runner.site_coverage([(self.lane('l1'), 'pgtable_sites: a=1 b=1 c=4\n')],
                                      self.RULES)
        self.assertFalse(cov[2][1])
        self.assertIn('remove "unreachable"', cov[2][2])

    def test_lists_disagree(self) -> None:
        cov, _ = runner.site_coverage([(self.lane('l1'), 'pgtable_sites: a=1 c=0 d=5\n')],
                                      self.RULES)
        self.assertIn(('site_coverage.b', False, 'not a site the kernels count'), cov)
        self.assertIn(('site_coverage.d', False, 'counted by the kernels, not in tests/sites'),
                      cov)

    def test_no_counters_anywhere(self) -> None:
        cov, _ = runner.site_coverage([(self.lane('l1'), 'KTAP version 1\n')], self.RULES)
        self.assertEqual([(n, ok) for n, ok, _ in cov], [('site_coverage', False)])

    def test_second_kernels(self) -> None:
        text = 'pgtable_sites: a=1 b=0\nKTAP version 1\npgtable_sites: a=2 b=5\n'
        # kexec: a fresh kernel, the counts add up; hibernate: the same one
        self.assertEqual(runner.lane_sites(self.lane('k', kexec=['x']), text), {'a': 3, 'b': 5})
        self.assertEqual(runner.lane_sites(self.lane('h', hibernate=['x']), text),
                         {'a': 2, 'b': 5})

    def test_bad_rules(self) -> None:
        for text in ('a b\n', 'a unreachable\n', 'a\na\n'):
            with self.assertRaises(runner.MatrixError):
                runner.load_sites(text)

    def test_shipped_rules_parse(self) -> None:
        with open(os.path.join(TOP, 'tests', 'sites'), encoding='utf-8') as f:
            rules = runner.load_sites(f.read())
        self.assertTrue(any(r.unreachable for r in rules))


if __name__ == '__main__':
    unittest.main()


class HangWhere(unittest.TestCase):
    """A timed-out lane names where its vCPUs were, from the monitor's
    registers, System.map and the _stext init printed."""

    SMAP = ('ffff800080000000 T _text\n'
            'ffff800080010000 T _stext\n'
            'ffff800080010100 t cpu_do_idle\n'
            'ffff800080010200 T stop_machine_cpuslocked\n'
            'ffff800080020000 D some_data\n')
    DUMP = ('CPU#0\n PC=ffffa00000010108 X00=0000000000000000\n'
            'CPU#1\n PC=ffffa00000010234 X00=0000000000000001\n'
            'CPU#2\n PC=0000000000400000 X00=0000000000000001\n')
    CONSOLE = 'boot\nkaslr: _stext 0xffffa00000010000\nKTAP version 1\n'

    def test_named_by_the_running_stext(self) -> None:
        self.assertEqual(runner.hang_where(self.DUMP, self.CONSOLE, self.SMAP),
                         'hang: vCPUs at CPU0 cpu_do_idle+0x8, '
                         'CPU1 stop_machine_cpuslocked+0x34, CPU2 0x400000')

    def test_last_kernel_wins(self) -> None:
        console = self.CONSOLE + 'kaslr: _stext 0xffffa00000110000\n'
        self.assertIn('CPU0 0xffffa00000010108',
                      runner.hang_where(self.DUMP, console, self.SMAP))

    def test_raw_without_stext(self) -> None:
        self.assertEqual(runner.hang_where(self.DUMP, 'boot\n', self.SMAP),
                         'hang: vCPUs at CPU0 0xffffa00000010108, '
                         'CPU1 0xffffa00000010234, CPU2 0x400000')

    def test_no_registers(self) -> None:
        self.assertEqual(runner.hang_where('', self.CONSOLE, self.SMAP),
                         'hang: the monitor gave no registers')

    def test_report(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(runner.hang_report(d, 'a\nlast line\n\n', '/nonexistent'),
                             ['hang: last console line 3: last line',
                              'hang: no register dump'])
            with open(os.path.join(d, runner.HANG_DUMP), 'w', encoding='utf-8') as f:
                f.write(self.DUMP)
            smap = os.path.join(d, 'System.map')
            with open(smap, 'w', encoding='utf-8') as f:
                f.write(self.SMAP)
            self.assertEqual(runner.hang_report(d, self.CONSOLE, smap)[1],
                             'hang: vCPUs at CPU0 cpu_do_idle+0x8, '
                             'CPU1 stop_machine_cpuslocked+0x34, CPU2 0x400000')
