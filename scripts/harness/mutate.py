#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mutate.py MUTATION TREE | --lane MUTATION - apply one scripted mutation.

A mutation file has "key: value" lines: file (path in the kernel tree),
find (a Python regex, matched exactly once), replace, topo, tests, append
(or -), expect (the test path suffix that must fail), why (one line);
optionally config (va52: the mutant is built with configs/va52.config
too) and cpu (a QEMU -cpu model for the boot).
"check: codegen" instead of topo and tests: the mutant is not booted, its
this_cpu code is checked by bench/codegen_check.py, where expect must fail.
"""

from __future__ import annotations

import argparse
import re
import sys


def load(path: str) -> dict[str, str]:
    d: dict[str, str] = {}
    key = ''
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            if line.startswith(' ') and key:   # continuation
                d[key] += '\n' + line[1:].rstrip('\n')
                continue
            key, _, val = line.partition(':')
            d[key.strip()] = val.strip()
    need = ['file', 'find', 'replace', 'expect']
    if d.get('check', 'boot') == 'codegen':
        d.setdefault('topo', 'codegen')
        d.setdefault('tests', '-')
    elif d.get('check', 'boot') != 'boot':
        raise SystemExit(f'{path}: "check:" is boot or codegen, not {d["check"]!r}')
    if d.get('config', 'series') not in ('series', 'va52'):
        raise SystemExit(f'{path}: "config:" is series or va52, not {d["config"]!r}')
    else:
        need += ['topo', 'tests']
    for k in need:
        if k not in d:
            raise SystemExit(f'{path}: missing "{k}:"')
    return d


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--lane', action='store_true',
                    help='print: topo tests append expect kernel cpu')
    ap.add_argument('mutation')
    ap.add_argument('tree', nargs='?')
    a = ap.parse_args()
    m = load(a.mutation)
    if a.lane:
        kernel = 'mutant-va52' if m.get('config') == 'va52' else 'mutant'
        print('\t'.join((m['topo'], m['tests'], m.get('append', '-') or '-', m['expect'],
                         kernel, m.get('cpu', '-') or '-')))
        return 0
    path = f'{a.tree}/{m["file"]}'
    with open(path, encoding='utf-8') as f:
        s = f.read()
    n = len(re.findall(m['find'], s, flags=re.S))
    if n != 1:
        print(f'{a.mutation}: "find" matches {n} times in {m["file"]}', file=sys.stderr)
        return 1
    s = re.sub(m['find'], m['replace'].replace('\\n', '\n'), s, flags=re.S)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(s)
    return 0


if __name__ == '__main__':
    sys.exit(main())
