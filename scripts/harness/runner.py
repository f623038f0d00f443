# SPDX-License-Identifier: GPL-2.0
"""Boot one lane (kernel x topology x guest tests) in QEMU and judge it.

A lane passes only if the boot is clean (no panic, Oops, BUG, WARNING,
lockdep or RCU-stall splat), init powers the guest off by itself before the
timeout, every KTAP document is complete, and every test passes or skips.
"""

from __future__ import annotations

import bisect
import dataclasses
import fnmatch
import hashlib
import json
import os
import re
import shlex
import socket
import subprocess
import time

from . import cpio, kinsn, ktap, topology

# log_buf_len: the guest tests read the boot log with dmesg; at the
# default 128 KiB, KUnit's output can push its first lines out.
BASE_APPEND = 'console=ttyAMA0 panic=-1 rdinit=/init log_buf_len=1M'

# The line between the two boots of a hibernate lane in its console.log:
# what follows is the restoring kernel's boot, then the resumed kernel, the
# first boot's kernel again.
SECOND_BOOT = 'harness: second boot, resuming from the swap disk'

# One instruction per translation block, so interrupts land between any two
# instructions; and, because that is slow, a guest clock that counts
# instructions (icount) on one TCG thread for all vCPUs. With MTTCG on two
# host cores the host scheduler can leave a vCPU thread unscheduled for
# seconds while the others run and the guest clock keeps going: RCU stalls
# and soft lockups that say nothing about the guest. With icount, guest time
# only passes when instructions are executed, round robin across vCPUs, so
# no vCPU falls behind the others' clock; sleep=off skips idle time.
# QEMU 8.1 renamed -singlestep to the accelerator's one-insn-per-tb=on and
# 9.0 removed it: the option follows the installed QEMU's version.
def singlestep_args(version: tuple[int, int]) -> list[str]:
    if version >= (8, 1):
        return ['-accel', 'tcg,thread=single,one-insn-per-tb=on', '-icount', 'shift=3,sleep=off']
    return ['-accel', 'tcg,thread=single', '-icount', 'shift=3,sleep=off', '-singlestep']


# tcg=single: one host thread runs every vCPU, round robin (QEMU switches
# vCPU every few thousand instructions or at an interrupt), instead of a
# thread per vCPU: other interleavings of the same guest code.
SINGLE_THREAD_ARGS = ['-accel', 'tcg,thread=single']

# tcg=icount: the same, with the guest clock counting instructions, as for
# singlestep but with whole translation blocks. For the big machines: 64
# or more vCPU threads on two host cores leave some unscheduled for
# seconds while the guest clock runs on, and the guest reports RCU stalls
# and soft lockups of CPUs that simply did not run. With icount no vCPU
# falls behind the clock; a stall reported there is the guest's own.
ICOUNT_ARGS = ['-accel', 'tcg,thread=single', '-icount', 'shift=3,sleep=off']

QEMU = 'qemu-system-aarch64'

# the disk= lane options: the compiler disk of bench/cc-image.sh
DISKS = ('cc',)
QEMU_MIN = (7, 0)


def qemu_version(text: str | None = None) -> tuple[int, int]:
    """(major, minor) of the installed QEMU, from `--version` (or text)."""
    if text is None:
        try:
            text = subprocess.run([QEMU, '--version'], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, check=False).stdout
        except FileNotFoundError as e:
            raise QemuError(f'{QEMU} not found (make deps installs qemu-system-arm)') from e
    m = re.search(r'version (\d+)\.(\d+)', text)
    if not m:
        raise QemuError(f'cannot read the version of {QEMU}: {text.strip()[:100]!r}')
    v = (int(m.group(1)), int(m.group(2)))
    if v < QEMU_MIN:
        raise QemuError(f'{QEMU} {v[0]}.{v[1]} is older than {QEMU_MIN[0]}.{QEMU_MIN[1]}, '
                        'the oldest the harness knows')
    return v


class QemuError(Exception):
    pass


# Test modules built with a kernel (make modules in its O= directory, or
# tests/modules/NAME built against it by scripts/kernel.sh) that the guest
# tests load after boot, shipped as /harness/modules/<name>.ko when the
# kernel built them: the guest test that loads one fails if it is absent.
GUEST_MODULES = ['arch/arm64/mm/ktext_module_kunit.ko',
                 'arch/arm64/mm/ktext_stress_kunit.ko',
                 'extmod/percpu_soak/percpu_soak.ko',
                 'extmod/this_cpu_ops/this_cpu_ops.ko']


