# SPDX-License-Identifier: GPL-2.0
"""Read a guest console log: KTAP documents (KUnit at boot, guest tests from
init) and the kernel splats that fail a run regardless of test results.

Modelled on tools/testing/kunit/kunit_parser.py, but it collects every KTAP
document in the log (there are two: KUnit's and init's) and reports leaf
results, so that a suite that crashes half-way counts as a failure.
"""

from __future__ import annotations

import dataclasses
import enum
import re


class Status(enum.Enum):
    PASS = 'pass'
    FAIL = 'fail'
    SKIP = 'skip'


@dataclasses.dataclass
class Test:
    name: str
    status: Status
    children: list['Test'] = dataclasses.field(default_factory=list)
    reason: str = ''
    diag: list[str] = dataclasses.field(default_factory=list)  # '# ' lines before it

    def leaves(self, prefix: str = '') -> list[tuple[str, Status, str]]:
        """(path, status, reason) of every leaf; a parent that failed while all
        its leaves passed (suite init failed, crash) is reported as a leaf too."""
        path = f'{prefix}{self.name}'
        if not self.children:
            return [(path, self.status, self.reason)]
        out = []
        for c in self.children:
            out += c.leaves(path + '.')
        if self.status == Status.FAIL and all(s != Status.FAIL for _, s, _ in out):
            out.append((path, Status.FAIL, self.reason or 'suite failed'))
        return out


@dataclasses.dataclass
class Document:
    tests: list[Test]
    plan: int | None
    problems: list[str]     # truncation, missing tests, bad plan


_TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
_VERSION = re.compile(r'^(\s*)(KTAP|TAP) version \d+\s*$')
_PLAN = re.compile(r'^(\s*)1\.\.(\d+)\s*$')
_RESULT = re.compile(r'^(\s*)(ok|not ok) (\d+)(?: -)?(?: ([^#]*?))?\s*(?:#\s*(.*))?$')
_SUBTEST = re.compile(r'^(\s*)# Subtest: (.*)$')
_DIAG = re.compile(r'^(\s*)# ?(.*)$')
DIAG_KEEP = 8    # diagnostic lines kept per result, the last ones

# Kernel messages that fail a run whatever the tests said.
SPLATS = [
    (re.compile(r'Kernel panic - not syncing'), 'panic'),
    (re.compile(r'\bOops\b|Internal error: '), 'Oops'),
    (re.compile(r'Unable to handle kernel'), 'Oops'),
    (re.compile(r'\bBUG: |kernel BUG at '), 'BUG'),
    (re.compile(r'WARNING: CPU: \d+|------------\[ cut here \]------------'), 'WARNING'),
    # lockdep's report headers; not its boot banner ("RCU lockdep checking is enabled")
    (re.compile(r'WARNING: (possible (circular|recursive) locking|inconsistent lock state|'
                r'suspicious RCU usage|lock held when returning|bad unlock balance detected|'
                r'held lock freed)|'
                r'possible irq lock inversion dependency|INFO: possible .*locking|'
                r'INFO: trying to register non-static key'), 'lockdep'),
    (re.compile(r'rcu: INFO: \w+ (detected|self-detected) stall|detected stalls on CPUs'), 'RCU stall'),
    (re.compile(r'soft lockup|hard LOCKUP|blocked for more than \d+ seconds'), 'lockup'),
    (re.compile(r'KFENCE: |BUG: KASAN|UBSAN:'), 'memory error'),
    (re.compile(r'invoked oom-killer|Out of memory: Killed process|'
                r'Out of memory and no killable'), 'OOM kill'),
    # arm64's __cpu_up() and the hotplug core when a CPU does not start
    (re.compile(r'CPU\d+: failed to (come online|boot)|CPU\d+ failed to report alive'),
     'CPU bring-up failure'),
    # a stack dump with no header above (dump_stack(), or a header this
    # list misses): last, so that a known splat is named by its kind
    (re.compile(r'^\s*Call trace:\s*$'), 'backtrace'),
]
POWER_OFF = 'reboot: Power down'
# A "Call trace:" within this many lines of a named splat belongs to it
# (a WARNING prints its registers first: about 40 lines).
BACKTRACE_LINES = 80


def strip_ts(line: str) -> str:
    return _TS.sub('', line.rstrip('\r\n'))


