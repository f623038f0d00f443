#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# deps.sh - install every host package the harness needs, idempotently.
# Only Debian's archive is used; a package that cannot be installed is named.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=(
	"$SRCPKG"                     # the kernel source we patch
	gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu
	gcc libc6-dev                 # host: the kernel's host tools, the kinsn TCG plugin
	make flex bison bc libssl-dev libelf-dev cpio xz-utils kmod perl
	python3 git ccache rsync
	qemu-system-arm               # qemu-system-aarch64
	mmdebstrap                    # arm64 guest userland without running it
	debian-archive-keyring
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "missing packages: ${missing[*]} (run as root, or: apt-get install ${missing[*]})"
	info APT "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null || die "apt-get update failed: is Debian's archive reachable?"
	mkdir -p "$BUILD"
	apt-get install -y -q --no-install-recommends "${missing[@]}" >"$BUILD/apt.log" 2>&1 ||
		die "apt-get install ${missing[*]} failed; see $BUILD/apt.log"
fi

want=$(sed -n 's/^version[[:space:]]*=[[:space:]]*//p' "$TOP/patches/BASE")
have=$(dpkg-query -W -f='${Version}' "$SRCPKG")
if [ "$want" != "$have" ]; then
	echo "warning: patches/BASE records $SRCPKG $want, installed is $have; the series may not apply" >&2
fi
[ -r "$TARBALL" ] || die "$TARBALL not found although $SRCPKG is installed"
