#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mutate.py [--check] MUTATION TREE | --lane MUTATION - apply one scripted
mutation (--check: only say whether it applies, writing nothing).

A mutation file has "key: value" lines: file (path in the kernel tree),
find (a Python regex, matched exactly once), replace, topo, tests, append
(or -), expect (the test path suffix that must fail), why (one line);
optionally config (va52: the mutant is built with configs/va52.config
too), cpu (a QEMU -cpu model for the boot), kexec or hibernate (the guest
tests of the lane's second kernel, as in tests/matrix), skip (the skips
the lane expects, as skip= in tests/matrix), boot (more options of
harness.py boot, as --kinsn --tcg-single --op-budget 5), and more edits as
file2, find2, replace2, file3, ... (all applied, each matched once).
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
    if 'kexec' in d and 'hibernate' in d:
        raise SystemExit(f'{path}: "kexec:" or "hibernate:", not both')
    for k in d:
        m = re.fullmatch(r'(file|find|replace)(\d+)', k)
        if m and not all(f'{x}{m.group(2)}' in d for x in ('file', 'find', 'replace')):
            raise SystemExit(f'{path}: "{k}:" needs file{m.group(2)}, find{m.group(2)} '
                             f'and replace{m.group(2)}')
    return d


def edits(m: dict[str, str]) -> list[tuple[str, str, str]]:
    """(file, find, replace) of every edit: the first, then file2, ..."""
    out = [(m['file'], m['find'], m['replace'])]
    n = 2
    while f'file{n}' in m:
        out.append((m[f'file{n}'], m[f'find{n}'], m[f'replace{n}']))
        n += 1
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--lane', action='store_true',
                    help='print: topo tests append expect kernel cpu then skip boot')
    ap.add_argument('--check', action='store_true',
                    help='whether every edit applies to TREE; change nothing')
    ap.add_argument('mutation')
    ap.add_argument('tree', nargs='?')
    a = ap.parse_args()
    m = load(a.mutation)
    if a.lane:
        kernel = 'mutant-va52' if m.get('config') == 'va52' else 'mutant'
        then = '-'
        for k in ('kexec', 'hibernate'):
            if k in m:
                then = f'--{k}={m[k]}'
        print('\t'.join((m['topo'], m['tests'], m.get('append', '-') or '-', m['expect'],
                         kernel, m.get('cpu', '-') or '-', then, m.get('skip', '-') or '-',
                         m.get('boot', '-') or '-')))
        return 0
    text: dict[str, str] = {}
    for file, find, replace in edits(m):
        path = f'{a.tree}/{file}'
        if path not in text:
            with open(path, encoding='utf-8') as f:
                text[path] = f.read()
        n = len(re.findall(find, text[path], flags=re.S))
        if n != 1:
            print(f'{a.mutation}: "{find[:40]}" matches {n} times in {file}', file=sys.stderr)
            return 1
        text[path] = re.sub(find, replace.replace('\\n', '\n'), text[path], flags=re.S)
    if not a.check:
        for path, s in text.items():
            with open(path, 'w', encoding='utf-8') as f:
                f.write(s)
    return 0


if __name__ == '__main__':
    sys.exit(main())
