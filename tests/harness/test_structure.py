# SPDX-License-Identifier: GPL-2.0
"""bench/structure.py's counts on a made-up objdump -d listing: what is a
preempt count write, which tpidr_el1 reads it follows, which sections
count."""
from __future__ import annotations

import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, 'bench'))
import structure  # noqa: E402

OFF = 8   # TSK_TI_PREEMPT in the listing below


def listing(*funcs: tuple[str, list[str]], section: str = '.text') -> list[str]:
    out = [f'Disassembly of section {section}:', '']
    addr = 0xffff800080010000
    for name, insns in funcs:
        out.append(f'{addr:016x} <{name}>:')
        for i in insns:
            addr += 4
            out.append(f'{addr:x}:\t' + i.replace(' ', '\t', 1))
        out.append('')
    return out


# a stock this_cpu_inc(): count up, tpidr_el1, the op, count down, the
# preempt_schedule_notrace() call
STOCK = ['mrs x1, sp_el0', 'ldr w0, [x1, #8]', 'add w0, w0, #0x1', 'str w0, [x1, #8]',
         'mrs x2, tpidr_el1', 'ldr x3, [x2]', 'add x3, x3, #0x1', 'str x3, [x2]',
         'ldr w0, [x1, #8]', 'sub w0, w0, #0x1', 'str w0, [x1, #8]',
         'cbnz w0, ffff800080010100 <f+0x100>', 'bl ffff800080020000 <preempt_schedule_notrace>',
         'ret']


class Scan(unittest.TestCase):
    def test_stock_op(self) -> None:
        c = structure.scan(listing(('f', STOCK)), OFF)
        self.assertEqual(c, {'preempt_schedule': 0, 'preempt_schedule_notrace': 1,
                             'preempt_count_writes': 2, 'tpidr_el1_reads': 1,
                             # the write before the read is not after it
                             'this_cpu_like_sites': 1})

    def test_what_is_not_a_count_write(self) -> None:
        insns = ['mrs x1, sp_el0', 'str w0, [x1, #16]',      # another field
                 'str x0, [x1, #8]',                          # 64-bit store
                 'mov x1, x5', 'str w0, [x1, #8]',            # x1 is no longer current
                 'mrs x4, sp_el0', 'ldp x4, x6, [sp]', 'str w0, [x4, #8]',
                 'mrs x6, sp_el0', 'ldp x7, x6, [sp]', 'str w0, [x6, #8]',  # ldp's second
                 'bl ffff800080020000 <preempt_schedule>']
        c = structure.scan(listing(('g', insns)), OFF)
        self.assertEqual((c['preempt_count_writes'], c['preempt_schedule']), (0, 1))

    def test_window_and_function_bounds(self) -> None:
        far = ['mrs x2, tpidr_el1'] + ['nop'] * structure.WINDOW + \
            ['mrs x1, sp_el0', 'str w0, [x1, #8]']
        near = ['mrs x2, tpidr_el1'] + ['nop'] * (structure.WINDOW - 3) + \
            ['mrs x1, sp_el0', 'str w0, [x1, #8]']
        c = structure.scan(listing(('far', far), ('near', near)), OFF)
        self.assertEqual((c['tpidr_el1_reads'], c['preempt_count_writes'],
                          c['this_cpu_like_sites']), (2, 2, 1))
        # the read in one function does not reach the next one's write
        c = structure.scan(listing(('a', ['mrs x2, tpidr_el1']),
                                   ('b', ['mrs x1, sp_el0', 'str w0, [x1, #8]'])), OFF)
        self.assertEqual(c['this_cpu_like_sites'], 0)

    def test_sections(self) -> None:
        for sec, counted in (('.text', True), ('.noinstr.text', True), ('.entry.text', True),
                             ('.altinstr_replacement', False), ('.init.text', False)):
            c = structure.scan(listing(('f', STOCK), section=sec), OFF)
            self.assertEqual(c['tpidr_el1_reads'], int(counted), sec)

    def test_table_ratios(self) -> None:
        res = {'a': dict.fromkeys((k for k, _ in structure.ROWS), 10),
               'b': dict.fromkeys((k for k, _ in structure.ROWS), 5)}
        res['a']['kseq_entries'] = 0
        text = structure.table(res)
        self.assertIn('| text: function bytes | 10 | 5 (0.500) |', text)
        self.assertIn('| __kseq_table entries | 0 | 5 |', text)

    def test_ratio_to_own_vanilla(self) -> None:
        # each kernel against the vanilla kernel of its own configuration
        res = {k: dict.fromkeys((r for r, _ in structure.ROWS), v) for k, v in
               (('vanilla-distro', 10), ('distro', 5), ('vanilla-distro-dynamic', 20),
                ('distro-dynamic', 5), ('patched', 4))}
        self.assertIn('| text: function bytes | 10 | 5 (0.500) | 20 | 5 (0.250) | 4 (0.400) |',
                      structure.table(res))


if __name__ == '__main__':
    unittest.main()