def module_entries(kernel_out: str) -> list[tuple[str, int, bytes]]:
    """cpio entries for the GUEST_MODULES that kernel_out has built."""
    out: list[tuple[str, int, bytes]] = []
    for rel in GUEST_MODULES:
        path = os.path.join(kernel_out, rel)
        if os.path.exists(path):
            with open(path, 'rb') as f:
                out.append((f'harness/modules/{os.path.basename(rel)}', 0o100644, f.read()))
    return ([('harness/modules', 0o040755, b'')] + out) if out else []


@dataclasses.dataclass
class Lane:
    kernel: str
    topo: str
    tests: list[str]
    cpu: str = ''
    append: str = ''
    label: str = ''     # run directory name instead of the derived one
    # TCG translates one instruction per block, so interrupts can land
    # between any two instructions (by default only at block boundaries)
    singlestep: bool = False
    # QEMU's -seed: the guest's random numbers, the DT's kaslr-seed among
    # them, are reproducible, so a lane can pin the image's KASLR position
    seed: int | None = None
    # seconds before the boot counts as hung, instead of the topology's
    timeout: int | None = None
    # a second kernel after the tests (init's guest_then=): kexec into the
    # same kernel, or hibernate to a swap disk and resume it in a second
    # QEMU boot; then these guest tests run there
    kexec: list[str] | None = None
    hibernate: list[str] | None = None
    # the skips this lane expects (fnmatch patterns over test paths): any
    # other skip fails the lane, and so does a pattern that matched none
    skip: list[str] = dataclasses.field(default_factory=list)
    # one TCG thread for all vCPUs (without singlestep's one instruction
    # per block); tcg_icount: and a guest clock that counts instructions
    tcg_single: bool = False
    tcg_icount: bool = False
    # KUnit at boot (kunit=off: kunit.enable=0, for boot-only lanes of big
    # machines, where the suites would take hours under TCG)
    kunit: bool = True
    # a soak lane: its guest tests load the machine for this many minutes
    # (soak_secs= on the command line; make soak MINUTES=M overrides it),
    # and the boot may take that much longer than the timeout
    minutes: int | None = None
    # the kinsn TCG plugin (bench/plugin/kinsn.c) counts the instructions
    # each vCPU executes, kernel and user, and from which node's memory
    # the kernel's were fetched: each node's RAM is a file under /dev/shm
    kinsn: bool = False
    # disk=cc: a virtio-blk disk, the ext4 compiler disk of
    # bench/cc-image.sh, its writes kept in a temporary overlay (QEMU's
    # snapshot=on)
    disk: str | None = None
    # op_budget=N: every this_cpu op loop of bench.sh's ops case costs at
    # most N instructions beyond its floor (a host-side case,
    # kinsn.op_budget): the alias is live, not only built
    op_budget: int | None = None

    @property
    def name(self) -> str:
        if self.label:
            return self.label
        suffix = f'-{self.cpu.split(",")[0]}' if self.cpu else ''
        if self.singlestep:
            suffix += '-singlestep'
        elif self.tcg_icount:
            suffix += '-icount'
        elif self.tcg_single:
            suffix += '-tcg1'
        if not self.kunit:
            suffix += '-nokunit'
        if self.minutes:
            # a soak lane: never the run directory of a make check lane
            suffix += '-soak'
        if self.kinsn:
            suffix += '-kinsn'
        if self.disk:
            suffix += f'-{self.disk}'
        if self.seed is not None:
            suffix += f'-seed{self.seed}'
        if self.kexec is not None:
            suffix += '-kexec'
        if self.hibernate is not None:
            suffix += '-hibernate'
        if self.append:
            suffix += '-' + '-'.join(a.replace('=', '-').replace('.', '_') for a in self.append.split())
        return f'{self.kernel}-{self.topo}{suffix}'


class MatrixError(Exception):
    pass


# the repository: "include FILE" lines of a matrix are read relative to it
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def series_hash(top: str = REPO) -> str:
    """The first 12 hex digits of the SHA-256 of patches/series' patches,
    concatenated in order (scripts/mutant.sh computes the same)."""
    h = hashlib.sha256()
    with open(os.path.join(top, 'patches', 'series'), encoding='utf-8') as f:
        for name in (l.split('#', 1)[0].strip() for l in f):
            if name:
                with open(os.path.join(top, 'patches', name), 'rb') as p:
                    h.update(p.read())
    return h.hexdigest()[:12]


def qemu_banner() -> str:
    """The first line of qemu-system-aarch64 --version, or "unknown"."""
    try:
        return subprocess.run([QEMU, '--version'], stdout=subprocess.PIPE, text=True,
                              check=False).stdout.splitlines()[0]
    except (OSError, IndexError):
        return 'unknown'


