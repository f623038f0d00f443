# SPDX-License-Identifier: GPL-2.0
"""NUMA topology files: parse, validate, and turn into QEMU arguments.

A topology file is plain text, one statement per line, '#' starts a comment:

    node <id> cpus=<count> mem=<size>   # size: 512M, 1G, or 0 for memory-less
    distance <a> <b> <d>                # symmetric a<->b
    distance <a> <b> <d_ab> <d_ba>      # asymmetric
    cpu-model <qemu cpu>                # optional, default max,pauth-impdef=on
    timeout <seconds>                   # optional boot timeout
    append <kernel arguments...>        # optional, added to the command line

Nodes are numbered 0..N-1 without gaps; CPUs are handed out in node order
(node 0 gets CPUs 0..c0-1, and so on), each CPU in its own QEMU socket so
that no cluster spans two nodes.  Unlisted remote distances default to 20.
"""

from __future__ import annotations

import dataclasses
import re

DEFAULT_CPU = 'max,pauth-impdef=on'
DEFAULT_TIMEOUT = 180
LOCAL_DISTANCE = 10
REMOTE_DISTANCE = 20
MAX_CPUS = 256          # CONFIG_NR_CPUS in configs/base.config
MAX_NODES = 16          # CONFIG_NODES_SHIFT=4


class TopologyError(Exception):
    """A malformed topology file: names the file, the line and what was expected."""

    def __init__(self, path: str, lineno: int, msg: str) -> None:
        where = f'{path}:{lineno}' if lineno else path
        super().__init__(f'{where}: {msg}')


@dataclasses.dataclass
class Node:
    nid: int
    cpus: int
    mem_mb: int


@dataclasses.dataclass
class Topology:
    name: str
    nodes: list[Node]
    distance: list[list[int]]
    cpu_model: str = DEFAULT_CPU
    timeout: int = DEFAULT_TIMEOUT
    append: str = ''

    @property
    def ncpus(self) -> int:
        return sum(n.cpus for n in self.nodes)

    @property
    def mem_mb(self) -> int:
        return sum(n.mem_mb for n in self.nodes)

    def cpus_of(self, nid: int) -> list[int]:
        first = sum(n.cpus for n in self.nodes[:nid])
        return list(range(first, first + self.nodes[nid].cpus))


_SIZE = re.compile(r'^(\d+)([MG]?)$')


def _size_mb(text: str) -> int | None:
    m = _SIZE.match(text)
    if not m:
        return None
    val = int(m.group(1))
    return val * 1024 if m.group(2) == 'G' else val


def _int(path: str, lineno: int, text: str, what: str) -> int:
    if not re.fullmatch(r'\d+', text):
        raise TopologyError(path, lineno, f'expected {what} (a number), got {text!r}')
    return int(text)


