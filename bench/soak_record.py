#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""soak_record.py - keep what the last `make soak` lanes did, for docs/results.md.

For every lane of tests/matrix-soak that has a run under build/runs/, reads
its result.json (the harness's verdict) and the "# soak: key=value ..." line
tests/guest/soak.sh printed, and writes docs/data/soak/LANE.json: verdict,
reasons, wall time, what ran (hotplug cycles, stress-ng bogo ops, text patch
rounds, percpu objects, updates and chunks), and the versions that produced
it. docs/data/ is committed: a 30-minute soak is not rerun by make results.
Exits 1 when no lane has a run to record.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
from harness import runner  # noqa: E402


def parse_summary(text: str) -> dict[str, object] | None:
    """The key=value pairs of soak.sh's last "# soak:" line (stress_ng as a dict)."""
    lines = [l for l in text.splitlines() if re.match(r'\s*# soak: ', l)]
    if not lines:
        return None
    out: dict[str, object] = {}
    for word in lines[-1].split('# soak: ', 1)[1].split():
        key, sep, val = word.partition('=')
        if not sep:
            continue
        if key == 'stress_ng':
            out[key] = ({} if val == 'off' else
                        {s: int(n) for s, _, n in (p.partition(':') for p in val.split(','))
                         if n.isdigit()})
        elif re.fullmatch(r'-?\d+', val):
            out[key] = int(val)
        else:
            out[key] = val
    return out


def main() -> int:
    build = os.environ.get('BUILD', os.path.join(TOP, 'build'))
    dest = os.path.join(TOP, 'docs', 'data', 'soak')
    with open(os.path.join(TOP, 'tests', 'matrix-soak'), encoding='utf-8') as f:
        lanes = runner.parse_matrix(f.read(), 'tests/matrix-soak')
    qemu = runner.qemu_banner()
    os.makedirs(dest, exist_ok=True)
    written = 0
    for lane in lanes:
        rundir = os.path.join(build, 'runs', lane.name)
        res = os.path.join(rundir, 'result.json')
        if not os.path.exists(res):
            continue
        with open(res, encoding='utf-8') as f:
            r = json.load(f)
        with open(os.path.join(rundir, 'console.log'), encoding='utf-8', errors='replace') as f:
            console = f.read()
        version = re.search(r'Linux version (\S+)', console)
        summary = parse_summary(console)
        rec = {
            'lane': lane.name, 'kernel': lane.kernel, 'topology': lane.topo,
            'verdict': r['verdict'], 'reasons': r['reasons'],
            'wall_seconds': round(r['seconds']),
            'passed': sum(1 for t in r['tests'] if t[1] == 'pass'),
            'failed': sum(1 for t in r['tests'] if t[1] == 'fail'),
            'skipped': sum(1 for t in r['tests'] if t[1] == 'skip'),
            'summary': summary,
            'date': time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(os.path.getmtime(res))),
            'series': runner.series_hash(TOP), 'linux': version.group(1) if version else 'unknown',
            'qemu': qemu,
        }
        if summary is None:
            rec['reasons'] = rec['reasons'] + ['no "# soak:" line: the guest never finished']
        with open(os.path.join(dest, lane.name + '.json'), 'w', encoding='utf-8') as f:
            json.dump(rec, f, indent=1)
            f.write('\n')
        written += 1
        print(f'  SOAK     {lane.name}: {r["verdict"]}, recorded in '
              f'{os.path.relpath(os.path.join(dest, lane.name + ".json"), TOP)}')
    if not written:
        print('error: no soak lane has run (build/runs/): nothing recorded', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