def parse_matrix(text: str, path: str = 'tests/matrix',
                 _including: frozenset[str] = frozenset()) -> list[Lane]:
    """Lines: <kernel> <topology> <guest tests, comma separated or -> [cpu=M] [append="..."]
    [singlestep | tcg=single] [seed=N] [timeout=SECONDS] [kexec=TESTS | hibernate=TESTS]
    [skip=PATTERNS] [kunit=off] [minutes=M] [kinsn] [disk=cc]
    or "include FILE": the lanes of FILE (a path relative to this file's
    directory), there."""
    lanes = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split('#', 1)[0].strip()
        if not line:
            continue
        try:
            words = shlex.split(line)
        except ValueError as e:
            raise MatrixError(f'{path}:{lineno}: {e}') from e
        if words[0] == 'include':
            if len(words) != 2:
                raise MatrixError(f'{path}:{lineno}: expected "include FILE"')
            inc = os.path.normpath(os.path.join(os.path.dirname(path), words[1]))
            if inc in _including | {os.path.normpath(path)}:
                raise MatrixError(f'{path}:{lineno}: {inc} includes itself')
            try:
                with open(os.path.join(REPO, inc), encoding='utf-8') as f:
                    sub = f.read()
            except OSError as e:
                raise MatrixError(f'{path}:{lineno}: cannot read {inc}: {e.strerror}') from e
            lanes += parse_matrix(sub, inc, _including | {os.path.normpath(path)})
            continue
        if len(words) < 3:
            raise MatrixError(f'{path}:{lineno}: expected "<kernel> <topology> <tests> '
                              '[cpu=M] [append=...] [singlestep | tcg=single] [seed=N] '
                              '[timeout=SECONDS] [kexec=TESTS | hibernate=TESTS] [skip=PATTERNS] '
                              '[kunit=off] [minutes=M] [kinsn] [disk=cc] [op_budget=N]"')
        lane = Lane(words[0], words[1], [] if words[2] == '-' else words[2].split(','))
        for opt in words[3:]:
            key, _, val = opt.partition('=')
            if opt == 'singlestep':
                lane.singlestep = True
            elif opt == 'kinsn':
                lane.kinsn = True
            elif key == 'cpu':
                lane.cpu = val
            elif key == 'append':
                lane.append = val
            elif key == 'seed':
                if not val.isdigit():
                    raise MatrixError(f'{path}:{lineno}: seed={val!r} is not a '
                                      'non-negative integer')
                lane.seed = int(val)
            elif key == 'timeout':
                if not val.isdigit() or int(val) == 0:
                    raise MatrixError(f'{path}:{lineno}: timeout={val!r} is not a '
                                      'positive number of seconds')
                lane.timeout = int(val)
            elif key in ('kexec', 'hibernate'):
                tests = [t for t in val.split(',') if t]
                if not tests or '-' in tests:
                    raise MatrixError(f'{path}:{lineno}: {key}= names no guest test for the '
                                      'second kernel')
                if lane.kexec is not None or lane.hibernate is not None:
                    raise MatrixError(f'{path}:{lineno}: one of kexec= and hibernate= per lane')
                setattr(lane, key, tests)
            elif key == 'skip':
                pats = [p for p in val.split(',') if p]
                if not pats:
                    raise MatrixError(f'{path}:{lineno}: skip= names no test')
                lane.skip += pats
            elif key == 'kunit':
                if val != 'off':
                    raise MatrixError(f'{path}:{lineno}: kunit={val!r}: expected kunit=off '
                                      '(KUnit runs by default)')
                lane.kunit = False
            elif key == 'minutes':
                if not val.isdigit() or int(val) == 0:
                    raise MatrixError(f'{path}:{lineno}: minutes={val!r} is not a '
                                      'positive number of minutes')
                lane.minutes = int(val)
            elif key == 'disk':
                if val not in DISKS:
                    raise MatrixError(f'{path}:{lineno}: disk={val!r}: expected disk=cc')
                lane.disk = val
            elif key == 'op_budget':
                if not val.isdigit():
                    raise MatrixError(f'{path}:{lineno}: op_budget={val!r} is not a '
                                      'non-negative number of instructions')
                lane.op_budget = int(val)
            elif key == 'tcg':
                if val not in ('single', 'icount'):
                    raise MatrixError(f'{path}:{lineno}: tcg={val!r}: expected tcg=single or '
                                      'tcg=icount (the default is a thread per vCPU)')
                lane.tcg_single = val == 'single'
                lane.tcg_icount = val == 'icount'
            else:
                raise MatrixError(f'{path}:{lineno}: unknown option {key!r} (expected cpu=, '
                                  'append=, singlestep, tcg=, kunit=, seed=, timeout=, kexec=, '
                                  'hibernate=, skip=, minutes=, kinsn, disk= or op_budget=)')
        if lane.singlestep and (lane.tcg_single or lane.tcg_icount):
            raise MatrixError(f'{path}:{lineno}: singlestep already runs one TCG thread '
                              'with icount: drop tcg=')
        if lane.disk and lane.hibernate is not None:
            raise MatrixError(f'{path}:{lineno}: disk= and hibernate= would both be the '
                              'first virtio disk: one of them')
        if lane.kinsn and (lane.kexec is not None or lane.hibernate is not None):
            raise MatrixError(f'{path}:{lineno}: kinsn counts one boot: not with kexec= '
                              'or hibernate=')
        if lane.op_budget is not None and not (lane.kinsn and 'bench' in lane.tests):
            raise MatrixError(f'{path}:{lineno}: op_budget= judges the kinsn counts of the '
                              'bench test: the lane needs kinsn and bench')
        lanes.append(lane)
    return lanes


