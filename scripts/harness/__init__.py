# SPDX-License-Identifier: GPL-2.0
"""Host-side harness: topology files, QEMU command lines, KTAP/console parsing."""
