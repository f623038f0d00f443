# SPDX-License-Identifier: GPL-2.0
"""The kinsn TCG plugin (bench/plugin/kinsn.c): build it, read its counts."""
from __future__ import annotations

import os
import re
import subprocess

LINE = re.compile(r'kinsn (\S+) (\d+) user=(\d+) kernel=(\d+)((?: node\d+=\d+)*) other=(\d+)$')


def build(top: str, build_dir: str) -> str:
    """Compile the plugin for this host if it is missing or older than its
    source; its path."""
    src = os.path.join(top, 'bench', 'plugin', 'kinsn.c')
    out = os.path.join(build_dir, 'bench', 'kinsn.so')
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        subprocess.run(['gcc', '-O2', '-Wall', '-Wextra', '-Wno-unused-parameter', '-Werror',
                        '-shared', '-fPIC', '-fvisibility=hidden', '-o', out + '.tmp', src],
                       check=True)
        os.replace(out + '.tmp', out)
    return out


def parse(text: str) -> dict[str, list[dict]]:
    """Window name ("0", "1", ..., "total") -> per vCPU, in order:
    {'user': U, 'kernel': K, 'nodes': [N0, N1, ...], 'other': O}."""
    windows: dict[str, list[dict]] = {}
    for n, line in enumerate(text.splitlines(), 1):
        m = LINE.match(line.strip())
        if not m:
            raise ValueError(f'kinsn.txt:{n}: not a kinsn line: {line[:80]!r}')
        name, vcpu = m.group(1), int(m.group(2))
        nodes = [int(x.split('=')[1]) for x in m.group(5).split()]
        row = {'user': int(m.group(3)), 'kernel': int(m.group(4)), 'nodes': nodes,
               'other': int(m.group(6))}
        if sum(nodes) + row['other'] != row['kernel']:
            raise ValueError(f'kinsn.txt:{n}: node counts do not add up to kernel=')
        cpus = windows.setdefault(name, [])
        if vcpu != len(cpus):
            raise ValueError(f'kinsn.txt:{n}: window {name}: vCPU {vcpu} out of order')
        cpus.append(row)
    if 'total' not in windows:
        raise ValueError('no "total" window: QEMU did not exit through the plugin\'s atexit')
    return windows


# tests/guest/bench.sh names each window it opens; "cpu C" when only
# that vCPU's count belongs to it (the in-kernel loops, run with interrupts
# off on one CPU: the other vCPUs' ticks are not theirs)
WINDOW = re.compile(r'#\s*bench: window (\d+) (\S+) (\d+)(?: cpu (\d+))?\s*$')


def bench_windows(console: str, counted: dict[str, list[dict]]) -> list[dict]:
    """bench.sh's windows (stressor, ops) joined with the plugin's counts,
    summed over vCPUs, or of the one vCPU the window names."""
    named = []
    for line in console.splitlines():
        m = WINDOW.search(line)
        if m:
            cpu = int(m.group(4)) if m.group(4) is not None else None
            named.append((m.group(1), m.group(2), int(m.group(3)), cpu))
    out = []
    for w, stressor, ops, cpu in named:
        if w not in counted:
            raise ValueError(f'bench.sh named window {w} ({stressor}); the plugin did not '
                             'count it')
        cpus = counted[w]
        if cpu is not None:
            if cpu >= len(cpus):
                raise ValueError(f'window {w} ({stressor}) names CPU {cpu}; the plugin '
                                 f'counted {len(cpus)} vCPUs')
            cpus = [cpus[cpu]]
        row = {'window': int(w), 'stressor': stressor, 'ops': ops,
               'kernel': sum(c['kernel'] for c in cpus),
               'user': sum(c['user'] for c in cpus)}
        if cpu is not None:
            row['cpu'] = cpu
        else:
            # per vCPU, for the locality of a workload (bench/topo.py)
            row['vcpus'] = [{'kernel': c['kernel'], 'nodes': c['nodes']} for c in cpus]
        out.append(row)
    extra = sorted(set(counted) - {w for w, _, _, _ in named} - {'total'}, key=int)
    if extra:
        raise ValueError(f'the plugin counted windows bench.sh did not name: {extra}')
    return out


def per_op(windows: list[dict]) -> dict[str, float]:
    """Stressor -> kernel instructions per op: (K(2N) - K(N)) / N, so that
    stress-ng's own start and exit cancel out."""
    by: dict[str, list[dict]] = {}
    for w in windows:
        by.setdefault(w['stressor'], []).append(w)
    out = {}
    for s, ws in by.items():
        if len(ws) != 2 or ws[1]['ops'] != 2 * ws[0]['ops']:
            raise ValueError(f'{s}: expected two windows of N and 2N ops, got '
                             f'{[w["ops"] for w in ws]}')
        d = ws[1]['kernel'] - ws[0]['kernel']
        if d <= 0:
            raise ValueError(f'{s}: {2 * ws[0]["ops"]} ops took no more kernel instructions '
                             f'than {ws[0]["ops"]} ({ws[1]["kernel"]} <= {ws[0]["kernel"]})')
        if all('cpu' in w for w in ws) and d % ws[0]['ops']:
            # one CPU with interrupts off runs nothing but the loop
            raise ValueError(f'{s}: {d} more instructions for {ws[0]["ops"]} more calls, '
                             'not a whole number per call: something besides the loop '
                             f'ran on CPU {ws[0]["cpu"]}')
        out[s] = d / ws[0]['ops']
    return out


def over_budget(per_op: dict[str, float], budget: int) -> list[str]:
    """The this_cpu_ops loops that cost more than BUDGET instructions per
    call beyond their floor; on a kernel whose alias is live every op is
    the floor's instruction and a few of address arithmetic, and the
    stock ops' preempt count and scheduler check cost 16 or more. No op
    loop counted at all is a failure too: the budget judged nothing."""
    ops = [n for n in per_op if n.startswith('op:') and not n.startswith('op:floor_')
           and n != 'op:empty']
    if not ops:
        return ['no this_cpu op loop was counted (bench_only= without ops?)']
    out = []
    for name in sorted(ops):
        floor = 'op:floor_' + ('inc' if name == 'op:inc_ptr' else name[3:])
        if floor not in per_op:
            out.append(f'{name}: no floor loop ({floor}) to judge it by')
        elif per_op[name] - per_op[floor] > budget:
            out.append(f'{name}: {per_op[name] - per_op[floor]:g} instructions per call '
                       f'beyond its floor, over the budget of {budget}')
    return out


def below_floor(per_op: dict[str, float]) -> list[str]:
    """The this_cpu_ops loops that ran fewer instructions per call than
    their floor (the address materialisation and the one memory or atomic
    instruction on a plain global): impossible for a correct op, so the
    benchmark, not the kernel, would be wrong."""
    out = []
    for name, v in sorted(per_op.items()):
        if not name.startswith('op:') or name.startswith('op:floor_') or name == 'op:empty':
            continue
        floor = 'op:floor_' + ('inc' if name == 'op:inc_ptr' else name[3:])
        if floor in per_op and v < per_op[floor]:
            out.append(f'{name}: {v:g} instructions per call, below its floor\'s '
                       f'{per_op[floor]:g}')
        if 'op:empty' in per_op and v <= per_op['op:empty']:
            out.append(f'{name}: {v:g} instructions per call, no more than the empty '
                       f'call\'s {per_op["op:empty"]:g}')
    return out