@dataclasses.dataclass
class Result:
    lane: str
    verdict: str                  # PASS or FAIL
    reasons: list[str]
    seconds: float
    log: str
    tests: list[tuple[str, str, str]]   # (path, status, reason)
    # failed test path -> the diagnostic lines the guest printed before it
    diags: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    # kinsn lanes: the plugin's windows (kinsn.parse)
    kinsn: dict | None = None

    def counts(self) -> dict[str, int]:
        c = {'pass': 0, 'fail': 0, 'skip': 0}
        for _, st, _ in self.tests:
            c[st] += 1
        return c


def judge(console: ktap.Console, exit_code: int | None, timed_out: bool,
          expect_docs: int) -> list[str]:
    """Reasons the run failed, independent of individual test results."""
    reasons = []
    if timed_out:
        reasons.append('hang: timeout before power-off')
    elif not console.powered_off:
        reasons.append('no clean power-off ("reboot: Power down" missing)')
    elif exit_code not in (0, None):
        reasons.append(f'qemu exited with status {exit_code}')
    kinds = []
    for _, kind, _ in console.splats:
        if kind not in kinds:
            kinds.append(kind)
    for kind in kinds:
        first = next(s for s in console.splats if s[1] == kind)
        reasons.append(f'{kind} at console line {first[0]}: {first[2][:100]}')
    for d in console.docs:
        reasons += d.problems
    if len(console.docs) < expect_docs:
        reasons.append(f'{expect_docs} KTAP documents expected (KUnit, guest tests), '
                       f'{len(console.docs)} found')
    return reasons


def load_required(text: str, path: str = 'tests/required') -> list[tuple[list[str], list[str]]]:
    """tests/required: "<kernel patterns, comma separated> <KUnit suite>..." per line."""
    table = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        words = raw.split('#', 1)[0].split()
        if not words:
            continue
        if len(words) < 2:
            raise MatrixError(f'{path}:{lineno}: expected "<kernels> <KUnit suite>..."')
        table.append((words[0].split(','), words[1:]))
    return table


def required_suites(kernel: str, table: list[tuple[list[str], list[str]]]) -> list[str] | None:
    """The KUnit suites kernel must run: the first line whose patterns match."""
    for pats, suites in table:
        if any(fnmatch.fnmatchcase(kernel, p) for p in pats):
            return suites
    return None


def doc_roles(lane: Lane) -> list[tuple[str, list[str]]]:
    """What each KTAP document of the lane is, in order: ('kunit', []) or
    ('guest', the guest tests it must report)."""
    kunit = [('kunit', [])] if lane.kunit else []
    roles = list(kunit)
    if lane.tests:
        roles.append(('guest', lane.tests))
    if lane.kexec is not None:
        roles += kunit + [('guest', lane.kexec)]
    elif lane.hibernate is not None:
        roles.append(('guest', lane.hibernate))    # the restoring kernel runs no KUnit
    return roles


def apply_policy(lane: Lane, console: ktap.Console, suites: list[str] | None,
                 tests: list[tuple[str, str, str]]) -> tuple[list[tuple[str, str, str]], list[str]]:
    """What must have run did, and nothing skipped that the lane does not
    expect to. Returns the tests, a skip the lane does not allow turned into
    a failure naming it, and the reasons the lane fails besides."""
    reasons = []
    if not lane.kunit:
        suites = []         # boot-only: the lane says KUnit does not run
    if suites is None:
        reasons.append(f'kernel {lane.kernel!r} has no line in tests/required: '
                       'nothing says which KUnit suites it must run')
        suites = []
    for i, (role, want) in enumerate(doc_roles(lane)):
        if i >= len(console.docs):
            break           # judge() reports the missing documents
        names = {t.name for t in console.docs[i].tests}
        if role == 'kunit':
            reasons += [f'required KUnit suite {s} did not run (KTAP document {i + 1})'
                        for s in suites if s not in names]
        else:
            reasons += [f'guest test {t} reported nothing (KTAP document {i + 1})'
                        for t in want if t not in names]
    used = set()
    out = []
    for path, st, why in tests:
        if st == 'skip':
            pats = [p for p in lane.skip if fnmatch.fnmatchcase(path, p)]
            used.update(pats)
            if not pats:
                st, why = 'fail', f'skipped, and the lane allows no such skip: {why}'
        out.append((path, st, why))
    reasons += [f'skip={p}: no test skipped that it allows (the lane expects a skip '
                'that did not happen)' for p in lane.skip if p not in used]
    return out, reasons


