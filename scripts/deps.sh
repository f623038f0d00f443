#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# deps.sh - install every host package the harness needs, idempotently.
# Only Debian's archive is used; a package that cannot be installed is named.
#   deps.sh         what make check and make demo need
#   deps.sh bench   and what make bench adds (the plots' matplotlib)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

case "${1:-}" in
'' | bench) ;;
*) die "deps.sh: unknown argument '$1' (none, or bench)" ;;
esac

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
# Debian's python3 (/usr/bin/python3) draws make bench's plots
[ "${1:-}" = bench ] && PKGS+=(python3-matplotlib)

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
