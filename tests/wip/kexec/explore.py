#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""explore.py KERNEL OUTDIR - work in progress, not a lane (issue 9, point 3).

Builds OUTDIR/first.cpio: the guest userland of the harness plus
/kexec/go.sh as rdinit, which prints the first kernel's state and kexecs
(kexec_file_load + reboot, tests/wip/kexec/kexec_reboot.c, built static
and freestanding with aarch64-linux-gnu-gcc) into the same Image with
guest_tests=topology,pcpu_pgtable,ktext,hotplug, whose initrd is the
plain harness userland. KERNEL needs CONFIG_KEXEC_FILE=y (EXTRA_CONFIG).
Boot it by hand on 2node (see docs/design.md section 5, kexec).
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, '..', '..', '..')
sys.path.insert(0, os.path.join(TOP, 'scripts'))
from harness import cpio, topology, runner  # noqa: E402

kernel, out = sys.argv[1], sys.argv[2]
build = os.path.join(TOP, 'build')
os.makedirs(out, exist_ok=True)
helper = os.path.join(out, 'kexec_reboot')
subprocess.run(['aarch64-linux-gnu-gcc', '-O2', '-static', '-nostdlib', '-ffreestanding',
                '-fno-stack-protector', '-o', helper, os.path.join(HERE, 'kexec_reboot.c')],
               check=True)
topo = topology.load(os.path.join(TOP, 'numa-topologies', '2node.topo'))
run = cpio.archive([
    ('etc/harness', 0o040755, b''),
    ('etc/harness/topology', 0o100644, topology.expectation(topo).encode()),
    ('etc/harness/lane', 0o100644, b'kexec-explore\n'),
] + runner.module_entries(os.path.join(build, 'out', kernel)))
base = b''
for part in ('base.cpio', 'overlay.cpio'):
    with open(os.path.join(build, 'guest', part), 'rb') as f:
        base += f.read()
second = base + run
go = b'''#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t debugfs none /sys/kernel/debug
echo "KEXEC-EXPLORE: first kernel up"
grep -E 'enabled|pgtable_levels' /sys/kernel/debug/pcpu_pgtable/status
echo "KEXEC-EXPLORE: kexec into the same kernel"
/kexec/kexec_reboot /kexec/Image /kexec/second.cpio "console=ttyAMA0 earlycon panic=-1 rdinit=/init guest_tests=topology,pcpu_pgtable,ktext,hotplug kexeced=1"
echo "KEXEC-EXPLORE: failed"
poweroff -f
'''
with open(os.path.join(build, 'out', kernel, 'arch/arm64/boot/Image'), 'rb') as f:
    img = f.read()
with open(helper, 'rb') as f:
    helper_bin = f.read()
extra = cpio.archive([
    ('kexec', 0o040755, b''),
    ('kexec/go.sh', 0o100755, go),
    ('kexec/kexec_reboot', 0o100755, helper_bin),
    ('kexec/Image', 0o100644, img),
    ('kexec/second.cpio', 0o100644, second),
])
with open(os.path.join(out, 'first.cpio'), 'wb') as f:
    f.write(base + run + extra)
print(os.path.join(out, 'first.cpio'))