def boot(lane: Lane, top: str, build: str, quiet: bool = False) -> Result:
    topo = topology.load(os.path.join(top, 'numa-topologies', lane.topo + '.topo'))
    image = os.path.join(build, 'out', lane.kernel, 'arch/arm64/boot/Image')
    if not os.path.exists(image):
        raise FileNotFoundError(f'{image} not built (make kernels)')
    rundir = os.path.join(build, 'runs', lane.name)
    os.makedirs(rundir, exist_ok=True)
    log = os.path.join(rundir, 'console.log')
    for stale in ('console.log', 'console-2.log', 'result.json', 'qemu.stderr'):
        if os.path.exists(os.path.join(rundir, stale)):
            os.unlink(os.path.join(rundir, stale))

    # initrd = cached base userland + guest tests overlay + this run's facts
    run_overlay = cpio.archive([
        ('etc/harness', 0o040755, b''),
        ('etc/harness/topology', 0o100644, topology.expectation(topo).encode()),
        ('etc/harness/lane', 0o100644, (lane.name + '\n').encode()),
    ] + module_entries(os.path.join(build, 'out', lane.kernel)))
    userland = b''
    for part in ('base.cpio', 'overlay.cpio'):
        with open(os.path.join(build, 'guest', part), 'rb') as f:
            userland += f.read()
    initrd = os.path.join(rundir, 'initrd.cpio')
    with open(initrd, 'wb') as out:
        out.write(userland + run_overlay)
        if lane.kexec is not None:
            # what the first kernel kexecs: this Image, and this initrd
            # without these two files
            with open(image, 'rb') as f:
                out.write(cpio.archive([
                    ('harness/kexec', 0o040755, b''),
                    ('harness/kexec/Image', 0o100644, f.read()),
                    ('harness/kexec/initrd.cpio', 0o100644, userland + run_overlay)]))

    if lane.cpu:
        topo.cpu_model = lane.cpu
    then = ''
    if lane.kexec is not None:
        then = 'guest_then=kexec:' + ','.join(lane.kexec)
    elif lane.hibernate is not None:
        then = 'guest_then=hibernate:' + ','.join(lane.hibernate)
    # no_console_suspend: what goes wrong while devices are frozen for the
    # image (an Oops restoring it) reaches the console
    append = ' '.join(x for x in (BASE_APPEND, topo.append, lane.append,
                                  '' if lane.kunit else 'kunit.enable=0',
                                  f'soak_secs={lane.minutes * 60}' if lane.minutes else '',
                                  'guest_tests=' + (','.join(lane.tests) or '-'), then,
                                  'no_console_suspend' if lane.hibernate is not None else '')
                      if x)
    # QEMU's emulated GICv3 ITS does not survive kexec in 6.12: vanilla's
    # second kernel hangs in its setup (docs/design.md section 5)
    plugin, mem_prefix = [], ''
    if lane.kinsn:
        # (parse_matrix and harness.py boot refuse kinsn with a second kernel)
        mem_prefix = f'/dev/shm/kinsn-{os.getpid()}.node'
        # QEMU runs in rundir, and an option value's commas would need doubling
        plugin = ['-plugin', f'{kinsn.build(top, build)},out=kinsn.txt,mem={mem_prefix}']
        stale = os.path.join(rundir, 'kinsn.txt')
        if os.path.exists(stale):
            os.unlink(stale)
    machine = topology.qemu_args(topo, 'its=off' if lane.kexec is not None else '',
                                 mem_prefix=mem_prefix)
    disk = []
    if lane.hibernate is not None:
        swap = os.path.join(rundir, 'swap.img')
        with open(swap, 'wb') as f:
            f.truncate(topo.mem_mb << 20)     # sparse: as large as the RAM
        disk = ['-drive', f'if=none,id=swap,file={swap},format=raw',
                '-device', 'virtio-blk-device,drive=swap']
    if lane.disk == 'cc':
        cc_disk = os.path.join(build, 'bench', 'cc', 'cc.img')
        if not os.path.exists(cc_disk):
            raise SystemExit(f'error: lane {lane.name}: no compiler disk {cc_disk}: '
                             'bash bench/cc-image.sh makes it (make bench-real does)')
        disk = ['-drive', f'if=none,id=data,file={cc_disk},format=raw,snapshot=on',
                '-device', 'virtio-blk-device,drive=data']

    def qemu(serial: str, cmdline: str) -> list[str]:
        return (['qemu-system-aarch64', '-nodefaults', '-display', 'none', '-no-reboot',
                 '-serial', f'file:{serial}',
                 # relative (QEMU runs in rundir): a socket path has at most
                 # 107 bytes, fewer than some lanes' run directories
                 '-monitor', 'unix:monitor.sock,server=on,wait=off']
                + machine + disk
                + (singlestep_args(qemu_version()) if lane.singlestep else [])
                + (SINGLE_THREAD_ARGS if lane.tcg_single else [])
                + (ICOUNT_ARGS if lane.tcg_icount else [])
                + (['-seed', str(lane.seed)] if lane.seed is not None else [])
                + plugin
                + ['-kernel', image, '-initrd', initrd, '-append', cmdline])

    timeout = lane.timeout or topo.timeout
    if lane.minutes:
        # the load itself, a tenth more for the loads' last rounds, and
        # ten minutes for the suites again after it on a loaded host
        timeout += lane.minutes * 66 + 600
    cmd = qemu(log, append)
    cmds = [cmd]
    start = time.monotonic()
    try:
        code, timed_out = run_qemu(cmd, rundir, timeout * (2 if lane.kexec is not None else 1))
    finally:
        for node in topo.nodes if mem_prefix else []:
            if os.path.exists(f'{mem_prefix}{node.nid}'):
                os.unlink(f'{mem_prefix}{node.nid}')
    reasons = []
    if lane.hibernate is not None:
        # the first boot hibernated and powered off; the second, the same
        # kernel with guest_resume=1 (and no boot-time KUnit: the first
        # boot ran it), restores the image, whose init goes on
        first = ktap.parse_console('')
        if os.path.exists(log):
            with open(log, encoding='utf-8', errors='replace') as f:
                first = ktap.parse_console(f.read())
        if timed_out:
            reasons.append('first boot: hang: timeout before hibernating')
        elif not first.powered_off:
            reasons.append('first boot: no power-off after hibernating')
        if not reasons:
            log2 = os.path.join(rundir, 'console-2.log')
            cmd = qemu(log2, append + ' guest_resume=1 kunit.enable=0')
            cmds.append(cmd)
            code, timed_out = run_qemu(cmd, rundir, timeout)
            second = ''
            if os.path.exists(log2):    # else QEMU did not start: stderr says why
                with open(log2, encoding='utf-8', errors='replace') as f:
                    second = f.read()
                os.unlink(log2)
            with open(log, 'a', encoding='utf-8') as out:
                out.write(SECOND_BOOT + '\n' + second)
        os.unlink(swap)
    secs = time.monotonic() - start
    with open(os.path.join(rundir, 'qemu-cmdline'), 'w', encoding='utf-8') as f:
        f.write(''.join(f'cd {shlex.quote(rundir)} && {shlex.join(c)}\n' for c in cmds))

    if not os.path.exists(log):     # QEMU did not start: its stderr says why
        open(log, 'w', encoding='utf-8').close()
    with open(log, encoding='utf-8', errors='replace') as f:
        text = f.read()
    console = ktap.parse_console(text)
    # KTAP documents: KUnit's and the guest tests' of each kernel (the
    # kernel restoring a hibernation image runs neither)
    reasons += judge(console, code, timed_out, expect_docs=len(doc_roles(lane)))
    if timed_out:
        reasons += hang_report(rundir, text, os.path.join(build, 'out', lane.kernel,
                                                          'System.map'))
    if code not in (0, None) and not timed_out:
        with open(os.path.join(rundir, 'qemu.stderr'), encoding='utf-8', errors='replace') as f:
            msg = f.read().strip().splitlines()
        if msg:
            reasons.append('qemu: ' + msg[-1][:200])
    tests = [(p, s.value, r) for p, s, r in console.leaves()]
    with open(os.path.join(top, 'tests', 'required'), encoding='utf-8') as f:
        table = load_required(f.read())
    tests, why = apply_policy(lane, console, required_suites(lane.kernel, table), tests)
    reasons += why
    failed = [p for p, s, _ in tests if s == 'fail']
    counted = None
    if lane.kinsn:
        # the plugin's windows; with bench.sh, what each one ran, and the
        # kernel instructions per op (make bench-insn)
        try:
            with open(os.path.join(rundir, 'kinsn.txt'), encoding='utf-8') as f:
                windows = kinsn.parse(f.read())
            counted = {'total': windows['total']}
            if 'bench' in lane.tests:
                counted['windows'] = kinsn.bench_windows(text, windows)
                counted['per_op'] = kinsn.per_op(counted['windows'])
                reasons += [f'kinsn: {r}' for r in kinsn.below_floor(counted['per_op'])]
                if lane.op_budget is not None:
                    over = kinsn.over_budget(counted['per_op'], lane.op_budget)
                    tests.append(('kinsn.op_budget', 'fail' if over else 'pass',
                                  '; '.join(over)))
                    failed += ['kinsn.op_budget'] * bool(over)
        except OSError:
            reasons.append('kinsn: the plugin wrote no counts (kinsn.txt missing)')
        except ValueError as e:
            reasons.append(f'kinsn: {e}')
    res = Result(lane.name, 'FAIL' if reasons or failed else 'PASS', reasons, secs,
                 os.path.relpath(log, os.path.dirname(build)), tests,
                 {p: d for p, d in console.diagnostics().items() if p in failed}, counted)
    with open(os.path.join(rundir, 'result.json'), 'w', encoding='utf-8') as f:
        json.dump(dataclasses.asdict(res), f, indent=1)
    os.unlink(initrd)
    return res


