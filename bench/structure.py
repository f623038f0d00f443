#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""structure.py [--json FILE] KERNEL... - the whole kernel's structure per
variant, from its vmlinux (build/out/KERNEL/vmlinux), disassembled with
the cross objdump:

  function bytes       the sizes of the text symbols (nm -S, t/T)
  preempt_schedule     call sites of preempt_schedule() (preempt_enable())
  ..._notrace          call sites of preempt_schedule_notrace()
                       (preempt_enable_notrace(), the stock this_cpu ops)
  preempt_count writes stores to the running task's preempt count: a
                       32-bit str/stur at TSK_TI_PREEMPT (asm-offsets.h)
                       from a register that holds sp_el0 (current)
  tpidr_el1 reads      mrs Xn, tpidr_el1: the per-CPU offset (patched to
                       tpidr_el2 under VHE by the alternatives)
  this_cpu-like sites  preempt_count writes within WINDOW instructions
                       after a tpidr_el1 read in the same function: the
                       shape of a stock this_cpu op, and of code that
                       takes this_cpu_ptr() with preemption off
  kseq entries         __kseq_table's entries (8 bytes each)

Counted in the kernel's own text, not in .altinstr_replacement (the
replacement sequences of the alternatives) nor in .init.text. The
preempt-count and this_cpu-like counts follow registers within one
function, forgetting a register when an instruction writes it: a
heuristic, the same for every kernel, checked by the numbers it gives
for a kernel whose this_cpu ops are known (vanilla: every op is such a
site).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from typing import Iterable

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get('BUILD', os.path.join(TOP, 'build'))
CROSS = os.environ.get('CROSS_COMPILE', 'aarch64-linux-gnu-')
WINDOW = 12

SECTION = re.compile(r'^Disassembly of section (\S+):')
FUNC = re.compile(r'^[0-9a-f]+ <([^>]+)>:')
INSN = re.compile(r'^\s*[0-9a-f]+:\s+(\S+)\s*(.*)$')
REG = re.compile(r'^[xw](\d+)$')
# instructions that do not write their first operand
NO_DEST = re.compile(r'^(st|b$|b\.|bl$|blr|br$|bra|cbn?z$|tbn?z$|cmp|cmn|tst|ret|hint|nop|'
                     r'dmb|dsb|isb|msr|prfm|at$|dc$|ic$|tlbi|brk|svc|hvc|smc|eret|bti|'
                     r'ccmp|ccmn|yield|wf|sev|clrex|csdb|esb|psb)')


def reg_no(op: str) -> int | None:
    m = REG.match(op.strip())
    return int(m.group(1)) if m else None


def preempt_offset(kernel: str) -> int:
    path = os.path.join(BUILD, 'out', kernel, 'include', 'generated', 'asm-offsets.h')
    try:
        with open(path, encoding='utf-8') as f:
            m = re.search(r'#define TSK_TI_PREEMPT (\d+)', f.read())
    except OSError:
        m = None
    if not m:
        raise SystemExit(f'error: no TSK_TI_PREEMPT in {path} (make kernel-{kernel})')
    return int(m.group(1))


def scan(lines: Iterable[str], off: int) -> dict[str, int]:
    """The call-site and register counts of an objdump -d listing; off is
    the preempt count's offset in task_struct (TSK_TI_PREEMPT)."""
    store = re.compile(r'^w\d+, \[x(\d+)(?:, #(\d+))?\]$')
    c = {'preempt_schedule': 0, 'preempt_schedule_notrace': 0, 'preempt_count_writes': 0,
         'tpidr_el1_reads': 0, 'this_cpu_like_sites': 0}
    counted_section = False
    current: set[int] = set()
    since_tpidr = None  # instructions since the last tpidr_el1 read in this function
    for line in lines:
        m = SECTION.match(line)
        if m:
            sec = m.group(1)
            counted_section = sec.startswith('.text') or sec in ('.head.text', '.noinstr.text',
                                                                 '.entry.text', '.idmap.text',
                                                                 '.hyp.text')
            continue
        if not counted_section:
            continue
        if FUNC.match(line):
            current, since_tpidr = set(), None
            continue
        m = INSN.match(line)
        if not m:
            continue
        mn, ops = m.group(1), m.group(2).split('//')[0].strip()
        if since_tpidr is not None:
            since_tpidr += 1
        if mn == 'bl':
            if ops.endswith('<preempt_schedule>'):
                c['preempt_schedule'] += 1
            elif ops.endswith('<preempt_schedule_notrace>'):
                c['preempt_schedule_notrace'] += 1
        first = ops.split(',')[0] if ops else ''
        if mn == 'mrs':
            r = reg_no(first)
            if ops.endswith('sp_el0') and r is not None:
                current.add(r)
                continue
            if ops.endswith('tpidr_el1'):
                c['tpidr_el1_reads'] += 1
                since_tpidr = 0
        if mn in ('str', 'stur'):
            s = store.match(ops)
            if s and int(s.group(1)) in current and int(s.group(2) or 0) == off:
                c['preempt_count_writes'] += 1
                if since_tpidr is not None and since_tpidr <= WINDOW:
                    c['this_cpu_like_sites'] += 1
            continue
        if not NO_DEST.match(mn):
            r = reg_no(first)
            if r is not None:
                current.discard(r)
            if mn in ('ldp', 'ldpsw', 'ldxp', 'ldaxp'):
                r = reg_no(ops.split(',')[1]) if ops.count(',') else None
                if r is not None:
                    current.discard(r)
    return c


