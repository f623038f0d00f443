#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""harness.py - boot lanes, parse console logs, validate topologies.

  harness.py check [--topo T] [--kernel K] [--selftest]  run the matrix
  harness.py kernels [--topo T] [--kernel K]             kernels those lanes need
  harness.py boot KERNEL TOPO TESTS                       boot one lane
  harness.py parse LOG                                    judge one console log
  harness.py sites                                        site coverage of the last runs
  harness.py topo NAME|FILE                               QEMU args for a topology
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import io
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import ktap, runner, topology  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get('BUILD', os.path.join(TOP, 'build'))
MATRIX = os.environ.get('MATRIX') or os.path.join(TOP, 'tests', 'matrix')


def available_topologies() -> list[str]:
    return sorted(os.path.basename(p)[:-5]
                  for p in glob.glob(os.path.join(TOP, 'numa-topologies', '*.topo')))


def select(args: argparse.Namespace) -> list[runner.Lane]:
    with open(MATRIX, encoding='utf-8') as f:
        lanes = runner.parse_matrix(f.read(), os.path.relpath(MATRIX, TOP))
    minutes = os.environ.get('SOAK_MINUTES', '')
    if minutes:
        # make soak MINUTES=M: every soak lane (minutes=) runs M minutes
        if not minutes.isdigit() or int(minutes) == 0:
            raise runner.MatrixError(f'MINUTES={minutes!r} is not a positive number of minutes')
        if not any(l.minutes for l in lanes):
            raise runner.MatrixError(f'MINUTES={minutes}: {os.path.relpath(MATRIX, TOP)} '
                                     'has no soak lane (minutes=)')
        lanes = [dataclasses.replace(l, minutes=int(minutes)) if l.minutes else l
                 for l in lanes]
    known = available_topologies()
    for lane in lanes:
        if lane.topo not in known:
            raise runner.MatrixError(f'tests/matrix names topology {lane.topo!r}, '
                                     f'not in numa-topologies/ ({", ".join(known)})')
    if args.kernel:
        check_kernel(args.kernel)
    if args.topo and args.topo not in known:
        raise runner.MatrixError(f'unknown TOPO={args.topo!r}; available: {", ".join(known)}')
    chosen = [l for l in lanes if (not args.topo or l.topo == args.topo)
              and (not args.kernel or l.kernel == args.kernel)]
    if chosen:
        return chosen
    # No such lane in the matrix: make one up, on the topology (else the
    # first lane's). It takes the kernel's first lane's options and tests
    # (a kseq lane its singlestep, a nokpti lane its expect_kpti=off); a
    # topology no lane uses gets only topology and hotplug; a kernel no lane
    # boots gets the tests of the topology's first lane. The skips a lane
    # expects may not happen elsewhere: none are allowed.
    kernel = args.kernel or 'patched'
    topo = args.topo or lanes[0].topo
    model = next((l for l in lanes if l.kernel == kernel), None)
    on_topo = next((l for l in lanes if l.topo == topo), None)
    if model is None:
        base = dataclasses.replace(on_topo or lanes[0], cpu='', append='', singlestep=False,
                                   tcg_single=False, tcg_icount=False, seed=None, kexec=None,
                                   hibernate=None)
    else:
        base = model
    tests = base.tests if on_topo is not None else ['topology', 'hotplug']
    return [dataclasses.replace(base, kernel=kernel, topo=topo, tests=list(tests), label='',
                                skip=[])]


