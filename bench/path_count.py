#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""path_count.py DIS FUNC [--alias on|off] [--callees DIS2] - instructions executed by one call.

Walks the objdump listing of FUNC from its entry along the common path:
an exclusive-store retry is not taken (no contention); the preempt_enable
fast path is followed (count back to zero, no reschedule pending); value
compares succeed; the first unconditional b is the alternative_has_cap_likely()
test of ARM64_HAS_PCPU_ALIAS, patched to a nop when the alias is on and
taken when it is off. LSE and LL/SC
alternatives have the same length, so the count holds for either.
With --callees, a bl to a function listed in DIS2 (the alias kernel's
out-of-line stock ops, arch/arm64/kernel/percpu_stock.o) is followed, and
the callee's path counts too.
"""

from __future__ import annotations

import argparse
import re
import sys

INSN = re.compile(r'^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$')


def listing(path: str, func: str) -> list[tuple[int, str, str]]:
    out, on = [], False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.rstrip().endswith(f'<{func}>:'):
                on = True
                continue
            if on:
                if not line.strip():
                    break
                m = INSN.match(line)
                if m:
                    out.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return out


def walk(insns: list[tuple[int, str, str]], alias_on: bool,
         callees: dict[str, list[tuple[int, str, str]]] | None = None,
         alias_kernel: bool | None = None) -> list[tuple[int, str, str]]:
    """The common path through insns. alias_kernel says whether the first
    unconditional b is the ARM64_HAS_PCPU_ALIAS test; None guesses it from
    a call of an out-of-line stock op (__pcpu_stock_*), which only an alias
    kernel has (right for an unbroken alias kernel, but a broken one that
    lost the call would be walked as stock: a caller that knows which
    kernel it reads must say so)."""
    by_addr = {a: i for i, (a, _, _) in enumerate(insns)}
    cap_test = next((k for k, (_, op, _) in enumerate(insns) if op == 'b'), None)
    if alias_kernel is None:
        alias_kernel = any(op == 'bl' and '<__pcpu_stock_' in a for _, op, a in insns)
    path: list[tuple[int, str, str]] = []
    i = 0
    while i < len(insns) and len(path) < 1000:
        addr, op, args = insns[i]
        prev = path[-1][1] if path else ''
        path.append(insns[i])
        m = re.search(r'\b([0-9a-f]+) <', args)
        target = int(m.group(1), 16) if m else None
        if op == 'ret':
            break
        if op == 'bl' and callees:
            c = re.search(r'<([^>+]+)>', args)
            if c and c.group(1) in callees:
                path.extend(walk(callees[c.group(1)], False, alias_kernel=False))
            i += 1
            continue
        taken = False
        if op == 'b':
            # the first unconditional b is the ARM64_HAS_PCPU_ALIAS test
            # (in an alias kernel, whose stock path calls __pcpu_stock_*)
            taken = not (i == cap_test and alias_on and alias_kernel)
        elif op in ('cbz', 'cbnz', 'tbz', 'tbnz') or op.startswith('b.'):
            if target < addr:
                # an exclusive-store retry is not taken; other loops back are
                taken = not prev.startswith(('stxr', 'stlxr', 'stxp', 'stlxp'))
            else:
                # preempt_enable fast path: cbnz after the preempt_count
                # bookkeeping is taken; cbz (count hit zero) is not; value
                # compares of cmpxchg succeed (not taken)
                taken = op == 'cbnz' and prev.startswith(('str', 'ldr'))
        if taken:
            i = by_addr[target]
        else:
            i += 1
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('dis')
    ap.add_argument('func')
    ap.add_argument('--alias', choices=('on', 'off'), default='on')
    ap.add_argument('--callees', default='', help='listing of functions whose calls are followed')
    ap.add_argument('-v', action='store_true', help='print the path')
    args = ap.parse_args()
    insns = listing(args.dis, args.func)
    if not insns:
        print(f'error: {args.func} not found in {args.dis}', file=sys.stderr)
        return 2
    callees = {}
    if args.callees:
        with open(args.callees, encoding='utf-8') as f:
            names = re.findall(r'^[0-9a-f]+ <([^>]+)>:$', f.read(), re.M)
        callees = {n: listing(args.callees, n) for n in names}
    path = walk(insns, args.alias == 'on', callees)
    if args.v:
        for a, op, rest in path:
            print(f'  {a:x}: {op} {rest}')
    mem = sum(1 for _, op, _ in path if re.match(r'(ld|st|cas|swp)', op))
    print(f'{len(path)} {mem}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