def count(kernel: str) -> dict:
    vmlinux = os.path.join(BUILD, 'out', kernel, 'vmlinux')
    if not os.path.exists(vmlinux):
        raise SystemExit(f'error: kernel {kernel} not built: no {vmlinux} (make kernel-{kernel})')
    off = preempt_offset(kernel)
    c = {}
    nm = subprocess.run([CROSS + 'nm', '-S', vmlinux], capture_output=True, text=True,
                        check=True).stdout
    fn_bytes, syms = 0, {}
    for line in nm.splitlines():
        w = line.split()
        if len(w) == 4 and w[2] in 'tT':
            fn_bytes += int(w[1], 16)
        if len(w) >= 3:
            syms[w[-1]] = int(w[0], 16)
    c['function_bytes'] = fn_bytes
    c['kseq_entries'] = (syms.get('__stop___kseq_table', 0) -
                         syms.get('__start___kseq_table', 0)) // 8
    proc = subprocess.Popen([CROSS + 'objdump', '-d', '--no-show-raw-insn', vmlinux],
                            stdout=subprocess.PIPE, text=True, bufsize=1 << 20)
    assert proc.stdout is not None
    c.update(scan(proc.stdout, off))
    if proc.wait():
        raise SystemExit(f'error: objdump of {vmlinux} failed')
    return c


ROWS = [('function_bytes', 'text: function bytes'),
        ('preempt_schedule', 'call sites of preempt_schedule()'),
        ('preempt_schedule_notrace', 'call sites of preempt_schedule_notrace()'),
        ('preempt_count_writes', 'preempt_count writes (str to current\'s count)'),
        ('tpidr_el1_reads', 'tpidr_el1 reads (mrs)'),
        ('this_cpu_like_sites', f'preempt_count writes <= {WINDOW} insns after a tpidr_el1 read'),
        ('kseq_entries', '__kseq_table entries')]


def base_of(kernel: str, kernels: list[str]) -> str:
    """The column a kernel's ratios are to: the vanilla kernel of its own
    configuration (bench/insn.py's family()) if there is one, else the
    first column."""
    from insn import family
    same = [k for k in kernels if k.startswith('vanilla') and family(k) == family(kernel)]
    return same[0] if same else kernels[0]


def table(res: dict[str, dict]) -> str:
    ks = list(res)
    out = ['| | ' + ' | '.join(ks) + ' |', '|---' * (len(ks) + 1) + '|']
    for key, what in ROWS:
        cells = []
        for k in ks:
            v = res[k][key]
            cell = f'{v:,}'
            base = base_of(k, ks)
            if k != base and res[base][key]:
                cell += f' ({v / res[base][key]:.3f})'
            cells.append(cell)
        out.append(f'| {what} | ' + ' | '.join(cells) + ' |')
    return '\n'.join(out) + '\n'


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--json', help='also write the counts here')
    ap.add_argument('kernels', nargs='+')
    args = ap.parse_args()
    res = {k: count(k) for k in args.kernels}
    if args.json:
        sys.path.insert(0, os.path.join(TOP, 'scripts'))
        from harness import runner
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, 'w', encoding='utf-8') as f:
            json.dump({'series': runner.series_hash(TOP), 'window': WINDOW, 'counts': res},
                      f, indent=1)
    sys.stdout.write(table(res))
    return 0


if __name__ == '__main__':
    sys.exit(main())
