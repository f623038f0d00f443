#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""codegen_check.py DIR [--budget FILE] [--alias-kernel K] - the alias kernel's this_cpu code, as KTAP.

DIR is bench/disasm.sh's work directory (build/bench/disasm), holding, per
kernel, the listing of bench/this_cpu_ops, the listing of the out-of-line
stock ops (callees.dis) and the number of preempt_schedule_notrace() call
sites in vmlinux (preempt_sites). Checked, for the kernels patched (alias),
stock and kseq:

- each op's path with the alias on is within bench/codegen.budget (the
  percpu section is linked at the alias window, so the pointer itself is
  the address: no offset is added or loaded), touches neither the preempt
  count (sp_el0) nor TPIDR_EL1, and calls nothing;
- each op's call site carries no stock sequence: no preempt count access
  and no call into the scheduler; with the alias off, its path makes
  exactly one call, to an out-of-line stock op (__pcpu_stock_*);
- the alias and kseq kernels call preempt_schedule_notrace() from fewer
  places than the stock kernel, the alias kernel from at most the
  budget's share.

Exit status 1 if any check fails, 2 on bad input.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import path_count  # noqa: E402


def load_budget(path: str) -> tuple[dict[str, tuple[int, int]], int]:
    ops, share = {}, None
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            w = line.split('#', 1)[0].split()
            if not w:
                continue
            try:
                if w[0] == 'preempt_sites_percent_of_stock' and len(w) == 2:
                    share = int(w[1])
                elif len(w) == 3:
                    ops[w[0]] = (int(w[1]), int(w[2]))
                else:
                    raise ValueError
            except ValueError:
                raise SystemExit(f'error: {path}:{n}: expected "function insns mem" '
                                 f'or "preempt_sites_percent_of_stock N", got {line.strip()!r}')
    if share is None or not ops:
        raise SystemExit(f'error: {path}: needs op budgets and preempt_sites_percent_of_stock')
    return ops, share


def callees(path: str) -> dict[str, list]:
    if not os.path.exists(path):
        return {}
    with open(path, encoding='utf-8') as f:
        names = re.findall(r'^[0-9a-f]+ <([^>]+)>:$', f.read(), re.M)
    return {n: path_count.listing(path, n) for n in names}


def mem(path: list) -> int:
    return sum(1 for _, op, _ in path if re.match(r'(ld|st|cas|swp)', op))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('dir')
    ap.add_argument('--budget', default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     'codegen.budget'))
    ap.add_argument('--alias-kernel', default='patched',
                    help='the kernel built with the alias (mutant for make mutants)')
    args = ap.parse_args()
    budget, share = load_budget(args.budget)
    dis = {}
    for k in ('patched', 'stock', 'kseq'):
        d = os.path.join(args.dir, args.alias_kernel if k == 'patched' else k)
        for f in ('this_cpu_ops.dis', 'preempt_sites'):
            if not os.path.exists(os.path.join(d, f)):
                print(f'error: {os.path.join(d, f)} missing: run bench/disasm.sh '
                      f'{args.alias_kernel} stock kseq',
                      file=sys.stderr)
                return 2
        dis[k] = d
    listing = os.path.join(dis['patched'], 'this_cpu_ops.dis')
    ool = callees(os.path.join(dis['patched'], 'callees.dis'))
    results: list[tuple[bool, str, str]] = []

    for func, (max_insns, max_mem) in budget.items():
        insns = path_count.listing(listing, func)
        if not insns:
            results.append((False, f'{func}_budget', f'{func} not in {listing}'))
            continue
        # this listing is the alias kernel's: its first b is the capability
        # test whatever the code after it looks like
        on = path_count.walk(insns, True, alias_kernel=True)
        n, m = len(on), mem(on)
        results.append((n <= max_insns and m <= max_mem, f'{func}_budget',
                        f'alias on: {n} instructions, {m} memory accesses; budget {max_insns}/{max_mem}'))
        bad = [f'{a:x}: {op} {rest}' for a, op, rest in on
               if 'sp_el0' in rest or 'tpidr_el' in rest or 'preempt_schedule' in rest
               or op == 'bl']
        results.append((not bad, f'{func}_alias_path_clean',
                        'no preempt count or TPIDR on the alias path' if not bad else '; '.join(bad)))
        inline = [f'{a:x}: {op} {rest}' for a, op, rest in insns
                  if 'sp_el0' in rest or 'preempt_schedule' in rest]
        off = path_count.walk(insns, False, ool)
        calls = [rest for _, op, rest in off if op == 'bl']
        ok = not inline and len(calls) == 1 and '<__pcpu_stock_' in calls[0]
        why = (f'alias off: {len(off)} instructions, {mem(off)} memory accesses, '
               f'calls {calls}' + (f'; inline stock code: {inline}' if inline else ''))
        results.append((ok, f'{func}_stock_out_of_line', why))

    sites = {}
    for k, d in dis.items():
        with open(os.path.join(d, 'preempt_sites'), encoding='utf-8') as f:
            sites[k] = int(f.read().strip() or 0)
    for k in ('patched', 'kseq'):
        results.append((sites[k] < sites['stock'], f'preempt_sites_{k}_below_stock',
                        f'{k} {sites[k]}, stock {sites["stock"]}'))
    limit = sites['stock'] * share // 100
    results.append((sites['patched'] <= limit, 'preempt_sites_patched_budget',
                    f'patched {sites["patched"]}, at most {share}% of stock {sites["stock"]} = {limit}'))

    print('KTAP version 1')
    print(f'1..{len(results)}')
    for i, (ok, name, why) in enumerate(results, 1):
        print(f'# {why}')
        print(f'{"ok" if ok else "not ok"} {i} {name}')
    return 0 if all(ok for ok, _, _ in results) else 1


if __name__ == '__main__':
    sys.exit(main())