def check_kernel(name: str) -> None:
    """scripts/lib.sh knows the kernels: an unknown name fails before any build."""
    import subprocess
    r = subprocess.run(['bash', '-c', f'. {TOP}/scripts/lib.sh && kernel_fragments "$1" >/dev/null',
                        '-', name], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        msg = r.stderr.strip().removeprefix('error: ')
        raise runner.MatrixError(f'KERNEL={name}: {msg}')


def selftest() -> tuple[int, int]:
    suite = unittest.defaultTestLoader.discover(os.path.join(TOP, 'tests', 'harness'),
                                                top_level_dir=TOP)
    out = io.StringIO()
    res = unittest.TextTestRunner(stream=out, verbosity=2).run(suite)
    bad = len(res.failures) + len(res.errors)
    if bad:
        print(out.getvalue())
    return res.testsRun - bad - len(res.skipped), bad


def codegen_check() -> tuple[int, int]:
    """bench/codegen_check.py on freshly built bench/this_cpu_ops listings."""
    import subprocess
    os.makedirs(os.path.join(BUILD, 'bench'), exist_ok=True)
    with open(os.path.join(BUILD, 'bench', 'disasm.txt'), 'w', encoding='utf-8') as out:
        r = subprocess.run(['bash', os.path.join(TOP, 'bench', 'disasm.sh'),
                            'vanilla', 'patched', 'kseq', 'stock'],
                           stdout=out, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        print(f'  FAIL     codegen: bench/disasm.sh failed: {r.stderr.strip()}')
        return 0, 1
    r = subprocess.run([sys.executable, os.path.join(TOP, 'bench', 'codegen_check.py'),
                        os.path.join(BUILD, 'bench', 'disasm')],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with open(os.path.join(BUILD, 'bench', 'codegen.ktap'), 'w', encoding='utf-8') as f:
        f.write(r.stdout)
    lines = r.stdout.splitlines()
    ok = [l for l in lines if l.startswith('ok ')]
    bad = [(i, l) for i, l in enumerate(lines) if l.startswith('not ok ')]
    if r.returncode not in (0, 1) or not ok and not bad:
        print(f'  FAIL     codegen: bench/codegen_check.py: {r.stderr.strip()}')
        return 0, 1
    verdict = 'PASS' if not bad else 'FAIL'
    print(f'  {verdict:8s} codegen (bench/codegen_check.py): {len(ok)} passed, {len(bad)} failed; '
          f'KTAP in build/bench/codegen.ktap')
    for i, l in bad:
        print(f'           {l}  {lines[i - 1] if i else ""}')
    return len(ok), len(bad)


def cmd_check(args: argparse.Namespace) -> int:
    passed = failed = skipped = 0
    if args.selftest:
        p, f = selftest()
        print(f'harness self-tests: {p} passed, {f} failed')
        passed, failed = passed + p, failed + f
    # the full matrix also shows that its lanes ran every site of tests/sites
    full = (not args.topo and not args.kernel
            and os.path.abspath(MATRIX) == os.path.join(TOP, 'tests', 'matrix'))
    try:
        lanes = select(args)
        if full:
            with open(os.path.join(TOP, 'tests', 'sites'), encoding='utf-8') as f:
                rules = runner.load_sites(f.read())
    except (runner.MatrixError, OSError) as e:
        print(f'error: {e}', file=sys.stderr)
        return 2
    results = []
    for lane in lanes:
        print(f'  BOOT     {lane.name} (tests: {",".join(lane.tests) or "KUnit only"})', flush=True)
        try:
            res = runner.boot(lane, TOP, BUILD)
        except (topology.TopologyError, FileNotFoundError, runner.QemuError) as e:
            print(f'error: {e}', file=sys.stderr)
            return 2
        results.append(res)
        c = res.counts()
        print(f'  {res.verdict:8s} {lane.name}: {c["pass"]} passed, {c["fail"]} failed, '
              f'{c["skip"]} skipped, {res.seconds:.0f} s', flush=True)
        for p, st, why in res.tests:
            if st == 'fail':
                print(f'           not ok {p}{" # " + why if why else ""}')
                for d in res.diags.get(p, []):
                    print(f'             # {d}')
        for why in res.reasons:
            print(f'           {why}')
        if res.verdict == 'FAIL':
            print(f'           log: {res.log}')

    # Across boots: KASLR put the percpu column region somewhere else each time.
    boots = []
    for lane, res in zip(lanes, results):
        with open(os.path.join(os.path.dirname(BUILD), res.log), encoding='utf-8',
                  errors='replace') as f:
            boots.append((lane, f.read()))
    regions = runner.region_check(boots)
    for name, ok, detail in regions:
        print(f'  {"PASS" if ok else "FAIL":8s} {name}: {detail}')
        passed, failed = passed + ok, failed + (not ok)
    if not regions:
        print('  NOT RUN  region_differs_between_boots: needs two KASLR boots of one '
              'kernel and topology that run pcpu_pgtable.sh')

    # Across lanes: every TLB, cache and ordering site the kernels count ran
    # somewhere (bench/report.py shows where, from build/sites.json).
    if full:
        p, f = report_sites(boots, rules)
        passed, failed = passed + p, failed + f
    else:
        print('  NOT RUN  site_coverage: needs every lane of tests/matrix (a full make check)')

    # The code of the this_cpu ops, when the lanes built all four kernels.
    if {'vanilla', 'patched', 'kseq', 'stock'} <= {l.kernel for l in lanes}:
        p, f = codegen_check()
        passed, failed = passed + p, failed + f
    else:
        print('  NOT RUN  codegen: needs lanes of all of vanilla, patched, kseq and stock '
              '(a full make check)')
    print()
    print(f'{"lane":40s} {"pass":>5s} {"fail":>5s} {"skip":>5s} {"secs":>5s}  verdict')
    for r in results:
        c = r.counts()
        print(f'{r.lane:40s} {c["pass"]:5d} {c["fail"]:5d} {c["skip"]:5d} {r.seconds:5.0f}  {r.verdict}')
        # each lane's clean boot and power-off is a test of its own
        passed += c['pass'] + (0 if r.reasons else 1)
        skipped += c['skip']
        failed += c['fail'] + (1 if r.reasons else 0)
    recap = failure_recap(results)
    if recap:
        # again next to the closing line: a long log is often read by its end
        print()
        print('failed lanes:')
        print('\n'.join(recap))
    # skips are neither passes nor failures: said, so they cannot hide
    print(f'{passed} passed, {failed} failed, {skipped} skipped')
    return 1 if failed else 0


def failure_recap(results: list[runner.Result]) -> list[str]:
    """Each failed lane's failed cases (first diagnostic), reasons and log."""
    out = []
    for r in results:
        if r.verdict != 'FAIL':
            continue
        out.append(f'  {r.lane}: log {r.log}')
        for p, st, why in r.tests:
            if st != 'fail':
                continue
            diags = r.diags.get(p, [])
            out.append(f'    not ok {p}{" # " + why if why else ""}'
                       f'{" -- " + diags[0] if diags else ""}')
        for why in r.reasons:
            out.append(f'    {why}')
    return out


def report_sites(boots: list[tuple[runner.Lane, str]], rules: list[runner.SiteRule]
                 ) -> tuple[int, int]:
    """Site coverage over these boots, printed and kept in build/sites.json."""
    cov, per_site = runner.site_coverage(boots, rules)
    for name, ok, detail in cov:
        print(f'  {"PASS" if ok else "FAIL":8s} {name}: {detail}')
    with open(os.path.join(BUILD, 'sites.json'), 'w', encoding='utf-8') as f:
        json.dump({'rules': [dataclasses.asdict(r) for r in rules], 'sites': per_site},
                  f, indent=1)
    ok = sum(1 for _, good, _ in cov if good)
    return ok, len(cov) - ok


def cmd_sites(args: argparse.Namespace) -> int:
    """Site coverage from the last run of every lane of tests/matrix (after
    make check split by KERNEL=, say); a lane never run is an error."""
    try:
        with open(os.path.join(TOP, 'tests', 'matrix'), encoding='utf-8') as f:
            lanes = runner.parse_matrix(f.read())
        with open(os.path.join(TOP, 'tests', 'sites'), encoding='utf-8') as f:
            rules = runner.load_sites(f.read())
    except (runner.MatrixError, OSError) as e:
        print(f'error: {e}', file=sys.stderr)
        return 2
    boots, missing = [], []
    for lane in lanes:
        log = os.path.join(BUILD, 'runs', lane.name, 'console.log')
        if not os.path.exists(log):
            missing.append(lane.name)
            continue
        with open(log, encoding='utf-8', errors='replace') as f:
            boots.append((lane, f.read()))
    if missing:
        print(f'{"warning" if args.allow_missing else "error"}: no run of {len(missing)} '
              f'lanes of tests/matrix: {", ".join(missing)}', file=sys.stderr)
        if not args.allow_missing:
            return 2
    p, f = report_sites(boots, rules)
    print(f'{p} passed, {f} failed')
    return 1 if f else 0


def cmd_boot(args: argparse.Namespace) -> int:
    if args.timeout is not None and args.timeout <= 0:
        print(f'error: --timeout {args.timeout}: expected a positive number of seconds',
              file=sys.stderr)
        return 2
    if args.topo not in available_topologies():
        print(f'error: unknown topology {args.topo!r}; available: '
              f'{", ".join(available_topologies())}', file=sys.stderr)
        return 2
    lane = runner.Lane(args.kernel, args.topo, [t for t in args.tests.split(',') if t and t != '-'],
                       args.cpu, args.append, args.name, args.singlestep, args.seed,
                       args.timeout, skip=[p for p in args.skip.split(',') if p],
                       tcg_single=args.tcg_single, tcg_icount=args.tcg_icount,
                       kunit=not args.kunit_off, kinsn=args.kinsn, disk=args.disk,
                       op_budget=args.op_budget)
    if lane.op_budget is not None and (lane.op_budget < 0 or not lane.kinsn or
                                       'bench' not in lane.tests):
        print(f'error: --op-budget {lane.op_budget}: a non-negative budget, with --kinsn and '
              'the bench test', file=sys.stderr)
        return 2
    if lane.disk and lane.disk not in runner.DISKS:
        print(f'error: --disk {lane.disk!r}: expected --disk cc', file=sys.stderr)
        return 2
    if sum((lane.singlestep, lane.tcg_single, lane.tcg_icount)) > 1:
        print('error: choose one of --singlestep, --tcg-single and --tcg-icount',
              file=sys.stderr)
        return 2
    for key in ('kexec', 'hibernate'):
        val = getattr(args, key)
        if val is not None:
            tests = [t for t in val.split(',') if t and t != '-']
            if not tests:
                print(f'error: --{key} {val!r}: no guest test for the second kernel',
                      file=sys.stderr)
                return 2
            setattr(lane, key, tests)
    if lane.kexec is not None and lane.hibernate is not None:
        print('error: --kexec and --hibernate: one second kernel per boot', file=sys.stderr)
        return 2
    if lane.disk and lane.hibernate is not None:
        print('error: --disk and --hibernate would both be the first virtio disk',
              file=sys.stderr)
        return 2
    if lane.kinsn and (lane.kexec is not None or lane.hibernate is not None):
        print('error: --kinsn counts one boot: not with --kexec or --hibernate', file=sys.stderr)
        return 2
    try:
        res = runner.boot(lane, TOP, BUILD)
    except (topology.TopologyError, FileNotFoundError, runner.QemuError,
            subprocess.CalledProcessError) as e:
        print(f'error: {e}', file=sys.stderr)
        return 2
    c = res.counts()
    print(f'{res.verdict} {lane.name}: {c["pass"]} passed, {c["fail"]} failed, '
          f'{c["skip"]} skipped in {res.seconds:.0f} s; console log: {res.log}')
    for why in res.reasons:
        print(f'  {why}')
    return 0 if res.verdict == 'PASS' else 1


def cmd_kernels(args: argparse.Namespace) -> int:
    try:
        lanes = select(args)
    except (runner.MatrixError, OSError) as e:
        print(f'error: {e}', file=sys.stderr)
        return 2
    print(' '.join(dict.fromkeys(l.kernel for l in lanes)))
    return 0


def cmd_parse(args: argparse.Namespace) -> int:
    with open(args.log, encoding='utf-8', errors='replace') as f:
        console = ktap.parse_console(f.read())
    reasons = runner.judge(console, 0, False, args.docs)
    for p, st, why in console.leaves():
        print(f'{st.value:4s} {p}{" # " + why if why else ""}')
    for why in reasons:
        print(f'FAIL {why}')
    return 1 if reasons or any(st == ktap.Status.FAIL for _, st, _ in console.leaves()) else 0


def cmd_topo(args: argparse.Namespace) -> int:
    path = args.name
    if not os.path.exists(path):
        path = os.path.join(TOP, 'numa-topologies', args.name + '.topo')
        if not os.path.exists(path):
            print(f'error: unknown topology {args.name!r}; available: '
                  f'{", ".join(available_topologies())}', file=sys.stderr)
            return 2
    try:
        topo = topology.load(path)
    except topology.TopologyError as e:
        print(f'error: {e}', file=sys.stderr)
        return 2
    if args.expect:
        print(topology.expectation(topo), end='')
    else:
        print(' '.join(topology.qemu_args(topo)))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    for name in ('check', 'kernels'):
        p = sub.add_parser(name)
        p.add_argument('--topo', default='', help='only lanes on this topology')
        p.add_argument('--kernel', default='', help='only lanes of this kernel')
        if name == 'check':
            p.add_argument('--selftest', action='store_true', help='run the harness self-tests first')
    p = sub.add_parser('boot', help='boot one lane')
    p.add_argument('kernel')
    p.add_argument('topo')
    p.add_argument('tests', help='guest tests, comma separated, or -')
    p.add_argument('--cpu', default='')
    p.add_argument('--append', default='')
    p.add_argument('--name', default='', help='run directory under build/runs')
    p.add_argument('--singlestep', action='store_true',
                   help='one instruction per TCG block: interrupts land anywhere')
    p.add_argument('--seed', type=int, default=None,
                   help="QEMU -seed: reproducible guest randomness (the DT's kaslr-seed)")
    p.add_argument('--kexec', default=None, metavar='TESTS',
                   help='then kexec into the same kernel and run these guest tests')
    p.add_argument('--hibernate', default=None, metavar='TESTS',
                   help='then hibernate, resume in a second boot and run these guest tests')
    p.add_argument('--skip', default='', metavar='PATTERNS',
                   help='the skips this boot expects (as skip= in tests/matrix); others fail')
    p.add_argument('--tcg-single', action='store_true',
                   help='one TCG thread for all vCPUs')
    p.add_argument('--tcg-icount', action='store_true',
                   help='one TCG thread for all vCPUs, the guest clock counting instructions')
    p.add_argument('--timeout', type=int, default=None,
                   help="seconds before the boot counts as hung (default: the topology's)")
    p.add_argument('--kunit-off', action='store_true',
                   help='no KUnit at boot (as kunit=off in tests/matrix)')
    p.add_argument('--disk', default=None, metavar='cc',
                   help='a virtio-blk disk: the compiler disk of bench/cc-image.sh')
    p.add_argument('--kinsn', action='store_true',
                   help='count instructions per vCPU and source node with the kinsn TCG plugin '
                        '(build/runs/NAME/kinsn.txt)')
    p.add_argument('--op-budget', type=int, default=None, metavar='N',
                   help='with --kinsn and the bench test: every this_cpu op costs at most N '
                        'instructions beyond its floor (as op_budget= in tests/matrix)')
    p = sub.add_parser('sites', help='site coverage from the last runs of tests/matrix')
    p.add_argument('--allow-missing', action='store_true',
                   help='judge the lanes that ran; name the others')
    p = sub.add_parser('parse')
    p.add_argument('log')
    p.add_argument('--docs', type=int, default=2, help='KTAP documents expected')
    p = sub.add_parser('topo')
    p.add_argument('name')
    p.add_argument('--expect', action='store_true', help='print what the guest should see')
    args = ap.parse_args()
    return {'check': cmd_check, 'boot': cmd_boot, 'kernels': cmd_kernels, 'parse': cmd_parse,
            'topo': cmd_topo, 'sites': cmd_sites}[args.cmd](args)


if __name__ == '__main__':
    sys.exit(main())
