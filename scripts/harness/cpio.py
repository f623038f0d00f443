# SPDX-License-Identifier: GPL-2.0
"""A minimal newc cpio writer, enough for small initramfs overlays.

The kernel unpacks concatenated newc archives in order, later files
replacing earlier ones, so a per-run overlay is appended to the cached base.
"""

from __future__ import annotations

import os


def _header(name: bytes, mode: int, size: int, ino: int) -> bytes:
    fields = [ino, mode, 0, 0, 1, 0, size, 0, 0, 0, 0, len(name) + 1, 0]
    hdr = b'070701' + b''.join(b'%08X' % f for f in fields) + name + b'\0'
    return hdr + b'\0' * (-len(hdr) % 4)


def archive(entries: list[tuple[str, int, bytes]]) -> bytes:
    """entries: (path inside the archive, mode incl. file type bits, data).
    Directories use stat.S_IFDIR | perms and empty data."""
    out = bytearray()
    for ino, (path, mode, data) in enumerate(entries, 1):
        out += _header(path.lstrip('/').encode(), mode, len(data), ino)
        out += data + b'\0' * (-len(data) % 4)
    out += _header(b'TRAILER!!!', 0, 0, 0)
    out += b'\0' * (-len(out) % 512)
    return bytes(out)


def tree(root: str, prefix: str) -> list[tuple[str, int, bytes]]:
    """Regular files and directories under root, placed at prefix."""
    out: list[tuple[str, int, bytes]] = []
    for dirpath, dirnames, filenames in sorted(os.walk(root)):
        dirnames.sort()
        rel = os.path.relpath(dirpath, root)
        base = prefix if rel == '.' else f'{prefix}/{rel}'
        out.append((base, 0o040755, b''))
        for fn in sorted(filenames):
            p = os.path.join(dirpath, fn)
            st = os.stat(p)
            with open(p, 'rb') as f:
                out.append((f'{base}/{fn}', 0o100000 | (st.st_mode & 0o777), f.read()))
    return out