def parse(text: str, path: str = '<topology>', name: str = '') -> Topology:
    """Parse the text of a topology file; raise TopologyError on any mistake."""
    nodes: dict[int, Node] = {}
    dist: dict[tuple[int, int], tuple[int, int]] = {}   # (a, b) -> (value, lineno)
    cpu_model, timeout, append = DEFAULT_CPU, DEFAULT_TIMEOUT, ''

    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split('#', 1)[0].strip()
        if not line:
            continue
        words = line.split()
        kw, args = words[0], words[1:]
        if kw == 'node':
            if len(args) != 3:
                raise TopologyError(path, lineno,
                                    'expected "node <id> cpus=<count> mem=<size>"')
            nid = _int(path, lineno, args[0], 'node id')
            if nid in nodes:
                raise TopologyError(path, lineno, f'node {nid} defined twice')
            kv = dict(a.split('=', 1) for a in args[1:] if '=' in a)
            if set(kv) != {'cpus', 'mem'}:
                raise TopologyError(path, lineno,
                                    'expected "cpus=<count> mem=<size>" after the node id')
            cpus = _int(path, lineno, kv['cpus'], 'cpus=<count>')
            mem = _size_mb(kv['mem'])
            if mem is None:
                raise TopologyError(path, lineno,
                                    f'expected mem=<size> like 512M, 1G or 0, got {kv["mem"]!r}')
            if cpus == 0 and mem == 0:
                raise TopologyError(path, lineno,
                                    f'node {nid} has neither CPUs nor memory; the guest would never see it')
            nodes[nid] = Node(nid, cpus, mem)
        elif kw == 'distance':
            if len(args) not in (3, 4):
                raise TopologyError(path, lineno,
                                    'expected "distance <a> <b> <d>" or "distance <a> <b> <d_ab> <d_ba>"')
            a = _int(path, lineno, args[0], 'node id')
            b = _int(path, lineno, args[1], 'node id')
            vals = [_int(path, lineno, v, 'distance') for v in args[2:]]
            if a == b:
                raise TopologyError(path, lineno, 'a node\'s distance to itself is always 10')
            for v in vals:
                if not LOCAL_DISTANCE < v <= 255:
                    raise TopologyError(path, lineno,
                                        f'expected a remote distance in 11..255, got {v}')
            for key, v in (((a, b), vals[0]), ((b, a), vals[-1])):
                if key in dist:
                    raise TopologyError(path, lineno,
                                        f'distance {key[0]}->{key[1]} already set on line {dist[key][1]}')
                dist[key] = (v, lineno)
        elif kw == 'cpu-model':
            if len(args) != 1:
                raise TopologyError(path, lineno, 'expected "cpu-model <qemu cpu model>"')
            cpu_model = args[0]
        elif kw == 'timeout':
            if len(args) != 1:
                raise TopologyError(path, lineno, 'expected "timeout <seconds>"')
            timeout = _int(path, lineno, args[0], 'seconds')
        elif kw == 'append':
            append = (append + ' ' + ' '.join(args)).strip()
        else:
            raise TopologyError(path, lineno,
                                f'unknown statement {kw!r} (expected node, distance, '
                                'cpu-model, timeout or append)')

    if not nodes:
        raise TopologyError(path, 0, 'no "node" lines: a topology needs at least one node')
    n = len(nodes)
    if sorted(nodes) != list(range(n)):
        raise TopologyError(path, 0, f'node ids must be 0..{n - 1} without gaps, got {sorted(nodes)}')
    if n > MAX_NODES:
        raise TopologyError(path, 0, f'{n} nodes; the kernel config supports {MAX_NODES}')
    if nodes[0].cpus == 0 or nodes[0].mem_mb == 0:
        raise TopologyError(path, 0, 'node 0 must have CPUs and memory (the boot CPU and the kernel live there)')
    for (a, b), (_, lineno) in dist.items():
        if a >= n or b >= n:
            raise TopologyError(path, lineno, f'distance names node {max(a, b)}, but only nodes 0..{n - 1} exist')
    topo = Topology(name=name or path, nodes=[nodes[i] for i in range(n)],
                    distance=[[LOCAL_DISTANCE if a == b else dist.get((a, b), (REMOTE_DISTANCE, 0))[0]
                               for b in range(n)] for a in range(n)],
                    cpu_model=cpu_model, timeout=timeout, append=append)
    if topo.ncpus > MAX_CPUS:
        raise TopologyError(path, 0, f'{topo.ncpus} CPUs; the kernel config supports {MAX_CPUS}')
    return topo


def load(path: str) -> Topology:
    import os
    name = os.path.basename(path)
    if name.endswith('.topo'):
        name = name[:-5]
    try:
        with open(path, encoding='utf-8') as f:
            text = f.read()
    except OSError as e:
        raise TopologyError(path, 0, f'cannot read: {e.strerror}') from e
    return parse(text, path, name)


def qemu_args(topo: Topology, machine: str = '', mem_prefix: str = '') -> list[str]:
    """QEMU machine, CPU, memory and NUMA arguments for this topology;
    machine: more -M virt options (e.g. its=off); mem_prefix: node N's RAM
    is the file mem_prefix + N (for the kinsn plugin), else anonymous."""
    n = topo.ncpus
    args = ['-M', 'virt,gic-version=3' + (f',{machine}' if machine else ''), '-cpu', topo.cpu_model,
            '-smp', f'{n},sockets={n},cores=1,threads=1', '-m', f'{topo.mem_mb}M']
    for node in topo.nodes:
        spec = f'node,nodeid={node.nid}'
        if node.mem_mb:
            if mem_prefix:
                args += ['-object', f'memory-backend-file,id=mem{node.nid},size={node.mem_mb}M,'
                         f'mem-path={mem_prefix}{node.nid},share=on']
            else:
                args += ['-object', f'memory-backend-ram,id=mem{node.nid},size={node.mem_mb}M']
            spec += f',memdev=mem{node.nid}'
        args += ['-numa', spec]
    for node in topo.nodes:
        for cpu in topo.cpus_of(node.nid):
            args += ['-numa', f'cpu,node-id={node.nid},socket-id={cpu}']
    for a, row in enumerate(topo.distance):
        for b, d in enumerate(row):
            if a != b:
                args += ['-numa', f'dist,src={a},dst={b},val={d}']
    return args


def _cpulist(cpus: list[int]) -> str:
    """Format CPUs like the kernel's %*pbl: 0-3,5."""
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else f'{cpus[i]}-{cpus[j]}')
        i = j + 1
    return ','.join(out)


def expectation(topo: Topology) -> str:
    """What the guest should see, in the format tests/guest/topology.sh reads."""
    lines = [f'# expected topology: {topo.name}', f'nodes {len(topo.nodes)}', f'cpus {topo.ncpus}']
    for node in topo.nodes:
        lines.append(f'node {node.nid} cpus {_cpulist(topo.cpus_of(node.nid)) or "-"} '
                     f'mem_mb {node.mem_mb} distance {" ".join(map(str, topo.distance[node.nid]))}')
    return '\n'.join(lines) + '\n'