def parse_ktap(lines: list[str]) -> list[Document]:
    """Every KTAP document in the log, in order."""
    docs: list[Document] = []
    pending: dict[int, list[Test]] | None = None
    plans: dict[int, int] = {}
    subtest_names: dict[int, str] = {}
    diags: dict[int, list[str]] = {}
    nested: list[str] = []      # subtests whose plan their results do not match

    def close() -> None:
        nonlocal pending
        if pending is None:
            return
        problems = []
        top = pending.get(0, [])
        for indent in sorted(k for k in pending if k > 0):
            name = subtest_names.get(indent, '?')
            problems.append(f'truncated: subtest {name!r} at indent {indent} never finished')
            top.append(Test(name, Status.FAIL, pending[indent], 'truncated (crash or hang?)'))
        plan = plans.get(0)
        if plan is not None and len(top) != plan:
            problems.append(f'plan says {plan} tests, {len(top)} reported')
            if len(top) < plan:
                top.append(Test(f'missing {plan - len(top)} of {plan} tests', Status.FAIL,
                                reason='log ends before the plan was complete'))
        docs.append(Document(top, plan, problems + nested))
        pending = None

    for raw in lines:
        line = strip_ts(raw)
        m = _VERSION.match(line)
        if m:
            indent = len(m.group(1))
            if indent == 0:
                close()
                pending, plans, subtest_names, diags, nested = {}, {}, {}, {}, []
            continue
        if pending is None:
            continue
        m = _SUBTEST.match(line)
        if m:
            subtest_names[len(m.group(1))] = m.group(2).strip()
            continue
        m = _DIAG.match(line)
        if m:
            kept = diags.setdefault(len(m.group(1)), [])
            kept.append(m.group(2).rstrip())
            del kept[:-DIAG_KEEP]
            continue
        m = _PLAN.match(line)
        if m:
            plans[len(m.group(1))] = int(m.group(2))
            continue
        m = _RESULT.match(line)
        if m:
            indent = len(m.group(1))
            name = (m.group(4) or '').strip() or f'test{m.group(3)}'
            comment = (m.group(5) or '').strip()
            if comment.upper().startswith('SKIP'):
                status, comment = Status.SKIP, comment[4:].strip()
            else:
                status = Status.PASS if m.group(2) == 'ok' else Status.FAIL
            children: list[Test] = []
            for deeper in sorted(k for k in pending if k > indent):
                got = pending.pop(deeper)
                children += got
                # a subtest's own plan ("1..N" under "# Subtest:") must be
                # met: a suite that prints one result of ten did not pass
                want = plans.pop(deeper, None)
                if want is not None and len(got) != want:
                    nested.append(f'subtest {name!r}: plan says {want} tests, '
                                  f'{len(got)} reported')
                    if len(got) < want:
                        children.append(Test(f'missing {want - len(got)} of {want} tests',
                                             Status.FAIL, reason='plan not met'))
                        status = Status.FAIL
            pending.setdefault(indent, []).append(
                Test(name, status, children, comment, diags.pop(indent, [])))
    close()
    return docs


@dataclasses.dataclass
class Console:
    docs: list[Document]
    splats: list[tuple[int, str, str]]   # (line number, kind, text)
    powered_off: bool

    def diagnostics(self) -> dict[str, list[str]]:
        """Leaf path -> the diagnostic lines printed just before its result."""
        out: dict[str, list[str]] = {}

        def walk(t: Test, prefix: str) -> None:
            path = prefix + t.name
            if t.diag:
                out[path] = t.diag
            for c in t.children:
                walk(c, path + '.')
        for d in self.docs:
            for t in d.tests:
                walk(t, '')
        return out

    def leaves(self) -> list[tuple[str, Status, str]]:
        out = []
        for d in self.docs:
            for t in d.tests:
                out += t.leaves()
        return out


def parse_console(text: str) -> Console:
    lines = text.splitlines()
    splats = []
    for i, raw in enumerate(lines, 1):
        line = strip_ts(raw)
        for pat, kind in SPLATS:
            if pat.search(line):
                # the stack dump of a splat already named is part of it
                if kind == 'backtrace' and splats and i - splats[-1][0] <= BACKTRACE_LINES:
                    break
                splats.append((i, kind, line.strip()))
                break
    return Console(parse_ktap(lines), splats, any(POWER_OFF in l for l in lines))