def run_qemu(cmd: list[str], rundir: str, timeout: int) -> tuple[int | None, bool]:
    """Run one QEMU boot; (exit status, whether it was killed at timeout).
    At the timeout, every vCPU's registers go to HANG_DUMP first."""
    with open(os.path.join(rundir, 'qemu.stderr'), 'ab') as err:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=err, stderr=err, cwd=rundir)
        try:
            return proc.wait(timeout=timeout), False
        except subprocess.TimeoutExpired:
            dump = monitor_command(os.path.join(rundir, 'monitor.sock'), 'info registers -a')
            with open(os.path.join(rundir, HANG_DUMP), 'w', encoding='utf-8') as f:
                f.write(dump)
            proc.kill()
            proc.wait()
            return None, True


def hang_report(rundir: str, console: str, system_map: str) -> list[str]:
    """What a timed-out lane adds to its reasons: the console's last line
    and where the vCPUs were (HANG_DUMP)."""
    lines = [l for l in console.splitlines() if l.strip()]
    out = [f'hang: last console line {len(console.splitlines())}: '
           f'{lines[-1][:120] if lines else "(console empty)"}']
    try:
        with open(os.path.join(rundir, HANG_DUMP), encoding='utf-8') as f:
            dump = f.read()
    except OSError:
        return out + ['hang: no register dump']
    try:
        with open(system_map, encoding='utf-8') as f:
            smap = f.read()
    except OSError:
        smap = ''
    return out + [hang_where(dump, console, smap)]


