# SPDX-License-Identifier: GPL-2.0
"""bench/path_count.py walks an alias kernel's op as the alias path, also
when the op is broken (the case the alias-via-tpidr mutation found)."""

from __future__ import annotations

import os
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, 'bench'))
import path_count  # noqa: E402

GOOD = '''
00000000000002b0 <f>:
 2b0:	nop
 2b4:	nop
 2b8:	b	2d4 <f+0x24>
 2bc:	adrp	x0, 0 <g>
 2c0:	add	x0, x0, #0x0
 2c4:	mov	x2, #0x1
 2c8:	stadd	x2, [x0]
 2cc:	ret
 2d0:	ret
 2d4:	bl	0 <__pcpu_stock___percpu_add_case_64>
 2d8:	ret

'''

# the alias address computed from TPIDR_EL1, and the stock call lost:
# nothing left to recognise an alias kernel by
BROKEN = '''
00000000000002b0 <f>:
 2b0:	nop
 2b4:	nop
 2b8:	b	2d0 <f+0x20>
 2bc:	adrp	x0, 0 <g>
 2c0:	add	x0, x0, #0x0
 2c4:	mrs	x1, tpidr_el1
 2c8:	add	x0, x0, x1
 2cc:	ret
 2d0:	nop
 2d4:	ret

'''


def insns(text: str) -> list:
    with tempfile.NamedTemporaryFile('w', suffix='.dis', delete=False) as f:
        f.write(text)
    try:
        return path_count.listing(f.name, 'f')
    finally:
        os.unlink(f.name)


class Walk(unittest.TestCase):
    def test_alias_on_skips_cap_branch(self) -> None:
        path = path_count.walk(insns(GOOD), True)
        self.assertEqual([op for _, op, _ in path],
                         ['nop', 'nop', 'b', 'adrp', 'add', 'mov', 'stadd', 'ret'])

    def test_alias_off_takes_cap_branch(self) -> None:
        path = path_count.walk(insns(GOOD), False)
        self.assertEqual([op for _, op, _ in path][-2:], ['bl', 'ret'])

    def test_broken_alias_kernel_walked_as_alias(self) -> None:
        path = path_count.walk(insns(BROKEN), True, alias_kernel=True)
        self.assertIn('mrs', [op for _, op, _ in path])

    def test_guess_without_stock_call_is_stock(self) -> None:
        # why codegen_check.py must say alias_kernel=True
        path = path_count.walk(insns(BROKEN), True)
        self.assertNotIn('mrs', [op for _, op, _ in path])


if __name__ == '__main__':
    unittest.main()