# A hung guest's vCPU registers, from the monitor before QEMU is killed.
HANG_DUMP = 'hang-registers.txt'


def monitor_command(path: str, command: str, wait: float = 5.0) -> str:
    """One HMP command on QEMU's monitor socket: what it printed until
    @wait seconds without output, or '' if the monitor did not answer."""
    out = b''
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(wait)
            s.connect(path)
            s.sendall(command.encode() + b'\n')
            while True:
                data = s.recv(65536)
                if not data:
                    break
                out += data
    except OSError:     # socket.timeout included: the monitor went quiet
        pass
    return out.decode(errors='replace')


# init's line with the running kernel's _stext (tests/guest/init)
KASLR = re.compile(r'^kaslr: _stext (0x[0-9a-f]+)$', re.M)


def hang_where(dump: str, console: str, system_map: str) -> str:
    """Where each vCPU of a hung guest was: function+offset from the
    System.map text and the running kernel's _stext that init printed
    (the last one: a kexec lane's second kernel has its own), raw PCs if
    init never printed it (a hang during boot)."""
    pcs = re.findall(r'^CPU#(\d+)\s*\n\s*PC=([0-9a-f]+)', dump, re.M)
    if not pcs:
        return 'hang: the monitor gave no registers'
    syms = []
    for line in system_map.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in 'tTwW':
            syms.append((int(f[0], 16), f[2]))
    syms.sort()
    link = next((a for a, n in syms if n == '_stext'), None)
    runtime = KASLR.findall(console)
    offset = int(runtime[-1], 16) - link if runtime and link is not None else None
    where = []
    for cpu, pc in pcs:
        pc = int(pc, 16)
        name = f'{pc:#x}'
        if offset is not None:
            addr = (pc - offset) & (1 << 64) - 1
            i = bisect.bisect_right(syms, (addr, '\U0010ffff'))
            if i and addr < syms[-1][0] + 0x10000:
                name = f'{syms[i - 1][1]}+{addr - syms[i - 1][0]:#x}'
        where.append(f'CPU{cpu} {name}')
    return 'hang: vCPUs at ' + ', '.join(where)


# pcpu_pgtable.sh's diagnostic: where KASLR put the percpu column region, and
# among how many places (1: not randomised, nokaslr).
REGION = re.compile(r'# region_start (0x[0-9a-f]+), one of (\d+) places')


def region_check(boots: list[tuple[Lane, str]]) -> list[tuple[str, bool, str]]:
    """Two boots of one kernel on one topology with a randomised percpu
    column region must not put it at the same place: a KASLR-like bug (a
    fixed seed, a place derived from the image's) shows only across boots.
    Takes (lane, console text) pairs; returns (test name, ok, detail) for
    every kernel and topology with two or more such boots."""
    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for lane, text in boots:
        # after a hibernation the resumed kernel is the first boot's again
        for m in REGION.finditer(text.split(SECOND_BOOT)[0]):
            if int(m.group(2)) > 1:
                groups.setdefault((lane.kernel, lane.topo), []).append((lane.name, m.group(1)))
    out = []
    for (kernel, topo), seen in sorted(groups.items()):
        if len(seen) < 2:
            continue
        bases = [b for _, b in seen]
        out.append((f'region_differs_between_boots {kernel} {topo}',
                    len(set(bases)) == len(bases),
                    ', '.join(f'{n}: {b}' for n, b in seen)))
    return out


# init prints "pgtable_sites: name=count ..." after each KTAP document when
# the kernel counts its maintenance sites (CONFIG_ARM64_PGTABLE_SITE_COUNTS)
SITES = re.compile(r'^pgtable_sites: (.*)$', re.M)


def lane_sites(lane: Lane, text: str) -> dict[str, int] | None:
    """What one lane's kernels counted, None if they count nothing. A
    kexec lane's two kernels add up; a hibernate lane's resumed kernel
    goes on with the first boot's counters, so its line is the total."""
    lines = []
    for m in SITES.finditer(text):
        counts = {}
        for word in m.group(1).split():
            name, _, n = word.partition('=')
            if n.isdigit():
                counts[name] = int(n)
        lines.append(counts)
    if not lines:
        return None
    if lane.kexec is None:
        return lines[-1]
    out: dict[str, int] = {}
    for counts in lines:
        for name, n in counts.items():
            out[name] = out.get(name, 0) + n
    return out


@dataclasses.dataclass
class SiteRule:
    name: str
    unreachable: str = ''   # why no lane under QEMU can reach it, or ''


def load_sites(text: str, path: str = 'tests/sites') -> list[SiteRule]:
    """tests/sites: "<site>" (some lane must reach it) or "<site> unreachable
    <why>" (no lane can under QEMU), one per line, in the kernel's order."""
    rules = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split('#', 1)[0].strip()
        if not line:
            continue
        words = line.split(None, 2)
        if len(words) == 1:
            rules.append(SiteRule(words[0]))
        elif words[1] == 'unreachable' and len(words) == 3:
            rules.append(SiteRule(words[0], words[2]))
        else:
            raise MatrixError(f'{path}:{lineno}: expected "<site>" or '
                              '"<site> unreachable <why>"')
    names = [r.name for r in rules]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise MatrixError(f'{path}: sites listed twice: {", ".join(sorted(dup))}')
    return rules


def site_coverage(boots: list[tuple[Lane, str]], rules: list[SiteRule]
                  ) -> tuple[list[tuple[str, bool, str]], dict[str, dict[str, int]]]:
    """Every site of tests/sites reached by some lane, or declared
    unreachable and reached by none; the kernels list exactly those sites.
    Returns (test name, ok, detail) per site, and per site the lanes that
    reached it with their counts."""
    per_site: dict[str, dict[str, int]] = {r.name: {} for r in rules}
    listed: set[str] = set()
    for lane, text in boots:
        counts = lane_sites(lane, text)
        if counts is None:
            continue
        listed |= set(counts)
        for name, n in counts.items():
            if n:
                per_site.setdefault(name, {})[lane.name] = n
    out = []
    if not listed:
        return [('site_coverage', False, 'no lane printed pgtable_sites: no kernel counts '
                 'its sites (CONFIG_ARM64_PGTABLE_SITE_COUNTS)')], per_site
    for r in rules:
        lanes = per_site.get(r.name, {})
        total = sum(lanes.values())
        if r.name not in listed:
            out.append((f'site_coverage.{r.name}', False, 'not a site the kernels count'))
        elif r.unreachable:
            out.append((f'site_coverage.{r.name}', not lanes,
                        f'reached in {len(lanes)} lanes ({total} times): tests/sites says '
                        'no lane can, remove "unreachable"' if lanes
                        else f'unreachable under QEMU: {r.unreachable}'))
        else:
            out.append((f'site_coverage.{r.name}', bool(lanes),
                        f'{total} times in {len(lanes)} lanes' if lanes
                        else 'no lane reached it'))
    for name in sorted(listed - {r.name for r in rules}):
        out.append((f'site_coverage.{name}', False, 'counted by the kernels, not in tests/sites'))
    return out, per_site
